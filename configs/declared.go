package configs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"flitsim/fabric/param"
	"flitsim/routing"
	"flitsim/traffic"
)

// RoutingEntry is one routing engine with its options. The options are
// routing.Options, declared there (routing.OptionDecls): a [[routing]]
// table's keys other than engine and label are decoded through those
// declarations, and Given records which ones the entry sets.
type RoutingEntry struct {
	Engine string
	// Options are the engine's options: the declared defaults (VLs 0,
	// the hardware's) with the keys the entry gives.
	Options routing.Options
	// Given lists the option keys the entry sets, in declaration order.
	Given []string
	// Label distinguishes several entries of one engine (default: the
	// engine, then each given option's label: "-4vl", "-path-vls",
	// "-no-relieve", "-seed3").
	Label string
}

// routingOwn declares the keys of a [[routing]] table that are no option
// of the engine.
type routingOwn struct {
	Engine string `param:"engine" help:"the routing engine (flitsim route --list; opensm:NAME runs OpenSM's)"`
	Label  string `param:"label" unset:"the engine and its options" help:"distinguishes entries of one engine in tables and plots"`
}

// routingOwnKeys are the keys of a [[routing]] table that are no option.
var routingOwnKeys = param.Keys(param.Of(&routingOwn{}))

// RoutingKeys lists the keys of a [[routing]] entry: engine, the options'
// keys (routing.OptionDecls), label.
func RoutingKeys() []string {
	return append(append([]string{"engine"}, param.Keys(routing.OptionDecls())...), "label")
}

// Has reports whether the entry sets option key.
func (r RoutingEntry) Has(key string) bool {
	for _, k := range r.Given {
		if k == key {
			return true
		}
	}
	return false
}

// Value returns option key's value as the entry gives it (the key's own
// sense, not the field's: relieve, not NoRelieve), as param.Decl.Take.
func (r RoutingEntry) Value(key string) any {
	d, _ := param.Find(routing.OptionDecls(), key)
	return d.Take(&r.Options)
}

// MarshalJSON writes the entry as the campaign's identity has it: engine,
// the given options in declaration order, label.
func (r RoutingEntry) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"engine":`)
	e, _ := json.Marshal(r.Engine)
	b.Write(e)
	for _, d := range routing.OptionDecls() {
		if !r.Has(d.Key) {
			continue
		}
		v, err := json.Marshal(jsonValue(d, d.Take(&r.Options)))
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, ",%q:%s", d.Key, v)
	}
	if r.Label != "" {
		l, _ := json.Marshal(r.Label)
		b.WriteString(`,"label":`)
		b.Write(l)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// jsonValue is a declared value as JSON has it: booleans as booleans,
// whole numbers as integers.
func jsonValue(d param.Decl, x any) any {
	if f, ok := x.(float64); ok {
		switch d.Kind {
		case param.Bool:
			return f != 0
		case param.Int, param.Duration:
			return int64(f)
		}
	}
	return x
}

// entryLabel is the default label of an entry: its name, then the label
// of each given option (a boolean's only when it differs from its
// default), "{}" replaced by the value.
func entryLabel(name string, decls []param.Decl, given []string, ptr any) string {
	l := name
	for _, d := range decls {
		if d.Label == "" || !contains(given, d.Key) {
			continue
		}
		x := d.Take(ptr)
		if d.Kind == param.Bool {
			def, _ := d.Parse(d.Default)
			if x == def {
				continue
			}
		}
		l += strings.ReplaceAll(d.Label, "{}", d.Show(x))
	}
	return l
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// locator makes the error of a key (the n-th entry of its array of
// tables, n < 0 for a plain table) at its line of the file.
type locator func(key string, n int, format string, v ...any) error

// decodeKeys sets the keys of table entry m (the n-th of table, or n < 0
// for a plain table) that decls declare in the struct ptr points to, in
// key order, and returns the keys it set in declaration order. Keys in
// own are the caller's, keys later declares are left for a later decode;
// any other key is an error naming the keys the table knows.
func decodeKeys(at locator, table string, n int, m map[string]any, own []string, decls, later []param.Decl, env param.Env, ptr any) ([]string, error) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	set := map[string]bool{}
	for _, k := range keys {
		if contains(own, k) {
			continue
		}
		if _, ok := param.Find(later, k); ok {
			continue
		}
		d, ok := param.Find(decls, k)
		if !ok {
			known := append(append(append([]string{}, own...), param.Keys(decls)...), param.Keys(later)...)
			return nil, at(table+"."+k, n, "unknown key (known here: %s)", strings.Join(known, ", "))
		}
		x, err := d.Decode(m[k], env)
		if err != nil {
			msg := err.Error()
			if pe, ok := err.(*param.Error); ok {
				msg = pe.Msg
			}
			return nil, at(table+"."+k, n, "%s", msg)
		}
		d.Put(ptr, x)
		set[k] = true
	}
	var given []string
	for _, d := range decls {
		if set[d.Key] {
			given = append(given, d.Key)
		}
	}
	return given, nil
}

// decodeDeclared is decodeKeys in the campaign file, its own keys first
// in the list of known keys but the last, which comes last.
func (c *Campaign) decodeDeclared(table string, n int, m map[string]any, own []string, decls []param.Decl, env param.Env, ptr any) ([]string, error) {
	return decodeKeys(c.errAtKey, table, n, m, own, decls, nil, env, ptr)
}

// ownString reads one of a table's own keys as a string ("" when absent).
func (c *Campaign) ownString(table string, n int, m map[string]any, key string) (string, error) {
	v, ok := m[key]
	if !ok {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", c.errAtKey(table+"."+key, n, "%v (%s): want a string", v, param.TOMLType(v))
	}
	return s, nil
}

// decodeRoutings turns the [[routing]] tables into entries.
func (c *Campaign) decodeRoutings(raw []map[string]any) error {
	decls := routing.OptionDecls()
	env := param.Env{Dir: c.dir}
	c.Routings = make([]RoutingEntry, len(raw))
	for i, m := range raw {
		r := &c.Routings[i]
		var err error
		if r.Engine, err = c.ownString("routing", i, m, "engine"); err != nil {
			return err
		}
		if r.Label, err = c.ownString("routing", i, m, "label"); err != nil {
			return err
		}
		r.Options = routing.Options{}
		param.Defaults(&r.Options)
		if r.Given, err = c.decodeDeclared("routing", i, m, routingOwnKeys, decls, env, &r.Options); err != nil {
			return err
		}
	}
	return nil
}

// seedOf is an engine's seed: 0 is read as 1.
func seedOf(s uint64) uint64 {
	if s == 0 {
		return 1
	}
	return s
}

// TrafficEntry is one [[traffic]] table: a pattern, whose keys traffic.Spec
// declares (msg_bytes, load, distance, hot_fraction, order), or kind =
// "jobs", which runs the campaign's [[job]] tables; and the entry's own
// keys (TrafficOwnKeys).
type TrafficEntry struct {
	// Kind is a pattern (traffic.Kinds) or JobsKind.
	Kind string
	// Spec is the pattern with the keys given over the declared defaults
	// (filled by the campaign's validation, which knows the MTU); Given
	// the pattern keys the entry sets, in declaration order.
	Spec  traffic.Spec
	Given []string
	// Label distinguishes several entries of one kind in tables and plots
	// (default: the kind, plus "/order" when an order is given).
	Label string
	// MaxTime bounds each simulation, e.g. "10ms", over the [sim] table's
	// max_time (sim.Params declares it and its default).
	MaxTime any
	// FaultSeeds and TrafficSeeds override the campaign's for this pattern.
	FaultSeeds, TrafficSeeds []int64
	// Slowdowns, for kind "jobs" (default true), runs every job alone on
	// its nodes as well, for its slowdown: one more simulation per job.
	Slowdowns *bool
	// raw holds every key as the file gives it: the campaign's identity
	// is written from it.
	raw map[string]any
}

// trafficOwn declares the keys of a [[traffic]] table that are no pattern
// key of traffic.Spec.
type trafficOwn struct {
	Kind         string `param:"kind" help:"the pattern (traffic.Spec's kind), or jobs: run the campaign's [[job]] tables"`
	Label        string `param:"label" unset:"the kind, with /order" help:"distinguishes entries of one kind in tables and plots"`
	MaxTime      int64  `param:"max_time" unit:"ps" range:"[0,1000s]" unset:"[sim] max_time" help:"bounds each simulation of the entry"`
	FaultSeeds   []int  `param:"fault_seeds" unset:"the campaign's" help:"the failure draws of this entry"`
	TrafficSeeds []int  `param:"traffic_seeds" unset:"the campaign's" help:"the traffic seeds of this entry"`
	Slowdowns    bool   `param:"slowdowns" default:"true" help:"kind jobs: run every job alone as well, for its slowdown (one more run per job)"`
}

// TrafficOwnKeys are the keys of a [[traffic]] table that are no pattern
// key of traffic.Spec.
var TrafficOwnKeys = param.Keys(param.Of(&trafficOwn{}))

// trafficDecls are the pattern keys of a [[traffic]] table: traffic.Spec's
// declarations but its kind (an own key: it may also be "jobs").
func trafficDecls() []param.Decl {
	var ds []param.Decl
	for _, d := range param.Of(&traffic.Spec{}) {
		if d.Key != "kind" {
			ds = append(ds, d)
		}
	}
	return ds
}

// TrafficKeys lists the keys of a [[traffic]] entry.
func TrafficKeys() []string {
	return append(append([]string{"kind"}, param.Keys(trafficDecls())...), TrafficOwnKeys[1:]...)
}

// Has reports whether the entry sets pattern key key.
func (t TrafficEntry) Has(key string) bool { return contains(t.Given, key) }

// Order is the entry's rank order as given ("" when not).
func (t TrafficEntry) Order() string { return string(t.Spec.Order) }

// MarshalJSON writes the entry as the campaign's identity has it: every
// key as the file gives it, kind first, the traffic keys in declaration
// order, then the entry's own.
func (t TrafficEntry) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"kind":`)
	k, _ := json.Marshal(t.Kind)
	b.Write(k)
	put := func(key string, v any) error {
		j, err := json.Marshal(v)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, ",%q:%s", key, j)
		return nil
	}
	for _, key := range param.Keys(trafficDecls()) {
		if v, ok := t.raw[key]; ok {
			if err := put(key, v); err != nil {
				return nil, err
			}
		}
	}
	if t.Label != "" {
		put("label", t.Label)
	}
	if t.MaxTime != nil {
		if err := put("max_time", t.MaxTime); err != nil {
			return nil, err
		}
	}
	if len(t.FaultSeeds) > 0 {
		put("fault_seeds", t.FaultSeeds)
	}
	if len(t.TrafficSeeds) > 0 {
		put("traffic_seeds", t.TrafficSeeds)
	}
	if t.Slowdowns != nil {
		put("slowdowns", *t.Slowdowns)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// decodeTrafficEntries reads the [[traffic]] tables' own keys; the pattern
// keys wait for the hardware (validateTraffic).
func (c *Campaign) decodeTrafficEntries(raw []map[string]any) error {
	c.Traffic = make([]TrafficEntry, len(raw))
	for i, m := range raw {
		t := &c.Traffic[i]
		t.raw = m
		var err error
		if t.Kind, err = c.ownString("traffic", i, m, "kind"); err != nil {
			return err
		}
		if t.Label, err = c.ownString("traffic", i, m, "label"); err != nil {
			return err
		}
		t.MaxTime = m["max_time"]
		if t.FaultSeeds, err = c.ownInts("traffic", i, m, "fault_seeds"); err != nil {
			return err
		}
		if t.TrafficSeeds, err = c.ownInts("traffic", i, m, "traffic_seeds"); err != nil {
			return err
		}
		if v, ok := m["slowdowns"]; ok {
			b, ok := v.(bool)
			if !ok {
				return c.errAtKey("traffic.slowdowns", i, "%v (%s): want true or false", v, param.TOMLType(v))
			}
			t.Slowdowns = &b
		}
		for k := range m { // an unknown key, before anything is checked against the hardware
			if _, ok := param.Find(trafficDecls(), k); !ok && !contains(TrafficOwnKeys, k) {
				return c.errAtKey("traffic."+k, i, "unknown key (known here: %s)", strings.Join(TrafficKeys(), ", "))
			}
		}
	}
	return nil
}

// ownInts reads one of a table's own keys as a list of integers (nil when
// absent; an empty list given stays empty, not nil).
func (c *Campaign) ownInts(table string, n int, m map[string]any, key string) ([]int64, error) {
	v, ok := m[key]
	if !ok {
		return nil, nil
	}
	a, ok := v.([]any)
	if !ok {
		return nil, c.errAtKey(table+"."+key, n, "%v (%s): want a list of integers", v, param.TOMLType(v))
	}
	out := make([]int64, 0, len(a))
	for _, x := range a {
		i, ok := x.(int64)
		if !ok {
			return nil, c.errAtKey(table+"."+key, n, "%v (%s) in the list: want integers", x, param.TOMLType(x))
		}
		out = append(out, i)
	}
	return out, nil
}

// jsonObject writes a JSON object key by key, in the order they are put.
type jsonObject struct {
	b   bytes.Buffer
	err error
}

func (o *jsonObject) put(key string, v any) {
	j, err := json.Marshal(v)
	if err != nil && o.err == nil {
		o.err = err
	}
	if o.b.Len() == 0 {
		o.b.WriteByte('{')
	} else {
		o.b.WriteByte(',')
	}
	fmt.Fprintf(&o.b, "%q:%s", key, j)
}

func (o *jsonObject) bytes() ([]byte, error) {
	if o.b.Len() == 0 {
		return []byte("{}"), o.err
	}
	return append(o.b.Bytes(), '}'), o.err
}

// Key is one key a campaign file accepts (a jobs file's are those of its
// [[job]] and [fragmentation] tables).
type Key struct {
	Table   string `json:"table"` // "" (top level), "[hardware]", "[[routing]]", …
	Key     string `json:"key"`
	Type    string `json:"type"`
	Unit    string `json:"unit,omitempty"`
	Default string `json:"default"`
	Range   string `json:"range,omitempty"`
	Help    string `json:"help"`
}

// Keys lists every key a campaign accepts, table by table, each from the
// declaration the decoder reads it by.
func Keys() []Key {
	var keys []Key
	decl := func(table string, ds []param.Decl, defaults any) {
		for _, d := range ds {
			keys = append(keys, Key{Table: table, Key: d.Key, Type: d.Kind.String(), Unit: d.Unit, Default: d.DefaultText(defaults), Range: d.Range(), Help: d.Help})
		}
	}
	tagged := func(table string, t reflect.Type) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			k, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
			if k == "" || k == "-" || f.Tag.Get("help") == "" {
				continue
			}
			keys = append(keys, Key{Table: table, Key: k, Type: tomlTypeName(f.Type), Help: f.Tag.Get("help")})
		}
	}
	tagged("", reflect.TypeOf(Campaign{}))
	tagged("[[topology]]", reflect.TypeOf(TopologyEntry{}))
	tagged("[faults]", reflect.TypeOf(FaultsEntry{}))
	ro := routingOwn{}
	own := param.Of(&ro)
	opts := routing.DefaultOptions()
	decl("[[routing]]", own[:1], &ro)
	decl("[[routing]]", routing.OptionDecls(), &opts)
	decl("[[routing]]", own[1:], &ro)
	to := trafficOwn{}
	param.Defaults(&to)
	tOwn := param.Of(&to)
	spec := traffic.Spec{}
	param.Defaults(&spec)
	decl("[[traffic]]", tOwn[:1], &to)
	decl("[[traffic]]", trafficDecls(), &spec)
	decl("[[traffic]]", tOwn[1:], &to)
	for _, t := range Tables() {
		decl("["+t.Name+"]", t.Decls, t.Defaults)
	}
	je, jt := JobEntry{}, traffic.JobTraffic{}
	param.Defaults(&jt)
	decl("[[job]]", param.Of(&je), &je)
	decl("[[job]]", param.Of(&jt), &jt)
	fr := traffic.Fragmentation{}
	param.Defaults(&fr)
	decl("[fragmentation]", param.Of(&fr), &fr)
	decl("[fragmentation]", param.Of(&jt), &jt)
	return keys
}

// tomlTypeName names the TOML type a field takes.
func tomlTypeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Slice:
		return "list of " + tomlTypeName(t.Elem()) + "s"
	case reflect.Pointer:
		return tomlTypeName(t.Elem())
	case reflect.Bool:
		return "boolean"
	case reflect.Float64:
		return "number"
	}
	return "integer"
}
