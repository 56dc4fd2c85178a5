package difftest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/configs/pipeline"
	"flitsim/fabric"
	"flitsim/faults"
	"flitsim/routing"
	"flitsim/sim"
	"flitsim/sim/reference"
	"flitsim/traffic"
)

// A cable fails under a stream, from first principles (sim/doc.go, "Timed
// events"). On a 2-ary 2-tree, rank 0 (HCA 0, leaf A) broadcasts one
// message of 40 MTUs to rank 1 (HCA 2, leaf B): 40 packets of pkt ps on
// the cable (PacketPs: 32 flits and a last of 26 bytes) injected back to
// back, packet k at k·pkt, its head at leaf A at a_k = k·pkt + cab (taken
// as it begins to arrive) and granted there at once (one flow, no
// hiccups). The cable leaf A leaves by fails just after a_10; every switch
// holds the tables of the network without it (minhop) from just after
// a_20. So packets 11..20 are lost (granted the dead cable), the rest go:
// 0..10 on the old path, 21..39 around it. Without resending the run ends
// Lost with 30 packets delivered; with a timeout of 5 µs the ten are sent
// again (after the new tables are in: none is lost twice) and the message
// completes when the last of the 50 injections, back to back from 0, has
// crossed three switches and the host bus, as fast as the cables, has
// taken it: 50·pkt + 4·cab. Both simulators.
func TestTimedCableFailure(t *testing.T) {
	net, err := fabric.Build("kary-ntree:k=2,n=2")
	require.NoError(t, err)
	tb, err := routing.Compute("minhop", net, routing.DefaultOptions())
	require.NoError(t, err)
	src, dst := net.NumSwitches, net.NumSwitches+2
	leafA, _ := net.HCASwitch(src)
	leafB, _ := net.HCASwitch(dst)
	require.NotEqual(t, leafA, leafB)
	failed := net.LinkAt(leafA, int(tb.Port(leafA, net.Nodes[dst].LID)))
	require.True(t, net.IsSwitchLink(failed))
	drop := make([]bool, len(net.Links))
	drop[failed] = true
	rest, err := net.Without(drop, nil)
	require.NoError(t, err)
	next, err := routing.Compute("minhop", rest, routing.DefaultOptions())
	require.NoError(t, err)
	require.NotEqual(t, tb.Port(leafA, net.Nodes[dst].LID), next.Port(leafA, net.Nodes[dst].LID), "the new tables go around")

	p := jobParams(job("b", traffic.Broadcast, 40*2048, 1, 0, 2))
	p.Record = true
	hw := p.HW
	require.True(t, hw.ForwardAtStart && hw.WireBytes && hw.PCIeGbps == hw.LinkGbps, "the default hop")
	pkt, cab := hw.PacketPs(hw.MTU, hw.FlitPs()), hw.CablePs()
	a := func(k int64) int64 { return k*pkt + cab }
	write := a(20) + 1
	tl := &sim.Timeline{Links: []sim.LinkEvent{{AtPs: a(10) + 1, Link: failed}}, Next: next}
	blocks := (tb.NumLIDs + sim.LFTBlock - 1) / sim.LFTBlock
	for sw := range net.NumSwitches {
		for b := sim.SL2VLBlock; b < blocks; b++ {
			tl.Writes = append(tl.Writes, sim.TableWrite{AtPs: write, Switch: sw, Block: b})
		}
	}
	for _, s := range simulators {
		t.Run(s.name+"/lost", func(t *testing.T) {
			q := p
			q.Timeline = tl
			r, err := s.run(net, tb, q)
			require.NoError(t, err)
			assert.Equal(t, sim.Lost, r.Verdict)
			assert.Equal(t, int64(10), r.PacketsLost)
			assert.Equal(t, int64(10), r.Jobs[0].PacketsLost)
			assert.Equal(t, int64(30), r.Packets)
			assert.Equal(t, int64(0), r.Messages)
			var seqs []int64
			for _, d := range r.Deliveries {
				seqs = append(seqs, d.Seq)
			}
			var want []int64
			for k := int64(1); k <= 40; k++ {
				if k <= 11 || k > 21 { // packet k−1
					want = append(want, k)
				}
			}
			assert.Equal(t, want, seqs)
		})
		t.Run(s.name+"/resent", func(t *testing.T) {
			q := p
			resend := *tl
			resend.RetryPs = 5 * fabric.Microsecond
			q.Timeline = &resend
			r, err := s.run(net, tb, q)
			require.NoError(t, err)
			require.Equal(t, sim.Completed, r.Verdict)
			assert.Equal(t, int64(10), r.PacketsLost)
			assert.Equal(t, int64(10), r.PacketsResent)
			assert.Equal(t, int64(40), r.Packets)
			assert.Equal(t, int64(1), r.Messages)
			end := 50*pkt + 4*cab
			assert.InDelta(t, float64(end)/1000, r.Jobs[0].CompletionNs, 1e-9)
		})
	}
}

// A migration after a deadlock: a plain DFSSSP reroute deadlocks a 4x4
// torus at 176 µs (seed 6, as TestFivePhaseAvoidsTransientDeadlock); the
// sources then migrate to Up*/Down* on VL 7 at 300-320 µs. Every HCA has
// packets stuck in the cycle and drains forever, so nothing can move
// again: both simulators end Deadlock at the same instant, the pending
// migration notwithstanding (a draining HCA waits for its packets, not
// for credits, in both frozen-network checks).
func TestDeadlockWhileDraining(t *testing.T) {
	net, err := fabric.Build("torus:dims=4x4,hcas=32")
	require.NoError(t, err)
	opts := routing.DefaultOptions()
	opts.VLs = 7
	r := pipeline.SMReroute{Net: net, Engine: "dfsssp", Options: opts, Faults: faults.Spec{LinkPercent: 5, Seed: 6}, DetectS: 2e-6, RouteS: 2e-6, MADRate: 1e5}
	tl, _, old, err := r.Timeline(10*fabric.Microsecond, 0)
	require.NoError(t, err)
	esc, err := routing.Compute("updn", net, routing.Options{VLs: 1})
	require.NoError(t, err)
	for s := range net.NumSwitches {
		for lid := range esc.NumLIDs {
			esc.SetSL(s, uint16(lid), 7)
		}
	}
	tl.Escape, tl.MigrateAtPs, tl.ReturnAtPs = esc, 300*fabric.Microsecond, 320*fabric.Microsecond
	p := sim.DefaultParams()
	p.Traffic = traffic.Spec{Kind: traffic.Uniform, JobTraffic: traffic.JobTraffic{MessageBytes: p.HW.MTU, Load: 1}}
	p.MaxTime, p.Timeline, p.Record = 500*fabric.Microsecond, tl, true
	fast, err := sim.Run(net, old, p)
	require.NoError(t, err)
	ref, err := reference.Run(net, old, p)
	require.NoError(t, err)
	assert.Equal(t, sim.Deadlock, ref.Verdict)
	assert.Empty(t, Compare(fast, ref))
}
