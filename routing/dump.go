package routing

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"flitsim/fabric"
)

// WriteLFTs writes the tables in the format of OpenSM's opensm-lfts.dump,
// which OpenSM's own "file" routing engine (-R file -U FILE) loads.
func WriteLFTs(w io.Writer, net *fabric.Network, t *Tables) error {
	if err := t.check(net); err != nil {
		return err
	}
	if t.Source != nil {
		return fmt.Errorf("%s routes by source routes, which an LFT dump cannot hold (its forwarding entries are only each switch's own HCAs)", t.Engine)
	}
	byLID := net.ByLID()
	bw := bufio.NewWriter(w)
	for s := 0; s < net.NumSwitches; s++ {
		nd := &net.Nodes[s]
		fmt.Fprintf(bw, "Unicast lids [0-%d] of switch Lid %d guid 0x%016x ('%s'):\n", t.NumLIDs-1, nd.LID, nd.GUID, nd.Name)
		n := 0
		for lid := 1; lid < t.NumLIDs; lid++ {
			p := t.Port(s, uint16(lid))
			dn := byLID[lid]
			if p == NoPath || dn < 0 {
				continue
			}
			d := &net.Nodes[dn]
			kind, guid := "Switch", d.GUID
			if d.Kind == fabric.HCA {
				kind, guid = "Channel Adapter", d.PortGUID
			}
			fmt.Fprintf(bw, "0x%04x %03d # %s portguid 0x%016x: '%s'\n", lid, p, kind, guid, d.Name)
			n++
		}
		fmt.Fprintf(bw, "%d lids dumped\n", n)
	}
	return bw.Flush()
}

var (
	reLFTHeader = regexp.MustCompile(`^Unicast lids \[(0x[0-9a-fA-F]+|\d+)-(0x[0-9a-fA-F]+|\d+)\] of switch .*\bguid 0x([0-9a-fA-F]+)\b`)
	reLFTRow    = regexp.MustCompile(`^0x([0-9a-fA-F]+)\s+(\d+)(?:\s+[:#].*)?$`)
)

// LoadLFTs reads an LFT dump file for net (see ReadLFTs).
func LoadLFTs(path string, net *fabric.Network) (*Tables, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading LFT dump: %w", err)
	}
	defer f.Close()
	return ReadLFTs(f, path, net)
}

// ReadLFTs reads linear forwarding tables in OpenSM's opensm-lfts.dump
// format or the dump_lfts/ibroute format, matching switches by GUID. Switches
// the dump does not list keep empty tables (verification reports them);
// service levels are all 0. file names the source in errors.
func ReadLFTs(r io.Reader, file string, net *fabric.Network) (*Tables, error) {
	t := NewTables(net, "file")
	guidToSwitch := make(map[uint64]int, net.NumSwitches)
	for s := 0; s < net.NumSwitches; s++ {
		guidToSwitch[net.Nodes[s].GUID] = s
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	ln, cur := 0, -1
	seen := map[int]int{}
	perr := func(format string, v ...any) error {
		return &fabric.ParseError{File: file, Line: ln, Msg: fmt.Sprintf(format, v...)}
	}
	var lidLine map[uint64]int // LID → the line that routed it, for the current switch
	for sc.Scan() {
		ln++
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "":
			continue
		case strings.HasPrefix(line, "Unicast lids"):
			m := reLFTHeader.FindStringSubmatch(line)
			if m == nil {
				return nil, perr("cannot parse switch header %q", truncate(line, 80))
			}
			g, err := strconv.ParseUint(m[3], 16, 64)
			if err != nil {
				return nil, perr("bad GUID %q", m[3])
			}
			s, ok := guidToSwitch[g]
			if !ok {
				return nil, perr("switch GUID 0x%016x is not in %s", g, net.Name)
			}
			if prev, dup := seen[s]; dup {
				return nil, perr("switch 0x%016x listed twice (first at line %d)", g, prev)
			}
			seen[s] = ln
			cur = s
			lidLine = map[uint64]int{}
		case strings.HasSuffix(line, "lids dumped"), strings.HasPrefix(line, "Lid "), strings.HasPrefix(line, "Port "):
			continue
		default:
			m := reLFTRow.FindStringSubmatch(line)
			if m == nil {
				return nil, perr("cannot parse %q", truncate(line, 80))
			}
			if cur < 0 {
				return nil, perr("LFT row before any switch header")
			}
			lid, err := strconv.ParseUint(m[1], 16, 16)
			if err != nil || lid == 0 || int(lid) >= t.NumLIDs {
				return nil, perr("LID %s is not a LID of %s (1..%d)", m[1], net.Name, t.NumLIDs-1)
			}
			port, err := strconv.Atoi(m[2])
			if err != nil || port > net.Nodes[cur].Radix {
				return nil, perr("port %s: switch %q has ports 0..%d", m[2], net.Nodes[cur].Name, net.Nodes[cur].Radix)
			}
			if prev, dup := lidLine[lid]; dup {
				return nil, perr("LID %s given twice for switch %q (first at line %d)", m[1], net.Nodes[cur].Name, prev)
			}
			lidLine[lid] = ln
			t.SetPort(cur, uint16(lid), port)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, perr("%v", err)
	}
	if len(seen) == 0 {
		return nil, perr("no 'Unicast lids' switch tables found")
	}
	return t, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// WriteGUID2LID writes OpenSM's guid2lid file, which makes OpenSM keep the
// network's LIDs (each line is followed by a blank line, as OpenSM needs).
func WriteGUID2LID(w io.Writer, net *fabric.Network) error {
	bw := bufio.NewWriter(w)
	for i := range net.Nodes {
		nd := &net.Nodes[i]
		g := nd.GUID
		if nd.Kind == fabric.HCA {
			g = nd.PortGUID
		}
		fmt.Fprintf(bw, "0x%016x 0x%04x 0x%04x\n\n", g, nd.LID, nd.LID)
	}
	return bw.Flush()
}
