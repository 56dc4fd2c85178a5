package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// slurmCluster is a throwaway one-node Slurm cluster on localhost that a
// test brings up and tears down: slurmctld and slurmd as root, with their
// configuration, state, spool, logs and PID files in a folder of the
// test's own and on ports nobody else uses, so that it neither needs nor
// disturbs a Slurm installation of the machine. Authentication is the
// machine's MUNGE daemon (started here when none answers): Slurm's
// commands and daemons talk to it at its default socket.
//
// The commands of the test (sbatch, squeue, flitsim slurm) find the
// cluster through SLURM_CONF, which startSlurm sets for the test.
type slurmCluster struct {
	dir  string // configuration, state, logs
	conf string // slurm.conf
	host string // the short host name: slurmctld insists on it
}

// slurmPrograms are what the cluster needs (Debian: slurmctld, slurmd,
// slurm-client, munge; .ci/run installs them).
var slurmPrograms = []string{"munged", "mungekey", "munge", "unmunge", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol", "sinfo", "scancel"}

// startSlurm brings the cluster up, or fails the test saying what is
// missing; the cluster is stopped when the test ends.
func startSlurm(t *testing.T, ctx context.Context) *slurmCluster {
	t.Helper()
	for _, p := range slurmPrograms {
		if _, err := lookSbin(p); err != nil {
			t.Fatalf("Slurm cluster: %s not found (Debian packages slurmctld, slurmd, slurm-client, munge): %v", p, err)
		}
	}
	host, err := os.Hostname()
	require.NoError(t, err)
	host, _, _ = strings.Cut(host, ".")
	c := &slurmCluster{dir: t.TempDir(), host: host}
	c.conf = filepath.Join(c.dir, "slurm.conf")
	t.Setenv("SLURM_CONF", c.conf)

	require.NoError(t, startMunge(ctx), "MUNGE")
	ctlPort, dPort := freePort(t), freePort(t)
	for _, d := range []string{"state", "spool", "log"} {
		require.NoError(t, os.MkdirAll(filepath.Join(c.dir, d), 0o755))
	}
	require.NoError(t, os.WriteFile(c.conf, []byte(c.config(ctlPort, dPort)), 0o644))
	// Without a cgroup.conf slurmd probes the host's cgroups and stops on
	// hybrid or unmounted hierarchies; nothing here uses cgroups.
	require.NoError(t, os.WriteFile(filepath.Join(c.dir, "cgroup.conf"), []byte("CgroupPlugin=cgroup/v1\n"), 0o644))

	t.Cleanup(func() { c.stop(t) })
	c.run(t, ctx, "slurmctld")
	c.waitFor(t, ctx, "slurmctld answering", func() bool {
		out, _ := c.output(ctx, "scontrol", "ping")
		return strings.Contains(out, "is UP")
	})
	c.run(t, ctx, "slurmd", "-N", c.host)
	c.waitFor(t, ctx, "node "+c.host+" idle", func() bool {
		out, _ := c.output(ctx, "sinfo", "-h", "-n", c.host, "-o", "%T")
		return strings.TrimSpace(out) == "idle"
	})
	return c
}

// config is the cluster's slurm.conf: one node with the machine's
// processors, one partition, no accounting, no cgroups.
func (c *slurmCluster) config(ctlPort, dPort int) string {
	var b strings.Builder
	kv := func(k string, v any) { fmt.Fprintf(&b, "%s=%v\n", k, v) }
	kv("ClusterName", "flitsimtest")
	kv("SlurmctldHost", c.host+"(127.0.0.1)")
	kv("SlurmctldPort", ctlPort)
	kv("SlurmdPort", dPort)
	kv("SlurmUser", "root")
	kv("SlurmdUser", "root")
	kv("AuthType", "auth/munge")
	kv("CredType", "cred/munge")
	kv("MpiDefault", "none")
	kv("ProctrackType", "proctrack/linuxproc")
	kv("TaskPlugin", "task/none")
	kv("JobAcctGatherType", "jobacct_gather/none")
	kv("AccountingStorageType", "accounting_storage/none")
	kv("SwitchType", "switch/none")
	kv("SelectType", "select/cons_tres")
	kv("SelectTypeParameters", "CR_Core")
	kv("SchedulerParameters", "batch_sched_delay=0")
	kv("DependencyParameters", "kill_invalid_depend")
	kv("SlurmdParameters", "config_overrides")
	kv("ReturnToService", 2)
	kv("MailProg", "/bin/true")
	kv("StateSaveLocation", filepath.Join(c.dir, "state"))
	kv("SlurmdSpoolDir", filepath.Join(c.dir, "spool"))
	kv("SlurmctldPidFile", filepath.Join(c.dir, "slurmctld.pid"))
	kv("SlurmdPidFile", filepath.Join(c.dir, "slurmd.pid"))
	kv("SlurmctldLogFile", filepath.Join(c.dir, "log", "slurmctld.log"))
	kv("SlurmdLogFile", filepath.Join(c.dir, "log", "slurmd.log"))
	// The node is declared with what it has, so slurmd registers at once.
	fmt.Fprintf(&b, "NodeName=%s NodeAddr=127.0.0.1 CPUs=%d State=UNKNOWN\n", c.host, runtime.NumCPU())
	b.WriteString("PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n")
	return b.String()
}

// run starts a daemon (it forks into the background) or fails the test
// with its logs.
func (c *slurmCluster) run(t *testing.T, ctx context.Context, daemon string, args ...string) {
	t.Helper()
	if out, err := c.output(ctx, daemon, args...); err != nil {
		t.Fatalf("%s: %v: %s\n%s", daemon, err, out, c.logs())
	}
}

// output runs a Slurm program against the cluster's configuration.
func (c *slurmCluster) output(ctx context.Context, prog string, args ...string) (string, error) {
	path, err := lookSbin(prog)
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = append(os.Environ(), "SLURM_CONF="+c.conf)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// waitFor polls ok for up to 30 s.
func (c *slurmCluster) waitFor(t *testing.T, ctx context.Context, what string, ok func() bool) {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end) && ctx.Err() == nil; time.Sleep(200 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatalf("Slurm cluster: no %s after 30 s\n%s", what, c.logs())
}

// logs returns the end of the daemons' logs, for failures.
func (c *slurmCluster) logs() string {
	var b strings.Builder
	for _, f := range []string{"slurmctld.log", "slurmd.log"} {
		data, err := os.ReadFile(filepath.Join(c.dir, "log", f))
		if err != nil {
			continue
		}
		lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		if len(lines) > 30 {
			lines = lines[len(lines)-30:]
		}
		fmt.Fprintf(&b, "--- %s\n%s\n", f, strings.Join(lines, "\n"))
	}
	return b.String()
}

// stop cancels every job, then stops slurmd and slurmctld by their PID
// files (TERM, then KILL after 10 s).
func (c *slurmCluster) stop(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c.output(ctx, "scancel", "--user=root")
	for i := 0; i < 50; i++ {
		out, err := c.output(ctx, "squeue", "-h")
		if err != nil || strings.TrimSpace(out) == "" {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, f := range []string{"slurmd.pid", "slurmctld.pid"} {
		if err := stopPID(filepath.Join(c.dir, f)); err != nil {
			t.Errorf("stopping the Slurm cluster: %v", err)
		}
	}
}

// stopPID stops the process a PID file names, if it runs.
func stopPID(file string) error {
	data, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	alive := func() bool { return p.Signal(syscall.Signal(0)) == nil }
	if !alive() {
		return nil
	}
	if err := p.Signal(syscall.SIGTERM); err != nil {
		return nil // gone meanwhile
	}
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if !alive() {
			return nil
		}
	}
	return p.Kill()
}

// startMunge makes sure a MUNGE daemon answers at its default socket,
// creating the key and starting munged as the munge user when needed (the
// Debian package does both only where systemd runs).
func startMunge(ctx context.Context) error {
	works := func() bool {
		enc := exec.CommandContext(ctx, "munge", "-n")
		cred, err := enc.Output()
		if err != nil {
			return false
		}
		dec := exec.CommandContext(ctx, "unmunge")
		dec.Stdin = bytes.NewReader(cred)
		return dec.Run() == nil
	}
	if works() {
		return nil
	}
	for _, d := range []struct {
		path string
		mode string
	}{{"/etc/munge", "0700"}, {"/var/lib/munge", "0711"}, {"/var/log/munge", "0700"}, {"/run/munge", "0755"}} {
		if out, err := exec.CommandContext(ctx, "install", "-d", "-o", "munge", "-g", "munge", "-m", d.mode, d.path).CombinedOutput(); err != nil {
			return fmt.Errorf("install -d %s: %v: %s", d.path, err, out)
		}
	}
	const key = "/etc/munge/munge.key"
	if st, err := os.Stat(key); err != nil || st.Size() == 0 {
		mk, _ := lookSbin("mungekey")
		if out, err := exec.CommandContext(ctx, mk, "--create", "--keyfile="+key).CombinedOutput(); err != nil {
			return fmt.Errorf("mungekey: %v: %s", err, out)
		}
	}
	for _, args := range [][]string{{"chown", "munge:munge", key}, {"chmod", "0400", key}} {
		if out, err := exec.CommandContext(ctx, args[0], args[1:]...).CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	os.Remove("/run/munge/munged.pid") // a stale one stops munged
	md, _ := lookSbin("munged")
	if out, err := exec.CommandContext(ctx, "runuser", "-u", "munge", "--", md).CombinedOutput(); err != nil {
		return fmt.Errorf("munged: %v: %s", err, out)
	}
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if works() {
			return nil
		}
	}
	return fmt.Errorf("munged started but munge -n | unmunge fails")
}

// lookSbin finds a program on PATH or in the sbin folders, which a
// non-login root shell may lack on its PATH.
func lookSbin(prog string) (string, error) {
	if p, err := exec.LookPath(prog); err == nil {
		return p, nil
	}
	for _, d := range []string{"/usr/sbin", "/sbin", "/usr/local/sbin"} {
		p := filepath.Join(d, prog)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: not on PATH nor in /usr/sbin, /sbin", prog)
}

// freePort returns a TCP port of localhost that is free now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
