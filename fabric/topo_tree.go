package fabric

import (
	"fmt"
	"strconv"
)

func xgftGenerator() Generator {
	return Generator{Kind: "xgft",
		Help: "extended generalized fat tree XGFT(h; m1..mh; w1..wh) (§3.2.2) with switches as leaves (level 0), as the thesis counts it: " +
			"level l has ∏_{i>l} m_i · ∏_{i≤l} w_i switches; a level-l switch has w_{l+1} parents, a level-(l+1) switch m_{l+1} children",
		Example: "xgft:m=22,w=11,hcas=264",
		Params: []Param{
			{Name: "m", Type: ListParam, Help: "children per switch at each level above the leaves, m1 x … x mh"},
			{Name: "w", Type: ListParam, Help: "parents per switch at each level below the roots, w1 x … x wh"},
			withDefault(paramHCAs, "", "default: w1 per leaf switch"), paramRedundancy, paramRadix},
		build: func(a *args) (*Network, error) {
			m := a.list("m", 1, 4096)
			w := a.list("w", 1, 4096)
			r := a.int("redundancy", 1, 64)
			radix := a.int("radix", 1, 255)
			if a.err != nil {
				return nil, nil
			}
			if len(m) != len(w) {
				return nil, fmt.Errorf("m has %d levels, w has %d: they must match", len(m), len(w))
			}
			leaves := 1
			for _, x := range m {
				leaves = mulCap(leaves, x, MaxLIDs)
			}
			hcas := a.intOr("hcas", mulCap(leaves, w[0], MaxLIDs), 0, MaxLIDs)
			if a.err != nil {
				return nil, nil
			}
			return buildXGFT(m, w, r, radix, hcas)
		}}
}

func karyNTreeGenerator() Generator {
	return Generator{Kind: "kary-ntree",
		Help:    "k-ary n-tree (§3.2.2): n levels of k^(n-1) switches, HCAs on the leaves; the same as xgft with m = w = k repeated n-1 times",
		Example: "kary-ntree:k=16,n=2",
		Params: []Param{
			{Name: "k", Type: IntParam, Help: "arity: down and up ports per switch"},
			{Name: "n", Type: IntParam, Help: "levels of switches (≥ 2)"},
			withDefault(paramHCAs, "", "default: k per leaf switch (k^n)"), paramRedundancy, paramRadix},
		build: func(a *args) (*Network, error) {
			k := a.int("k", 1, 128)
			n := a.int("n", 2, 8)
			r := a.int("redundancy", 1, 64)
			radix := a.int("radix", 1, 255)
			if a.err != nil {
				return nil, nil
			}
			m := make([]int, n-1)
			leaves := 1
			for i := range m {
				m[i] = k
				leaves = mulCap(leaves, k, MaxLIDs)
			}
			hcas := a.intOr("hcas", mulCap(leaves, k, MaxLIDs), 0, MaxLIDs)
			if a.err != nil {
				return nil, nil
			}
			return buildXGFT(m, m, r, radix, hcas)
		}}
}

// buildXGFT builds XGFT(h; m; w) with switch leaves. A switch at level l is
// labelled by digits (x_1..x_h): x_i ∈ [0, w_i) for i ≤ l and x_i ∈ [0, m_i)
// for i > l. A level-l and a level-(l+1) switch are joined iff their labels
// agree everywhere except digit l+1.
func buildXGFT(m, w []int, r, radix, hcas int) (*Network, error) {
	h := len(m)
	radices := func(l int) []int { // digit radices of level l
		rad := make([]int, h)
		for i := 0; i < h; i++ {
			if i < l {
				rad[i] = w[i]
			} else {
				rad[i] = m[i]
			}
		}
		return rad
	}
	b := NewBuilder("")
	base := make([]int, h+2) // first builder index of each level
	total := 0
	for l := 0; l <= h; l++ {
		base[l] = total
		cnt := 1
		for _, x := range radices(l) {
			cnt = mulCap(cnt, x, MaxLIDs)
		}
		if err := checkLIDs(total+cnt, hcas); err != nil {
			return nil, err
		}
		for i := 0; i < cnt; i++ {
			s := b.AddSwitch("l"+strconv.Itoa(l)+"-"+strconv.Itoa(i), radix)
			b.Node(s).Level = l
		}
		total += cnt
	}
	base[h+1] = total
	leaves := base[1] - base[0]
	counts := spread(hcas, leaves)
	// Port budget check before cabling, so the error is about the design.
	for l := 0; l <= h; l++ {
		up, down := 0, 0
		if l < h {
			up = w[l] * r
		}
		if l > 0 {
			down = m[l-1] * r
		}
		extra := 0
		if l == 0 {
			extra = counts[0]
			for _, c := range counts {
				extra = max(extra, c)
			}
		}
		if up+down+extra > radix {
			return nil, fmt.Errorf("level %d switches need %d ports (%d up, %d down, %d HCAs), radix is %d", l, up+down+extra, up, down, extra, radix)
		}
	}
	digits := make([]int, h)
	for l := 0; l < h; l++ {
		rad := radices(l)
		radUp := radices(l + 1)
		for i := 0; i < base[l+1]-base[l]; i++ {
			decode(i, rad, digits)
			for p := 0; p < w[l]; p++ {
				saved := digits[l]
				digits[l] = p
				j := encode(digits, radUp)
				digits[l] = saved
				for c := 0; c < r; c++ {
					if err := b.Link(base[l]+i, base[l+1]+j); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	if err := attachHCAs(b, seq(leaves), counts, 0); err != nil {
		return nil, err
	}
	return b.Finish()
}

func decode(i int, rad, digits []int) {
	for k := range rad {
		digits[k] = i % rad[k]
		i /= rad[k]
	}
}

func encode(digits, rad []int) int {
	i := 0
	for k := len(rad) - 1; k >= 0; k-- {
		i = i*rad[k] + digits[k]
	}
	return i
}
