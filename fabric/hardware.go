package fabric

import (
	"fmt"
	"math/bits"

	"flitsim/fabric/param"
)

// Picoseconds per unit, for Hardware's integer times.
const (
	Nanosecond  int64 = 1000
	Microsecond int64 = 1000 * Nanosecond
)

// Hardware holds every physical parameter of the simulated fabric. The
// defaults (DefaultHardware) are those of the thesis' InfiniBand model
// (seeds/001 §4.3.2): 4X QDR links, 64-byte flits, 2,048-byte MTU, 7 m
// copper cables, 36-port cut-through switches, PCIe 2.0 x8 HCAs with hiccups.
//
// Each field declares itself once (package param): its key in a campaign's
// [hardware] table and in sim --hw, its unit, range, default and help.
// Adding a knob is adding a field here. The range bounds keep picosecond
// times from rounding to zero or overflowing.
type Hardware struct {
	// LinkGbps is the data rate per direction after line coding (4X QDR:
	// 40 Gbit/s signalling, 8b/10b → 32 Gbit/s = 4 GB/s).
	LinkGbps float64 `json:"link_gbps" param:"link_gbps" unit:"Gbit/s" range:"(0,100000]" default:"32" help:"data rate per link direction after line coding (4X QDR: 32)"`
	// Rank1Gbps, Rank2Gbps and Rank3Gbps are the rates of a group
	// topology's cable classes (LinkClass: rank-1 within a chassis, rank-2
	// between the chassis of a group, rank-3 between groups); 0 is
	// LinkGbps. Aries (seeds/004 §2.1): electrical rank-1 and rank-2 tiles
	// 5.25 GB/s = 42 Gbit/s, optical rank-3 tiles 4.7 GB/s = 37.6 Gbit/s.
	// Cables to HCAs and those of topologies without groups run at
	// LinkGbps.
	Rank1Gbps float64 `json:"rank1_gbps,omitempty" param:"rank1_gbps" unit:"Gbit/s" range:"[0,100000]" default:"0" help:"rate of rank-1 cables (within a chassis); 0: link_gbps"`
	Rank2Gbps float64 `json:"rank2_gbps,omitempty" param:"rank2_gbps" unit:"Gbit/s" range:"[0,100000]" default:"0" help:"rate of rank-2 cables (between the chassis of a group); 0: link_gbps"`
	Rank3Gbps float64 `json:"rank3_gbps,omitempty" param:"rank3_gbps" unit:"Gbit/s" range:"[0,100000]" default:"0" help:"rate of rank-3 cables (between groups); 0: link_gbps"`
	// FileRates runs each cable whose fabric file states a width and speed
	// (ibnetdiscover's 4xDDR, ibsim's w= s=; Link.Gbps) at that rate, as
	// the thesis' toolchain did (its createIBNet.py reads them per link):
	// a real fabric's degraded 1x or slower cables are simulated as such.
	// Off, every cable runs at LinkGbps or its class's rate.
	FileRates bool `json:"file_rates" param:"file_rates" default:"true" help:"cables a fabric file gives a width and speed (4xDDR) run at that rate (false: every cable at link_gbps)"`
	// FlitBytes is the credit unit.
	FlitBytes int `json:"flit_bytes" param:"flit_bytes" unit:"bytes" range:"[1,1048576]" default:"64" help:"flit size, the credit unit"`
	// MTU is the payload bytes per packet; HeaderBytes the per-packet
	// headers (LRH 8 + BTH 12 + ICRC 4 + VCRC 2 = 26).
	MTU         int `json:"mtu" param:"mtu" unit:"bytes" range:"[1,1048576]" default:"2048" help:"payload bytes per packet"`
	HeaderBytes int `json:"header_bytes" param:"header_bytes" unit:"bytes" range:"[0,1048576]" default:"26" help:"per-packet headers (LRH 8 + BTH 12 + ICRC 4 + VCRC 2)"`
	// CableMeters and PropagationPsPerMeter give the cable delay.
	CableMeters           float64 `json:"cable_m" param:"cable_m" unit:"m" range:"(0,1000000000]" default:"7" help:"cable length; 6.1 ns per meter for flits and credits"`
	PropagationPsPerMeter int64   `json:"propagation_ps_per_m" default:"6100"`
	// InputBufferFlits is each switch input buffer per VL; OutputBufferFlits
	// each switch output port's buffer between crossbar and cable. The
	// crossbar moves a packet into the output buffer only when the buffer
	// has room for all of it.
	InputBufferFlits  int `json:"input_buffer_flits" param:"input_buffer_flits" unit:"flits" range:"[1,16777216]" default:"128" help:"switch input buffer per port and VL"`
	OutputBufferFlits int `json:"output_buffer_flits" param:"output_buffer_flits" unit:"flits" range:"[1,16777216]" default:"78" help:"switch output buffer per port"`
	// CrossbarGbps is the rate at which a switch moves a packet from an input
	// buffer into an output buffer. The default, 230.4 Gbit/s (1,200 MHz ×
	// 24-byte bus), is the arbiter clock of the hcyang99/ib_model copy of the
	// Mellanox OMNeT++ InfiniBand model; the 2013 release has 250 MHz (48
	// Gbit/s) and the thesis states neither (docs/model.md, row 5). At
	// LinkGbps the crossbar has no speedup and the output buffer never holds
	// more than it sends.
	CrossbarGbps float64 `json:"crossbar_gbps" param:"crossbar_gbps" unit:"Gbit/s" range:"(0,100000]" default:"230.4" help:"rate at which a switch moves a packet into its output buffer"`
	// HCABufferFlits is an HCA's receive buffer per VL.
	HCABufferFlits int `json:"hca_buffer_flits" param:"hca_buffer_flits" unit:"flits" range:"[1,16777216]" default:"128" help:"HCA receive buffer per VL"`
	// VLs is the number of data virtual lanes available.
	VLs int `json:"vls" param:"vls" range:"[1,15]" default:"8" help:"data virtual lanes"`
	// PCIeGbps is the HCA's host bus rate (8X PCIe 2.0: 32 Gbit/s).
	PCIeGbps float64 `json:"pcie_gbps" param:"pcie_gbps" unit:"Gbit/s" range:"(0,100000]" default:"32" help:"an HCA's host bus rate, at which its sink consumes"`
	// HiccupPeriodPs and HiccupPs: every period the sink stalls for HiccupPs.
	HiccupPeriodPs int64 `json:"hiccup_period_ps" param:"hiccup_period" unit:"ps" range:"[0,1s]" default:"100ns" help:"a sink's host bus stalls once per period"`
	HiccupPs       int64 `json:"hiccup_ps" param:"hiccup" unit:"ps" range:"[0,1s]" default:"10ns" help:"how long each stall lasts (0: none)"`
	// HiccupSync brings the sinks' hiccups into step: sink i stalls from
	// φᵢ + k·period on, with φᵢ drawn per sink (seeded) from
	// [0, (1−HiccupSync)·period). 0, the default, draws from the whole
	// period: the host buses of different machines run on clocks of their
	// own. 1 puts every sink in phase, as the Mellanox OMNeT++ model does
	// (every sink's first hiccup at 1 ns); docs/model.md measures both.
	HiccupSync float64 `json:"hiccup_sync,omitempty" param:"hiccup_sync" range:"[0,1]" default:"0" help:"how far the sinks' hiccups are in step: 0 independent phases (hosts on their own clocks), 1 all in phase (the Mellanox model)"`
	// SwitchLatencyPs is the crossbar traversal time of a head flit.
	SwitchLatencyPs int64 `json:"switch_latency_ps" param:"switch_latency" unit:"ps" range:"[0,1s]" default:"0" help:"routing decision on a head flit"`
	// NICWindow is how many request packets an HCA keeps outstanding:
	// with a window every delivered packet is answered by a one-flit
	// response (a header, no payload) to its source, and a source injects
	// a packet only while fewer than NICWindow of its packets await their
	// responses. Aries NICs keep 1,024 packets of 64 bytes outstanding
	// (seeds/004 §2.4). 0: no window and no responses, the thesis' open
	// loop.
	NICWindow int `json:"nic_window,omitempty" param:"nic_window" unit:"packets" range:"[0,16777216]" default:"0" help:"request packets an HCA keeps outstanding until their one-flit responses return (0: open loop, no responses)"`
	// VOQ organises each switch input buffer (one per port and VL) as one
	// queue per output port sharing the VL's credits, as the Mellanox IB
	// model does (ibuf.cc: Q[outPort][vl]): a packet waiting for one output
	// does not block a packet for another. Without it the buffer is one
	// FIFO whose head alone competes.
	VOQ bool `json:"voq" param:"voq" default:"true" help:"switch input buffers keep a queue per output port (false: one FIFO)"`
	// ForwardAtStart lets a switch, and a sink, take a flit at the start of
	// its reception rather than once the whole flit has arrived: a head is
	// routed and crosses as soon as it begins to arrive (cut-through on
	// the header, as InfiniBand switches do and as the Mellanox model
	// does: setDeliverOnReceptionStart), a hop costs one flit time less.
	// A flit still leaves no sooner than it could have fully arrived
	// onto an equally fast cable; onto a faster cable the switch stores
	// the whole packet, and a sink finishes a flit no sooner than it has
	// fully arrived. docs/ibmodel.md measures it. On by default since the
	// figures were measured again under it (issue 48); off is the hop of
	// flitsim's figures recorded before 2026-11-30.
	ForwardAtStart bool `json:"forward_at_start,omitempty" param:"forward_at_start" default:"true" help:"a switch or sink takes a flit at the start of its reception (cut-through on the header, as InfiniBand hardware and the Mellanox model; false: once the whole flit has arrived)"`
	// WireBytes makes a packet take its bytes on a cable, headers
	// included, rather than whole flits: every flit but the last takes the
	// cable's flit time, the last (of LastFlitBytes) its share of it
	// (LastFlitPs), as InfiniBand links send bytes and count credits in
	// 64-byte blocks (a 2,074-byte packet takes 518.5 ns at 4X QDR, not 33
	// flits' 528). The Mellanox model does not: it pads every packet to
	// whole flits (false is its rule). A host bus moves the
	// last flit in its share of a flit's bus time too; credits stay one a
	// flit, and the crossbar moves whole flits. docs/ibmodel.md (row 2)
	// measures it. On by default, as ForwardAtStart.
	WireBytes bool `json:"wire_bytes,omitempty" param:"wire_bytes" default:"true" help:"a packet's last flit takes its bytes' share of a flit time on cables and host buses, as InfiniBand links send bytes (false: whole flits, as the Mellanox OMNeT++ model)"`
	// SharedInputPointer makes an output's arbiter, among the packets of
	// the VL it serves, start its round robin over the inputs after the
	// input it last granted on any VL, as the Mellanox OMNeT++ model does
	// (vlarb.cc scans every VL from LastSentPort[LastSentVL]); off, after
	// the input it last granted on that VL. docs/ibmodel.md measures it.
	SharedInputPointer bool `json:"shared_input_pointer,omitempty" param:"shared_input_pointer" default:"false" help:"an output's round robin over its inputs starts after the input last granted on any VL, as the Mellanox model's arbiter does (false: on the VL served)"`
	// BubbleVLs enables bubble flow control (seeds/003 §1, Angara) on the
	// VLs whose bit is set: on those a packet entering a torus ring (from
	// an HCA's cable, a line, or a ring of another direction) is granted
	// only with credits for itself plus one full packet, so that a ring is
	// never filled and its cyclic dependencies cannot deadlock; along a
	// ring it needs credits for itself. It needs input buffers of at least
	// two full packets.
	BubbleVLs int `json:"bubble_vls,omitempty" param:"bubble_vls" range:"[0,32767]" default:"0" help:"bit v on: bubble flow control on VL v, a packet entering a torus ring needs room for itself plus one full packet (1: VL 0; 0: none)"`
}

// HiccupSpan is the range [0, span) of the sinks' hiccup phases:
// (1 − HiccupSync) of the period, 0 when the sinks are in phase.
func (h Hardware) HiccupSpan() int64 {
	if h.HiccupSync == 0 {
		return h.HiccupPeriodPs
	}
	return int64(float64(h.HiccupPeriodPs) * (1 - h.HiccupSync))
}

// Bubble reports whether VL vl has bubble flow control.
func (h Hardware) Bubble(vl int) bool { return h.BubbleVLs>>vl&1 != 0 }

// DefaultHardware returns the thesis' parameters (the declared defaults).
func DefaultHardware() Hardware {
	var h Hardware
	param.Defaults(&h)
	return h
}

// HardwareParams returns the declarations of Hardware's parameters, in
// field order.
func HardwareParams() []param.Decl { return param.Of(&Hardware{}) }

// FlitPs returns the serialization time of one flit on a link, in ps
// (64 B at 32 Gbit/s = 16 ns).
func (h Hardware) FlitPs() int64 {
	return int64(float64(h.FlitBytes*8)*1000/h.LinkGbps + 0.5)
}

// ClassGbps returns the rate of a cable of class c: its class's rate
// (Rank1Gbps..Rank3Gbps) if set, else LinkGbps.
func (h Hardware) ClassGbps(c LinkClass) float64 {
	if r := h.classRate(c); r != 0 {
		return r
	}
	return h.LinkGbps
}

// classRate is the rate set for class c, 0 if none.
func (h Hardware) classRate(c LinkClass) float64 {
	switch c {
	case ClassRank1:
		return h.Rank1Gbps
	case ClassRank2:
		return h.Rank2Gbps
	case ClassRank3:
		return h.Rank3Gbps
	}
	return 0
}

// ClassFlitPs returns the serialization time of one flit on a cable of
// class c, in ps.
func (h Hardware) ClassFlitPs(c LinkClass) int64 {
	return int64(float64(h.FlitBytes*8)*1000/h.ClassGbps(c) + 0.5)
}

// CableGbps returns the data rate of cable l of n: its own (Link.Gbps)
// when it has one and FileRates is on, else its class's.
func (h Hardware) CableGbps(n *Network, l int) float64 {
	if g := n.Links[l].Gbps; g != 0 && h.FileRates {
		return g
	}
	return h.ClassGbps(n.LinkClass(l))
}

// LinkFlitPs returns the serialization time of one flit on cable l of n,
// in ps: at its own rate or its class's (CableGbps).
func (h Hardware) LinkFlitPs(n *Network, l int) int64 {
	return int64(float64(h.FlitBytes*8)*1000/h.CableGbps(n, l) + 0.5)
}

// CheckNetwork reports a cable of n whose own rate these parameters cannot
// run (Validate has checked the classes' rates): a flit time outside
// 1..MaxFlitPs ps, or a crossbar slower than the cable. A rate per cable
// class on a network without groups is refused too: it would change
// nothing, and a run must not look as if it had.
func (h Hardware) CheckNetwork(n *Network) error {
	if n.Groups == 0 {
		for _, r := range classRates {
			if h.classRate(r.c) != 0 {
				return &param.Error{Key: r.key, Msg: fmt.Sprintf("rates a cable class of group topologies (dragonfly, cascade, aries); this network has no groups, so it would change nothing")}
			}
		}
	}
	if !h.FileRates {
		return nil
	}
	for l, lk := range n.Links {
		if lk.Gbps == 0 {
			continue
		}
		name := func() string {
			a := &n.Nodes[lk.A.Node]
			return fmt.Sprintf("cable %q port %d", a.Name, lk.A.Port)
		}
		switch ps := h.LinkFlitPs(n, l); {
		case ps < 1 || ps > MaxFlitPs:
			return &param.Error{Key: "file_rates", Msg: fmt.Sprintf("%s: %d ps per %d-byte flit (flit_bytes), want 1..%d", name(), ps, h.FlitBytes, MaxFlitPs), Also: []string{"flit_bytes"}}
		case h.CrossbarGbps < lk.Gbps:
			return &param.Error{Key: "crossbar_gbps", Msg: fmt.Sprintf("%g is below the %g Gbit/s of %s: a cut-through switch needs a crossbar at least as fast as its links (or file_rates = false)", h.CrossbarGbps, lk.Gbps, name()), Also: []string{"file_rates"}}
		}
	}
	return nil
}

// classRates are the keys of the per-class rates, with their classes.
var classRates = []struct {
	key string
	c   LinkClass
}{{"rank1_gbps", ClassRank1}, {"rank2_gbps", ClassRank2}, {"rank3_gbps", ClassRank3}}

// PCIeFlitPs returns the time the sink's host bus needs per flit, in ps.
func (h Hardware) PCIeFlitPs() int64 {
	return int64(float64(h.FlitBytes*8)*1000/h.PCIeGbps + 0.5)
}

// CrossbarFlitPs returns the time a switch crossbar needs per flit, in ps
// (64 B at 230.4 Gbit/s ≈ 2.2 ns).
func (h Hardware) CrossbarFlitPs() int64 {
	return int64(float64(h.FlitBytes*8)*1000/h.CrossbarGbps + 0.5)
}

// CablePs returns the propagation delay of one cable, in ps (7 m → 42.7 ns).
func (h Hardware) CablePs() int64 {
	return int64(h.CableMeters*float64(h.PropagationPsPerMeter) + 0.5)
}

// PacketFlits returns the flits of a packet carrying payload bytes.
func (h Hardware) PacketFlits(payload int) int {
	return (payload + h.HeaderBytes + h.FlitBytes - 1) / h.FlitBytes
}

// LastFlitBytes returns how many bytes of a packet carrying payload bytes
// (its headers included) its last flit holds: 1..FlitBytes, a whole flit
// when they fill it (or when the packet has no bytes: it is one flit).
// Responses, requests to send and GET requests carry no payload.
func (h Hardware) LastFlitBytes(payload int) int {
	if r := (payload + h.HeaderBytes) % h.FlitBytes; r > 0 {
		return r
	}
	return h.FlitBytes
}

// LastFlitPs returns how long a packet's last flit of lastBytes bytes
// takes where a flit takes ft (a cable, or a host bus): ft, or with
// WireBytes its share of ft, rounded up (at least 1 ps).
func (h Hardware) LastFlitPs(ft int64, lastBytes int) int64 {
	if !h.WireBytes || lastBytes >= h.FlitBytes {
		return ft
	}
	return (ft*int64(lastBytes) + int64(h.FlitBytes) - 1) / int64(h.FlitBytes)
}

// PacketPs returns how long a packet carrying payload bytes takes on a
// cable of flit time ft: flits·ft, or with WireBytes its bytes' time.
func (h Hardware) PacketPs(payload int, ft int64) int64 {
	n := max(1, h.PacketFlits(payload))
	return int64(n-1)*ft + h.LastFlitPs(ft, h.LastFlitBytes(payload))
}

// MaxPacketFlits is the most flits a packet may have (the simulators count
// a packet's flits in 16 bits; a 4 KiB InfiniBand packet has 65 of 64
// bytes).
const MaxPacketFlits = 1<<16 - 1

// MaxFlitPs is the longest a flit may take on a link, through a crossbar
// or over a host bus, in ps (about 2.1 ms: the fast simulator keeps a credit
// progression's spacing in 32 bits).
const MaxFlitPs = 1<<31 - 1

// ResponseFlits returns the flits of a response (NICWindow): its headers,
// at least one flit.
func (h Hardware) ResponseFlits() int {
	return max(1, h.PacketFlits(0))
}

// Validate reports impossible parameters and combinations, each as a
// *param.Error naming the key to blame: every knob within its declared range
// (HardwareParams), then what only combinations rule out.
func (h Hardware) Validate() error {
	bad := func(key, format string, a ...any) error {
		return &param.Error{Key: key, Msg: fmt.Sprintf(format, a...)}
	}
	for _, d := range HardwareParams() {
		if err := d.Check(d.Get(&h)); err != nil {
			return err
		}
	}
	switch {
	case h.CablePs() < 1:
		return bad("cable_m", "%g m at %d ps/m is a cable delay below 1 ps: a cable needs a positive delay (a credit must take time to travel)",
			h.CableMeters, h.PropagationPsPerMeter)
	case h.HiccupPs > 0 && h.HiccupPs >= h.HiccupPeriodPs:
		return &param.Error{Key: "hiccup", Msg: fmt.Sprintf("a hiccup of %d ps every %d ps (hiccup_period) is impossible: want 0, or less than the period", h.HiccupPs, h.HiccupPeriodPs),
			Also: []string{"hiccup_period"}}
	case h.FlitPs() < 1:
		return &param.Error{Key: "link_gbps", Msg: fmt.Sprintf("%g Gbit/s moves a %d-byte flit (flit_bytes) in under 1 ps", h.LinkGbps, h.FlitBytes), Also: []string{"flit_bytes"}}
	case h.PCIeFlitPs() < 1:
		return &param.Error{Key: "pcie_gbps", Msg: fmt.Sprintf("%g Gbit/s moves a %d-byte flit (flit_bytes) in under 1 ps", h.PCIeGbps, h.FlitBytes), Also: []string{"flit_bytes"}}
	case h.CrossbarFlitPs() < 1:
		return &param.Error{Key: "crossbar_gbps", Msg: fmt.Sprintf("%g Gbit/s moves a %d-byte flit (flit_bytes) in under 1 ps", h.CrossbarGbps, h.FlitBytes), Also: []string{"flit_bytes"}}
	case h.FlitPs() > MaxFlitPs:
		return &param.Error{Key: "link_gbps", Msg: fmt.Sprintf("%g Gbit/s takes %d ps for a %d-byte flit (flit_bytes), more than the %d a flit may take", h.LinkGbps, h.FlitPs(), h.FlitBytes, MaxFlitPs), Also: []string{"flit_bytes"}}
	case h.PCIeFlitPs() > MaxFlitPs:
		return &param.Error{Key: "pcie_gbps", Msg: fmt.Sprintf("%g Gbit/s takes %d ps for a %d-byte flit (flit_bytes), more than the %d a flit may take", h.PCIeGbps, h.PCIeFlitPs(), h.FlitBytes, MaxFlitPs), Also: []string{"flit_bytes"}}
	}
	pf := h.PacketFlits(h.MTU)
	packet := []string{"mtu", "header_bytes", "flit_bytes"}
	also := func(err error, keys ...string) error {
		err.(*param.Error).Also = keys
		return err
	}
	full := fmt.Sprintf("a full packet (mtu %d + header_bytes %d in %d-byte flits, flit_bytes) is %d flits", h.MTU, h.HeaderBytes, h.FlitBytes, pf)
	if pf > MaxPacketFlits {
		return also(bad("mtu", "%s, more than the %d a packet may have", full, MaxPacketFlits), packet[1:]...)
	}
	if h.InputBufferFlits < pf {
		return also(bad("input_buffer_flits", "%d flits, but %s: credits for a whole packet could never be granted", h.InputBufferFlits, full), packet...)
	}
	if h.BubbleVLs != 0 && h.InputBufferFlits < 2*pf {
		return also(bad("bubble_vls", "bubble flow control needs switch input buffers of two full packets (%d flits), input_buffer_flits is %d; %s",
			2*pf, h.InputBufferFlits, full), append([]string{"input_buffer_flits"}, packet...)...)
	}
	if h.BubbleVLs>>h.VLs != 0 {
		return also(bad("bubble_vls", "%d sets VL %d, but the hardware has %d VLs (vls)", h.BubbleVLs, bits.Len(uint(h.BubbleVLs))-1, h.VLs), "vls")
	}
	if h.HCABufferFlits < pf {
		return also(bad("hca_buffer_flits", "%d flits, but %s: credits for a whole packet could never be granted", h.HCABufferFlits, full), packet...)
	}
	if h.OutputBufferFlits < pf {
		return also(bad("output_buffer_flits", "%d flits, but %s: the crossbar could never start one", h.OutputBufferFlits, full), packet...)
	}
	if h.CrossbarGbps < h.LinkGbps {
		return also(bad("crossbar_gbps", "%g is below link_gbps %g: a cut-through switch needs a crossbar at least as fast as its links",
			h.CrossbarGbps, h.LinkGbps), "link_gbps")
	}
	for _, r := range classRates {
		switch g := h.ClassGbps(r.c); {
		case h.ClassFlitPs(r.c) < 1:
			return also(bad(r.key, "%g Gbit/s moves a %d-byte flit (flit_bytes) in under 1 ps", g, h.FlitBytes), "flit_bytes")
		case h.ClassFlitPs(r.c) > MaxFlitPs:
			return also(bad(r.key, "%g Gbit/s takes %d ps for a %d-byte flit (flit_bytes), more than the %d a flit may take", g, h.ClassFlitPs(r.c), h.FlitBytes, MaxFlitPs), "flit_bytes")
		case h.CrossbarGbps < g:
			return also(bad("crossbar_gbps", "%g is below %s %g: a cut-through switch needs a crossbar at least as fast as its links",
				h.CrossbarGbps, r.key, g), r.key)
		}
	}
	return nil
}

// HardwareFrom returns the default hardware with the overrides s
// ("key=value,…", the keys of a campaign's [hardware] table), validated.
func HardwareFrom(s string) (Hardware, error) {
	hw := DefaultHardware()
	if err := param.SetText(s, HardwareParams(), &hw); err != nil {
		return hw, err
	}
	return hw, hw.Validate()
}
