package configs

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"flitsim/fabric"
	"flitsim/fabric/param"
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
type Workload struct {
	// Seed seeds the random placements and the fragmentation model
	// (default 1).
	Seed *int64     `toml:"seed"`
	Jobs []JobEntry `toml:"job"`
	// Fragmentation holds the keys traffic.Fragmentation declares.
	Fragmentation map[string]any `toml:"fragmentation"`

	Source string `toml:"-"`
	lines  keyIndex
}

// JobEntry is one [[job]] table.
type JobEntry struct {
	// ID names the job in tables (default: job<N>, N counted from 1).
	ID string `toml:"id"`
	// Nodes lists the job's HCAs: node descriptions, 0x node or port
	// GUIDs, or "lid:N".
	Nodes []string `toml:"nodes"`
	// Size and Placement place a job without a node list.
	Size      *int   `toml:"size"`
	Placement string `toml:"placement"`
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
	var w Workload
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&w)
	if err != nil {
		return nil, tomlError(err, file)
	}
	w.Source, w.lines = file, keyLines(data)
	for _, k := range md.Undecoded() {
		key := k.String()
		return nil, &Error{File: file, Line: w.lines.find(key), Key: key,
			Msg: "unknown key (known: seed, job.id, job.nodes, job.size, job.placement, fragmentation.*)"}
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
	}
	return nil
}

// fragmentation decodes the [fragmentation] table through the keys
// traffic.Fragmentation declares.
func (w *Workload) fragmentation() (traffic.Fragmentation, error) {
	var f traffic.Fragmentation
	decls := param.Of(&f)
	for _, key := range sortedKeys(w.Fragmentation) {
		d, ok := param.Find(decls, key)
		if !ok {
			return f, w.errAt("fragmentation."+key, -1, "unknown key (known: %s)", strings.Join(param.Keys(decls), ", "))
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
	byName := net.ByName()
	var jobs [][]int
	var ids []string
	for i, j := range w.Jobs {
		if len(j.Nodes) == 0 {
			continue
		}
		hs := make([]int, 0, len(j.Nodes))
		for _, name := range j.Nodes {
			h, err := findHCA(net, byName, name)
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

// findHCA resolves a node reference (description, 0x node or port GUID,
// "lid:N") to an HCA ordinal.
func findHCA(net *fabric.Network, byName map[string]int, ref string) (int, error) {
	node := -1
	switch {
	case strings.HasPrefix(ref, "lid:"):
		lid, err := strconv.ParseUint(ref[4:], 10, 16)
		if err != nil {
			return 0, fmt.Errorf("%q: not a LID", ref)
		}
		if l := net.ByLID(); int(lid) < len(l) && l[lid] >= 0 {
			node = int(l[lid])
		}
	case strings.HasPrefix(ref, "0x"):
		g, err := strconv.ParseUint(ref[2:], 16, 64)
		if err != nil {
			return 0, fmt.Errorf("%q: not a GUID", ref)
		}
		for i := net.NumSwitches; i < len(net.Nodes); i++ {
			if net.Nodes[i].GUID == g || net.Nodes[i].PortGUID == g {
				node = i
				break
			}
		}
	default:
		if i, ok := byName[ref]; ok {
			node = i
		}
	}
	switch {
	case node < 0:
		return 0, fmt.Errorf("no node %q in %s", ref, net.Name)
	case node < net.NumSwitches:
		return 0, fmt.Errorf("%q is a switch, not an HCA", ref)
	}
	return node - net.NumSwitches, nil
}
