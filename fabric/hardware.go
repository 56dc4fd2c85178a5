package fabric

import "fmt"

// Picoseconds per unit, for Hardware's integer times.
const (
	Nanosecond  int64 = 1000
	Microsecond int64 = 1000 * Nanosecond
)

// Hardware holds every physical parameter of the simulated fabric. The
// defaults (DefaultHardware) are those of the thesis' InfiniBand model
// (seeds/001 §4.3.2): 4X QDR links, 64-byte flits, 2,048-byte MTU, 7 m
// copper cables, 36-port cut-through switches, PCIe 2.0 x8 HCAs with hiccups.
type Hardware struct {
	// LinkGbps is the data rate per direction in Gbit/s after line coding
	// (4X QDR: 40 Gbit/s signalling, 8b/10b → 32 Gbit/s = 4 GB/s).
	LinkGbps float64 `toml:"link_gbps" json:"link_gbps"`
	// FlitBytes is the credit unit.
	FlitBytes int `toml:"flit_bytes" json:"flit_bytes"`
	// MTU is the payload bytes per packet; HeaderBytes the per-packet
	// headers (LRH 8 + BTH 12 + ICRC 4 + VCRC 2 = 26).
	MTU         int `toml:"mtu" json:"mtu"`
	HeaderBytes int `toml:"header_bytes" json:"header_bytes"`
	// CableMeters and PropagationPsPerMeter give the cable delay.
	CableMeters           float64 `toml:"cable_m" json:"cable_m"`
	PropagationPsPerMeter int64   `toml:"propagation_ps_per_m" json:"propagation_ps_per_m"`
	// InputBufferFlits is each switch input buffer per VL; OutputBufferFlits
	// each switch output port's buffer between crossbar and cable. The
	// crossbar moves a packet into the output buffer only when the buffer
	// has room for all of it.
	InputBufferFlits  int `toml:"input_buffer_flits" json:"input_buffer_flits"`
	OutputBufferFlits int `toml:"output_buffer_flits" json:"output_buffer_flits"`
	// CrossbarGbps is the rate at which a switch moves a packet from an input
	// buffer into an output buffer. The default, 230.4 Gbit/s (1,200 MHz ×
	// 24-byte bus), is the arbiter clock of the hcyang99/ib_model copy of the
	// Mellanox OMNeT++ InfiniBand model; the 2013 release has 250 MHz (48
	// Gbit/s) and the thesis states neither (docs/model.md, row 5). At
	// LinkGbps the crossbar has no speedup and the output buffer never holds
	// more than it sends.
	CrossbarGbps float64 `toml:"crossbar_gbps" json:"crossbar_gbps"`
	// HCABufferFlits is an HCA's receive buffer per VL.
	HCABufferFlits int `toml:"hca_buffer_flits" json:"hca_buffer_flits"`
	// VLs is the number of data virtual lanes available.
	VLs int `toml:"vls" json:"vls"`
	// PCIeGbps is the HCA's host bus rate (8X PCIe 2.0: 32 Gbit/s).
	PCIeGbps float64 `toml:"pcie_gbps" json:"pcie_gbps"`
	// HiccupPeriodPs and HiccupPs: every period the sink stalls for HiccupPs.
	HiccupPeriodPs int64 `toml:"hiccup_period_ps" json:"hiccup_period_ps"`
	HiccupPs       int64 `toml:"hiccup_ps" json:"hiccup_ps"`
	// SwitchLatencyPs is the crossbar traversal time of a head flit.
	SwitchLatencyPs int64 `toml:"switch_latency_ps" json:"switch_latency_ps"`
	// VOQ organises each switch input buffer (one per port and VL) as one
	// queue per output port sharing the VL's credits, as the Mellanox IB
	// model does (ibuf.cc: Q[outPort][vl]): a packet waiting for one output
	// does not block a packet for another. Without it the buffer is one
	// FIFO whose head alone competes.
	VOQ bool `toml:"voq" json:"voq"`
}

// DefaultHardware returns the thesis' parameters.
func DefaultHardware() Hardware {
	return Hardware{
		LinkGbps:              32,
		FlitBytes:             64,
		MTU:                   2048,
		HeaderBytes:           26,
		CableMeters:           7,
		PropagationPsPerMeter: 6100,
		InputBufferFlits:      128,
		OutputBufferFlits:     78,
		CrossbarGbps:          230.4,
		HCABufferFlits:        128,
		VLs:                   8,
		PCIeGbps:              32,
		HiccupPeriodPs:        100 * Nanosecond,
		HiccupPs:              10 * Nanosecond,
		SwitchLatencyPs:       0,
		VOQ:                   true,
	}
}

// FlitPs returns the serialization time of one flit on a link, in ps
// (64 B at 32 Gbit/s = 16 ns).
func (h Hardware) FlitPs() int64 {
	return int64(float64(h.FlitBytes*8)*1000/h.LinkGbps + 0.5)
}

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

// ParamError is an impossible hardware parameter, named by its campaign
// key so that a caller can point at the line that set it.
type ParamError struct {
	Key string
	Msg string
	// Also names the other keys of a combination that is impossible, so
	// that a caller can blame one that the user actually set.
	Also []string
}

func (e *ParamError) Error() string { return e.Key + ": " + e.Msg }

// Bounds of the hardware parameters: beyond them times in picoseconds
// would round to zero or overflow.
const (
	maxGbps        = 1e5     // 100 Tbit/s
	maxBytes       = 1 << 20 // flits, MTUs, headers
	maxFlits       = 1 << 24 // buffers
	maxTimePs      = 1e12    // 1 s: cable delays, latencies, hiccup periods
	maxCableMeters = maxTimePs / 1000
)

// Validate reports impossible parameters and combinations, each as a
// *ParamError naming the key to blame: every knob within its declared range
// (HardwareKnobs), then what only combinations rule out.
func (h Hardware) Validate() error {
	bad := func(key, format string, a ...any) error { return &ParamError{Key: key, Msg: fmt.Sprintf(format, a...)} }
	for _, k := range HardwareKnobs() {
		if err := k.Check(k.Get(&h)); err != nil {
			return err
		}
	}
	switch {
	case h.CablePs() < 1:
		return bad("cable_m", "%g m at %d ps/m is a cable delay below 1 ps: a cable needs a positive delay (a credit must take time to travel)",
			h.CableMeters, h.PropagationPsPerMeter)
	case h.HiccupPs > 0 && h.HiccupPs >= h.HiccupPeriodPs:
		return &ParamError{Key: "hiccup", Msg: fmt.Sprintf("a hiccup of %d ps every %d ps (hiccup_period) is impossible: want 0, or less than the period", h.HiccupPs, h.HiccupPeriodPs),
			Also: []string{"hiccup_period"}}
	case h.FlitPs() < 1:
		return &ParamError{Key: "link_gbps", Msg: fmt.Sprintf("%g Gbit/s moves a %d-byte flit (flit_bytes) in under 1 ps", h.LinkGbps, h.FlitBytes), Also: []string{"flit_bytes"}}
	case h.PCIeFlitPs() < 1:
		return &ParamError{Key: "pcie_gbps", Msg: fmt.Sprintf("%g Gbit/s moves a %d-byte flit (flit_bytes) in under 1 ps", h.PCIeGbps, h.FlitBytes), Also: []string{"flit_bytes"}}
	case h.CrossbarFlitPs() < 1:
		return &ParamError{Key: "crossbar_gbps", Msg: fmt.Sprintf("%g Gbit/s moves a %d-byte flit (flit_bytes) in under 1 ps", h.CrossbarGbps, h.FlitBytes), Also: []string{"flit_bytes"}}
	}
	pf := h.PacketFlits(h.MTU)
	packet := []string{"mtu", "header_bytes", "flit_bytes"}
	also := func(err error, keys ...string) error {
		err.(*ParamError).Also = keys
		return err
	}
	full := fmt.Sprintf("a full packet (mtu %d + header_bytes %d in %d-byte flits, flit_bytes) is %d flits", h.MTU, h.HeaderBytes, h.FlitBytes, pf)
	if h.InputBufferFlits < pf {
		return also(bad("input_buffer_flits", "%d flits, but %s: credits for a whole packet could never be granted", h.InputBufferFlits, full), packet...)
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
	return nil
}
