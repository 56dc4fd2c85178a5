package fabric

import (
	"fmt"
	"strconv"
	"strings"
)

func kautzGenerator() Generator {
	return Generator{Kind: "kautz",
		Help: "Kautz(d,k) graph (§3.2.3) as an undirected multigraph: (d+1)·d^(k-1) switches; every arc α→β of the Kautz digraph " +
			"becomes r full-duplex cables, so a pair with arcs both ways (ab…ab ↔ ba…ba) gets 2r",
		Example: "kautz:d=2,k=4,hcas=264,redundancy=6",
		Params: []Param{
			{Name: "d", Type: IntParam, Help: "out-degree of the digraph (alphabet d+1)"},
			{Name: "k", Type: IntParam, Help: "string length (diameter)"},
			withDefault(paramHCAs, "", "default: one per switch"), paramRedundancy, paramRadix},
		build: func(a *args) (*Network, error) {
			d := a.int("d", 1, 64)
			k := a.int("k", 1, 16)
			r := a.int("redundancy", 1, 64)
			radix := a.int("radix", 1, 255)
			if a.err != nil {
				return nil, nil
			}
			// Enumerate Kautz strings in lexicographic order.
			var words [][]int
			var rec func(w []int)
			rec = func(w []int) {
				if len(words) > MaxLIDs {
					return
				}
				if len(w) == k {
					words = append(words, append([]int(nil), w...))
					return
				}
				for c := 0; c <= d; c++ {
					if len(w) > 0 && w[len(w)-1] == c {
						continue
					}
					rec(append(w, c))
				}
			}
			rec(nil)
			ns := len(words)
			hcas := a.intOr("hcas", ns, 0, MaxLIDs)
			if a.err != nil {
				return nil, nil
			}
			if err := checkLIDs(ns, hcas); err != nil {
				return nil, fmt.Errorf("d=%d k=%d: %w", d, k, err)
			}
			counts := spread(hcas, ns)
			if need := 2*d*r + maxOf(counts); need > radix {
				return nil, fmt.Errorf("needs %d ports per switch (%d to switches, up to %d HCAs), radix is %d", need, 2*d*r, maxOf(counts), radix)
			}
			index := make(map[string]int, ns)
			b := NewBuilder("")
			for i, w := range words {
				name := kautzName(w)
				index[name] = i
				b.AddSwitch(name, radix)
			}
			next := make([]int, k)
			for i, w := range words {
				copy(next, w[1:])
				for c := 0; c <= d; c++ {
					if c == w[k-1] {
						continue
					}
					next[k-1] = c
					j := index[kautzName(next)]
					for x := 0; x < r; x++ {
						if err := b.Link(i, j); err != nil {
							return nil, err
						}
					}
				}
			}
			if err := attachHCAs(b, seq(ns), counts, 0); err != nil {
				return nil, err
			}
			return b.Finish()
		}}
}

func kautzName(w []int) string {
	var s strings.Builder
	s.WriteString("k-")
	for i, c := range w {
		if i > 0 && c > 9 {
			s.WriteByte('.')
		}
		s.WriteString(strconv.Itoa(c))
	}
	return s.String()
}

func maxOf(c []int) int {
	m := 0
	for _, x := range c {
		m = max(m, x)
	}
	return m
}

func dragonflyGenerator() Generator {
	return Generator{Kind: "dragonfly",
		Help: "dragonfly(a,p,h,g) (§3.2.4): g groups of a switches, complete graph inside each group, complete graph between groups; " +
			"each pair of groups gets ⌊a·h/(g−1)⌋ global cables, spread round-robin over the switches' h global ports",
		Example: "dragonfly:a=10,p=5,h=5,g=4,hcas=280",
		Params: []Param{
			{Name: "a", Type: IntParam, Help: "switches per group"},
			{Name: "p", Type: IntParam, Help: "HCAs per switch (ignored when hcas is given)"},
			{Name: "h", Type: IntParam, Help: "global ports per switch"},
			{Name: "g", Type: IntParam, Help: "groups (≤ a·h+1)"},
			withDefault(paramHCAs, "", "default: a·p·g"), paramRedundancy, paramRadix},
		build: func(a *args) (*Network, error) {
			ga := a.int("a", 1, 4096)
			p := a.int("p", 0, 1024)
			h := a.int("h", 0, 1024)
			g := a.int("g", 1, 4096)
			r := a.int("redundancy", 1, 64)
			radix := a.int("radix", 1, 255)
			if a.err != nil {
				return nil, nil
			}
			if g > ga*h+1 {
				return nil, fmt.Errorf("g=%d groups need at least one global cable each to the others: at most a·h+1 = %d", g, ga*h+1)
			}
			hcas := a.intOr("hcas", ga*p*g, 0, MaxLIDs)
			if a.err != nil {
				return nil, nil
			}
			return buildGroups(groupLayout{
				groups: g, perGroup: ga, global: h, hcas: hcas, radix: radix, redundancy: r,
				name: func(grp, s int) string { return "g" + strconv.Itoa(grp) + "-s" + strconv.Itoa(s) },
				intra: func(s, t int) int { // complete graph
					if s < t {
						return 1
					}
					return 0
				},
				intraPorts: ga - 1,
			})
		}}
}

func cascadeGenerator() Generator {
	return ariesLayout("cascade", "Cray Cascade (§3.2.4): groups of 16×6 Aries switches, all-to-all in each row of 16 (one cable) and each column of 6 "+
		"(three cables), ⌊96·h/(groups−1)⌋ global cables between every pair of groups; Table 6.1's Cascade(2 groups) is "+
		"192 switches, 1,536 HCAs (8 per switch), 3,072 switch cables", "cascade:groups=2", "8", "c")
}

func ariesGenerator() Generator {
	return ariesLayout("aries", "Cray Aries (seeds/004 §2.1): groups of 6 chassis × 16 routers with 4 nodes each; rank-1 links all-to-all "+
		"within a chassis (one cable per pair), rank-2 links all-to-all between the routers of a column across the chassis (three "+
		"cables per pair), h rank-3 (global) links per router, ⌊96·h/(groups−1)⌋ between every pair of groups; the cascade layout "+
		"with 4 nodes per router", "aries:groups=2,h=2", "4", "a")
}

// ariesLayout is the Cascade/Aries group layout: 16×6 routers per group,
// rows (chassis) all-to-all by one cable, columns by three.
func ariesLayout(kind, help, example, defaultP, prefix string) Generator {
	return Generator{Kind: kind, Help: help, Example: example,
		Params: []Param{
			{Name: "groups", Type: IntParam, Help: "number of groups"},
			{Name: "h", Type: IntParam, Default: "2", Help: "global ports per switch (≤ 10 on Aries)"},
			{Name: "p", Type: IntParam, Default: defaultP, Help: "HCAs per switch (ignored when hcas is given)"},
			withDefault(paramHCAs, "", "default: 96·p·groups"),
			withDefault(paramRadix, "48", "")},
		build: func(a *args) (*Network, error) {
			g := a.int("groups", 1, 241)
			h := a.int("h", 0, 48)
			p := a.int("p", 0, 48)
			radix := a.int("radix", 1, 255)
			if a.err != nil {
				return nil, nil
			}
			if g > 96*h+1 {
				return nil, fmt.Errorf("groups=%d need at most 96·h+1 = %d", g, 96*h+1)
			}
			hcas := a.intOr("hcas", 96*p*g, 0, MaxLIDs)
			if a.err != nil {
				return nil, nil
			}
			return buildGroups(groupLayout{
				groups: g, perGroup: 96, global: h, hcas: hcas, radix: radix, redundancy: 1,
				name: func(grp, s int) string {
					return prefix + strconv.Itoa(grp) + "-r" + strconv.Itoa(s/16) + "-c" + strconv.Itoa(s%16)
				},
				chassis: func(s int) int { return s / 16 },
				intra: func(s, t int) int {
					if s >= t {
						return 0
					}
					switch {
					case s/16 == t/16: // same row of 16: a chassis
						return 1
					case s%16 == t%16: // same column of 6
						return 3
					}
					return 0
				},
				intraPorts: 15 + 5*3,
			})
		}}
}

// groupLayout describes a two-level direct network: groups of switches with
// some intra-group wiring, and all-to-all global cables between groups.
type groupLayout struct {
	groups, perGroup, global, hcas, radix, redundancy int
	name                                              func(group, s int) string
	intra                                             func(s, t int) int // cables between s < t of a group
	intraPorts                                        int                // intra-group cables per switch (before redundancy)
	chassis                                           func(s int) int    // chassis of switch s of a group (nil: one chassis)
}

func buildGroups(gl groupLayout) (*Network, error) {
	ns := gl.groups * gl.perGroup
	if err := checkLIDs(ns, gl.hcas); err != nil {
		return nil, err
	}
	counts := spread(gl.hcas, ns)
	if need := gl.intraPorts*gl.redundancy + gl.global + maxOf(counts); need > gl.radix {
		return nil, fmt.Errorf("needs %d ports per switch (%d intra-group, %d global, up to %d HCAs), radix is %d",
			need, gl.intraPorts*gl.redundancy, gl.global, maxOf(counts), gl.radix)
	}
	b := NewBuilder("")
	for grp := 0; grp < gl.groups; grp++ {
		for s := 0; s < gl.perGroup; s++ {
			n := b.Node(b.AddSwitch(gl.name(grp, s), gl.radix))
			n.Group = grp
			if gl.chassis != nil {
				n.Chassis = gl.chassis(s)
			}
		}
	}
	for grp := 0; grp < gl.groups; grp++ {
		off := grp * gl.perGroup
		for s := 0; s < gl.perGroup; s++ {
			for t := s + 1; t < gl.perGroup; t++ {
				for c := 0; c < gl.intra(s, t)*gl.redundancy; c++ {
					if err := b.Link(off+s, off+t); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	if gl.groups > 1 {
		// Global slot q of a group (q < L·(g−1)) goes to the (q mod (g−1))-th
		// other group as its (q div (g−1))-th cable; slot q sits on switch q div h.
		per := gl.perGroup * gl.global / (gl.groups - 1)
		other := func(i, j int) int { // index of group j among i's other groups
			if j < i {
				return j
			}
			return j - 1
		}
		for i := 0; i < gl.groups; i++ {
			for j := i + 1; j < gl.groups; j++ {
				for c := 0; c < per; c++ {
					qi := c*(gl.groups-1) + other(i, j)
					qj := c*(gl.groups-1) + other(j, i)
					if err := b.Link(i*gl.perGroup+qi/gl.global, j*gl.perGroup+qj/gl.global); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	if err := attachHCAs(b, seq(ns), counts, 0); err != nil {
		return nil, err
	}
	net, err := b.Finish()
	if err != nil {
		return nil, err
	}
	net.Groups = gl.groups
	return net, nil
}
