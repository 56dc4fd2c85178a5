package fabric

import (
	"fmt"
	"strconv"
)

// The "-like" generators rebuild the production fabrics of §3.2.6 from what
// the thesis publishes (switch, terminal and cable counts) plus the
// assumptions documented on each generator. Their purpose is a faithful
// structure with exactly the published counts, not a wiring diagram.

func deimosGenerator() Generator {
	return Generator{Kind: "deimos",
		Help: "Deimos-like (§3.2.6): three 288-port directors in series, each a 24-ary 2-tree of 24-port chips " +
			"(24 leaves with 12 external ports, 12 spines, one cable per leaf-spine pair), 30 cables between neighbouring " +
			"directors on each director's last external ports (the thesis: 258 ports for nodes on the outer directors, 228 " +
			"on the middle one); 108 switches, 924 switch cables. The thesis gives 1,653 links in all and 726-728 nodes; " +
			"with 924 switch cables the total needs 729 HCAs, the default",
		Example: "deimos",
		Params: []Param{withDefault(paramHCAs, "729", "at most 744 external ports"),
			{Name: "packed", Type: IntParam, Default: "1", Help: "1: the inter-director cables take each director's last external " +
				"ports (the outer directors' 259-288, the middle one's 229-288: leaves 21-23 and 19-23), as the thesis' port " +
				"counts suggest; 0: spread over all 24 leaves of each director (the cabling is not published; docs/validation.md " +
				"measures both)"}},
		build: func(a *args) (*Network, error) {
			hcas := a.int("hcas", 0, 744)
			packed := a.int("packed", 0, 1) == 1
			if a.err != nil {
				return nil, nil
			}
			b := NewBuilder("")
			const leaves, spines, ext = 24, 12, 12
			var leafIdx [3][]int
			for d := 0; d < 3; d++ {
				var err error
				if leafIdx[d], err = addDirector(b, fmt.Sprintf("d%d-", d), leaves, spines, 1, 24, 0); err != nil {
					return nil, err
				}
			}
			// 30 cables between directors 0-1 and 1-2: director d's k-th
			// inter-director cable uses leaf (k mod 24) of the side it faces.
			// Packed: director d's k-th inter-director cable takes external
			// port 287−k (leaf 23−k/12), counting on over both sides of the
			// middle director.
			next := [3]int{}
			for d := 0; d < 2; d++ {
				for k := 0; k < 30; k++ {
					x := leafIdx[d][(leaves-1-next[d]%leaves+leaves)%leaves]
					y := leafIdx[d+1][next[d+1]%leaves]
					if packed {
						x = leafIdx[d][leaves-1-next[d]/ext]
						y = leafIdx[d+1][leaves-1-next[d+1]/ext]
					}
					next[d]++
					next[d+1]++
					if err := b.Link(x, y); err != nil {
						return nil, err
					}
				}
			}
			// HCAs on the remaining external ports, spread over all 72 leaves.
			var all []int
			for d := 0; d < 3; d++ {
				all = append(all, leafIdx[d]...)
			}
			return finishWithHCAs(b, all, hcas)
		}}
}

// finishWithHCAs spreads hcas over the given switches as evenly as their
// free ports allow and finishes the network.
func finishWithHCAs(b *Builder, switches []int, hcas int) (*Network, error) {
	freeTotal := 0
	for _, s := range switches {
		freeTotal += b.FreePorts(s)
	}
	if hcas > freeTotal {
		return nil, fmt.Errorf("hcas=%d: only %d free ports on the edge switches", hcas, freeTotal)
	}
	// Water-filling: spread evenly, then move the excess of full switches on.
	counts := spread(hcas, len(switches))
	carry := 0
	for i, s := range switches {
		counts[i] += carry
		carry = 0
		if f := b.FreePorts(s); counts[i] > f {
			carry = counts[i] - f
			counts[i] = f
		}
	}
	for i := len(switches) - 1; carry > 0 && i >= 0; i-- {
		add := min(carry, b.FreePorts(switches[i])-counts[i])
		counts[i] += add
		carry -= add
	}
	if err := attachHCAs(b, switches, counts, 0); err != nil {
		return nil, err
	}
	return b.Finish()
}

// addSwitches adds n switches of the given radix on level level, named
// prefix0, prefix1, …, and returns them.
func addSwitches(b *Builder, prefix string, n, radix, level int) []int {
	sw := make([]int, n)
	for i := range sw {
		sw[i] = b.AddSwitch(prefix+strconv.Itoa(i), radix)
		b.Node(sw[i]).Level = level
	}
	return sw
}

// addDirector adds a director built as a two-level fat tree of switches of
// the given radix: leaves on level level, named prefix+"leafI", then spines
// one level up, named prefix+"spineI", each cabled to every leaf by cables
// parallel cables. It returns the leaves.
func addDirector(b *Builder, prefix string, leaves, spines, cables, radix, level int) ([]int, error) {
	leaf := addSwitches(b, prefix+"leaf", leaves, radix, level)
	for sp := 0; sp < spines; sp++ {
		s := b.AddSwitch(prefix+"spine"+strconv.Itoa(sp), radix)
		b.Node(s).Level = level + 1
		for _, l := range leaf {
			for c := 0; c < cables; c++ {
				if err := b.Link(l, s); err != nil {
					return nil, err
				}
			}
		}
	}
	return leaf, nil
}

func tsubame2Generator() Generator {
	return Generator{Kind: "tsubame2",
		Help: "TSUBAME2-like (§3.2.6, §4.4.4, Table 6.1): one rail of the dual-rail full-bisection fat tree. Six 324-port core " +
			"directors, each a 2-level fat tree of 36-port chips (18 leaves, 9 spines, 2 cables per leaf-spine pair: 27 switches, " +
			"324 cables), and 36-port edge switches whose up-links go round-robin over the 108 director leaves. rail=1 (§4.4.4): " +
			"258 switches, 1,555 HCAs, 3,621 switch cables; rail=2 (Table 6.1): 243 switches, 1,408 HCAs, 3,384 switch cables. " +
			"Edge up-link counts are spread evenly to meet the published cable count",
		Example: "tsubame2:rail=1",
		Params: []Param{{Name: "rail", Type: IntParam, Default: "1", Help: "1 (1,555 HCAs) or 2 (1,408 HCAs)"},
			withDefault(paramHCAs, "", "default: 1,555 for rail 1, 1,408 for rail 2")},
		build: func(a *args) (*Network, error) {
			rail := a.int("rail", 1, 2)
			if a.err != nil {
				return nil, nil
			}
			switches, cables, hcaDefault := 258, 3621, 1555
			if rail == 2 {
				switches, cables, hcaDefault = 243, 3384, 1408
			}
			hcas := a.intOr("hcas", hcaDefault, 0, 1<<16)
			if a.err != nil {
				return nil, nil
			}
			const directors, dLeaves, dSpines = 6, 18, 9
			edges := switches - directors*(dLeaves+dSpines)
			uplinks := cables - directors*dLeaves*dSpines*2
			b := NewBuilder("")
			var dirLeaf []int // interleaved over directors: leaf j is director j%6, local leaf j/6
			leafOf := make([][]int, directors)
			for d := 0; d < directors; d++ {
				var err error
				if leafOf[d], err = addDirector(b, fmt.Sprintf("core%d-", d), dLeaves, dSpines, 2, 36, 1); err != nil {
					return nil, err
				}
			}
			for l := 0; l < dLeaves; l++ {
				for d := 0; d < directors; d++ {
					dirLeaf = append(dirLeaf, leafOf[d][l])
				}
			}
			edge := addSwitches(b, "edge", edges, 36, 0)
			q := 0
			for e, up := range spread(uplinks, edges) {
				for k := 0; k < up; k++ {
					if err := b.Link(edge[e], dirLeaf[q%len(dirLeaf)]); err != nil {
						return nil, err
					}
					q++
				}
			}
			return finishWithHCAs(b, edge, hcas)
		}}
}

func taurusGenerator() Generator {
	return Generator{Kind: "taurus",
		Help: "Taurus-like (§3.2.6, Table 6.1): six islands, each a 2-level fat tree of 36-port switches (leaves with up to 18 HCAs " +
			"and 18 up-links spread over the island's spines), joined by a 216-port director (12 leaves, 6 spines, 3 cables per " +
			"pair: 18 switches, 216 cables) with 28 cables per island from island spines to director leaves. Islands have " +
			"20,20,20,20,20,17 leaves and 13,13,13,13,13,11 spines: 211 switches, 2,490 switch cables, 2,090 HCAs",
		Example: "taurus",
		Params:  []Param{withDefault(paramHCAs, "2090", "")},
		build: func(a *args) (*Network, error) {
			hcas := a.int("hcas", 0, 117*18)
			if a.err != nil {
				return nil, nil
			}
			b := NewBuilder("")
			dLeaf, err := addDirector(b, "dir-", 12, 6, 3, 36, 2)
			if err != nil {
				return nil, err
			}
			leaves := []int{20, 20, 20, 20, 20, 17}
			spines := []int{13, 13, 13, 13, 13, 11}
			var allLeaves []int
			dq := 0
			for is := range leaves {
				lv := addSwitches(b, fmt.Sprintf("i%d-leaf", is), leaves[is], 36, 0)
				sp := addSwitches(b, fmt.Sprintf("i%d-spine", is), spines[is], 36, 1)
				q := 0
				for _, l := range lv {
					for k := 0; k < 18; k++ {
						if err := b.Link(l, sp[q%len(sp)]); err != nil {
							return nil, err
						}
						q++
					}
				}
				for k := 0; k < 28; k++ {
					if err := b.Link(sp[k%len(sp)], dLeaf[dq%len(dLeaf)]); err != nil {
						return nil, err
					}
					dq++
				}
				allLeaves = append(allLeaves, lv...)
			}
			return finishWithHCAs(b, allLeaves, hcas)
		}}
}
