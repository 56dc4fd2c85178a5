// Package engines is the one registry of routing engines a campaign or a
// command may name: flitsim's own (package routing's sorted table) and
// the real OpenSM's ("opensm:NAME", package routing/opensm), each with the
// parameters it reads. Configs and the CLI check names and parameters
// here, and route through Compute.
package engines

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"flitsim/fabric"
	"flitsim/routing"
	"flitsim/routing/opensm"
)

// Engine is one routing engine a user may name: routing.Engine, the one
// engine type.
type Engine = routing.Engine

// All lists every engine: flitsim's sorted by name (routing.Engines), then
// OpenSM's.
func All() []Engine {
	all := routing.Engines()
	own := map[string]routing.Engine{}
	for _, e := range all {
		own[e.Name] = e
	}
	osm := opensm.Engines()
	sort.Strings(osm)
	for _, n := range osm {
		all = append(all, Engine{Name: opensm.Prefix + n, OpenSM: true, DeadlockFree: own[n].DeadlockFree, Params: opensm.Params(n),
			Help: "the real OpenSM's " + n + " (opensm binary, run in simulation mode); same algorithm family as flitsim's " + n,
			External: func(net *fabric.Network, o routing.Options) (*routing.Tables, error) {
				return opensm.Route(context.Background(), net, n, o)
			}})
	}
	return all
}

// Lookup finds an engine by name.
func Lookup(name string) (Engine, bool) {
	for _, e := range All() {
		if e.Name == name {
			return e, true
		}
	}
	return Engine{}, false
}

// Names lists every engine's name, in All's order.
func Names() []string {
	var n []string
	for _, e := range All() {
		n = append(n, e.Name)
	}
	return n
}

// Find returns the named engine or an error listing the known ones.
func Find(name string) (Engine, error) {
	e, ok := Lookup(name)
	if !ok {
		return e, fmt.Errorf("unknown routing engine %q (known: %s, and opensm:<engine>)", name, strings.Join(routing.Names(), ", "))
	}
	return e, nil
}

// Compute routes net with the named engine.
func Compute(name string, net *fabric.Network, o routing.Options) (*routing.Tables, error) {
	return ComputeWatched(name, net, o, nil)
}

// ComputeWatched is Compute telling w, if not nil, how far the engine has
// come (routing.Engine.RouteWatched).
func ComputeWatched(name string, net *fabric.Network, o routing.Options, w routing.Watch) (*routing.Tables, error) {
	e, err := Find(name)
	if err != nil {
		return nil, err
	}
	return e.RouteWatched(net, o, w)
}
