package configs

import (
	"fmt"

	"flitsim/faults"
	"flitsim/routing"
	"flitsim/sim"
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
	Seed       uint64
	Faults     faults.Spec
	Routing    RoutingEntry
	Options    routing.Options
	Params     sim.Params
}

// Points expands the campaign in a fixed order: topology, traffic, failures
// entry, failure level, seed, routing. Points that share a topology, level and seed share
// the failure draw, so routings are compared on the same faulty network.
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
			seeds := c.Seeds
			if len(tr.Seeds) > 0 {
				seeds = tr.Seeds
			}
			for _, f := range c.Faults {
				for _, pct := range f.Percent {
					for _, s64 := range seeds {
						seed := uint64(s64) // validated non-negative
						fs := c.faultSpec(f, pct, seed, fixed[f.Fixed])
						for _, r := range c.Routings {
							p := params
							p.Seed = seed
							vls := c.hw.VLs
							if r.VLs != nil {
								vls = *r.VLs
							}
							pts = append(pts, Point{
								Index:        len(pts),
								Key:          fmt.Sprintf("%s|%s#%d|%s=%g%%|seed=%d|%s", topo.Spec, tr.Kind, ti, f.Label, pct, seed, r.Label),
								Topology:     topo,
								Traffic:      tr,
								TrafficIndex: ti,
								FaultKind:    f.Kind,
								FaultLabel:   f.Label,
								Percent:      pct,
								Seed:         seed,
								Faults:       fs,
								Routing:      r,
								Options:      routing.Options{VLs: vls, Roots: r.Roots, File: r.File},
								Params:       p,
							})
						}
					}
				}
			}
		}
	}
	return pts, nil
}
