package routing

import (
	"fmt"
	"strings"

	"flitsim/fabric"
)

// resolveRoots maps root references to switch indices.
func (g *graph) resolveRoots(engine string, roots []string) ([]int, error) {
	out, err := ResolveRoots(g.net, roots)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", engine, err)
	}
	return out, nil
}

// ResolveRoots maps root references (fabric.Resolver: names, 0x node or
// port GUIDs, lid:N) to switch indices of net, or says which one is not a
// switch of it. Blank entries are skipped.
func ResolveRoots(net *fabric.Network, roots []string) ([]int, error) {
	refs := fabric.NewResolver(net)
	var out []int
	for _, r := range roots {
		if strings.TrimSpace(r) == "" {
			continue
		}
		n, err := refs.Switch(r)
		if err != nil {
			return nil, fmt.Errorf("root: %w", err)
		}
		out = append(out, n)
	}
	return out, nil
}
