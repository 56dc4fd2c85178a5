package pipeline

import (
	"bytes"
	"os"
	"runtime/debug"
	"strconv"
	"testing"

	"flitsim/fabric"
	"flitsim/faults"
	"flitsim/routing"
	"flitsim/routing/engines"
	"flitsim/sim"
	"flitsim/traffic"
)

// The reference fabrics of issue 18: a whole InfiniBand subnet on one
// machine. Both stay within the 49,151 unicast LIDs (HCAs + switches).
//
// The fat tree is three levels of 64-port switches: 1,280 leaves with 32
// HCAs and 32 up-links, 1,280 middle switches (32 down, 32 up) and 1,024
// top switches (40 down): 40,960 HCAs, 3,584 switches, 44,544 LIDs.
//
// The torus cannot have 4 HCAs per switch and 40,000 HCAs within the LID
// limit (5·S ≤ 49,151 allows at most 39,320 HCAs), so it has 5 per switch:
// 20×20×20 switches, 40,000 HCAs, 48,000 LIDs.
//
// Each loses 1 % of its switch cables (fault seed 1). The torus then has
// rings with two failed cables, which Torus-2QoS cannot route (it fails,
// and says where); its simulation runs on Up*/Down*, deadlock-free on any
// topology with one VL.
var scaleFabrics = []struct {
	name, spec string
	engines    []string
	sim        string // the engine the simulation runs on
}{
	{"fattree", "xgft:m=32x40,w=32x32,hcas=40960,radix=64", []string{"ftree", "minhop", "updn", "sssp", "dfsssp", "nue"}, "ftree"},
	{"torus", "torus:dims=20x20x20,hcas=40000", []string{"dor", "torus-2qos", "minhop", "updn", "sssp", "dfsssp", "nue", "lash"}, "updn"},
}

// BenchmarkScale measures every step on the reference fabrics, once each
// (-benchtime 1x): build with failures, topo info, each engine's routing,
// verification and metrics, and 100 µs of uniform random traffic at full
// load. Each step reports its peak resident memory (peak-RSS-MiB, the
// process' high-water mark reset before the step, so it includes what
// earlier steps still hold: the network and the tables); the simulation
// also flit-hops/s. An engine that cannot route reports its time to fail.
// FLITSIM_LONG=1 (tens of minutes); `make bench-scale` runs it, and -bench
// picks steps (BenchmarkScale/fattree/.*ftree).
func BenchmarkScale(b *testing.B) {
	if os.Getenv("FLITSIM_LONG") == "" {
		b.Skip("FLITSIM_LONG=1 runs the 40,000-HCA reference fabrics (tens of minutes)")
	}
	for _, f := range scaleFabrics {
		var net *fabric.Network
		build := func(b *testing.B) {
			base, err := fabric.Build(f.spec)
			if err != nil {
				b.Fatal(err)
			}
			if net, _, err = faults.Inject(base, faults.Spec{LinkPercent: 1, Seed: 1}); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(f.name+"/build", func(b *testing.B) {
			for range b.N {
				resetPeak(b)
				build(b)
				reportPeak(b)
			}
		})
		if net == nil { // -bench left the step out; later steps need it
			build(b)
		}
		b.Run(f.name+"/info", func(b *testing.B) {
			for range b.N {
				resetPeak(b)
				in := fabric.Summarize(net)
				reportPeak(b)
				b.ReportMetric(float64(in.VertexConnectivity), "kappa")
				b.ReportMetric(float64(in.EdgeConnectivity), "lambda")
				b.ReportMetric(float64(in.Diameter), "diameter")
			}
		})
		tables := map[string]*routing.Tables{}
		for _, e := range f.engines {
			b.Run(f.name+"/route-"+e, func(b *testing.B) {
				for range b.N {
					resetPeak(b)
					tb, err := engines.Compute(e, net, routing.DefaultOptions())
					reportPeak(b)
					if err != nil {
						b.ReportMetric(1, "failed")
						b.Logf("%s cannot route: %v", e, err)
						continue
					}
					tables[e] = tb
				}
			})
			tb := tables[e]
			if tb == nil {
				continue
			}
			b.Run(f.name+"/verify-"+e, func(b *testing.B) {
				for range b.N {
					resetPeak(b)
					v, err := routing.Verify(net, tb)
					reportPeak(b)
					if err != nil || !v.OK() {
						b.Fatalf("%s: %v %s", e, err, v.Problem)
					}
					b.ReportMetric(boolMetric(v.DeadlockFree), "deadlock-free")
				}
			})
			b.Run(f.name+"/measure-"+e, func(b *testing.B) {
				for range b.N {
					resetPeak(b)
					if _, err := routing.Measure(net, tb); err != nil {
						b.Fatal(err)
					}
					reportPeak(b)
				}
			})
			if e != f.sim {
				delete(tables, e) // keep one engine's tables in memory at a time
			}
		}
		tb := tables[f.sim]
		if tb == nil {
			continue
		}
		// The default cuts these fabrics in two domains, one goroutine
		// each (sim/domains.go); -uncut is the single event loop.
		for _, cut := range []struct {
			suffix  string
			domains int
		}{{"", 0}, {"-uncut", 1}} {
			b.Run(f.name+"/sim-"+f.sim+cut.suffix, func(b *testing.B) {
				p := sim.DefaultParams()
				p.Traffic = traffic.Spec{Kind: traffic.Uniform, JobTraffic: traffic.JobTraffic{MessageBytes: 2048, Load: 1}}
				p.MaxTime = 100 * fabric.Microsecond
				p.SteadyFraction = 2 // run to the time limit: a fixed amount of work
				p.Domains = cut.domains
				for range b.N {
					resetPeak(b)
					r, err := sim.Run(net, tb, p)
					if err != nil {
						b.Fatal(err)
					}
					reportPeak(b)
					b.ReportMetric(float64(r.FlitHops)/b.Elapsed().Seconds(), "flit-hops/s")
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(r.Events), "ns/event")
					b.ReportMetric(r.ThroughputGBs, "GB/s")
					b.ReportMetric(float64(max(r.Domains, 1)), "domains")
				}
			})
		}
	}
}

func boolMetric(x bool) float64 {
	if x {
		return 1
	}
	return 0
}

// resetPeak returns freed memory to the system and resets the process'
// resident high-water mark (Linux: /proc/self/clear_refs), so that
// reportPeak sees the peak of what runs in between.
func resetPeak(b *testing.B) {
	b.StopTimer()
	debug.FreeOSMemory()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		b.Logf("cannot reset the peak RSS: %v", err)
	}
	b.StartTimer()
}

// reportPeak reports the resident high-water mark (VmHWM) in MiB.
func reportPeak(b *testing.B) {
	b.StopTimer()
	defer b.StartTimer()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	for _, line := range bytes.Split(status, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			kb, err := strconv.Atoi(string(bytes.TrimSuffix(bytes.TrimSpace(v), []byte(" kB"))))
			if err == nil {
				b.ReportMetric(float64(kb)/1024, "peak-RSS-MiB")
			}
		}
	}
}
