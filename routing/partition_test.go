package routing

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"flitsim/faults"
)

// The parts Nue's layers are dealt from hold about equal numbers of HCAs:
// none empty, none beyond the average by more than refine's 10 % and one
// switch's HCAs (a switch is never split). Before coarse vertices were
// capped and parts were grown to their share of what was left, the
// 10-ary 3-tree put all 1,100 HCAs in one part for every k ≥ 3 and the
// 5,120-HCA XGFT 90 % of them in one of eight.
func TestPartitionBalanced(t *testing.T) {
	specs := []string{
		"kary-ntree:k=10,n=3,hcas=1100", "kary-ntree:k=16,n=2", "xgft:m=16x20,w=16x16,hcas=5120,radix=32",
		"torus:dims=5x5,hcas=275,redundancy=6", "torus:dims=6x6x6", "dragonfly:a=12,p=6,h=6,g=15",
		"cascade:groups=2", "deimos", "kautz:d=5,k=3,hcas=1050,redundancy=2",
	}
	for seed := 1; seed <= 10; seed++ {
		specs = append(specs, fmt.Sprintf("random:switches=125,hcas=1000,links=1000,seed=%d", seed))
	}
	for _, spec := range specs {
		net := build(t, spec)
		for _, pct := range []float64{0, 5} {
			n := net
			if pct > 0 {
				var err error
				n, _, err = faults.Inject(net, faults.Spec{LinkPercent: pct, Seed: 1})
				require.NoError(t, err)
			}
			g := newGraph(n)
			most, total := 0, 0
			for s := 0; s < g.S; s++ {
				most = max(most, g.numHCAs(s))
				total += g.numHCAs(s)
			}
			for k := 2; k <= 8; k++ {
				part := g.partition(k)
				size := make([]int, k)
				for s, p := range part {
					switch {
					case g.numHCAs(s) == 0:
						require.Equal(t, -1, p, "%s: switch %d has no HCAs", spec, s)
					default:
						require.True(t, p >= 0 && p < k, "%s k=%d: switch %d in part %d", spec, k, s, p)
						size[p] += g.numHCAs(s)
					}
				}
				for p, sz := range size {
					require.Positive(t, sz, "%s %.0f%% k=%d: part %d empty (%v)", spec, pct, k, p, size)
					require.LessOrEqual(t, sz, total/k+total/(10*k)+1+most, "%s %.0f%% k=%d: part %d too heavy (%v)", spec, pct, k, p, size)
				}
			}
		}
	}
}
