package sim

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/fabric"
	"flitsim/traffic"
)

// The histogram's buckets tile the integers: each starts one past the
// previous one's end, none is wider than 1/16 of its lower bound (above
// the exact ones), and every value lands in the bucket whose range holds it.
func TestLatencyHistBuckets(t *testing.T) {
	prev := int64(-1)
	for b := 0; b < 40*16; b++ {
		lo, hi := prev+1, histUpper(b)
		require.GreaterOrEqual(t, hi, lo, "bucket %d", b)
		if lo >= 32 {
			assert.LessOrEqual(t, float64(hi-lo+1), float64(lo)/16, "bucket %d [%d, %d] too wide", b, lo, hi)
		}
		for _, v := range []int64{lo, hi, (lo + hi) / 2} {
			require.Equal(t, b, histBucket(v), "value %d", v)
		}
		prev = hi
	}
}

func TestLatencyHistQuantile(t *testing.T) {
	var h LatencyHist
	for v := int64(1); v <= 1000; v++ {
		h.Add(v * 1000)
	}
	s := h.Summary()
	assert.Equal(t, int64(1000), s.Packets)
	assert.InDelta(t, 500.5, s.MeanNs, 1e-9)
	assert.Equal(t, 1000.0, s.MaxNs)
	// The 990th value is 990 ns; its bucket ends no more than 1/16 above.
	assert.GreaterOrEqual(t, s.P99Ns, 990.0)
	assert.LessOrEqual(t, s.P99Ns, 990.0*17/16)
	var m LatencyHist
	m.Merge(&h)
	m.Merge(&LatencyHist{})
	assert.Equal(t, h.Summary(), m.Summary())
	assert.Equal(t, Latency{}, (&LatencyHist{}).Summary())
}

// pairParams: two HCAs on two switches sending to each other without PCIe
// hiccups, counted.
func pairParams(load float64) Params {
	p := DefaultParams()
	p.HW.HiccupPs = 0
	p.Traffic = traffic.Spec{Kind: traffic.Shift, JobTraffic: traffic.JobTraffic{Distance: 1, MessageBytes: p.HW.MTU, Load: load}}
	p.MaxTime = 200 * fabric.Microsecond
	p.Counters, p.Record = true, true
	return p
}

// At low load nothing waits: no stalls, and every packet's latency is the
// zero-load latency from first principles. By default a switch takes a
// flit as it begins to arrive, so the head costs a cable (cab) per link,
// and the packet's bytes take their time behind it (PacketPs: 32 flits and
// a last of 26 bytes), as fast on the host bus. With whole flits: three
// links of ft + cab for its head, its other flits one ft apart behind it,
// and the last one's pf on the host bus. A link's utilization is its
// packets' time on the cable over the run.
func TestCountersZeroLoad(t *testing.T) {
	net, tb := setup(t, "mesh:dims=2,hcas=2", "minhop")
	for _, whole := range []bool{false, true} {
		p := pairParams(0.4)
		ft, cab := p.HW.FlitPs(), p.HW.CablePs()
		zero := 3*cab + p.HW.PacketPs(p.HW.MTU, ft)
		if whole {
			p.HW.ForwardAtStart, p.HW.WireBytes = false, false
			n := int64(p.HW.PacketFlits(p.HW.MTU))
			zero = 3*(ft+cab) + (n-1)*ft + p.HW.PCIeFlitPs()
		}
		r, err := Run(net, tb, p)
		require.NoError(t, err)
		c := r.Counters
		require.NotNil(t, c)
		assert.Equal(t, r.Packets, c.Latency.Packets)
		assert.Equal(t, float64(zero)/1000, c.Latency.MeanNs, "whole flits %v", whole)
		assert.Equal(t, float64(zero)/1000, c.Latency.MaxNs)
		assert.Equal(t, float64(zero)/1000, c.Latency.P99Ns)
		assert.Zero(t, c.StallsPerFlit)
		for _, l := range c.Links {
			assert.Zero(t, l.StalledNs, "%s[%d]", l.From, l.FromPort)
			busy := float64(l.Packets*p.HW.PacketPs(p.HW.MTU, ft)) / 1000
			assert.InDelta(t, busy/r.SimTimeNs, l.Utilization, 1e-12, "%s[%d], whole flits %v", l.From, l.FromPort, whole)
		}
	}
}

// A sink whose host bus is half the link rate takes a packet in twice its
// time on a cable, so a sender streaming to it sends at half its link rate:
// once buffers fill, each packet waits its own cable time for its credits,
// pkt per packet of n flits, so stalls per flit tend to pkt/(n·ft): 1 with
// whole flits, 518.5/528 = 0.982 by default (the last flit's 26 bytes
// take 6.5 ns). Every link on the way is stalled whenever it is not
// sending. Over 1 ms the buffers' filling leaves them a few per cent lower.
func TestCountersSlowSink(t *testing.T) {
	net, tb := setup(t, "mesh:dims=2,hcas=2", "minhop")
	for _, whole := range []bool{false, true} {
		p := pairParams(1)
		p.MaxTime = 1000 * fabric.Microsecond
		p.HW.PCIeGbps = p.HW.LinkGbps / 2
		if whole {
			p.HW.ForwardAtStart, p.HW.WireBytes = false, false
		}
		r, err := Run(net, tb, p)
		require.NoError(t, err)
		c := r.Counters
		ft, n := p.HW.FlitPs(), int64(p.HW.PacketFlits(p.HW.MTU))
		want := float64(p.HW.PacketPs(p.HW.MTU, ft)) / float64(n*ft)
		for _, h := range c.HCAs {
			assert.InDelta(t, want, h.StallsPerFlit, 0.03, "%s, whole flits %v", h.HCA, whole)
			assert.Less(t, h.StallsPerFlit, want, "%s, whole flits %v", h.HCA, whole)
		}
		end := r.SimTimeNs
		for _, l := range c.Links {
			busy := l.Utilization * end
			assert.InDelta(t, 0.5, l.Utilization, 0.02, "%s[%d]", l.From, l.FromPort)
			// Idle only while filling the buffers and at the very end.
			assert.InDelta(t, end, busy+l.StalledNs, 0.03*end, "%s[%d]: busy %.0f + stalled %.0f ns of %.0f", l.From, l.FromPort, busy, l.StalledNs, end)
		}
	}
}

// The counters add up to the run's totals, and counting changes nothing
// else.
func TestCountersConserve(t *testing.T) {
	net, tb := setup(t, "random:switches=12,hcas=48,links=24,seed=2", "dfsssp")
	p := params(traffic.Uniform)
	p.MaxTime = 100 * fabric.Microsecond
	p.TraceHash = false
	plain, err := Run(net, tb, p)
	require.NoError(t, err)
	p.Counters = true
	r, err := Run(net, tb, p)
	require.NoError(t, err)
	c := r.Counters
	var flits, packets, hops int64
	for _, h := range c.HCAs {
		flits += h.RequestFlits
		packets += h.RequestPackets
	}
	for _, l := range c.Links {
		hops += l.Flits
		// Flits count when granted: an output buffer's worth and a packet
		// granted before the end may go onto the cable after it.
		pkt := float64(int64(p.HW.OutputBufferFlits+p.HW.PacketFlits(p.HW.MTU))*p.HW.FlitPs()) / 1000
		busy := l.Utilization * r.SimTimeNs
		assert.LessOrEqual(t, l.StalledNs+busy, r.SimTimeNs+pkt, "%s[%d]: busy and stalled are disjoint", l.From, l.FromPort)
		assert.LessOrEqual(t, busy, float64(l.Flits)*float64(p.HW.FlitPs())/1000+1e-9, "%s[%d]: no longer than whole flits", l.From, l.FromPort)
		assert.Greater(t, busy, float64(l.Flits-l.Packets)*float64(p.HW.FlitPs())/1000, "%s[%d]: every flit but the last whole", l.From, l.FromPort)
	}
	assert.Equal(t, r.FlitsInjected, flits)
	assert.Equal(t, c.RequestFlits, flits)
	assert.Equal(t, c.RequestPackets, packets)
	assert.Equal(t, r.FlitHops, hops)
	assert.Equal(t, r.Packets, c.Latency.Packets)
	var sum int64
	for _, d := range r.Deliveries {
		sum += d.DonePs - d.InjectedPs
	}
	assert.InDelta(t, float64(sum)/float64(len(r.Deliveries))/1000, c.Latency.MeanNs, 1e-9)
	assert.Positive(t, c.StallsPerFlit)
	// The counters over time add up to the same: 10 windows of 10 µs.
	require.Len(t, c.Series, 10)
	var sf, sp, lat int64
	var stalled float64
	for i, w := range c.Series {
		assert.InDelta(t, float64(i)*10000, w.StartNs, 0)
		sf += w.RequestFlits
		sp += w.Packets
		lat += int64(math.Round(w.LatencyNs * 1000 * float64(w.Packets)))
		stalled += w.StalledNs
		assert.Zero(t, w.HighFlits, "tables: nothing goes with high bias")
	}
	var hcaStalled float64
	for _, h := range c.HCAs {
		hcaStalled += h.StalledNs
	}
	assert.Equal(t, flits, sf)
	assert.Equal(t, r.Packets, sp)
	assert.InDelta(t, float64(sum), float64(lat), float64(len(c.Series)))
	assert.InDelta(t, hcaStalled, stalled, 1e-6)
	r.Counters = nil
	r.WallSeconds, r.FlitHopsPerS, plain.WallSeconds, plain.FlitHopsPerS = 0, 0, 0, 0
	assert.Equal(t, plain, r)
}
