// Package faults injects seeded, non-critical link and switch failures into
// a fabric (seeds/001 §4.3.1, §4.4): the fail-in-place scenario where broken
// components stay in the machine and the routing must work around them.
//
// A failure is non-critical when every remaining HCA still reaches every
// other. Draws that would disconnect are rejected and redrawn from the same
// stream; the record counts them. Failed cables take both directions.
package faults

import (
	"fmt"
	"math"
	"math/rand/v2"

	"flitsim/fabric"
)

// Spec says what should fail.
type Spec struct {
	// LinkPercent fails ⌊p/100 · inter-switch cables⌋ cables.
	LinkPercent float64 `json:"link_percent,omitempty"`
	// SwitchPercent fails ⌊p/100 · switches⌋ switches.
	SwitchPercent float64 `json:"switch_percent,omitempty"`
	// MixedPercent fails ⌊p/100 · (cables + switches)⌋ components, split
	// switches:links as RatioSwitches:RatioLinks (rounded to the nearest
	// switch), e.g. TSUBAME2 1:13, Deimos 1:2.
	MixedPercent  float64 `json:"mixed_percent,omitempty"`
	RatioSwitches int     `json:"ratio_switches,omitempty"`
	RatioLinks    int     `json:"ratio_links,omitempty"`
	// Fixed lists failures that happen first, regardless of the seed.
	Fixed []Fixed `json:"fixed,omitempty"`
	// Seed selects the random stream ("faults").
	Seed uint64 `json:"seed"`
	// TakeHCAs lets switches with HCAs fail; their HCAs leave the workload.
	// Without it only switches without HCAs are candidates.
	TakeHCAs bool `json:"take_hcas,omitempty"`
	// Level, when set, confines the drawn failures to one level of a
	// tree (seeds/001 §4.3.1): cables between switches of levels L and
	// L+1 (fabric.Node.Level, 0 = leaves) and switches of level L; the
	// percentages count those.
	Level *int `json:"level,omitempty"`
}

// levelCable and levelSwitch report whether cable l and switch s may fail
// under the spec's level.
func (s Spec) levelCable(net *fabric.Network, l int) bool {
	if s.Level == nil {
		return true
	}
	a, b := net.Nodes[net.Links[l].A.Node].Level, net.Nodes[net.Links[l].B.Node].Level
	return min(a, b) == *s.Level && max(a, b) == *s.Level+1
}

func (s Spec) levelSwitch(net *fabric.Network, sw int) bool {
	return s.Level == nil || net.Nodes[sw].Level == *s.Level
}

// Counts returns how many cables and switches spec fails on net (fixed
// failures not included).
func (s Spec) Counts(net *fabric.Network) (links, switches int, err error) {
	cables, nsw := net.SwitchLinks(), net.NumSwitches
	if s.Level != nil {
		if *s.Level < 0 {
			return 0, 0, fmt.Errorf("level %d: want a tree level ≥ 0 (0 = leaves)", *s.Level)
		}
		cables, nsw = 0, 0
		for l := range net.Links {
			if net.IsSwitchLink(l) && s.levelCable(net, l) {
				cables++
			}
		}
		for sw := range net.NumSwitches {
			if s.levelSwitch(net, sw) {
				nsw++
			}
		}
		if cables == 0 && nsw == 0 {
			return 0, 0, fmt.Errorf("level %d: %s has no switches of that tree level (levels are a fat tree's)", *s.Level, net.Name)
		}
	}
	for _, p := range []float64{s.LinkPercent, s.SwitchPercent, s.MixedPercent} {
		if p < 0 || p > 100 || math.IsNaN(p) {
			return 0, 0, fmt.Errorf("failure percentage %g outside 0..100", p)
		}
	}
	links = floorPercent(s.LinkPercent, cables)
	switches = floorPercent(s.SwitchPercent, nsw)
	if s.MixedPercent > 0 {
		if s.RatioSwitches < 0 || s.RatioLinks < 0 || s.RatioSwitches+s.RatioLinks == 0 {
			return 0, 0, fmt.Errorf("mixed failures need a switch:link ratio such as 1:13, not %d:%d", s.RatioSwitches, s.RatioLinks)
		}
		total := floorPercent(s.MixedPercent, cables+nsw)
		ns := int(math.Round(float64(total) * float64(s.RatioSwitches) / float64(s.RatioSwitches+s.RatioLinks)))
		switches += ns
		links += total - ns
	}
	return links, switches, nil
}

// floorPercent is ⌊p·n/100⌋, robust to binary fractions (3 % of 100 is 3).
func floorPercent(p float64, n int) int {
	return int(math.Floor(p*float64(n)/100 + 1e-9))
}

// FailedLink names a failed cable by its two ends.
type FailedLink struct {
	A     string `json:"a"`
	PortA int    `json:"port_a"`
	B     string `json:"b"`
	PortB int    `json:"port_b"`
}

// Record lists exactly what failed.
type Record struct {
	Seed     uint64       `json:"seed"`
	Links    []FailedLink `json:"links"`
	Switches []string     `json:"switches"`
	// RemovedHCAs are HCAs that left the workload with their switch.
	RemovedHCAs []string `json:"removed_hcas,omitempty"`
	// Unreachable are switches without HCAs cut off by the failures; the
	// subnet manager would not see them, so they are dropped as well.
	Unreachable []string `json:"unreachable_switches,omitempty"`
	// Redrawn counts draws rejected because they would have disconnected HCAs.
	Redrawn int `json:"redrawn"`
}

// Inject applies spec to net and returns the surviving network and the
// record. It fails when the requested failures cannot all be non-critical.
func Inject(net *fabric.Network, spec Spec) (*fabric.Network, Record, error) {
	nl, ns, err := spec.Counts(net)
	if err != nil {
		return nil, Record{}, err
	}
	st := newState(net)
	rec := Record{Seed: spec.Seed, Links: []FailedLink{}, Switches: []string{}}
	for _, f := range spec.Fixed {
		if err := st.applyFixed(f, &rec); err != nil {
			return nil, Record{}, err
		}
	}
	rng := fabric.Stream(spec.Seed, "faults")

	// Switches first, then cables among what is left.
	var cands []int
	for s := 0; s < net.NumSwitches; s++ {
		if !st.deadNode[s] && (spec.TakeHCAs || len(net.HCAsOf(s)) == 0) && spec.levelSwitch(net, s) {
			cands = append(cands, s)
		}
	}
	if k := drawFailures(rng, cands, ns, &rec.Redrawn, func(s int) bool {
		if !st.failSwitch(s) {
			return false
		}
		rec.Switches = append(rec.Switches, net.Nodes[s].Name)
		return true
	}); k < ns {
		why := "switches without HCAs"
		if spec.TakeHCAs {
			why = "switches"
		}
		return nil, Record{}, fmt.Errorf("cannot fail %d switches without disconnecting HCAs: only %d of the %s could fail (try fewer, or take_hcas)", ns, k, why)
	}
	cands = cands[:0]
	for l := range net.Links {
		if net.IsSwitchLink(l) && st.linkAlive(l) && spec.levelCable(net, l) {
			cands = append(cands, l)
		}
	}
	if k := drawFailures(rng, cands, nl, &rec.Redrawn, func(l int) bool {
		if !st.failLink(l) {
			return false
		}
		rec.Links = append(rec.Links, linkOf(net, l))
		return true
	}); k < nl {
		return nil, Record{}, fmt.Errorf("cannot fail %d cables without disconnecting HCAs: only %d could fail", nl, k)
	}
	out, err := st.result(&rec)
	if err != nil {
		return nil, Record{}, err
	}
	return out, rec, nil
}

// drawFailures draws up to n candidates uniformly without replacement and
// lets fail try each; a candidate fail refuses (a critical failure) is
// counted in redrawn and never drawn again, since more failures can only
// make it more critical. It returns how many failed.
func drawFailures(rng *rand.Rand, cands []int, n int, redrawn *int, fail func(int) bool) int {
	done := 0
	for done < n && len(cands) > 0 {
		i := rng.IntN(len(cands))
		c := cands[i]
		cands[i] = cands[len(cands)-1]
		cands = cands[:len(cands)-1]
		if fail(c) {
			done++
		} else {
			*redrawn++
		}
	}
	return done
}

func linkOf(net *fabric.Network, l int) FailedLink {
	lk := net.Links[l]
	return FailedLink{A: net.Nodes[lk.A.Node].Name, PortA: int(lk.A.Port), B: net.Nodes[lk.B.Node].Name, PortB: int(lk.B.Port)}
}

// state tracks what has failed and answers connectivity questions.
type state struct {
	net      *fabric.Network
	deadLink []bool
	deadNode []bool
	hasHCA   []bool // switch still carries a live HCA
	seen     []bool
	queue    []int
}

func newState(net *fabric.Network) *state {
	st := &state{net: net, deadLink: make([]bool, len(net.Links)), deadNode: make([]bool, len(net.Nodes)),
		hasHCA: make([]bool, net.NumSwitches), seen: make([]bool, net.NumSwitches)}
	for h := net.NumSwitches; h < len(net.Nodes); h++ {
		if s, _ := net.HCASwitch(h); s >= 0 {
			st.hasHCA[s] = true
		}
	}
	return st
}

func (st *state) linkAlive(l int) bool {
	lk := st.net.Links[l]
	return !st.deadLink[l] && !st.deadNode[lk.A.Node] && !st.deadNode[lk.B.Node]
}

// reach marks switches reachable from the first live HCA switch and reports
// whether every live HCA switch was reached.
func (st *state) reach() bool {
	net := st.net
	start := -1
	for s := 0; s < net.NumSwitches; s++ {
		st.seen[s] = false
		if start < 0 && st.hasHCA[s] && !st.deadNode[s] {
			start = s
		}
	}
	if start < 0 {
		return true
	}
	st.seen[start] = true
	st.queue = append(st.queue[:0], start)
	for h := 0; h < len(st.queue); h++ {
		u := st.queue[h]
		for p := 1; p <= net.Nodes[u].Radix; p++ {
			l := net.LinkAt(u, p)
			if l < 0 || !st.linkAlive(l) {
				continue
			}
			v := int(net.Links[l].Other(int32(u), int16(p)).Node)
			if v < net.NumSwitches && !st.seen[v] {
				st.seen[v] = true
				st.queue = append(st.queue, v)
			}
		}
	}
	for s := 0; s < net.NumSwitches; s++ {
		if st.hasHCA[s] && !st.deadNode[s] && !st.seen[s] {
			return false
		}
	}
	return true
}

// failLink fails cable l if that keeps HCAs connected.
func (st *state) failLink(l int) bool {
	st.deadLink[l] = true
	if st.reach() {
		return true
	}
	st.deadLink[l] = false
	return false
}

// failSwitch fails switch s (and its HCAs) if that keeps the rest connected.
func (st *state) failSwitch(s int) bool {
	had := st.hasHCA[s]
	st.deadNode[s] = true
	st.hasHCA[s] = false
	if st.reach() {
		for _, h := range st.net.HCAsOf(s) {
			st.deadNode[h] = true
		}
		return true
	}
	st.deadNode[s] = false
	st.hasHCA[s] = had
	return false
}

func (st *state) result(rec *Record) (*fabric.Network, error) {
	net := st.net
	for s := 0; s < net.NumSwitches; s++ {
		if st.deadNode[s] {
			for _, h := range net.HCAsOf(s) {
				rec.RemovedHCAs = append(rec.RemovedHCAs, net.Nodes[h].Name)
			}
		}
	}
	st.reach()
	for s := 0; s < net.NumSwitches; s++ {
		if !st.deadNode[s] && !st.seen[s] {
			st.deadNode[s] = true
			rec.Unreachable = append(rec.Unreachable, net.Nodes[s].Name)
		}
	}
	out, err := net.Without(st.deadLink, st.deadNode)
	if err != nil {
		return nil, fmt.Errorf("removing failed components: %w", err)
	}
	return out, nil
}
