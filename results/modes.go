package results

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"flitsim/sim"
)

// ModeRow is one routing's row of a jobs campaign's routings compared as
// seeds/004 §5 compares Aries' modes: a finite job's completion times over
// the campaign's seeds (the same seeds, hence the same noise, for every
// routing; a fixed placement when the campaign fixes jobs_seed), divided by
// the first routing's median, with the median's 95 % confidence interval.
type ModeRow struct {
	Topology string  `json:"topology"`
	Traffic  string  `json:"traffic"`
	Faults   string  `json:"faults"`
	Percent  float64 `json:"fault_percent"`
	Job      string  `json:"job"`
	Routing  string  `json:"routing"`
	// Runs counts the runs that completed the job, of N.
	Runs     int     `json:"runs"`
	N        int     `json:"n"`
	MedianNs float64 `json:"median_completion_ns"`
	// Normalized is the completion times' summary divided by the first
	// routing's median; MedianLo and MedianHi bound its median.
	Normalized Stats   `json:"normalized"`
	MedianLo   float64 `json:"median_ci_lo"`
	MedianHi   float64 `json:"median_ci_hi"`
	// DefaultShare is the share of the job's payload application-aware
	// routing sent with the default mode, over the runs (nil: not
	// application-aware).
	DefaultShare *float64 `json:"default_share,omitempty"`
}

// MedianCI returns a distribution-free 95 % confidence interval of the
// median of xs: the order statistics at ranks n/2 ∓ 1.96·√n/2 (normal
// approximation of the binomial), clamped to the sample; the paper's
// notches.
func MedianCI(xs []float64) (lo, hi float64) {
	n := len(xs)
	if n == 0 {
		return 0, 0
	}
	y := append([]float64(nil), xs...)
	sort.Float64s(y)
	h := 1.96 * math.Sqrt(float64(n)) / 2
	j := max(0, int(math.Floor(float64(n)/2-h)))
	k := min(n-1, int(math.Ceil(float64(n)/2+h))-1)
	return y[j], y[k]
}

// ModeRows compares the routings of every (topology, traffic, failures
// entry, level) that ran several on jobs with completion times: a row per
// finite job and routing, the routings in the order of the records'
// points. Runs that deadlocked or failed to route count in N only.
func ModeRows(recs []Record) []ModeRow {
	sorted := append([]Record(nil), recs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Point < sorted[j].Point })
	type cellKey struct {
		topo, traffic, faults string
		pct                   float64
	}
	type acc struct {
		n     int
		times []float64
		aa    sim.AppAwareStats
		hasAA bool
	}
	var cells firstSeen[cellKey]
	routings := map[cellKey]*firstSeen[string]{}
	jobs := map[cellKey]*firstSeen[string]{}
	accs := map[[3]string]map[cellKey]*acc{} // (job, routing, "") → cell → acc
	for i := range sorted {
		r := &sorted[i]
		if len(r.Jobs) == 0 {
			continue
		}
		k := cellKey{label(r), trafficLabel(r), faultLabel(r), r.FaultPercent}
		cells.add(k)
		if routings[k] == nil {
			routings[k], jobs[k] = &firstSeen[string]{}, &firstSeen[string]{}
		}
		routings[k].add(r.Routing)
		for _, j := range r.Jobs {
			if !j.Finite || j.Mix {
				continue
			}
			jobs[k].add(j.ID)
			ak := [3]string{j.ID, r.Routing}
			if accs[ak] == nil {
				accs[ak] = map[cellKey]*acc{}
			}
			a := accs[ak][k]
			if a == nil {
				a = &acc{}
				accs[ak][k] = a
			}
			a.n++
			if !r.RoutingOK || !j.Completed {
				continue
			}
			a.times = append(a.times, j.CompletionNs)
			if j.AppAware != nil {
				a.aa.Add(*j.AppAware)
				a.hasAA = true
			}
		}
	}
	var out []ModeRow
	for _, k := range cells.list {
		if len(routings[k].list) < 2 {
			continue
		}
		for _, job := range jobs[k].list {
			base := math.NaN()
			for _, rt := range routings[k].list {
				a := accs[[3]string{job, rt}][k]
				if a == nil {
					continue
				}
				row := ModeRow{Topology: k.topo, Traffic: k.traffic, Faults: k.faults, Percent: k.pct, Job: job, Routing: rt,
					Runs: len(a.times), N: a.n}
				c := sim.Summarize(a.times)
				row.MedianNs = c.Median
				if math.IsNaN(base) {
					base = c.Median
				}
				if base > 0 && len(a.times) > 0 {
					row.Normalized = Stats{Min: c.Min / base, Q1: c.Q1 / base, Median: c.Median / base, Q3: c.Q3 / base, Max: c.Max / base}
					lo, hi := MedianCI(a.times)
					row.MedianLo, row.MedianHi = lo/base, hi/base
				}
				if a.hasAA {
					f := a.aa.DefaultShare()
					row.DefaultShare = &f
				}
				out = append(out, row)
			}
		}
	}
	return out
}

// writeModesMarkdown adds the routings compared to a Markdown report.
func writeModesMarkdown(b *strings.Builder, rows []ModeRow) {
	if len(rows) == 0 {
		return
	}
	b.WriteString("\n## Routings compared per job\n\nseeds/004's form (§5): each finite job's completion time under each routing over the same seeds, divided by the\n")
	b.WriteString("first routing's median; the median's 95 % confidence interval (order statistics); % default: the share of the job's payload\n")
	b.WriteString("application-aware routing sent with the default mode.\n\n")
	b.WriteString("| Topology | Traffic | Failures | Failed [%] | Job | Routing | Runs | Median [µs] | Normalized median | 95 % CI | Q1 – Q3 | % default |\n")
	b.WriteString("|---|---|---|---:|---|---|---:|---:|---:|---|---|---:|\n")
	g := func(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }
	for _, r := range rows {
		med, ci, iqr, def := "–", "–", "–", "–"
		if r.Runs > 0 {
			med, ci, iqr = g(r.Normalized.Median), g(r.MedianLo)+" – "+g(r.MedianHi), g(r.Normalized.Q1)+" – "+g(r.Normalized.Q3)
		}
		if r.DefaultShare != nil {
			def = strconv.FormatFloat(100**r.DefaultShare, 'f', 1, 64)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %g | %s | %s | %d of %d | %s | %s | %s | %s | %s |\n", r.Topology, r.Traffic, r.Faults, r.Percent,
			r.Job, r.Routing, r.Runs, r.N, f2(r.MedianNs/1000), med, ci, iqr, def)
	}
}

// modeFigures draws the rows of each topology and traffic as the paper's
// Figs. 8-10: a group of boxes per job (and failure level, when there are
// several), a box per routing, normalized to the first routing's median.
func modeFigures(suffix, title string, rows []ModeRow) ([]Figure, error) {
	type key struct{ topo, traffic string }
	var order firstSeen[key]
	for _, r := range rows {
		order.add(key{r.Topology, r.Traffic})
	}
	var figs []Figure
	for _, k := range order.list {
		var names, groups firstSeen[string]
		var pcts firstSeen[float64]
		for _, r := range rows {
			if r.Topology == k.topo && r.Traffic == k.traffic {
				names.add(r.Routing)
				pcts.add(r.Percent)
			}
		}
		groupOf := func(r ModeRow) string {
			if len(pcts.list) > 1 {
				return fmt.Sprintf("%s, %g %%", r.Job, r.Percent)
			}
			return r.Job
		}
		boxes := map[string][]Stats{}
		for _, r := range rows {
			if r.Topology != k.topo || r.Traffic != k.traffic {
				continue
			}
			gl := groupOf(r)
			groups.add(gl)
			if boxes[gl] == nil {
				boxes[gl] = make([]Stats, len(names.list))
			}
			for i, n := range names.list {
				if n == r.Routing {
					boxes[gl][i] = r.Normalized
				}
			}
		}
		var bg []BoxGroup
		for _, gl := range groups.list {
			bg = append(bg, BoxGroup{Label: gl, Boxes: boxes[gl]})
		}
		t := fmt.Sprintf("%s: %s", k.topo, k.traffic)
		if title != "" {
			t += ", " + title
		}
		p, err := boxPlot(t, "completion time / "+names.list[0]+"'s median", names.list, bg, 1, nil)
		if err != nil {
			return figs, err
		}
		figs = append(figs, Figure{Name: "routings-" + Slug(k.topo+"-"+k.traffic+"-"+suffix),
			Caption: fmt.Sprintf("%s, %s: each job's completion time per routing over the seeds, normalized to %s's median (seeds/004 Figs. 8-10)", k.topo, k.traffic, names.list[0]),
			Plot:    p})
	}
	return figs, nil
}
