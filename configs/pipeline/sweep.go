package pipeline

import (
	"fmt"

	"flitsim/fabric"
	"flitsim/fabric/param"
	"flitsim/routing"
	"flitsim/sim"
	"flitsim/traffic"
)

// Sweep measures how one job of a placed workload slows down as one
// numeric traffic key of another job varies, per routing engine: say an
// all-to-all beside a noise job whose load goes from 0 to 1. A value of 0
// for the load removes the varied job.
type Sweep struct {
	Net  *fabric.Network
	Jobs []traffic.Job
	// Swept and Measured index Jobs; Key is the swept job's key
	// (traffic.JobTraffic's numeric declarations), Values its values.
	Swept, Measured int
	Key             string
	Values          []float64
	// Engines route the network, each with its options (Options.Jobs is
	// set to the workload's ranks).
	Engines []string
	Options []routing.Options
	Params  sim.Params
	// Progress, when set, hears of every point done.
	Progress func(done, total int)
}

// SweepPoint is one simulation of a sweep: the measured job beside the
// swept one at Value, against the measured job alone.
type SweepPoint struct {
	Routing       string  `json:"routing"`
	Value         float64 `json:"value"`
	Verdict       string  `json:"verdict"`
	Slowdown      float64 `json:"slowdown"`
	CompletionNs  float64 `json:"completion_ns,omitempty"`
	ThroughputGBs float64 `json:"throughput_gbs"`
	AloneNs       float64 `json:"alone_completion_ns,omitempty"`
	AloneGBs      float64 `json:"alone_throughput_gbs,omitempty"`
}

// Run simulates every engine × value, engines in order, and returns the
// points in that order. The measured job alone runs once per engine when
// it is finite; an infinite one runs alone over the window of each point
// that finite jobs ended, as Slowdowns does.
func (s Sweep) Run() ([]SweepPoint, error) {
	decl, ok := param.Find(param.Of(&traffic.JobTraffic{}), s.Key)
	if !ok || !decl.Kind.Numeric() {
		return nil, fmt.Errorf("sweep: %q is no numeric job key", s.Key)
	}
	meas := s.Jobs[s.Measured]
	ranks := traffic.Ranks(s.Jobs)
	var pts []SweepPoint
	total := len(s.Engines) * len(s.Values)
	for ei, eng := range s.Engines {
		opts := s.Options[ei]
		opts.Jobs = ranks
		rt, err := Route(s.Net, eng, opts)
		if err != nil {
			return nil, err
		}
		if !rt.OK() {
			return nil, fmt.Errorf("routing %s failed: %s", eng, rt.Problem())
		}
		var once *sim.JobResult // the finite measured job alone
		for _, v := range s.Values {
			q := s.Params
			q.Jobs = nil
			for i, j := range s.Jobs {
				if i == s.Swept {
					if v == 0 && s.Key == "load" {
						continue
					}
					decl.Set(&j.Traffic, v)
				}
				q.Jobs = append(q.Jobs, j)
			}
			if err := q.Normalize(); err != nil {
				return nil, err
			}
			res, err := sim.Run(s.Net, rt.Tables, q)
			if err != nil {
				return nil, err
			}
			m := res.Jobs[0]
			for _, j := range res.Jobs {
				if j.ID == meas.ID {
					m = j
				}
			}
			alone := once
			if alone == nil {
				if alone, err = s.alone(rt.Tables, meas, res); err != nil {
					return nil, err
				}
				if meas.Finite() {
					once = alone
				}
			}
			rs := []sim.JobResult{m}
			sim.SetSlowdowns(rs, []*sim.JobResult{alone})
			pts = append(pts, SweepPoint{Routing: eng, Value: v, Verdict: string(res.Verdict), Slowdown: rs[0].Slowdown,
				CompletionNs: m.CompletionNs, ThroughputGBs: m.ThroughputGBs, AloneNs: alone.CompletionNs, AloneGBs: alone.ThroughputGBs})
			if s.Progress != nil {
				s.Progress(len(pts), total)
			}
		}
	}
	return pts, nil
}

// alone runs the measured job by itself on the same tables: an infinite
// one over the window of res when finite jobs ended that run.
func (s Sweep) alone(t *routing.Tables, meas traffic.Job, res *sim.Result) (*sim.JobResult, error) {
	q := s.Params
	q.Jobs = []traffic.Job{meas}
	if !meas.Finite() && res.Verdict != sim.Steady {
		q.MaxTime, q.SteadyFraction = int64(res.SimTimeNs*1000+0.5), 2
	}
	if err := q.Normalize(); err != nil {
		return nil, err
	}
	r, err := sim.Run(s.Net, t, q)
	if err != nil {
		return nil, fmt.Errorf("job %s alone: %w", meas.ID, err)
	}
	a := r.Jobs[0]
	return &a, nil
}
