// Package scc finds the strongly connected components of a directed graph.
package scc

// Components returns the strongly connected components of the directed
// graph adj (vertex v's successors are adj[v]), each component's
// vertices in the order Tarjan's algorithm (with an explicit stack, so
// that deep graphs cannot overflow the call stack) pops them; components
// come in reverse topological order.
func Components(adj [][]int32) [][]int32 {
	n := len(adj)
	index := make([]int32, n)
	low := make([]int32, n)
	on := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	var stack, comps []int32
	var out [][]int32
	next := int32(0)
	type frame struct{ v, i int32 }
	for root := 0; root < n; root++ {
		if index[root] >= 0 {
			continue
		}
		call := []frame{{int32(root), 0}}
		index[root], low[root] = next, next
		next++
		stack = append(stack, int32(root))
		on[root] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			if int(f.i) < len(adj[f.v]) {
				w := adj[f.v][f.i]
				f.i++
				if index[w] < 0 {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					on[w] = true
					call = append(call, frame{w, 0})
				} else if on[w] {
					low[f.v] = min(low[f.v], index[w])
				}
				continue
			}
			v := f.v
			call = call[:len(call)-1]
			if len(call) > 0 {
				p := call[len(call)-1].v
				low[p] = min(low[p], low[v])
			}
			if low[v] == index[v] {
				comps = comps[:0]
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					on[w] = false
					comps = append(comps, w)
					if w == v {
						break
					}
				}
				out = append(out, append([]int32(nil), comps...))
			}
		}
	}
	return out
}
