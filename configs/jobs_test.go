package configs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/fabric"
)

const goodJobs = `seed = 3
[[job]]
id = "a2a"
nodes = ["h-l0-0-0", "lid:%LID%", "%GUID%"]
[[job]]
size = 5
placement = "round-robin"
[[job]]
id = "rand"
size = 4
placement = "random"
[[job]]
id = "sw"
size = 2
placement = "switches:2"
[fragmentation]
utilization = 0.5
max_size = 2
`

func TestWorkloadResolve(t *testing.T) {
	net, err := fabric.Build("kary-ntree:k=4,n=2")
	require.NoError(t, err)
	h1, h2 := net.Nodes[net.NumSwitches+1], net.Nodes[net.NumSwitches+2]
	text := strings.NewReplacer("%LID%", strconv.Itoa(int(h1.LID)), "%GUID%", fmt.Sprintf("%#x", h2.GUID)).Replace(goodJobs)
	w, err := ParseWorkload([]byte(text), "jobs.toml")
	require.NoError(t, err)
	jobs, ids, err := w.Resolve(net, -1)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(jobs), 3)
	assert.Equal(t, []string{"a2a", "job2", "rand", "sw"}, ids[:4])
	assert.Equal(t, []int{0, 1, 2}, jobs[0], "name, LID and GUID resolve to HCAs 0, 1, 2")
	assert.Len(t, jobs[1], 5)
	assert.Len(t, jobs[2], 4)
	require.Len(t, jobs[3], 2)
	assert.NotEqual(t, jobs[3][0]/4, jobs[3][1]/4, "switches:2 deals two HCAs over two switches of four: %v", jobs[3])
	seen := map[int]bool{}
	busy := 0
	for _, j := range jobs {
		for _, h := range j {
			require.False(t, seen[h], "HCA %d in two jobs", h)
			seen[h] = true
		}
		busy += len(j)
	}
	assert.LessOrEqual(t, busy, 3+5+4+2+(16-14)/2, "the mix keeps to half of the HCAs left")
	again, _, err := w.Resolve(net, -1)
	require.NoError(t, err)
	assert.Equal(t, jobs, again, "the file's seed: same jobs")
	other, _, err := w.Resolve(net, 4)
	require.NoError(t, err)
	assert.Equal(t, jobs[0], other[0], "explicit nodes do not depend on the seed")
}

// Every bad jobs file is an error naming the file, the line and the key.
func TestWorkloadErrors(t *testing.T) {
	net, err := fabric.Build("kary-ntree:k=4,n=2")
	require.NoError(t, err)
	for _, tc := range []struct {
		text string
		line int
		key  string
		msg  string
	}{
		{"seed = 1\n", 0, "", "no jobs"},
		{"[[job]]\nsize = 2\nbogus = 1\n", 3, "job.bogus", "unknown key"},
		{"[[job]]\nsize = 0\n", 2, "job.size", "want an integer in [1,"},
		{"[[job]]\nid = \"a\"\n", 1, "job", "want nodes"},
		{"[[job]]\nsize = 2\nnodes = [\"x\"]\n", 2, "job.size", "not both"},
		{"[[job]]\nnodes = [\"x\"]\nplacement = \"random\"\n", 3, "job.placement", "places a size"},
		{"[[job]]\nsize = 2\nplacement = \"spread\"\n", 3, "job.placement", "want one of contiguous, random, round-robin"},
		{"[[job]]\nsize = 2\nplacement = \"switches:0\"\n", 3, "job.placement", "or switches:N with N ≥ 1"},
		{"[[job]]\nsize = 2\nplacement = \"switches:x\"\n", 3, "job.placement", "or switches:N"},
		{"[[job]]\nsize = 2\n[[job]]\nid = \"job1\"\nsize = 2\n", 4, "job.id", "twice"},
		{"[[job]]\nid = \"a b\"\nsize = 2\n", 2, "job.id", "plain word"},
		{"[fragmentation]\nutilization = 1.5\n", 2, "fragmentation.utilization", "1.5"},
		{"[fragmentation]\nmin_size = 8\nmax_size = 4\n", 3, "fragmentation.max_size", "below min_size"},
		{"[fragmentation]\nsteps = \"x\"\n", 2, "fragmentation.steps", "want"},
		{"[fragmentation]\nspread = 1\n", 2, "fragmentation.spread", "unknown key"},
		{"seed = -1\n[[job]]\nsize = 2\n", 1, "seed", "≥ 0"},
		{"[[job]]\nsize = \"2\"\n", 2, "job.size", ""},
		{"[[job]\nsize = 2\n", 2, "", ""}, // the parser stops at the newline
		{"[[job]]\nsize = 2\npattern = \"spray\"\n", 3, "job.pattern", "want one of allreduce"},
		{"[[job]]\nsize = 2\nmsg_bytes = \"0\"\n", 3, "job.msg_bytes", "positive"},
		{"[[job]]\nsize = 2\nmsg_bytes = true\n", 3, "job.msg_bytes", "want a size"},
		{"[[job]]\nsize = 2\nload = 2.0\n", 3, "job.load", "2"},
		{"[[job]]\nsize = 2\npattern = \"pingpong\"\nload = 0.5\n", 4, "job.load", "does not apply"},
		{"[[job]]\nsize = 2\nburst_on = \"1us\"\n", 3, "job.burst_on", "noise jobs"},
		{"[[job]]\nsize = 2\nstart = 5\n", 3, "job.start", "needs a unit"},
		{"[[job]]\nsize = 2\niterations = -1\n", 3, "job.iterations", "-1"},
		{"[[job]]\nsize = 6\npattern = \"halo\"\ngrid = [2, 0]\n", 4, "job.grid", "below 1"},
	} {
		_, err := ParseWorkload([]byte(tc.text), "jobs.toml")
		require.Error(t, err, tc.text)
		var ce *Error
		require.True(t, errors.As(err, &ce), "%q: %v", tc.text, err)
		assert.Equal(t, "jobs.toml", ce.File)
		assert.Equal(t, tc.line, ce.Line, "%q: %v", tc.text, err)
		if tc.key != "" {
			assert.Equal(t, tc.key, ce.Key, "%q: %v", tc.text, err)
		}
		assert.Contains(t, err.Error(), tc.msg)
	}
	// Problems only the fabric shows, at the job's key.
	for _, tc := range []struct {
		text string
		line int
		msg  string
	}{
		{"[[job]]\nnodes = [\"nosuch\"]\n", 2, `no node "nosuch"`},
		{"[[job]]\nnodes = [\"l0-0\"]\n", 2, "is a switch"},
		{"[[job]]\nnodes = [\"lid:x\"]\n", 2, "not a LID"},
		{"[[job]]\nnodes = [\"0xzz\"]\n", 2, "not a GUID"},
		{"[[job]]\nnodes = [\"h-l0-0-0\", \"h-l0-0-0\"]\n", 2, "listed twice"},
		{"[[job]]\nsize = 17\n", 2, "17 HCAs: 16 of 16 free"},
		{"[[job]]\nsize = 4\nplacement = \"switches:5\"\n", 3, "on 5 switches: 4 have a free HCA"},
		{"[[job]]\nsize = 9\nplacement = \"switches:2\"\n", 3, "9 HCAs on 2 switches: they have 8 free"},
		{"[[job]]\nsize = 16\n[fragmentation]\nmax_size = 4\n", 3, "on the 0 free HCAs"},
	} {
		w, err := ParseWorkload([]byte(tc.text), "jobs.toml")
		require.NoError(t, err, tc.text)
		_, _, err = w.Resolve(net, -1)
		var ce *Error
		require.True(t, errors.As(err, &ce), "%q: %v", tc.text, err)
		assert.Equal(t, tc.line, ce.Line, "%q: %v", tc.text, err)
		assert.Contains(t, err.Error(), tc.msg)
	}
}

func FuzzParseWorkload(f *testing.F) {
	f.Add([]byte(goodJobs))
	f.Add([]byte("[[job]]\nsize = 3\n[fragmentation]\n"))
	net, err := fabric.Build("kary-ntree:k=4,n=2")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := ParseWorkload(data, "fuzz.toml")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.toml") {
				t.Fatalf("error without location: %v", err)
			}
			return
		}
		jobs, _, err := w.Resolve(net, -1)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.toml") {
				t.Fatalf("error without location: %v", err)
			}
			return
		}
		if _, err := w.Place(net, -1, 2048); err != nil && !strings.HasPrefix(err.Error(), "fuzz.toml") {
			t.Fatalf("error without location: %v", err)
		}
		seen := map[int]bool{}
		for _, j := range jobs {
			for _, h := range j {
				if h < 0 || h >= net.NumHCAs() || seen[h] {
					t.Fatalf("bad placement %v", jobs)
				}
				seen[h] = true
			}
		}
	})
}

// The jobs files docs/validation.md runs stay valid and place on the
// fabric each is for.
func TestDocJobFiles(t *testing.T) {
	fabrics := map[string]string{"fig5-2.toml": "xgft:m=10,w=9,redundancy=2,hcas=180", "tsubame2-mix.toml": "tsubame2", "taurus-mix.toml": "taurus",
		"sar-alltoall.toml": "xgft:m=10,w=9,redundancy=2,hcas=180", "noise.toml": "kary-ntree:k=4,n=3"}
	files, err := filepath.Glob("../docs/jobs/*.toml")
	require.NoError(t, err)
	require.Len(t, files, len(fabrics))
	for _, f := range files {
		spec, ok := fabrics[filepath.Base(f)]
		require.True(t, ok, "%s: add its fabric to this test", f)
		net, err := fabric.Build(spec)
		require.NoError(t, err)
		w, err := LoadWorkload(f)
		require.NoError(t, err, f)
		jobs, err := w.Place(net, 1, 2048)
		require.NoError(t, err, f)
		assert.NotEmpty(t, jobs, f)
	}
}

const jobsCampaign = `name = "jc"
traffic_seeds = [4, 5]
[[topology]]
spec = "kary-ntree:k=4,n=2"
[[routing]]
engine = "sar"
[[routing]]
engine = "dfsssp"
[[job]]
id = "a"
size = 4
placement = "random"
pattern = "shift"
iterations = 2
[fragmentation]
max_size = 3
`

// A campaign's [[job]] tables parse as a jobs file's, become a traffic
// entry of kind "jobs" when it lists no [[traffic]], and place with each
// traffic seed, or with jobs_seed; the campaign's hash covers every job
// key, the declared ones included.
func TestCampaignWorkload(t *testing.T) {
	c, err := Parse([]byte(jobsCampaign), "jc.toml", ".")
	require.NoError(t, err)
	require.NotNil(t, c.Workload)
	require.NoError(t, c.Check())
	require.Len(t, c.Traffic, 1)
	assert.Equal(t, JobsKind, c.Traffic[0].Kind)
	pts, err := c.Points()
	require.NoError(t, err)
	require.Len(t, pts, 4)
	for _, p := range pts {
		assert.Same(t, c.Workload, p.Workload)
		assert.Equal(t, int64(p.Params.Seed), p.JobsSeed, "each traffic seed is a placement")
		assert.False(t, p.NoSlowdown)
	}
	net, err := fabric.Build("kary-ntree:k=4,n=2")
	require.NoError(t, err)
	a, err := c.Workload.Place(net, 4, 4096)
	require.NoError(t, err)
	b, err := c.Workload.Place(net, 5, 4096)
	require.NoError(t, err)
	assert.NotEqual(t, a[0].Ranks, b[0].Ranks, "seeds 4 and 5 place job a apart")
	assert.Equal(t, 1, a[0].Traffic.Distance, "shift's declared distance")
	assert.Equal(t, 2, a[0].Traffic.Iterations)

	fixed, err := Parse([]byte("jobs_seed = 9\n"+jobsCampaign+"[[traffic]]\nkind = \"jobs\"\nslowdowns = false\n"), "jc.toml", ".")
	require.NoError(t, err)
	pts, err = fixed.Points()
	require.NoError(t, err)
	for _, p := range pts {
		assert.Equal(t, int64(9), p.JobsSeed)
		assert.True(t, p.NoSlowdown)
	}
	h := c.Hash()
	for _, edit := range [][2]string{{"iterations = 2", "iterations = 3"}, {"max_size = 3", "max_size = 2"}, {`"shift"`, `"uniform"`}} {
		d, err := Parse([]byte(strings.Replace(jobsCampaign, edit[0], edit[1], 1)), "jc.toml", ".")
		require.NoError(t, err, edit)
		assert.NotEqual(t, h, d.Hash(), "%s → %s keeps the hash", edit[0], edit[1])
	}
}

// A campaign reads its workload from a jobs file (jobs_file, relative to
// the campaign), placed with the file's seed unless jobs_seed is given;
// the file's contents are in the campaign's identity; its errors name it.
func TestCampaignJobsFile(t *testing.T) {
	dir := t.TempDir()
	jobs := filepath.Join(dir, "running.toml")
	require.NoError(t, os.WriteFile(jobs, []byte("seed = 7\n[[job]]\nid = \"a\"\nsize = 3\nplacement = \"random\"\n"), 0o644))
	text := "name = \"jf\"\njobs_file = \"running.toml\"\n[[topology]]\nspec = \"kary-ntree:k=4,n=2\"\n[[routing]]\nengine = \"sar\"\n"
	c, err := Parse([]byte(text), filepath.Join(dir, "c.toml"), dir)
	require.NoError(t, err)
	require.NoError(t, c.Check())
	assert.Contains(t, c.Inputs, jobs)
	pts, err := c.Points()
	require.NoError(t, err)
	require.Len(t, pts, 1)
	assert.Equal(t, int64(7), pts[0].JobsSeed, "the jobs file's seed")
	c2, err := Parse([]byte("jobs_seed = 2\n"+text), filepath.Join(dir, "c.toml"), dir)
	require.NoError(t, err)
	pts, _ = c2.Points()
	assert.Equal(t, int64(2), pts[0].JobsSeed)

	h := c.Hash()
	require.NoError(t, os.WriteFile(jobs, []byte("seed = 7\n[[job]]\nid = \"a\"\nsize = 4\nplacement = \"random\"\n"), 0o644))
	c3, err := Parse([]byte(text), filepath.Join(dir, "c.toml"), dir)
	require.NoError(t, err)
	assert.NotEqual(t, h, c3.Hash(), "another jobs file, another campaign")

	for _, tc := range []struct{ text, jobs, want string }{
		{text, "[[job]]\nsize = 0\n", "running.toml:2: job.size"},
		{strings.Replace(text, "running.toml", "missing.toml", 1), "", "c.toml:2: jobs_file"},
		{text + "[[job]]\nsize = 2\n", "[[job]]\nsize = 2\n", "c.toml:2: jobs_file: give [[job]] tables or a jobs_file, not both"},
	} {
		require.NoError(t, os.WriteFile(jobs, []byte(tc.jobs), 0o644))
		_, err := Parse([]byte(tc.text), filepath.Join(dir, "c.toml"), dir)
		require.Error(t, err)
		assert.Contains(t, err.Error(), tc.want)
	}
}

// A fabric file whose cable is faster than the campaign's crossbar fails
// Check, located at the topology's spec line; file_rates = false runs it.
func TestCheckCableRates(t *testing.T) {
	dir := t.TempDir()
	topo := "Switch 4 \"S1\"\n[1] \"H1\"[1]\n[2] \"S2\"[2] # 4xEDR\n\nSwitch 4 \"S2\"\n[1] \"H2\"[1]\n\n" +
		"Hca 1 \"H1\"\n[1] \"S1\"[1]\n\nHca 1 \"H2\"\n[1] \"S2\"[1]\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "f.topo"), []byte(topo), 0o644))
	text := "name = \"rates\"\n[hardware]\ncrossbar_gbps = 64\n%s\n[[topology]]\nspec = \"file:f.topo\"\n[[routing]]\nengine = \"minhop\"\n[[traffic]]\nkind = \"exchange\"\n"
	c, err := Parse([]byte(fmt.Sprintf(text, "")), "r.toml", dir)
	require.NoError(t, err)
	err = c.Check()
	assert.ErrorContains(t, err, "r.toml:6: topology.spec: file:")
	assert.ErrorContains(t, err, `f.topo with this [hardware]: crossbar_gbps: 64 is below the 100 Gbit/s of cable "S1" port 2`)
	c, err = Parse([]byte(fmt.Sprintf(text, "file_rates = false")), "r.toml", dir)
	require.NoError(t, err)
	assert.NoError(t, c.Check())
}
