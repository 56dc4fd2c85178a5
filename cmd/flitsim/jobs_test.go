package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/configs/pipeline"
	"flitsim/results"
)

// needTool skips (or in CI fails) a test that needs a command.
func needTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s not installed (.ci/run installs slurm-client)", name)
		}
		t.Skipf("%s not installed", name)
	}
}

// hostlistOnly lets scontrol expand host lists on a machine that has no
// Slurm configuration (a fresh CI machine, before the end-to-end test
// brings its cluster up): scontrol loads a configuration even for that,
// and fails without one.
func hostlistOnly(t *testing.T) {
	t.Helper()
	if os.Getenv("SLURM_CONF") != "" {
		return
	}
	if _, err := os.Stat("/etc/slurm/slurm.conf"); err == nil {
		return
	}
	conf, err := filepath.Abs("testdata/slurm-hostlist.conf")
	require.NoError(t, err)
	t.Setenv("SLURM_CONF", conf)
}

// Recorded squeue output of a multi-node cluster: host lists expanded by
// scontrol, hosts mapped to fabric nodes, and the jobs file it writes
// routes and simulates.
func TestJobsFromSlurmRecorded(t *testing.T) {
	needTool(t, "scontrol")
	hostlistOnly(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "jobs.toml")
	code, _, errs := run("jobs", "from-slurm", "--squeue", "testdata/squeue-running.txt", "--map", "testdata/squeue-hosts.map",
		"--fabric", "kary-ntree:k=4,n=2", "-o", out)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, errs, "3 running jobs")
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Contains(t, string(data), `id = "slurm-4711"`+"\n"+`nodes = ["h-l0-0-0", "h-l0-0-1", "h-l0-0-2", "h-l0-0-3", "h-l0-2-0"]`)
	assert.Contains(t, string(data), `id = "slurm-4712_3"`+"\n"+`nodes = ["h-l0-1-0", "h-l0-1-1"]`)

	code, stdout, errs := run("route", "kary-ntree:k=4,n=2", "--routing", "sar,dfsssp", "--jobs", out, "--json")
	require.Equal(t, 0, code, errs)
	var reps []map[string]any
	require.NoError(t, json.Unmarshal([]byte(stdout), &reps))
	assert.Equal(t, 3.0, reps[0]["jobs"])
	code, stdout, errs = run("sim", "kary-ntree:k=4,n=2", "--jobs", out, "--no-slowdown")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, stdout, "slurm-4713")
	// The same file as a campaign's workload (jobs_file), over failures.
	camp := filepath.Join(dir, "slurm-jobs.toml")
	require.NoError(t, os.WriteFile(camp, []byte("name = \"slurmjobs\"\njobs_file = \"jobs.toml\"\n[[topology]]\nspec = \"kary-ntree:k=4,n=2\"\n"+
		"label = \"tree\"\n[faults]\npercent = [0, 10]\n[[routing]]\nengine = \"sar\"\n[[traffic]]\nkind = \"jobs\"\nslowdowns = false\n"), 0o644))
	code, stdout, errs = run("run", camp, "-o", filepath.Join(dir, "out"), "-q")
	require.Equal(t, 0, code, errs)
	assert.Regexp(t, `\| tree \| sar \| jobs \| links \| slurm-4711 \| exchange \| 10 \| 5\.0 \| 1 \|`, stdout)

	// Without a map the host names must be the fabric's: they are not.
	code, _, errs = run("jobs", "from-slurm", "--squeue", "testdata/squeue-running.txt", "--fabric", "kary-ntree:k=4,n=2")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, `no HCA "node01"`)
	// A malformed recorded line names its file and line.
	bad := filepath.Join(dir, "bad.txt")
	require.NoError(t, os.WriteFile(bad, []byte("1|a|n1\n2 b n2\n"), 0o644))
	code, _, errs = run("jobs", "from-slurm", "--squeue", bad)
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, bad+":2:")
}

func TestJobsSweep(t *testing.T) {
	dir := t.TempDir()
	plot := filepath.Join(dir, "noise.svg")
	code, out, errs := run("jobs", "sweep", "kary-ntree:k=4,n=3", "--jobs", "../../docs/jobs/noise.toml", "--set", "noise.load=0,0.5,1",
		"--routing", "dfsssp,updn", "--plot", plot, "--json")
	require.Equal(t, 0, code, errs)
	var rep sweepReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, "a2a", rep.Job)
	require.Len(t, rep.Points, 6)
	for _, p := range rep.Points {
		assert.Equal(t, "completed", p.Verdict)
		if p.Value == 0 {
			assert.Equal(t, 1.0, p.Slowdown, "no noise: the job runs as alone")
		} else {
			assert.GreaterOrEqual(t, p.Slowdown, 1.0)
		}
	}
	// Full noise slows the all-to-all on both routings.
	assert.Greater(t, rep.Points[2].Slowdown, 1.05)
	assert.Greater(t, rep.Points[5].Slowdown, 1.05)
	st, err := os.Stat(plot)
	require.NoError(t, err)
	assert.Greater(t, st.Size(), int64(1000))

	for _, args := range [][]string{
		{"--set", "noise.load=2"}, {"--set", "nosuch.load=0.5"}, {"--set", "noise.volume=1"}, {"--set", "a2a.load=0.5"},
		{"--set", "noise.load=0.5", "--plot", "x.pdf"}, {"--set", "noise.load=0.5", "--job", "nosuch"},
	} {
		code, _, errs = run(append([]string{"jobs", "sweep", "kary-ntree:k=4,n=3", "--jobs", "../../docs/jobs/noise.toml"}, args...)...)
		assert.Equal(t, 2, code, "%v: %s", args, errs)
	}
}

// jobs modes compares the modes on one placement and seeds 1..N: the
// summary has a row per job and mode, normalized to the first mode's
// median, app-aware's with its default share; the box plot is written; bad
// flags exit 2. sim --series-plot draws the counters over time.
func TestJobsModes(t *testing.T) {
	dir := t.TempDir()
	jobs := filepath.Join(dir, "jobs.toml")
	require.NoError(t, os.WriteFile(jobs, []byte(`seed = 1
[[job]]
id = "a2a"
size = 8
placement = "random"
pattern = "exchange"
msg_bytes = "16KiB"

[[job]]
id = "noise"
size = 16
placement = "random"
pattern = "noise"
msg_bytes = "4KiB"
load = 0.5
routing = "ugal"
`), 0o644))
	plot := filepath.Join(dir, "modes.svg")
	net := "dragonfly:a=4,p=2,h=2,g=9"
	code, out, errs := run("jobs", "modes", net, "--jobs", jobs, "--seeds", "3", "--plot", plot, "-j", "2", "--json")
	require.Equal(t, 0, code, errs)
	var rep modesReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.Len(t, rep.Workloads, 1)
	w := rep.Workloads[0]
	assert.Equal(t, []string{"ugal-imb", "ugal-high", "app-aware"}, w.Modes, "default: ugal-imb for an all-to-all")
	require.Len(t, w.Runs, 9)
	require.Len(t, w.Summary, 3, "the finite job only")
	assert.InDelta(t, 1.0, w.Summary[0].Normalized.Median, 1e-12)
	for _, s := range w.Summary {
		assert.Equal(t, 3, s.Runs)
		assert.LessOrEqual(t, s.MedianLo, s.Normalized.Median)
		assert.GreaterOrEqual(t, s.MedianHi, s.Normalized.Median)
	}
	assert.Nil(t, w.Summary[0].DefaultShare)
	require.NotNil(t, w.Summary[2].DefaultShare)
	st, err := os.Stat(plot)
	require.NoError(t, err)
	assert.Greater(t, st.Size(), int64(1000))
	// -j does not change the results; two files give two workloads, the
	// second as alone.
	_, out1, _ := run("jobs", "modes", net, "--jobs", jobs+","+jobs, "--seeds", "3", "-j", "1", "--json")
	var rep1 modesReport
	require.NoError(t, json.Unmarshal([]byte(out1), &rep1))
	require.Len(t, rep1.Workloads, 2)
	assert.Equal(t, rep.Workloads[0], rep1.Workloads[0])
	assert.Equal(t, rep.Workloads[0].Summary, rep1.Workloads[1].Summary)

	// -o keeps every run: the same comparison from a directory that holds
	// some of its runs (a killed one) runs the others and gives the same
	// report; one that holds them all simulates nothing (a kept run
	// altered by hand shows through); other parameters get a workload of
	// their own; a directory in use is refused.
	keep := filepath.Join(dir, "keep")
	b0, err := os.ReadFile(jobs)
	require.NoError(t, err)
	_, outK, errs := run("jobs", "modes", net, "--jobs", jobs, "--seeds", "3", "-o", keep, "--json")
	var repK modesReport
	require.NoError(t, json.Unmarshal([]byte(outK), &repK), errs)
	assert.Equal(t, rep.Workloads[0], repK.Workloads[0])
	// --first-seed splits a comparison: seeds 2..3 alone are the 3-seed
	// comparison's runs of those seeds.
	_, outF, errs := run("jobs", "modes", net, "--jobs", jobs, "--seeds", "2", "--first-seed", "2", "--json")
	var repF modesReport
	require.NoError(t, json.Unmarshal([]byte(outF), &repF), errs)
	assert.Equal(t, []uint64{2, 3}, repF.Seeds)
	var later []pipeline.ModeRun
	for _, r := range repK.Workloads[0].Runs {
		if r.Seed >= 2 {
			later = append(later, r)
		}
	}
	assert.Equal(t, later, repF.Workloads[0].Runs)
	code, _, errs = run("jobs", "modes", net, "--jobs", jobs, "--first-seed", "0")
	assert.Equal(t, 2, code, errs)
	assert.Contains(t, errs, "--first-seed 0")
	wdirs, err := filepath.Glob(filepath.Join(keep, "jobs-*"))
	require.NoError(t, err)
	require.Len(t, wdirs, 1)
	kept, err := filepath.Glob(filepath.Join(wdirs[0], "*-seed*.json"))
	require.NoError(t, err)
	require.Len(t, kept, 9)
	require.NoError(t, os.Remove(filepath.Join(wdirs[0], "ugal-high-seed2.json")))
	_, outR, errs := run("jobs", "modes", net, "--jobs", jobs, "--seeds", "3", "-o", keep, "--json")
	require.Equal(t, outK, outR, errs)
	_, err = os.Stat(filepath.Join(wdirs[0], "ugal-high-seed2.json"))
	require.NoError(t, err, "the missing run was run and kept")
	var k pipeline.ModeRun
	one := filepath.Join(wdirs[0], "app-aware-seed3.json")
	b, err := os.ReadFile(one)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &k))
	k.Jobs[0].CompletionNs = 1e12
	b, err = json.Marshal(k)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(one, b, 0o644))
	_, outA, _ := run("jobs", "modes", net, "--jobs", jobs, "--seeds", "3", "-o", keep, "--json")
	var repA modesReport
	require.NoError(t, json.Unmarshal([]byte(outA), &repA))
	assert.Equal(t, 1e12, repA.Workloads[0].Summary[2].CompletionNs.Max, "the kept run, not a new one")
	code, _, errs = run("jobs", "modes", net, "--jobs", jobs, "--seeds", "1", "--hw", "pcie_gbps=128", "-o", keep, "--json")
	require.Equal(t, 0, code, errs)
	wdirs, err = filepath.Glob(filepath.Join(keep, "jobs-*"))
	require.NoError(t, err)
	assert.Len(t, wdirs, 2, "other hardware, another workload")
	// --kept summarizes what is kept, each workload with the seeds it
	// has, and runs nothing.
	_, outP, errs := run("jobs", "modes", net, "--jobs", jobs, "--seeds", "5", "--hw", "pcie_gbps=128", "-o", keep, "--kept", "--json")
	var repP modesReport
	require.NoError(t, json.Unmarshal([]byte(outP), &repP), errs)
	require.Len(t, repP.Workloads[0].Runs, 3, "seed 1 of each mode")
	for _, s := range repP.Workloads[0].Summary {
		assert.Equal(t, 1, s.Runs)
	}
	kept, err = filepath.Glob(filepath.Join(keep, "*", "*-seed*.json"))
	require.NoError(t, err)
	assert.Len(t, kept, 12, "nothing run")
	// A mode with nothing kept has no figures: dashes, not zeros.
	few, err := filepath.Glob(filepath.Join(keep, "*", "ugal-high-seed1.json"))
	require.NoError(t, err)
	require.Len(t, few, 2)
	for _, f := range few {
		if _, err := os.Stat(filepath.Join(filepath.Dir(f), "ugal-high-seed2.json")); os.IsNotExist(err) {
			require.NoError(t, os.Remove(f)) // the pcie_gbps=128 workload's, its one seed
		}
	}
	code, outD, errs := run("jobs", "modes", net, "--jobs", jobs, "--seeds", "5", "--hw", "pcie_gbps=128", "-o", keep, "--kept")
	require.Equal(t, 0, code, errs)
	assert.Regexp(t, `(?m)^\s*\S+\s+ugal-high\s+0\s+-\s+-\s+-\s+-\s+-\s+-\s+-\s+-\s*$`, outD)
	code, _, _ = run("jobs", "modes", net, "--jobs", jobs, "--seeds", "5", "--hw", "pcie_gbps=64", "-o", keep, "--kept")
	assert.Equal(t, 2, code, "nothing kept for it")
	wdirs, err = filepath.Glob(filepath.Join(keep, "jobs-*"))
	require.NoError(t, err)
	assert.Len(t, wdirs, 2, "and nothing written for it")
	code, _, _ = run("jobs", "modes", net, "--jobs", jobs, "--kept")
	assert.Equal(t, 2, code, "--kept needs -o")
	other := filepath.Join(dir, "other.toml")
	require.NoError(t, os.WriteFile(other, []byte(strings.Replace(string(b0), "16KiB", "8KiB", 1)), 0o644))
	_, outO, errs := run("jobs", "modes", net, "--jobs", other+","+jobs, "--seeds", "3", "-o", keep, "--kept", "--json")
	var repO modesReport
	require.NoError(t, json.Unmarshal([]byte(outO), &repO), errs)
	require.Len(t, repO.Workloads, 1, "a file with nothing kept is left out")
	assert.Contains(t, errs, "other.toml: no runs kept")
	require.NoError(t, os.WriteFile(one, []byte("{\"mode\":"), 0o644))
	code, _, errs = run("jobs", "modes", net, "--jobs", jobs, "--seeds", "3", "-o", keep)
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "app-aware-seed3.json")
	lock, err := results.AcquireLock(keep, "a test")
	require.NoError(t, err)
	code, _, errs = run("jobs", "modes", net, "--jobs", jobs, "--seeds", "3", "-o", keep)
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "in use by")
	code, _, errs = run("jobs", "modes", net, "--jobs", jobs, "--seeds", "5", "--hw", "pcie_gbps=128", "-o", keep, "--kept")
	assert.Equal(t, 0, code, "--kept reads a directory in use: %s", errs)
	require.NoError(t, lock.Release())

	// The routing options reach every mode: spread changes nothing on
	// complete groups (one way between two routers), a routing option no
	// adaptive engine reads is refused.
	_, out2, errs := run("jobs", "modes", net, "--jobs", jobs, "--seeds", "3", "--spread", "--json")
	var rep2 modesReport
	require.NoError(t, json.Unmarshal([]byte(out2), &rep2), errs)
	assert.Equal(t, rep.Workloads[0].Summary, rep2.Workloads[0].Summary)

	// The same comparison as a campaign: a routing per mode, the jobs'
	// placement fixed, the traffic seeds the runs' seeds: the report's
	// routings per job are the summary's numbers.
	body, err := os.ReadFile(jobs)
	require.NoError(t, err)
	campaign := filepath.Join(dir, "modes.toml")
	require.NoError(t, os.WriteFile(campaign, []byte(`name = "modes"
traffic_seeds = [1, 2, 3]
jobs_seed = 1
[[topology]]
spec = "`+net+`"
[[routing]]
engine = "ugal-imb"
[[routing]]
engine = "ugal-high"
[[routing]]
engine = "app-aware"
[[traffic]]
kind = "jobs"
slowdowns = false
`+strings.TrimPrefix(string(body), "seed = 1\n")), 0o644))
	out3 := filepath.Join(dir, "out")
	code, _, errs = run("run", campaign, "-o", out3, "-q")
	require.Equal(t, 0, code, errs)
	repJSON, err := os.ReadFile(filepath.Join(out3, "report.json"))
	require.NoError(t, err)
	var crep struct {
		Modes []results.ModeRow `json:"routings_per_job"`
	}
	require.NoError(t, json.Unmarshal(repJSON, &crep))
	require.Len(t, crep.Modes, 3)
	for i, s := range w.Summary {
		m := crep.Modes[i]
		assert.Equal(t, [2]string{s.Job, s.Mode}, [2]string{m.Job, m.Routing})
		assert.Equal(t, s.Normalized, m.Normalized, s.Mode)
		assert.Equal(t, [2]float64{s.MedianLo, s.MedianHi}, [2]float64{m.MedianLo, m.MedianHi}, s.Mode)
		assert.Equal(t, s.DefaultShare, m.DefaultShare, s.Mode)
	}
	_, err = os.Stat(filepath.Join(out3, "routings-dragonfly-a-4-p-2-h-2-g-9-jobs.svg"))
	assert.NoError(t, err, "the box plot")

	for _, args := range [][]string{{"--seeds", "0"}, {"--modes", "ugal,nosuch"}, {"--plot", "x.pdf"}, {"-j", "0"}, {"--sim", "appaware_stall_scale=0"}, {"--roots", "x"}} {
		code, _, errs = run(append([]string{"jobs", "modes", net, "--jobs", jobs}, args...)...)
		assert.Equal(t, 2, code, "%v: %s", args, errs)
	}

	series := filepath.Join(dir, "series.png")
	code, _, errs = run("sim", net, "--routing", "app-aware", "--jobs", jobs, "--no-slowdown", "--counters", "--series-plot", series)
	require.Equal(t, 0, code, errs)
	st, err = os.Stat(series)
	require.NoError(t, err)
	assert.Greater(t, st.Size(), int64(1000))
	code, _, _ = run("sim", net, "--routing", "app-aware", "--jobs", jobs, "--series-plot", series)
	assert.Equal(t, 2, code, "--series-plot needs --counters")
}
