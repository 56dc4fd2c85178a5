// Package fabric models an InfiniBand-like interconnect as a multigraph of
// switches and host channel adapters (HCAs) joined by full-duplex cables, and
// owns everything that describes the hardware before any routing or
// simulation happens: topology generators, ibnetdiscover/ibsim netlist
// reading and writing, LID/GUID assignment, graph metrics and the hardware
// parameters.
//
// Node indices are dense: switches come first (0 … NumSwitches-1), then
// HCAs. Ports are numbered from 1 as on real hardware. A Link is one cable;
// its two directed channels are numbered 2·link (A→B) and 2·link+1 (B→A),
// as Channels records.
package fabric

import (
	"fmt"
	"sort"
)

// Kind tells a switch from an HCA.
type Kind uint8

const (
	// Switch is a crossbar switch with Radix ports.
	Switch Kind = iota
	// HCA is a host channel adapter: a terminal that injects and consumes traffic.
	HCA
)

// String returns "switch" or "hca".
func (k Kind) String() string {
	if k == Switch {
		return "switch"
	}
	return "hca"
}

// Node is a switch or an HCA.
type Node struct {
	Kind Kind
	// Name is the node description (what ibnetdiscover prints in quotes
	// after '#'); unique within a network.
	Name string
	// GUID is the node GUID; PortGUID is the GUID of an HCA's port 1
	// (switches answer with their node GUID on port 0).
	GUID, PortGUID uint64
	// LID is the base LID (switch port 0, or the HCA's port).
	LID uint16
	// Radix is the number of ports, numbered 1..Radix.
	Radix int
	// Level is the tree level of a fat-tree switch (0 = leaves), or -1.
	Level int
	// Coord is the position of a mesh/torus switch, or nil.
	Coord []int
	// Group and Chassis place a switch of a group topology (dragonfly,
	// cascade, aries; Network.Groups > 0): its group and, inside the group,
	// its chassis (Aries: a row of 16 routers sharing a backplane; a
	// dragonfly group is one chassis). Zero elsewhere.
	Group, Chassis int
}

// End is one end of a cable: a node and a port on it.
type End struct {
	Node int32
	Port int16
}

// Link is one full-duplex cable between two ports.
type Link struct {
	A, B End
	// Gbps is the cable's data rate per direction when its source states
	// one (an ibnetdiscover dump's 4xDDR: 16), 0 when it runs at the
	// hardware's rate for its class (Hardware.LinkFlitPs).
	Gbps float64
}

// Other returns the end of l that is not at node n (for a cable between two
// ports of the same node, the end that is not port p).
func (l Link) Other(n int32, p int16) End {
	if l.A.Node == n && l.A.Port == p {
		return l.B
	}
	return l.A
}

// Network is an immutable interconnect: nodes, ports and cables.
// Build one with a Builder, a generator (Build) or a reader.
type Network struct {
	// Name describes where the network came from (a spec string or file).
	Name  string
	Nodes []Node
	Links []Link
	// NumSwitches is the number of switches; they are Nodes[:NumSwitches].
	NumSwitches int
	// Dims and Wrap describe a generated mesh or torus: switches per
	// dimension and whether the dimension is a ring. Nil otherwise.
	Dims []int
	Wrap []bool
	// Groups is the number of groups of a group topology (Node.Group), 0
	// for the others.
	Groups int

	portBase []int32 // node → offset into portLink
	portLink []int32 // (node, port-1) → link index, -1 if unconnected
}

// LinkClass is what a cable connects in a group topology, after the
// Aries tiers (seeds/004 §2.1): rank-1 within a chassis, rank-2 between
// the chassis of a group, rank-3 between groups.
type LinkClass uint8

// The link classes.
const (
	// ClassHCA is a cable to an HCA.
	ClassHCA LinkClass = iota
	// ClassSwitch is a switch-to-switch cable of a topology without groups.
	ClassSwitch
	// ClassRank1 joins two switches of one chassis (a dragonfly's local
	// links), ClassRank2 two chassis of one group, ClassRank3 two groups.
	ClassRank1
	ClassRank2
	ClassRank3
)

// String names a class: hca, switch, rank-1, rank-2, rank-3.
func (c LinkClass) String() string {
	switch c {
	case ClassHCA:
		return "hca"
	case ClassSwitch:
		return "switch"
	case ClassRank1, ClassRank2, ClassRank3:
		return "rank-" + string(rune('1'+c-ClassRank1))
	}
	return "class?"
}

// LinkClass returns the class of cable l.
func (n *Network) LinkClass(l int) LinkClass {
	lk := n.Links[l]
	a, b := int(lk.A.Node), int(lk.B.Node)
	switch {
	case a >= n.NumSwitches || b >= n.NumSwitches:
		return ClassHCA
	case n.Groups == 0:
		return ClassSwitch
	case n.Nodes[a].Group != n.Nodes[b].Group:
		return ClassRank3
	case n.Nodes[a].Chassis != n.Nodes[b].Chassis:
		return ClassRank2
	}
	return ClassRank1
}

// NumHCAs returns the number of HCAs.
func (n *Network) NumHCAs() int { return len(n.Nodes) - n.NumSwitches }

// IsSwitch reports whether node i is a switch.
func (n *Network) IsSwitch(i int) bool { return i < n.NumSwitches }

// LinkAt returns the cable at node i port p, or -1 if the port is unconnected
// or does not exist.
func (n *Network) LinkAt(i, p int) int {
	if p < 1 || p > n.Nodes[i].Radix {
		return -1
	}
	return int(n.portLink[int(n.portBase[i])+p-1])
}

// Peer returns the far end of the cable at node i port p.
func (n *Network) Peer(i, p int) (End, bool) {
	l := n.LinkAt(i, p)
	if l < 0 {
		return End{}, false
	}
	return n.Links[l].Other(int32(i), int16(p)), true
}

// HCASwitch returns the switch an HCA is cabled to and the switch port,
// or (-1, 0) if the HCA is not connected to a switch.
func (n *Network) HCASwitch(h int) (sw, port int) {
	for p := 1; p <= n.Nodes[h].Radix; p++ {
		if e, ok := n.Peer(h, p); ok && int(e.Node) < n.NumSwitches {
			return int(e.Node), int(e.Port)
		}
	}
	return -1, 0
}

// HCASwitches returns, for HCA i (node NumSwitches+i), the switch it is
// cabled to, or -1.
func (n *Network) HCASwitches() []int {
	sw := make([]int, n.NumHCAs())
	for i := range sw {
		sw[i], _ = n.HCASwitch(n.NumSwitches + i)
	}
	return sw
}

// HCAPort returns the first connected port of HCA h (usually 1), or 0.
func (n *Network) HCAPort(h int) int {
	for p := 1; p <= n.Nodes[h].Radix; p++ {
		if n.LinkAt(h, p) >= 0 {
			return p
		}
	}
	return 0
}

// IsSwitchLink reports whether cable l joins two switches.
func (n *Network) IsSwitchLink(l int) bool {
	return int(n.Links[l].A.Node) < n.NumSwitches && int(n.Links[l].B.Node) < n.NumSwitches
}

// SwitchLinks counts the inter-switch cables (parallel cables counted each),
// as the thesis' tables do.
func (n *Network) SwitchLinks() int {
	c := 0
	for l := range n.Links {
		if n.IsSwitchLink(l) {
			c++
		}
	}
	return c
}

// HCAsOf returns the HCAs cabled to switch s, in port order.
func (n *Network) HCAsOf(s int) []int {
	var hs []int
	for p := 1; p <= n.Nodes[s].Radix; p++ {
		if e, ok := n.Peer(s, p); ok && int(e.Node) >= n.NumSwitches {
			hs = append(hs, int(e.Node))
		}
	}
	return hs
}

// MaxLID returns the largest LID in use.
func (n *Network) MaxLID() uint16 {
	var m uint16
	for i := range n.Nodes {
		if n.Nodes[i].LID > m {
			m = n.Nodes[i].LID
		}
	}
	return m
}

// ByLID returns a table LID → node index (-1 where unused), of length MaxLID+1.
func (n *Network) ByLID() []int32 {
	t := make([]int32, int(n.MaxLID())+1)
	for i := range t {
		t[i] = -1
	}
	for i := range n.Nodes {
		t[n.Nodes[i].LID] = int32(i)
	}
	return t
}

// ByName returns a table name → node index.
func (n *Network) ByName() map[string]int {
	m := make(map[string]int, len(n.Nodes))
	for i := range n.Nodes {
		m[n.Nodes[i].Name] = i
	}
	return m
}

// SwitchAdjacency returns, for every switch, its neighbouring switches with
// the number of parallel cables to each, sorted by neighbour index.
func (n *Network) SwitchAdjacency() [][]Neighbor {
	adj := make([][]Neighbor, n.NumSwitches)
	for s := 0; s < n.NumSwitches; s++ {
		for p := 1; p <= n.Nodes[s].Radix; p++ {
			e, ok := n.Peer(s, p)
			if !ok || int(e.Node) >= n.NumSwitches || int(e.Node) == s {
				continue
			}
			adj[s] = append(adj[s], Neighbor{Node: int(e.Node), Cables: 1})
		}
		sort.Slice(adj[s], func(i, j int) bool { return adj[s][i].Node < adj[s][j].Node })
		merged := adj[s][:0]
		for _, nb := range adj[s] {
			if k := len(merged); k > 0 && merged[k-1].Node == nb.Node {
				merged[k-1].Cables++
				continue
			}
			merged = append(merged, nb)
		}
		adj[s] = merged
	}
	return adj
}

// Neighbor is an adjacent switch and the number of cables to it.
type Neighbor struct {
	Node, Cables int
}

// Ports returns the total number of ports of all nodes.
func (n *Network) Ports() int { return len(n.portLink) }

// Describe returns a short human-readable summary.
func (n *Network) Describe() string {
	return fmt.Sprintf("%s: %d switches, %d HCAs, %d switch links", n.Name, n.NumSwitches, n.NumHCAs(), n.SwitchLinks())
}

// HCAsConnected reports how many HCAs the first HCA reaches over the
// network's cables (through switches), and whether that is all of them.
func (n *Network) HCAsConnected() (reached int, all bool) {
	if n.NumHCAs() == 0 {
		return 0, true
	}
	seen := make([]bool, len(n.Nodes))
	start := n.NumSwitches
	seen[start] = true
	stack := []int{start}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if v >= n.NumSwitches {
			reached++
		}
		for p := 1; p <= n.Nodes[v].Radix; p++ {
			if e, ok := n.Peer(v, p); ok && !seen[e.Node] {
				seen[e.Node] = true
				stack = append(stack, int(e.Node))
			}
		}
	}
	return reached, reached == n.NumHCAs()
}
