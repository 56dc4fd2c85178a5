package configs

import (
	"fmt"

	"flitsim/fabric"
	"flitsim/faults"
	"flitsim/routing"
	"flitsim/sim"
	"flitsim/traffic"
)

// Point is one simulation of a campaign: a topology with one failure draw,
// routed by one engine, under one traffic pattern.
type Point struct {
	// Index is the point's position in the campaign's order.
	Index int
	// Key names the point uniquely and readably.
	Key      string
	Topology TopologyEntry
	Traffic  TrafficEntry
	// TrafficIndex is the traffic entry's position (patterns may repeat).
	TrafficIndex int
	FaultKind    string
	// FaultLabel names the failures entry (the kind, or e.g. "mixed 1:13").
	FaultLabel string
	Percent    float64
	// FaultSeed drew the failures (Faults.Seed); the traffic seed is
	// Params.Seed.
	FaultSeed uint64
	Faults    faults.Spec
	Routing   RoutingEntry
	Options   routing.Options
	Params    sim.Params
	// NoSlowdown skips the runs of each job alone that measure the jobs'
	// slowdowns (Params.Jobs).
	NoSlowdown bool
	// Workload, when set, is placed on the network with JobsSeed and
	// gives Params.Jobs (a traffic entry of kind "jobs").
	Workload *Workload
	JobsSeed int64
	// Timed, when set, makes Faults happen while traffic runs on the
	// intact fabric, rerouted by the subnet manager ([faults.timed]).
	Timed *Timed
	// twinKey is Key without the fault seed: the points of an expansion
	// that share it differ in nothing else.
	twinKey string
}

// TwinKey returns what names p's twins, the points of its campaign that
// differ from it only in the fault seed (so run alike wherever their
// draws fail nothing); false for a point made outside an expansion.
func (p *Point) TwinKey() (string, bool) {
	return p.twinKey, p.twinKey != ""
}

// Points expands the campaign in a fixed order: topology, traffic, failures
// entry, failure level, the entry's [faults.timed] variant, fault seed,
// traffic seed, routing. Points that
// share a topology, level and fault seed share the failure draw, so
// routings are compared on the same faulty network.
func (c *Campaign) Points() ([]Point, error) {
	var err error
	fixed := map[string][]faults.Fixed{}
	for _, f := range c.Faults {
		if f.Fixed != "" && fixed[f.Fixed] == nil {
			if fixed[f.Fixed], err = faults.LoadFixed(f.Fixed); err != nil {
				return nil, err
			}
		}
	}
	var pts []Point
	for _, topo := range c.Topologies {
		for ti, tr := range c.Traffic {
			params, err := c.simParams(tr)
			if err != nil {
				return nil, err
			}
			fseeds, tseeds := c.FaultSeeds, c.TrafficSeeds
			if len(tr.FaultSeeds) > 0 {
				fseeds = tr.FaultSeeds
			}
			if len(tr.TrafficSeeds) > 0 {
				tseeds = tr.TrafficSeeds
			}
			for _, f := range c.Faults {
				variants := f.timed
				if variants == nil {
					variants = []*Timed{nil} // failures before the run
				}
				for _, pct := range f.Percent {
					vs := variants
					if pct == 0 && len(vs) > 1 { // nothing fails: one run, whatever the variant
						v := *vs[0]
						v.Sweep, vs = "", []*Timed{&v}
					}
					for _, tv := range vs {
						for _, fseed := range fseeds {
							fs := c.faultSpec(f, pct, uint64(fseed), fixed[f.Fixed]) // seeds validated non-negative
							for _, tseed := range tseeds {
								for _, r := range c.Routings {
									pts = append(pts, c.point(len(pts), topo, ti, f, pct, tv, fs, uint64(tseed), r, params))
								}
							}
						}
					}
				}
			}
		}
	}
	return pts, nil
}

// point is one point of the expansion.
func (c *Campaign) point(index int, topo TopologyEntry, ti int, f FaultsEntry, pct float64, tv *Timed, fs faults.Spec, tseed uint64, r RoutingEntry, params sim.Params) Point {
	tr := c.Traffic[ti]
	params.Seed = tseed
	opts := r.Options
	if !r.Has("vls") {
		opts.VLs = c.hw.VLs
	}
	opts.Seed = seedOf(opts.Seed)
	pt := Point{
		Index:        index,
		Key:          fmt.Sprintf("%s|%s#%d|%s=%g%%%s|fault_seed=%d|traffic_seed=%d|%s", topo.Spec, tr.Kind, ti, f.Label, pct, tv, fs.Seed, tseed, r.Label),
		twinKey:      fmt.Sprintf("%s|%s#%d|%s=%g%%%s|traffic_seed=%d|%s", topo.Spec, tr.Kind, ti, f.Label, pct, tv, tseed, r.Label),
		Topology:     topo,
		Traffic:      tr,
		TrafficIndex: ti,
		FaultKind:    f.Kind,
		FaultLabel:   f.Label,
		Percent:      pct,
		FaultSeed:    fs.Seed,
		Faults:       fs,
		Routing:      r,
		Options:      opts,
		Params:       params,
		Timed:        tv,
	}
	if tr.Kind == JobsKind {
		pt.Workload, pt.JobsSeed = c.Workload, c.jobsSeed(int64(tseed))
		if jobs := c.placed(topo.Spec, pt.JobsSeed); jobs != nil { // placed once, for every point of it
			pt.Params.Jobs = jobs
			pt.Options.Jobs = traffic.Ranks(jobs)
		}
		pt.NoSlowdown = tr.Slowdowns != nil && !*tr.Slowdowns
	}
	return pt
}

// Place places the point's workload (if it has one and it is not placed
// yet) on net, its topology's network before failures, with JobsSeed:
// Params.Jobs and the job map of scheduling-aware routing (Options.Jobs).
func (p *Point) Place(net *fabric.Network) error {
	if p.Workload == nil || p.Params.Jobs != nil {
		return nil
	}
	jobs, err := p.Workload.Place(net, p.JobsSeed, p.Params.HW.MTU)
	if err != nil {
		return err
	}
	p.Params.Jobs, p.Options.Jobs = jobs, traffic.Ranks(jobs)
	return nil
}

// jobsSeed is the seed that places the workload at traffic seed tseed:
// jobs_seed, else a jobs file's seed, else tseed.
func (c *Campaign) jobsSeed(tseed int64) int64 {
	switch {
	case c.JobsSeed != nil:
		return *c.JobsSeed
	case c.Workload != nil && c.Workload.Seed != nil:
		return *c.Workload.Seed
	}
	return tseed
}

// placed returns the workload placed on the network Check built for spec
// with seed, placing it once per network and seed; nil before Check (the
// point is then placed where it runs).
func (c *Campaign) placed(spec string, seed int64) []traffic.Job {
	net := c.built[spec]
	if net == nil || c.Workload == nil {
		return nil
	}
	key := fmt.Sprintf("%s|%d", spec, seed)
	if jobs, ok := c.placements[key]; ok {
		return jobs
	}
	jobs, err := c.Workload.Place(net, seed, c.hw.MTU)
	if err != nil {
		jobs = nil // Check placed it: a run reports the error if it comes back
	}
	if c.placements == nil {
		c.placements = map[string][]traffic.Job{}
	}
	c.placements[key] = jobs
	return jobs
}
