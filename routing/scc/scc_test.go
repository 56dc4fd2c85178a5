package scc

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestComponents(t *testing.T) {
	for _, tc := range []struct {
		name string
		adj  [][]int32
		want [][]int32 // each sorted, in output order
	}{
		{"empty", nil, nil},
		{"isolated", [][]int32{nil, nil}, [][]int32{{0}, {1}}},
		{"self loop", [][]int32{{0}}, [][]int32{{0}}},
		{"chain", [][]int32{{1}, {2}, nil}, [][]int32{{2}, {1}, {0}}},
		{"two cycles joined", [][]int32{{1}, {0, 2}, {3}, {2}}, [][]int32{{2, 3}, {0, 1}}},
		{"ring of four", [][]int32{{1}, {2}, {3}, {0}}, [][]int32{{0, 1, 2, 3}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got [][]int32
			for _, c := range Components(tc.adj) {
				c = slices.Clone(c)
				slices.Sort(c)
				got = append(got, c)
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

// A long path must not overflow the stack.
func TestComponentsDeep(t *testing.T) {
	const n = 1 << 20
	adj := make([][]int32, n)
	for i := 0; i+1 < n; i++ {
		adj[i] = []int32{int32(i + 1)}
	}
	adj[n-1] = []int32{0}
	c := Components(adj)
	assert.Len(t, c, 1)
	assert.Len(t, c[0], n)
}
