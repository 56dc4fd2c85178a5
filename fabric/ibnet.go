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
}

// ReadIBNetDiscover parses ibnetdiscover output or the short ibsim netlist
// form. Nodes are referred to by their quoted ids; a node's name is the
// description after '#' when there is one, else its id. Each cable may be
// listed from one end or both; both listings must agree. LIDs are taken from
// the file when every node has one, otherwise all are assigned anew. file
// names the source in error messages.
func ReadIBNetDiscover(r io.Reader, file string) (*Network, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	var nodes []rawNode
	var ports []rawPort
	byID := map[string]int{}
	var pendGUID, pendPortGUID uint64
	ln := 0
	perr := func(format string, v ...any) error {
		return &ParseError{File: file, Line: ln, Msg: fmt.Sprintf(format, v...)}
	}
	cur := -1
	for sc.Scan() {
		ln++
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "":
			cur = -1
			continue
		case strings.HasPrefix(line, "#"):
			continue
		case strings.HasPrefix(line, "vendid=") || strings.HasPrefix(line, "devid=") || strings.HasPrefix(line, "sysimgguid="):
			continue
		case strings.HasPrefix(line, "include ") || strings.HasPrefix(line, "do "):
			return nil, perr("ibsim %q directives are not supported; expand the file first", strings.Fields(line)[0])
		}
		if m := reGUID.FindStringSubmatch(line); m != nil {
			g, err := strconv.ParseUint(m[2], 16, 64)
			if err != nil {
				return nil, perr("bad GUID %q", m[2])
			}
			pendGUID, pendPortGUID = g, 0
			continue
		}
		if m := reHeader.FindStringSubmatch(line); m != nil {
			if m[1] == "Rt" {
				return nil, perr("routers (Rt) are not supported")
			}
			radix, err := strconv.Atoi(m[2])
			if err != nil || radix < 1 || radix > 255 {
				return nil, perr("node %q: port count %q not in 1..255", m[3], m[2])
			}
			id := m[3]
			if id == "" {
				return nil, perr("empty node id")
			}
			if prev, dup := byID[id]; dup {
				return nil, perr("node %q defined twice (first at line %d)", id, nodes[prev].line)
			}
			n := rawNode{kind: Switch, id: id, desc: id, radix: radix, line: ln, guid: pendGUID, portGUID: pendPortGUID}
			if m[1] != "Switch" {
				n.kind = HCA
			}
			rest := m[4]
			if rest != "" && !strings.HasPrefix(rest, "#") {
				return nil, perr("unexpected %q after node id", rest)
			}
			afterDesc := rest
			if d := reDesc.FindStringSubmatch(rest); d != nil {
				if d[1] != "" {
					n.desc = d[1]
				}
				afterDesc = rest[len(d[0]):]
			}
			if n.kind == Switch {
				if l := reLID.FindStringSubmatch(afterDesc); l != nil {
					v, err := strconv.Atoi(l[1])
					if err != nil || v < 1 || v > 0xBFFF {
						return nil, perr("switch %q: LID %s outside 1..%d", id, l[1], 0xBFFF)
					}
					n.lid = uint16(v)
				}
			}
			if n.guid == 0 {
				if g := reIDGUID.FindStringSubmatch(id); g != nil {
					n.guid, _ = strconv.ParseUint(g[1], 16, 64)
				}
			}
			pendGUID, pendPortGUID = 0, 0
			byID[id] = len(nodes)
			nodes = append(nodes, n)
			cur = len(nodes) - 1
			continue
		}
		if m := rePort.FindStringSubmatch(line); m != nil {
			if cur < 0 {
				return nil, perr("port line outside a node block (a blank line ends a block)")
			}
			p, err := strconv.Atoi(m[1])
			if err != nil || p < 1 || p > nodes[cur].radix {
				return nil, perr("%q has ports 1..%d, not %s", nodes[cur].id, nodes[cur].radix, m[1])
			}
			pp, err := strconv.Atoi(m[4])
			if err != nil || pp < 1 || pp > 255 {
				return nil, perr("peer port %q not in 1..255", m[4])
			}
			if m[2] != "" && nodes[cur].kind == HCA && nodes[cur].portGUID == 0 {
				nodes[cur].portGUID, _ = strconv.ParseUint(m[2], 16, 64)
			}
			rest := m[6]
			for _, f := range strings.Fields(rest) {
				if strings.HasPrefix(f, "#") {
					break
				}
				if !strings.Contains(f, "=") {
					return nil, perr("unexpected %q after peer port", f)
				}
			}
			if nodes[cur].kind == HCA {
				if i := strings.Index(rest, "#"); i >= 0 {
					own := rest[i:] // "# lid 3 lmc 0 "peer desc" lid 1 …": ours is before the quote
					if q := strings.Index(own, `"`); q >= 0 {
						own = own[:q]
					}
					if l := reLID.FindStringSubmatch(own); l != nil {
						v, err := strconv.Atoi(l[1])
						if err != nil || v < 1 || v > 0xBFFF {
							return nil, perr("%q: LID %s outside 1..%d", nodes[cur].id, l[1], 0xBFFF)
						}
						nodes[cur].lid = uint16(v)
					}
				}
			}
			ports = append(ports, rawPort{node: cur, port: p, peer: m[3], peerPort: pp, line: ln})
			continue
		}
		return nil, perr("cannot parse %q", truncate(line, 60))
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{File: file, Line: ln + 1, Msg: err.Error()}
	}
	if len(nodes) == 0 {
		return nil, &ParseError{File: file, Line: ln, Msg: "no Switch or Ca records found"}
	}
	allLIDs := true
	for i := range nodes {
		if nodes[i].lid == 0 {
			allLIDs = false
		}
	}
	b := NewBuilder("")
	for _, n := range nodes {
		nd := Node{Kind: n.kind, Name: n.desc, GUID: n.guid, PortGUID: n.portGUID, Radix: n.radix, Level: -1}
		if allLIDs {
			nd.LID = n.lid
		}
		b.AddNode(nd)
	}
	type key struct{ node, port int }
	conn := map[key]rawPort{}
	for _, p := range ports {
		ln = p.line
		peer, ok := byID[p.peer]
		if !ok {
			return nil, perr("unknown node %q", p.peer)
		}
		if p.peerPort > nodes[peer].radix {
			return nil, perr("%q has ports 1..%d, not %d", p.peer, nodes[peer].radix, p.peerPort)
		}
		me, them := key{p.node, p.port}, key{peer, p.peerPort}
		if me == them {
			return nil, perr("port cabled to itself")
		}
		if p.node == peer {
			return nil, perr("%q port %d is cabled to its own port %d: a loop carries no traffic", nodes[p.node].id, p.port, p.peerPort)
		}
		if prev, ok := conn[me]; ok {
			if prev.peer == p.peer && prev.peerPort == p.peerPort {
				continue // the same cable, listed from its other end
			}
			return nil, perr("%q port %d already cabled at line %d", nodes[p.node].id, p.port, prev.line)
		}
		if prev, ok := conn[them]; ok {
			return nil, perr("%q port %d is cabled to %q port %d at line %d", p.peer, p.peerPort, prev.peer, prev.peerPort, prev.line)
		}
		conn[me] = p
		conn[them] = rawPort{node: peer, port: p.peerPort, peer: nodes[p.node].id, peerPort: p.port, line: p.line}
		if err := b.Connect(p.node, p.port, peer, p.peerPort); err != nil {
			return nil, perr("%v", err)
		}
	}
	cabled := map[int]bool{}
	for k := range conn {
		cabled[k.node] = true
	}
	guids := map[uint64]int{}
	for i, n := range nodes {
		if n.kind == HCA && !cabled[i] {
			return nil, &ParseError{File: file, Line: n.line, Msg: fmt.Sprintf("HCA %q has no cable", n.id)}
		}
		if n.guid == 0 {
			continue
		}
		if prev, dup := guids[n.guid]; dup {
			return nil, &ParseError{File: file, Line: n.line, Msg: fmt.Sprintf("%q has GUID 0x%016x, as %q at line %d", n.id, n.guid, nodes[prev].id, nodes[prev].line)}
		}
		guids[n.guid] = i
	}
	net, err := b.Finish()
	if err != nil {
		return nil, &ParseError{File: file, Line: ln, Msg: err.Error()}
	}
	net.Name = file
	return net, nil
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
			if nd.Kind == Switch {
				pg := ""
				if pn.Kind == HCA {
					pg = fmt.Sprintf("(%x) ", pn.PortGUID)
				}
				fmt.Fprintf(bw, "[%d]\t\"%s\"[%d]%s\t\t# \"%s\" lid %d 4xQDR\n", p, pn.Name, e.Port, pg, pn.Name, pn.LID)
			} else {
				fmt.Fprintf(bw, "[%d](%x) \t\"%s\"[%d]\t\t# lid %d lmc 0 \"%s\" lid %d 4xQDR\n", p, nd.PortGUID, pn.Name, e.Port, nd.LID, pn.Name, pn.LID)
			}
		}
	}
	return bw.Flush()
}
