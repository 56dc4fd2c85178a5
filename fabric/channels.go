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
	net  *Network
	from []End   // per channel: the port it leaves (it enters from[ch^1])
	out  []int32 // per port (indexed as Network's ports): the channel leaving there, -1 unconnected
}

// NewChannels numbers the channels of n.
func NewChannels(n *Network) *Channels {
	c := &Channels{net: n, from: make([]End, 2*len(n.Links)), out: make([]int32, len(n.portLink))}
	copy(c.out, n.portLink) // -1 where unconnected; the rest is set below
	for l, lk := range n.Links {
		c.from[2*l], c.from[2*l+1] = lk.A, lk.B
		c.out[n.portBase[lk.A.Node]+int32(lk.A.Port)-1] = int32(2 * l)
		c.out[n.portBase[lk.B.Node]+int32(lk.B.Port)-1] = int32(2*l + 1)
	}
	return c
}

// Len returns the number of channels, twice the number of cables.
func (c *Channels) Len() int { return len(c.from) }

// From returns the node and port channel ch leaves.
func (c *Channels) From(ch int32) End { return c.from[ch] }

// To returns the node and port channel ch enters.
func (c *Channels) To(ch int32) End { return c.from[ch^1] }

// Link returns the cable channel ch runs on (an index into Network.Links).
func (c *Channels) Link(ch int32) int { return int(ch / 2) }

// Reverse returns the channel in the other direction of ch's cable.
func (c *Channels) Reverse(ch int32) int32 { return ch ^ 1 }

// At returns the channel leaving node at port, or -1 if the port is
// unconnected or does not exist.
func (c *Channels) At(node, port int) int32 {
	if port < 1 || port > c.net.Nodes[node].Radix {
		return -1
	}
	return c.out[int(c.net.portBase[node])+port-1]
}
