package fabric

import (
	"fmt"
	"math"
	"strconv"
)

func randomGenerator() Generator {
	return Generator{Kind: "random",
		Help: "random topology (§3.2.5): HCAs spread evenly, a ring through all switches for connectivity, then random switch pairs " +
			"cabled until the link count is reached; a pair where either switch has no free port (or the same switch twice) is discarded " +
			"and redrawn; parallel cables are allowed",
		Example: "random:switches=32,hcas=256,links=256,radix=36,seed=1",
		Params: []Param{
			{Name: "switches", Type: IntParam, Help: "number of switches"},
			withDefault(paramHCAs, "", "default: one per switch"),
			{Name: "links", Type: IntParam, Help: "total inter-switch cables, ring included"},
			paramRadix,
			{Name: "seed", Type: IntParam, Default: "1", Help: "seed of the random stream"}},
		build: func(a *args) (*Network, error) {
			ns := a.int("switches", 1, 1<<16)
			links := a.int("links", 0, 1<<22)
			radix := a.int("radix", 1, 255)
			seed := a.int("seed", 0, math.MaxInt>>1)
			if a.err != nil {
				return nil, nil
			}
			hcas := a.intOr("hcas", ns, 0, MaxLIDs)
			if a.err != nil {
				return nil, nil
			}
			if err := checkLIDs(ns, hcas); err != nil {
				return nil, err
			}
			return buildRandom(ns, hcas, links, radix, uint64(seed))
		}}
}

func buildRandom(ns, hcas, links, radix int, seed uint64) (*Network, error) {
	counts := spread(hcas, ns)
	free := make([]int, ns)
	for i := range free {
		free[i] = radix - counts[i]
		if free[i] < 0 {
			return nil, fmt.Errorf("switch %d gets %d HCAs, radix is %d", i, counts[i], radix)
		}
	}
	b := NewBuilder("")
	for i := 0; i < ns; i++ {
		b.AddSwitch("r"+strconv.Itoa(i), radix)
	}
	ring := ns
	switch ns {
	case 1:
		ring = 0
	case 2:
		ring = 1
	}
	if links < ring {
		return nil, fmt.Errorf("links=%d: the ring through %d switches alone needs %d", links, ns, ring)
	}
	cable := func(x, y int) error {
		free[x]--
		free[y]--
		return b.Link(x, y)
	}
	for i := 0; i < ring; i++ {
		if free[i] < 1 || free[(i+1)%ns] < 1 {
			return nil, fmt.Errorf("no free port for the ring: radix %d too small", radix)
		}
		if err := cable(i, (i+1)%ns); err != nil {
			return nil, err
		}
	}
	rng := Stream(seed, "fabric/random")
	withFree := 0
	for _, f := range free {
		if f > 0 {
			withFree++
		}
	}
	for placed := ring; placed < links; {
		if withFree < 2 {
			return nil, fmt.Errorf("links=%d do not fit: free ports ran out after %d cables (radix %d)", links, placed, radix)
		}
		x, y := rng.IntN(ns), rng.IntN(ns)
		if x == y || free[x] == 0 || free[y] == 0 {
			continue
		}
		if err := cable(x, y); err != nil {
			return nil, err
		}
		for _, s := range []int{x, y} {
			if free[s] == 0 {
				withFree--
			}
		}
		placed++
	}
	if err := attachHCAs(b, seq(ns), counts, 0); err != nil {
		return nil, err
	}
	return b.Finish()
}
