package routing

import "fmt"

// routeDFSSSP is DFSSSP (§3.3.8, seeds/000 §IV): SSSP paths, then the
// offline cycle breaking of Alg. 3.6 with the weakest-edge heuristic, then
// the paths of every layer are spread over the layers left unused.
func routeDFSSSP(g *graph, o Options) (*Tables, error) {
	t, err := routeSSSP(g, o)
	if err != nil {
		return nil, err
	}
	t.Engine = "dfsssp"
	ps := collectPaths(g, t)
	layer, n, err := breakCycles(ps, maxLayers)
	if err != nil {
		return nil, &Failure{Engine: "dfsssp", Reason: err.Error()}
	}
	t.VLsNeeded = n
	if n > o.VLs {
		return nil, needsVLs("dfsssp", n, o.VLs)
	}
	t.VLsUsed = balanceLayers(ps, layer, n, o.VLs)
	ps.apply(t, layer)
	if t.VLsUsed > n {
		t.Notes = append(t.Notes, fmt.Sprintf("needs %d VLs, balanced over %d", n, t.VLsUsed))
	}
	return t, nil
}
