package sim

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"flitsim/fabric"
	"flitsim/routing"
	"flitsim/traffic"
)

// BenchmarkKernel measures the event queue alone in the hold model: with n
// events in flight, pop the earliest and push one a random time later.
func BenchmarkKernel(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(itoa(n), func(b *testing.B) {
			var q eventQueue
			r := rand.New(rand.NewPCG(1, 2))
			for i := 0; i < n; i++ {
				q.push(event{at: r.Int64N(1 << 20)})
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				e := q.pop()
				e.at += 1 + r.Int64N(1<<20)
				q.push(e)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/event")
		})
	}
}

func itoa(n int) string {
	switch {
	case n >= 1000 && n%1000 == 0:
		return itoa(n/1000) + "k"
	}
	s := ""
	for n > 0 {
		s = string(rune('0'+n%10)) + s
		n /= 10
	}
	return s
}

func benchRun(b *testing.B, spec, engine string, p Params) {
	net, err := fabric.Build(spec)
	if err != nil {
		b.Fatal(err)
	}
	tb, err := routing.Compute(engine, net, routing.DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var hops, events int64
	var last *Result
	for i := 0; i < b.N; i++ {
		r, err := Run(net, tb, p)
		if err != nil {
			b.Fatal(err)
		}
		hops += r.FlitHops
		events += r.Events
		last = r
	}
	secs := b.Elapsed().Seconds()
	b.ReportMetric(float64(hops)/secs, "flit-hops/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
	b.ReportMetric(last.ThroughputGBs, "GB/s")
}

// BenchmarkTorus16x16 is the end-to-end target: a 16×16 torus with
// one HCA per switch, Up*/Down*, uniform random traffic at half of its
// saturation load (saturation measured by TestTorusSaturation: 0.036 of the
// link rate per HCA at load 1 — Up*/Down* with one root funnels the torus
// through the root — so half saturation offers 0.0181).
//
// The workload keeps one FIFO per input buffer (voq = false), the model it
// was defined with, so that its figures compare across versions;
// BenchmarkTorus16x16VOQ runs the default model.
func BenchmarkTorus16x16(b *testing.B) {
	p := DefaultParams()
	p.HW.VOQ = false
	p.Traffic = traffic.Spec{Kind: traffic.Uniform, JobTraffic: traffic.JobTraffic{MessageBytes: 2048, Load: halfSaturation}}
	p.MaxTime = 200 * fabric.Microsecond
	p.SteadyFraction = 2 // run to the time limit: a fixed amount of work
	benchRun(b, "torus:dims=16x16", "updn", p)
}

// BenchmarkTorusPackets is issue 54's side-by-side work with BookSim2
// (docs/booksim): a 16×16 torus with one HCA per switch, dimension order
// with datelines (torus-2qos; BookSim2's dim_order_torus), uniform traffic at 0.1 of the link rate for 484.64 µs (30,290 flit
// times), with packets of 1, 16 and 33 flits. Short packets cost as many
// events per hop as long ones, so its 1-flit figure is the one to watch.
// Packets are whole flits, as BookSim2's: with wire bytes (the default
// since 2026-11-30) a 27-byte packet takes 6.75 ns and the same load
// would offer 2.4 times as many of them.
func BenchmarkTorusPackets(b *testing.B) {
	for _, c := range []struct {
		name  string
		bytes int
	}{{"1flit", 1}, {"16flits", 998}, {"33flits", 2048}} {
		b.Run(c.name, func(b *testing.B) {
			p := DefaultParams()
			p.Traffic = traffic.Spec{Kind: traffic.Uniform, JobTraffic: traffic.JobTraffic{MessageBytes: c.bytes, Load: 0.1}}
			p.HW.WireBytes = false
			p.MaxTime = 484640 * fabric.Nanosecond
			p.SteadyFraction = 2 // run to the time limit: a fixed amount of work
			benchRun(b, "torus:dims=16x16", "torus-2qos", p)
		})
	}
}

// BenchmarkFatTreeExchange: the 16-ary 2-tree of Table 4.2, exchange with
// 10-MTU messages, routed by DFSSSP.
// (FIFO input buffers, as for BenchmarkTorus16x16.)
func BenchmarkFatTreeExchange(b *testing.B) {
	p := DefaultParams()
	p.HW.VOQ = false
	p.Traffic = traffic.Spec{Kind: traffic.Exchange, JobTraffic: traffic.JobTraffic{MessageBytes: 10 * 2048}}
	benchRun(b, "kary-ntree:k=16,n=2", "dfsssp", p)
}

// BenchmarkTorus16x16VOQ and BenchmarkFatTreeExchangeVOQ run the two
// workloads with the default model: input buffers queued per output.
func BenchmarkTorus16x16VOQ(b *testing.B) {
	p := DefaultParams()
	p.Traffic = traffic.Spec{Kind: traffic.Uniform, JobTraffic: traffic.JobTraffic{MessageBytes: 2048, Load: halfSaturation}}
	p.MaxTime = 200 * fabric.Microsecond
	p.SteadyFraction = 2
	benchRun(b, "torus:dims=16x16", "updn", p)
}

// BenchmarkFatTreeExchangeCounters is BenchmarkFatTreeExchangeVOQ with
// the NIC and link counters on, for what counting costs.
func BenchmarkFatTreeExchangeCounters(b *testing.B) {
	p := DefaultParams()
	p.Traffic = traffic.Spec{Kind: traffic.Exchange, JobTraffic: traffic.JobTraffic{MessageBytes: 10 * 2048}}
	p.Counters = true
	benchRun(b, "kary-ntree:k=16,n=2", "dfsssp", p)
}

func BenchmarkFatTreeExchangeVOQ(b *testing.B) {
	p := DefaultParams()
	p.Traffic = traffic.Spec{Kind: traffic.Exchange, JobTraffic: traffic.JobTraffic{MessageBytes: 10 * 2048}}
	benchRun(b, "kary-ntree:k=16,n=2", "dfsssp", p)
}

// BenchmarkDragonflyUGAL: adaptive routing per packet on the balanced
// dragonfly of issue 16 (a=8, p=4, h=4, g=33: 1,056 nodes), uniform random
// traffic at load 1 for 50 µs; BenchmarkDragonflyMin the same with minimal
// routing, for the cost of the adaptive decisions (and a figure to set
// beside BookSim2's dragonflynew).
func BenchmarkDragonflyUGAL(b *testing.B) { benchDragonfly(b, "ugal") }

func BenchmarkDragonflyMin(b *testing.B) { benchDragonfly(b, "min") }

func benchDragonfly(b *testing.B, engine string) {
	p := DefaultParams()
	p.Traffic = traffic.Spec{Kind: traffic.Uniform, JobTraffic: traffic.JobTraffic{MessageBytes: 2048, Load: 1}}
	p.MaxTime = 50 * fabric.Microsecond
	p.SteadyFraction = 2
	benchRun(b, "dragonfly:a=8,p=4,h=4,g=33", engine, p)
}

// BenchmarkMemory10k simulates a fabric with 10,648 HCAs (22-ary 3-tree of
// 44-port switches)
// under uniform random traffic and reports the simulator's bytes per port
// and the heap in use at the end.
func BenchmarkMemory10k(b *testing.B) {
	net, err := fabric.Build("kary-ntree:k=22,n=3,radix=44")
	if err != nil {
		b.Fatal(err)
	}
	tb, err := routing.Compute("minhop", net, routing.DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	p := DefaultParams()
	p.MaxTime = 20 * fabric.Microsecond
	p.SteadyFraction = 2
	var before, after runtime.MemStats
	for i := 0; i < b.N; i++ {
		runtime.GC()
		runtime.ReadMemStats(&before)
		s, err := newSimulator(net, tb, p)
		if err != nil {
			b.Fatal(err)
		}
		s.cut()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(net.Ports()), "bytes/port")
		s.start()
		s.loop()
		s.finish()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc)/(1<<20), "heap-MiB")
		b.ReportMetric(float64(s.res.FlitHops), "flit-hops")
	}
}

// BenchmarkTraceReplay: issue 52's replay overhead. The same 100,800
// messages (64 ranks, 25 iterations of an all-to-all of one MTU each,
// every message posted at once, an iteration after the last one's
// messages arrived) on the 8-ary 2-tree, as the alltoall pattern
// (algorithm isend) and as a trace (Irecv, Isend, Waitall per iteration);
// ns/message of each, the trace's to be at most twice the pattern's.
func BenchmarkTraceReplay(b *testing.B) {
	const n, iters = 64, 25
	prog := &traffic.MemProgram{ID: "a2a", Ranks: make([][]traffic.Call, n)}
	for r := range n {
		for it := range iters {
			var reqs []int32
			for k := 1; k < n; k++ {
				prog.Ranks[r] = append(prog.Ranks[r], traffic.Call{Op: traffic.CallIrecv, Peer: int32((r - k + n) % n), Tag: int32(it), Bytes: 2048, Req: int32(k)})
				reqs = append(reqs, int32(k))
			}
			for k := 1; k < n; k++ {
				prog.Ranks[r] = append(prog.Ranks[r], traffic.Call{Op: traffic.CallIsend, Peer: int32((r + k) % n), Tag: int32(it), Bytes: 2048, Req: int32(n + k)})
				reqs = append(reqs, int32(n+k))
			}
			prog.Ranks[r] = append(prog.Ranks[r], traffic.Call{Op: traffic.CallWait, Reqs: reqs})
		}
	}
	ranks := make([]int, n)
	for i := range ranks {
		ranks[i] = i
	}
	for _, c := range []struct {
		name string
		job  traffic.Job
	}{
		{"pattern", traffic.Job{ID: "a2a", Ranks: ranks, Traffic: traffic.JobTraffic{Kind: traffic.Alltoall, Algorithm: traffic.AlgIsend, MessageBytes: 2048, Load: 1, Iterations: iters}}},
		{"trace", traffic.Job{ID: "a2a", Ranks: ranks, Program: prog, Traffic: traffic.JobTraffic{Kind: traffic.Trace, MessageBytes: 1, Load: 1, Iterations: 1}}},
	} {
		b.Run(c.name, func(b *testing.B) {
			p := DefaultParams()
			p.Jobs = []traffic.Job{c.job}
			net, err := fabric.Build("kary-ntree:k=8,n=2")
			if err != nil {
				b.Fatal(err)
			}
			tb, err := routing.Compute("dfsssp", net, routing.DefaultOptions())
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			var msgs int64
			for i := 0; i < b.N; i++ {
				r, err := Run(net, tb, p)
				if err != nil {
					b.Fatal(err)
				}
				if !r.Jobs[0].Completed || r.Jobs[0].Messages != n*(n-1)*iters {
					b.Fatalf("%d messages delivered", r.Jobs[0].Messages)
				}
				msgs += r.Jobs[0].Messages
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(msgs), "ns/message")
		})
	}
}
