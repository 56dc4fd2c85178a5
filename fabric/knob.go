package fabric

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// KnobKind is the type of value a knob takes.
type KnobKind int

// The kinds of knob values.
const (
	// KnobFloat is a real number.
	KnobFloat KnobKind = iota
	// KnobInt is an integer.
	KnobInt
	// KnobDuration is a time written as a Go duration ("100ns", "10ms"),
	// held in picoseconds.
	KnobDuration
	// KnobBool is true or false.
	KnobBool
)

func (k KnobKind) String() string {
	return [...]string{"number", "integer", "duration", "boolean"}[k]
}

// Knob declares one tunable parameter once: its key in a campaign table
// (and in flags such as sim --hw), its type and unit, the values it
// accepts, and what it means. Decoding, help texts, validation and the
// bad-input tests all read the declaration.
type Knob struct {
	Key  string
	Kind KnobKind
	Unit string
	// Min and Max bound the value (durations in ps, booleans unbounded);
	// MinOpen excludes Min itself.
	Min, Max float64
	MinOpen  bool
	Help     string
}

// Check reports a value outside the knob's range (NaN and infinities
// included) as a *ParamError.
func (k Knob) Check(v float64) error {
	if k.Kind == KnobBool {
		return nil
	}
	lowOK := v > k.Min || (!k.MinOpen && v == k.Min)
	if math.IsNaN(v) || !lowOK || v > k.Max {
		return &ParamError{Key: k.Key, Msg: fmt.Sprintf("%s: want %s", k.Format(v), k.Range())}
	}
	return nil
}

// Range describes the accepted values, e.g. "a number in (0, 100000] Gbit/s".
func (k Knob) Range() string {
	open := "["
	if k.MinOpen {
		open = "("
	}
	switch k.Kind {
	case KnobBool:
		return "true or false"
	case KnobDuration:
		return fmt.Sprintf("a duration in %s%s, %s] (e.g. 100ns, 2us)", open, fmtPs(k.Min), fmtPs(k.Max))
	case KnobInt:
		return fmt.Sprintf("an integer in %s%d, %d]%s", open, int64(k.Min), int64(k.Max), unitSuffix(k.Unit))
	}
	return fmt.Sprintf("a number in %s%g, %g]%s", open, k.Min, k.Max, unitSuffix(k.Unit))
}

// Format writes a value of the knob for messages.
func (k Knob) Format(v float64) string {
	switch k.Kind {
	case KnobDuration:
		return fmtPs(v)
	case KnobInt:
		if v == math.Trunc(v) && math.Abs(v) < 1<<62 {
			return strconv.FormatInt(int64(v), 10) + unitSuffix(k.Unit)
		}
	case KnobBool:
		return strconv.FormatBool(v != 0)
	}
	return strconv.FormatFloat(v, 'g', -1, 64) + unitSuffix(k.Unit)
}

func unitSuffix(u string) string {
	if u == "" {
		return ""
	}
	return " " + u
}

func fmtPs(ps float64) string {
	if ps == 0 {
		return "0s"
	}
	if math.Abs(ps) < 1000 || math.IsNaN(ps) || math.IsInf(ps, 0) {
		return strconv.FormatFloat(ps, 'g', -1, 64) + "ps"
	}
	return time.Duration(ps / 1000).String()
}

// ParseKnob reads a value of the knob from text (a flag's value): numbers
// for numbers and integers, Go durations for durations ("0" is zero),
// true/false for booleans.
func ParseKnob(k Knob, s string) (float64, error) {
	s = strings.TrimSpace(s)
	bad := func() (float64, error) {
		return 0, &ParamError{Key: k.Key, Msg: fmt.Sprintf("%q: want %s", s, k.Range())}
	}
	switch k.Kind {
	case KnobBool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return bad()
		}
		if b {
			return 1, nil
		}
		return 0, nil
	case KnobDuration:
		ps, ok := ParseDurationPs(s)
		if !ok {
			return bad()
		}
		return ps, k.Check(ps)
	case KnobInt:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return bad()
		}
		return float64(n), k.Check(float64(n))
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return bad()
	}
	return x, k.Check(x)
}

// ParseDurationPs reads a Go duration ("100ns", "1.5us", "0") as
// picoseconds; durations beyond the time.Duration range (about 292 years)
// are refused.
func ParseDurationPs(s string) (float64, bool) {
	if s == "0" {
		return 0, true
	}
	d, err := time.ParseDuration(strings.ReplaceAll(s, "µ", "u"))
	if err != nil {
		return 0, false
	}
	return float64(d.Nanoseconds()) * 1000, true
}

// HardwareKnob is a Knob of Hardware with its accessors.
type HardwareKnob struct {
	Knob
	Get func(*Hardware) float64
	Set func(*Hardware, float64)
}

// HardwareKnobs declares every hardware parameter a campaign's [hardware]
// table (and sim --hw) may set, in a fixed order.
func HardwareKnobs() []HardwareKnob {
	f := func(key, unit string, min, max float64, minOpen bool, help string, p func(*Hardware) *float64) HardwareKnob {
		return HardwareKnob{Knob{Key: key, Kind: KnobFloat, Unit: unit, Min: min, Max: max, MinOpen: minOpen, Help: help},
			func(h *Hardware) float64 { return *p(h) }, func(h *Hardware, v float64) { *p(h) = v }}
	}
	n := func(key, unit string, min, max float64, help string, p func(*Hardware) *int) HardwareKnob {
		return HardwareKnob{Knob{Key: key, Kind: KnobInt, Unit: unit, Min: min, Max: max, Help: help},
			func(h *Hardware) float64 { return float64(*p(h)) }, func(h *Hardware, v float64) { *p(h) = int(v) }}
	}
	d := func(key string, help string, p func(*Hardware) *int64) HardwareKnob {
		return HardwareKnob{Knob{Key: key, Kind: KnobDuration, Min: 0, Max: maxTimePs, Help: help},
			func(h *Hardware) float64 { return float64(*p(h)) }, func(h *Hardware, v float64) { *p(h) = int64(v) }}
	}
	return []HardwareKnob{
		f("link_gbps", "Gbit/s", 0, maxGbps, true, "data rate per link direction after line coding (4X QDR: 32)", func(h *Hardware) *float64 { return &h.LinkGbps }),
		n("flit_bytes", "bytes", 1, maxBytes, "flit size, the credit unit", func(h *Hardware) *int { return &h.FlitBytes }),
		n("mtu", "bytes", 1, maxBytes, "payload bytes per packet", func(h *Hardware) *int { return &h.MTU }),
		n("header_bytes", "bytes", 0, maxBytes, "per-packet headers (LRH 8 + BTH 12 + ICRC 4 + VCRC 2)", func(h *Hardware) *int { return &h.HeaderBytes }),
		f("cable_m", "m", 0, maxCableMeters, true, "cable length; 6.1 ns per meter for flits and credits", func(h *Hardware) *float64 { return &h.CableMeters }),
		n("input_buffer_flits", "flits", 1, maxFlits, "switch input buffer per port and VL", func(h *Hardware) *int { return &h.InputBufferFlits }),
		n("output_buffer_flits", "flits", 1, maxFlits, "switch output buffer per port", func(h *Hardware) *int { return &h.OutputBufferFlits }),
		f("crossbar_gbps", "Gbit/s", 0, maxGbps, true, "rate at which a switch moves a packet into its output buffer", func(h *Hardware) *float64 { return &h.CrossbarGbps }),
		n("hca_buffer_flits", "flits", 1, maxFlits, "HCA receive buffer per VL", func(h *Hardware) *int { return &h.HCABufferFlits }),
		n("vls", "", 1, 15, "data virtual lanes", func(h *Hardware) *int { return &h.VLs }),
		f("pcie_gbps", "Gbit/s", 0, maxGbps, true, "an HCA's host bus rate, at which its sink consumes", func(h *Hardware) *float64 { return &h.PCIeGbps }),
		d("hiccup_period", "a sink's host bus stalls once per period", func(h *Hardware) *int64 { return &h.HiccupPeriodPs }),
		d("hiccup", "how long each stall lasts (0: none)", func(h *Hardware) *int64 { return &h.HiccupPs }),
		d("switch_latency", "routing decision on a head flit", func(h *Hardware) *int64 { return &h.SwitchLatencyPs }),
		{Knob{Key: "voq", Kind: KnobBool, Help: "switch input buffers keep a queue per output port (false: one FIFO)"},
			func(h *Hardware) float64 {
				if h.VOQ {
					return 1
				}
				return 0
			}, func(h *Hardware, v float64) { h.VOQ = v != 0 }},
	}
}
