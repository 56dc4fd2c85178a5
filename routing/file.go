package routing

import "fmt"

// routeFile loads the LFTs of the OpenSM dump named by o.File (see
// ReadLFTs): every path on SL 0.
func routeFile(g *graph, o Options) (*Tables, error) {
	if o.File == "" {
		return nil, fmt.Errorf("file: no dump given (file=PATH)")
	}
	return LoadLFTs(o.File, g.net)
}
