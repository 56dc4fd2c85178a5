// Package configs reads campaign files: TOML sweeps of topologies × failure
// levels × seeds × routings × traffic, decoded strictly (an unknown key, a
// wrong type, an unknown engine or topology kind is an error naming the file,
// line and key), and expands them into a deterministic, ordered list of
// points. The campaigns that ship with flitsim are embedded.
package configs

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"flitsim/fabric"
	"flitsim/routing"
	"flitsim/routing/opensm"
	"flitsim/sim"
	"flitsim/traffic"
)

// Campaign is a decoded campaign file.
type Campaign struct {
	Name        string `toml:"name" json:"name"`
	Description string `toml:"description" json:"description,omitempty"`
	// Seeds are the failure draws per failure level (and the traffic seeds);
	// a traffic entry may override them.
	Seeds      []uint64        `toml:"seeds" json:"seeds"`
	Topologies []TopologyEntry `toml:"topology" json:"topologies"`
	// Faults are one [faults] table or several [[faults]] tables (say
	// link-only, switch-only and mixed failures of one system); every
	// entry is swept over every topology.
	Faults   []FaultsEntry  `toml:"-" json:"faults"`
	Routings []RoutingEntry `toml:"routing" json:"routings"`
	Traffic  []TrafficEntry `toml:"traffic" json:"traffic"`
	Hardware HardwareEntry  `toml:"hardware" json:"hardware"`
	Sim      SimEntry       `toml:"sim" json:"sim"`

	// Source is the file (or embedded name) the campaign came from.
	Source string `toml:"-" json:"-"`
	// dir resolves relative paths in the file.
	dir string
}

// TopologyEntry names one topology.
type TopologyEntry struct {
	// Spec is a topology spec (kind:key=value,…) or file:PATH.
	Spec string `toml:"spec" json:"spec"`
	// Label is a short name for tables (default: the spec).
	Label string `toml:"label" json:"label,omitempty"`
}

// FaultsEntry says what fails.
type FaultsEntry struct {
	// Kind is links, switches or mixed.
	Kind string `toml:"kind" json:"kind"`
	// Label names the entry in keys and tables (default: the kind, with
	// the ratio for mixed failures, e.g. "mixed 1:13").
	Label string `toml:"label" json:"label,omitempty"`
	// Percent lists the failure levels.
	Percent []float64 `toml:"percent" json:"percent"`
	// Ratio is the switch:link ratio of mixed failures, e.g. "1:13".
	Ratio string `toml:"ratio" json:"ratio,omitempty"`
	// TakeHCAs lets switches with HCAs fail (their HCAs leave the workload).
	TakeHCAs bool `toml:"take_hcas" json:"take_hcas,omitempty"`
	// Fixed is a failure list file applied before the random failures.
	Fixed string `toml:"fixed" json:"fixed,omitempty"`
}

// RoutingEntry is one routing engine with its parameters.
type RoutingEntry struct {
	Engine string   `toml:"engine" json:"engine"`
	VLs    int      `toml:"vls" json:"vls,omitempty"`
	Roots  []string `toml:"roots" json:"roots,omitempty"`
	// Label distinguishes several entries of one engine (default: engine,
	// plus the VLs when given).
	Label string `toml:"label" json:"label,omitempty"`
}

// TrafficEntry is one traffic pattern.
type TrafficEntry struct {
	Kind string `toml:"kind" json:"kind"`
	// MsgBytes is a size: bytes as a number, or a string like "10MTU", "2KiB".
	MsgBytes any     `toml:"msg_bytes" json:"msg_bytes,omitempty"`
	Load     float64 `toml:"load" json:"load,omitempty"`
	Distance int     `toml:"distance" json:"distance,omitempty"`
	// MaxTime bounds each simulation, e.g. "10ms" (default 10 ms for
	// infinite traffic, 10 s for the exchange, which ends by itself).
	MaxTime string `toml:"max_time" json:"max_time,omitempty"`
	// Seeds overrides the campaign's seeds for this pattern.
	Seeds []uint64 `toml:"seeds" json:"seeds,omitempty"`
}

// HardwareEntry overrides hardware parameters; zero values keep the
// defaults of fabric.DefaultHardware.
type HardwareEntry struct {
	LinkGbps  float64 `toml:"link_gbps" json:"link_gbps,omitempty"`
	FlitBytes int     `toml:"flit_bytes" json:"flit_bytes,omitempty"`
	MTU       int     `toml:"mtu" json:"mtu,omitempty"`
	// HeaderBytes are the per-packet headers (LRH, BTH, ICRC, VCRC: 26).
	HeaderBytes       *int    `toml:"header_bytes" json:"header_bytes,omitempty"`
	CableMeters       float64 `toml:"cable_m" json:"cable_m,omitempty"`
	InputBufferFlits  int     `toml:"input_buffer_flits" json:"input_buffer_flits,omitempty"`
	OutputBufferFlits int     `toml:"output_buffer_flits" json:"output_buffer_flits,omitempty"`
	CrossbarGbps      float64 `toml:"crossbar_gbps" json:"crossbar_gbps,omitempty"`
	HCABufferFlits    int     `toml:"hca_buffer_flits" json:"hca_buffer_flits,omitempty"`
	VLs               int     `toml:"vls" json:"vls,omitempty"`
	PCIeGbps          float64 `toml:"pcie_gbps" json:"pcie_gbps,omitempty"`
	HiccupPeriod      string  `toml:"hiccup_period" json:"hiccup_period,omitempty"`
	Hiccup            string  `toml:"hiccup" json:"hiccup,omitempty"`
	SwitchLatency     string  `toml:"switch_latency" json:"switch_latency,omitempty"`
	// VOQ gives switch input buffers one queue per output (the IB model's).
	VOQ *bool `toml:"voq" json:"voq,omitempty"`
}

// SimEntry tunes the steady-state controller.
type SimEntry struct {
	SampleWindow   string  `toml:"sample_window" json:"sample_window,omitempty"`
	Warmup         string  `toml:"warmup" json:"warmup,omitempty"`
	MinSamples     int     `toml:"min_samples" json:"min_samples,omitempty"`
	CIRel          float64 `toml:"ci_rel" json:"ci_rel,omitempty"`
	SteadyFraction float64 `toml:"steady_fraction" json:"steady_fraction,omitempty"`
}

// Error is a problem in a campaign file, located by file, line and key.
type Error struct {
	File string
	Line int
	Key  string
	Msg  string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteString(":" + strconv.Itoa(e.Line))
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(e.Key + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

//go:embed campaigns/*.toml
var embedded embed.FS

// Embedded lists the names of the campaigns that ship with flitsim.
func Embedded() []string {
	ents, _ := embedded.ReadDir("campaigns")
	var names []string
	for _, e := range ents {
		names = append(names, strings.TrimSuffix(e.Name(), ".toml"))
	}
	sort.Strings(names)
	return names
}

// Load reads a campaign from a file path or the name of an embedded one.
func Load(nameOrPath string) (*Campaign, error) {
	if data, err := embedded.ReadFile("campaigns/" + nameOrPath + ".toml"); err == nil && !strings.ContainsAny(nameOrPath, "/.") {
		return Parse(data, nameOrPath+".toml (embedded)", ".")
	}
	data, err := os.ReadFile(nameOrPath)
	if err != nil {
		return nil, fmt.Errorf("reading campaign %q (not a file, nor one of %s): %w", nameOrPath, strings.Join(Embedded(), ", "), err)
	}
	return Parse(data, nameOrPath, filepath.Dir(nameOrPath))
}

// Parse decodes and validates campaign text; file names it in errors and
// dir resolves relative paths.
func Parse(data []byte, file, dir string) (*Campaign, error) {
	var f campaignFile
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&f)
	if err == nil {
		err = f.decodeFaults(&md)
	}
	if err != nil {
		var ce *Error
		if errors.As(err, &ce) {
			ce.File, ce.Line = file, keyLines(data).find(ce.Key)
			return nil, ce
		}
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &Error{File: file, Line: pe.Position.Line, Key: pe.LastKey, Msg: pe.Message}
		}
		// Type mismatches come as "toml: line N (last key "K"): message".
		if m := reTOMLErr.FindStringSubmatch(err.Error()); m != nil {
			line, _ := strconv.Atoi(m[1])
			return nil, &Error{File: file, Line: line, Key: m[2], Msg: m[3]}
		}
		return nil, &Error{File: file, Msg: err.Error()}
	}
	c := f.Campaign
	lines := keyLines(data)
	if und := md.Undecoded(); len(und) > 0 {
		k := und[0].String()
		return nil, &Error{File: file, Line: lines.find(k), Key: k, Msg: "unknown key" + suggest(k)}
	}
	c.Source, c.dir = file, dir
	if err := c.validate(lines); err != nil {
		return nil, err
	}
	return &c, nil
}

// campaignFile is what a file decodes into: the campaign, with its
// failures as one [faults] table or an array of [[faults]] tables.
type campaignFile struct {
	Campaign
	FaultsTOML toml.Primitive `toml:"faults"`
}

func (f *campaignFile) decodeFaults(md *toml.MetaData) error {
	switch t := md.Type("faults"); t {
	case "":
		return nil
	case "Hash":
		f.Faults = []FaultsEntry{{}}
		return md.PrimitiveDecode(f.FaultsTOML, &f.Faults[0])
	case "ArrayHash":
		return md.PrimitiveDecode(f.FaultsTOML, &f.Faults)
	default:
		return &Error{Key: "faults", Msg: fmt.Sprintf("want a [faults] table or [[faults]] tables, not a TOML %s", t)}
	}
}

var reTOMLErr = regexp.MustCompile(`^toml: line (\d+) \(last key "([^"]*)"\): (.*)$`)

// keyIndex maps dotted key paths to the first line that sets them.
type keyIndex map[string][]int

// keyLines scans TOML text for table headers and keys; it only has to find
// lines for error messages, so it handles the forms campaign files use.
func keyLines(data []byte) keyIndex {
	idx := keyIndex{}
	table := ""
	for i, raw := range strings.Split(string(data), "\n") {
		line := strings.TrimSpace(raw)
		if j := strings.Index(line, "#"); j >= 0 && !strings.Contains(line[:j], "\"") {
			line = strings.TrimSpace(line[:j])
		}
		switch {
		case line == "":
		case strings.HasPrefix(line, "[["):
			table = strings.TrimSpace(strings.Trim(line, "[]"))
			idx[table] = append(idx[table], i+1)
		case strings.HasPrefix(line, "["):
			table = strings.TrimSpace(strings.Trim(line, "[]"))
			idx[table] = append(idx[table], i+1)
		default:
			if k, _, ok := strings.Cut(line, "="); ok {
				key := strings.Trim(strings.TrimSpace(k), "\"")
				if table != "" {
					key = table + "." + key
				}
				idx[key] = append(idx[key], i+1)
			}
		}
	}
	return idx
}

// find returns the line of a key ("" parts are array indices and ignored),
// or of its closest enclosing table.
func (k keyIndex) find(key string) int {
	for key != "" {
		if l := k[key]; len(l) > 0 {
			return l[0]
		}
		i := strings.LastIndex(key, ".")
		if i < 0 {
			break
		}
		key = key[:i]
	}
	return 0
}

// nth returns the line of the n-th occurrence of key (array-of-tables entries).
func (k keyIndex) nth(key string, n int) int {
	if l := k[key]; n < len(l) {
		return l[n]
	}
	return k.find(key)
}

var knownKeys = []string{"name", "description", "seeds", "topology.spec", "topology.label", "faults.kind", "faults.label", "faults.percent",
	"faults.ratio", "faults.take_hcas", "faults.fixed", "routing.engine", "routing.vls", "routing.roots", "routing.label",
	"traffic.kind", "traffic.msg_bytes", "traffic.load", "traffic.distance", "traffic.max_time", "traffic.seeds",
	"hardware.link_gbps", "hardware.flit_bytes", "hardware.mtu", "hardware.header_bytes", "hardware.cable_m", "hardware.input_buffer_flits",
	"hardware.output_buffer_flits", "hardware.crossbar_gbps", "hardware.hca_buffer_flits", "hardware.vls", "hardware.pcie_gbps",
	"hardware.hiccup_period", "hardware.hiccup", "hardware.switch_latency", "hardware.voq", "sim.sample_window", "sim.warmup",
	"sim.min_samples", "sim.ci_rel", "sim.steady_fraction"}

func suggest(k string) string {
	table := ""
	if i := strings.LastIndex(k, "."); i >= 0 {
		table = k[:i+1]
	}
	var same []string
	for _, kk := range knownKeys {
		if table != "" && strings.HasPrefix(kk, table) && !strings.Contains(kk[len(table):], ".") {
			same = append(same, kk[len(table):])
		}
		if table == "" && !strings.Contains(kk, ".") {
			same = append(same, kk)
		}
	}
	if len(same) == 0 {
		return " (known tables: topology, faults, routing, traffic, hardware, sim)"
	}
	return " (known here: " + strings.Join(same, ", ") + ")"
}

// errAt locates a problem: key in the n-th entry of its array of tables
// (n < 0 for plain keys), else that entry's header, else the enclosing table.
func (c *Campaign) errAt(lines keyIndex, key string, n int, format string, v ...any) error {
	line := 0
	if n >= 0 {
		table, _, _ := strings.Cut(key, ".")
		starts := lines[table]
		if n < len(starts) {
			lo, hi := starts[n], 1<<30
			if n+1 < len(starts) {
				hi = starts[n+1]
			}
			line = lo
			for _, l := range lines[key] {
				if l >= lo && l < hi {
					line = l
					break
				}
			}
		}
	}
	if line == 0 {
		line = lines.find(key)
	}
	return &Error{File: c.Source, Line: line, Key: key, Msg: fmt.Sprintf(format, v...)}
}

func (c *Campaign) validate(lines keyIndex) error {
	if strings.TrimSpace(c.Name) == "" {
		return c.errAt(lines, "name", -1, "a campaign needs a name")
	}
	if len(c.Seeds) == 0 {
		c.Seeds = []uint64{1}
	}
	if len(c.Topologies) == 0 {
		return c.errAt(lines, "topology", -1, "no [[topology]] given")
	}
	for i, t := range c.Topologies {
		sp, err := fabric.ParseSpec(t.Spec)
		if err != nil {
			return c.errAt(lines, "topology.spec", i, "%v", err)
		}
		if sp.Kind == "file" {
			if !filepath.IsAbs(sp.Path) {
				sp.Path = filepath.Join(c.dir, sp.Path)
			}
			if _, err := os.Stat(sp.Path); err != nil {
				return c.errAt(lines, "topology.spec", i, "%v", err)
			}
			c.Topologies[i].Spec = sp.String()
			continue
		}
		g, ok := fabric.LookupGenerator(sp.Kind)
		if !ok {
			return c.errAt(lines, "topology.spec", i, "unknown topology kind %q", sp.Kind)
		}
		for _, kv := range sp.Params {
			found := false
			for _, p := range g.Params {
				found = found || p.Name == kv.Key
			}
			if !found {
				return c.errAt(lines, "topology.spec", i, "%s has no parameter %q", sp.Kind, kv.Key)
			}
		}
	}
	if len(c.Faults) == 0 {
		c.Faults = []FaultsEntry{{}}
	}
	faultLabels := map[string]bool{}
	for i := range c.Faults {
		f := &c.Faults[i]
		switch f.Kind {
		case "":
			f.Kind = "links"
		case "links", "switches", "mixed":
		default:
			return c.errAt(lines, "faults.kind", i, "%q: want links, switches or mixed", f.Kind)
		}
		if len(f.Percent) == 0 {
			f.Percent = []float64{0}
		}
		for _, p := range f.Percent {
			if p < 0 || p > 100 {
				return c.errAt(lines, "faults.percent", i, "%g %% is outside 0..100", p)
			}
		}
		if f.Kind == "mixed" {
			if _, _, err := f.ratio(); err != nil {
				return c.errAt(lines, "faults.ratio", i, "%v", err)
			}
		} else if f.Ratio != "" {
			return c.errAt(lines, "faults.ratio", i, "a ratio only applies to mixed failures, not %s", f.Kind)
		}
		if f.Fixed != "" && !filepath.IsAbs(f.Fixed) {
			f.Fixed = filepath.Join(c.dir, f.Fixed)
		}
		if f.Label == "" {
			f.Label = f.Kind
			if f.Kind == "mixed" {
				x, y, _ := f.ratio()
				f.Label = fmt.Sprintf("mixed %d:%d", x, y)
			}
		}
		if faultLabels[f.Label] {
			return c.errAt(lines, "faults.label", i, "failures %q listed twice (give each [[faults]] a label)", f.Label)
		}
		faultLabels[f.Label] = true
	}
	if len(c.Routings) == 0 {
		return c.errAt(lines, "routing", -1, "no [[routing]] given")
	}
	labels := map[string]bool{}
	for i := range c.Routings {
		r := &c.Routings[i]
		if !opensm.Known(r.Engine) {
			return c.errAt(lines, "routing.engine", i, "unknown routing engine %q (known: %s, and opensm:<engine>)", r.Engine, strings.Join(routing.Names(), ", "))
		}
		if r.VLs < 0 || r.VLs > routing.MaxVLs {
			return c.errAt(lines, "routing.vls", i, "%d VLs: want 1..%d", r.VLs, routing.MaxVLs)
		}
		if r.Label == "" {
			r.Label = r.Engine
			if r.VLs > 0 {
				r.Label = fmt.Sprintf("%s-%dvl", r.Engine, r.VLs)
			}
		}
		if labels[r.Label] {
			return c.errAt(lines, "routing.label", i, "routing %q listed twice (give each a label)", r.Label)
		}
		labels[r.Label] = true
	}
	if len(c.Traffic) == 0 {
		return c.errAt(lines, "traffic", -1, "no [[traffic]] given")
	}
	hw, err := c.hardware()
	if err != nil {
		return c.errAt(lines, "hardware", -1, "%v", err)
	}
	for i := range c.Traffic {
		t := &c.Traffic[i]
		if _, err := traffic.ParseKind(t.Kind); err != nil {
			return c.errAt(lines, "traffic.kind", i, "%v", err)
		}
		if _, err := t.bytes(hw.MTU); err != nil {
			return c.errAt(lines, "traffic.msg_bytes", i, "%v", err)
		}
		if t.Load < 0 || t.Load > 1 {
			return c.errAt(lines, "traffic.load", i, "load %g outside (0, 1]", t.Load)
		}
		if _, err := t.maxTime(); err != nil {
			return c.errAt(lines, "traffic.max_time", i, "%v", err)
		}
	}
	if _, err := c.simParams(hw, c.Traffic[0]); err != nil {
		return c.errAt(lines, "sim", -1, "%v", err)
	}
	return nil
}

func (f FaultsEntry) ratio() (int, int, error) {
	a, b, ok := strings.Cut(f.Ratio, ":")
	x, e1 := strconv.Atoi(strings.TrimSpace(a))
	y, e2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || e1 != nil || e2 != nil || x < 0 || y < 0 || x+y == 0 {
		return 0, 0, fmt.Errorf("ratio %q: want SWITCHES:LINKS such as 1:13", f.Ratio)
	}
	return x, y, nil
}

func (t TrafficEntry) bytes(mtu int) (int, error) {
	switch v := t.MsgBytes.(type) {
	case nil:
		return mtu, nil
	case int64:
		if v <= 0 {
			return 0, fmt.Errorf("message size %d must be positive", v)
		}
		return int(v), nil
	case string:
		return traffic.ParseBytes(v, mtu)
	}
	return 0, fmt.Errorf("message size must be a number of bytes or a string like \"10MTU\", not %T", t.MsgBytes)
}

func (t TrafficEntry) maxTime() (int64, error) {
	if t.MaxTime == "" {
		if t.Kind == string(traffic.Exchange) {
			return 10 * 1000 * 1000 * fabric.Microsecond, nil // 10 s: finite traffic ends by itself
		}
		return 10 * 1000 * fabric.Microsecond, nil
	}
	return parseDuration(t.MaxTime)
}

// parseDuration reads a Go duration ("10ms", "500us") as picoseconds.
func parseDuration(s string) (int64, error) {
	d, err := time.ParseDuration(strings.ReplaceAll(s, "µ", "u"))
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("duration %q: want a positive duration such as 10ms or 500us", s)
	}
	return d.Nanoseconds() * 1000, nil
}

func (c *Campaign) hardware() (fabric.Hardware, error) {
	hw := fabric.DefaultHardware()
	h := c.Hardware
	set := func(dst *int, v int) {
		if v != 0 {
			*dst = v
		}
	}
	setf := func(dst *float64, v float64) {
		if v != 0 {
			*dst = v
		}
	}
	setf(&hw.LinkGbps, h.LinkGbps)
	set(&hw.FlitBytes, h.FlitBytes)
	set(&hw.MTU, h.MTU)
	setf(&hw.CableMeters, h.CableMeters)
	set(&hw.InputBufferFlits, h.InputBufferFlits)
	set(&hw.OutputBufferFlits, h.OutputBufferFlits)
	setf(&hw.CrossbarGbps, h.CrossbarGbps)
	set(&hw.HCABufferFlits, h.HCABufferFlits)
	set(&hw.VLs, h.VLs)
	setf(&hw.PCIeGbps, h.PCIeGbps)
	if h.HeaderBytes != nil {
		hw.HeaderBytes = *h.HeaderBytes
	}
	if h.VOQ != nil {
		hw.VOQ = *h.VOQ
	}
	for _, d := range []struct {
		s   string
		dst *int64
	}{{h.HiccupPeriod, &hw.HiccupPeriodPs}, {h.Hiccup, &hw.HiccupPs}, {h.SwitchLatency, &hw.SwitchLatencyPs}} {
		if d.s == "" {
			continue
		}
		if d.s == "0" || d.s == "0s" {
			*d.dst = 0
			continue
		}
		v, err := parseDuration(d.s)
		if err != nil {
			return hw, err
		}
		*d.dst = v
	}
	return hw, hw.Validate()
}

func (c *Campaign) simParams(hw fabric.Hardware, t TrafficEntry) (sim.Params, error) {
	p := sim.DefaultParams()
	p.HW = hw
	kind, err := traffic.ParseKind(t.Kind)
	if err != nil {
		return p, err
	}
	n, err := t.bytes(hw.MTU)
	if err != nil {
		return p, err
	}
	p.Traffic = traffic.Spec{Kind: kind, MessageBytes: n, Load: t.Load, Distance: t.Distance}
	if p.MaxTime, err = t.maxTime(); err != nil {
		return p, err
	}
	s := c.Sim
	if s.SampleWindow != "" {
		if p.SampleWindow, err = parseDuration(s.SampleWindow); err != nil {
			return p, err
		}
	}
	if s.Warmup != "" {
		if p.Warmup, err = parseDuration(s.Warmup); err != nil {
			return p, err
		}
	}
	if s.MinSamples != 0 {
		p.MinSamples = s.MinSamples
	}
	if s.CIRel != 0 {
		p.CIRel = s.CIRel
	}
	if s.SteadyFraction != 0 {
		p.SteadyFraction = s.SteadyFraction
	}
	if p.CIRel < 0 || p.SteadyFraction < 0 || p.SteadyFraction > 1 || p.MinSamples < 0 {
		return p, fmt.Errorf("impossible steady-state settings")
	}
	return p, nil
}

// Hash identifies the campaign's content: every record carries it, so
// results of another campaign are never mixed in.
func (c *Campaign) Hash() string {
	b, _ := json.Marshal(c)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}
