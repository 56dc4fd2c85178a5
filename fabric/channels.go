package fabric

// Channels numbers the directed channels of a network. A channel is one
// direction of a cable: channel 2·l leaves end A of link l and enters end B,
// channel 2·l+1 goes from B to A. Routing (channel loads, dependency
// graphs) and the simulator (one output port and input buffer per channel)
// index their per-channel state by these numbers, so they agree on them.
//
// Channels answers both ways: a channel's ends and cable, and the channel
// leaving a given (node, port). Build it once per network with
// NewChannels; it is immutable, like the Network.
type Channels struct {
	from, to []End   // per channel: the port it leaves and the port it enters
	base     []int32 // per node: offset of its port 1 in out
	out      []int32 // per (node, port): the channel leaving there, -1 unconnected
}

// NewChannels numbers the channels of n.
func NewChannels(n *Network) *Channels {
	c := &Channels{from: make([]End, 2*len(n.Links)), to: make([]End, 2*len(n.Links)),
		base: make([]int32, len(n.Nodes)+1)}
	for l, lk := range n.Links {
		c.from[2*l], c.to[2*l] = lk.A, lk.B
		c.from[2*l+1], c.to[2*l+1] = lk.B, lk.A
	}
	for i := range n.Nodes {
		c.base[i+1] = c.base[i] + int32(n.Nodes[i].Radix)
	}
	c.out = make([]int32, c.base[len(n.Nodes)])
	for i := range c.out {
		c.out[i] = -1
	}
	for ch, e := range c.from {
		c.out[c.base[e.Node]+int32(e.Port)-1] = int32(ch)
	}
	return c
}

// Len returns the number of channels, twice the number of cables.
func (c *Channels) Len() int { return len(c.from) }

// From returns the node and port channel ch leaves.
func (c *Channels) From(ch int32) End { return c.from[ch] }

// To returns the node and port channel ch enters.
func (c *Channels) To(ch int32) End { return c.to[ch] }

// Link returns the cable channel ch runs on (an index into Network.Links).
func (c *Channels) Link(ch int32) int { return int(ch / 2) }

// Reverse returns the channel in the other direction of ch's cable.
func (c *Channels) Reverse(ch int32) int32 { return ch ^ 1 }

// At returns the channel leaving node at port, or -1 if the port is
// unconnected or does not exist.
func (c *Channels) At(node, port int) int32 {
	if port < 1 || int32(port) > c.base[node+1]-c.base[node] {
		return -1
	}
	return c.out[c.base[node]+int32(port)-1]
}
