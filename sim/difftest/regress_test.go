package difftest

import (
	"testing"

	"flitsim/fabric"
	"flitsim/sim"
	"flitsim/traffic"
)

// regression is a scenario on which the simulators once disagreed, or
// that pins a part of the model, with what went wrong.
type regression struct {
	name string
	why  string
	s    Scenario
}

// scenario is a Scenario with the default hardware and parameters, the
// given topology, engine and traffic; mod adjusts the rest.
func scenario(topo, engine string, kind traffic.Kind, bytes int, load float64, maxTime int64, mod func(*Scenario)) Scenario {
	s := Scenario{Topology: topo, Engine: engine, VLs: 8, Params: sim.DefaultParams()}
	s.Params.Traffic = traffic.Spec{Kind: kind, JobTraffic: traffic.JobTraffic{MessageBytes: bytes, Load: load, Distance: 1}}
	s.Params.MaxTime = maxTime
	s.Params.Record, s.Params.Counters = true, true
	if mod != nil {
		mod(&s)
	}
	return s
}

const us = fabric.Microsecond

// generated is the scenario of a generator seed as Ready fits it.
func generated(seed uint64) Scenario {
	s, _, err := Ready(Generate(seed))
	if err != nil {
		panic(err)
	}
	return s
}

var regressions = []regression{
	// Reported in issue 11, found by hand at commit 0663155.
	{"torus-2qos 4x4 exchange", "the old reference mode (sharing the fast arbitration) reported a deadlock at 14,119 ns on acyclic tables; the fast mode completes at 11,310 ns",
		scenario("torus:dims=4x4,hcas=16", "torus-2qos", traffic.Exchange, 2048, 1, 0, nil)},
	{"torus-2qos 8x8 exchange", "as on the 4x4 torus",
		scenario("torus:dims=8x8", "torus-2qos", traffic.Exchange, 2048, 1, 0, nil)},
	{"torus-2qos 16x16 uniform at load 0.1", "the old reference mode reported a deadlock at 204 µs (fast: 99.7 GB/s)",
		scenario("torus:dims=16x16", "torus-2qos", traffic.Uniform, 2048, 0.1, 220*us, nil)},
	{"fat tree shift: packets counted at head arrival", "the fast mode booked a packet when its head reached the sink, the reference when its last flit was consumed: 57,479 against 53,568 packets by 30 µs",
		scenario("kary-ntree:k=4,n=3", "ftree", traffic.Shift, 100, 1, 30*us, func(s *Scenario) {
			s.Params.Traffic.Distance = 3
			s.Params.Seed = 78
		})},
	// Found by make difftest (generated seeds 2813 and 2011), frozen here.
	{"deadlock: idle wake-ups after the network froze", "the fast simulator ended a deadlocked run at its last event, a wake-up that found nothing to do 1 µs after the last flit moved, and took the samples in between; it now recognises a frozen network and ends at the last movement, as the reference does",
		scenario("torus:dims=5,hcas=15", "file", traffic.Uniform, 2047, 0.41, 36*us, func(s *Scenario) {
			s.Params.Seed = 552706301
			s.Params.HW.InputBufferFlits, s.Params.HW.CrossbarGbps = 53, 78
			s.Params.SampleWindow, s.Params.Warmup, s.Params.MinSamples, s.Params.CIRel, s.Params.SteadyFraction = 5*us, 15*us, 3, 0.03, 0.97
		})},
	{"deadlock: end instant with one VL", "as above, on a random network routed by MinHop on one VL",
		scenario("random:switches=9,hcas=27,links=12,seed=35", "minhop", traffic.Uniform, 64, 0.67, 43*us, func(s *Scenario) {
			s.VLs = 1
			s.Params.Seed = 409964431
			s.Params.HW.CableMeters, s.Params.HW.SwitchLatencyPs = 1.2, 100*fabric.Nanosecond
			s.Params.SampleWindow, s.Params.Warmup, s.Params.MinSamples, s.Params.CIRel, s.Params.SteadyFraction = 3*us, 12*us, 4, 0.19, 0.68
		})},
	// Found by make difftest when jobs came (generated seed 108438).
	{"jobs: deliveries at the completion instant", "a finite halo job completed while a noise job ran on; the fast simulator stopped after the completing delivery, the reference after another order of the same instant's events, so two noise packets delivered at that instant counted in one only; a run with infinite jobs beside now ends after the whole completion instant",
		generated(108438)},
	// Found by make difftest when adaptive routing came (generated seeds 146111 and 148071).
	{"adaptive: packets of a message overtake each other", "the fast simulator counted a message delivered with the delivery of its last packet in order, the reference with the last of its packets to arrive; adaptively routed packets take different paths and arrive out of order (fast 121 messages, reference 115)",
		generated(146111)},
	{"adaptive: a Valiant detour through the source switch", "a packet between two switches of one group, sent through the only other group, came back through its source switch, which chose its route again and reset its hop count: its VL went from 1 back to 0 and both simulators deadlocked on a dependency cycle; a route is now chosen only before the first hop",
		generated(148071)},
	// Found by make difftest when NIC windows came (generated seeds 226590 and 226201).
	{"window: responses delivered at the completion instant", "the last message and two responses were delivered at one instant; the fast simulator stopped after the completing delivery, the reference after another order of that instant's events (flits consumed 1,008 against 1,010); every completed run now ends after its whole last instant",
		generated(226590)},
	{"window: responses at the completion instant, fat tree", "as above on a 4-ary 3-tree with a window of 8 (40,235 against 40,237)",
		generated(226201)},
	{"deadlock cycle of a run cut into domains", "the wait-for graph at the end of a deadlocked run cut into 3 domains asked domain 0's credit arena about every lane: it settled other domains' queues from the wrong arena (credits 48 + held 106 != 128 on lane 33, and an empty cycle where the uncut run finds four buffers)",
		generated(531185)},
	// Found by the generator's first seeds with forward_at_start (generated seeds 465 and 555331).
	{"forward at start: a deadlocked run's last instant", "taken at the start of its reception, a flit still moves until it has fully arrived: the fast simulator ended the deadlocked run at the full arrival, the reference at the start of the reception (one window sampled against none)",
		generated(465)},
	{"forward at start: stored before a faster cable", "a packet from an 8 Gbit/s cable onto a 16 Gbit/s one waited in the output buffer until fully arrived; the fast simulator's O(1) room of the output buffer counted it as more than it held (a delivery 2,558 ps late); such a packet is now eligible only once it has fully arrived, in both",
		generated(555331)},
	// Found by make difftest when rendezvous came (a generated seed of 810000-819999).
	{"rendezvous: an RTS's GET requests in a run cut into domains", "a domain's window ran an event only while it had one free packet, as every event formed at most one; the delivery of an RTS forms its acknowledgement and a GET request per packet of its message (here 1 + 128) and grew the shared packet slab inside a parallel window (an invariant's panic); a domain now stops its window before an event that needs more free packets than it has, and the refill gives it them",
		scenario("kary-ntree:k=4,n=2", "minhop", traffic.Exchange, 256<<10, 1, 0, func(s *Scenario) {
			s.Params.Traffic.Rendezvous = 1
			s.Params.HW.NICWindow = 4
			s.Params.Domains = 2
		})},
	// Found when timed events came (generated seeds 159 and 166).
	{"timed: two packets of one source lost at one instant", "two packets of one HCA were lost at the same instant on two switches and queued again at the same later instant; each simulator queued them in the order its events of that instant ran (fast 55 before 116, reference 116 before 55); packets queued again at one instant now go in the order of their last injections, before the responses of that instant",
		generated(159)},
	{"timed: a message whose first packet was lost", "with forwarding tables the fast simulator counted a message delivered with its last packet, though an earlier one had been lost (fast 30 messages, reference 29); with a timeline every message counts its packets",
		generated(166)},
	{"timed: a deadlock on packets without a route", "two more cables of a 2-ary 2-tree fail mid-run and cut a spine off; packets granted to it before the cut reach it after its new tables (no ports) are written and stay there: both simulators deadlock at 29,878.2 ns with 552 flits stuck and no cycle to name, which the comparison took for a broken cycle finder; a timed run's deadlock may name none (generated seed 24391)",
		generated(24391)},
	// Found by make difftest the day the tree allreduce came (generated seed 951049).
	{"tree allreduce of one byte", "the double binary tree split a 1-byte vector into halves of 1 and 0 bytes; a 0-byte message has no packet, so the ranks waiting for it stalled (reference: nothing left to happen, 26 of 32 messages); a tree's messages now carry at least a byte",
		scenario("kary-ntree:k=2,n=3", "dfsssp", traffic.Allreduce, 1, 1, 0, func(s *Scenario) {
			s.Params.Traffic.Algorithm, s.Params.Traffic.Iterations = traffic.AlgTree, 2
		})},
	// Found by make difftest when nonblocking collectives came (generated seed 970739).
	{"nonblocking collective: a step due when asked", "a trace rank handed out its collective's steps before the send its calls had reached; the reference asked when it had injected a packet, the fast simulator when its link was free, so a step a delivery readied in between went before the send in one and after it in the other; now the message due first goes, and only once due (traffic.Later)",
		generated(970739)},
	// Found by make difftest on 2026-11-29 (generated seed 1054449), already at b899f9a.
	{"timed: the last lost packet crosses past the time limit", "a packet granted a failed cable before max_time is lost there, but it crosses until after max_time; the fast simulator's queue then ran empty and it ended lost at the crossing's end (143,401.839 ns), the reference at max_time (143,000 ns) not converged, with its crossing still to come; a lost run whose last activity lies past max_time now ends there not converged in both",
		generated(1054449)},
	// Found by make difftest on 2026-11-30 (generated seed 1065308), already at 7bd2e07.
	{"deadlock: a source to be asked again", "a trace rank computing (its source said Later) while the rest of the network froze: the reference judged its scheduled decision impossible, having no packet, and ended deadlocked at 13,975.4 ns; the fast simulator, judging only at its samples, met the rank's message (14,994.45 ns) first and ended at 16,321.8 ns with three packets more; a terminal whose source said Later now keeps the network from being frozen in both until it is asked",
		generated(1065308)},
	// Found by make difftest on 2026-11-30 (generated seed 1071672), already at 7bd2e07.
	{"completed without an injection", "a trace job of two ranks that send nothing completes at 0; the fast simulator reported a runtime of 1 ps (its last delivery 0 less its first injection's -1, none), the reference 0",
		generated(1071672)},
	// The battery of the former TestFastMatchesReference.
	{"contention fat tree", "", scenario("kary-ntree:k=4,n=2", "minhop", traffic.Exchange, 4096, 1, 0, nil)},
	{"hiccups, short messages", "", scenario("kary-ntree:k=4,n=2", "sssp", traffic.Exchange, 700, 1, 0, nil)},
	{"several VLs (dfsssp ring)", "", scenario("torus:dims=5,hcas=10", "dfsssp", traffic.Exchange, 2048, 1, 0, nil)},
	{"torus uniform", "", scenario("torus:dims=3x3,hcas=18", "updn", traffic.Uniform, 2048, 1, 30*us, nil)},
	{"deadlock ring", "", scenario("torus:dims=5,hcas=50", "sssp", traffic.Uniform, 2048, 1, 200*us, nil)},
	{"random lash", "", scenario("random:switches=10,hcas=30,links=20,seed=4", "lash", traffic.Exchange, 2048, 1, 0, nil)},
	{"no speedup", "the output buffer never holds more than the cable sends",
		scenario("kary-ntree:k=4,n=2", "minhop", traffic.Exchange, 4096, 1, 0, func(s *Scenario) { s.Params.HW.CrossbarGbps = s.Params.HW.LinkGbps })},
	{"one-packet output buffer", "", scenario("torus:dims=3x3,hcas=18", "dfsssp", traffic.Uniform, 2048, 1, 30*us,
		func(s *Scenario) { s.Params.HW.OutputBufferFlits = 33 })},
	{"slow crossbar, short packets", "", scenario("random:switches=10,hcas=30,links=20,seed=4", "sssp", traffic.Exchange, 1000, 1, 0,
		func(s *Scenario) {
			s.Params.HW.CrossbarGbps = 2 * s.Params.HW.LinkGbps
			s.Params.HW.OutputBufferFlits = 40
		})},
	{"switch latency", "", scenario("kary-ntree:k=4,n=2", "updn", traffic.Uniform, 3000, 1, 20*us,
		func(s *Scenario) { s.Params.HW.SwitchLatencyPs = 100 * fabric.Nanosecond })},
	{"network steady rule", "pins the network's rule: steady at the same window in both (4 µs windows, 5 % at 99 %)",
		scenario("kary-ntree:k=4,n=2", "dfsssp", traffic.Uniform, 2048, 1, 200*us, func(s *Scenario) {
			s.Params.SteadyRule, s.Params.SampleWindow, s.Params.Warmup, s.Params.CIRel = sim.SteadyNetwork, 4*us, 8*us, 0.05
		})},
	{"network steady rule held off", "steady_fraction above 1 keeps the network's rule from ending the run, in both",
		scenario("kary-ntree:k=4,n=2", "dfsssp", traffic.Uniform, 2048, 1, 120*us, func(s *Scenario) {
			s.Params.SteadyRule, s.Params.SampleWindow, s.Params.Warmup, s.Params.CIRel = sim.SteadyNetwork, 4*us, 8*us, 0.05
			s.Params.SteadyFraction = 2
		})},
}

// TestRegressions holds the simulators to each other on every scenario
// that once made them disagree.
func TestRegressions(t *testing.T) {
	for _, r := range regressions {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			b, err := r.s.Build()
			if err != nil {
				t.Fatalf("%v: %v", r.s, err)
			}
			check(t, r.s, b)
		})
	}
}
