package pipeline

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sync"

	"flitsim/fabric"
	"flitsim/results"
	"flitsim/routing"
	"flitsim/sim"
	"flitsim/traffic"
)

// Modes compares routing modes on one workload as seeds/004 §5 does: one
// fixed placement (Jobs), each mode (an adaptive engine's name: the
// measured jobs take it, jobs with a routing of their own keep it) run
// with the same traffic seeds, so that every mode meets the same noise.
// The paper alternates the modes on successive iterations so that
// transient noise hits them alike; a deterministic simulator gets the same
// pairing by running each mode on the same seeds.
type Modes struct {
	Net   *fabric.Network
	Jobs  []traffic.Job
	Modes []string
	Seeds []uint64
	// Options route the network for every mode (zero: the defaults).
	Options routing.Options
	// Params are the run's parameters; Seed is replaced by each of Seeds.
	Params sim.Params
	// Workers runs that many simulations at once (0: 1). The results do
	// not depend on it.
	Workers int
	// Progress, when set, hears of every run done (from one goroutine at
	// a time); runs the Store gave back count as done before the first.
	Progress func(done, total int)
	// Store, when set, gives back the runs done before and keeps each
	// new one as soon as it is done.
	Store ModeStore
	// Build names the flitsim that runs (ModeRun.Build).
	Build string
	// KeptOnly runs nothing: Run returns the runs the Store holds alone
	// (a comparison summarized from what was kept, each workload with the
	// seeds it has; none: nil).
	KeptOnly bool
}

// ModeRun is one simulation of a Modes comparison: a mode and a seed, and
// each job's result.
type ModeRun struct {
	Mode    string          `json:"mode"`
	Seed    uint64          `json:"seed"`
	Verdict string          `json:"verdict"`
	Jobs    []sim.JobResult `json:"jobs"`
	// Build names the flitsim that ran it, so that a comparison resumed
	// by another build says so.
	Build string `json:"build,omitempty"`
}

// Run simulates every mode × seed (with the NIC counters, without their
// series over time) the Store does not hold and returns the runs, modes
// in order, each mode's seeds in order. It simulates seed by seed, every
// mode of a seed before the next seed, so that a comparison stopped early
// (its runs kept in the Store) compares every mode on the seeds it has.
func (m Modes) Run() ([]ModeRun, error) {
	tables := make([]*routing.Tables, len(m.Modes))
	opts := m.Options
	if opts.VLs == 0 {
		opts = routing.DefaultOptions()
	}
	for i, mode := range m.Modes {
		if _, err := routing.ParseMode(mode); err != nil {
			return nil, err
		}
		rt, err := Route(m.Net, mode, opts)
		if err != nil {
			return nil, err
		}
		if !rt.OK() {
			return nil, fmt.Errorf("routing %s failed: %s", mode, rt.Problem())
		}
		tables[i] = rt.Tables
	}
	if m.KeptOnly && m.Store == nil {
		return nil, fmt.Errorf("only the kept runs, but no store")
	}
	runs := make([]ModeRun, len(m.Modes)*len(m.Seeds))
	var todo []int
	var kept []ModeRun
	for i := range runs {
		mi, si := i/len(m.Seeds), i%len(m.Seeds)
		if m.Store != nil {
			r, ok, err := m.Store.Load(m.Modes[mi], m.Seeds[si])
			if err != nil {
				return nil, err
			}
			if ok {
				runs[i] = r
				kept = append(kept, r)
				continue
			}
		}
		todo = append(todo, i)
	}
	if m.KeptOnly {
		return kept, nil // none: nil
	}
	slices.SortStableFunc(todo, func(a, b int) int { return cmp.Compare(a%len(m.Seeds), b%len(m.Seeds)) })
	progress := m.Progress
	if progress != nil {
		if len(kept) > 0 {
			progress(len(kept), len(runs))
		}
		progress = func(done, _ int) { m.Progress(len(kept)+done, len(runs)) }
	}
	var saveMu sync.Mutex
	errs := make([]error, len(runs))
	each(len(todo), m.Workers, progress, func(k int) {
		i := todo[k]
		mi, si := i/len(m.Seeds), i%len(m.Seeds)
		q := m.Params
		q.Seed, q.Jobs, q.Counters = m.Seeds[si], m.Jobs, true
		q.CounterWindow = 0 // the totals, not the series
		r := ModeRun{Mode: m.Modes[mi], Seed: m.Seeds[si], Build: m.Build}
		err := q.Normalize()
		var res *sim.Result
		if err == nil {
			res, err = sim.Run(m.Net, tables[mi], q)
		}
		if err != nil {
			errs[i] = fmt.Errorf("%s, seed %d: %w", r.Mode, r.Seed, err)
			return
		}
		r.Verdict, r.Jobs = string(res.Verdict), res.Jobs
		runs[i] = r
		if m.Store != nil {
			saveMu.Lock()
			defer saveMu.Unlock()
			if err := m.Store.Save(r); err != nil {
				errs[i] = fmt.Errorf("%s, seed %d: keeping the run: %w", r.Mode, r.Seed, err)
			}
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return runs, nil
}

// ModeSummary is one job's times under one mode over the seeds.
type ModeSummary struct {
	Job  string `json:"job"`
	Mode string `json:"mode"`
	// Runs is the number of seeds whose run completed the job.
	Runs int `json:"runs"`
	// CompletionNs summarizes the job's completion times; Normalized the
	// same divided by the first mode's median (the paper's y axis).
	CompletionNs sim.Stats `json:"completion_ns"`
	Normalized   sim.Stats `json:"normalized"`
	// MedianLo and MedianHi bound the median's 95 % confidence interval
	// (order statistics of the binomial; the paper's notches), normalized.
	MedianLo float64 `json:"median_ci_lo"`
	MedianHi float64 `json:"median_ci_hi"`
	// LatencyNs and StallsPerFlit are the job's NIC counters (the paper's
	// L and s), their means over the runs.
	LatencyNs     float64 `json:"latency_ns"`
	StallsPerFlit float64 `json:"stalls_per_flit"`
	// DefaultShare is the fraction of the job's payload sent with the
	// default mode, summed over the seeds (application-aware routing
	// only; the paper's "% Default").
	DefaultShare *float64 `json:"default_share,omitempty"`
	// SwitchRate is the fraction of app-aware's decisions that changed
	// a rank's mode (near 0: it settled; high: it oscillates).
	SwitchRate *float64 `json:"switch_rate,omitempty"`
}

// SummarizeModes returns, per job with a completion time and per mode,
// the summary of the runs (jobs in the order of the first run, modes in
// the order of modes). A mode whose runs did not all complete the job
// counts only those that did.
func SummarizeModes(runs []ModeRun, modes []string) []ModeSummary {
	if len(runs) == 0 {
		return nil
	}
	var out []ModeSummary
	for ji, j := range runs[0].Jobs {
		if !j.Finite {
			continue
		}
		base := math.NaN()
		for _, mode := range modes {
			var xs []float64
			var aa sim.AppAwareStats
			hasAA := false
			lat, stalls := 0.0, 0.0
			for _, r := range runs {
				if r.Mode != mode || ji >= len(r.Jobs) || !r.Jobs[ji].Completed {
					continue
				}
				xs = append(xs, r.Jobs[ji].CompletionNs)
				if c := r.Jobs[ji].Counters; c != nil {
					lat += c.Latency.MeanNs
					stalls += c.StallsPerFlit
				}
				if a := r.Jobs[ji].AppAware; a != nil {
					aa.Add(*a)
					hasAA = true
				}
			}
			s := ModeSummary{Job: j.ID, Mode: mode, Runs: len(xs), CompletionNs: sim.Summarize(xs)}
			if len(xs) > 0 {
				s.LatencyNs, s.StallsPerFlit = lat/float64(len(xs)), stalls/float64(len(xs))
			}
			if math.IsNaN(base) {
				base = s.CompletionNs.Median
			}
			if base > 0 {
				c := s.CompletionNs
				s.Normalized = sim.Stats{Min: c.Min / base, Q1: c.Q1 / base, Median: c.Median / base, Q3: c.Q3 / base, Max: c.Max / base}
				lo, hi := results.MedianCI(xs)
				s.MedianLo, s.MedianHi = lo/base, hi/base
			}
			if hasAA {
				f := aa.DefaultShare()
				s.DefaultShare = &f
				if aa.Decisions > 0 {
					r := float64(aa.Switches) / float64(aa.Decisions)
					s.SwitchRate = &r
				}
			}
			out = append(out, s)
		}
	}
	return out
}
