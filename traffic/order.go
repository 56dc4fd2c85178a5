package traffic

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Order names how a pattern's ranks are laid on the HCAs. A pattern speaks of
// ranks 0..N-1 ("rank i sends to rank i+1"); the order decides which HCA is
// rank i. The exchange's shift sequence in particular is only defined up to
// this choice (seeds/001 §4.3.3.2 does not state it), and the choice moves
// its throughput by tens of percent (docs/validation.md).
type Order string

// The orders.
const (
	// ByHCA makes rank i the fabric's i-th HCA: HCAs of one switch are
	// consecutive ranks, switches in the generator's order.
	ByHCA Order = "hca"
	// RandomOrder lays the ranks on the HCAs by a seeded random permutation.
	RandomOrder Order = "random"
	// RoundRobin deals consecutive ranks to consecutive switches: rank 0 on
	// the first HCA of the first switch with HCAs, rank 1 on the first HCA of
	// the next, and so on, skipping switches whose HCAs are used up.
	RoundRobin Order = "round-robin"
)

// Orders lists the orders with their help texts.
func Orders() []struct{ Order, Help string } {
	return []struct{ Order, Help string }{
		{string(ByHCA), "rank i is the fabric's i-th HCA (HCAs of a switch consecutive; the default)"},
		{string(RandomOrder), "ranks laid on the HCAs by a seeded random permutation (the traffic seed)"},
		{string(RoundRobin), "consecutive ranks on consecutive switches, round robin over the switches' HCAs"},
	}
}

// ParseOrder checks an order name; "" is ByHCA.
func ParseOrder(s string) (Order, error) {
	if s == "" {
		return ByHCA, nil
	}
	var names []string
	for _, o := range Orders() {
		if o.Order == s {
			return Order(s), nil
		}
		names = append(names, o.Order)
	}
	return "", fmt.Errorf("unknown rank order %q (known: %s)", s, strings.Join(names, ", "))
}

// Layout returns the HCA of every rank under order o. switchOf[h] is the
// switch HCA h is cabled to (any value that groups HCAs by switch); rng
// draws the random order.
func Layout(o Order, switchOf []int, rng *rand.Rand) ([]int32, error) {
	n := len(switchOf)
	hca := make([]int32, n)
	for i := range hca {
		hca[i] = int32(i)
	}
	switch o {
	case ByHCA, "":
	case RandomOrder:
		rng.Shuffle(n, func(i, j int) { hca[i], hca[j] = hca[j], hca[i] })
	case RoundRobin:
		var groups [][]int32 // HCAs per switch, switches in order of first appearance
		index := map[int]int{}
		for h, s := range switchOf {
			g, ok := index[s]
			if !ok {
				g = len(groups)
				index[s] = g
				groups = append(groups, nil)
			}
			groups[g] = append(groups[g], int32(h))
		}
		hca = hca[:0]
		for round := 0; len(hca) < n; round++ {
			for _, g := range groups {
				if round < len(g) {
					hca = append(hca, g[round])
				}
			}
		}
	default:
		return nil, fmt.Errorf("unknown rank order %q", o)
	}
	return hca, nil
}
