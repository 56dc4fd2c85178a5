package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"flitsim/configs"
	"flitsim/results"
)

// slurmJob is what the two batch scripts need to know.
type slurmJob struct {
	Binary   string // flitsim executable the jobs run (absolute)
	Campaign string // embedded name or absolute file path
	Name     string // campaign name
	Dir      string // output directory (absolute); shards in Dir/shard-I-of-N
	Workdir  string // working directory of the jobs (absolute)
	Tasks    int    // N
	Missing  []int  // shards to run (all of them on a first submission)
	// Optional sbatch settings; empty means the cluster's default.
	Partition, Time, Account string
	CPUsPerTask              int
}

// arrayScript is the job array: task I runs shard I/N of the campaign.
func (j slurmJob) arrayScript() string {
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/bash\n# flitsim campaign %s: shard $SLURM_ARRAY_TASK_ID of %d per array task.\n", j.Name, j.Tasks)
	fmt.Fprintf(&b, "#SBATCH --job-name=flitsim-%s\n", j.Name)
	fmt.Fprintf(&b, "#SBATCH --array=%s\n", arrayRange(j.Missing))
	j.common(&b)
	fmt.Fprintf(&b, "#SBATCH --cpus-per-task=%d\n", max(j.CPUsPerTask, 1))
	fmt.Fprintf(&b, "#SBATCH --output=%s\n", filepath.Join(j.Dir, "slurm", "shard-%a-job-%A.out"))
	b.WriteString("set -euo pipefail\n")
	fmt.Fprintf(&b, "exec %s run %s --shard \"${SLURM_ARRAY_TASK_ID}/%d\" -j \"${SLURM_CPUS_PER_TASK:-1}\" -q -o %s\n",
		shellQuote(j.Binary), shellQuote(j.Campaign), j.Tasks, shellQuote(filepath.Join(j.Dir, "shard-"))+"\"${SLURM_ARRAY_TASK_ID}\""+shellQuote(fmt.Sprintf("-of-%d", j.Tasks)))
	return b.String()
}

// mergeScript merges the shards once the array has succeeded (the
// dependency is given to sbatch when the array's id is known).
func (j slurmJob) mergeScript() string {
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/bash\n# flitsim campaign %s: merge the %d shards into tables and plots.\n", j.Name, j.Tasks)
	fmt.Fprintf(&b, "#SBATCH --job-name=flitsim-%s-merge\n", j.Name)
	j.common(&b)
	b.WriteString("#SBATCH --cpus-per-task=1\n")
	fmt.Fprintf(&b, "#SBATCH --output=%s\n", filepath.Join(j.Dir, "slurm", "merge-job-%j.out"))
	b.WriteString("set -euo pipefail\n")
	fmt.Fprintf(&b, "exec %s merge -o %s", shellQuote(j.Binary), shellQuote(j.Dir))
	for i := 0; i < j.Tasks; i++ {
		fmt.Fprintf(&b, " %s", shellQuote(j.shardDir(i)))
	}
	b.WriteString("\n")
	return b.String()
}

func (j slurmJob) common(b *strings.Builder) {
	b.WriteString("#SBATCH --ntasks=1\n")
	fmt.Fprintf(b, "#SBATCH --chdir=%s\n", j.Workdir)
	if j.Partition != "" {
		fmt.Fprintf(b, "#SBATCH --partition=%s\n", j.Partition)
	}
	if j.Time != "" {
		fmt.Fprintf(b, "#SBATCH --time=%s\n", j.Time)
	}
	if j.Account != "" {
		fmt.Fprintf(b, "#SBATCH --account=%s\n", j.Account)
	}
}

func (j slurmJob) shardDir(i int) string {
	return filepath.Join(j.Dir, shardDirName(configs.Shard{I: i, N: j.Tasks}))
}

// arrayRange writes sorted task ids as Slurm's --array list: "0-3" or
// "1,4-5".
func arrayRange(ids []int) string {
	var parts []string
	for k := 0; k < len(ids); {
		e := k
		for e+1 < len(ids) && ids[e+1] == ids[e]+1 {
			e++
		}
		if e == k {
			parts = append(parts, strconv.Itoa(ids[k]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", ids[k], ids[e]))
		}
		k = e + 1
	}
	return strings.Join(parts, ",")
}

// shellQuote quotes s for bash unless it is made of safe characters.
func shellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=+@%,", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// slurmFlags are the flags of flitsim slurm.
type slurmFlags struct {
	tasks, cpus                            int
	partition, limit, account, out, binary string
	submit, wait                           bool
}

func (f *slurmFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&f.tasks, "tasks", 0, "number of array tasks (shards), N ≥ 1")
	fs.StringVar(&f.partition, "partition", "", "Slurm partition (default: the cluster's)")
	fs.StringVar(&f.limit, "time", "", "time limit per task, e.g. 2:00:00 (default: the partition's)")
	fs.StringVar(&f.account, "account", "", "Slurm account to charge")
	fs.IntVar(&f.cpus, "cpus-per-task", 1, "CPUs per task; each task simulates that many points in parallel")
	fs.StringVar(&f.out, "o", "", "output directory on a shared filesystem (default out/NAME)")
	fs.StringVar(&f.binary, "binary", "", "flitsim executable the jobs run (default: a copy of this one in DIR/slurm)")
	fs.BoolVar(&f.submit, "submit", false, "submit the jobs with sbatch")
	fs.BoolVar(&f.wait, "wait", false, "with --submit: wait for the merge job, show progress, print the table")
}

// check refuses flag values that need no campaign to be found wrong.
func (f *slurmFlags) check() error {
	if f.tasks < 1 {
		return badInput("--tasks must be at least 1")
	}
	if f.cpus < 1 {
		return badInput("--cpus-per-task must be at least 1")
	}
	if f.wait && !f.submit {
		return badInput("--wait needs --submit")
	}
	for _, w := range []struct{ name, v string }{{"--partition", f.partition}, {"--account", f.account}} {
		if w.v != "" && !configs.PlainWord(w.v) {
			return badInput("%s %q: goes into an #SBATCH line; want letters, digits, '_', '.' and '-' only", w.name, w.v)
		}
	}
	if f.limit != "" && !slurmTime.MatchString(f.limit) {
		return badInput("--time %q: want a Slurm time such as 90, 2:00:00 or 1-12:00:00", f.limit)
	}
	return nil
}

func slurmCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("slurm", "slurm FILE|NAME --tasks N [--partition P] [--time T] [--cpus-per-task C] [-o DIR] [--submit [--wait]]",
		"Runs a campaign on a Slurm cluster: a job array of N tasks, task I running shard I/N ('flitsim run\n"+
			"--shard'), and a merge job that waits for the array (--dependency=afterok) and writes the tables and\n"+
			"plots into DIR as a local run would. Without --submit the two batch scripts are printed for\n"+
			"inspection. With --submit the binary is copied to DIR/slurm/flitsim (so every task runs the same build),\n"+
			"the scripts go to DIR/slurm/, both jobs are submitted with sbatch and their ids printed. Submitting\n"+
			"again after a partial failure runs only the shards that are not finished (each resumes its points).\n"+
			"DIR must be on a filesystem the compute nodes share.", stderr)
	var f slurmFlags
	f.register(fs)
	name, err := parseOne(fs, args, "campaign FILE or NAME")
	if err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	c, pts, err := loadCampaign(name)
	if err != nil {
		return err
	}
	if f.tasks > len(pts) {
		return badInput("--tasks %d: the campaign has only %d points", f.tasks, len(pts))
	}
	j, err := f.job(name, c)
	if err != nil {
		return err
	}
	hash := c.Hash()
	if j.Missing, err = missingShards(j, hash, len(pts)); err != nil {
		return err
	}
	if !f.submit {
		j.print(stdout)
		if f.binary == "" {
			fmt.Fprintf(stderr, "note: --submit copies this flitsim binary to %s\n", j.Binary)
		}
		return nil
	}
	ctx := context.Background()
	mergeID, err := j.submit(ctx, stdout, f.binary == "")
	if err != nil || !f.wait {
		return err
	}
	if err := waitJob(ctx, mergeID, func() string { return shardProgress(j, hash, len(pts)) }, stderr); err != nil {
		return fmt.Errorf("%w (logs in %s)", err, j.slurmDir())
	}
	table, err := os.ReadFile(filepath.Join(j.Dir, "table.md"))
	if err != nil {
		return err
	}
	_, err = stdout.Write(table)
	return err
}

// job returns the jobs of campaign c, loaded from name, with every path
// absolute; the shards to run are still to be found.
func (f *slurmFlags) job(name string, c *configs.Campaign) (slurmJob, error) {
	campaign := name
	if _, err := os.Stat(name); err == nil {
		if campaign, err = filepath.Abs(name); err != nil {
			return slurmJob{}, err
		}
	}
	dir, err := filepath.Abs(campaignDir(f.out, c, configs.Shard{}))
	if err != nil {
		return slurmJob{}, err
	}
	wd, err := os.Getwd()
	if err != nil {
		return slurmJob{}, err
	}
	for _, p := range []string{dir, wd} {
		if strings.ContainsAny(p, " \t\n\r\"'\\$`;&|<>") {
			return slurmJob{}, badInput("%q: #SBATCH directives cannot take a path with spaces or quotes; use another -o or working directory", p)
		}
	}
	j := slurmJob{Campaign: campaign, Name: c.Name, Dir: dir, Workdir: wd, Tasks: f.tasks,
		Partition: f.partition, Time: f.limit, Account: f.account, CPUsPerTask: f.cpus}
	j.Binary = filepath.Join(j.slurmDir(), "flitsim")
	if f.binary != "" {
		if j.Binary, err = filepath.Abs(f.binary); err != nil {
			return slurmJob{}, err
		}
	}
	return j, nil
}

// missingShards returns the shards of j that still have work (all of them
// on a first submission).
func missingShards(j slurmJob, hash string, total int) ([]int, error) {
	var missing []int
	for i := 0; i < j.Tasks; i++ {
		done, err := shardDone(j.shardDir(i), hash, configs.Shard{I: i, N: j.Tasks}, total)
		if err != nil {
			return nil, asInput(err)
		}
		if !done {
			missing = append(missing, i)
		}
	}
	return missing, nil
}

// slurmDir holds the batch scripts, the binary and the jobs' logs.
func (j slurmJob) slurmDir() string { return filepath.Join(j.Dir, "slurm") }

// print shows the batch scripts a submission would use.
func (j slurmJob) print(w io.Writer) {
	if len(j.Missing) > 0 {
		fmt.Fprintf(w, "# ---- array job: %s/slurm/array.sbatch\n%s\n", j.Dir, j.arrayScript())
	} else {
		fmt.Fprintf(w, "# all %d shards are finished: only the merge job is needed\n\n", j.Tasks)
	}
	fmt.Fprintf(w, "# ---- merge job: %s/slurm/merge.sbatch (submit with --dependency=afterok:<array job id>)\n%s", j.Dir, j.mergeScript())
}

// submit writes the batch scripts into slurmDir, with a copy of this
// binary if copyBinary, and submits the array job (when a shard is
// missing) and the merge job after it. It returns the merge job's id.
func (j slurmJob) submit(ctx context.Context, stdout io.Writer, copyBinary bool) (string, error) {
	if _, err := exec.LookPath("sbatch"); err != nil {
		return "", fmt.Errorf("sbatch not found: run this on a Slurm login node (or install slurm-client): %w", err)
	}
	sdir := j.slurmDir()
	if err := os.MkdirAll(sdir, 0o755); err != nil {
		return "", err
	}
	if copyBinary {
		if err := copyExecutable(j.Binary); err != nil {
			return "", err
		}
	}
	mergePath := filepath.Join(sdir, "merge.sbatch")
	if err := os.WriteFile(mergePath, []byte(j.mergeScript()), 0o644); err != nil {
		return "", err
	}
	var mergeArgs []string
	if len(j.Missing) > 0 {
		arrayPath := filepath.Join(sdir, "array.sbatch")
		if err := os.WriteFile(arrayPath, []byte(j.arrayScript()), 0o644); err != nil {
			return "", err
		}
		arrayID, err := sbatch(ctx, arrayPath)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(stdout, "array job %s: shards %s of %d\n", arrayID, arrayRange(j.Missing), j.Tasks)
		mergeArgs = append(mergeArgs, "--dependency=afterok:"+arrayID)
	} else {
		fmt.Fprintf(stdout, "all %d shards are finished; submitting only the merge\n", j.Tasks)
	}
	mergeID, err := sbatch(ctx, mergePath, mergeArgs...)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(stdout, "merge job %s: writes %s\n", mergeID, filepath.Join(j.Dir, "table.md"))
	return mergeID, nil
}

// shardDone reports whether dir holds every point of shard s; a directory
// of another campaign or split is an error.
func shardDone(dir, hash string, s configs.Shard, total int) (bool, error) {
	si, err := results.ReadShardInfo(dir)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if si.Hash != hash || si.Shards != s.N || si.Shard != s.I {
		return false, fmt.Errorf("%s holds shard %s of campaign %s (%s), not shard %s of this one (%s): choose another -o",
			dir, si, si.Campaign, si.Hash, s, hash)
	}
	recs, err := results.ReadDir(dir)
	if err != nil {
		return false, err
	}
	return len(recs) == s.Size(total), nil
}

// shardProgress counts the finished points of all shards.
func shardProgress(j slurmJob, hash string, total int) string {
	n := 0
	for i := 0; i < j.Tasks; i++ {
		if recs, err := results.ReadDir(j.shardDir(i)); err == nil {
			n += len(recs)
		}
	}
	return fmt.Sprintf("%d/%d points", n, total)
}

// copyExecutable copies the running flitsim to dst (atomically).
func copyExecutable(dst string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	data, err := os.ReadFile(self)
	if err != nil {
		return err
	}
	tmp := dst + ".tmp"
	if err := os.WriteFile(tmp, data, 0o755); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}

// sbatch submits a script and returns the job id.
func sbatch(ctx context.Context, script string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "sbatch", append(append([]string{"--parsable"}, args...), script)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("sbatch %s: %v: %s", script, err, strings.TrimSpace(errb.String()))
	}
	id, _, _ := strings.Cut(strings.TrimSpace(out.String()), ";")
	if _, err := strconv.Atoi(id); err != nil {
		return "", fmt.Errorf("sbatch %s: unexpected output %q", script, out.String())
	}
	return id, nil
}

// jobState reads a job's state, reason and exit code from scontrol.
func jobState(ctx context.Context, id string) (state, reason, exit string, err error) {
	out, err := exec.CommandContext(ctx, "scontrol", "show", "job", "-o", id).CombinedOutput()
	if err != nil {
		return "", "", "", fmt.Errorf("scontrol show job %s: %v: %s", id, err, strings.TrimSpace(string(out)))
	}
	for _, f := range strings.Fields(string(out)) {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "JobState":
			state = v
		case "Reason":
			reason = v
		case "ExitCode":
			exit = v
		}
	}
	return state, reason, exit, nil
}

// waitJob polls a job until it ends; it reports progress every 10 s.
func waitJob(ctx context.Context, id string, progress func() string, w io.Writer) error {
	last := time.Time{}
	for {
		state, reason, exit, err := jobState(ctx, id)
		if err != nil {
			return err
		}
		switch state {
		case "COMPLETED":
			if exit != "0:0" {
				return fmt.Errorf("job %s completed with exit code %s", id, exit)
			}
			fmt.Fprintf(w, "job %s completed: %s\n", id, progress())
			return nil
		case "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED", "BOOT_FAIL", "DEADLINE":
			return fmt.Errorf("job %s ended %s (reason %s, exit code %s)", id, state, reason, exit)
		}
		if reason == "DependencyNeverSatisfied" {
			return fmt.Errorf("job %s can never start: a shard task failed (scancel %s, then submit again to rerun what is missing)", id, id)
		}
		if time.Since(last) >= 10*time.Second {
			fmt.Fprintf(w, "job %s %s (%s): %s\n", id, strings.ToLower(state), reason, progress())
			last = time.Now()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// slurmTime matches Slurm's time limit formats: minutes, m:s, h:m:s,
// d-h, d-h:m, d-h:m:s.
var slurmTime = regexp.MustCompile(`^(\d+-)?\d+(:\d+){0,2}$`)
