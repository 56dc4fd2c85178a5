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
	Percent      float64
	Seed         uint64
	Faults       faults.Spec
	Routing      RoutingEntry
	Options      routing.Options
	Params       sim.Params
}

// Points expands the campaign in a fixed order: topology, traffic, failure
// level, seed, routing. Points that share a topology, level and seed share
// the failure draw, so routings are compared on the same faulty network.
func (c *Campaign) Points() ([]Point, error) {
	hw, err := c.hardware()
	if err != nil {
		return nil, err
	}
	var fixed []faults.Fixed
	if c.Faults.Fixed != "" {
		if fixed, err = faults.LoadFixed(c.Faults.Fixed); err != nil {
			return nil, err
		}
	}
	var pts []Point
	for _, topo := range c.Topologies {
		for ti, tr := range c.Traffic {
			params, err := c.simParams(hw, tr)
			if err != nil {
				return nil, err
			}
			seeds := c.Seeds
			if len(tr.Seeds) > 0 {
				seeds = tr.Seeds
			}
			for _, pct := range c.Faults.Percent {
				for _, seed := range seeds {
					fs := faults.Spec{Seed: seed, TakeHCAs: c.Faults.TakeHCAs, Fixed: fixed}
					switch c.Faults.Kind {
					case "links":
						fs.LinkPercent = pct
					case "switches":
						fs.SwitchPercent = pct
					case "mixed":
						fs.MixedPercent = pct
						fs.RatioSwitches, fs.RatioLinks, _ = c.Faults.ratio()
					}
					for _, r := range c.Routings {
						p := params
						p.Seed = seed
						vls := r.VLs
						if vls == 0 {
							vls = hw.VLs
						}
						pts = append(pts, Point{
							Index:        len(pts),
							Key:          fmt.Sprintf("%s|%s#%d|%s=%g%%|seed=%d|%s", topo.Spec, tr.Kind, ti, c.Faults.Kind, pct, seed, r.Label),
							Topology:     topo,
							Traffic:      tr,
							TrafficIndex: ti,
							FaultKind:    c.Faults.Kind,
							Percent:      pct,
							Seed:         seed,
							Faults:       fs,
							Routing:      r,
							Options:      routing.Options{VLs: vls, Roots: r.Roots},
							Params:       p,
						})
					}
				}
			}
		}
	}
	return pts, nil
}
