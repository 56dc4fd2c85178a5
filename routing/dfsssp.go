package routing

import "fmt"

// routeDFSSSP is DFSSSP (§3.3.8, seeds/000 §IV): SSSP paths, then the
// offline cycle breaking of Alg. 3.6 with the weakest-edge heuristic, then
// the paths of every layer are spread over the layers left unused.
func routeDFSSSP(g *graph, o Options) (*Tables, error) {
	// SSSP's paths are minimal: whether their list fits is known before
	// routing them.
	if hops := g.minimalPathHops(g.hopDistances()); hops > g.maxPathHops {
		return nil, &Failure{Engine: "dfsssp", Reason: errTooManyPaths{hops, g.maxPathHops}.Error()}
	}
	t, err := routeSSSP(g, o)
	if err != nil {
		return nil, err
	}
	return layerDFSSSP(g, t, o, "dfsssp")
}

// layerDFSSSP puts the paths of t into virtual layers as DFSSSP does;
// engine names the engine in failures.
func layerDFSSSP(g *graph, t *Tables, o Options, engine string) (*Tables, error) {
	t.Engine = engine
	ps, err := collectPaths(g, t)
	if err != nil {
		return nil, &Failure{Engine: engine, Reason: err.Error()}
	}
	rule, err := newBreakRule(o)
	if err != nil {
		return nil, &Failure{Engine: engine, Reason: err.Error()}
	}
	layer, n, err := breakCyclesBy(ps, maxLayers, rule)
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
