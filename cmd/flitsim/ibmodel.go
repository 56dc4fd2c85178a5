package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"flitsim/configs"
	"flitsim/configs/pipeline"
	"flitsim/fabric"
	"flitsim/faults"
	"flitsim/results"
	"flitsim/routing"
	"flitsim/sim"
	"flitsim/sim/ibmodel"
	"flitsim/traffic"
)

const ibmodelHelp = `
Subcommands:
  run SPEC|FILE --routing R --traffic K [flags]   one scenario through flitsim and the IB model, side by side
  compare [--set NAME] [-o DIR] [-j N]           a set of scenarios (resumable), one table
  rescore DIR --hw key=value,...                 flitsim's side of a compare again, with more hardware keys
  sets                                           list the sets of compare

The IB model is the Mellanox OMNeT++ InfiniBand flit model the thesis'
tables came from, built outside the repository by docs/ibmodel/build.sh
(make ibmodel-build); --home or IBMODEL_HOME names where. docs/ibmodel.md
explains the comparison and its results.`

func ibmodelCmd(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprintf(stdout, "Usage: flitsim ibmodel SUBCOMMAND [arguments]\n%s\n", ibmodelHelp)
		if len(args) == 0 {
			return badInput("missing subcommand (run, compare, sets)")
		}
		return nil
	}
	switch args[0] {
	case "run":
		return ibmodelRun(args[1:], stdout, stderr)
	case "compare":
		return ibmodelCompare(args[1:], stdout, stderr)
	case "rescore":
		return ibmodelRescore(args[1:], stdout, stderr)
	case "sets":
		for _, s := range witnessSets() {
			fmt.Fprintf(stdout, "%-10s %4d scenarios  %s\n", s.name, len(s.scenarios()), s.help)
		}
		return nil
	}
	return badInput("unknown subcommand %q (run, compare, sets)", args[0])
}

// witness is one scenario run through both simulators: a fabric, its
// failures, a routing, a pattern, and flitsim's hardware (as --hw and
// --sim overrides; the model gets the same through ibmodel.Params).
type witness struct {
	Name      string  `json:"name"`
	Fabric    string  `json:"fabric"`
	Links     float64 `json:"links_pct,omitempty"`
	FaultSeed uint64  `json:"fault_seed,omitempty"`
	Engine    string  `json:"routing"`
	Traffic   string  `json:"traffic"`
	MsgBytes  string  `json:"msg_bytes"`
	Load      float64 `json:"load,omitempty"`
	HW        string  `json:"hw,omitempty"`
	// MaxTime and Warmup bound infinite traffic: both simulators run to
	// MaxTime and count bytes from Warmup on.
	MaxTime string `json:"max_time,omitempty"`
	Warmup  string `json:"warmup,omitempty"`
	Seed    uint64 `json:"seed"`
	// ModelPhases gives the model flitsim's hiccup phases (the patched
	// model); off, the model's sinks hiccup in phase from 1 ns.
	ModelPhases bool `json:"model_phases,omitempty"`
	// MaxBeingSent is the model's bound on packets an input sends at once
	// (0: unbounded, as flitsim).
	MaxBeingSent int `json:"max_being_sent,omitempty"`
	// ModelSet are ini lines for the model that override what flitsim's
	// hardware gives it (experiments on the model's own parameters).
	ModelSet []string `json:"model_set,omitempty"`
}

// label names a scenario for people: its name, routing, traffic and
// message size ("16-ary 2-tree 5% dfsssp uniform 1MTU"); --only matches it.
func (w witness) label() string {
	return fmt.Sprintf("%s %s %s %s", w.Name, w.Engine, w.Traffic, w.MsgBytes)
}

// key names a scenario uniquely in a results file.
func (w witness) key() string {
	b, _ := json.Marshal(w)
	return string(b)
}

// witnessOutcome is one scenario's results in both simulators.
type witnessOutcome struct {
	Scenario witness `json:"scenario"`
	// Version is the comparison's version that made it (witnessVersion;
	// absent in the first).
	Version int `json:"version,omitempty"`
	// Throughputs in GB/s of payload (the model's sink rates count headers
	// and are scaled to payload); runtimes of finite traffic in ns.
	FlitsimGBs    float64 `json:"flitsim_gbs"`
	ModelGBs      float64 `json:"model_gbs"`
	FlitsimRunNs  float64 `json:"flitsim_runtime_ns,omitempty"`
	ModelRunNs    float64 `json:"model_runtime_ns,omitempty"`
	DiffPct       float64 `json:"diff_pct"` // model vs flitsim
	FlitsimLatNs  float64 `json:"flitsim_latency_ns,omitempty"`
	ModelLatNs    float64 `json:"model_latency_ns,omitempty"`
	FlitsimEvents int64   `json:"flitsim_events"`
	ModelEvents   int64   `json:"model_events"`
	FlitsimWallS  float64 `json:"flitsim_wall_s"`
	ModelWallS    float64 `json:"model_wall_s"`
	ModelFlits    int64   `json:"model_flits"`
	WantFlits     int64   `json:"want_flits,omitempty"`
	Verdict       string  `json:"verdict"`
	Note          string  `json:"note,omitempty"`
}

func ibmodelRun(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("ibmodel run", "ibmodel run SPEC|FILE --routing NAME --traffic KIND [--msg-bytes N] [--load F] [--links P --fault-seed S] [--hw key=value,...] [--max-time D --warmup D] [--phases] [--home DIR] [-o DIR] [--json]",
		"Runs one scenario through flitsim's simulator and through the Mellanox OMNeT++ IB model on the same\n"+
			"network, failures, tables, traffic and hardware, and prints both. -o keeps the model's inputs and\n"+
			"outputs (default: a temporary folder).", stderr)
	var w witness
	fs.StringVar(&w.Engine, "routing", "dfsssp", "routing engine")
	fs.StringVar(&w.Traffic, "traffic", "exchange", "exchange, uniform, shift, permutation or bitrev")
	fs.StringVar(&w.MsgBytes, "msg-bytes", "1MTU", "message size (whole MTUs above one MTU)")
	fs.Float64Var(&w.Load, "load", 1, "offered load per HCA")
	fs.Float64Var(&w.Links, "links", 0, "fail this percent of the inter-switch cables")
	fs.Uint64Var(&w.FaultSeed, "fault-seed", 1, "seed of the failure draw")
	fs.StringVar(&w.HW, "hw", "", "hardware overrides key=value,... (both simulators)")
	fs.StringVar(&w.MaxTime, "max-time", "200us", "infinite traffic: simulated time of both runs")
	fs.StringVar(&w.Warmup, "warmup", "50us", "infinite traffic: count bytes from here on")
	fs.Uint64Var(&w.Seed, "traffic-seed", 1, "seed of the traffic (destinations, rank order, hiccup phases)")
	fs.BoolVar(&w.ModelPhases, "phases", false, "give the model flitsim's hiccup phases (needs the patched model)")
	fs.IntVar(&w.MaxBeingSent, "max-being-sent", 0, "the model's packets per input at once (0: unbounded, as flitsim)")
	modelSet := fs.String("model-set", "", "ini lines for the model, key=value;key=value (they override what the hardware gives it)")
	home := fs.String("home", os.Getenv("IBMODEL_HOME"), "where docs/ibmodel/build.sh built the model (IBMODEL_HOME)")
	out := fs.String("o", "", "keep the model's inputs and outputs here")
	asJSON := fs.Bool("json", false, "print JSON")
	spec, err := parseOne(fs, args, "SPEC or FILE")
	if err != nil {
		return err
	}
	w.Fabric, w.Name = spec, spec
	for _, kv := range strings.Split(*modelSet, ";") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			w.ModelSet = append(w.ModelSet, strings.TrimSpace(k)+" = "+strings.TrimSpace(v))
		} else if strings.TrimSpace(kv) != "" {
			return badInput("--model-set %q: want key=value", kv)
		}
	}
	m, err := ibmodel.Find(*home)
	if err != nil {
		return asInput(err)
	}
	dir := *out
	if dir == "" {
		if dir, err = os.MkdirTemp("", "flitsim-ibmodel-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	}
	o, err := runWitness(context.Background(), m, w, dir)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(stdout, o)
	}
	return witnessTable(stdout, []witnessOutcome{*o})
}

// witnessPoint is the flitsim point of a scenario.
func witnessPoint(w witness) (configs.Point, *pipeline.Networks, error) {
	var pt configs.Point
	p := sim.DefaultParams()
	var err error
	if w.HW != "" {
		if p.HW, err = configs.HardwareOverrides("hw", w.HW); err != nil {
			return pt, nil, asInput(err)
		}
	}
	kind, err := traffic.ParseKind(w.Traffic)
	if err != nil {
		return pt, nil, asInput(err)
	}
	p.Traffic = traffic.Spec{Kind: kind, JobTraffic: traffic.JobTraffic{Load: w.Load, Distance: 1}}
	if p.Traffic.Load == 0 {
		p.Traffic.Load = 1
	}
	if p.Traffic.MessageBytes, err = traffic.ParseBytes(w.MsgBytes, p.HW.MTU); err != nil {
		return pt, nil, badInput("msg_bytes: %v", err)
	}
	p.Seed = w.Seed
	if !p.Traffic.Finite() {
		over := "max_time=" + w.MaxTime + ",warmup=" + w.Warmup + ",steady_fraction=2"
		if err := configs.SimOverrides("sim", over, &p); err != nil {
			return pt, nil, asInput(err)
		}
	}
	p.Counters = true // packet latencies
	nets := pipeline.NewNetworks()
	if _, err := nets.Get(w.Fabric); err != nil {
		return pt, nil, asInput(err)
	}
	opts := routing.DefaultOptions()
	opts.VLs = p.HW.VLs
	opts.PathVLs = w.Engine == "torus-2qos" // the model keeps VL = SL end to end
	pt = configs.Point{Key: w.Name, Topology: configs.TopologyEntry{Spec: w.Fabric, Label: w.Fabric},
		Traffic: configs.TrafficEntry{Kind: w.Traffic, Spec: p.Traffic}, FaultSeed: w.FaultSeed,
		Faults:  faults.Spec{LinkPercent: w.Links, Seed: w.FaultSeed},
		Routing: configs.RoutingEntry{Engine: w.Engine, Label: w.Engine}, Options: opts, Params: p}
	return pt, nets, asInput(pt.Params.Normalize())
}

// witnessVersion numbers what a comparison's outcome means. Version 1
// (records without a version) came before 2026-11-30: flitsim's default
// hop was then whole flits taken once fully arrived, and the model's
// figures of infinite traffic were its counted bytes scaled by
// payload/(payload + headers), 1.8 % high for 2,074-byte packets, since
// the model counts whole flits (ibmodel.PayloadShare). compare runs the
// scenarios of an earlier version again; rescore scales their model
// figures.
const witnessVersion = 2

// v1ModelShare is the share version 1 scaled the model's counted bytes
// by for infinite traffic of msg bytes a message.
func v1ModelShare(hw fabric.Hardware, msg int) float64 {
	b := min(msg, hw.MTU)
	return float64(b) / float64(b+hw.HeaderBytes)
}

// runWitness runs scenario w through flitsim and the model (inputs and
// outputs of the model in dir).
func runWitness(ctx context.Context, m *ibmodel.Model, w witness, dir string) (*witnessOutcome, error) {
	pt, nets, err := witnessPoint(w)
	if err != nil {
		return nil, err
	}
	o := pipeline.Run(pt, "", nets, sim.Run)
	switch {
	case o.Err != nil:
		return nil, o.Err
	case !o.Routed.OK():
		return nil, fmt.Errorf("%s on %s: routing failed: %s", w.Engine, w.Fabric, o.Routed.Problem())
	}
	p := pt.Params
	res := o.Result
	out := &witnessOutcome{Scenario: w, Version: witnessVersion, FlitsimGBs: res.ThroughputGBs, FlitsimRunNs: res.RuntimeNs, FlitsimEvents: res.Events,
		FlitsimWallS: res.WallSeconds, Verdict: string(res.Verdict)}
	if res.Counters != nil {
		out.FlitsimLatNs = res.Counters.Latency.MeanNs
	}
	in := ibmodel.Inputs{Net: o.Net, Tables: o.Routed.Tables, HW: p.HW, Traffic: p.Traffic, Seed: p.Seed,
		Patched: m.Patched, EndWhenDone: m.Ends, MaxBeingSent: w.MaxBeingSent, SimTimePs: p.MaxTime, StatStartPs: p.Warmup, Set: w.ModelSet}
	if p.Traffic.Finite() {
		// The exchange ends by itself: room for the model to be much slower.
		in.SimTimePs, in.StatStartPs = max(int64(res.RuntimeNs*1000)*4, 100*1000*1000), 0
	} else {
		per := float64(p.Traffic.MessageBytes) * 8 / p.HW.LinkGbps * 1000 // ps a message at link rate
		in.Messages = int(float64(p.MaxTime)/per*1.3) + 16
	}
	if w.ModelPhases {
		in.Phases = make([]int64, o.Net.NumHCAs())
		for i := range in.Phases {
			in.Phases[i] = sim.HiccupPhase(p, i)
		}
	}
	lay, err := ibmodel.Write(dir, in)
	if err != nil {
		return nil, err
	}
	mr, err := m.Run(ctx, lay)
	if err != nil {
		return nil, err
	}
	out.ModelEvents, out.ModelWallS, out.ModelFlits, out.WantFlits = mr.Events, mr.Wall.Seconds(), mr.Flits, lay.Flits
	out.ModelLatNs = mr.MsgLatency.Mean
	if p.Traffic.Finite() {
		out.ModelRunNs = float64(mr.LastConsumedPs) / 1000
		if lay.Flits != mr.Flits {
			out.Note = fmt.Sprintf("the model consumed %d of %d flits (dropped or deadlocked)", mr.Flits, lay.Flits)
		}
		if out.ModelRunNs > 0 && res.RuntimeNs > 0 {
			out.ModelGBs = res.ThroughputGBs * res.RuntimeNs / out.ModelRunNs // the same payload over its runtime
		}
	} else {
		out.ModelGBs = mr.ThroughputGBs() * ibmodel.PayloadShare(p.HW, p.Traffic.MessageBytes)
	}
	if out.FlitsimGBs > 0 {
		out.DiffPct = 100 * (out.ModelGBs - out.FlitsimGBs) / out.FlitsimGBs
	}
	return out, nil
}

// witnessTable prints outcomes side by side.
func witnessTable(w io.Writer, os []witnessOutcome) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\trouting\ttraffic\tflitsim GB/s\tmodel GB/s\tmodel vs flitsim\tflitsim lat ns\tmodel lat ns\tflitsim s\tmodel s\tnote\t")
	for _, o := range os {
		s := o.Scenario
		tr := s.Traffic + " " + s.MsgBytes
		if !(s.Traffic == "exchange") {
			tr += fmt.Sprintf(" @%g", s.Load)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.2f\t%.2f\t%+.1f %%\t%.0f\t%.0f\t%.1f\t%.0f\t%s\t\n", s.Name, s.Engine, tr, o.FlitsimGBs, o.ModelGBs, o.DiffPct,
			o.FlitsimLatNs, o.ModelLatNs, o.FlitsimWallS, o.ModelWallS, o.Note)
	}
	return tw.Flush()
}

// witnessSet is a named list of scenarios for compare.
type witnessSet struct {
	name, help string
	scenarios  func() []witness
}

// thesisHW is flitsim's hardware for the model comparison: the defaults
// (the thesis' parameters), here spelled out.
const thesisHW = ""

func witnessSets() []witnessSet {
	return []witnessSet{
		{"quick", "a 16-HCA fat tree with the thesis' hardware and with the 2013 release's: uniform at three loads, exchanges, shift; a minute", quickSet},
		{"core", "every Table 4.4 fabric fault-free and at 5 % failed cables with its best routing: exchange of 1 MTU, uniform traffic at load 1; hours", coreSet},
		{"issue48", "every Table 4.4 fabric fault-free and at 1/5/20 % failed cables (two draws), its best routing and DFSSSP, exchanges of 1 and 10 MTU, uniform at three loads; days", issue48Set},
		{"table44", "Table 4.4's exchange of 10 MTU on the 16-ary 2-tree, the 2D torus and the random network, fault-free and 1, 5, 20 % failed cables (draw 1); about 12 model-hours", table44Set},
	}
}

func quickSet() []witness {
	var ws []witness
	ft := "kary-ntree:k=4,n=2"
	for _, hw := range []struct{ name, hw string }{{"thesis", thesisHW}, {"matched-2013", "header_bytes=0,vls=1,crossbar_gbps=48,switch_latency=100ns,hiccup=0"}} {
		for _, load := range []float64{0.2, 0.5, 1} {
			ws = append(ws, witness{Name: "4-ary 2-tree " + hw.name, Fabric: ft, Engine: "ftree", Traffic: "uniform", MsgBytes: "1MTU", Load: load, HW: hw.hw, MaxTime: "200us", Warmup: "50us", Seed: 1, ModelPhases: true})
		}
		for _, m := range []string{"1MTU", "10MTU"} {
			ws = append(ws, witness{Name: "4-ary 2-tree " + hw.name, Fabric: ft, Engine: "ftree", Traffic: "exchange", MsgBytes: m, HW: hw.hw, Seed: 1, ModelPhases: true})
		}
		ws = append(ws, witness{Name: "4-ary 2-tree " + hw.name, Fabric: ft, Engine: "ftree", Traffic: "shift", MsgBytes: "1MTU", Load: 1, HW: hw.hw, MaxTime: "200us", Warmup: "50us", Seed: 1, ModelPhases: true})
	}
	return ws
}

// table44Fabrics are Table 4.2's balanced networks as the small campaign
// builds them, with the best routing of Table 4.4 on each.
var table44Fabrics = []struct{ label, spec, best string }{
	{"2D mesh", "mesh:dims=5x5,hcas=275,redundancy=6", "torus-2qos"},
	{"3D mesh", "mesh:dims=3x3x3,hcas=270,redundancy=4", "torus-2qos"},
	{"2D torus", "torus:dims=5x5,hcas=275,redundancy=6", "torus-2qos"},
	{"3D torus", "torus:dims=3x3x3,hcas=270,redundancy=4", "dfsssp"},
	{"Kautz", "kautz:d=2,k=4,hcas=264,redundancy=6", "dfsssp"},
	{"16-ary 2-tree", "kary-ntree:k=16,n=2", "dfsssp"},
	{"XGFT", "xgft:m=22,w=11,hcas=264", "dfsssp"},
	{"Dragonfly", "dragonfly:a=10,p=5,h=5,g=4,hcas=280", "dfsssp"},
	{"Random", "random:switches=32,hcas=256,links=256,radix=36,seed=1", "dfsssp"},
}

func coreSet() []witness {
	var ws []witness
	for _, f := range table44Fabrics {
		for _, pct := range []float64{0, 5} {
			name := fmt.Sprintf("%s %g%%", f.label, pct)
			ws = append(ws, witness{Name: name, Fabric: f.spec, Links: pct, FaultSeed: 1, Engine: f.best, Traffic: "exchange", MsgBytes: "1MTU", Seed: 1, ModelPhases: true},
				witness{Name: name, Fabric: f.spec, Links: pct, FaultSeed: 1, Engine: f.best, Traffic: "uniform", MsgBytes: "1MTU", Load: 1,
					MaxTime: "60us", Warmup: "20us", Seed: 1, ModelPhases: true})
		}
	}
	return ws
}

func issue48Set() []witness {
	var ws []witness
	for _, f := range table44Fabrics {
		type level struct {
			pct  float64
			seed uint64
		}
		levels := []level{{0, 1}}
		for _, pct := range []float64{1, 5, 20} {
			levels = append(levels, level{pct, 1}, level{pct, 2})
		}
		engines := []string{f.best}
		if f.best != "dfsssp" {
			engines = append(engines, "dfsssp")
		}
		for _, l := range levels {
			name := fmt.Sprintf("%s %g%% #%d", f.label, l.pct, l.seed)
			for _, e := range engines {
				for _, m := range []string{"1MTU", "10MTU"} {
					ws = append(ws, witness{Name: name, Fabric: f.spec, Links: l.pct, FaultSeed: l.seed, Engine: e, Traffic: "exchange", MsgBytes: m, Seed: 1, ModelPhases: true})
				}
				for _, load := range []float64{0.3, 0.7, 1} {
					ws = append(ws, witness{Name: name, Fabric: f.spec, Links: l.pct, FaultSeed: l.seed, Engine: e, Traffic: "uniform", MsgBytes: "1MTU", Load: load,
						MaxTime: "100us", Warmup: "30us", Seed: 1, ModelPhases: true})
				}
			}
		}
	}
	return ws
}

func table44Set() []witness {
	var ws []witness
	for _, f := range table44Fabrics {
		if f.label != "16-ary 2-tree" && f.label != "2D torus" && f.label != "Random" {
			continue
		}
		for _, pct := range []float64{0, 1, 5, 20} {
			ws = append(ws, witness{Name: fmt.Sprintf("%s %g%%", f.label, pct), Fabric: f.spec, Links: pct, FaultSeed: 1, Engine: f.best,
				Traffic: "exchange", MsgBytes: "10MTU", Seed: 1, ModelPhases: true})
		}
	}
	return ws
}

func ibmodelCompare(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("ibmodel compare", "ibmodel compare [--set NAME] [--home DIR] [-o DIR] [-j N] [--only SUBSTRING]",
		"Runs every scenario of a set (flitsim ibmodel sets) through flitsim and the IB model and prints one table.\n"+
			"Each finished scenario is appended to DIR/results.jsonl at once; a run that is stopped resumes where it\n"+
			"was. DIR/table.md holds the table; each scenario's model files are in DIR/runs/N.", stderr)
	set := fs.String("set", "quick", "the scenarios (flitsim ibmodel sets)")
	home := fs.String("home", os.Getenv("IBMODEL_HOME"), "where docs/ibmodel/build.sh built the model (IBMODEL_HOME)")
	out := fs.String("o", "", "results directory (default out/ibmodel-SET)")
	jobs := fs.Int("j", 1, "scenarios at once (each model run takes one processor)")
	only := fs.String("only", "", "run only the scenarios whose label (name, routing, traffic, size) contains this")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return badInput("compare takes no arguments, got %q", pos)
	}
	if *jobs < 1 {
		return badInput("-j %d: want 1 or more", *jobs)
	}
	var chosen *witnessSet
	for _, s := range witnessSets() {
		if s.name == *set {
			chosen = &s
		}
	}
	if chosen == nil {
		return badInput("--set %q: unknown (flitsim ibmodel sets)", *set)
	}
	m, err := ibmodel.Find(*home)
	if err != nil {
		return asInput(err)
	}
	dir := *out
	if dir == "" {
		dir = filepath.Join("out", "ibmodel-"+chosen.name)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	lock, err := results.AcquireLock(dir, "flitsim ibmodel compare")
	if err != nil {
		return err
	}
	defer lock.Release()
	path := filepath.Join(dir, "results.jsonl")
	done, err := readWitnessResults(path)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	scen := chosen.scenarios()
	var pending []int
	chosenN, stale := 0, 0
	for i, w := range scen {
		if *only != "" && !strings.Contains(w.label(), *only) {
			continue
		}
		chosenN++
		if o, ok := done[w.key()]; !ok || o.Version != witnessVersion {
			if ok {
				stale++
			}
			pending = append(pending, i)
		}
	}
	if chosenN == 0 {
		return badInput("--only %q: no scenario of set %s matches (names like %q)", *only, chosen.name, scen[0].label())
	}
	fmt.Fprintf(stderr, "ibmodel compare %s: %d scenarios, %d chosen, %d done, %d to run -> %s\n", chosen.name, len(scen), chosenN, chosenN-len(pending), len(pending), dir)
	if stale > 0 {
		fmt.Fprintf(stderr, "ibmodel compare: %d of them were done by an earlier version of the comparison (other defaults or model figures; witnessVersion) and run again\n", stale)
	}
	errs := runWitnesses(m, scen, pending, *jobs, dir, stderr, func(o *witnessOutcome) error {
		line, _ := json.Marshal(o)
		if _, err := f.Write(append(line, '\n')); err != nil {
			return err
		}
		done[o.Scenario.key()] = *o
		return f.Sync()
	})
	var rows []witnessOutcome
	for _, w := range scen {
		if o, ok := done[w.key()]; ok && o.Version == witnessVersion {
			rows = append(rows, o)
		}
	}
	var b strings.Builder
	if err := witnessTable(&b, rows); err != nil {
		return err
	}
	fmt.Fprint(stdout, b.String())
	if err := results.WriteFileAtomic(filepath.Join(dir, "table.md"), []byte(witnessMarkdown(rows))); err != nil {
		return err
	}
	return errors.Join(errs...)
}

// runWitnesses runs scenarios scen[pending[k]] on jobs goroutines, each in
// dir/runs/N, and hands each outcome to keep as it finishes; it returns
// the scenarios that failed (keep's own error ends it).
func runWitnesses(m *ibmodel.Model, scen []witness, pending []int, jobs int, dir string, progress io.Writer, keep func(*witnessOutcome) error) []error {
	todo := make(chan int)
	type finished struct {
		i   int
		o   *witnessOutcome
		err error
	}
	fin := make(chan finished)
	for range jobs {
		go func() {
			for i := range todo {
				o, err := runWitness(context.Background(), m, scen[i], filepath.Join(dir, "runs", fmt.Sprint(i)))
				fin <- finished{i, o, err}
			}
		}()
	}
	go func() {
		for _, i := range pending {
			todo <- i
		}
		close(todo)
	}()
	var errs []error
	start := time.Now()
	for k := range pending {
		r := <-fin
		if r.err == nil {
			r.err = keep(r.o)
		}
		if r.err != nil {
			errs = append(errs, fmt.Errorf("scenario %d (%s): %w", r.i, scen[r.i].Name, r.err))
			fmt.Fprintf(progress, "[%d/%d] scenario %d failed: %v\n", k+1, len(pending), r.i, r.err)
			continue
		}
		o := r.o
		fmt.Fprintf(progress, "[%d/%d %s] %s: flitsim %.2f, model %.2f GB/s (%+.1f %%), model %.0f s\n", k+1, len(pending),
			time.Since(start).Round(time.Second), o.Scenario.label(),
			o.FlitsimGBs, o.ModelGBs, o.DiffPct, o.ModelWallS)
	}
	return errs
}

// readWitnessResults reads a results file of compare, by scenario key; a
// torn last line (a killed run) is ignored.
func readWitnessResults(path string) (map[string]witnessOutcome, error) {
	done := map[string]witnessOutcome{}
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return done, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	for sc.Scan() {
		var o witnessOutcome
		if json.Unmarshal(sc.Bytes(), &o) == nil {
			done[o.Scenario.key()] = o
		}
	}
	return done, sc.Err()
}

// witnessMarkdown is the table of compare for docs.
func witnessMarkdown(rows []witnessOutcome) string {
	var b strings.Builder
	b.WriteString("| scenario | routing | traffic | flitsim GB/s | IB model GB/s | model vs flitsim | flitsim latency ns | model latency ns | model wall s | note |\n")
	b.WriteString("|---|---|---|---:|---:|---:|---:|---:|---:|---|\n")
	for _, o := range rows {
		s := o.Scenario
		tr := s.Traffic + " " + s.MsgBytes
		if s.Traffic != "exchange" {
			tr += fmt.Sprintf(" at %g", s.Load)
		}
		lat := func(x float64) string {
			if x == 0 || math.IsNaN(x) {
				return "–"
			}
			return fmt.Sprintf("%.0f", x)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %.2f | %.2f | %+.1f %% | %s | %s | %.0f | %s |\n", s.Name, s.Engine, tr, o.FlitsimGBs, o.ModelGBs, o.DiffPct,
			lat(o.FlitsimLatNs), lat(o.ModelLatNs), o.ModelWallS, o.Note)
	}
	return b.String()
}

// rescoreKeys are the hardware keys rescore may add: flitsim's own
// choices, which change nothing the model is given at load 1 and in
// finite traffic (wire_bytes: the model always sends whole flits,
// ibmodel.ModelBytes; below load 1 it also moves flitsim's message rate,
// which the model's gaps followed when it ran, by at most the last
// flit's share). hca_buffer_flits is not one: the model's HCA buffer is
// given it and holds its sink's queue within those credits
// (docs/ibmodel.md, mechanism 8, retracted).
var rescoreKeys = []string{"forward_at_start", "shared_input_pointer", "voq", "wire_bytes"}

func ibmodelRescore(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("ibmodel rescore", "ibmodel rescore DIR --hw key=value,... [-o FILE.md]",
		"Runs flitsim's side of every scenario a compare finished in DIR again with more hardware keys, the\n"+
			"ones that change flitsim and nothing the model is given ("+strings.Join(rescoreKeys, ", ")+"), and\n"+
			"prints the model's numbers beside both of flitsim's: how much of a difference a mechanism explains.", stderr)
	hw := fs.String("hw", "", "the hardware keys to add, key=value,...")
	out := fs.String("o", "", "also write the table here (Markdown)")
	dir, err := parseOne(fs, args, "DIR")
	if err != nil {
		return err
	}
	for _, kv := range strings.Split(*hw, ",") {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(rescoreKeys, strings.TrimSpace(k)) {
			return badInput("--hw %s: rescore takes %s", k, strings.Join(rescoreKeys, ", "))
		}
	}
	done, err := readWitnessResults(filepath.Join(dir, "results.jsonl"))
	if err != nil {
		return err
	}
	if len(done) == 0 {
		return badInput("%s: no scenario of an 'ibmodel compare' finished there (its results.jsonl)", dir)
	}
	var rows []witnessOutcome
	for _, o := range done {
		rows = append(rows, o)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Scenario.key() < rows[j].Scenario.key() })
	var b strings.Builder
	fmt.Fprintf(&b, "| scenario | routing | traffic | IB model GB/s | flitsim GB/s | model vs flitsim | flitsim with %s | model vs it |\n|---|---|---|---:|---:|---:|---:|---:|\n", *hw)
	for _, o := range rows {
		w := o.Scenario
		if w.HW != "" {
			w.HW += ","
		}
		w.HW += *hw
		pt, nets, err := witnessPoint(w)
		if err != nil {
			return err
		}
		r := pipeline.Run(pt, "", nets, sim.Run)
		if r.Err != nil || r.Result == nil {
			return fmt.Errorf("%s: %v", w.Name, r.Err)
		}
		tr := w.Traffic + " " + w.MsgBytes
		if w.Traffic != "exchange" {
			tr += fmt.Sprintf(" at %g", w.Load)
		}
		again := r.Result.ThroughputGBs
		if o.Version < witnessVersion && !pt.Params.Traffic.Finite() {
			// Version 1 scaled the model's whole flits as bytes.
			hw, mb := pt.Params.HW, pt.Params.Traffic.MessageBytes
			o.ModelGBs *= ibmodel.PayloadShare(hw, mb) / v1ModelShare(hw, mb)
			o.DiffPct = 100 * (o.ModelGBs - o.FlitsimGBs) / o.FlitsimGBs
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %.2f | %.2f | %+.1f %% | %.2f | %+.1f %% |\n", w.Name, w.Engine, tr, o.ModelGBs, o.FlitsimGBs, o.DiffPct,
			again, 100*(o.ModelGBs-again)/again)
	}
	fmt.Fprint(stdout, b.String())
	if *out != "" {
		return results.WriteFileAtomic(*out, []byte(b.String()))
	}
	return nil
}
