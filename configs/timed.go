package configs

import (
	"fmt"

	"flitsim/fabric/param"
)

// Timed are the keys of a failures entry's [faults.timed] table (issue
// 51): the entry's failures (cables, or switches without HCAs: all their
// cables at once) happen while traffic runs, and the subnet manager
// reroutes them (pipeline.RerouteRun; sim/doc.go, "Timed
// events"). Each key is declared here once.
type Timed struct {
	At         int64   `param:"at" unit:"ps" range:"(0,1000s]" default:"20us" help:"the cables fail this long into each run (the traffic runs on the intact fabric before)"`
	Detect     int64   `param:"detect" unit:"ps" range:"[0,1000s]" default:"2us" help:"from the failure until the subnet manager starts routing (a trap; scaled down from the 100 ms of flitsim reroute so that a run covers the reroute)"`
	RouteTime  int64   `param:"route_time" unit:"ps" range:"[0,1000s]" default:"2us" help:"the routing's time (declared: a campaign's results must not depend on the machine)"`
	MADRate    float64 `param:"mad_rate" range:"(0,1e12]" default:"100000" help:"LFT blocks the subnet manager writes a second"`
	FivePhase  bool    `param:"five_phase" default:"false" help:"update by the five-phase protocol (§5.2.3): Up*/Down* for high LIDs on the last VL, the sources migrated there, drain, the new base tables, back"`
	Drain      int64   `param:"drain" unit:"ps" range:"[0,1000s]" default:"20us" help:"five-phase: from the migration to the high LIDs until the base tables are written"`
	Retry      int64   `param:"retry" unit:"ps" range:"[0,1000s]" default:"65.536us" help:"a lost packet is sent again this long after its injection (InfiniBand's local ACK timeout 4.096 µs·2^4; 0: never)"`
	WindowSize int64   `param:"window" unit:"ps" range:"(0,1000s]" default:"10us" help:"the throughput over time is counted in windows of this length"`
}

// TimedDecls returns the declarations of the [faults.timed] keys.
func TimedDecls() []param.Decl { return param.Of(&Timed{}) }

// timed decodes entry i's [faults.timed] table (nil: the failures happen
// before the run, as a failed fabric).
func (c *Campaign) timed(i int) (*Timed, error) {
	f := &c.Faults[i]
	if f.Timed == nil {
		return nil, nil
	}
	t := &Timed{}
	param.Defaults(t)
	if err := c.decodeTable("faults.timed", f.Timed, TimedDecls(), t); err != nil {
		return nil, err
	}
	if f.TakeHCAs {
		return nil, c.errAtKey("faults.timed", i, "switches with HCAs cannot fail while traffic runs (take_hcas)")
	}
	if f.Fixed != "" {
		return nil, c.errAtKey("faults.timed", i, "failures while traffic runs are drawn; a failure list (fixed) is not supported yet")
	}
	return t, nil
}

// String is a timed entry's part of a point's key.
func (t *Timed) String() string {
	if t == nil {
		return ""
	}
	s := fmt.Sprintf("@%dns", t.At/1000)
	if t.FivePhase {
		s += "+five-phase"
	}
	return s
}
