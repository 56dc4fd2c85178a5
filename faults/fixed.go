package faults

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"flitsim/fabric"
)

// Fixed is one failure from a fixed failure list: a switch, or a cable named
// by one end (Node, Port) or by its two switches (Node, Peer).
type Fixed struct {
	Switch bool   `json:"switch,omitempty"`
	Node   string `json:"node"`
	Port   int    `json:"port,omitempty"`
	Peer   string `json:"peer,omitempty"`
	// Where is "file:line" for error messages.
	Where string `json:"-"`
}

// LoadFixed reads a failure list file. Each non-blank line not starting
// with '#' is one of
//
//	switch NODE
//	link NODE PORT      (the cable at that port)
//	link NODE NODE      (one cable between the two switches)
//
// where NODE is a node reference (fabric.Resolver: a name, a 0x node or
// port GUID, or lid:N).
func LoadFixed(path string) ([]Fixed, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading failure list: %w", err)
	}
	defer f.Close()
	return ParseFixed(f, path)
}

// ParseFixed parses a failure list; file names the source in errors.
func ParseFixed(r io.Reader, file string) ([]Fixed, error) {
	sc := bufio.NewScanner(r)
	var out []Fixed
	ln := 0
	for sc.Scan() {
		ln++
		line := strings.TrimSpace(sc.Text())
		if i := strings.Index(line, "#"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		if line == "" {
			continue
		}
		where := fmt.Sprintf("%s:%d", file, ln)
		f := strings.Fields(line)
		switch {
		case f[0] == "switch" && len(f) == 2:
			out = append(out, Fixed{Switch: true, Node: f[1], Where: where})
		case f[0] == "link" && len(f) == 3:
			fx := Fixed{Node: f[1], Where: where}
			if p, err := strconv.Atoi(f[2]); err == nil {
				if p < 1 || p > 255 {
					return nil, fmt.Errorf("%s: port %d not in 1..255", where, p)
				}
				fx.Port = p
			} else {
				fx.Peer = f[2]
			}
			out = append(out, fx)
		default:
			return nil, fmt.Errorf("%s: want 'switch NODE', 'link NODE PORT' or 'link NODE NODE', got %q", where, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return out, nil
}

func (st *state) applyFixed(f Fixed, rec *Record) error {
	net := st.net
	where := f.Where
	if where == "" {
		where = "fixed failure"
	}
	refs := fabric.NewResolver(net)
	n, err := refs.Node(f.Node)
	if err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	if f.Switch {
		if !net.IsSwitch(n) {
			return fmt.Errorf("%s: %q is an HCA, not a switch", where, f.Node)
		}
		if st.deadNode[n] {
			return fmt.Errorf("%s: switch %q listed twice", where, f.Node)
		}
		if !st.failSwitch(n) {
			return fmt.Errorf("%s: failing switch %q would disconnect HCAs (a critical failure)", where, f.Node)
		}
		rec.Switches = append(rec.Switches, net.Nodes[n].Name)
		return nil
	}
	l := -1
	if f.Port > 0 {
		l = net.LinkAt(n, f.Port)
		if l < 0 {
			return fmt.Errorf("%s: %q port %d has no cable", where, f.Node, f.Port)
		}
	} else {
		m, err := refs.Node(f.Peer)
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		for p := 1; p <= net.Nodes[n].Radix; p++ {
			if c := net.LinkAt(n, p); c >= 0 && st.linkAlive(c) {
				if e := net.Links[c].Other(int32(n), int16(p)); int(e.Node) == m {
					l = c
					break
				}
			}
		}
		if l < 0 {
			return fmt.Errorf("%s: no live cable between %q and %q", where, f.Node, f.Peer)
		}
	}
	if !net.IsSwitchLink(l) {
		return fmt.Errorf("%s: the cable at %q is an HCA cable; only switch-to-switch cables may fail", where, f.Node)
	}
	if !st.linkAlive(l) {
		return fmt.Errorf("%s: that cable has already failed", where)
	}
	if !st.failLink(l) {
		return fmt.Errorf("%s: failing that cable would disconnect HCAs (a critical failure)", where)
	}
	rec.Links = append(rec.Links, linkOf(net, l))
	return nil
}
