package routing

import (
	"fmt"
	"strings"
	"time"

	"flitsim/fabric"
	"flitsim/fabric/invariants"
)

// Failure is a routing that could not be computed (the thesis' "routing
// failed" cells): the engine ran but the topology or the VL budget defeated it.
type Failure struct {
	Engine    string
	Reason    string
	VLsNeeded int // when the failure is a VL shortage, else 0
	// AtLeast: VLsNeeded is a lower bound (the engine stopped at the
	// first path no VL could take instead of counting further).
	AtLeast bool
}

// Error returns the engine and the reason.
func (f *Failure) Error() string { return f.Engine + ": " + f.Reason }

func needsVLs(engine string, need, have int) *Failure {
	return &Failure{Engine: engine, Reason: fmt.Sprintf("needs %d VLs, %d available", need, have), VLsNeeded: need}
}

// Compute routes net with the named engine.
func Compute(name string, net *fabric.Network, o Options) (*Tables, error) {
	e, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("unknown routing engine %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	return e.Route(net, o)
}

// Route runs the engine on net.
func (e Engine) Route(net *fabric.Network, o Options) (*Tables, error) {
	return e.RouteWatched(net, o, nil)
}

// RouteWatched is Route telling w, if not nil, how far the engine has
// come (the long ones: those that route destination by destination and
// DFSSSP's layering; OpenSM's engines tell nothing).
func (e Engine) RouteWatched(net *fabric.Network, o Options, w Watch) (*Tables, error) {
	if e.External != nil {
		return e.External(net, o)
	}
	if o.VLs == 0 {
		o.VLs = DefaultOptions().VLs
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.VLs < 1 || o.VLs > MaxVLs {
		return nil, fmt.Errorf("%s: vls=%d outside 1..%d", e.Name, o.VLs, MaxVLs)
	}
	if net.NumSwitches > 0 && net.NumSwitches > 1<<20 {
		return nil, fmt.Errorf("%s: too many switches", e.Name)
	}
	g := newGraph(net)
	g.watch = w
	t, err := e.route(g, o)
	if err != nil {
		return nil, err
	}
	t.Engine = e.Name
	if invariants.Enabled && e.RingCycles {
		// Whatever it routes, its dependency cycles stay within rings.
		v, err := Verify(net, t)
		invariants.Checkf(err == nil && v.LoopFree && (v.DeadlockFree || v.RingCyclesOnly), "%s on %s: a dependency cycle leaves its ring (%v, %v)", e.Name, net.Name, err, v.Cycle)
	}
	if invariants.Enabled && e.DeadlockFree {
		// An engine that promises deadlock-freedom keeps it on every
		// network a test routes: complete tables, no loop, every VL's
		// channel dependency graph acyclic.
		v, err := Verify(net, t)
		invariants.Checkf(err == nil && v.OK() && v.DeadlockFree, "%s on %s: tables not deadlock-free (%v, %+v)", e.Name, net.Name, err, v.Problem)
	}
	return t, nil
}

// Timed runs the engine and returns its wall time too.
func (e Engine) Timed(net *fabric.Network, o Options) (*Tables, time.Duration, error) {
	start := time.Now()
	t, err := e.Route(net, o)
	return t, time.Since(start), err
}
