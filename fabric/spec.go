package fabric

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Spec is a parsed topology specification of the form
// "kind:key=value,key=value" (lists written with 'x', e.g. dims=5x5) or
// "file:path/to/fabric.topo".
type Spec struct {
	Kind   string
	Path   string // for Kind "file"
	Params []KV   // in the order written
}

// KV is one key=value pair of a Spec.
type KV struct{ Key, Value string }

// ParseSpec parses a topology spec string. It checks syntax only; Build
// checks keys and values against the generator.
func ParseSpec(s string) (Spec, error) {
	s = strings.TrimSpace(s)
	kind, rest, _ := strings.Cut(s, ":")
	kind = strings.ToLower(strings.TrimSpace(kind))
	if kind == "" {
		return Spec{}, fmt.Errorf("topology spec %q: missing kind (e.g. torus:dims=5x5)", s)
	}
	if kind == "file" {
		if strings.TrimSpace(rest) == "" {
			return Spec{}, fmt.Errorf("topology spec %q: file: needs a path", s)
		}
		return Spec{Kind: kind, Path: strings.TrimSpace(rest)}, nil
	}
	sp := Spec{Kind: kind}
	if strings.TrimSpace(rest) == "" {
		return sp, nil
	}
	seen := map[string]bool{}
	for _, f := range strings.Split(rest, ",") {
		k, v, ok := strings.Cut(f, "=")
		k, v = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
		if !ok || k == "" || v == "" {
			return Spec{}, fmt.Errorf("topology spec %q: %q is not key=value", s, f)
		}
		if seen[k] {
			return Spec{}, fmt.Errorf("topology spec %q: key %q given twice", s, k)
		}
		seen[k] = true
		sp.Params = append(sp.Params, KV{k, v})
	}
	return sp, nil
}

// String formats the spec back into its canonical text form.
func (s Spec) String() string {
	if s.Kind == "file" {
		return "file:" + s.Path
	}
	var b strings.Builder
	b.WriteString(s.Kind)
	for i, kv := range s.Params {
		if i == 0 {
			b.WriteByte(':')
		} else {
			b.WriteByte(',')
		}
		b.WriteString(kv.Key + "=" + kv.Value)
	}
	return b.String()
}

// ParamType is the type of a generator parameter.
type ParamType int

const (
	// IntParam is a non-negative integer.
	IntParam ParamType = iota
	// ListParam is a list of positive integers written with 'x' (5x5x5).
	ListParam
)

// Param documents one generator parameter; help text and validation both
// read it.
type Param struct {
	Name    string
	Type    ParamType
	Default string // "" = required or derived (see Help)
	Help    string
}

// Generator builds one family of topologies.
type Generator struct {
	Kind    string
	Help    string
	Example string
	Params  []Param
	build   func(a *args) (*Network, error)
}

// Generators returns every topology generator, sorted by kind.
func Generators() []Generator {
	g := []Generator{
		ariesGenerator(),
		cascadeGenerator(),
		deimosGenerator(),
		dragonflyGenerator(),
		karyNTreeGenerator(),
		kautzGenerator(),
		meshGenerator(),
		randomGenerator(),
		taurusGenerator(),
		torusGenerator(),
		tsubame2Generator(),
		xgftGenerator(),
	}
	sort.Slice(g, func(i, j int) bool { return g[i].Kind < g[j].Kind })
	return g
}

// LookupGenerator finds the generator for kind.
func LookupGenerator(kind string) (Generator, bool) {
	for _, g := range Generators() {
		if g.Kind == kind {
			return g, true
		}
	}
	return Generator{}, false
}

// Build generates the network a spec string describes, or loads it for
// "file:PATH".
func Build(spec string) (*Network, error) {
	sp, err := ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	return BuildSpec(sp)
}

// BuildSpec generates or loads the network of a parsed spec.
func BuildSpec(sp Spec) (*Network, error) {
	if sp.Kind == "file" {
		return LoadFile(sp.Path)
	}
	g, ok := LookupGenerator(sp.Kind)
	if !ok {
		return nil, fmt.Errorf("unknown topology kind %q (known: %s, file)", sp.Kind, strings.Join(kinds(), ", "))
	}
	a := &args{gen: g, vals: map[string]string{}}
	for _, kv := range sp.Params {
		if _, ok := g.param(kv.Key); !ok {
			return nil, fmt.Errorf("%s: unknown parameter %q (known: %s)", g.Kind, kv.Key, strings.Join(g.paramNames(), ", "))
		}
		a.vals[kv.Key] = kv.Value
	}
	net, err := g.build(a)
	if a.err != nil {
		return nil, a.err
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", g.Kind, err)
	}
	net.Name = sp.String()
	return net, nil
}

func kinds() []string {
	var k []string
	for _, g := range Generators() {
		k = append(k, g.Kind)
	}
	return k
}

func (g Generator) param(name string) (Param, bool) {
	for _, p := range g.Params {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}

func (g Generator) paramNames() []string {
	var n []string
	for _, p := range g.Params {
		n = append(n, p.Name)
	}
	return n
}

// args gives a generator typed access to its parameters; the first bad
// value is kept in err and reported by BuildSpec.
type args struct {
	gen  Generator
	vals map[string]string
	err  error
}

func (a *args) fail(format string, v ...any) {
	if a.err == nil {
		a.err = fmt.Errorf(a.gen.Kind+": "+format, v...)
	}
}

func (a *args) raw(name string) (string, bool) {
	if v, ok := a.vals[name]; ok {
		return v, true
	}
	p, ok := a.gen.param(name)
	if !ok {
		panic("fabric: generator " + a.gen.Kind + " reads undeclared parameter " + name)
	}
	return p.Default, p.Default != ""
}

// isSet reports whether the user gave the parameter.
func (a *args) isSet(name string) bool { _, ok := a.vals[name]; return ok }

// int returns an integer parameter in [lo, hi].
func (a *args) int(name string, lo, hi int) int {
	v, ok := a.raw(name)
	if !ok {
		a.fail("parameter %q is required", name)
		return lo
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		a.fail("%s=%q is not an integer", name, v)
		return lo
	}
	if n < lo || n > hi {
		a.fail("%s=%d out of range [%d, %d]", name, n, lo, hi)
		return lo
	}
	return n
}

// intOr returns the parameter if set, else def (which need not be in range).
func (a *args) intOr(name string, def, lo, hi int) int {
	if !a.isSet(name) {
		if _, ok := a.raw(name); !ok {
			return def
		}
	}
	return a.int(name, lo, hi)
}

// list returns a list parameter whose elements lie in [lo, hi].
func (a *args) list(name string, lo, hi int) []int {
	v, ok := a.raw(name)
	if !ok {
		a.fail("parameter %q is required", name)
		return nil
	}
	var out []int
	for _, f := range strings.Split(strings.ToLower(v), "x") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			a.fail("%s=%q is not a list of integers like 5x5", name, v)
			return nil
		}
		if n < lo || n > hi {
			a.fail("%s=%q: element %d out of range [%d, %d]", name, v, n, lo, hi)
			return nil
		}
		out = append(out, n)
	}
	return out
}

// spread distributes total items over bins as evenly as possible: bin i gets
// ⌊(i+1)·total/bins⌋ − ⌊i·total/bins⌋, i.e. ⌊total/bins⌋ or ⌈total/bins⌉,
// with the larger counts spaced evenly.
func spread(total, bins int) []int {
	c := make([]int, bins)
	for i := range c {
		c[i] = (i+1)*total/bins - i*total/bins
	}
	return c
}
