package routing

import (
	"fmt"
	"strconv"
	"strings"

	"flitsim/fabric"
)

// resolveRoots maps root names or GUIDs to switch indices.
func (g *graph) resolveRoots(engine string, roots []string) ([]int, error) {
	var out []int
	byName := g.net.ByName()
	for _, r := range roots {
		r = strings.TrimSpace(r)
		if r == "" {
			continue
		}
		n, ok := byName[r]
		if !ok && strings.HasPrefix(r, "0x") {
			if v, err := strconv.ParseUint(r[2:], 16, 64); err == nil {
				for i := 0; i < g.S; i++ {
					if g.net.Nodes[i].GUID == v {
						n, ok = i, true
					}
				}
			}
		}
		if !ok || n >= g.S {
			return nil, fmt.Errorf("%s: root %q is not a switch of this network", engine, r)
		}
		out = append(out, n)
	}
	return out, nil
}

// ResolveRoots maps root switch names or 0x GUIDs to switch indices of
// net, or says which one is not a switch of it.
func ResolveRoots(net *fabric.Network, roots []string) ([]int, error) {
	return newGraph(net).resolveRoots("roots", roots)
}
