package fabric

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Ring names a torus channel's direction and parallel cable; lines, HCA
// cables and networks without coordinates have none.
func TestRing(t *testing.T) {
	ring := func(spec string) (*Network, map[[2]int]int) {
		net, err := Build(spec)
		require.NoError(t, err)
		out := map[[2]int]int{}
		for s := 0; s < net.NumSwitches; s++ {
			for p := 1; p <= net.Nodes[s].Radix; p++ {
				out[[2]int{s, p}] = net.Ring(s, p)
			}
		}
		return net, out
	}
	// 4×2 torus: X a ring of four, Y (size 2) a line.
	net, r := ring("torus:dims=4x2,hcas=8")
	counts := map[int]int{}
	for k, v := range r {
		if e, ok := net.Peer(k[0], k[1]); !ok || int(e.Node) >= net.NumSwitches {
			assert.Equal(t, -1, v, "HCA cable or dark port %v", k)
			continue
		}
		counts[v]++
	}
	// +X (0) and −X (2) on all 8 switches; the Y cables are a line (−1).
	assert.Equal(t, map[int]int{0: 8, 2: 8, -1: 8}, counts)
	// s-0-0 to s-1-0 is +X, s-0-0 to s-3-0 is −X.
	s00, s10, s30 := net.ByName()["s-0-0"], net.ByName()["s-1-0"], net.ByName()["s-3-0"]
	for p := 1; p <= net.Nodes[s00].Radix; p++ {
		if e, ok := net.Peer(s00, p); ok {
			switch int(e.Node) {
			case s10:
				assert.Equal(t, 0, r[[2]int{s00, p}])
			case s30:
				assert.Equal(t, 2, r[[2]int{s00, p}])
			}
		}
	}

	// Two parallel cables: two rings per direction (rank 0 and 1: +2n).
	_, r = ring("torus:dims=3,hcas=3,redundancy=2")
	counts = map[int]int{}
	for _, v := range r {
		counts[v]++
	}
	assert.Equal(t, 3, counts[0])
	assert.Equal(t, 3, counts[2])
	assert.Equal(t, 3, counts[1])
	assert.Equal(t, 3, counts[3])

	// A mesh has lines only; a fat tree has no coordinates.
	for _, spec := range []string{"mesh:dims=4x4", "kary-ntree:k=2,n=2"} {
		_, r = ring(spec)
		for k, v := range r {
			assert.Equal(t, -1, v, "%s %v", spec, k)
		}
	}
}
