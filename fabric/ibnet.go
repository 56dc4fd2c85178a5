package fabric

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// ParseError is a problem in a topology file, located by file and line.
type ParseError struct {
	File string
	Line int
	Msg  string
}

func (e *ParseError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// LoadFile reads a fabric from an ibnetdiscover dump or an ibsim netlist.
func LoadFile(path string) (*Network, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading topology: %w", err)
	}
	net, err := ReadIBNetDiscover(bytes.NewReader(data), path)
	if err != nil {
		return nil, err
	}
	net.Name = "file:" + path
	return net, nil
}

var (
	reHeader = regexp.MustCompile(`^(Switch|Ca|Hca|Rt)\s+(\d+)\s+"([^"]*)"\s*(.*)$`)
	// [port](portguid)? [ext N]? "peer"[peerport](peerguid)? rest
	rePort   = regexp.MustCompile(`^\[(\d+)\](?:\(([0-9a-fA-F]+)\))?(?:\[ext \d+\])?\s*"([^"]*)"\[(\d+)\](?:\(([0-9a-fA-F]+)\))?\s*(.*)$`)
	reGUID   = regexp.MustCompile(`^(switchguid|caguid|routerguid)=0x([0-9a-fA-F]+)(?:\(([0-9a-fA-F]+)\))?\s*$`)
	reLID    = regexp.MustCompile(`\blid (\d+)`)
	reDesc   = regexp.MustCompile(`^#\s*"([^"]*)"`)
	reIDGUID = regexp.MustCompile(`^[SH]-([0-9a-fA-F]{16})$`)
)

type rawNode struct {
	kind     Kind
	id       string // the quoted node id the file uses for references
	desc     string
	guid     uint64
	portGUID uint64
	lid      uint16
	radix    int
	line     int
}

type rawPort struct {
	node, port int
	peer       string
	peerPort   int
	line       int
	gbps       float64 // the rate the line states, 0 if none
}

// ReadIBNetDiscover parses ibnetdiscover output or the short ibsim netlist
// form. Nodes are referred to by their quoted ids; a node's name is the
// description after '#' when there is one and no other node has it, else
// its id. Each cable may be
// listed from one end or both; both listings must agree. LIDs are taken from
// the file when every node has one, otherwise all are assigned anew. file
// names the source in error messages.
func ReadIBNetDiscover(r io.Reader, file string) (*Network, error) {
	p := &ibnetParser{file: file, byID: map[string]int{}, cur: -1}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		p.ln++
		if err := p.line(strings.TrimSpace(sc.Text())); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{File: file, Line: p.ln + 1, Msg: err.Error()}
	}
	if len(p.nodes) == 0 {
		return nil, &ParseError{File: file, Line: p.ln, Msg: "no Switch or Ca records found"}
	}
	return p.build()
}

// ibnetParser is the state of ReadIBNetDiscover: the nodes and port lines
// read so far, in file order, and where it is.
type ibnetParser struct {
	file  string
	ln    int // the line being read, or the line of the cable being checked
	nodes []rawNode
	ports []rawPort
	byID  map[string]int
	// The GUIDs of a switchguid=/caguid= line, waiting for their node.
	pendGUID, pendPortGUID uint64
	cur                    int // the node whose block is open, or -1
}

// errorf returns a ParseError at the current line.
func (p *ibnetParser) errorf(format string, v ...any) error {
	return &ParseError{File: p.file, Line: p.ln, Msg: fmt.Sprintf(format, v...)}
}

// line reads one trimmed line of the file.
func (p *ibnetParser) line(line string) error {
	switch {
	case line == "":
		p.cur = -1
		return nil
	case strings.HasPrefix(line, "#"):
		return nil
	case strings.HasPrefix(line, "vendid=") || strings.HasPrefix(line, "devid=") || strings.HasPrefix(line, "sysimgguid="):
		return nil
	case strings.HasPrefix(line, "include ") || strings.HasPrefix(line, "do "):
		return p.errorf("ibsim %q directives are not supported; expand the file first", strings.Fields(line)[0])
	}
	if m := reGUID.FindStringSubmatch(line); m != nil {
		g, err := strconv.ParseUint(m[2], 16, 64)
		if err != nil {
			return p.errorf("bad GUID %q", m[2])
		}
		p.pendGUID, p.pendPortGUID = g, 0
		return nil
	}
	if m := reHeader.FindStringSubmatch(line); m != nil {
		return p.header(m)
	}
	if m := rePort.FindStringSubmatch(line); m != nil {
		return p.port(m)
	}
	return p.errorf("cannot parse %q", truncate(line, 60))
}

// header reads a node's first line (reHeader's match m) and opens its block.
func (p *ibnetParser) header(m []string) error {
	if m[1] == "Rt" {
		return p.errorf("routers (Rt) are not supported")
	}
	radix, err := strconv.Atoi(m[2])
	if err != nil || radix < 1 || radix > 255 {
		return p.errorf("node %q: port count %q not in 1..255", m[3], m[2])
	}
	id := m[3]
	if id == "" {
		return p.errorf("empty node id")
	}
	if prev, dup := p.byID[id]; dup {
		return p.errorf("node %q defined twice (first at line %d)", id, p.nodes[prev].line)
	}
	n := rawNode{kind: Switch, id: id, desc: id, radix: radix, line: p.ln, guid: p.pendGUID, portGUID: p.pendPortGUID}
	if m[1] != "Switch" {
		n.kind = HCA
	}
	rest := m[4]
	if rest != "" && !strings.HasPrefix(rest, "#") {
		return p.errorf("unexpected %q after node id", rest)
	}
	afterDesc := rest
	if d := reDesc.FindStringSubmatch(rest); d != nil {
		if d[1] != "" {
			n.desc = d[1]
		}
		afterDesc = rest[len(d[0]):]
	}
	if n.kind == Switch {
		if err := p.lid(&n, afterDesc, "switch "); err != nil {
			return err
		}
	}
	if n.guid == 0 {
		if g := reIDGUID.FindStringSubmatch(id); g != nil {
			n.guid, _ = strconv.ParseUint(g[1], 16, 64)
		}
	}
	p.pendGUID, p.pendPortGUID = 0, 0
	p.byID[id] = len(p.nodes)
	p.nodes = append(p.nodes, n)
	p.cur = len(p.nodes) - 1
	return nil
}

// lid sets n's LID from the first "lid N" in comment, if any; what names
// the node in the error message before its quoted id.
func (p *ibnetParser) lid(n *rawNode, comment, what string) error {
	l := reLID.FindStringSubmatch(comment)
	if l == nil {
		return nil
	}
	v, err := strconv.Atoi(l[1])
	if err != nil || v < 1 || v > 0xBFFF {
		return p.errorf("%s%q: LID %s outside 1..%d", what, n.id, l[1], 0xBFFF)
	}
	n.lid = uint16(v)
	return nil
}

// port reads a port line (rePort's match m) of the open node block.
func (p *ibnetParser) port(m []string) error {
	if p.cur < 0 {
		return p.errorf("port line outside a node block (a blank line ends a block)")
	}
	n := &p.nodes[p.cur]
	num, err := strconv.Atoi(m[1])
	if err != nil || num < 1 || num > n.radix {
		return p.errorf("%q has ports 1..%d, not %s", n.id, n.radix, m[1])
	}
	peerPort, err := strconv.Atoi(m[4])
	if err != nil || peerPort < 1 || peerPort > 255 {
		return p.errorf("peer port %q not in 1..255", m[4])
	}
	if m[2] != "" && n.kind == HCA && n.portGUID == 0 {
		n.portGUID, _ = strconv.ParseUint(m[2], 16, 64)
	}
	rest := m[6]
	for _, f := range strings.Fields(rest) {
		if strings.HasPrefix(f, "#") {
			break
		}
		if !strings.Contains(f, "=") {
			return p.errorf("unexpected %q after peer port", f)
		}
	}
	if n.kind == HCA {
		if i := strings.Index(rest, "#"); i >= 0 {
			own := rest[i:] // "# lid 3 lmc 0 "peer desc" lid 1 …": ours is before the quote
			if q := strings.Index(own, `"`); q >= 0 {
				own = own[:q]
			}
			if err := p.lid(n, own, ""); err != nil {
				return err
			}
		}
	}
	gbps, err := portRate(rest)
	if err != nil {
		return p.errorf("%q port %d: %v", n.id, num, err)
	}
	p.ports = append(p.ports, rawPort{node: p.cur, port: num, peer: m[3], peerPort: peerPort, line: p.ln, gbps: gbps})
	return nil
}

// build turns the nodes and port lines read into a network: it adds the
// nodes, cables the ports and checks what only the whole file shows.
func (p *ibnetParser) build() (*Network, error) {
	allLIDs := true
	for i := range p.nodes {
		if p.nodes[i].lid == 0 {
			allLIDs = false
		}
	}
	p.nameShared()
	b := NewBuilder("")
	for _, n := range p.nodes {
		nd := Node{Kind: n.kind, Name: n.desc, GUID: n.guid, PortGUID: n.portGUID, Radix: n.radix, Level: -1}
		if allLIDs {
			nd.LID = n.lid
		}
		b.AddNode(nd)
	}
	cabled, err := p.cable(b)
	if err != nil {
		return nil, err
	}
	if err := p.checkNodes(cabled, allLIDs); err != nil {
		return nil, err
	}
	net, err := b.Finish()
	if err != nil {
		return nil, &ParseError{File: p.file, Line: p.ln, Msg: err.Error()}
	}
	net.Name = p.file
	return net, nil
}

// portKey names a port: node index and port number.
type portKey struct{ node, port int }

// cable connects the ports in b as the port lines list them, each cable
// once, and returns the nodes with a cable. It leaves p.ln at the line of
// the last port line.
func (p *ibnetParser) cable(b *Builder) (map[int]bool, error) {
	conn := map[portKey]rawPort{}
	for _, rp := range p.ports {
		p.ln = rp.line
		peer, ok := p.byID[rp.peer]
		if !ok {
			return nil, p.errorf("unknown node %q", rp.peer)
		}
		if rp.peerPort > p.nodes[peer].radix {
			return nil, p.errorf("%q has ports 1..%d, not %d", rp.peer, p.nodes[peer].radix, rp.peerPort)
		}
		me, them := portKey{rp.node, rp.port}, portKey{peer, rp.peerPort}
		if me == them {
			return nil, p.errorf("port cabled to itself")
		}
		if rp.node == peer {
			return nil, p.errorf("%q port %d is cabled to its own port %d: a loop carries no traffic", p.nodes[rp.node].id, rp.port, rp.peerPort)
		}
		if prev, ok := conn[me]; ok {
			if prev.peer == rp.peer && prev.peerPort == rp.peerPort {
				// The same cable, listed from its other end.
				switch {
				case rp.gbps == 0 || prev.gbps == rp.gbps:
				case prev.gbps == 0:
					prev.gbps = rp.gbps
					conn[me] = prev
					if err := b.SetGbps(rp.node, rp.port, rp.gbps); err != nil {
						return nil, p.errorf("%v", err)
					}
				default:
					return nil, p.errorf("%q port %d runs at %g Gbit/s here and at %g at line %d",
						p.nodes[rp.node].id, rp.port, rp.gbps, prev.gbps, prev.line)
				}
				continue
			}
			return nil, p.errorf("%q port %d already cabled at line %d", p.nodes[rp.node].id, rp.port, prev.line)
		}
		if prev, ok := conn[them]; ok {
			return nil, p.errorf("%q port %d is cabled to %q port %d at line %d", rp.peer, rp.peerPort, prev.peer, prev.peerPort, prev.line)
		}
		conn[me] = rp
		conn[them] = rawPort{node: peer, port: rp.peerPort, peer: p.nodes[rp.node].id, peerPort: rp.port, line: rp.line, gbps: rp.gbps}
		if err := b.Connect(rp.node, rp.port, peer, rp.peerPort); err != nil {
			return nil, p.errorf("%v", err)
		}
		if rp.gbps != 0 {
			if err := b.SetGbps(rp.node, rp.port, rp.gbps); err != nil {
				return nil, p.errorf("%v", err)
			}
		}
	}
	cabled := map[int]bool{}
	for k := range conn {
		cabled[k.node] = true
	}
	return cabled, nil
}

// nameShared names by their ids the nodes whose description another node
// shares: real fabrics leave many switches with their vendor's default
// description ("Mellanox Technologies Aspen Switch"), and a name must
// name one node. The ids ibnetdiscover writes hold the GUID (S-0002c9...),
// so the name stays stable from one discovery to the next.
func (p *ibnetParser) nameShared() {
	count := map[string]int{}
	for _, n := range p.nodes {
		count[n.desc]++
	}
	for i := range p.nodes {
		if n := &p.nodes[i]; count[n.desc] > 1 {
			n.desc = n.id
		}
	}
}

// checkNodes refuses an HCA without a cable, and a name, a GUID or (when
// the file gives every node one) a LID that two nodes share; the error
// names the line of the node and what it shares.
func (p *ibnetParser) checkNodes(cabled map[int]bool, allLIDs bool) error {
	guids, names, lids := map[uint64]int{}, map[string]int{}, map[uint16]int{}
	for i, n := range p.nodes {
		at := func(key, format string, v ...any) error {
			return &ParseError{File: p.file, Line: n.line, Msg: key + ": " + fmt.Sprintf(format, v...)}
		}
		if n.kind == HCA && !cabled[i] {
			return at("cable", "HCA %q has no cable", n.id)
		}
		if prev, dup := names[n.desc]; dup {
			return at("name", "%q is named %q, as %q at line %d (node names must be unique)", n.id, n.desc, p.nodes[prev].id, p.nodes[prev].line)
		}
		names[n.desc] = i
		if allLIDs {
			if n.lid > 0xBFFF {
				return at("lid", "%q has LID %d, outside the unicast range 1..%d", n.id, n.lid, 0xBFFF)
			}
			if prev, dup := lids[n.lid]; dup {
				return at("lid", "%q has LID %d, as %q at line %d", n.id, n.lid, p.nodes[prev].id, p.nodes[prev].line)
			}
			lids[n.lid] = i
		}
		if n.guid == 0 {
			continue
		}
		if prev, dup := guids[n.guid]; dup {
			return at("guid", "%q has GUID 0x%016x, as %q at line %d", n.id, n.guid, p.nodes[prev].id, p.nodes[prev].line)
		}
		guids[n.guid] = i
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// WriteIBNetDiscover writes the network in ibnetdiscover's format, which
// ibsim loads as a netlist and ReadIBNetDiscover reads back exactly. Node
// ids are the node names; GUIDs and LIDs are written out.
func WriteIBNetDiscover(w io.Writer, n *Network) error {
	for i := range n.Nodes {
		if strings.ContainsAny(n.Nodes[i].Name, "\"\n") {
			return fmt.Errorf("node %d: name %q cannot be written (quote or newline)", i, n.Nodes[i].Name)
		}
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "#\n# Topology file: written by flitsim from %s\n# %d switches, %d HCAs, %d cables\n#\n",
		n.Name, n.NumSwitches, n.NumHCAs(), len(n.Links))
	for i := range n.Nodes {
		nd := &n.Nodes[i]
		bw.WriteString("\nvendid=0x2c9\n")
		if nd.Kind == Switch {
			fmt.Fprintf(bw, "devid=0xc738\nsysimgguid=0x%x\nswitchguid=0x%x(%x)\n", nd.GUID, nd.GUID, nd.GUID)
			fmt.Fprintf(bw, "Switch\t%d \"%s\"\t\t# \"%s\" enhanced port 0 lid %d lmc 0\n", nd.Radix, nd.Name, nd.Name, nd.LID)
		} else {
			fmt.Fprintf(bw, "devid=0x1003\nsysimgguid=0x%x\ncaguid=0x%x\n", nd.GUID, nd.GUID)
			fmt.Fprintf(bw, "Ca\t%d \"%s\"\t\t# \"%s\"\n", nd.Radix, nd.Name, nd.Name)
		}
		for p := 1; p <= nd.Radix; p++ {
			e, ok := n.Peer(i, p)
			if !ok {
				continue
			}
			pn := &n.Nodes[e.Node]
			// A cable's own rate as ibnetdiscover states it (after the
			// comment's LIDs, where ibsim ignores it); none for a cable
			// that runs at the hardware's rate.
			rate := ""
			if g := n.Links[n.LinkAt(i, p)].Gbps; g != 0 {
				if rate = RateName(g); rate == "" {
					return fmt.Errorf("%q port %d: %g Gbit/s is no InfiniBand width and speed", nd.Name, p, g)
				}
				rate = " " + rate
			}
			if nd.Kind == Switch {
				pg := ""
				if pn.Kind == HCA {
					pg = fmt.Sprintf("(%x) ", pn.PortGUID)
				}
				fmt.Fprintf(bw, "[%d]\t\"%s\"[%d]%s\t\t# \"%s\" lid %d%s\n", p, pn.Name, e.Port, pg, pn.Name, pn.LID, rate)
			} else {
				fmt.Fprintf(bw, "[%d](%x) \t\"%s\"[%d]\t\t# lid %d lmc 0 \"%s\" lid %d%s\n", p, nd.PortGUID, pn.Name, e.Port, nd.LID, pn.Name, pn.LID, rate)
			}
		}
	}
	return bw.Flush()
}
