package routing

import (
	"fmt"
	"sort"

	"flitsim/fabric"
)

// jobMap is the job-to-HCA mapping of Alg. 5.1 lines 1-4, checked: the
// jobs of every HCA (by ordinal, node index − S) and each job's members.
type jobMap struct {
	members [][]int32 // per job, its HCA ordinals
	of      [][]int32 // per HCA ordinal, the jobs running on it
}

// newJobMap checks jobs (HCA ordinals per job) against the graph: every
// ordinal names a cabled HCA, and no job lists one twice. A job may share
// HCAs with another (a node running two jobs).
func (g *graph) newJobMap(jobs [][]int) (*jobMap, error) {
	n := len(g.hcaSwitch)
	m := &jobMap{members: make([][]int32, len(jobs)), of: make([][]int32, n)}
	seen := make([]int, n)
	for j, hs := range jobs {
		for _, h := range hs {
			if h < 0 || h >= n {
				return nil, fmt.Errorf("job %d: HCA %d outside 0..%d", j, h, n-1)
			}
			if g.hcaSwitch[h] < 0 {
				return nil, fmt.Errorf("job %d: HCA %s is not cabled", j, g.net.Nodes[g.S+h].Name)
			}
			if seen[h] == j+1 {
				return nil, fmt.Errorf("job %d lists HCA %s twice", j, g.net.Nodes[g.S+h].Name)
			}
			seen[h] = j + 1
			m.members[j] = append(m.members[j], int32(h))
			m.of[h] = append(m.of[h], int32(j))
		}
	}
	return m, nil
}

// largest returns the size of the largest job HCA h runs, 0 if none.
func (m *jobMap) largest(h int) int {
	l := 0
	for _, j := range m.of[h] {
		l = max(l, len(m.members[j]))
	}
	return l
}

// routeSAR is scheduling-aware routing (§5.2.2.2, Alg. 5.1): DFSSSP whose
// destinations running a job come first, those of the largest job first
// (lines 5-6), and whose channel weights grow only by the paths from the
// destination's job partners (lines 8-10): intra-job paths spread over the
// fabric, paths between jobs (which carry no traffic) pile up freely. The
// weights are then reset and the HCAs without a job routed as DFSSSP routes
// them (lines 14-16); cycle breaking over all paths keeps it deadlock-free
// (line 17). Storage HCAs (Options.Storage) without a job are routed
// between the two, each pass on fresh weights (lines 11-13). Without jobs
// and storage it is DFSSSP.
func routeSAR(g *graph, o Options) (*Tables, error) {
	jm, err := g.newJobMap(o.Jobs)
	if err != nil {
		return nil, &Failure{Engine: "sar", Reason: err.Error()}
	}
	storage := make([]bool, len(g.hcaSwitch))
	refs := fabric.NewResolver(g.net)
	for _, r := range o.Storage {
		h, err := refs.HCA(r)
		if err != nil {
			return nil, &Failure{Engine: "sar", Reason: "storage: " + err.Error()}
		}
		storage[h-g.S] = true
	}
	// Destinations (indices into dests, LID order) with their largest job.
	var inJob, store, rest []int
	size := make([]int, len(g.dests))
	for i := range g.dests {
		h := int(g.destNode[i]) - g.S
		size[i] = jm.largest(h)
		switch {
		case size[i] > 0:
			inJob = append(inJob, i)
		case h >= 0 && storage[h]:
			store = append(store, i)
		default:
			rest = append(rest, i)
		}
	}
	sort.SliceStable(inJob, func(a, b int) bool { return size[inJob[a]] > size[inJob[b]] })

	t := NewTables(g.net, "sar")
	g.setHCAPorts(t)
	st := newSSSP(g)
	stamp := make([]int32, len(g.hcaSwitch))
	done := 0
	for k, i := range inJob {
		g.progress("shortest-path trees", done, len(g.dests))
		done++
		dst := int(g.destSwitch[i])
		st.tree(dst)
		g.setTree(t, st, g.dests[i])
		// Count each switch's HCAs sharing a job with the destination.
		clear(st.count)
		h := int(g.destNode[i]) - g.S
		stamp[h] = int32(k + 1)
		for _, j := range jm.of[h] {
			for _, m := range jm.members[j] {
				if stamp[m] != int32(k+1) {
					stamp[m] = int32(k + 1)
					st.count[g.hcaSwitch[m]]++
				}
			}
		}
		st.propagate()
	}
	for _, pass := range [][]int{store, rest} {
		clear(st.weight)
		for _, i := range pass {
			g.progress("shortest-path trees", done, len(g.dests))
			done++
			dst := int(g.destSwitch[i])
			st.tree(dst)
			g.setTree(t, st, g.dests[i])
			st.addLoad(dst)
		}
	}
	g.progress("shortest-path trees", done, len(g.dests))
	g.routeSwitchLIDs(t, g.hopDistances())
	t, err = layerDFSSSP(g, t, o, "sar", layerAuto)
	if err != nil {
		return nil, err
	}
	if len(o.Jobs) == 0 {
		t.Notes = append(t.Notes, "no jobs given: routes as dfsssp")
	}
	return t, nil
}
