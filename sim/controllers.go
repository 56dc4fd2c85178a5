package sim

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"

	"flitsim/fabric/invariants"
	"flitsim/traffic"
)

// The global controllers (seeds/001 §4.3.4): completion of finite traffic
// (in delivered), the steady-state controller of infinite traffic, the
// deadlock verdict (in the kernel's loop: nothing left to happen while
// packets are in the network), and the result.

// z99 is the two-sided 99 % quantile of the standard normal distribution.
const z99 = 2.5758293035489

// steadyState is the steady-state controller's state beyond the sinks'.
type steadyState struct {
	windows     int64                  // windows closed
	steadyCount int                    // sinks steady at the last sample
	n           int                    // windows sampled after warmup
	totals      []float64              // the per-window totals (GB/s), for the batch means
	sum         float64                // of totals
	t995        [ciBatches + 1]float64 // Student's t quantiles by batch count, once computed
}

// SteadyNetwork is the steady-state rule on the network's throughput
// (Params.SteadyRule); "sinks" is the thesis' rule.
const SteadyNetwork = "network"

// book counts payload delivered at instant t to its window.
func (st *steadyState) book(hc *hcaDev, t int64, payload int32, window int64) {
	w := t / window
	invariants.Checkf(w == st.windows || w == st.windows+1, "consumption in window %d while closing %d", w, st.windows)
	hc.window[w&1] += float64(payload)
}

// sample closes a window of sink consumption and updates steadiness.
func (s *simulator) sample() {
	st := &s.steady
	w := st.windows
	st.windows++
	end := (w + 1) * s.p.SampleWindow
	secs := float64(s.p.SampleWindow) * 1e-12
	st.steadyCount = 0
	sampled, total := false, 0.0
	for i := range s.hcas {
		hc := &s.hcas[i]
		bytes := hc.window[w&1]
		hc.window[w&1] = 0
		if end <= s.p.Warmup {
			continue
		}
		x := bytes / secs / 1e9 // GB/s
		sampled = true
		total += x
		hc.n++
		d := x - hc.mean
		hc.mean += d / float64(hc.n)
		hc.m2 += d * (x - hc.mean)
		hc.steady = false
		if hc.n >= s.p.MinSamples {
			sd := math.Sqrt(hc.m2 / float64(hc.n-1))
			half := z99 * sd / math.Sqrt(float64(hc.n))
			hc.steady = half <= s.p.CIRel*hc.mean || (hc.mean == 0 && sd == 0)
		}
		if hc.steady {
			st.steadyCount++
		}
	}
	if sampled {
		st.n++
		st.totals = append(st.totals, total)
		st.sum += total
	}
	if s.p.SteadyRule == SteadyNetwork && s.p.SteadyFraction <= 1 && sampled && st.networkSteady(s.p.MinSamples, s.p.CIRel) ||
		s.p.SteadyRule != SteadyNetwork && float64(st.steadyCount) >= s.p.SteadyFraction*float64(len(s.hcas)) && st.steadyCount > 0 {
		s.res.Verdict = Steady
		s.k.stop = true
		return
	}
	s.k.q.push(event{at: end + s.p.SampleWindow, phase: phaseCtl, kind: evSample})
}

// networkSteady reports whether the network's throughput is steady: at
// least minSamples windows sampled and the batch-means half-width of
// their totals' mean at most ciRel of it (or mean and half-width 0).
func (st *steadyState) networkSteady(minSamples int, ciRel float64) bool {
	if st.n < minSamples {
		return false
	}
	mean := st.sum / float64(st.n)
	half := batchHalfWidth(st.totals, st.studentT)
	return half <= ciRel*mean || mean == 0 && half == 0
}

// frozen reports whether nothing in the network can ever move again,
// judged at the current instant, which must not precede the horizon: no
// flit or credit is under way any more, so credits stay as they are, every
// output buffer has emptied, and what time alone still brings (a switch
// latency, a free crossbar, a message's creation) helps only a packet that
// has its credits. So the network is frozen when no head packet in a
// switch and no HCA's next packet has the credits it needs.
func (s *simulator) frozen() bool {
	invariants.Checkf(s.horizon <= s.k.now, "frozen judged at %d, before the horizon %d", s.k.now, s.horizon)
	if s.tm != nil && (s.tm.last > s.k.now || s.tm.resends > 0) {
		return false // a cable's change or a resent packet may move it
	}
	for out := range s.chans {
		c := &s.chans[out]
		for r := c.reqHead; r >= 0; {
			pi := r
			if s.voq {
				r = s.pkts[r].reqNext
			} else {
				pi, r = s.lanes[r].head, s.lanes[r].reqNext
			}
			pk := &s.pkts[pi]
			ol := s.lane(int32(out), pk.outVL)
			if s.crOf(c.from).has(&s.lanes[ol].cr, s.need(int32(out), pi, pk.outVL), s.k.now) {
				return false
			}
		}
	}
	for h := range s.hcas {
		hc := &s.hcas[h]
		if s.tm != nil && s.tm.esc != nil && hc.inflight > 0 && s.tm.state(s.k.now) != hc.state {
			continue // draining: it waits for its packets in flight, not for credits
		}
		if hc.later {
			return false // its source answers again at a scheduled instant: a message may come
		}
		if pi, _ := s.nextToSend(hc); pi >= 0 {
			pk := &s.pkts[pi]
			if s.crOf(hc.node).has(&s.lanes[s.lane(hc.ch, pk.vl)].cr, int32(pk.flits), s.k.now) {
				return false
			}
		}
	}
	return true
}

// crOf returns the credit state (its arena) of the lanes node sends on:
// its domain's.
func (s *simulator) crOf(node int32) *credits {
	if s.par == nil {
		return &s.cr
	}
	return &s.par.doms[s.par.domOf[node]].cr
}

// finish fills in the verdict and the measures of the result.
func (s *simulator) finish() {
	r := &s.res
	now := s.k.now
	if r.Verdict == "" {
		switch {
		case !s.steadyMode() && s.countedDone == s.counted:
			r.Verdict = Completed
		case !s.steadyMode() && s.inNetwork == 0 && r.PacketsLost > 0:
			// Messages missing, their packets lost and not resent; if
			// the last of them crossed until after the time limit, the
			// run reached it first.
			r.Verdict, now = Lost, s.horizon
			if now > s.p.MaxTime {
				r.Verdict, now = NotConverged, s.p.MaxTime
			}
		case !s.steadyMode() || s.inNetwork > 0:
			// Packets in flight with nothing left to move them, or
			// messages missing with nothing in flight (packets without a
			// route never left their first switch).
			r.Verdict = Deadlock
		default:
			r.Verdict = NotConverged
		}
	}
	if r.Verdict == Completed {
		now = max(now, s.lastDone)
		rt := int64(0) // nothing injected (jobs without messages): no runtime
		if s.firstInject >= 0 {
			rt = s.lastDone - s.firstInject
		}
		r.RuntimeNs = float64(rt) / 1000
		if rt > 0 {
			r.ThroughputGBs = float64(s.countedBytes()) * 1e3 / float64(rt) // bytes/ps → GB/s
		}
	}
	r.SimTimeNs = float64(now) / 1000
	bw := make([]float64, len(s.hcas))
	switch {
	case s.steadyMode():
		st := &s.steady
		r.SteadySinks = st.steadyCount
		r.SampledWindows = st.n
		switch {
		case st.n > 0:
			for i := range s.hcas {
				bw[i] = s.hcas[i].mean
				r.ThroughputGBs += bw[i]
			}
			r.ThroughputCIGBs = batchHalfWidth(st.totals, st.studentT)
		case now > 0:
			// No window sampled (the run ended before warmup and one
			// window): what was delivered over the whole run.
			r.ThroughputGBs = float64(s.payload) / float64(now) * 1e3
			for i := range s.hcas {
				bw[i] = float64(s.hcas[i].payload) / float64(now) * 1e3
			}
		}
	case r.RuntimeNs > 0:
		// Finite traffic: each HCA's payload received over the runtime.
		for i := range s.hcas {
			bw[i] = float64(s.hcas[i].sent) * 1e3 / float64(s.lastDone-s.firstInject)
			if s.jobs != nil { // what each received: jobs send unevenly
				bw[i] = float64(s.hcas[i].payload) * 1e3 / float64(s.lastDone-s.firstInject)
			}
		}
	}
	r.HCABandwidthGBs = summarize(bw)
	if r.Verdict == Completed {
		var done []float64
		for i := range s.hcas {
			if at := s.hcas[i].doneAt; at > 0 {
				done = append(done, float64(at-s.firstInject)/1000)
			}
		}
		if len(done) > 0 {
			r.HCACompletionNs = summarize(done)
		}
	}
	if s.jobs != nil {
		t := JobTally{Recv: make([]int64, len(s.hcas)), Last: s.jobLast, Messages: make([]int64, len(s.jobs)),
			Expected: traffic.JobMessages(s.src), End: now}
		for i := range s.hcas {
			t.Recv[i] = s.hcas[i].payload
		}
		if r.Verdict == Steady {
			t.Steady = bw
		}
		copy(t.Messages, s.jobMsgs)
		if s.tm != nil {
			t.Lost = s.tm.lost
		}
		t.Trace = traceStats(s.src, len(s.jobs))
		r.Jobs = JobResults(s.jobs, t)
	}
	if s.aaOn {
		aa := make([]*AppAware, len(s.hcas))
		for i := range s.hcas {
			aa[i] = s.hcas[i].aa
		}
		SetAppAwareResults(r, s.jobs, aa)
	}
	if s.p.Counters {
		t := s.tally(now)
		r.Counters = CounterResults(s.net, s.p.HW, t)
		if s.jobs != nil {
			for j, jc := range JobCounterResults(s.jobs, t, s.ft) {
				r.Jobs[j].Counters = jc
			}
		}
	}
	if r.Verdict == Deadlock {
		r.FlitsStuck = r.FlitsInjected - r.FlitsConsumed
		r.DeadlockCycle = s.waitCycle()
	}
	if s.tm != nil {
		r.Timed = true
	}
	s.checkConservation()
}

// countedBytes is the payload of the messages whose delivery ends the run
// (all created by then).
func (s *simulator) countedBytes() int64 {
	var n int64
	for i := range s.hcas {
		if s.src.Counted(i) {
			n += s.hcas[i].sent
		}
	}
	return n
}

// Summarize returns the five-number summary of x (quartiles by linear
// interpolation between order statistics; zero for no values).
func Summarize(x []float64) Stats { return summarize(x) }

func summarize(x []float64) Stats {
	if len(x) == 0 {
		return Stats{}
	}
	y := append([]float64(nil), x...)
	sort.Float64s(y)
	q := func(f float64) float64 {
		pos := f * float64(len(y)-1)
		lo := int(pos)
		if lo+1 >= len(y) {
			return y[lo]
		}
		return y[lo] + (pos-float64(lo))*(y[lo+1]-y[lo])
	}
	return Stats{Min: y[0], Q1: q(0.25), Median: q(0.5), Q3: q(0.75), Max: y[len(y)-1]}
}

// waitCycle searches, depth first from the lanes in order, the graph in
// which a switch lane points to every lane one of its competing packets
// waits for credits from (its head's, or with VOQ its oldest packet's for
// every output), and returns the first cycle found.
func (s *simulator) waitCycle() []Buffer {
	waits := func(l int) []int {
		var next []int
		for pi := s.lanes[l].head; pi >= 0; pi = s.pkts[pi].next {
			pk := &s.pkts[pi]
			if pk.out >= 0 && s.hcaOf[s.chans[pk.out].to] < 0 && (!s.voq || s.oldestFor(s.lanes[l].head, pk.out) == pi) {
				ol := s.lane(pk.out, pk.outVL)
				// The sender's credits: in a run cut into domains they
				// queue in the arena of the sender's domain.
				if !s.crOf(s.chans[pk.out].from).has(&s.lanes[ol].cr, s.need(pk.out, pi, pk.outVL), s.k.now) {
					next = append(next, ol)
				}
			}
			if !s.voq {
				break
			}
		}
		return next
	}
	const (
		unseen = iota
		onPath
		done
	)
	state := make([]uint8, len(s.lanes))
	var path []int
	var visit func(l int) []int
	visit = func(l int) []int {
		state[l] = onPath
		path = append(path, l)
		for _, n := range waits(l) {
			switch state[n] {
			case onPath:
				for i, x := range path {
					if x == n {
						return path[i:]
					}
				}
			case unseen:
				if cyc := visit(n); cyc != nil {
					return cyc
				}
			}
		}
		path = path[:len(path)-1]
		state[l] = done
		return nil
	}
	for l := range s.lanes {
		if state[l] != unseen || s.lanes[l].head < 0 {
			continue
		}
		if cyc := visit(l); cyc != nil {
			out := make([]Buffer, len(cyc))
			for i, y := range cyc {
				c := &s.chans[y/s.nVL]
				out[i] = Buffer{Node: s.net.Nodes[c.to].Name, Port: int(c.toPort), VL: y % s.nVL,
					From: s.net.Nodes[c.from].Name, FromPort: int(c.fromPort)}
			}
			return out
		}
	}
	return nil
}

// checkConservation verifies at the end of a run (invariants builds only)
// that every injected flit was consumed or is still in a buffer, on a cable
// or at a sink, and that for every lane the sender's credits (with those
// still travelling back), the flits held and the flits granted or
// travelling to it add up to the buffer's capacity.
func (s *simulator) checkConservation() {
	if !invariants.Enabled {
		return
	}
	committed := make([]int32, len(s.lanes)) // flits holding a credit but not yet in the buffer
	var around int64                         // flits injected, not yet consumed
	doms := []*simulator{s}
	if s.par != nil { // the mailboxes are empty after the last barrier
		doms = s.par.doms
	}
	for _, d := range doms {
		d.k.q.each(func(e *event) {
			switch e.kind {
			case evHeadArrive:
				pk := &s.pkts[e.ref]
				committed[s.lane(pk.ch, pk.vl)] += int32(pk.flits)
				around += int64(pk.flits)
			case evDone: // at the sink, credits already on their way back
				around += int64(s.pkts[e.ref].flits)
			}
		})
	}
	for l := range s.lanes {
		held := int32(0)
		for pi := s.lanes[l].head; pi >= 0; pi = s.pkts[pi].next {
			held += int32(s.pkts[pi].flits)
		}
		around += int64(held)
		s.crOf(s.chans[l/s.nVL].from).settle(&s.lanes[l].cr, never-1)
		invariants.Checkf(s.lanes[l].cr.avail+held+committed[l] == s.capacity[l],
			"lane %d: credits %d + held %d + committed %d != capacity %d",
			l, s.lanes[l].cr.avail, held, committed[l], s.capacity[l])
	}
	if s.tm != nil {
		around += s.tm.lostFlits
	}
	invariants.Checkf(s.res.FlitsInjected == s.res.FlitsConsumed+around, "flits: injected %d != consumed %d + in the network or lost %d",
		s.res.FlitsInjected, s.res.FlitsConsumed, around)
}

// ciBatches is the number of batches of the throughput's batch means
// (package doc, "Steady state").
const ciBatches = 20

// batchHalfWidth is the 99 % confidence half-width of the mean of the
// per-window totals xs by batch means: the last k·b windows, k =
// min(ciBatches, n) batches of b = ⌊n/k⌋ consecutive ones, Student's t at
// 0.995 with k−1 degrees of freedom (t995(k)) times the batch means'
// sample standard deviation over √k; 0 below two windows.
func batchHalfWidth(xs []float64, t995 func(k int) float64) float64 {
	n := len(xs)
	if n < 2 {
		return 0
	}
	k := min(ciBatches, n)
	b := n / k
	xs = xs[n-k*b:]
	means := make([]float64, k)
	var mean float64
	for i := range means {
		for _, x := range xs[i*b : (i+1)*b] {
			means[i] += x
		}
		means[i] /= float64(b)
		mean += means[i]
	}
	mean /= float64(k)
	var ss float64
	for _, m := range means {
		ss += (m - mean) * (m - mean)
	}
	return t995(k) * math.Sqrt(ss/float64(k-1)) / math.Sqrt(float64(k))
}

// studentT returns Student's t at 0.995 with k−1 degrees of freedom
// (2 ≤ k ≤ ciBatches), computed once per k: the network's rule asks for it
// at every window.
func (st *steadyState) studentT(k int) float64 {
	if st.t995[k] == 0 {
		st.t995[k] = distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(k - 1)}.Quantile(0.995)
	}
	return st.t995[k]
}
