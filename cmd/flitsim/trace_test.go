package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A trace replays from the command line and in a campaign: the halo3d
// trace made here beside bursty noise on a fat tree, over failed cables
// and two routings, with a row per job in the campaign's table, the time
// per MPI call in --json, and bad trace input refused with the key.
func TestTraceJobs(t *testing.T) {
	dir := t.TempDir()
	trace, err := filepath.Abs("../../traffic/dumpi/testdata/halo3d8")
	require.NoError(t, err)
	jobs := filepath.Join(dir, "jobs.toml")
	require.NoError(t, os.WriteFile(jobs, []byte(`[[job]]
id = "halo"
size = 8
pattern = "trace"
trace = "`+trace+`"
compute_scale = 0.01
[[job]]
id = "noise"
size = 8
pattern = "noise"
load = 0.5
burst_on = "2us"
`), 0o644))
	code, stdout, errs := run("sim", "kary-ntree:k=4,n=2", "--routing", "dfsssp", "--jobs", jobs, "--json")
	require.Equal(t, 0, code, errs)
	var rep struct {
		Jobs []struct {
			ID        string  `json:"id"`
			Completed bool    `json:"completed"`
			Slowdown  float64 `json:"slowdown"`
			Ideal     float64 `json:"ideal_slowdown"`
			Trace     *struct {
				Calls []struct {
					Call  string `json:"call"`
					Count int64  `json:"count"`
				} `json:"calls"`
			} `json:"trace"`
		} `json:"jobs"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &rep), stdout)
	require.Len(t, rep.Jobs, 2)
	h := rep.Jobs[0]
	assert.True(t, h.Completed)
	assert.GreaterOrEqual(t, h.Slowdown, 1.0, "the noise slows the halo down, or not")
	assert.Greater(t, h.Ideal, 1.0, "slower than an ideal network")
	require.NotNil(t, h.Trace)
	calls := map[string]int64{}
	for _, c := range h.Trace.Calls {
		calls[c.Call] = c.Count
	}
	// halo3d on 8 ranks (2x2x2): 3 iterations of 6 Irecv, 6 Isend, a Waitall.
	assert.Equal(t, map[string]int64{"isend": 8 * 3 * 6, "irecv": 8 * 3 * 6, "wait": 8 * 3, "other": calls["other"]}, calls)

	camp := filepath.Join(dir, "trace.toml")
	require.NoError(t, os.WriteFile(camp, []byte("name = \"traces\"\njobs_file = \"jobs.toml\"\n[[topology]]\nspec = \"kary-ntree:k=4,n=2\"\nlabel = \"tree\"\n"+
		"[faults]\npercent = [0, 10]\n[[routing]]\nengine = \"dfsssp\"\n[[routing]]\nengine = \"updn\"\n[[traffic]]\nkind = \"jobs\"\n"), 0o644))
	code, stdout, errs = run("run", camp, "-o", filepath.Join(dir, "out"), "-q")
	require.Equal(t, 0, code, errs)
	for _, r := range []string{"dfsssp", "updn"} {
		assert.Regexp(t, `\| tree \| `+r+` \| jobs \| links \| halo \| trace \| `, stdout)
	}

	// Bad trace input: a missing trace, one of the wrong size, a trace
	// key on another pattern; each names its key, exit status 2.
	for name, c := range map[string]struct{ job, want string }{
		"missing":  {`pattern = "trace"` + "\ntrace = \"" + filepath.Join(dir, "none") + `"`, "job.trace"},
		"size":     {`pattern = "trace"` + "\ntrace = \"" + trace + `"` + "\nsize = 4", "has 8 ranks, the job 4"},
		"no trace": {`pattern = "trace"`, "trace job needs its trace"},
		"pattern":  {`pattern = "uniform"` + "\ntrace = \"" + trace + `"`, "trace applies to trace jobs"},
	} {
		bad := filepath.Join(dir, name+".toml")
		job := c.job
		if !strings.Contains(job, "size") {
			job += "\nsize = 8"
		}
		require.NoError(t, os.WriteFile(bad, []byte("[[job]]\n"+job+"\n"), 0o644))
		code, _, errs := run("sim", "kary-ntree:k=4,n=2", "--jobs", bad)
		assert.Equal(t, 2, code, name)
		assert.Contains(t, errs, c.want, name)
	}
	code, _, errs = run("sim", "kary-ntree:k=2,n=2", "--traffic", "trace")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "--traffic trace needs --trace")
}

// flitsim trace summarizes a trace: the collectives trace of 4 ranks as
// its program calls them (10 kinds, 8 calls each per rank: 2 rounds of 2
// sizes on the world and on the row communicator), no point-to-point
// message; a
// Chakra trace too; bad input is status 2.
func TestTraceCommand(t *testing.T) {
	code, stdout, errs := run("trace", "../../traffic/dumpi/testdata/collectives4", "--json")
	require.Equal(t, 0, code, errs)
	var s struct {
		Ranks         int              `json:"ranks"`
		Communicators int              `json:"communicators"`
		Calls         map[string]int64 `json:"calls"`
		P2P           int64            `json:"p2p_messages"`
		Messages      int64            `json:"replay_messages"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &s))
	assert.Equal(t, 4, s.Ranks)
	assert.Equal(t, 1+4+2, s.Communicators, "the world, four MPI_COMM_SELF, two rows")
	for _, k := range []string{"allreduce", "bcast", "reduce", "allgather", "gather", "scatter", "alltoall", "alltoallv", "reduce_scatter", "barrier"} {
		assert.Equal(t, int64(4*8), s.Calls[k], k) // 2 rounds × 2 sizes, on the world and on the row
	}
	assert.Zero(t, s.P2P)
	assert.Positive(t, s.Messages)
	code, stdout, errs = run("trace", "../../traffic/chakra/testdata/dp4")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, stdout, "replay sends     72 messages")
	code, _, _ = run("trace", "../../traffic/chakra/testdata/dp4", "--algorithm", "allreduce=bogus")
	assert.Equal(t, 2, code)
	code, _, _ = run("trace", "nonexistent")
	assert.Equal(t, 2, code)
}
