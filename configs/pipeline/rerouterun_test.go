package pipeline

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/configs"
	"flitsim/fabric"
	"flitsim/faults"
	"flitsim/results"
	"flitsim/routing"
	"flitsim/sim"
	"flitsim/sim/difftest"
	"flitsim/sim/reference"
	"flitsim/traffic"
)

// fatTreeReroute is a reroute of a 4-ary 2-tree routed by DFSSSP under
// uniform traffic at load 0.7: the failures f at 30 µs, the subnet
// manager writing from 10 µs later a block a microsecond, lost packets
// resent after 20 µs, windows of 5 µs.
func fatTreeReroute(t *testing.T, f faults.Spec) RerouteRun {
	net, err := fabric.Build("kary-ntree:k=4,n=2")
	require.NoError(t, err)
	p := sim.DefaultParams()
	p.Traffic = traffic.Spec{Kind: traffic.Uniform, JobTraffic: traffic.JobTraffic{MessageBytes: p.HW.MTU, Load: 0.7}}
	return RerouteRun{
		Reroute: SMReroute{Net: net, Engine: "dfsssp", Options: routing.DefaultOptions(), Faults: f, DetectS: 5e-6, RouteS: 5e-6, MADRate: 1e6},
		Params:  p, FailAtPs: 30 * fabric.Microsecond, RetryPs: 20 * fabric.Microsecond, WindowPs: 5 * fabric.Microsecond,
	}
}

// A reroute under traffic: one cable of a 4-ary 2-tree (routed by
// DFSSSP) fails 30 µs into uniform traffic at load 0.7; the subnet
// manager starts writing 10 µs later, one block a microsecond (five
// switches have a block that differs: the last write at 45 µs). Nothing
// differs from the intact run before the failure; packets are lost and
// every one is sent again; the throughput recovers after the last write;
// and the reference simulator agrees packet for packet.
func TestRerouteRun(t *testing.T) {
	rr := fatTreeReroute(t, faults.Spec{LinkPercent: 10, Seed: 1})
	out, err := rr.Run()
	require.NoError(t, err)
	assert.Equal(t, 5, out.Reroute.Blocks)
	assert.Equal(t, 10, out.Writes, "a block and an SL→VL table per switch")
	assert.InDelta(t, 45_000.0, out.TablesNs, 1e-9)
	assert.Greater(t, out.ReachableNs, out.FailNs, "the cable carried routes")
	assert.LessOrEqual(t, out.ReachableNs, out.TablesNs)
	res := out.Result
	assert.False(t, out.Deadlock)
	assert.Greater(t, res.PacketsLost, int64(0))
	assert.Equal(t, res.PacketsLost, res.PacketsResent, "every lost packet sent again within the run")
	for i, w := range out.Windows[:6] { // windows ending by the failure
		assert.Equal(t, out.Base[i], w, "window %d", i)
	}
	assert.NotEqual(t, out.Base[6], out.Windows[6], "the failure's window")
	assert.GreaterOrEqual(t, out.RecoveredNs, out.TablesNs)

	rr.Sim = reference.Run
	ref, err := rr.Run()
	require.NoError(t, err)
	assert.Empty(t, difftest.Compare(res, ref.Result))
}

// The transient deadlock of a plain update and the five-phase update that
// avoids it (seeds/001 §5.2.3, Def. 5.5): one cable of a 4x4 torus (two
// HCAs a switch, DFSSSP on 7 VLs) fails 10 µs into uniform traffic at
// full load; the subnet manager rewrites one block every 10 µs. Written
// while traffic runs, the mixture of old and new tables sends packets
// between two neighbours and back: both simulators deadlock at the same
// instant, on a cycle of two buffers (its packets routed while the tables
// were mixed stay so after the last write); the static
// check of the update finds the mixture's loops too. With the five-phase
// update the sources move to Up*/Down* on VL 7 before the base tables
// change: no deadlock, and the throughput recovers.
func TestFivePhaseAvoidsTransientDeadlock(t *testing.T) {
	net, err := fabric.Build("torus:dims=4x4,hcas=32")
	require.NoError(t, err)
	p := sim.DefaultParams()
	p.Traffic = traffic.Spec{Kind: traffic.Uniform, JobTraffic: traffic.JobTraffic{MessageBytes: p.HW.MTU, Load: 1}}
	p.MaxTime = 400 * fabric.Microsecond
	opts := routing.DefaultOptions()
	opts.VLs = 7
	rr := RerouteRun{
		Reroute: SMReroute{Net: net, Engine: "dfsssp", Options: opts, Faults: faults.Spec{LinkPercent: 5, Seed: 6},
			DetectS: 2e-6, RouteS: 2e-6, MADRate: 1e5, DrainS: 20e-6},
		Params: p, FailAtPs: 10 * fabric.Microsecond, WindowPs: 10 * fabric.Microsecond,
	}
	plain, err := rr.Run()
	require.NoError(t, err)
	require.True(t, plain.Deadlock)
	assert.Len(t, plain.Result.DeadlockCycle, 2)
	rr.Sim = reference.Run
	ref, err := rr.Run()
	require.NoError(t, err)
	assert.Equal(t, sim.Deadlock, ref.Result.Verdict)
	assert.Equal(t, plain.Result.SimTimeNs, ref.Result.SimTimeNs)
	assert.Equal(t, plain.Result.PacketsLost, ref.Result.PacketsLost)

	up, err := routing.CheckUpdate(net, plain.Tables, plain.Timeline.Next)
	require.NoError(t, err)
	assert.False(t, up.PropertyPreserving())
	// The deadlock is a forwarding loop of the table states: the walks
	// of the mixtures name its two switches while the writes go on.
	cyc := plain.Result.DeadlockCycle
	var loop *NamedLoop
	for i, l := range plain.Transient.Loops {
		if slices.Contains(l.Switches, cyc[0].Node) && slices.Contains(l.Switches, cyc[0].From) {
			loop = &plain.Transient.Loops[i]
		}
	}
	require.NotNil(t, loop, "the deadlock's cycle among the transient loops %v", plain.Transient.Loops)
	assert.Len(t, loop.Switches, 2)
	assert.Less(t, loop.FromNs, plain.Result.SimTimeNs, "the loop before the deadlock")
	assert.Greater(t, plain.Transient.MaxLooping, 0)

	rr.Sim, rr.Reroute.FivePhase = nil, true
	five, err := rr.Run()
	require.NoError(t, err)
	assert.False(t, five.Deadlock)
	assert.Equal(t, sim.NotConverged, five.Result.Verdict, "ran to its time limit")
	assert.Greater(t, five.MigrateNs, five.FailNs)
	assert.Equal(t, five.MigrateNs, five.ReachableNs, "every source on Up*/Down* of the failed fabric")
	assert.Zero(t, five.Transient.MaxLooping, "no mixture in use: the high LIDs are written before the migration")
	assert.Equal(t, five.Transient.BrokenAtFailure, five.Transient.MaxBroken, "no black hole beyond the failure's own")
	assert.GreaterOrEqual(t, five.RecoveredNs, five.ReturnNs)
}

const timedCampaign = `name = "timed"
[[topology]]
spec = "kary-ntree:k=4,n=2"
[faults]
percent = [0, 10]
[faults.timed]
at = "30us"
detect = "5us"
route_time = "5us"
mad_rate = 1e6
retry = "20us"
window = "5us"
[[routing]]
engine = "dfsssp"
[[traffic]]
kind = "uniform"
load = 0.7
max_time = "100us"
`

// A [faults.timed] campaign: the level 0 runs as always, the 10 % level
// (one cable) through the reroute, its record the same as
// TestRerouteRun's run (the same declared times), and the report's table
// of failures while traffic runs has its row. Bad [faults.timed] tables
// are refused at their key.
func TestTimedCampaign(t *testing.T) {
	c, err := configs.Parse([]byte(timedCampaign), "t.toml", ".")
	require.NoError(t, err)
	require.NoError(t, c.Check())
	pts, err := c.Points()
	require.NoError(t, err)
	require.Len(t, pts, 2)
	nets := NewNetworks()
	r0 := Evaluate(pts[0], c.Hash(), nets)
	assert.Nil(t, r0.Timed)
	r := Evaluate(pts[1], c.Hash(), nets)
	require.NotNil(t, r.Timed, r.Error)
	assert.Equal(t, 1, r.FailedLinks)
	assert.InDelta(t, 45_000.0, r.Timed.TablesNs, 1e-9)
	assert.Greater(t, r.Timed.PacketsLost, int64(0))
	assert.Equal(t, r.Timed.PacketsLost, r.Timed.PacketsResent)
	assert.InDelta(t, r0.ThroughputGBs, r.Timed.IntactGBs, 1e-9, "the intact run is the level 0 point's")
	assert.Equal(t, r, Evaluate(pts[1], c.Hash(), NewNetworks()), "deterministic")
	rep := results.Summarize([]results.Record{r0, r})
	require.Len(t, rep.Timed, 1)
	assert.Equal(t, 1, rep.Timed[0].Recovered)
	assert.Len(t, r.Timed.Windows, 20, "100 µs in whole windows of 5 µs")
	figs, err := results.Figures([]results.Record{r0, r})
	require.NoError(t, err)
	var names []string
	for _, f := range figs {
		names = append(names, f.Name)
	}
	assert.Contains(t, names, "timed-kary-ntree-k-4-n-2-uniform", "the throughput over time")

	for _, bad := range []struct{ text, key string }{
		{strings.Replace(timedCampaign, "mad_rate = 1e6", "mad_rate = 0", 1), "faults.timed.mad_rate"},
		{strings.Replace(timedCampaign, "mad_rate = 1e6", "madrate = 1", 1), "faults.timed.madrate"},
		{strings.Replace(timedCampaign, "percent = [0, 10]", "percent = [0, 10]\nkind = \"switches\"\ntake_hcas = true", 1), "faults.timed"},
	} {
		_, err := configs.Parse([]byte(bad.text), "t.toml", ".")
		require.Error(t, err)
		assert.Contains(t, err.Error(), bad.key)
	}
}

// A [faults.timed] key given a list sweeps its values: each is a variant
// of the entry's failure levels above 0 (level 0 runs once), with its own
// key, record and row in the report; a later detection delays the tables
// by as much.
func TestTimedCampaignSweep(t *testing.T) {
	text := strings.Replace(timedCampaign, `detect = "5us"`, `detect = ["5us", "25us"]`, 1)
	c, err := configs.Parse([]byte(text), "t.toml", ".")
	require.NoError(t, err)
	pts, err := c.Points()
	require.NoError(t, err)
	require.Len(t, pts, 3)
	assert.Equal(t, "", pts[0].Timed.Sweep, "level 0: one point")
	assert.Equal(t, "detect=5us", pts[1].Timed.Sweep)
	assert.Equal(t, "detect=25us", pts[2].Timed.Sweep)
	assert.NotEqual(t, pts[1].Key, pts[2].Key)
	nets := NewNetworks()
	var recs []results.Record
	for _, p := range pts {
		recs = append(recs, Evaluate(p, c.Hash(), nets))
	}
	require.NotNil(t, recs[1].Timed, recs[1].Error)
	require.NotNil(t, recs[2].Timed, recs[2].Error)
	assert.InDelta(t, 20_000.0, recs[2].Timed.TablesNs-recs[1].Timed.TablesNs, 1e-9, "20 µs later detection, 20 µs later tables")
	rep := results.Summarize(recs)
	require.Len(t, rep.Timed, 2)
	assert.Equal(t, []string{"detect=5us", "detect=25us"}, []string{rep.Timed[0].Sweep, rep.Timed[1].Sweep})

	for _, bad := range []struct{ text, key string }{
		{strings.Replace(timedCampaign, `detect = "5us"`, `detect = []`, 1), "faults.timed.detect"},
		{strings.Replace(timedCampaign, `detect = "5us"`, `detect = ["5us", "-1us"]`, 1), "faults.timed.detect"},
		{strings.Replace(timedCampaign, `detect = "5us"`, `detect = ["5us", "5us"]`, 1), "faults.timed"},
	} {
		_, err := configs.Parse([]byte(bad.text), "t.toml", ".")
		require.Error(t, err)
		assert.Contains(t, err.Error(), bad.key)
	}
}

// A switch fails while traffic runs: two of the four spines of a 4-ary
// 2-tree fail at 30 µs (every one of their eight cables at once; the
// packets in them are lost as their outputs discard them), the subnet
// manager writes the surviving switches the tables of the fabric
// without them (renumbered back), lost packets are sent again, the
// throughput recovers to what two spines carry, and the reference agrees
// packet for packet.
func TestRerouteRunSwitchFailure(t *testing.T) {
	rr := fatTreeReroute(t, faults.Spec{SwitchPercent: 25, Seed: 1})
	net := rr.Reroute.Net
	out, err := rr.Run()
	require.NoError(t, err)
	require.Len(t, out.Reroute.Failed.Switches, 2)
	assert.Len(t, out.Timeline.Links, 8, "two spines' cables")
	for _, w := range out.Timeline.Writes {
		assert.NotContains(t, out.Reroute.Failed.Switches, net.Nodes[w.Switch].Name, "no write to a failed switch")
	}
	res := out.Result
	assert.False(t, out.Deadlock)
	assert.Greater(t, res.PacketsLost, int64(0))
	assert.Equal(t, res.PacketsLost, res.PacketsResent)
	assert.GreaterOrEqual(t, out.RecoveredNs, out.TablesNs)
	rr.Sim = reference.Run
	ref, err := rr.Run()
	require.NoError(t, err)
	assert.Empty(t, difftest.Compare(res, ref.Result))
}
