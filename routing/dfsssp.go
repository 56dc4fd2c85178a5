package routing

import (
	"errors"
	"fmt"
	"slices"
)

// routeDFSSSP is DFSSSP (§3.3.8, seeds/000 §IV): SSSP paths, then the
// offline cycle breaking of Alg. 3.6 with the weakest-edge heuristic, then
// the paths of every layer are spread over the layers left unused.
func routeDFSSSP(g *graph, o Options) (*Tables, error) {
	rule, err := newBreakRule(o)
	if err != nil {
		return nil, &Failure{Engine: "dfsssp", Reason: err.Error()}
	}
	// The online layering needs every path listed. SSSP's paths are
	// minimal: whether their list fits is known before routing them.
	if hops := g.minimalPathHops(g.hopDistances()); hops > g.maxPathHops && rule.online {
		return nil, &Failure{Engine: "dfsssp", Reason: errTooManyPaths{hops, g.maxPathHops}.Error() + "; the online layering needs it"}
	}
	t, err := routeSSSP(g, o)
	if err != nil {
		return nil, err
	}
	return layerDFSSSP(g, t, o, "dfsssp", layerAuto)
}

// layering is how layerDFSSSP finds its layers: all alike but for the
// memory and time they take, and where a path list would not fit.
type layering uint8

const (
	// layerAuto: the first layer along the tables (treeLayers), the paths
	// it moves on listed and layered as breakCyclesBy does, or along the
	// tables if they would not fit; the same layers as layerListed
	// wherever the paths moved fit. The online rule, and tables that
	// carry SLs already, take layerListed.
	layerAuto layering = iota
	// layerListed: every path listed (collectPaths, breakCyclesBy).
	layerListed
	// layerTrees: every layer along the tables.
	layerTrees
)

// maxListedMoves is the most paths layerAuto lists after the first layer
// (8 bytes each while recorded); beyond, it goes on along the tables.
const maxListedMoves = 1 << 27

// layerDFSSSP puts the paths of t into virtual layers as DFSSSP does;
// engine names the engine in failures.
func layerDFSSSP(g *graph, t *Tables, o Options, engine string, how layering) (*Tables, error) {
	t.Engine = engine
	rule, err := newBreakRule(o)
	if err != nil {
		return nil, &Failure{Engine: engine, Reason: err.Error()}
	}
	if how == layerAuto && (rule.online || t.sl != nil) {
		how = layerListed
	}
	if how != layerListed {
		return layerByTrees(g, t, o, rule, engine, how == layerAuto)
	}
	ps, err := collectPaths(g, t)
	if err != nil {
		return nil, &Failure{Engine: engine, Reason: err.Error()}
	}
	layer, n, err := breakCyclesBy(ps, maxLayers, rule, layerWatch{w: g.watch})
	if err != nil {
		return nil, &Failure{Engine: engine, Reason: err.Error()}
	}
	t.VLsNeeded = n
	if n > o.VLs {
		return nil, needsVLs(engine, n, o.VLs)
	}
	t.VLsUsed = balanceLayers(ps, layer, n, o.VLs)
	ps.apply(t, layer)
	if t.VLsUsed > n {
		t.Notes = append(t.Notes, fmt.Sprintf("needs %d VLs, balanced over %d", n, t.VLsUsed))
	}
	return t, nil
}

// layerByTrees is layerDFSSSP's layering along the tables (treeLayers),
// the SLs written in place; list lists the paths moved past the first
// layer where they fit (layerAuto).
func layerByTrees(g *graph, t *Tables, o Options, rule breakRule, engine string, list bool) (*Tables, error) {
	b := newTreeBreaker(g, t, rule)
	b.record, b.stopAt = list, o.VLs
	n, err := b.layers(maxLayers)
	if err != nil {
		t.sl = nil
		f := &Failure{Engine: engine, Reason: err.Error()}
		var stop errStoppedCounting
		if errors.As(err, &stop) {
			f.VLsNeeded, f.AtLeast = stop.layers+1, true
		}
		return nil, f
	}
	t.VLsNeeded = n
	if n > o.VLs {
		t.sl = nil
		return nil, needsVLs(engine, n, o.VLs)
	}
	t.VLsUsed = b.balance(n, o.VLs)
	b.writeSLs()
	if !slices.ContainsFunc(t.sl, func(sl uint8) bool { return sl != 0 }) {
		t.sl = nil // as SetSL leaves it
	}
	if b.alongTables {
		t.Notes = append(t.Notes, "paths past the first layer layered along the tables (too many to list)")
	}
	if t.VLsUsed > n {
		t.Notes = append(t.Notes, fmt.Sprintf("needs %d VLs, balanced over %d", n, t.VLsUsed))
	}
	return t, nil
}
