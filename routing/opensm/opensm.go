// Package opensm runs the real InfiniBand subnet manager, OpenSM, against a
// flitsim network simulated by ibsim, and reads the forwarding tables it
// computes back into routing.Tables.
//
// It needs Debian's opensm, ibsim-utils and infiniband-diags. A session
// writes the network as an ibsim netlist with its GUIDs and a guid2lid file
// with its LIDs, starts ibsim on a private socket, runs one OpenSM sweep
// under the umad2sim preload, parses opensm-lfts.dump and stops everything
// it started.
package opensm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"flitsim/fabric"
	"flitsim/routing"
)

// Umad2Sim is where Debian installs the preload library that connects
// libibumad clients to ibsim.
const Umad2Sim = "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so"

// ErrMissing means OpenSM or ibsim is not installed.
var ErrMissing = errors.New("OpenSM in the loop needs the Debian packages opensm, ibsim-utils and infiniband-diags (apt-get install opensm ibsim-utils infiniband-diags)")

// Available reports whether the tools are installed.
func Available() error {
	for _, tool := range []string{"opensm", "ibsim"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("%w: %s not found", ErrMissing, tool)
		}
	}
	if _, err := os.Stat(Umad2Sim); err != nil {
		return fmt.Errorf("%w: %s not found", ErrMissing, Umad2Sim)
	}
	return nil
}

// Config says how to run OpenSM.
type Config struct {
	// Engine is OpenSM's routing engine name (-R), e.g. "minhop", "dfsssp",
	// "file".
	Engine string
	// Args are extra OpenSM arguments (e.g. -Q, -U FILE).
	Args []string
	// Timeout bounds the OpenSM run (default 60 s).
	Timeout time.Duration
	// Keep leaves the work directory in place for inspection.
	Keep bool
	// Debug raises OpenSM's log level to include debug messages (-D 0x4F
	// instead of 0x47), which is where DFSSSP reports each path's VL.
	Debug bool
}

// Result is what one OpenSM sweep produced.
type Result struct {
	Tables *routing.Tables
	// Log is OpenSM's log without its debug-level lines; Dir the work
	// directory (removed unless Keep).
	Log string
	Dir string
	// PathVLs maps (source LID, destination LID) to the VL OpenSM's DFSSSP
	// put the path on; read from its debug log (Config.Debug), else nil.
	PathVLs map[[2]uint16]uint8
	// DestVLs maps a destination LID to the VL OpenSM's Nue routed it on;
	// nil for other engines.
	DestVLs map[uint16]uint8
	// EngineMS is the routing engine's own time by the log's timestamps
	// (-1 unknown): the sweep around it (ibsim's MADs, discovery, the
	// switches' configuration) is left out.
	EngineMS float64
}

// Run routes net with OpenSM.
func Run(ctx context.Context, net *fabric.Network, cfg Config) (*Result, error) {
	if err := Available(); err != nil {
		return nil, err
	}
	if net.NumHCAs() == 0 {
		return nil, fmt.Errorf("opensm: the network needs an HCA to run the subnet manager on")
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 60 * time.Second
	}
	dir, err := os.MkdirTemp("", "flitsim-opensm-")
	if err != nil {
		return nil, err
	}
	res := &Result{Dir: dir, EngineMS: -1}
	if !cfg.Keep {
		defer os.RemoveAll(dir)
	}
	var netlist, g2l bytes.Buffer
	if err := fabric.WriteIBNetDiscover(&netlist, net); err != nil {
		return nil, err
	}
	if err := routing.WriteGUID2LID(&g2l, net); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "fabric.net"), netlist.Bytes(), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "guid2lid"), g2l.Bytes(), 0o644); err != nil {
		return nil, err
	}
	sim, err := StartIBSim(ctx, dir, filepath.Join(dir, "fabric.net"))
	if err != nil {
		return nil, err
	}
	defer sim.Stop()

	// The SM runs on the first HCA (names longer than 31 bytes upset ibsim).
	host := net.Nodes[net.NumSwitches].Name
	if len(host) > 31 {
		return nil, fmt.Errorf("opensm: HCA name %q is longer than ibsim's 31 bytes", host)
	}
	rctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	logPath := filepath.Join(dir, "osm.log")
	level := "0x47" // error, info, verbose, routing (needed for the dumps)
	if cfg.Debug {
		level = "0x4F"
	}
	args := []string{"-o", "-e", "-f", logPath, "-D", level, "--dump_files_dir", dir, "-R", cfg.Engine + ",no_fallback"}
	args = append(args, cfg.Args...)
	cmd := exec.CommandContext(rctx, "opensm", args...)
	cmd.Dir = dir
	cmd.Env = append(sim.Env(host), "OSM_CACHE_DIR="+dir, "OSM_TMP_DIR="+dir)
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting opensm: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// With -o OpenSM exits after a successful sweep but re-sweeps every 10 s
	// while the engine fails: watch the log and stop it at the first verdict.
	var runErr error
	failed := false
	tail := &logTail{path: logPath, marker: []byte("No routing engine able")}
wait:
	for {
		select {
		case runErr = <-done:
			break wait
		case <-time.After(50 * time.Millisecond):
			if tail.poll() {
				failed = true
				_ = cmd.Process.Kill()
				runErr = <-done
				break wait
			}
		}
	}
	if f, err := os.Open(logPath); err == nil {
		pl, err := parseLog(f)
		f.Close()
		if err != nil {
			return res, fmt.Errorf("reading OpenSM's log: %w", err)
		}
		res.Log, res.PathVLs, res.DestVLs, res.EngineMS = pl.text, pl.pathVLs, pl.destVLs, pl.engineMS
	}
	dump := filepath.Join(dir, "opensm-lfts.dump")
	used := usedEngine(res.Log)
	if _, err := os.Stat(dump); err != nil || failed || (used != "" && !strings.EqualFold(used, cfg.Engine)) {
		why := firstError(res.Log)
		switch {
		case used != "" && !strings.EqualFold(used, cfg.Engine):
			why = fmt.Sprintf("OpenSM fell back to %s (%s)", used, why)
		case why == "" && runErr != nil:
			why = fmt.Sprintf("%v: %s", runErr, strings.TrimSpace(out.String()))
		case why == "":
			why = "OpenSM wrote no forwarding tables"
		}
		return res, &routing.Failure{Engine: "opensm:" + cfg.Engine, Reason: why}
	}
	t, err := routing.LoadLFTs(dump, net)
	if err != nil {
		return res, err
	}
	t.Engine = "opensm:" + cfg.Engine
	res.Tables = t
	return res, nil
}

// usedEngine returns the engine of OpenSM's last "building routing with"
// line, or "".
func usedEngine(log string) string {
	const marker = "building routing with '"
	i := strings.LastIndex(log, marker)
	if i < 0 {
		return ""
	}
	rest := log[i+len(marker):]
	if j := strings.IndexByte(rest, '\''); j >= 0 {
		return rest[:j]
	}
	return ""
}

// firstError returns OpenSM's first ERR line, trimmed to the message, with
// the indented lines that continue it (ftree's topology checks name the
// switches that differ there) after a colon, joined by "; ".
func firstError(log string) string {
	lines := strings.Split(log, "\n")
	for k, l := range lines {
		i := strings.Index(l, "ERR ")
		if i < 0 {
			continue
		}
		msg := l[i:]
		if j := strings.Index(msg, ": "); j >= 0 {
			msg = msg[j+2:]
		}
		parts := []string{strings.TrimSpace(msg)}
		for _, c := range lines[k+1:] {
			if c == "" || (c[0] != ' ' && c[0] != '\t') {
				break
			}
			parts = append(parts, strings.TrimSpace(c))
		}
		if len(parts) == 1 {
			return parts[0]
		}
		return strings.TrimSuffix(parts[0], ":") + ": " + strings.Join(parts[1:], "; ")
	}
	return ""
}

// IBSim is a running ibsim.
type IBSim struct {
	// Socket is the IBSIM_SOCKNAME clients must use.
	Socket string
	cmd    *exec.Cmd
	stdin  interface{ Close() error }
}

// StartIBSim starts ibsim on a netlist, with dir as working directory and a
// socket name of its own, and waits until it is ready. dir must belong to
// this ibsim alone (a fresh temporary directory): its name makes the socket
// name unique.
func StartIBSim(ctx context.Context, dir, netlist string) (*IBSim, error) {
	// The work directory's random suffix makes the socket name unique.
	base := filepath.Base(dir)
	sock := fmt.Sprintf("flitsim%d-%s", os.Getpid(), base[strings.LastIndexByte(base, '-')+1:])
	cmd := exec.CommandContext(ctx, "ibsim", "-s", "-n", netlist)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "IBSIM_SOCKNAME="+sock)
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	stdin, err := cmd.StdinPipe() // ibsim reads console commands from stdin
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting ibsim: %w", err)
	}
	sim := &IBSim{Socket: sock, cmd: cmd, stdin: stdin}
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(out.String(), "Network simulator ready") {
		if time.Now().After(deadline) || ctx.Err() != nil {
			sim.Stop()
			return nil, fmt.Errorf("ibsim did not start: %s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return sim, nil
}

// Stop ends ibsim.
func (s *IBSim) Stop() {
	s.stdin.Close()
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
}

// Env returns the environment a libibumad client needs to talk to this
// ibsim as the node host.
func (s *IBSim) Env(host string) []string {
	return append(os.Environ(), "IBSIM_SOCKNAME="+s.Socket, "SIM_HOST="+host, "LD_PRELOAD="+Umad2Sim)
}

// Discover runs the real ibnetdiscover against the simulated fabric of a
// flitsim network and parses what it prints.
func Discover(ctx context.Context, net *fabric.Network) (*fabric.Network, string, error) {
	if _, err := exec.LookPath("ibnetdiscover"); err != nil {
		return nil, "", fmt.Errorf("%w: ibnetdiscover not found", ErrMissing)
	}
	if err := Available(); err != nil {
		return nil, "", err
	}
	dir, err := os.MkdirTemp("", "flitsim-ibsim-")
	if err != nil {
		return nil, "", err
	}
	defer os.RemoveAll(dir)
	var netlist bytes.Buffer
	if err := fabric.WriteIBNetDiscover(&netlist, net); err != nil {
		return nil, "", err
	}
	path := filepath.Join(dir, "fabric.net")
	if err := os.WriteFile(path, netlist.Bytes(), 0o644); err != nil {
		return nil, "", err
	}
	sim, err := StartIBSim(ctx, dir, path)
	if err != nil {
		return nil, "", err
	}
	defer sim.Stop()
	cmd := exec.CommandContext(ctx, "ibnetdiscover")
	cmd.Dir = dir
	cmd.Env = sim.Env(net.Nodes[net.NumSwitches].Name)
	out, err := cmd.Output()
	if err != nil {
		return nil, string(out), fmt.Errorf("ibnetdiscover: %w", err)
	}
	got, err := fabric.ReadIBNetDiscover(bytes.NewReader(out), "ibnetdiscover")
	return got, string(out), err
}

// syncBuffer collects a child's output while it is polled.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
