package fabric

import (
	"fmt"
	"sort"
	"strconv"
)

// Default GUID prefixes for generated fabrics. Switch i gets
// SwitchGUIDBase+i+1; HCA j gets HCAGUIDBase+2(j+1) with port GUID one higher,
// the way Mellanox HCAs number their ports.
const (
	SwitchGUIDBase uint64 = 0x0002c90200000000
	HCAGUIDBase    uint64 = 0x0002c90300000000
)

// Builder assembles a Network. Nodes may be added in any order; Finish puts
// switches first (keeping the order within each kind), assigns missing LIDs
// (switches first, then HCAs, from 1) and GUIDs, and validates the result.
type Builder struct {
	name  string
	nodes []Node
	ports [][]int32 // node → port-1 → link, -1 free
	links []Link
	err   error
}

// NewBuilder starts an empty network called name.
// MaxLIDs is the number of unicast LIDs (0x0001–0xBFFF): one subnet holds
// at most this many switches and HCAs together.
const MaxLIDs = 0xBFFF

// checkLIDs reports a design whose switches and HCAs cannot all get a
// unicast LID; generators call it before they allocate anything.
func checkLIDs(switches, hcas int) error {
	if switches+hcas <= MaxLIDs {
		return nil
	}
	count := func(n int) string {
		if n > MaxLIDs { // may be a capped product
			return fmt.Sprintf("more than %d", MaxLIDs)
		}
		return strconv.Itoa(n)
	}
	return fmt.Errorf("%s switches + %s HCAs exceed the %d unicast LIDs of one subnet", count(switches), count(hcas), MaxLIDs)
}

// mulCap returns a·b, or cap+1 when the product exceeds cap (no overflow).
func mulCap(a, b, cap int) int {
	if a != 0 && b > cap/a {
		return cap + 1
	}
	return a * b
}

func NewBuilder(name string) *Builder { return &Builder{name: name} }

// AddSwitch adds a switch with radix ports and returns its (provisional) index.
func (b *Builder) AddSwitch(name string, radix int) int {
	return b.AddNode(Node{Kind: Switch, Name: name, Radix: radix, Level: -1})
}

// AddHCA adds a single-port HCA and returns its (provisional) index.
func (b *Builder) AddHCA(name string) int {
	return b.AddNode(Node{Kind: HCA, Name: name, Radix: 1, Level: -1})
}

// AddNode adds a fully described node and returns its (provisional) index.
func (b *Builder) AddNode(n Node) int {
	if n.Radix < 1 && b.err == nil {
		b.err = fmt.Errorf("node %q: radix %d, need at least 1 port", n.Name, n.Radix)
	}
	b.nodes = append(b.nodes, n)
	p := make([]int32, max(n.Radix, 0))
	for i := range p {
		p[i] = -1
	}
	b.ports = append(b.ports, p)
	return len(b.nodes) - 1
}

// Node returns a pointer to node i for adjusting its fields before Finish.
func (b *Builder) Node(i int) *Node { return &b.nodes[i] }

// NumNodes returns the number of nodes added so far.
func (b *Builder) NumNodes() int { return len(b.nodes) }

// FreePorts returns the number of unconnected ports of node i.
func (b *Builder) FreePorts(i int) int {
	c := 0
	for _, l := range b.ports[i] {
		if l < 0 {
			c++
		}
	}
	return c
}

// PortUsed reports whether port p of node i is already cabled.
func (b *Builder) PortUsed(i, p int) bool {
	return p >= 1 && p <= len(b.ports[i]) && b.ports[i][p-1] >= 0
}

// Connect cables node a port pa to node c port pc.
func (b *Builder) Connect(a, pa, c, pc int) error {
	if err := b.checkPort(a, pa); err != nil {
		return err
	}
	if err := b.checkPort(c, pc); err != nil {
		return err
	}
	if a == c && pa == pc {
		return fmt.Errorf("%s port %d: cable to itself", b.nodes[a].Name, pa)
	}
	l := int32(len(b.links))
	b.links = append(b.links, Link{A: End{int32(a), int16(pa)}, B: End{int32(c), int16(pc)}})
	b.ports[a][pa-1] = l
	b.ports[c][pc-1] = l
	return nil
}

// SetGbps gives the cable at node a port pa its own data rate (see
// Link.Gbps).
func (b *Builder) SetGbps(a, pa int, gbps float64) error {
	if a < 0 || a >= len(b.nodes) || pa < 1 || pa > len(b.ports[a]) || b.ports[a][pa-1] < 0 {
		return fmt.Errorf("node %d port %d: no cable to rate", a, pa)
	}
	if !(gbps >= 0) {
		return fmt.Errorf("%s port %d: rate %g Gbit/s", b.nodes[a].Name, pa, gbps)
	}
	b.links[b.ports[a][pa-1]].Gbps = gbps
	return nil
}

func (b *Builder) checkPort(i, p int) error {
	if i < 0 || i >= len(b.nodes) {
		return fmt.Errorf("node index %d out of range", i)
	}
	if p < 1 || p > len(b.ports[i]) {
		return fmt.Errorf("%s %q has ports 1..%d, not %d", b.nodes[i].Kind, b.nodes[i].Name, len(b.ports[i]), p)
	}
	if b.ports[i][p-1] >= 0 {
		return fmt.Errorf("%s %q port %d is cabled twice", b.nodes[i].Kind, b.nodes[i].Name, p)
	}
	return nil
}

// Link cables the lowest free port of a to the lowest free port of c.
func (b *Builder) Link(a, c int) error {
	pa := b.freePort(a, 0)
	skip := 0
	if a == c {
		skip = pa
	}
	pc := b.freePort(c, skip)
	if pa == 0 || pc == 0 {
		who := a
		if pa != 0 {
			who = c
		}
		return fmt.Errorf("%s %q: all %d ports in use", b.nodes[who].Kind, b.nodes[who].Name, len(b.ports[who]))
	}
	return b.Connect(a, pa, c, pc)
}

func (b *Builder) freePort(i, skip int) int {
	for p, l := range b.ports[i] {
		if l < 0 && p+1 != skip {
			return p + 1
		}
	}
	return 0
}

// Finish validates and returns the network. The builder must not be used
// afterwards.
func (b *Builder) Finish() (*Network, error) {
	if b.err != nil {
		return nil, b.err
	}
	// Switches first, then HCAs, stable within each kind.
	perm := make([]int, 0, len(b.nodes)) // new → old
	for i := range b.nodes {
		if b.nodes[i].Kind == Switch {
			perm = append(perm, i)
		}
	}
	ns := len(perm)
	if ns == 0 {
		return nil, fmt.Errorf("%s: network has no switch", b.name)
	}
	for i := range b.nodes {
		if b.nodes[i].Kind != Switch {
			perm = append(perm, i)
		}
	}
	inv := make([]int32, len(b.nodes))
	for nw, old := range perm {
		inv[old] = int32(nw)
	}
	net := &Network{Name: b.name, NumSwitches: ns, Nodes: make([]Node, len(b.nodes)), Links: b.links}
	net.portBase = make([]int32, len(b.nodes))
	total := 0
	for nw, old := range perm {
		net.Nodes[nw] = b.nodes[old]
		net.portBase[nw] = int32(total)
		total += b.nodes[old].Radix
	}
	net.portLink = make([]int32, 0, total)
	for _, old := range perm {
		net.portLink = append(net.portLink, b.ports[old]...)
	}
	// Canonical cable order, whatever order the cables were added in: each
	// cable from its lower (node, port) end, cables sorted by that end.
	for i := range net.Links {
		lk := &net.Links[i]
		lk.A.Node, lk.B.Node = inv[lk.A.Node], inv[lk.B.Node]
		if lk.B.Node < lk.A.Node || (lk.B.Node == lk.A.Node && lk.B.Port < lk.A.Port) {
			lk.A, lk.B = lk.B, lk.A
		}
	}
	sort.Slice(net.Links, func(i, j int) bool {
		a, b := net.Links[i].A, net.Links[j].A
		return a.Node < b.Node || (a.Node == b.Node && a.Port < b.Port)
	})
	for i, lk := range net.Links {
		net.portLink[int(net.portBase[lk.A.Node])+int(lk.A.Port)-1] = int32(i)
		net.portLink[int(net.portBase[lk.B.Node])+int(lk.B.Port)-1] = int32(i)
	}
	if err := net.assignIDs(); err != nil {
		return nil, err
	}
	if err := net.validate(); err != nil {
		return nil, err
	}
	return net, nil
}

// assignIDs fills in missing LIDs and GUIDs deterministically.
func (n *Network) assignIDs() error {
	missingLID := false
	for i := range n.Nodes {
		if n.Nodes[i].LID == 0 {
			missingLID = true
		}
	}
	if missingLID {
		if len(n.Nodes) > MaxLIDs {
			return fmt.Errorf("%s: %d nodes exceed the %d unicast LIDs", n.Name, len(n.Nodes), MaxLIDs)
		}
		for i := range n.Nodes {
			n.Nodes[i].LID = uint16(i + 1)
		}
	}
	for i := range n.Nodes {
		nd := &n.Nodes[i]
		if nd.GUID == 0 {
			if nd.Kind == Switch {
				nd.GUID = SwitchGUIDBase + uint64(i) + 1
			} else {
				nd.GUID = HCAGUIDBase + 2*uint64(i-n.NumSwitches+1)
			}
		}
		if nd.Kind == HCA && nd.PortGUID == 0 {
			nd.PortGUID = nd.GUID + 1
		}
	}
	return nil
}

// errorf is an error of the network, prefixed with its name when it has one.
func (n *Network) errorf(format string, v ...any) error {
	if n.Name == "" {
		return fmt.Errorf(format, v...)
	}
	return fmt.Errorf("%s: "+format, append([]any{n.Name}, v...)...)
}

func (n *Network) validate() error {
	names := make(map[string]int, len(n.Nodes))
	lids := make(map[uint16]int, len(n.Nodes))
	guids := make(map[uint64]int, len(n.Nodes))
	for i := range n.Nodes {
		nd := &n.Nodes[i]
		if nd.Name == "" {
			return n.errorf("node %d has no name", i)
		}
		if j, ok := names[nd.Name]; ok {
			return n.errorf("name %q used by nodes %d and %d", nd.Name, j, i)
		}
		names[nd.Name] = i
		if nd.LID == 0 || nd.LID > 0xBFFF {
			return n.errorf("%q has LID %d, outside the unicast range 1..%d", nd.Name, nd.LID, 0xBFFF)
		}
		if j, ok := lids[nd.LID]; ok {
			return n.errorf("LID %d used by %q and %q", nd.LID, n.Nodes[j].Name, nd.Name)
		}
		lids[nd.LID] = i
		if j, ok := guids[nd.GUID]; ok {
			return n.errorf("GUID %#016x used by %q and %q", nd.GUID, n.Nodes[j].Name, nd.Name)
		}
		guids[nd.GUID] = i
	}
	for l, lk := range n.Links {
		if int(lk.A.Node) >= n.NumSwitches && int(lk.B.Node) >= n.NumSwitches {
			return n.errorf("cable %d joins two HCAs (%q, %q)", l, n.Nodes[lk.A.Node].Name, n.Nodes[lk.B.Node].Name)
		}
	}
	for h := n.NumSwitches; h < len(n.Nodes); h++ {
		c := 0
		for p := 1; p <= n.Nodes[h].Radix; p++ {
			if n.LinkAt(h, p) >= 0 {
				c++
			}
		}
		if c > 1 {
			return n.errorf("HCA %q has %d connected ports; flitsim models single-port HCAs (list each port as its own HCA)", n.Nodes[h].Name, c)
		}
	}
	return nil
}
