package routing

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/fabric"
)

// randomJobs deals a seeded random share of net's HCAs into jobs of 2-40.
func randomJobs(net *fabric.Network, seed uint64) [][]int {
	rng := rand.New(rand.NewPCG(seed, 99))
	perm := rng.Perm(net.NumHCAs())
	var jobs [][]int
	for used := 0; used < len(perm)*3/4; {
		sz := min(2+rng.IntN(39), len(perm)-used)
		jobs = append(jobs, perm[used:used+sz])
		used += sz
	}
	return jobs
}

// sameTables reports the first HCA LID entry (port or SL) where a and b differ.
func sameTables(t *testing.T, net *fabric.Network, a, b *Tables) {
	t.Helper()
	for s := 0; s < net.NumSwitches; s++ {
		for h := net.NumSwitches; h < len(net.Nodes); h++ {
			lid := net.Nodes[h].LID
			require.Equal(t, a.Port(s, lid), b.Port(s, lid), "%s: port at %s for %s", net.Name, net.Nodes[s].Name, net.Nodes[h].Name)
			require.Equal(t, a.SL(s, lid), b.SL(s, lid), "%s: SL at %s for %s", net.Name, net.Nodes[s].Name, net.Nodes[h].Name)
		}
	}
}

// Without jobs every HCA is routed in the last phase of Alg. 5.1, which is
// DFSSSP itself: the tables must be DFSSSP's, entry for entry.
func TestSARWithoutJobsIsDFSSSP(t *testing.T) {
	for _, spec := range []string{"kary-ntree:k=4,n=3", "random:switches=20,hcas=60,links=45,seed=3", "torus:dims=4x4,redundancy=2"} {
		net := build(t, spec)
		d, err := Compute("dfsssp", net, Options{VLs: 8})
		require.NoError(t, err)
		s, err := Compute("sar", net, Options{VLs: 8})
		require.NoError(t, err)
		sameTables(t, net, d, s)
		assert.Contains(t, s.Notes, "no jobs given: routes as dfsssp")
	}
}

// SAR with jobs stays a complete, loop-free, deadlock-free shortest-path
// routing on every property network (it only reorders destinations and
// changes which paths raise the weights).
func TestSARWithJobsProperties(t *testing.T) {
	for i, net := range propertyNets(t) {
		jobs := randomJobs(net, uint64(i+1))
		tb, err := Compute("sar", net, Options{VLs: 8, Jobs: jobs})
		if err != nil {
			// DFSSSP's own limits (more than 8 layers) are SAR's too.
			_, derr := Compute("dfsssp", net, Options{VLs: 8})
			require.Error(t, derr, "sar failed where dfsssp routes %s: %v", net.Name, err)
			continue
		}
		v, err := Verify(net, tb)
		require.NoError(t, err)
		require.True(t, v.OK() && v.DeadlockFree, "%s: %s %v", net.Name, v.Problem, v.Cycle)
		assertShortest(t, net, tb)
	}
}

// The job map is checked: a bad HCA index or a job listing an HCA twice is
// a routing failure naming it.
func TestSARBadJobs(t *testing.T) {
	net := build(t, "kary-ntree:k=2,n=2")
	for _, tc := range []struct {
		jobs [][]int
		want string
	}{
		{[][]int{{0, 99}}, "HCA 99 outside 0..3"},
		{[][]int{{0, -1}}, "HCA -1 outside"},
		{[][]int{{1, 2, 1}}, "lists HCA"},
	} {
		_, err := Compute("sar", net, Options{VLs: 8, Jobs: tc.jobs})
		require.ErrorContains(t, err, tc.want)
		var f *Failure
		require.ErrorAs(t, err, &f)
	}
}

// MeasureJobs against hand counts on a 3-switch line s0-s1-s2 with one HCA
// per switch (HCA i on switch i): 4 inter-switch channels.
func TestMeasureJobsByHand(t *testing.T) {
	net := build(t, "mesh:dims=3")
	tb, err := Compute("minhop", net, Options{VLs: 8})
	require.NoError(t, err)
	for _, tc := range []struct {
		name  string
		jobs  [][]int
		max   int
		mean  float64
		dark  float64
		links float64
		multi int
	}{
		// 0↔2 crosses all four channels once each.
		{"ends", [][]int{{0, 2}}, 1, 1, 0, 4, 1},
		// 0↔1 uses s0→s1 and s1→s0 only: half the channels dark.
		{"neighbours", [][]int{{0, 1}}, 1, 1, 50, 2, 1},
		// All three: s0→s1 carries 0→1 and 0→2.
		{"all", [][]int{{0, 1, 2}}, 2, 2, 0, 4, 1},
		// Two jobs sharing HCA 1: every channel once, each job 2 channels.
		{"shared", [][]int{{0, 1}, {1, 2}}, 1, 1, 0, 2, 2},
		// A job on one switch crosses nothing and stays out of the means.
		{"single", [][]int{{1}}, 0, 0, 100, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := MeasureJobs(net, tb, tc.jobs)
			require.NoError(t, err)
			assert.Equal(t, tc.max, m.EFIEffectiveMax)
			assert.InDelta(t, tc.mean, m.EFIEffectiveJobMean, 1e-9)
			assert.InDelta(t, tc.dark, m.DarkFiberPct, 1e-9)
			assert.InDelta(t, tc.links, m.LinksPerJobMean, 1e-9)
			assert.Equal(t, tc.multi, m.MultiSwitchJobs)
			assert.Equal(t, 4, m.Channels)
			assert.Zero(t, m.Unrouted)
		})
	}
}

// The effective EFI of all HCAs as one job is the plain EFI of Measure.
func TestMeasureJobsOneJobIsEFI(t *testing.T) {
	for _, spec := range []string{"kary-ntree:k=4,n=3", "dragonfly:a=4,p=2,h=2,g=5", "torus:dims=3x3x3"} {
		net := build(t, spec)
		tb, err := Compute("dfsssp", net, Options{VLs: 8})
		require.NoError(t, err)
		all := make([]int, net.NumHCAs())
		for i := range all {
			all[i] = i
		}
		jm, err := MeasureJobs(net, tb, [][]int{all})
		require.NoError(t, err)
		m, err := Measure(net, tb)
		require.NoError(t, err)
		assert.Equal(t, m.EFIMax, jm.EFIEffectiveMax, spec)
		assert.Equal(t, m.EFIMax, jm.PerJob[0].EFIMax, spec)
	}
}

// SAR balances the paths that carry traffic: on fragmented random jobs
// over a fat tree its effective EFI is below DFSSSP's and its dark fiber
// below DFSSSP's (the claim of §5.3.2, measured here on a small fabric;
// docs/validation.md has the TSUBAME2 figures).
func TestSARBeatsDFSSSPOnFragmentedJobs(t *testing.T) {
	net := build(t, "xgft:m=12x6,w=6x6,hcas=432")
	d, err := Compute("dfsssp", net, Options{VLs: 8})
	require.NoError(t, err)
	var sarMax, dfMax, sarDark, dfDark float64
	for seed := uint64(1); seed <= 5; seed++ {
		jobs := randomJobs(net, seed)
		s, err := Compute("sar", net, Options{VLs: 8, Jobs: jobs})
		require.NoError(t, err)
		ms, err := MeasureJobs(net, s, jobs)
		require.NoError(t, err)
		md, err := MeasureJobs(net, d, jobs)
		require.NoError(t, err)
		sarMax += float64(ms.EFIEffectiveMax)
		dfMax += float64(md.EFIEffectiveMax)
		sarDark += ms.DarkFiberPct
		dfDark += md.DarkFiberPct
		t.Logf("seed %d: sar %v; dfsssp %v", seed, ms, md)
	}
	assert.Less(t, sarMax, dfMax)
	assert.Less(t, sarDark, dfDark)
}

// The storage pass (Alg. 5.1 lines 11-13): with a job mix on a 4-ary
// 3-tree and eight storage HCAs on two leaves, the paths from every HCA to
// the storage HCAs are balanced among themselves on fresh channel
// weights: the busiest channel carries fewer of them than when the storage
// HCAs are routed among the others; the routing stays complete and
// deadlock-free, and a reference that is no HCA is refused.
func TestSARStoragePass(t *testing.T) {
	net := build(t, "kary-ntree:k=4,n=3")
	jobs := [][]int{{0, 5, 9, 13, 17, 21, 25, 29}, {2, 6, 10, 14, 18, 22}, {3, 7, 11, 15}}
	var storage []string
	stored := map[int]bool{}
	for h := 48; h < 56; h++ { // HCA ordinals 48-55: leaves 12 and 13
		storage = append(storage, net.Nodes[net.NumSwitches+h].Name)
		stored[net.NumSwitches+h] = true
	}
	busiest := func(tb *Tables) int {
		load := map[[2]int]int{}
		top := 0
		for src := net.NumSwitches; src < len(net.Nodes); src++ {
			for dst := range stored {
				if dst == src {
					continue
				}
				sw, _ := net.HCASwitch(src)
				dsw, _ := net.HCASwitch(dst)
				for hops := 0; sw != dsw; hops++ {
					require.Less(t, hops, 10, "a loop")
					p := int(tb.Port(sw, net.Nodes[dst].LID))
					k := [2]int{sw, p}
					load[k]++
					top = max(top, load[k])
					peer, ok := net.Peer(sw, p)
					require.True(t, ok)
					sw = int(peer.Node)
				}
			}
		}
		return top
	}
	plain, err := Compute("sar", net, Options{VLs: 8, Jobs: jobs})
	require.NoError(t, err)
	pass, err := Compute("sar", net, Options{VLs: 8, Jobs: jobs, Storage: storage})
	require.NoError(t, err)
	v, err := Verify(net, pass)
	require.NoError(t, err)
	assert.True(t, v.OK() && v.DeadlockFree, v.Problem)
	a, b := busiest(plain), busiest(pass)
	t.Logf("busiest channel's paths to the storage HCAs: %d among the others, %d in a pass of their own", a, b)
	assert.Less(t, b, a)
	_, err = Compute("sar", net, Options{VLs: 8, Jobs: jobs, Storage: []string{net.Nodes[0].Name}})
	assert.ErrorContains(t, err, "storage")
}
