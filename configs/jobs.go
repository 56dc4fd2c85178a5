package configs

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
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
}

// JobEntry is one [[job]] table.
type JobEntry struct {
	// ID names the job in tables (default: job<N>, N counted from 1).
	ID string `toml:"id" json:"id,omitempty"`
	// Nodes lists the job's HCAs: node descriptions, 0x node or port
	// GUIDs, or "lid:N".
	Nodes []string `toml:"nodes" json:"nodes,omitempty"`
	// Size and Placement place a job without a node list.
	Size      *int   `toml:"size" json:"size,omitempty"`
	Placement string `toml:"placement" json:"placement,omitempty"`
	// Pattern is the job's traffic (traffic.JobKinds; default exchange),
	// MsgBytes its message size (bytes, or a string such as "4KiB",
	// "10MTU"; default one MTU), Grid the halo's rank grid.
	Pattern  string `toml:"pattern" json:"pattern,omitempty"`
	MsgBytes any    `toml:"msg_bytes" json:"msg_bytes,omitempty"`
	Grid     []int  `toml:"grid" json:"grid,omitempty"`
	// Routing is the job's own adaptive routing mode (routing.ModeNames;
	// default: the engine's), as an Aries job sets
	// MPICH_GNI_ROUTING_MODE; it needs an adaptive engine.
	Routing string `toml:"routing" json:"routing,omitempty"`
	// Params holds the keys traffic.JobTraffic declares (start,
	// iterations, load, distance, burst_on, burst_off).
	Params map[string]any `toml:"-" json:"params,omitempty"`
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
	var w Workload
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&w)
	if err != nil {
		return nil, tomlError(err, file)
	}
	if inCampaign {
		if !md.IsDefined("job") && !md.IsDefined("fragmentation") {
			return nil, nil
		}
		w.Seed = nil // the campaign's jobs_seed
	}
	w.Source, w.lines = file, keyLines(data)
	decls := param.Of(&traffic.JobTraffic{})
	for _, k := range md.Undecoded() {
		key := k.String()
		if inCampaign && !workloadKey(key) {
			continue // the campaign's
		}
		if _, ok := param.Find(decls, strings.TrimPrefix(key, "job.")); ok && strings.HasPrefix(key, "job.") && len(k) == 2 {
			continue // decoded below
		}
		if strings.HasPrefix(key, "fragmentation.") && len(k) == 2 {
			continue
		}
		seed := "seed, "
		if inCampaign {
			seed = ""
		}
		return nil, &Error{File: file, Line: w.lines.find(key), Key: key,
			Msg: "unknown key (known: " + seed + "job.id, job.nodes, job.size, job.placement, job.pattern, job.msg_bytes, job.grid, job.routing, job." +
				strings.Join(param.Keys(decls), ", job.") + ", fragmentation.*)"}
	}
	// The declared keys of each job, by a second decode into maps.
	var raw struct {
		Job []map[string]any `toml:"job"`
	}
	if _, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&raw); err != nil {
		return nil, tomlError(err, file)
	}
	for i, m := range raw.Job {
		for k, v := range m {
			if _, ok := param.Find(decls, k); ok {
				if w.Jobs[i].Params == nil {
					w.Jobs[i].Params = map[string]any{}
				}
				w.Jobs[i].Params[k] = v
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
		switch {
		case len(j.Nodes) > 0 && j.Size != nil:
			return w.errAt("job.size", i, "job %q: give nodes or size, not both", id)
		case len(j.Nodes) > 0 && j.Placement != "":
			return w.errAt("job.placement", i, "job %q: a placement places a size, the job lists its nodes", id)
		case len(j.Nodes) == 0 && j.Size == nil:
			return w.errAt("job", i, "job %q: want nodes = [...] or size = N", id)
		case j.Size != nil && *j.Size < 1:
			return w.errAt("job.size", i, "job %q: size %d, want ≥ 1", id, *j.Size)
		}
		if _, err := w.traffic(i, fabric.DefaultHardware().MTU); err != nil {
			return err
		}
		if j.Routing != "" {
			if _, err := routing.ParseMode(j.Routing); err != nil {
				return w.errAt("job.routing", i, "job %q: %v", id, err)
			}
		}
		if _, ok := placementOrder(j.Placement); !ok {
			var names []string
			for _, p := range Placements() {
				names = append(names, p.Name)
			}
			return w.errAt("job.placement", i, "unknown placement %q (known: %s)", j.Placement, strings.Join(names, ", "))
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
// traffic.Fragmentation declares.
func (w *Workload) fragmentation() (traffic.Fragmentation, error) {
	var f traffic.Fragmentation
	decls := param.Of(&f)
	tdecls := param.Of(&traffic.JobTraffic{})
	for _, key := range sortedKeys(w.Fragmentation) {
		d, ok := param.Find(decls, key)
		if _, isTraffic := param.Find(tdecls, key); !ok && (isTraffic || key == "pattern" || key == "msg_bytes") {
			continue // the mix jobs' traffic (mixTraffic)
		}
		if !ok {
			return f, w.errAt("fragmentation."+key, -1, "unknown key (known: %s; and the traffic keys of a job: pattern, msg_bytes, %s)",
				strings.Join(param.Keys(decls), ", "), strings.Join(param.Keys(tdecls), ", "))
		}
		x, err := d.Value(w.Fragmentation[key])
		if err != nil {
			return f, w.errAt("fragmentation."+key, -1, "%v", err)
		}
		d.Set(&f, x)
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
	return w.decodeTraffic(j.label(i), "job", i, j.Pattern, j.MsgBytes, j.Grid, j.Params, mtu)
}

// mixTraffic decodes the traffic keys of the [fragmentation] table, which
// every job of the mix runs (default: one all-to-all exchange).
func (w *Workload) mixTraffic(mtu int) (traffic.JobTraffic, error) {
	tdecls := param.Of(&traffic.JobTraffic{})
	params := map[string]any{}
	var pattern string
	var msg any
	for k, v := range w.Fragmentation {
		switch _, ok := param.Find(tdecls, k); {
		case ok:
			params[k] = v
		case k == "pattern":
			s, ok := v.(string)
			if !ok {
				return traffic.JobTraffic{}, w.errAt("fragmentation.pattern", -1, "%v (%s): want a pattern name", v, param.TOMLType(v))
			}
			pattern = s
		case k == "msg_bytes":
			msg = v
		}
	}
	return w.decodeTraffic("mix", "fragmentation", -1, pattern, msg, nil, params, mtu)
}

// decodeTraffic decodes the traffic keys of the table prefix (the n-th
// [[job]], or [fragmentation] with n = -1) of job id.
func (w *Workload) decodeTraffic(id, prefix string, i int, pattern string, msgBytes any, grid []int, params map[string]any, mtu int) (traffic.JobTraffic, error) {
	t := traffic.JobTraffic{Kind: traffic.JobExchange, MessageBytes: mtu, Load: 1, Grid: grid}
	if pattern != "" {
		k, err := traffic.ParseJobKind(pattern)
		if err != nil {
			return t, w.errAt(prefix+".pattern", i, "job %q: %v", id, err)
		}
		t.Kind = k
	}
	t.Iterations = t.Kind.DefaultIterations()
	if t.Kind == traffic.JobShift {
		t.Distance = 1 // the declared default; the other patterns have none
	}
	switch v := msgBytes.(type) {
	case nil:
	case int64:
		if v < 1 || v > 1<<30 {
			return t, w.errAt(prefix+".msg_bytes", i, "job %q: %d bytes, want 1..%d", id, v, 1<<30)
		}
		t.MessageBytes = int(v)
	case string:
		n, err := traffic.ParseBytes(v, mtu)
		if err != nil {
			return t, w.errAt(prefix+".msg_bytes", i, "job %q: %v", id, err)
		}
		t.MessageBytes = n
	default:
		return t, w.errAt(prefix+".msg_bytes", i, "job %q: %v (%s): want bytes or a size such as \"4KiB\" or \"10MTU\"", id, v, param.TOMLType(v))
	}
	decls := param.Of(&t)
	for _, key := range sortedKeys(params) {
		d, _ := param.Find(decls, key)
		x, err := d.Value(params[key])
		if err != nil {
			return t, w.errAt(prefix+"."+key, i, "job %q: %v", id, err)
		}
		d.Set(&t, x)
	}
	// What the job's size does not decide, checked on two ranks (or the
	// grid's size) now; Place checks the rest on the placed job.
	n := 2
	if len(grid) > 0 {
		n = 1
		for _, d := range grid {
			n *= max(d, 1)
		}
	}
	probe := traffic.Job{ID: id, Ranks: make([]int, max(n, 2)), Traffic: t}
	if t.Kind == traffic.JobShift && t.Distance%2 == 0 {
		probe.Traffic.Distance = 1 // whether it maps ranks onto themselves depends on the size
	}
	if err := probe.Check(); err != nil {
		return t, w.errAt(strings.Replace(jobErrKey(err), "job", prefix, 1), i, "%v", err)
	}
	return t, nil
}

// jobErrKey is the key a traffic.Job.Check error is about.
func jobErrKey(err error) string {
	switch m := err.Error(); {
	case strings.Contains(m, "grid"):
		return "job.grid"
	case strings.Contains(m, "burst"):
		return "job.burst_on"
	case strings.Contains(m, "load"):
		return "job.load"
	case strings.Contains(m, "distance"):
		return "job.distance"
	}
	return "job"
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
				return nil, w.errAt(strings.Replace(jobErrKey(err), "job", "fragmentation", 1), -1, "on %s: %v", net.Name, err)
			}
			continue
		}
		if jobs[k].Traffic, err = w.traffic(i, mtu); err != nil {
			return nil, err
		}
		jobs[k].Routing = w.Jobs[i].Routing
		if err := jobs[k].Check(); err != nil {
			return nil, w.errAt(jobErrKey(err), i, "on %s: %v", net.Name, err)
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
		if j.Size == nil {
			continue
		}
		o, _ := placementOrder(j.Placement)
		rng := fabric.Stream(uint64(seed), "jobs/place/"+j.label(i))
		hs, err := traffic.Place(o, *j.Size, free, switchOf, rng)
		if err != nil {
			return nil, nil, w.errAt("job.size", i, "job %q on %s: %v", j.label(i), net.Name, err)
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
