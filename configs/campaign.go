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

	"github.com/BurntSushi/toml"

	"flitsim/fabric"
	"flitsim/fabric/param"
	"flitsim/routing"
	"flitsim/routing/engines"
	"flitsim/sim"
	"flitsim/traffic"
)

// Campaign is a decoded campaign file.
type Campaign struct {
	// Name names the campaign and its results directory: a plain word.
	Name        string `toml:"name" json:"name" help:"names the campaign and its results directory: a plain word"`
	Description string `toml:"description" json:"description,omitempty" help:"a line of text for the report"`
	// FaultSeeds are the failure draws per failure level, TrafficSeeds the
	// seeds of the traffic streams (default [1] each); every point runs
	// one of each, and a traffic entry may override either list.
	FaultSeeds   []int64         `toml:"fault_seeds" json:"fault_seeds" help:"the failure draws of every failure level (default [1])"`
	TrafficSeeds []int64         `toml:"traffic_seeds" json:"traffic_seeds" help:"the seeds of the traffic streams (default [1])"`
	Topologies   []TopologyEntry `toml:"topology" json:"topologies"`
	// Faults are one [faults] table or several [[faults]] tables (say
	// link-only, switch-only and mixed failures of one system); every
	// entry is swept over every topology.
	Faults   []FaultsEntry  `toml:"-" json:"faults"`
	Routings []RoutingEntry `toml:"-" json:"routings"`
	Traffic  []TrafficEntry `toml:"-" json:"traffic"`
	// Workload holds the [[job]] and [fragmentation] tables (the keys of a
	// jobs file, LoadWorkload), which [[traffic]] entries of kind "jobs"
	// run; JobsSeed places them (default: each point's traffic seed, so
	// that every traffic seed is another placement).
	Workload *Workload `toml:"-" json:"workload,omitempty"`
	JobsSeed *int64    `toml:"jobs_seed" json:"jobs_seed,omitempty" help:"places the [[job]] tables (default: a jobs file's seed, else each traffic seed)"`
	// JobsFile reads the workload from a jobs file instead (say one
	// written by flitsim jobs from-slurm); its seed, if any, places it
	// unless jobs_seed is given.
	JobsFile string `toml:"jobs_file" json:"jobs_file,omitempty" help:"a jobs file whose workload the campaign runs (instead of [[job]] tables)"`
	// Hardware and Sim set parameters declared by fabric.HardwareKnobs and
	// sim.Knobs; a key that is present is used (or rejected), never read
	// as "unset".
	Hardware map[string]any `toml:"hardware" json:"hardware,omitempty"`
	Sim      map[string]any `toml:"sim" json:"sim,omitempty"`
	// Inputs holds a digest of every file the campaign reads (fabric
	// files, failure lists, LFT dumps), filled by Check: the campaign's
	// identity (Hash) covers their contents, not just their names.
	Inputs map[string]string `toml:"-" json:"inputs,omitempty"`

	// Source is the file (or embedded name) the campaign came from, Text
	// its contents.
	Source string `toml:"-" json:"-"`
	Text   []byte `toml:"-" json:"-"`
	// dir resolves relative paths in the file.
	dir    string
	traces *traceCache // the trace patterns' traces, opened once
	// tracesChecked marks the traces Check read through, by path and
	// algorithms.
	tracesChecked map[string]bool
	lines         keyIndex
	hw            fabric.Hardware
	base          sim.Params // the [sim] settings over the defaults
	built         map[string]*fabric.Network
	// placements are the workload's placements on built networks, by
	// spec and seed (placed).
	placements map[string][]traffic.Job
}

// TopologyEntry names one topology.
type TopologyEntry struct {
	// Spec is a topology spec (kind:key=value,…) or file:PATH.
	Spec string `toml:"spec" json:"spec" help:"a topology spec (kind:key=value,...; flitsim topo list) or file:PATH"`
	// Label is a short name for tables (default: the spec).
	Label string `toml:"label" json:"label,omitempty" help:"a short name for tables (default: the spec)"`
}

// FaultsEntry says what fails.
type FaultsEntry struct {
	// Kind is links, switches or mixed.
	Kind string `toml:"kind" json:"kind" help:"what fails: links, switches or mixed"`
	// Label names the entry in keys and tables (default: the kind, with
	// the ratio for mixed failures, e.g. "mixed 1:13").
	Label string `toml:"label" json:"label,omitempty" help:"names the entry in keys and tables (default: the kind, with the ratio for mixed failures)"`
	// Percent lists the failure levels (default [0]).
	Percent []float64 `toml:"percent" json:"percent" help:"the failure levels in percent (default [0])"`
	// Ratio is the switch:link ratio of mixed failures, e.g. "1:13".
	Ratio string `toml:"ratio" json:"ratio,omitempty" help:"switches:links of mixed failures, e.g. \"1:13\""`
	// TakeHCAs lets switches with HCAs fail (their HCAs leave the workload).
	TakeHCAs bool `toml:"take_hcas" json:"take_hcas,omitempty" help:"switches with HCAs may fail; their HCAs leave the workload"`
	// Fixed is a failure list file applied before the random failures.
	Fixed string `toml:"fixed" json:"fixed,omitempty" help:"a failure list file applied before the random failures"`
	// Timed, a [faults.timed] table, makes the cables fail while traffic
	// runs, rerouted by the subnet manager (the keys of Timed; a key
	// given a list sweeps its values); decoded into timed, its variants.
	Timed map[string]any `toml:"timed" json:"timed,omitempty" help:"the cables fail while traffic runs and the subnet manager reroutes (keys: flitsim params; a key given a list sweeps its values)"`
	// Level confines the failures to one level of a fat tree (§4.3.1).
	Level *int `toml:"level" json:"level,omitempty" help:"fail only cables between tree levels L and L+1 and switches of level L (0 = leaves; fat trees); the percentages count those"`
	timed []*Timed
}

// JobsKind is the traffic kind that runs the campaign's [[job]] tables.
const JobsKind = "jobs"

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
	if err := checkShapes(data, file, campaignShapes); err != nil {
		return nil, err
	}
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
		return nil, tomlError(err, file)
	}
	c := f.Campaign
	c.lines = keyLines(data)
	c.Source, c.dir, c.Text = file, dir, data
	if err := c.decodeRoutings(f.RoutingTOML); err != nil {
		return nil, err
	}
	if err := c.decodeTrafficEntries(f.TrafficTOML); err != nil {
		return nil, err
	}
	for _, k := range md.Undecoded() {
		key := k.String()
		if strings.HasPrefix(key, "hardware.") || strings.HasPrefix(key, "sim.") || strings.HasPrefix(key, "routing.") ||
			strings.HasPrefix(key, "traffic.") || strings.HasPrefix(key, "faults.timed.") || workloadKey(key) {
			continue // tables decoded through their declarations, which refuse unknown keys themselves; the workload's
		}
		return nil, &Error{File: file, Line: c.lines.find(key), Key: key, Msg: "unknown key" + suggest(key)}
	}
	if c.Workload, err = decodeWorkload(data, file, true); err != nil {
		return nil, err
	}
	if c.JobsFile != "" {
		if c.Workload != nil {
			return nil, c.errAtKey("jobs_file", -1, "give [[job]] tables or a jobs_file, not both")
		}
		if !filepath.IsAbs(c.JobsFile) {
			c.JobsFile = filepath.Join(dir, c.JobsFile)
		}
		if c.Workload, err = LoadWorkload(c.JobsFile); err != nil {
			var ce *Error
			if errors.As(err, &ce) {
				return nil, err // located in the jobs file
			}
			return nil, c.errAtKey("jobs_file", -1, "%v", err)
		}
	}
	if err := c.validate(&md); err != nil {
		return nil, err
	}
	return &c, nil
}

// campaignFile is what a file decodes into: the campaign, with its
// failures as one [faults] table or an array of [[faults]] tables.
type campaignFile struct {
	Campaign
	FaultsTOML  toml.Primitive   `toml:"faults"`
	RoutingTOML []map[string]any `toml:"routing"`
	TrafficTOML []map[string]any `toml:"traffic"`
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

// tomlError locates a decoding error of file: syntax errors at their
// position, type mismatches at the line the decoder names.
func tomlError(err error, file string) *Error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return &Error{File: file, Line: pe.Position.Line, Key: pe.LastKey, Msg: pe.Message}
	}
	// Type mismatches come as "toml: line N (last key "K"): message".
	if m := reTOMLErr.FindStringSubmatch(err.Error()); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &Error{File: file, Line: line, Key: m[2], Msg: m[3]}
	}
	return &Error{File: file, Msg: err.Error()}
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

// knownKeys lists every key a campaign file may contain, as dotted paths
// (Keys: the declarations the decoders read).
func knownKeys() []string {
	var keys []string
	for _, k := range Keys() {
		t := strings.Trim(k.Table, "[]")
		if t != "" {
			t += "."
		}
		keys = append(keys, t+k.Key)
	}
	return keys
}

func suggest(k string) string {
	table := ""
	if i := strings.LastIndex(k, "."); i >= 0 {
		table = k[:i+1]
	}
	var same []string
	for _, kk := range knownKeys() {
		if table != "" && strings.HasPrefix(kk, table) && !strings.Contains(kk[len(table):], ".") {
			same = append(same, kk[len(table):])
		}
		if table == "" && !strings.Contains(kk, ".") {
			same = append(same, kk)
		}
	}
	if len(same) == 0 {
		return " (known tables: topology, faults, routing, traffic, job, fragmentation, hardware, sim)"
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

// plainWord matches names that may become a directory or a job name.
var plainWord = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// PlainWord reports whether s is usable as a file name, a directory name
// and a shell word: letters, digits, '_', '.', '-', not starting with a
// dot or dash, and no "..".
func PlainWord(s string) bool { return plainWord.MatchString(s) && !strings.Contains(s, "..") }

// errAtKey locates a problem at key (n ≥ 0: in the n-th entry of its array
// of tables).
func (c *Campaign) errAtKey(key string, n int, format string, v ...any) error {
	return c.errAt(c.lines, key, n, format, v...)
}

// validate checks everything it can without reading other files or
// building networks (Check does that) and resolves defaults.
func (c *Campaign) validate(md *toml.MetaData) error {
	if strings.TrimSpace(c.Name) == "" {
		return c.errAtKey("name", -1, "a campaign needs a name")
	}
	if !PlainWord(c.Name) {
		return c.errAtKey("name", -1, "%q: a name becomes a directory and a job name; want letters, digits, '_', '.' and '-' only", c.Name)
	}
	for _, s := range []struct {
		key  string
		list *[]int64
	}{{"fault_seeds", &c.FaultSeeds}, {"traffic_seeds", &c.TrafficSeeds}} {
		if err := c.checkSeeds(s.key, -1, *s.list); err != nil {
			return err
		}
		if len(*s.list) == 0 {
			*s.list = []int64{1}
		}
	}
	if len(c.Topologies) == 0 {
		return c.errAtKey("topology", -1, "no [[topology]] given")
	}
	for i := range c.Topologies {
		if err := c.validateTopology(i); err != nil {
			return err
		}
	}
	if len(c.Faults) == 0 {
		c.Faults = []FaultsEntry{{}}
	}
	faultLabels := map[string]bool{}
	for i := range c.Faults {
		if err := c.validateFaults(i, faultLabels); err != nil {
			return err
		}
	}
	if len(c.Routings) == 0 {
		return c.errAtKey("routing", -1, "no [[routing]] given")
	}
	labels := map[string]bool{}
	for i := range c.Routings {
		if err := c.validateRouting(i, labels); err != nil {
			return err
		}
	}
	var err error
	if c.hw, err = c.hardware(); err != nil {
		return err
	}
	if c.base, err = c.simBase(); err != nil {
		return err
	}
	if err := c.checkSeeds("jobs_seed", -1, seedList(c.JobsSeed)); err != nil {
		return err
	}
	if len(c.Traffic) == 0 && c.Workload != nil {
		c.Traffic = []TrafficEntry{{Kind: JobsKind}} // the jobs are the traffic
	}
	if len(c.Traffic) == 0 {
		return c.errAtKey("traffic", -1, "no [[traffic]] given")
	}
	if err := c.validateJobs(); err != nil {
		return err
	}
	tlabels := map[string]bool{}
	for i := range c.Traffic {
		if err := c.validateTraffic(i); err != nil {
			return err
		}
		l := c.Traffic[i].TrafficLabel()
		if tlabels[l] {
			return c.errAtKey("traffic.label", i, "traffic %q listed twice (give each a label)", l)
		}
		tlabels[l] = true
	}
	return nil
}

// TrafficLabel names the entry in tables and plots: its label, or the kind
// (with "/order" when an order is given).
func (t TrafficEntry) TrafficLabel() string {
	switch {
	case t.Label != "":
		return t.Label
	case t.Order() != "":
		return t.Kind + "/" + t.Order()
	}
	return t.Kind
}

func (c *Campaign) validateTopology(i int) error {
	t := &c.Topologies[i]
	sp, err := fabric.ParseSpec(t.Spec)
	if err != nil {
		return c.errAtKey("topology.spec", i, "%v", err)
	}
	if sp.Kind == "file" {
		if !filepath.IsAbs(sp.Path) {
			sp.Path = filepath.Join(c.dir, sp.Path)
		}
		t.Spec = sp.String()
		return nil
	}
	g, ok := fabric.LookupGenerator(sp.Kind)
	if !ok {
		return c.errAtKey("topology.spec", i, "unknown topology kind %q (flitsim topo list)", sp.Kind)
	}
	for _, kv := range sp.Params {
		found := false
		for _, p := range g.Params {
			found = found || p.Name == kv.Key
		}
		if !found {
			return c.errAtKey("topology.spec", i, "%s has no parameter %q", sp.Kind, kv.Key)
		}
	}
	return nil
}

func (c *Campaign) validateFaults(i int, labels map[string]bool) error {
	f := &c.Faults[i]
	switch f.Kind {
	case "":
		f.Kind = "links"
	case "links", "switches", "mixed":
	default:
		return c.errAtKey("faults.kind", i, "%q: want links, switches or mixed", f.Kind)
	}
	if f.Percent != nil && len(f.Percent) == 0 {
		return c.errAtKey("faults.percent", i, "an empty list: give the failure levels, or leave the key out (0 %%)")
	}
	if len(f.Percent) == 0 {
		f.Percent = []float64{0}
	}
	for _, p := range f.Percent {
		if !(p >= 0 && p < 100) {
			return c.errAtKey("faults.percent", i, "%g %%: want a failure level in [0, 100)", p)
		}
	}
	if f.Kind == "mixed" {
		if _, _, err := f.ratio(); err != nil {
			return c.errAtKey("faults.ratio", i, "%v", err)
		}
	} else if f.Ratio != "" {
		return c.errAtKey("faults.ratio", i, "a ratio only applies to mixed failures, not %s", f.Kind)
	}
	if f.Level != nil && *f.Level < 0 {
		return c.errAtKey("faults.level", i, "%d: want a tree level ≥ 0 (0 = leaves)", *f.Level)
	}
	if f.TakeHCAs && f.Kind == "links" {
		return c.errAtKey("faults.take_hcas", i, "take_hcas only applies to switch and mixed failures")
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
	if labels[f.Label] {
		return c.errAtKey("faults.label", i, "failures %q listed twice (give each [[faults]] a label)", f.Label)
	}
	labels[f.Label] = true
	t, err := c.timed(i)
	if err != nil {
		return err
	}
	f.timed = t
	return nil
}

func (c *Campaign) validateRouting(i int, labels map[string]bool) error {
	r := &c.Routings[i]
	e, err := engines.Find(r.Engine)
	if err != nil {
		return c.errAtKey("routing.engine", i, "%v", err)
	}
	for _, k := range r.Given {
		if err := e.Takes(k); err != nil {
			return c.errAtKey("routing."+k, i, "%v", err)
		}
	}
	if r.Engine == "file" && !r.Has("file") {
		return c.errAtKey("routing.engine", i, "the file engine needs the LFT dump to load: file = \"PATH\"")
	}
	if r.Label == "" {
		r.Label = entryLabel(r.Engine, routing.OptionDecls(), r.Given, &r.Options)
	}
	if labels[r.Label] {
		return c.errAtKey("routing.label", i, "routing %q listed twice (give each a label)", r.Label)
	}
	labels[r.Label] = true
	return nil
}

// validateJobs checks that the workload and the traffic entries that run
// it come together, and that no failure would take the jobs' HCAs.
func (c *Campaign) validateJobs() error {
	runs := false
	for i, t := range c.Traffic {
		if t.Kind != JobsKind {
			if t.Slowdowns != nil {
				return c.errAtKey("traffic.slowdowns", i, "slowdowns apply to kind = %q (the [[job]] tables), not %s", JobsKind, t.Kind)
			}
			continue
		}
		runs = true
		if c.Workload == nil {
			return c.errAtKey("traffic.kind", i, "kind = %q runs the campaign's [[job]] tables, and it has none", JobsKind)
		}
		for _, d := range trafficDecls() {
			if _, given := t.raw[d.Key]; given {
				return c.errAtKey("traffic."+d.Key, i, "%s describes one pattern; each [[job]] gives its own traffic (pattern, msg_bytes, load, ...)", d.Key)
			}
		}
	}
	switch {
	case c.Workload == nil && c.JobsSeed != nil:
		return c.errAtKey("jobs_seed", -1, "a placement seed, but no [[job]] or [fragmentation] tables to place")
	case c.Workload == nil:
		return nil
	case !runs:
		key := "job"
		if len(c.Workload.Jobs) == 0 {
			key = "fragmentation"
		}
		return c.errAtKey(key, -1, "the [[job]] tables run as a [[traffic]] entry of kind = %q, and no entry has it (add one, or leave out [[traffic]])", JobsKind)
	}
	for i, f := range c.Faults {
		if f.TakeHCAs {
			return c.errAtKey("faults.take_hcas", i, "the jobs are placed on the fabric's HCAs; failures that take HCAs would move them")
		}
	}
	// A job's own routing mode needs every engine to be adaptive.
	for i, j := range c.Workload.Jobs {
		if j.Routing == "" {
			continue
		}
		for _, r := range c.Routings {
			if _, err := routing.ParseMode(r.Engine); err != nil {
				return c.Workload.errAt("job.routing", i, "job %q sets routing = %q, an adaptive mode, but the campaign also routes with %s, which is not adaptive (engines: %s)",
					j.label(i), j.Routing, r.Engine, strings.Join(routing.ModeNames(), ", "))
			}
		}
	}
	return nil
}

// seedList is an optional seed as a list (nil: none).
func seedList(s *int64) []int64 {
	if s == nil {
		return nil
	}
	return []int64{*s}
}

func (c *Campaign) validateTraffic(i int) error {
	t := &c.Traffic[i]
	if t.Kind == JobsKind {
		return c.validateRunOf(i)
	}
	kind, err := traffic.ParseKind(t.Kind)
	if err != nil {
		return c.errAtKey("traffic.kind", i, "%v", err)
	}
	// The pattern's keys, decoded through traffic.Spec's declarations now
	// that the hardware (the MTU of a size) is known.
	t.Spec = traffic.Spec{Kind: kind}
	param.Defaults(&t.Spec)
	if t.Given, err = c.decodeDeclared("traffic", i, t.raw, TrafficOwnKeys, trafficDecls(), param.Env{MTU: c.hw.MTU, Dir: c.dir}, &t.Spec); err != nil {
		return err
	}
	if kind == traffic.Trace {
		if !t.Has("trace") {
			return c.errAtKey("traffic.kind", i, "a trace pattern needs its trace: trace = a DUMPI trace's directory or .meta file")
		}
		if c.traces == nil {
			c.traces = &traceCache{}
		}
		if t.Spec.Program, err = c.traces.get(t.Spec.Trace); err != nil {
			return c.errAtKey("traffic.trace", i, "%v", err)
		}
	}
	if !t.Has("msg_bytes") {
		t.Spec.MessageBytes = c.hw.MTU
	}
	if t.Has("iterations") && t.Spec.Iterations == 0 {
		return c.errAtKey("traffic.iterations", i, "0 iterations (a job's infinite) is no count for a [[traffic]] pattern: leave the key out for the pattern's default, or give a count")
	}
	if t.Has("distance") {
		if kind != traffic.Shift {
			return c.errAtKey("traffic.distance", i, "a distance only applies to shift traffic, not %s", kind)
		}
		if t.Spec.Distance == 0 {
			return c.errAtKey("traffic.distance", i, "a shift by 0 sends every terminal to itself")
		}
	}
	if t.Has("hot_fraction") && kind != traffic.HotSpot {
		return c.errAtKey("traffic.hot_fraction", i, "a hot fraction only applies to hotspot traffic, not %s", kind)
	}
	if _, _, err := t.maxTime(); err != nil {
		return c.errAtKey("traffic.max_time", i, "%v", err)
	}
	if err := c.checkSeeds("traffic.fault_seeds", i, t.FaultSeeds); err != nil {
		return err
	}
	if err := c.checkSeeds("traffic.traffic_seeds", i, t.TrafficSeeds); err != nil {
		return err
	}
	p, err := c.simParams(*t)
	if err != nil {
		return c.errAtKey("traffic", i, "%v", err)
	}
	if err := p.Normalize(); err != nil {
		return c.errAtKey("traffic", i, "%v", err)
	}
	return nil
}

// validateRunOf checks the keys a jobs entry i shares with patterns.
func (c *Campaign) validateRunOf(i int) error {
	t := &c.Traffic[i]
	if _, _, err := t.maxTime(); err != nil {
		return c.errAtKey("traffic.max_time", i, "%v", err)
	}
	if err := c.checkSeeds("traffic.fault_seeds", i, t.FaultSeeds); err != nil {
		return err
	}
	return c.checkSeeds("traffic.traffic_seeds", i, t.TrafficSeeds)
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

// maxTime is the entry's own time limit, or false.
func (t TrafficEntry) maxTime() (int64, bool, error) {
	if t.MaxTime == nil {
		return 0, false, nil
	}
	d, _ := param.Find(sim.ParamDecls(), "max_time")
	x, err := d.Value(t.MaxTime)
	var pe *param.Error
	if errors.As(err, &pe) {
		err = errors.New(pe.Msg)
	}
	return int64(x), true, err
}

// simParams is the simulation of traffic entry t: the hardware, the [sim]
// settings, the pattern.
func (c *Campaign) simParams(t TrafficEntry) (sim.Params, error) {
	p := c.base
	if t.Kind == JobsKind {
		// The jobs, placed on the network, replace the pattern (Params.Jobs).
		if ps, ok, err := t.maxTime(); ok {
			p.MaxTime = ps
			return p, err
		}
		return p, nil
	}
	p.Traffic = t.Spec // decoded and checked by validateTraffic
	if p.Traffic.Order == "" {
		p.Traffic.Order = traffic.ByHCA
	}
	if ps, ok, err := t.maxTime(); ok {
		p.MaxTime = ps
		return p, err
	}
	return p, nil
}

// Hash identifies the campaign's content: every record carries it, so
// results of another campaign are never mixed in. It covers the hardware
// and simulator parameters as resolved (the defaults under the campaign's
// tables), so that a directory begun under other defaults (a flitsim whose
// model changed) is not resumed into one mixed table.
func (c *Campaign) Hash() string {
	sims := map[string]any{}
	def := sim.DefaultParams()
	for _, d := range sim.ParamDecls() {
		switch {
		case d.Kind.Numeric():
			sims[d.Key] = d.Get(&c.base)
		case d.Take(&c.base) != d.Take(&def):
			// A key that is not a number counts when it is not its
			// default, so that adding one keeps every hash made before.
			sims[d.Key] = d.Take(&c.base)
		}
	}
	b, _ := json.Marshal(struct {
		C   *Campaign       `json:"campaign"`
		HW  fabric.Hardware `json:"hardware"`
		Sim map[string]any  `json:"sim"`
	}{c, c.hw, sims})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// checkSeeds refuses an empty list given explicitly and negative seeds.
func (c *Campaign) checkSeeds(key string, i int, seeds []int64) error {
	if seeds != nil && len(seeds) == 0 {
		return c.errAtKey(key, i, "an empty list: give at least one seed, or leave the key out (default [1], or the campaign's)")
	}
	for _, s := range seeds {
		if s < 0 {
			return c.errAtKey(key, i, "seed %d: seeds are non-negative integers", s)
		}
	}
	return nil
}

func intAsFloat(n *int) *float64 {
	if n == nil {
		return nil
	}
	x := float64(*n)
	return &x
}
