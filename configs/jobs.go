package configs

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"flitsim/fabric"
	"flitsim/fabric/param"
	"flitsim/routing"
	"flitsim/traffic"
)

// Workload is a decoded jobs file: the jobs running on a fabric, each an
// explicit node list or a size placed by a synthetic placement, and
// optionally a fragmented mix of further jobs drawn by the seeded
// fragmentation model (traffic.Fragmentation) on the HCAs left free.
//
//	seed = 1
//	[[job]]
//	id = "a2a"
//	nodes = ["node-0001", "0x0002c90300a1b2c4", "lid:17"]
//	[[job]]
//	size = 64
//	placement = "round-robin"
//	[fragmentation]
//	utilization = 0.9
//	max_size = 200
//
// A campaign file holds the same [[job]] and [fragmentation] tables, or
// names a jobs file (jobs_file); its jobs_seed, else the jobs file's seed,
// places them, else each traffic seed is another placement.
type Workload struct {
	// Seed seeds the random placements and the fragmentation model
	// (default 1).
	Seed *int64     `toml:"seed" json:"seed,omitempty"`
	Jobs []JobEntry `toml:"job" json:"jobs,omitempty"`
	// Fragmentation holds the keys traffic.Fragmentation declares.
	Fragmentation map[string]any `toml:"fragmentation" json:"fragmentation,omitempty"`

	Source string `toml:"-" json:"-"`
	lines  keyIndex
	traces *traceCache // the trace jobs' traces, opened once
}

// JobEntry is one [[job]] table. Its own keys are declared here (id,
// nodes, size, placement, routing), its traffic keys by
// traffic.JobTraffic (pattern, msg_bytes, grid, start, iterations, load,
// distance, burst_on, burst_off); both are decoded through those
// declarations.
type JobEntry struct {
	// ID names the job in tables (default: job<N>, N counted from 1).
	ID string `param:"id" unset:"job<N>" help:"names the job in tables: a plain word"`
	// Nodes lists the job's HCAs: node references (fabric.Resolver).
	Nodes []string `param:"nodes" help:"the job's HCAs: node names, 0x node or port GUIDs, or lid:N"`
	// Size and Placement place a job without a node list.
	Size      int    `param:"size" range:"[1,16777216]" help:"a job of this many HCAs, placed on the free ones by placement"`
	Placement string `param:"placement" unset:"contiguous" help:"how a sized job is placed; also switches:N: dealt evenly over N switches drawn at random among those with a free HCA (the workload seed), ranks in fabric order"`
	// Routing is the job's own adaptive routing mode (routing.ModeNames;
	// default: the engine's), as an Aries job sets
	// MPICH_GNI_ROUTING_MODE; it needs an adaptive engine.
	Routing string `param:"routing" unset:"the engine's" help:"the job's own adaptive routing mode (an adaptive engine's modes)"`
	// Given lists the own keys the table sets.
	Given []string
	// Traffic holds the traffic keys as the table gives them, decoded
	// through traffic.JobTraffic's declarations for a given MTU (traffic).
	Traffic map[string]any
}

// ParamValues lists the placements and routing modes (param.Valuer).
func (*JobEntry) ParamValues(key string) []string {
	var v []string
	switch key {
	case "placement":
		for _, p := range Placements() {
			v = append(v, p.Name)
		}
	case "routing":
		v = routing.ModeNames()
	}
	return v
}

// MarshalJSON writes the job as the campaign's identity has it: its own
// keys as given, from their declarations (those declared before routing,
// then pattern, msg_bytes and grid, then routing and any declared after
// it), the other traffic keys under params.
func (j JobEntry) MarshalJSON() ([]byte, error) {
	out := jsonObject{}
	own := param.Of(&JobEntry{})
	r := slices.IndexFunc(own, func(d param.Decl) bool { return d.Key == "routing" })
	put := func(ds []param.Decl) {
		for _, d := range ds {
			if contains(j.Given, d.Key) {
				out.put(d.Key, d.Take(&j))
			}
		}
	}
	put(own[:r])
	for _, k := range []string{"pattern", "msg_bytes", "grid"} {
		if v, ok := j.Traffic[k]; ok {
			out.put(k, v)
		}
	}
	put(own[r:])
	params := map[string]any{}
	for k, v := range j.Traffic {
		if k != "pattern" && k != "msg_bytes" && k != "grid" {
			params[k] = v
		}
	}
	if len(params) > 0 {
		out.put("params", params)
	}
	return out.bytes()
}

// Placements lists the synthetic placements with their help texts: the
// rank orders of package traffic under the names a jobs file uses.
func Placements() []struct{ Name, Help string } {
	return []struct{ Name, Help string }{
		{"contiguous", "the lowest free HCAs in fabric order (HCAs of a switch together; the default)"},
		{"random", "HCAs drawn at random among the free ones (the workload seed)"},
		{"round-robin", "one free HCA per switch in turn, switches in fabric order"},
	}
}

// ParamAccepts takes, for the placement key, switches:N with N ≥ 1 beside
// the named placements (param.Acceptor).
func (*JobEntry) ParamAccepts(key string) func(string) error {
	if key != "placement" {
		return nil
	}
	return func(s string) error {
		if _, ok := placementSwitches(s); !ok {
			return fmt.Errorf("or switches:N with N ≥ 1 (the job dealt over N random switches)")
		}
		return nil
	}
}

// placementSwitches parses switches:N.
func placementSwitches(p string) (int, bool) {
	v, ok := strings.CutPrefix(p, "switches:")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(v)
	return n, err == nil && n >= 1
}

func placementOrder(p string) (traffic.Order, bool) {
	switch p {
	case "", "contiguous":
		return traffic.ByHCA, true
	case "random":
		return traffic.RandomOrder, true
	case "round-robin":
		return traffic.RoundRobin, true
	}
	return "", false
}

// LoadWorkload reads and checks a jobs file.
func LoadWorkload(path string) (*Workload, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading jobs file: %w", err)
	}
	return ParseWorkload(data, path)
}

// ParseWorkload decodes and checks jobs-file text; file names it in errors.
func ParseWorkload(data []byte, file string) (*Workload, error) {
	return decodeWorkload(data, file, false)
}

// workloadKey reports whether a key of a campaign file belongs to its
// workload (the [[job]] and [fragmentation] tables).
func workloadKey(key string) bool {
	return key == "job" || key == "fragmentation" || strings.HasPrefix(key, "job.") || strings.HasPrefix(key, "fragmentation.")
}

// decodeWorkload decodes the workload of a jobs file, or of a campaign
// file (inCampaign: its other keys are the campaign's). A campaign
// without [[job]] or [fragmentation] tables has none: nil.
func decodeWorkload(data []byte, file string, inCampaign bool) (*Workload, error) {
	if !inCampaign { // a campaign's shapes are checked by Parse
		if err := checkShapes(data, file, workloadShapes); err != nil {
			return nil, err
		}
	}
	var raw struct {
		Seed          *int64           `toml:"seed"`
		Job           []map[string]any `toml:"job"`
		Fragmentation map[string]any   `toml:"fragmentation"`
	}
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&raw)
	if err != nil {
		return nil, tomlError(err, file)
	}
	w := Workload{Seed: raw.Seed, Fragmentation: raw.Fragmentation, Source: file, lines: keyLines(data), traces: &traceCache{}}
	if inCampaign {
		if !md.IsDefined("job") && !md.IsDefined("fragmentation") {
			return nil, nil
		}
		w.Seed = nil // the campaign's jobs_seed
	} else {
		for _, k := range md.Undecoded() {
			return nil, &Error{File: file, Line: w.lines.find(k.String()), Key: k.String(), Msg: "unknown key (known: seed, [[job]] tables, a [fragmentation] table)"}
		}
	}
	jobDecls, trafficDecls := param.Of(&JobEntry{}), param.Of(&traffic.JobTraffic{})
	w.Jobs = make([]JobEntry, len(raw.Job))
	for i, m := range raw.Job {
		j := &w.Jobs[i]
		if j.Given, err = decodeKeys(w.errAt, "job", i, m, nil, jobDecls, trafficDecls, param.Env{}, j); err != nil {
			return nil, err
		}
		j.Traffic = map[string]any{}
		for k, v := range m {
			if _, ok := param.Find(trafficDecls, k); ok {
				j.Traffic[k] = v
			}
		}
	}
	if err := w.validate(); err != nil {
		return nil, err
	}
	return &w, nil
}

func (w *Workload) errAt(key string, n int, format string, v ...any) error {
	c := Campaign{Source: w.Source}
	return c.errAt(w.lines, key, n, format, v...)
}

// mixID matches the ids of the fragmented mix's jobs.
var mixID = regexp.MustCompile(`^mix[0-9]+$`)

func (w *Workload) validate() error {
	if len(w.Jobs) == 0 && w.Fragmentation == nil {
		return &Error{File: w.Source, Msg: "no jobs: want [[job]] tables, a [fragmentation] table or both"}
	}
	if w.Seed != nil && *w.Seed < 0 {
		return w.errAt("seed", -1, "want a seed ≥ 0, got %d", *w.Seed)
	}
	ids := map[string]bool{}
	for i, j := range w.Jobs {
		id := j.label(i)
		if !PlainWord(id) {
			return w.errAt("job.id", i, "%q: want a plain word (letters, digits, '_', '.', '-')", id)
		}
		if ids[id] {
			return w.errAt("job.id", i, "job %q given twice", id)
		}
		if w.Fragmentation != nil && mixID.MatchString(id) {
			return w.errAt("job.id", i, "%q: the fragmented mix names its jobs mix1, mix2, ...; choose another id", id)
		}
		ids[id] = true
		sized := contains(j.Given, "size")
		switch {
		case len(j.Nodes) > 0 && sized:
			return w.errAt("job.size", i, "job %q: give nodes or size, not both", id)
		case len(j.Nodes) > 0 && j.Placement != "":
			return w.errAt("job.placement", i, "job %q: a placement places a size, the job lists its nodes", id)
		case len(j.Nodes) == 0 && !sized:
			return w.errAt("job", i, "job %q: want nodes = [...] or size = N", id)
		}
		if _, err := w.traffic(i, fabric.DefaultHardware().MTU); err != nil {
			return err
		}

	}
	if w.Fragmentation != nil {
		if _, err := w.fragmentation(); err != nil {
			return err
		}
		if _, err := w.mixTraffic(fabric.DefaultHardware().MTU); err != nil {
			return err
		}
	}
	return nil
}

// fragmentation decodes the [fragmentation] table through the keys
// traffic.Fragmentation declares; its traffic keys (traffic.JobTraffic's)
// are the mix's (mixTraffic).
func (w *Workload) fragmentation() (traffic.Fragmentation, error) {
	var f traffic.Fragmentation
	param.Defaults(&f)
	if _, err := decodeKeys(w.errAt, "fragmentation", -1, w.Fragmentation, nil, param.Of(&f), param.Of(&traffic.JobTraffic{}), param.Env{}, &f); err != nil {
		return f, err
	}
	lo := f.MinSize
	if lo == 0 {
		lo = 2
	}
	if f.MaxSize > 0 && f.MaxSize < lo {
		return f, w.errAt("fragmentation.max_size", -1, "%d is below min_size %d", f.MaxSize, lo)
	}
	return f, nil
}

// traffic decodes job i's traffic keys for messages of the given MTU.
func (w *Workload) traffic(i, mtu int) (traffic.JobTraffic, error) {
	j := w.Jobs[i]
	return w.decodeTraffic(j.label(i), "job", i, j.Traffic, mtu)
}

// mixTraffic decodes the traffic keys of the [fragmentation] table, which
// every job of the mix runs (default: one all-to-all exchange).
func (w *Workload) mixTraffic(mtu int) (traffic.JobTraffic, error) {
	return w.decodeTraffic("mix", "fragmentation", -1, w.Fragmentation, mtu)
}

// decodeTraffic decodes the traffic keys (traffic.JobTraffic's
// declarations) of the table prefix (the n-th [[job]], or
// [fragmentation] with n = -1) of job id, over the pattern's defaults.
func (w *Workload) decodeTraffic(id, prefix string, i int, m map[string]any, mtu int) (traffic.JobTraffic, error) {
	decls := param.Of(&traffic.JobTraffic{})
	var t traffic.JobTraffic
	if _, ok := m["pattern"]; ok { // the pattern first: it chooses defaults
		if _, err := decodeKeys(w.errAt, prefix, i, map[string]any{"pattern": m["pattern"]}, nil, decls, nil, param.Env{}, &t); err != nil {
			return t, err
		}
	} else {
		t.Kind = traffic.Exchange
	}
	t.MessageBytes, t.Load, t.Iterations = mtu, 1, t.Kind.DefaultIterations()
	switch t.Kind { // the declared defaults; the other patterns have none
	case traffic.Shift:
		t.Distance = 1
	case traffic.HotSpot:
		t.HotFraction = 0.1
	}
	var own []string
	for k := range m {
		if _, ok := param.Find(decls, k); !ok {
			own = append(own, k) // the table's other keys: its caller's
		}
	}
	if _, err := decodeKeys(w.errAt, prefix, i, m, own, decls, nil, param.Env{MTU: mtu, Dir: filepath.Dir(w.Source)}, &t); err != nil {
		return t, err
	}
	// What the job's size does not decide, checked on two ranks (or the
	// grid's size) now; Place checks the rest on the placed job.
	n := 2
	if len(t.Grid) > 0 {
		n = 1
		for _, d := range t.Grid {
			n *= max(d, 1)
		}
	}
	probe := traffic.Job{ID: id, Ranks: make([]int, max(n, 2)), Traffic: t}
	if t.Kind == traffic.Shift && t.Distance%2 == 0 {
		probe.Traffic.Distance = 1 // whether it maps ranks onto themselves depends on the size
	}
	if err := probe.Check(); err != nil {
		return t, w.jobErr(prefix, i, err, "")
	}
	return t, nil
}

// jobErr locates an error of traffic.Job.Check at the key it names in
// table prefix (the n-th [[job]], or [fragmentation]).
func (w *Workload) jobErr(prefix string, n int, err error, on string) error {
	key, msg := prefix, err.Error()
	var pe *param.Error
	if errors.As(err, &pe) {
		msg = pe.Msg
		if pe.Key != "" {
			key = prefix + "." + pe.Key
		}
	}
	return w.errAt(key, n, "%s%s", on, msg)
}

// Place places the workload on net (Resolve) and gives every job its
// traffic, with message sizes in MTUs of mtu bytes. The jobs of the
// fragmented mix run the traffic the [fragmentation] table gives (by
// default one all-to-all exchange of one-MTU messages each).
func (w *Workload) Place(net *fabric.Network, seed int64, mtu int) ([]traffic.Job, error) {
	ranks, ids, err := w.Resolve(net, seed)
	if err != nil {
		return nil, err
	}
	byID := map[string]int{}
	for i, j := range w.Jobs {
		byID[j.label(i)] = i
	}
	var mix traffic.JobTraffic
	if w.Fragmentation != nil {
		if mix, err = w.mixTraffic(mtu); err != nil {
			return nil, err
		}
	}
	jobs := make([]traffic.Job, len(ranks))
	for k := range ranks {
		jobs[k] = traffic.Job{ID: ids[k], Ranks: ranks[k], Traffic: mix}
		i, ok := byID[ids[k]]
		if !ok {
			if err := jobs[k].Check(); err != nil {
				return nil, w.jobErr("fragmentation", -1, err, "on "+net.Name+": ")
			}
			continue
		}
		if jobs[k].Traffic, err = w.traffic(i, mtu); err != nil {
			return nil, err
		}
		if t := jobs[k].Traffic; t.Kind == traffic.Trace {
			if w.traces == nil {
				w.traces = &traceCache{}
			}
			if jobs[k].Program, err = w.traces.get(t.Trace); err != nil {
				return nil, w.errAt("job.trace", i, "%v", err)
			}
		}
		jobs[k].Routing = w.Jobs[i].Routing
		if err := jobs[k].Check(); err != nil {
			return nil, w.jobErr("job", i, err, "on "+net.Name+": ")
		}
	}
	return jobs, nil
}

// Declared reports whether id is a job of a [[job]] table (not one of
// the fragmented mix, whose jobs and ids vary with the seed).
func (w *Workload) Declared(id string) bool {
	for i, j := range w.Jobs {
		if j.label(i) == id {
			return true
		}
	}
	return false
}

func (j JobEntry) label(i int) string {
	if j.ID != "" {
		return j.ID
	}
	return "job" + strconv.Itoa(i+1)
}

// Resolve places the workload on net with the given seed (the file's
// when seed < 0): explicit jobs first, then sized jobs in file order on
// the HCAs still free, then the fragmented mix on the rest. It returns
// each job's HCA ordinals (routing.Options.Jobs) and its id; mix jobs are
// named mix<N>.
func (w *Workload) Resolve(net *fabric.Network, seed int64) ([][]int, []string, error) {
	if seed < 0 {
		seed = 1
		if w.Seed != nil {
			seed = *w.Seed
		}
	}
	n := net.NumHCAs()
	free := make([]bool, n)
	for i := range free {
		free[i] = true
	}
	refs := fabric.NewResolver(net)
	var jobs [][]int
	var ids []string
	for i, j := range w.Jobs {
		if len(j.Nodes) == 0 {
			continue
		}
		hs := make([]int, 0, len(j.Nodes))
		for _, name := range j.Nodes {
			h, err := refs.HCA(name)
			if err != nil {
				return nil, nil, w.errAt("job.nodes", i, "job %q: %v", j.label(i), err)
			}
			if !free[h] {
				return nil, nil, w.errAt("job.nodes", i, "job %q: %s is in another job or listed twice", j.label(i), name)
			}
			free[h] = false
			hs = append(hs, h)
		}
		jobs, ids = append(jobs, hs), append(ids, j.label(i))
	}
	switchOf := net.HCASwitches()
	for i, j := range w.Jobs {
		if !contains(j.Given, "size") {
			continue
		}
		rng := fabric.Stream(uint64(seed), "jobs/place/"+j.label(i))
		var hs []int
		var err error
		key := "job.size"
		if n, ok := placementSwitches(j.Placement); ok {
			hs, err = traffic.PlaceOnSwitches(j.Size, n, free, switchOf, rng)
			key = "job.placement" // too few switches, or too few HCAs on them
		} else {
			o, _ := placementOrder(j.Placement)
			hs, err = traffic.Place(o, j.Size, free, switchOf, rng)
		}
		if err != nil {
			return nil, nil, w.errAt(key, i, "job %q on %s: %v", j.label(i), net.Name, err)
		}
		jobs, ids = append(jobs, hs), append(ids, j.label(i))
	}
	if w.Fragmentation != nil {
		var rest []int
		for h, f := range free {
			if f {
				rest = append(rest, h)
			}
		}
		m, _ := w.fragmentation()
		mix, err := m.Mix(len(rest), fabric.Stream(uint64(seed), "jobs/fragmentation"))
		if err != nil {
			return nil, nil, w.errAt("fragmentation", -1, "on the %d free HCAs of %s: %v", len(rest), net.Name, err)
		}
		for k, job := range mix {
			for i := range job {
				job[i] = rest[job[i]]
			}
			jobs, ids = append(jobs, job), append(ids, "mix"+strconv.Itoa(k+1))
		}
	}
	return jobs, ids, nil
}
