package routing

// candidates lists, for one destination switch, every switch's candidate
// output ports in arc order. Destination-based engines that balance load
// (minhop, updn) pick the least loaded candidate for every HCA; the
// candidates depend only on the HCA's switch, whose HCAs have consecutive
// LIDs, so they are listed once per switch instead of once per HCA.
type candidates struct {
	dst   int     // the destination switch listed, -1 none
	off   []int32 // switch u's candidates: ports[off[u]:off[u+1]]
	ports []int32
}

func newCandidates(switches int) *candidates {
	return &candidates{dst: -1, off: make([]int32, switches+1)}
}

// list relists the candidates for destination switch dst: add(u, ports)
// appends switch u's candidates (u ascending from 0) and returns them; an
// error from add stops the listing.
func (c *candidates) list(dst int, add func(u int, ports []int32) ([]int32, error)) error {
	c.ports = c.ports[:0]
	c.dst = -1
	for u := 0; u+1 < len(c.off); u++ {
		c.off[u] = int32(len(c.ports))
		var err error
		if c.ports, err = add(u, c.ports); err != nil {
			return err
		}
	}
	c.off[len(c.off)-1] = int32(len(c.ports))
	c.dst = dst
	return nil
}

// route fills col (a destination column) with every switch's least loaded
// candidate, the first in arc order among equals, and counts it in load.
func (c *candidates) route(col []uint8, load [][]int32) {
	for u := 0; u+1 < len(c.off); u++ {
		ports := c.ports[c.off[u]:c.off[u+1]]
		if len(ports) == 0 {
			continue
		}
		best := ports[0]
		for _, p := range ports[1:] {
			if load[u][p] < load[u][best] {
				best = p
			}
		}
		col[u] = uint8(best)
		load[u][best]++
	}
}
