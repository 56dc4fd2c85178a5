package fabric

import "fmt"

// Without returns a copy of n without the cables marked in dropLink and the
// nodes marked in dropNode (cables at dropped nodes go with them). Names,
// GUIDs, LIDs, port numbers and generator metadata of what remains are kept,
// so forwarding tables and fault records keep referring to the same things.
// Either slice may be nil.
func (n *Network) Without(dropLink, dropNode []bool) (*Network, error) {
	b := NewBuilder(n.Name)
	idx := make([]int, len(n.Nodes))
	for i := range n.Nodes {
		idx[i] = -1
		if dropNode != nil && dropNode[i] {
			continue
		}
		nd := n.Nodes[i]
		if nd.Coord != nil {
			nd.Coord = append([]int(nil), nd.Coord...)
		}
		idx[i] = b.AddNode(nd)
	}
	for l, lk := range n.Links {
		if dropLink != nil && dropLink[l] {
			continue
		}
		a, c := idx[lk.A.Node], idx[lk.B.Node]
		if a < 0 || c < 0 {
			continue
		}
		if err := b.Connect(a, int(lk.A.Port), c, int(lk.B.Port)); err != nil {
			return nil, err
		}
		if lk.Gbps != 0 {
			if err := b.SetGbps(a, int(lk.A.Port), lk.Gbps); err != nil {
				return nil, err
			}
		}
	}
	out, err := b.Finish()
	if err != nil {
		return nil, err
	}
	out.Dims, out.Wrap, out.Groups = n.Dims, n.Wrap, n.Groups
	return out, nil
}

// WithCableRates returns a copy of n whose cable l runs at gbps[l] Gbit/s
// (0: the hardware's rate for its class), as if a fabric file stated them.
func (n *Network) WithCableRates(gbps []float64) (*Network, error) {
	if len(gbps) != len(n.Links) {
		return nil, fmt.Errorf("%d rates for %d cables", len(gbps), len(n.Links))
	}
	out := *n
	out.Links = make([]Link, len(n.Links))
	for l, lk := range n.Links {
		if !(gbps[l] >= 0) {
			return nil, fmt.Errorf("cable %d: rate %g Gbit/s", l, gbps[l])
		}
		lk.Gbps = gbps[l]
		out.Links[l] = lk
	}
	return &out, nil
}
