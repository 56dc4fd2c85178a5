package routing

import (
	"fmt"
	"math"

	"flitsim/fabric"
)

// Metrics are the routing quality figures of §3.1.3 and §6.3.1, measured
// over HCA-to-HCA paths.
type Metrics struct {
	// Edge forwarding index γ(c) (Definition 3.12) statistics over the
	// inter-switch channels (both directions, parallel cables separate).
	EFIMin  int     `json:"efi_min"`
	EFIMax  int     `json:"efi_max"`
	EFIMean float64 `json:"efi_mean"`
	EFISdv  float64 `json:"efi_sdv"`
	// Path length in channels, HCA cables included (an HCA pair on one
	// switch is 2).
	PathLenMean float64 `json:"path_len_mean"`
	PathLenMax  int     `json:"path_len_max"`
	// Sigma4 is the deviation σ(4, R) of seeds/003 §1.1: the 4-norm of the
	// channel loads' deviation from the perfect load (all paths minimal,
	// spread evenly).
	Sigma4 float64 `json:"sigma4"`
	// Pairs is the number of HCA pairs measured.
	Pairs int `json:"pairs"`
}

// destTree holds, for one destination LID, every switch's next channel and
// hop count (-1 where the destination is not reached).
type destTree struct {
	next  []int32 // channel out of the switch, -1 at the destination switch
	depth []int32 // inter-switch hops to the destination switch
	order []int32 // reached switches, deepest first
	col   []uint8 // tree's copy of the destination's column
}

// tree follows the LFTs toward destination i (an index into dests) from
// every switch; it assumes nothing and marks broken or looping switches
// unreached.
func (g *graph) tree(t *Tables, i int, tr *destTree) {
	if tr.col == nil {
		tr.col = make([]uint8, g.S)
	}
	t.columns(g.dests[i:i+1], tr.col, nil)
	g.treeOf(tr.col, i, tr)
}

// treeOf is tree with destination i's output port at every switch given
// (Tables.columns).
func (g *graph) treeOf(col []uint8, i int, tr *destTree) {
	dst := int(g.destSwitch[i])
	if tr.next == nil {
		tr.next, tr.depth = make([]int32, g.S), make([]int32, g.S)
	}
	const unknown, onWalk = -2, -3
	for i := range tr.depth {
		tr.depth[i], tr.next[i] = unknown, -1
	}
	tr.depth[dst] = 0
	var walk []int32
	for s := 0; s < g.S; s++ {
		if tr.depth[s] != unknown {
			continue
		}
		walk = walk[:0]
		u := int32(s)
		var d int32 // depth where the walk ended: ≥ 0 known, -1 broken or looping
		for {
			if tr.depth[u] != unknown {
				d = tr.depth[u]
				if d == onWalk {
					d = -1
				}
				break
			}
			tr.depth[u] = onWalk
			walk = append(walk, u)
			p := col[u]
			to := int32(-1) // the next switch
			if p != NoPath && p != 0 && int(p) < g.stride {
				to = g.portSw[int(u)*g.stride+int(p)]
			}
			if to < 0 {
				d = -1
				walk = walk[:len(walk)-1]
				tr.depth[u] = -1
				break
			}
			tr.next[u] = g.portCh[int(u)*g.stride+int(p)]
			u = to
		}
		for i := len(walk) - 1; i >= 0; i-- {
			if d >= 0 {
				d++
			}
			tr.depth[walk[i]] = d
		}
	}
	// Deepest first, by counting sort on depth.
	maxD := int32(0)
	for _, d := range tr.depth {
		maxD = max(maxD, d)
	}
	buckets := make([]int32, maxD+2)
	for _, d := range tr.depth {
		if d >= 0 {
			buckets[maxD-d+1]++
		}
	}
	for i := 1; i < len(buckets); i++ {
		buckets[i] += buckets[i-1]
	}
	tr.order = tr.order[:0]
	tr.order = append(tr.order, make([]int32, buckets[len(buckets)-1])...)
	for s, d := range tr.depth {
		if d >= 0 {
			tr.order[buckets[maxD-d]] = int32(s)
			buckets[maxD-d]++
		}
	}
}

// ChannelLoads returns γ(c) for every channel: the number of HCA-to-HCA
// paths crossing it (undelivered pairs are not counted).
func ChannelLoads(net *fabric.Network, t *Tables) ([]int64, error) {
	if err := t.check(net); err != nil {
		return nil, err
	}
	g := newGraph(net)
	load, _, _ := g.loads(t)
	return load, nil
}

// loads returns per-channel loads, the sum and the max of HCA path lengths.
func (g *graph) loads(t *Tables) (load []int64, lenSum int64, lenMax int) {
	if t.Source != nil {
		return g.sourceLoads(t)
	}
	load = make([]int64, g.chans.Len())
	T := int64(len(g.dests))
	// Blocks of destinations are shared among one worker per processor,
	// each with its own loads; sums and maxima do not depend on the order.
	const block = 64
	type part struct {
		load   []int64
		lenSum int64
		lenMax int
		tr     destTree
		cnt    []int64
		ports  []uint8
	}
	blocks := (len(g.dests) + block - 1) / block
	parts := make([]part, workers(blocks))
	eachBlock(len(g.dests), block, len(parts), func(w, lo, hi int) {
		pt := &parts[w]
		if pt.load == nil {
			pt.load = load
			if w > 0 {
				pt.load = make([]int64, len(load))
			}
			pt.cnt, pt.ports = make([]int64, g.S), make([]uint8, block*g.S)
		}
		lids := g.dests[lo:hi]
		t.columns(lids, pt.ports, nil)
		for j := range lids {
			g.treeOf(pt.ports[j*g.S:(j+1)*g.S], lo+j, &pt.tr)
			pt.lenSum, pt.lenMax = g.treeLoads(lo+j, &pt.tr, pt.cnt, pt.load, pt.lenSum, pt.lenMax)
		}
	})
	for w, pt := range parts {
		if w > 0 && pt.load != nil {
			for ch, x := range pt.load {
				load[ch] += x
			}
		}
		lenSum += pt.lenSum
		lenMax = max(lenMax, pt.lenMax)
	}
	for i := range g.dests {
		h := int(g.destNode[i])
		if p := g.net.HCAPort(h); p > 0 {
			load[g.chans.At(h, p)] += T - 1
		}
	}
	return load, lenSum, lenMax
}

// treeLoads adds destination i's paths (its tree in tr) to load and to
// the path length sum and maximum, which it returns.
func (g *graph) treeLoads(i int, tr *destTree, cnt, load []int64, lenSum int64, lenMax int) (int64, int) {
	dst := int(g.destSwitch[i])
	for _, u := range tr.order {
		cnt[u] = int64(g.numHCAs(int(u)))
	}
	cnt[dst]--
	for _, u := range tr.order {
		if int(u) == dst {
			continue
		}
		ch := tr.next[u]
		load[ch] += cnt[u]
		to := g.chTo(ch)
		cnt[to] += cnt[u]
		k := int64(g.numHCAs(int(u)))
		lenSum += k * int64(tr.depth[u]+2)
		if k > 0 {
			lenMax = max(lenMax, int(tr.depth[u])+2)
		}
	}
	if g.numHCAs(dst) > 1 {
		lenSum += int64(g.numHCAs(dst)-1) * 2
		lenMax = max(lenMax, 2)
	}
	// HCA cables: the destination's ejection channel carries every
	// delivered path to it; injection channels are added by loads.
	load[g.ejection(i)] += cnt[dst]
	return lenSum, lenMax
}

// Measure computes the Metrics of tables on net.
func Measure(net *fabric.Network, t *Tables) (Metrics, error) {
	if err := t.check(net); err != nil {
		return Metrics{}, err
	}
	g := newGraph(net)
	load, lenSum, lenMax := g.loads(t)
	var m Metrics
	T := len(g.dests)
	m.Pairs = T * (T - 1)
	if m.Pairs > 0 {
		m.PathLenMean = float64(lenSum) / float64(m.Pairs)
	}
	m.PathLenMax = lenMax
	var n int
	var sum, sq float64
	m.EFIMin = math.MaxInt
	for ch := range load {
		if !g.isSwitchChannel(int32(ch)) {
			continue
		}
		x := load[ch]
		n++
		sum += float64(x)
		sq += float64(x) * float64(x)
		m.EFIMin = min(m.EFIMin, int(x))
		m.EFIMax = max(m.EFIMax, int(x))
	}
	if n == 0 {
		m.EFIMin = 0
		return m, nil
	}
	m.EFIMean = sum / float64(n)
	m.EFISdv = math.Sqrt(max(0, sq/float64(n)-m.EFIMean*m.EFIMean))
	// Perfect load: every pair on a minimal path, spread evenly.
	m.Sigma4 = g.sigma(load, g.minimalHops()/float64(n), n, 4)
	return m, nil
}

// sigma is σ(k, R) of seeds/003 §1.1: the k-norm of the n inter-switch
// channels' deviation from the perfect load.
func (g *graph) sigma(load []int64, perfect float64, n int, k float64) float64 {
	var sum float64
	for ch := range load {
		if g.isSwitchChannel(int32(ch)) {
			sum += math.Pow(math.Abs(perfect-float64(load[ch])), k)
		}
	}
	return math.Pow(sum/float64(n), 1/k)
}

// Sigma returns σ(k, R) of seeds/003 §1.1 for tables on net and any k ≥ 1:
// the k-norm of the inter-switch channels' loads' deviation from the
// perfect load (every HCA pair on a minimal path, spread evenly over the
// channels). Metrics.Sigma4 is Sigma with k = 4.
func Sigma(net *fabric.Network, t *Tables, k float64) (float64, error) {
	if err := t.check(net); err != nil {
		return 0, err
	}
	if !(k >= 1) || math.IsInf(k, 0) {
		return 0, fmt.Errorf("σ(k): k = %g, want a finite k ≥ 1", k)
	}
	g := newGraph(net)
	load, _, _ := g.loads(t)
	n := 0
	for ch := range load {
		if g.isSwitchChannel(int32(ch)) {
			n++
		}
	}
	if n == 0 {
		return 0, nil
	}
	return g.sigma(load, g.minimalHops()/float64(n), n, k), nil
}

// minimalHops sums the inter-switch hops of minimal paths over all HCA
// pairs.
func (g *graph) minimalHops() float64 {
	dist := g.hopDistances()
	var minimal float64
	for i := range g.dests {
		dst := int(g.destSwitch[i])
		for s := 0; s < g.S; s++ {
			k := g.sources(s, dst)
			if k > 0 && dist[dst][s] > 0 {
				minimal += float64(k) * float64(dist[dst][s])
			}
		}
	}
	return minimal
}

// sourceLoads is loads for source-routed tables: every pair of switches
// with HCAs walks its route once, weighted by its HCA pairs.
func (g *graph) sourceLoads(t *Tables) (load []int64, lenSum int64, lenMax int) {
	load = make([]int64, g.chans.Len())
	T := int64(len(g.dests))
	rep := make([]int, g.S) // a destination index per switch with HCAs
	for i := range rep {
		rep[i] = -1
	}
	for i := range g.dests {
		if d := g.destSwitch[i]; d >= 0 && rep[d] < 0 {
			rep[d] = i
		}
	}
	for i := range g.dests {
		h := int(g.destNode[i])
		if p := g.net.HCAPort(h); p > 0 {
			load[g.chans.At(h, p)] += T - 1
		}
	}
	for a := 0; a < g.S; a++ {
		ka := int64(g.numHCAs(a))
		if ka == 0 {
			continue
		}
		for b := 0; b < g.S; b++ {
			kb := int64(g.numHCAs(b))
			if kb == 0 || rep[a] < 0 || rep[b] < 0 {
				continue
			}
			pairs := ka * kb
			if a == b {
				pairs = ka * (ka - 1)
			}
			if pairs == 0 {
				continue
			}
			path, ok := g.hcaPath(t, rep[a], rep[b])
			if !ok {
				continue
			}
			// The path's switch hops, then the ejection cables: each
			// destination HCA on b receives from every source on a.
			for _, ch := range path[1 : len(path)-1] {
				load[ch] += pairs
			}
			lenSum += pairs * int64(len(path))
			lenMax = max(lenMax, len(path))
		}
	}
	for i := range g.dests {
		// Ejection cables: every delivered path to the HCA.
		d := int(g.destSwitch[i])
		var n int64
		for a := 0; a < g.S; a++ {
			if ka := int64(g.sources(a, d)); ka > 0 && rep[a] >= 0 {
				if _, ok := g.hcaPath(t, rep[a], i); ok {
					n += ka
				}
			}
		}
		load[g.ejection(i)] += n
	}
	return load, lenSum, lenMax
}

// EffectiveBisection estimates the effective bisection bandwidth
// (seeds/000 §V, ORCS): for each of patterns random perfect matchings of
// the HCAs, every matched pair sends in both directions, each flow gets
// 1/(the largest number of flows sharing a channel on its path), and the
// result is the mean over all flows and patterns, 1.0 meaning every flow at
// full link rate. Undelivered flows count as 0.
func EffectiveBisection(net *fabric.Network, t *Tables, patterns int, seed uint64) (float64, error) {
	if err := t.check(net); err != nil {
		return 0, err
	}
	if patterns < 1 {
		return 0, fmt.Errorf("patterns must be positive")
	}
	g := newGraph(net)
	T := len(g.dests)
	if T < 2 {
		return 0, fmt.Errorf("effective bisection bandwidth needs two HCAs")
	}
	rng := fabric.Stream(seed, "routing/ebb")
	perm := make([]int, T)
	for i := range perm {
		perm[i] = i
	}
	load := make([]int32, g.chans.Len())
	var paths [][]int32
	var total float64
	flows := 0
	for p := 0; p < patterns; p++ {
		rng.Shuffle(T, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		paths = paths[:0]
		for k := 0; k+1 < T; k += 2 {
			a, b := perm[k], perm[k+1]
			for _, pr := range [2][2]int{{a, b}, {b, a}} {
				path, ok := g.hcaPath(t, pr[0], pr[1])
				if !ok {
					path = nil
				}
				paths = append(paths, path)
				for _, ch := range path {
					load[ch]++
				}
			}
		}
		for _, path := range paths {
			flows++
			if path == nil {
				continue
			}
			worst := int32(1)
			for _, ch := range path {
				worst = max(worst, load[ch])
			}
			total += 1 / float64(worst)
		}
		for _, path := range paths {
			for _, ch := range path {
				load[ch] = 0
			}
		}
	}
	return total / float64(flows), nil
}

// hcaPath returns the channels from HCA index a to HCA index b (indices into
// dests), HCA cables included.
func (g *graph) hcaPath(t *Tables, a, b int) ([]int32, bool) {
	src := int(g.destNode[a])
	lid := g.dests[b]
	dn := int(g.destNode[b])
	path := []int32{g.chans.At(src, g.net.HCAPort(src))}
	u := int(g.hcaSwitch[src-g.S])
	s, d := u, int(g.destSwitch[b])
	if s < 0 || d < 0 {
		return nil, false
	}
	limit := g.S
	if t.Source != nil {
		r, _ := t.Source.Route(s, d)
		limit += len(r)
	}
	for steps := 0; ; steps++ {
		p := t.Forward(s, d, steps, u, lid)
		if p == NoPath || p == 0 || steps > limit {
			return nil, false
		}
		ch := g.chans.At(u, int(p))
		if ch < 0 {
			return nil, false
		}
		path = append(path, ch)
		to := g.chTo(ch)
		if int(to) == dn {
			return path, true
		}
		if int(to) >= g.S {
			return nil, false
		}
		u = int(to)
	}
}

// BrokenPaths counts the HCA pairs whose route, computed before the failure,
// crosses one of the failed cables (Prop. 4.1/4.2, Fig. 4.2): the paths a
// fabric loses until the subnet manager has rerouted. failed is indexed by
// cable of net.
func BrokenPaths(net *fabric.Network, t *Tables, failed []bool) (broken, total int, err error) {
	if err := t.check(net); err != nil {
		return 0, 0, err
	}
	if len(failed) != len(net.Links) {
		return 0, 0, fmt.Errorf("failed has %d entries for %d cables", len(failed), len(net.Links))
	}
	if t.Source != nil {
		return 0, 0, fmt.Errorf("%s: broken paths of source routes are not counted (the walk follows forwarding tables)", t.Engine)
	}
	g := newGraph(net)
	var tr destTree
	bad := make([]bool, g.S)
	for i := range g.dests {
		dn, dst := int(g.destNode[i]), int(g.destSwitch[i])
		g.tree(t, i, &tr)
		ejectBroken := failed[g.chans.Link(g.ejection(i))]
		// Shallowest first: a switch is cut off if its own channel failed or
		// its next switch is cut off.
		for k := len(tr.order) - 1; k >= 0; k-- {
			u := tr.order[k]
			if int(u) == dst {
				bad[u] = ejectBroken
				continue
			}
			to := g.chTo(tr.next[u])
			bad[u] = failed[g.chans.Link(tr.next[u])] || bad[to]
		}
		for s := 0; s < g.S; s++ {
			k := g.sources(s, dst)
			if k <= 0 {
				continue
			}
			total += k
			if tr.depth[s] < 0 || bad[s] {
				broken += k
				continue
			}
			for _, h := range g.hcas[s] {
				if int(h) != dn && failed[g.chans.Link(g.chans.At(int(h), g.net.HCAPort(int(h))))] {
					broken++
				}
			}
		}
	}
	return broken, total, nil
}
