package pipeline

import (
	"fmt"
	"io"

	"flitsim/configs"
	"flitsim/fabric"
	"flitsim/routing"
	"flitsim/routing/engines"
)

// InputError is an error of a library function's inputs rather than of
// its work: the CLI exits with status 2 on it.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// JobAware reports whether an engine routes for the running jobs (reads
// the jobs option), so that it is routed anew for every job mix.
func JobAware(name string) bool {
	e, err := engines.Find(name)
	return err == nil && e.JobAware
}

// MixReport is one job mix of `route --jobs --mixes`.
type MixReport struct {
	Seed    int64                         `json:"seed"`
	Jobs    int                           `json:"jobs"`
	Busy    int                           `json:"busy_hcas"`
	Metrics map[string]routing.JobMetrics `json:"metrics"`
}

// improvement is one cell pair of Tables 5.1/5.2: how much better the
// job-aware engine is than a baseline, at most and on average over the
// mixes, absolute and in percent of the baseline.
type Improvement struct {
	Metric   string  `json:"metric"`
	Engine   string  `json:"engine"`
	Baseline string  `json:"baseline"`
	Max      float64 `json:"max"`
	MaxPct   float64 `json:"max_pct"`
	Avg      float64 `json:"avg"`
	AvgPct   float64 `json:"avg_pct"`
}

// MixesReport is the JSON of `route --jobs --mixes`.
type MixesReport struct {
	Network      string        `json:"network"`
	Mixes        []MixReport   `json:"mixes"`
	Improvements []Improvement `json:"improvements"`
}

// MixMetric is one metric of Tables 5.1/5.2 and which way is better.
type MixMetric struct {
	Key    string
	Lower  bool // lower is better
	Value  func(routing.JobMetrics) float64
	Points bool // a percentage: improvements in percentage points
}

// MixMetrics are the metrics of Tables 5.1/5.2, in their column order.
var MixMetrics = []MixMetric{
	{"efi_effective_max", true, func(m routing.JobMetrics) float64 { return float64(m.EFIEffectiveMax) }, false},
	{"efi_effective_job_mean", true, func(m routing.JobMetrics) float64 { return m.EFIEffectiveJobMean }, false},
	{"dark_fiber_pct", true, func(m routing.JobMetrics) float64 { return m.DarkFiberPct }, true},
	{"links_per_job_mean", false, func(m routing.JobMetrics) float64 { return m.LinksPerJobMean }, false},
}

// Mixes routes net for the job mixes of seeds first..first+n-1 of the
// workload (seeds/001 §5.3, Tables 5.1/5.2): the job-aware engines per
// mix, the others once, and measures every mix under every engine; it
// reports each job-aware engine's improvement over every other. An error
// of the inputs (an engine that cannot route net, a mix that does not fit
// it) is an *InputError. progress, when set, hears of every mix done.
func Mixes(net *fabric.Network, w *configs.Workload, names []string, opts routing.Options, first int64, n int, progress io.Writer) (*MixesReport, error) {
	fixed := map[string]*routing.Tables{}
	for _, name := range names {
		if JobAware(name) {
			continue
		}
		rt, err := Route(net, name, opts)
		if err != nil {
			return nil, err
		}
		if !rt.OK() {
			return nil, &InputError{fmt.Errorf("%s cannot route %s: %s", name, net.Name, rt.Problem())}
		}
		fixed[name] = rt.Tables
	}
	rep := &MixesReport{Network: net.Describe()}
	for k := range n {
		seed := first + int64(k)
		jobs, _, err := w.Resolve(net, seed)
		if err != nil {
			return nil, &InputError{err}
		}
		mr := MixReport{Seed: seed, Jobs: len(jobs), Metrics: map[string]routing.JobMetrics{}}
		for _, j := range jobs {
			mr.Busy += len(j)
		}
		for _, name := range names {
			tb := fixed[name]
			if tb == nil {
				o := opts
				o.Jobs = jobs
				rt, err := Route(net, name, o)
				if err != nil {
					return nil, err
				}
				if !rt.OK() {
					return nil, fmt.Errorf("%s on mix %d: %s", name, seed, rt.Problem())
				}
				tb = rt.Tables
			}
			m, err := routing.MeasureJobs(net, tb, jobs)
			if err != nil {
				return nil, err
			}
			m.PerJob = nil
			mr.Metrics[name] = m
		}
		rep.Mixes = append(rep.Mixes, mr)
		if progress != nil {
			fmt.Fprintf(progress, "\rmix %d/%d", k+1, n)
		}
	}
	if progress != nil && n > 0 {
		fmt.Fprintln(progress)
	}
	for _, e := range names {
		if !JobAware(e) {
			continue
		}
		for _, jm := range MixMetrics {
			for _, b := range names {
				if b != e {
					rep.Improvements = append(rep.Improvements, improve(rep.Mixes, jm, e, b))
				}
			}
		}
	}
	return rep, nil
}

// improve computes the improvement of engine e over baseline b: per mix
// the gain (baseline − e where lower is better, e − baseline otherwise);
// Max is the largest gain with its percentage of the baseline at that mix,
// Avg the mean gain with its percentage of the mean baseline. For a
// percentage metric both are percentage points (MaxPct = Max).
func improve(mixes []MixReport, jm MixMetric, e, b string) Improvement {
	im := Improvement{Metric: jm.Key, Engine: e, Baseline: b}
	var sum, base float64
	for i, m := range mixes {
		x, y := jm.Value(m.Metrics[e]), jm.Value(m.Metrics[b])
		gain := x - y
		if jm.Lower {
			gain = y - x
		}
		if i == 0 || gain > im.Max {
			im.Max, im.MaxPct = gain, pct(gain, y)
		}
		sum += gain
		base += y
	}
	if len(mixes) > 0 {
		im.Avg = sum / float64(len(mixes))
		im.AvgPct = pct(sum, base)
	}
	if jm.Points {
		im.MaxPct, im.AvgPct = im.Max, im.Avg
	}
	return im
}

func pct(gain, base float64) float64 {
	if base == 0 {
		return 0
	}
	return 100 * gain / base
}
