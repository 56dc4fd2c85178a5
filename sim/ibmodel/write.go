package ibmodel

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"flitsim/fabric"
	"flitsim/routing"
	"flitsim/traffic"
)

// Network is the name of the NED network Write produces.
const Network = "fabric"

// noRoute is the model's forwarding entry for "no port".
const noRoute = 255

// Inputs is one run of the model: a network with its tables, the
// hardware, and the traffic.
type Inputs struct {
	Net    *fabric.Network
	Tables *routing.Tables
	HW     fabric.Hardware
	// Traffic is flitsim's pattern (its MessageBytes set); Seed the
	// traffic seed, which lays the ranks on the HCAs, draws uniform
	// destinations, and draws the sinks' hiccup phases as flitsim does.
	Traffic traffic.Spec
	Seed    uint64
	// Messages bounds the destinations written per HCA for an infinite
	// pattern drawn per message (uniform, hot spot): enough for the run.
	Messages int
	// SimTimePs is the model's sim-time-limit; StatStartPs is when its
	// sinks start counting bytes (startStatCol).
	SimTimePs, StatStartPs int64
	// Phases gives each HCA's first hiccup instant (ps), nil for the
	// model's own (every sink at 1 ns). Phases and per-destination SLs
	// need the Patched model.
	Phases []int64
	// Patched says the model has docs/ibmodel.md's addition: a per
	// destination SL vector (dstSLVecFile) and a first hiccup instant per
	// sink (hiccupFirst).
	Patched bool
	// EndWhenDone ends the model's run when its sinks have consumed every
	// flit of a finite traffic, rather than at SimTimePs (needs a model
	// with the addition's part (c), Model.Ends).
	EndWhenDone bool
	// MaxBeingSent bounds the packets one input buffer sends at once
	// (0: unbounded, flitsim's; the release's examples use 3).
	MaxBeingSent int
	// Seed set of the model's own random numbers (its uniform gaps).
	ModelSeed int
	// Set are extra ini lines "key = value" that take precedence over
	// everything Write derives (OMNeT++: the first matching line wins),
	// for experiments on the model's own parameters.
	Set []string
}

// Layout is what Write produced: the module of every HCA, in flitsim's
// HCA order, and the files.
type Layout struct {
	Dir     string
	INI     string // the run's ini file
	HCAs    int
	Packets int64 // packets the finite traffic sends in all (0: infinite)
	Flits   int64 // flits the finite traffic sends in all (0: infinite)
}

// Write writes the model's inputs for in into dir: fabric.ned,
// fabric.fdbs (+ .ini), dst.seq, dst.sl (Patched only) and run.ini.
func Write(dir string, in Inputs) (*Layout, error) {
	if err := in.check(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	ports := compactPorts(in.Net)
	lay := &Layout{Dir: dir, HCAs: in.Net.NumHCAs(), INI: filepath.Join(dir, "run.ini")}
	if err := writeFile(filepath.Join(dir, Network+".ned"), func(w io.Writer) error { return writeNED(w, in, ports) }); err != nil {
		return nil, err
	}
	if err := writeFile(filepath.Join(dir, Network+".fdbs"), func(w io.Writer) error { return writeFDBs(w, in.Net, in.Tables, ports) }); err != nil {
		return nil, err
	}
	seqs, err := destinations(in)
	if err != nil {
		return nil, err
	}
	if err := writeFile(filepath.Join(dir, "dst.seq"), func(w io.Writer) error { return writeDstSeq(w, in, seqs) }); err != nil {
		return nil, err
	}
	if in.Patched {
		if err := writeFile(filepath.Join(dir, "dst.sl"), func(w io.Writer) error { return writeSLs(w, in) }); err != nil {
			return nil, err
		}
	}
	if in.Traffic.Finite() {
		per := int64(in.HW.PacketFlits(min(in.Traffic.MessageBytes, in.HW.MTU)))
		pk := int64(packetsPerMessage(in.Traffic.MessageBytes, in.HW.MTU))
		for _, s := range seqs {
			lay.Packets += int64(len(s.dsts)) * pk
		}
		lay.Flits = lay.Packets * per
	}
	if err := writeFile(lay.INI, func(w io.Writer) error { return writeINI(w, in, seqs, dir, lay.Flits) }); err != nil {
		return nil, err
	}
	return lay, nil
}

// check refuses what the model cannot be given.
func (in Inputs) check() error {
	n, t := in.Net, in.Tables
	switch {
	case n == nil || t == nil:
		return fmt.Errorf("ibmodel: no network or no tables")
	case t.Adaptive != nil || t.Source != nil:
		return fmt.Errorf("ibmodel: %s routes per packet or by source routes; the model forwards by destination tables only", t.Engine)
	case t.HasSL2VL():
		return fmt.Errorf("ibmodel: %s's tables change a packet's VL on its way (SL-to-VL tables); the model keeps VL = SL end to end (torus-2qos: use path_vls)", t.Engine)
	case in.HW.NICWindow > 0:
		return fmt.Errorf("ibmodel: the model has no NIC window (nic_window)")
	case in.HW.BubbleVLs != 0:
		return fmt.Errorf("ibmodel: the model has no bubble flow control (bubble_vls)")
	case in.Traffic.Start != 0 || in.Traffic.BurstOn != 0:
		return fmt.Errorf("ibmodel: the model's applications start at 0 and send without bursts (start, burst_on)")
	case in.Traffic.MessageBytes <= 0:
		return fmt.Errorf("ibmodel: no message size")
	case in.Traffic.MessageBytes > in.HW.MTU && in.Traffic.MessageBytes%in.HW.MTU != 0:
		return fmt.Errorf("ibmodel: a message of %d bytes is no whole number of %d-byte packets; the model's application drops a remainder", in.Traffic.MessageBytes, in.HW.MTU)
	case in.EndWhenDone && !in.Patched:
		return fmt.Errorf("ibmodel: ending the run when done needs the patched model (docs/ibmodel.md)")
	case in.Phases != nil && !in.Patched:
		return fmt.Errorf("ibmodel: hiccup phases per sink need the patched model (docs/ibmodel.md)")
	}
	for sl := uint8(0); sl < routing.MaxVLs; sl++ {
		if t.InjectVL(sl) != sl {
			return fmt.Errorf("ibmodel: %s's HCAs map SL %d to VL %d; the model keeps VL = SL", t.Engine, sl, t.InjectVL(sl))
		}
	}
	if !in.Patched {
		for s := 0; s < n.NumSwitches; s++ {
			for lid := 0; lid < t.NumLIDs; lid++ {
				if t.SL(s, uint16(lid)) != 0 {
					return fmt.Errorf("ibmodel: %s uses SLs other than 0; the released model sends on one SL per application (patch it, docs/ibmodel.md)", t.Engine)
				}
			}
		}
	}
	for h := n.NumSwitches; h < len(n.Nodes); h++ {
		if hcaPort(n, h) < 0 {
			return fmt.Errorf("ibmodel: HCA %q has no cable", n.Nodes[h].Name)
		}
	}
	return nil
}

// compactPorts numbers each switch's cabled ports 0..k−1 in port order:
// ports[s][p] is the model's gate of port p, or -1.
func compactPorts(n *fabric.Network) [][]int {
	ports := make([][]int, n.NumSwitches)
	for s := range ports {
		ports[s] = make([]int, n.Nodes[s].Radix+1)
		k := 0
		for p := range ports[s] {
			ports[s][p] = -1
			if p > 0 && n.LinkAt(s, p) >= 0 {
				ports[s][p] = k
				k++
			}
		}
	}
	return ports
}

// hcaPort is the cabled port of HCA node h, or -1.
func hcaPort(n *fabric.Network, h int) int {
	for p := 1; p <= n.Nodes[h].Radix; p++ {
		if n.LinkAt(h, p) >= 0 {
			return p
		}
	}
	return -1
}

// wireName is the NED channel of a cable rate.
func wireName(gbps float64) string {
	return "Cable_" + strings.ReplaceAll(strconv.FormatFloat(gbps, 'f', -1, 64), ".", "_")
}

func writeNED(w io.Writer, in Inputs, ports [][]int) error {
	n, hw := in.Net, in.HW
	fmt.Fprintf(w, "// flitsim: %s, tables of %s\nimport ib_model.*;\n\n", n.Name, in.Tables.Engine)
	rates := map[float64]bool{}
	for l := range n.Links {
		rates[hw.CableGbps(n, l)] = true
	}
	var rs []float64
	for r := range rates {
		rs = append(rs, r)
	}
	sort.Float64s(rs)
	delay := float64(hw.CablePs()) / 1000
	for _, r := range rs {
		// IBWire's datarate is width × speed × 0.8 (8b/10b); a 4X wire
		// of the cable's data rate.
		fmt.Fprintf(w, "channel %s extends ib_model.IBWire\n{\n    width = 4;\n    speed = %sGbps;\n    delay = %sns;\n}\n\n",
			wireName(r), fmtFloat(r/3.2), fmtFloat(delay))
	}
	fmt.Fprintf(w, "network %s\n{\n  submodules:\n", Network)
	for h := 0; h < n.NumHCAs(); h++ {
		fmt.Fprintf(w, "    H_%d: HCA { parameters: srcLid = %d; } // %s\n", h, n.Nodes[n.NumSwitches+h].LID, n.Nodes[n.NumSwitches+h].Name)
	}
	for s := 0; s < n.NumSwitches; s++ {
		k := 0
		for _, g := range ports[s] {
			if g >= 0 {
				k++
			}
		}
		fmt.Fprintf(w, "    SW_%d: Switch { parameters: numSwitchPorts = %d; gates: port[%d]; } // %s\n", s, k, k, n.Nodes[s].Name)
	}
	fmt.Fprintf(w, "  connections:\n")
	end := func(e fabric.End) string {
		if int(e.Node) >= n.NumSwitches {
			return fmt.Sprintf("H_%d.port", int(e.Node)-n.NumSwitches)
		}
		return fmt.Sprintf("SW_%d.port[%d]", e.Node, ports[e.Node][e.Port])
	}
	for l, lk := range n.Links {
		fmt.Fprintf(w, "    %s <--> %s <--> %s;\n", end(lk.A), wireName(hw.CableGbps(n, l)), end(lk.B))
	}
	_, err := fmt.Fprintf(w, "}\n")
	return err
}

// writeFDBs writes every switch's forwarding vector over LIDs 0..MaxLID,
// as gates of the model's switch; 255 where flitsim has no route or the
// LID is a switch's own.
func writeFDBs(w io.Writer, n *fabric.Network, t *routing.Tables, ports [][]int) error {
	maxLID := int(n.MaxLID())
	vec := make([]int, maxLID+1)
	for s := 0; s < n.NumSwitches; s++ {
		for lid := range vec {
			vec[lid] = noRoute
			p := int(t.Port(s, uint16(lid)))
			if p > 0 && p < len(ports[s]) && ports[s][p] >= 0 {
				vec[lid] = ports[s][p]
			}
		}
		if err := writeVec(w, s, vec); err != nil {
			return err
		}
	}
	return nil
}

// writeVec writes one vector of the model's vector files: "idx: v v …",
// at most 16 values a line (the model reads lines into 1,024 bytes; a
// repeated index appends).
func writeVec(w io.Writer, idx int, vals []int) error {
	if len(vals) == 0 {
		_, err := fmt.Fprintf(w, "%d:\n", idx)
		return err
	}
	for i := 0; i < len(vals); i += 16 {
		var b strings.Builder
		fmt.Fprintf(&b, "%d:", idx)
		for _, v := range vals[i:min(i+16, len(vals))] {
			b.WriteString(" " + strconv.Itoa(v))
		}
		b.WriteByte('\n')
		if _, err := io.WriteString(w, b.String()); err != nil {
			return err
		}
	}
	return nil
}

// sequence is one HCA's destinations (HCA ordinals) and how the model
// walks them.
type sequence struct {
	dsts []int
	mode string // seq_once, seq_loop or param (silent)
}

// destinations draws every HCA's destinations from flitsim's traffic, as
// flitsim's simulator does: traffic.Open with the streams of the seed,
// HCA i's draws from "traffic/hca/<i>" (the gaps of lower loads are the
// model's own; flitsim's are drawn and dropped, so the destinations are
// the same).
func destinations(in Inputs) ([]sequence, error) {
	n := in.Net.NumHCAs()
	if in.Traffic.Kind.Dependent() {
		return nil, fmt.Errorf("ibmodel: %s traffic waits for deliveries, which the model's generator cannot", in.Traffic.Kind)
	}
	src, err := traffic.Open(in.Traffic, nil, in.Net.HCASwitches(), func(name string) *rand.Rand { return fabric.Stream(in.Seed, name) },
		func(int) int64 { return 1000 })
	if err != nil {
		return nil, err
	}
	seqs := make([]sequence, n)
	for i := range seqs {
		rng := fabric.Stream(in.Seed, "traffic/hca/"+strconv.Itoa(i))
		next := func() (int, bool) {
			m, st := src.Next(i, 0, rng)
			return m.Dst, st == traffic.Ready
		}
		switch k := in.Traffic.Kind; {
		case src.Counted(i):
			seqs[i].mode = "seq_once"
			for d, ok := next(); ok; d, ok = next() {
				seqs[i].dsts = append(seqs[i].dsts, d)
			}
			if len(seqs[i].dsts) == 0 {
				seqs[i].mode = "param"
			}
		case k == traffic.Shift || k == traffic.Permutation || k == traffic.BitReversal:
			d, _ := next() // the same destination every time
			seqs[i] = sequence{dsts: []int{d}, mode: "seq_loop"}
		default:
			if in.Messages <= 0 {
				return nil, fmt.Errorf("ibmodel: %s traffic draws a destination per message: give Messages", k)
			}
			seqs[i].mode = "seq_once"
			for k := 0; k < in.Messages; k++ {
				d, _ := next()
				seqs[i].dsts = append(seqs[i].dsts, d)
			}
		}
	}
	return seqs, nil
}

func (in Inputs) lidOf(h int) int { return int(in.Net.Nodes[in.Net.NumSwitches+h].LID) }

func writeDstSeq(w io.Writer, in Inputs, seqs []sequence) error {
	bw := bufio.NewWriter(w)
	for i, s := range seqs {
		lids := make([]int, len(s.dsts))
		for k, d := range s.dsts {
			lids[k] = in.lidOf(d)
		}
		if len(lids) == 0 {
			lids = []int{in.lidOf((i + 1) % len(seqs))} // never read
		}
		if err := writeVec(bw, i, lids); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// writeSLs writes each HCA's SL by destination LID (0..MaxLID): the
// tables' SL at the HCA's switch, as flitsim's HCA takes it.
func writeSLs(w io.Writer, in Inputs) error {
	bw := bufio.NewWriter(w)
	sw := in.Net.HCASwitches()
	sls := make([]int, int(in.Net.MaxLID())+1)
	for i := range sw {
		for lid := range sls {
			sls[lid] = int(in.Tables.SL(sw[i], uint16(lid)))
		}
		if err := writeVec(bw, i, sls); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// packetsPerMessage is how many packets a message of b bytes is.
func packetsPerMessage(b, mtu int) int {
	if b <= mtu {
		return 1
	}
	return b / mtu
}

func fmtFloat(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// fmtNs writes picoseconds as an ini duration in ns.
func fmtNs(ps int64) string { return fmtFloat(float64(ps)/1000) + "ns" }

// fmtUs writes picoseconds in µs, the unit of the sink's hiccup times.
func fmtUs(ps int64) string { return fmtFloat(float64(ps)/1e6) + "us" }

func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	if err := write(bw); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
