package fabric

// RingDir returns the torus direction of the channel that leaves node at
// port: k for +dimension k and n+k for −dimension k (n dimensions, the
// order of seeds/003's direction list) when the channel joins two switches
// of a generated torus along a ring (a wrapped dimension of size > 2), and
// −1 otherwise: HCA cables, lines (meshes and size-2 dimensions), dark
// ports, networks without coordinates. Bubble flow control and the check
// of a routing that relies on it use it: two consecutive channels with the
// same direction are one ring.
func (n *Network) RingDir(node, port int) int {
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
	d := n.Dims[k]
	switch {
	case b[k] == (a[k]+1)%d:
		return k
	case a[k] == (b[k]+1)%d:
		return len(n.Dims) + k
	}
	return -1
}
