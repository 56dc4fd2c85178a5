package routing

import (
	"fmt"
	"os"
	"testing"

	"flitsim/fabric"
)

// The reference fabric: 128 switches, 1,024 HCAs, 8 switch cables
// per switch (512 cables). OpenSM 3.3.23 on this kind of machine: minhop
// 23 ms, sssp 37 ms, dfsssp 660 ms, lash 850 ms.
const benchFabric = "random:switches=128,hcas=1024,links=512,seed=1"

func BenchmarkRoute(b *testing.B) {
	net, err := fabric.Build(benchFabric)
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range Engines() {
		if e.Name == "file" {
			continue
		}
		b.Run(e.Name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := e.Route(net, Options{VLs: 8}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkVerify(b *testing.B) {
	net, err := fabric.Build(benchFabric)
	if err != nil {
		b.Fatal(err)
	}
	tb, err := Compute("dfsssp", net, DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Verify(net, tb); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDFSSSPLayersOnRandom reproduces the experiment of seeds/000 Fig. 9:
// 128 32-port switches with 16 HCAs each and a varying number of random
// switch cables; virtual layers needed by DFSSSP and LASH (min/avg/max).
// CI runs 3 topologies per point; FLITSIM_LONG=1 runs the paper's 100.
func TestDFSSSPLayersOnRandom(t *testing.T) {
	perPoint := 3
	if os.Getenv("FLITSIM_LONG") != "" {
		perPoint = 100
	} else if testing.Short() {
		t.Skip("short")
	}
	for _, links := range []int{160, 200, 240} {
		for _, eng := range []string{"dfsssp", "lash"} {
			lo, hi, sum := 1<<30, 0, 0
			for seed := 1; seed <= perPoint; seed++ {
				net, err := fabric.Build(fmt.Sprintf("random:switches=128,hcas=2048,links=%d,radix=32,seed=%d", links, seed))
				if err != nil {
					t.Fatal(err)
				}
				tb, err := Compute(eng, net, Options{VLs: 16})
				n := 0
				if err != nil {
					f, ok := err.(*Failure)
					if !ok || f.VLsNeeded == 0 {
						t.Fatalf("%s: %v", eng, err)
					}
					n = f.VLsNeeded
				} else {
					n = tb.VLsNeeded
				}
				lo, hi, sum = min(lo, n), max(hi, n), sum+n
			}
			t.Logf("links=%d %-6s layers min %d avg %.2f max %d (%d topologies)", links, eng, lo, float64(sum)/float64(perPoint), hi, perPoint)
		}
	}
}
