package routing

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/fabric"
	"flitsim/faults"
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
					var f *Failure
					if !errors.As(err, &f) {
						b.Fatal(err)
					}
					b.ReportMetric(1, "failed") // ftree, torus-2qos: not their topology
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
// As in the paper, DFSSSP needs fewer layers than LASH on the sparse
// networks and LASH fewer the denser the network.
func TestDFSSSPLayersOnRandom(t *testing.T) {
	perPoint := 3
	if os.Getenv("FLITSIM_LONG") != "" {
		perPoint = 100
	} else if testing.Short() {
		t.Skip("short")
	}
	avg := map[string][]float64{}
	points := []int{160, 240, 400}
	for _, links := range points {
		for _, eng := range []string{"dfsssp", "lash"} {
			lo, hi, sum, short := 1<<30, 0, 0, 0
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
					if f.AtLeast {
						short++ // more than 16: n is a lower bound
					}
				} else {
					n = tb.VLsNeeded
				}
				lo, hi, sum = min(lo, n), max(hi, n), sum+n
			}
			bound := ""
			if short > 0 {
				bound = fmt.Sprintf("; %d needed more than 16, counted as 17: avg and max are lower bounds", short)
			}
			t.Logf("links=%d %-6s layers min %d avg %.2f max %d (%d topologies%s)", links, eng, lo, float64(sum)/float64(perPoint), hi, perPoint, bound)
			avg[eng] = append(avg[eng], float64(sum)/float64(perPoint))
		}
	}
	assert.Less(t, avg["dfsssp"][0], avg["lash"][0], "sparse (%d cables): DFSSSP needs fewer layers than LASH", points[0])
	for i := 1; i < len(points); i++ {
		assert.Less(t, avg["lash"][i], avg["lash"][i-1], "LASH needs fewer layers with %d cables than with %d", points[i], points[i-1])
	}
}

// BenchmarkRouteTorus10 routes the largest case of Fig. 6.12: a 10×10×10
// torus with 4 HCAs per switch and 1 % failed links. Engines that cannot
// route it (VL shortage) are timed until they give up.
func BenchmarkRouteTorus10(b *testing.B) {
	base, err := fabric.Build("torus:dims=10x10x10,hcas=4000")
	if err != nil {
		b.Fatal(err)
	}
	net, _, err := faults.Inject(base, faults.Spec{LinkPercent: 1, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"minhop", "sssp", "dfsssp", "updn", "dor", "torus-2qos", "lash", "nue"} {
		e, _ := Lookup(name)
		for _, vls := range []int{1, 8} {
			if vls == 1 && name != "nue" {
				continue
			}
			b.Run(fmt.Sprintf("%s-%dvl", name, vls), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if _, err := e.Route(net, Options{VLs: vls}); err != nil {
						var f *Failure
						if !errors.As(err, &f) {
							b.Fatal(err)
						}
						b.ReportMetric(1, "failed")
					}
				}
			})
		}
	}
}

// BenchmarkRouteNue is Nue on the random 128-switch fabric (OpenSM 3.3.23:
// about 130 ms with 1 VL, 205 ms with 8).
func BenchmarkRouteNue(b *testing.B) {
	net, err := fabric.Build(benchFabric)
	if err != nil {
		b.Fatal(err)
	}
	benchNue(b, net)
}

// benchNue routes net with Nue on 1 and 8 VLs.
func benchNue(b *testing.B, net *fabric.Network) {
	for _, vls := range []int{1, 8} {
		b.Run(fmt.Sprintf("%dvl", vls), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := Compute("nue", net, Options{VLs: vls}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestNueEFIRandom reproduces Fig. 6.10: random topologies with 125
// switches, 8 HCAs each and 1,000 switch cables; the edge forwarding index
// (min, mean, sdv, max over inter-switch channels) averaged over the
// topologies for Nue with 1..8 layers, DFSSSP and LASH, with Nue's
// fall-back share and the longest path. CI runs 2 topologies;
// FLITSIM_LONG=N runs N (the thesis: 1,000).
func TestNueEFIRandom(t *testing.T) {
	n := 2
	if v := os.Getenv("FLITSIM_LONG"); v != "" {
		n = 20
		if x, err := strconv.Atoi(v); err == nil && x > 1 {
			n = x
		}
	} else if testing.Short() {
		t.Skip("short")
	}
	type acc struct{ n, min, mean, sdv, max, longest, fb, dests, worstLongest float64 }
	sums := map[string]*acc{}
	var names []string
	for i := 1; i <= n; i++ {
		net, err := fabric.Build(fmt.Sprintf("random:switches=125,hcas=1000,links=1000,seed=%d", i))
		if err != nil {
			t.Fatal(err)
		}
		run := func(label, engine string, vls int) {
			tb, err := Compute(engine, net, Options{VLs: vls})
			if err != nil {
				t.Logf("%s on topology %d: %v", label, i, err)
				return
			}
			m, err := Measure(net, tb)
			if err != nil {
				t.Fatal(err)
			}
			a := sums[label]
			if a == nil {
				a = &acc{}
				sums[label] = a
				names = append(names, label)
			}
			a.n++
			a.min += float64(m.EFIMin)
			a.mean += m.EFIMean
			a.sdv += m.EFISdv
			a.max += float64(m.EFIMax)
			a.longest += float64(m.PathLenMax)
			a.worstLongest = max(a.worstLongest, float64(m.PathLenMax))
			a.fb += float64(tb.Fallbacks)
			a.dests += float64(tb.Destinations)
		}
		for k := 1; k <= 8; k++ {
			run(fmt.Sprintf("nue-%d", k), "nue", k)
		}
		run("dfsssp", "dfsssp", 8)
		run("lash", "lash", 8)
	}
	for _, name := range names {
		a := sums[name]
		f := float64(n)
		fb := ""
		if a.dests > 0 {
			fb = fmt.Sprintf(" fall-back %.3f %%", 100*a.fb/a.dests)
		}
		t.Logf("%-7s EFI min %7.1f mean %7.1f sdv %6.1f max %7.1f; longest path avg %.2f worst %.0f%s (%d topologies)",
			name, a.min/f, a.mean/f, a.sdv/f, a.max/f, a.longest/f, a.worstLongest, fb, n)
	}
	// §6.3.1: Nue with several layers balances as well as DFSSSP (flitsim's
	// better: relieve), both far better than LASH; more layers help Nue.
	for _, name := range []string{"nue-1", "nue-8", "dfsssp", "lash"} {
		require.Contains(t, sums, name, "%s routed none of the topologies", name)
		require.Equal(t, float64(n), sums[name].n, "%s routed only some of the topologies", name)
	}
	assert.LessOrEqual(t, sums["nue-8"].max, sums["dfsssp"].max, "Nue with 8 layers against DFSSSP: busiest channel")
	assert.Less(t, 2*sums["dfsssp"].max, sums["lash"].max, "DFSSSP's busiest channel under half LASH's")
	assert.Less(t, sums["nue-8"].max, sums["nue-1"].max, "Nue: 8 layers against 1")
	assert.Less(t, sums["nue-8"].sdv, sums["dfsssp"].sdv, "Nue with 8 layers against DFSSSP: spread of the channel loads")
}

// BenchmarkRouteNueFatTree is Nue on an eighth of BenchmarkScale's fat tree
// (the same three levels, radix 32: 5,120 HCAs, 896 switches), where the
// per-destination Dijkstra over the channel dependency graph is the work.
func BenchmarkRouteNueFatTree(b *testing.B) {
	net, err := fabric.Build("xgft:m=16x20,w=16x16,hcas=5120,radix=32")
	if err != nil {
		b.Fatal(err)
	}
	if net, _, err = faults.Inject(net, faults.Spec{LinkPercent: 1, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	benchNue(b, net)
}
