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

// Engine is one routing engine a user may name.
type Engine struct {
	// Name is what a campaign's routing.engine and --routing take.
	Name string
	Help string
	// Params are the keys of the options the engine reads
	// (routing.OptionDecls: vls, roots, file, ...); setting another is an
	// error, not silently ignored.
	Params []string
	// DeadlockFree: the engine promises acyclic per-VL channel dependency
	// graphs whenever it routes (verification checks either way).
	DeadlockFree bool
	// JobAware: the engine routes for the running jobs (Options.Jobs).
	JobAware bool
	// OpenSM: the engine runs the opensm binary.
	OpenSM bool
}

// All lists every engine: flitsim's sorted by name, then OpenSM's.
func All() []Engine {
	var all []Engine
	own := map[string]routing.Engine{}
	for _, e := range routing.Engines() {
		own[e.Name] = e
		all = append(all, Engine{Name: e.Name, Help: e.Help, Params: e.Params, DeadlockFree: e.DeadlockFree, JobAware: e.JobAware})
	}
	osm := opensm.Engines()
	sort.Strings(osm)
	for _, n := range osm {
		e := Engine{Name: opensm.Prefix + n, OpenSM: true, DeadlockFree: own[n].DeadlockFree,
			Help: "the real OpenSM's " + n + " (opensm binary, run in simulation mode); same algorithm family as flitsim's " + n}
		e.Params = opensm.Params(n)
		all = append(all, e)
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

// Takes reports an error when the engine does not read parameter key.
func (e Engine) Takes(key string) error {
	for _, p := range e.Params {
		if p == key {
			return nil
		}
	}
	has := "none"
	if len(e.Params) > 0 {
		has = strings.Join(e.Params, ", ")
	}
	return fmt.Errorf("routing engine %s reads no %s (its parameters: %s)", e.Name, key, has)
}

// Compute routes net with the named engine.
func Compute(name string, net *fabric.Network, o routing.Options) (*routing.Tables, error) {
	if e, ok := strings.CutPrefix(name, opensm.Prefix); ok {
		return opensm.Route(context.Background(), net, e, o)
	}
	return routing.Compute(name, net, o)
}
