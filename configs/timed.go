package configs

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"flitsim/fabric/param"
)

// Timed are the keys of a failures entry's [faults.timed] table (issue
// 51): the entry's failures (cables, or switches without HCAs: all their
// cables at once) happen while traffic runs, and the subnet manager
// reroutes them; a key given a list sweeps its values (pipeline.RerouteRun; sim/doc.go, "Timed
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
	// Sweep names the variant of a table whose keys list values
	// ("detect=5us,five_phase=true"; empty without lists).
	Sweep string
}

// TimedDecls returns the declarations of the [faults.timed] keys.
func TimedDecls() []param.Decl { return param.Of(&Timed{}) }

// timed decodes entry i's [faults.timed] table into the variants it
// sweeps (nil: the failures happen before the run, as a failed fabric).
// A key given a list of values sweeps them: each combination of the
// lists' values is a variant, the keys in name order, the last varying
// fastest.
func (c *Campaign) timed(i int) ([]*Timed, error) {
	f := &c.Faults[i]
	if f.Timed == nil {
		return nil, nil
	}
	if f.TakeHCAs {
		return nil, c.errAtKey("faults.timed", i, "switches with HCAs cannot fail while traffic runs (take_hcas)")
	}
	if f.Fixed != "" {
		return nil, c.errAtKey("faults.timed", i, "failures while traffic runs are drawn; a failure list (fixed) is not supported yet")
	}
	combos := []map[string]any{{}}
	sweeps := [][]string{nil}
	for _, key := range sortedKeys(f.Timed) {
		vals, swept := f.Timed[key].([]any)
		if !swept {
			vals = []any{f.Timed[key]}
		} else if len(vals) == 0 {
			return nil, c.errAtKey("faults.timed."+key, i, "an empty list sweeps nothing: give one value or several")
		}
		var next []map[string]any
		var nextSweeps [][]string
		for j, m := range combos {
			for _, v := range vals {
				n := maps.Clone(m)
				n[key] = v
				next = append(next, n)
				sw := sweeps[j]
				if swept {
					sw = append(slices.Clone(sw), fmt.Sprintf("%s=%v", key, v))
				}
				nextSweeps = append(nextSweeps, sw)
			}
		}
		combos, sweeps = next, nextSweeps
	}
	var out []*Timed
	seen := map[string]bool{}
	for j, m := range combos {
		t := &Timed{Sweep: strings.Join(sweeps[j], ",")}
		param.Defaults(t)
		if err := c.decodeTable("faults.timed", m, TimedDecls(), t); err != nil {
			return nil, err
		}
		if seen[t.String()] {
			return nil, c.errAtKey("faults.timed", i, "the sweep lists %s twice", t)
		}
		seen[t.String()] = true
		out = append(out, t)
	}
	return out, nil
}

// String is a timed variant's part of a point's key.
func (t *Timed) String() string {
	if t == nil {
		return ""
	}
	s := fmt.Sprintf("@%dns", t.At/1000)
	if t.FivePhase {
		s += "+five-phase"
	}
	if t.Sweep != "" {
		s += "[" + t.Sweep + "]"
	}
	return s
}
