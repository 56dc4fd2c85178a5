package configs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"flitsim/fabric/param"
	"flitsim/routing"
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

// routingOwnKeys are the keys of a [[routing]] table that are no option.
var routingOwnKeys = []string{"engine", "label"}

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

// decodeDeclared sets the keys of table entry m (the n-th of table, or
// n < 0 for a plain table) that decls declare in the struct ptr points to,
// in key order, and returns the keys it set in declaration order. Keys
// in own are the caller's; any other key is an error naming the keys the
// table knows.
func (c *Campaign) decodeDeclared(table string, n int, m map[string]any, own []string, decls []param.Decl, env param.Env, ptr any) ([]string, error) {
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
		d, ok := param.Find(decls, k)
		if !ok {
			known := append(append([]string{}, own[:len(own)-1]...), param.Keys(decls)...)
			known = append(known, own[len(own)-1])
			return nil, c.errAtKey(table+"."+k, n, "unknown key (known here: %s)", strings.Join(known, ", "))
		}
		x, err := d.Decode(m[k], env)
		if err != nil {
			msg := err.Error()
			if pe, ok := err.(*param.Error); ok {
				msg = pe.Msg
			}
			return nil, c.errAtKey(table+"."+k, n, "%s", msg)
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
