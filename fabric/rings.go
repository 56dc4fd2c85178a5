package fabric

// Ring returns the ring of the channel that leaves node at port, when the
// channel joins two switches of a generated torus along a ring (a wrapped
// dimension of size > 2), and −1 otherwise: HCA cables, lines (meshes and
// size-2 dimensions), dark ports, networks without coordinates. A ring is
// one direction along one line of the torus over one of its parallel
// cables: the ring's number is d + 2n·j for direction d (k for
// +dimension k, n+k for −dimension k, n dimensions, seeds/003's direction
// order) and the cable's rank j among the live cables from node to the
// same neighbour (by port). A packet going from one channel to the next
// with the same ring stays in its ring; bubble flow control and the check
// of a routing that relies on it use it.
func (n *Network) Ring(node, port int) int {
	if len(n.Dims) == 0 || node < 0 || node >= n.NumSwitches {
		return -1
	}
	e, ok := n.Peer(node, port)
	if !ok || int(e.Node) >= n.NumSwitches {
		return -1
	}
	a, b := n.Nodes[node].Coord, n.Nodes[e.Node].Coord
	if len(a) != len(n.Dims) || len(b) != len(n.Dims) {
		return -1
	}
	k := -1
	for i := range a {
		if a[i] != b[i] {
			if k >= 0 {
				return -1
			}
			k = i
		}
	}
	if k < 0 || k >= len(n.Wrap) || !n.Wrap[k] || n.Dims[k] <= 2 {
		return -1
	}
	d, dir := n.Dims[k], -1
	switch {
	case b[k] == (a[k]+1)%d:
		dir = k
	case a[k] == (b[k]+1)%d:
		dir = len(n.Dims) + k
	default:
		return -1
	}
	rank := 0
	for p := 1; p < port; p++ {
		if f, ok := n.Peer(node, p); ok && f.Node == e.Node {
			rank++
		}
	}
	return dir + 2*len(n.Dims)*rank
}
