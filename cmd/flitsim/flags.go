package main

import (
	"errors"
	"flag"
	"regexp"
	"strconv"
	"strings"
	"time"

	"flitsim/configs/pipeline"
	"flitsim/fabric"
	"flitsim/fabric/param"
	"flitsim/faults"
	"flitsim/routing"
	"flitsim/routing/engines"
)

// loadNetwork loads a topology spec or netlist file for a command; any
// problem is bad input.
func loadNetwork(arg string) (*fabric.Network, error) {
	net, err := pipeline.Load(arg)
	return net, asInput(err)
}

// faultFlags are the failure flags of topo faults, route and sim, with
// the names a campaign's keys have: --fault-seed is fault_seeds' seed.
type faultFlags struct {
	links, switches, mixed float64
	ratio                  string
	seed                   uint64
	fixed                  string
	takeHCAs               bool
	level                  int
	fs                     *flag.FlagSet
}

func (f *faultFlags) register(fs *flag.FlagSet) {
	f.fs = fs
	fs.Float64Var(&f.links, "links", 0, "fail this `percent` of the inter-switch cables (⌊p·cables⌋)")
	fs.Float64Var(&f.switches, "switches", 0, "fail this `percent` of the switches (only switches without HCAs unless --take-hcas)")
	fs.Float64Var(&f.mixed, "mixed", 0, "fail this `percent` of cables+switches, split by --ratio")
	fs.StringVar(&f.ratio, "ratio", "1:13", "switch:link ratio for --mixed (TSUBAME2 1:13, Deimos 1:2)")
	fs.Uint64Var(&f.seed, "fault-seed", 1, "seed of the failure draw (a campaign's fault_seeds)")
	fs.StringVar(&f.fixed, "fixed", "", "`file` with a fixed failure list (switch NODE / link NODE PORT / link NODE NODE)")
	fs.BoolVar(&f.takeHCAs, "take-hcas", false, "let switches with HCAs fail; their HCAs leave the workload")
	fs.IntVar(&f.level, "level", -1, "fail only cables between tree levels L and L+1 and switches of level L (0 = leaves; fat trees); the percentages count those (-1: anywhere)")
}

func (f *faultFlags) spec() (faults.Spec, error) {
	s := faults.Spec{LinkPercent: f.links, SwitchPercent: f.switches, MixedPercent: f.mixed, Seed: f.seed, TakeHCAs: f.takeHCAs}
	for _, p := range []struct {
		name string
		v    float64
	}{{"--links", f.links}, {"--switches", f.switches}, {"--mixed", f.mixed}} {
		if !(p.v >= 0 && p.v < 100) {
			return s, badInput("%s %g: want a percentage in [0, 100)", p.name, p.v)
		}
	}
	// A flag that changes nothing is refused rather than ignored.
	given := map[string]bool{}
	if f.fs != nil {
		f.fs.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	}
	switch {
	case given["ratio"] && !given["mixed"]:
		return s, badInput("--ratio splits --mixed failures; without --mixed it changes nothing")
	case given["fault-seed"] && !given["links"] && !given["switches"] && !given["mixed"]:
		return s, badInput("--fault-seed draws --links, --switches or --mixed failures; without them it changes nothing")
	case given["take-hcas"] && !given["switches"] && !given["mixed"] && !given["fixed"]:
		return s, badInput("--take-hcas lets --switches, --mixed or --fixed failures take switches with HCAs; without them it changes nothing")
	case given["level"] && !given["links"] && !given["switches"] && !given["mixed"]:
		return s, badInput("--level confines --links, --switches or --mixed failures; without them it changes nothing")
	case given["level"] && f.level < 0:
		return s, badInput("--level %d: want a tree level ≥ 0 (0 = leaves)", f.level)
	}
	if given["level"] {
		l := f.level
		s.Level = &l
	}
	if f.mixed > 0 {
		a, b, ok := strings.Cut(f.ratio, ":")
		x, err1 := strconv.Atoi(a)
		y, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil || x < 0 || y < 0 || x+y == 0 {
			return s, badInput("--ratio %q: want SWITCHES:LINKS such as 1:13", f.ratio)
		}
		s.RatioSwitches, s.RatioLinks = x, y
	}
	if f.fixed != "" {
		fx, err := faults.LoadFixed(f.fixed)
		if err != nil {
			return s, asInput(err)
		}
		s.Fixed = fx
	}
	return s, nil
}

// failedNetwork loads arg and injects the failures the flags ask for.
func (f *faultFlags) failedNetwork(arg string) (*fabric.Network, error) {
	net, err := loadNetwork(arg)
	if err != nil {
		return nil, err
	}
	spec, err := f.spec()
	if err != nil {
		return nil, err
	}
	net, _, err = pipeline.Fail(net, spec)
	return net, asInput(err)
}

// routeFlags are the routing options of route and sim: one flag per
// declaration of routing.Options (the keys of a campaign's [[routing]]
// tables: --vls, --roots, --lfts for file, --path-vls, --relieve,
// --routing-seed for seed).
type routeFlags struct {
	flags []*declFlag // in declaration order
	fs    *flag.FlagSet
}

func (r *routeFlags) register(fs *flag.FlagSet) {
	r.fs = fs
	opts := routing.DefaultOptions()
	for _, d := range routing.OptionDecls() {
		f := newDeclFlag(d, param.Env{}, &opts)
		fs.Var(f, d.Flag, d.Help+" (routing."+d.Key+")")
		r.flags = append(r.flags, f)
	}
}

// given reports whether the flag of option key was set on the command line.
func (r *routeFlags) given(key string) bool {
	for _, f := range r.flags {
		if f.d.Key == key {
			return f.set
		}
	}
	return false
}

// options checks the flags against every engine named (an engine must
// read each option given, roots must be switches of net, a dump must
// load) and returns the options.
func (r *routeFlags) options(net *fabric.Network, names []string) (routing.Options, error) {
	opts := routing.DefaultOptions()
	var named []engines.Engine
	for _, n := range names {
		e, err := engines.Find(n)
		if err != nil {
			return opts, badInput("--routing: %v", err)
		}
		named = append(named, e)
		if n == "file" && !r.given("file") {
			return opts, badInput("--routing file needs the LFT dump to load: --lfts FILE")
		}
	}
	for _, f := range r.flags {
		if !f.set {
			continue
		}
		f.d.Put(&opts, f.x)
		var err error
		for _, e := range named {
			if err = e.Takes(f.d.Key); err == nil {
				break
			}
		}
		if err != nil {
			return opts, badInput("--%s: %v", f.d.Flag, err)
		}
	}
	if len(opts.Roots) > 0 {
		if _, err := routing.ResolveRoots(net, opts.Roots); err != nil {
			return opts, badInput("--roots: %v", err)
		}
	}
	if r.given("file") {
		if _, err := routing.LoadLFTs(opts.File, net); err != nil {
			return opts, asInput(err)
		}
	}
	return opts, nil
}

// declFlag is a flag whose text a parameter declaration reads and checks
// (the declaration of the campaign key the flag stands for).
type declFlag struct {
	d    param.Decl
	env  param.Env
	x    any    // the value as the declaration holds it (param.Decl.Put)
	text string // as given
	set  bool   // given on the command line
}

// newDeclFlag returns the flag of declaration d with the default from the
// struct of defaults ptr points to.
func newDeclFlag(d param.Decl, env param.Env, defaults any) *declFlag {
	return &declFlag{d: d, env: env, x: d.Take(defaults)}
}

// declVar defines flag name for the parameter key of decls; its value is
// read from x after parsing, its default is the declaration's.
func declVar(fs *flag.FlagSet, name string, decls []param.Decl, key, usage string, defaults any) *declFlag {
	d, ok := param.Find(decls, key)
	if !ok {
		panic("declVar: no parameter " + key) // a programming error every test run finds
	}
	f := newDeclFlag(d, param.Env{}, defaults)
	fs.Var(f, name, usage)
	return f
}

func (f *declFlag) String() string {
	switch {
	case f == nil:
		return ""
	case f.x == nil:
		return f.text
	}
	return f.d.Show(f.x)
}

// Set parses the flag's text; the error says what the declaration
// accepts (the flag package names the flag).
func (f *declFlag) Set(s string) error {
	x, err := f.d.ParseText(s, f.env)
	if err != nil {
		if pe, ok := err.(*param.Error); ok && !f.d.Kind.Numeric() {
			// The flag package names the value itself.
			return errors.New(strings.TrimPrefix(pe.Msg, strconv.Quote(s)+": "))
		}
		return errors.New("want " + f.d.Range())
	}
	f.x, f.text, f.set = x, s, true
	return nil
}

// Get returns the value as the declaration holds it.
func (f *declFlag) Get() any { return f.x }

// IsBoolFlag lets a boolean flag stand alone (--path-vls).
func (f *declFlag) IsBoolFlag() bool { return f.d.Kind == param.Bool }

// reFlagValue and reFlagName match the flag package's messages, which
// name a flag with one dash.
var (
	reFlagValue = regexp.MustCompile(`^invalid (?:boolean )?value ("[^"]*") for (?:flag )?-([\w-]+): (.*)$`)
	reFlagName  = regexp.MustCompile(`(: |^)-([\w-]+)`)
)

// flagError rewrites an error of fs.Parse to name the flag as the help
// does (--name), with what the flag accepts instead of "parse error".
func flagError(fs *flag.FlagSet, err error) error {
	msg := err.Error()
	if m := reFlagValue.FindStringSubmatch(msg); m != nil {
		why := m[3]
		if why == "parse error" || strings.HasSuffix(why, "invalid syntax") {
			why = "want " + flagKind(fs.Lookup(m[2]))
		}
		return badInput("--%s %s: %s", m[2], m[1], why)
	}
	return badInput("%s", reFlagName.ReplaceAllString(msg, "$1--$2"))
}

// flagKind says what values a flag of the flag package takes.
func flagKind(f *flag.Flag) string {
	if f == nil {
		return "a valid value"
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return "a valid value"
	}
	switch g.Get().(type) {
	case int, int64:
		return "an integer"
	case uint, uint64:
		return "an integer ≥ 0"
	case float64:
		return "a number"
	case bool:
		return "true or false"
	case time.Duration:
		return "a duration such as 10ms"
	}
	return "a valid value"
}

// plotFileError refuses a --plot file that is neither .svg nor .png ("":
// no plot, no error).
func plotFileError(file string) error {
	if file != "" && !strings.HasSuffix(file, ".svg") && !strings.HasSuffix(file, ".png") {
		return badInput("--plot %q: want a .svg or .png file", file)
	}
	return nil
}

// routedNetwork loads the network of spec and the routing options of the
// engines named (comma separated) with the route flags.
func routedNetwork(spec, names string, rf *routeFlags) (*fabric.Network, []string, routing.Options, error) {
	net, err := loadNetwork(spec)
	if err != nil {
		return nil, nil, routing.Options{}, err
	}
	engs := strings.Split(names, ",")
	opts, err := rf.options(net, engs)
	return net, engs, opts, err
}
