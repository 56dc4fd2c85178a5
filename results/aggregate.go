package results

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat"
)

// Group names the records one row of a table summarizes.
type Group struct {
	Topology string `json:"topology"`
	Routing  string `json:"routing"`
	Traffic  string `json:"traffic"`
	// Faults is the failures entry: links, switches, or e.g. "mixed 1:13".
	Faults string `json:"faults"`
}

// Regression is the linear fit of throughput on the number of failed
// components for one (topology, routing, traffic, failures) (seeds/001
// §4.4.2): the
// intercept estimates the fault-free throughput, the slope the loss per
// failure left in place, R² how much the failures explain.
type Regression struct {
	Group
	Intercept float64 `json:"intercept_gbs"`
	Slope     float64 `json:"slope_gbs_per_failure"`
	R2        float64 `json:"r2"`
	// Points used (completed or steady runs, and infinite traffic measured
	// up to the time limit); runs that failed to route or deadlocked are
	// counted and left out, as the thesis' missing bars. NotConverged counts
	// every run that hit the time limit, used or not.
	Points        int `json:"points"`
	RoutingFailed int `json:"routing_failed"`
	Deadlocked    int `json:"deadlocked"`
	NotConverged  int `json:"not_converged"`
}

// Level is the mean throughput of one group at one failure percentage,
// with its 95 % confidence interval over seeds (Student's t).
type Level struct {
	Group
	Percent float64 `json:"fault_percent"`
	Mean    float64 `json:"mean_gbs"`
	CILow   float64 `json:"ci95_low_gbs"`
	CIHigh  float64 `json:"ci95_high_gbs"`
	N       int     `json:"n"`
	Failed  float64 `json:"mean_failed"`
}

// usable reports whether a record's throughput counts: a completed or
// steady run, or infinite traffic that hit the time limit before every sink
// was steady (its mean bandwidth up to the limit is still a measurement;
// the thesis read its sinks at a wall-time limit too). An exchange that hit
// the limit never finished and has no throughput.
func usable(r *Record) bool {
	if !r.RoutingOK {
		return false
	}
	switch r.Verdict {
	case Completed, Steady:
		return true
	case NotConverged:
		return !r.Finite && r.ThroughputGBs > 0
	}
	return false
}

// groups returns the groups in the order of their first record (records
// sorted by point), so tables follow the campaign file.
func groups(recs []Record) ([]Group, map[Group][]*Record) {
	sorted := append([]Record(nil), recs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Point < sorted[j].Point })
	var order []Group
	by := map[Group][]*Record{}
	for i := range sorted {
		r := &sorted[i]
		g := Group{Topology: label(r), Routing: r.Routing, Traffic: trafficLabel(r), Faults: faultLabel(r)}
		if _, ok := by[g]; !ok {
			order = append(order, g)
		}
		by[g] = append(by[g], r)
	}
	return order, by
}

// faultLabel names a record's failures entry (records written before
// labels existed carry only the kind).
func faultLabel(r *Record) string {
	if r.FaultLabel != "" {
		return r.FaultLabel
	}
	return r.FaultKind
}

// trafficLabel names a record's traffic entry: its label when the campaign
// gave one (or an order), else its kind.
func trafficLabel(r *Record) string {
	if r.TrafficLabel != "" {
		return r.TrafficLabel
	}
	return r.Traffic
}

func label(r *Record) string {
	if r.TopologyLabel != "" {
		return r.TopologyLabel
	}
	return r.Topology
}

// Regressions fits every group with gonum's least squares.
func Regressions(recs []Record) []Regression {
	order, by := groups(recs)
	var out []Regression
	for _, g := range order {
		reg := Regression{Group: g}
		var x, y []float64
		for _, r := range by[g] {
			switch {
			case !r.RoutingOK:
				reg.RoutingFailed++
			case r.Verdict == Deadlock:
				reg.Deadlocked++
			case usable(r):
				x = append(x, float64(r.Failed()))
				y = append(y, r.ThroughputGBs)
				if r.Verdict == NotConverged {
					reg.NotConverged++
				}
			default:
				reg.NotConverged++
			}
		}
		reg.Points = len(x)
		if len(x) > 0 {
			reg.Intercept, reg.Slope, reg.R2 = Fit(x, y)
		}
		out = append(out, reg)
	}
	return out
}

// Fit returns intercept, slope and R² of y on x. With a single distinct x
// the slope is 0, the intercept the mean and R² 0.
func Fit(x, y []float64) (intercept, slope, r2 float64) {
	distinct := false
	for _, v := range x {
		distinct = distinct || v != x[0]
	}
	if !distinct {
		return stat.Mean(y, nil), 0, 0
	}
	intercept, slope = stat.LinearRegression(x, y, nil, false)
	r2 = stat.RSquared(x, y, nil, intercept, slope)
	if math.IsNaN(r2) {
		r2 = 0
	}
	return intercept, slope, r2
}

// Levels summarizes every group per failure percentage.
func Levels(recs []Record) []Level {
	order, by := groups(recs)
	var out []Level
	for _, g := range order {
		var pcts []float64
		vals := map[float64][]float64{}
		failed := map[float64][]float64{}
		for _, r := range by[g] {
			if _, ok := vals[r.FaultPercent]; !ok {
				pcts = append(pcts, r.FaultPercent)
				vals[r.FaultPercent] = nil
			}
			if usable(r) {
				vals[r.FaultPercent] = append(vals[r.FaultPercent], r.ThroughputGBs)
				failed[r.FaultPercent] = append(failed[r.FaultPercent], float64(r.Failed()))
			}
		}
		for _, p := range pcts {
			v := vals[p]
			l := Level{Group: g, Percent: p, N: len(v)}
			l.Mean, l.CILow, l.CIHigh = meanCI(v)
			l.Failed = mean(failed[p])
			out = append(out, l)
		}
	}
	return out
}

// Usability is the matrix of Table 4.3: per topology and routing, "o" if
// every run routed deadlock-free (acyclic channel dependencies on every VL)
// and none deadlocked, "c" if the tables have a dependency cycle but no run
// deadlocked in the time simulated, "d" if a run deadlocked, "r" if routing
// failed. Table 4.3 knew only o, d and r: its "o" was a simulation that did
// not deadlock, which flitsim's "c" tells apart from a proof.
type Usability struct {
	Topologies []string            `json:"topologies"`
	Routings   []string            `json:"routings"`
	Cells      map[string][]string `json:"cells"` // topology → one cell per routing
}

// UsabilityMatrix builds the matrix from all records (all traffic kinds).
func UsabilityMatrix(recs []Record) Usability {
	sorted := append([]Record(nil), recs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Point < sorted[j].Point })
	u := Usability{Cells: map[string][]string{}}
	seenT, seenR := map[string]bool{}, map[string]int{}
	for i := range sorted {
		r := &sorted[i]
		if !seenT[label(r)] {
			seenT[label(r)] = true
			u.Topologies = append(u.Topologies, label(r))
		}
		if _, ok := seenR[r.Routing]; !ok {
			seenR[r.Routing] = len(u.Routings)
			u.Routings = append(u.Routings, r.Routing)
		}
	}
	for _, t := range u.Topologies {
		u.Cells[t] = make([]string, len(u.Routings))
	}
	rank := map[string]int{"": 0, "o": 1, "c": 2, "d": 3, "r": 4}
	for i := range sorted {
		r := &sorted[i]
		c := "o"
		switch {
		case !r.RoutingOK:
			c = "r"
		case r.Verdict == Deadlock:
			c = "d"
		case !r.DeadlockFree:
			c = "c"
		}
		row := u.Cells[label(r)]
		if j := seenR[r.Routing]; rank[c] > rank[row[j]] {
			row[j] = c
		}
	}
	return u
}
