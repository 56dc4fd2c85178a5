package difftest

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/fabric"
	"flitsim/routing"
	"flitsim/sim"
	"flitsim/traffic"
)

// Fig. 5.13 in kind (seeds/001 §5.2.3): two switches joined by two cables,
// four HCAs on each; every HCA streams to its partner on the other switch
// (shift by 4, full load; MinHop spreads the destinations over both
// cables, four flows sharing each cable's direction). At 40 µs the tables
// move every flow from the cable it takes to the other one: by a
// plain update (both switches' block written at once) or by the
// five-phase update (the sources migrated to Up*/Down* on VL 1 at 30 µs,
// the base block written at 45 µs, the sources back at 50 µs, each
// migration after a drain). No packet is lost either way; the plain
// update lets packets queued for the old cable be overtaken by later ones
// of the same flow on the new one, the five-phase update does not (its
// drains); the throughput per 5 µs window (logged) stays at the two
// cables' rate throughout. Both simulators.
func TestFig513MoveBetweenCables(t *testing.T) {
	net, err := fabric.Build("mesh:dims=2,hcas=8,redundancy=2")
	require.NoError(t, err)
	old, err := routing.Compute("minhop", net, routing.DefaultOptions())
	require.NoError(t, err)
	next, err := routing.Compute("minhop", net, routing.DefaultOptions())
	require.NoError(t, err)
	// The two cables between the switches, by port at each end.
	var ports [2][]int
	for _, l := range net.Links {
		if int(l.A.Node) < net.NumSwitches && int(l.B.Node) < net.NumSwitches {
			ports[l.A.Node] = append(ports[l.A.Node], int(l.A.Port))
			ports[l.B.Node] = append(ports[l.B.Node], int(l.B.Port))
		}
	}
	require.Len(t, ports[0], 2)
	other := func(sw, p int) int {
		if ports[sw][0] == p {
			return ports[sw][1]
		}
		return ports[sw][0]
	}
	for h := net.NumSwitches; h < len(net.Nodes); h++ {
		hs, _ := net.HCASwitch(h)
		sw := 1 - hs // the switch that forwards to it over a cable
		lid := net.Nodes[h].LID
		next.SetPort(sw, lid, other(sw, int(old.Port(sw, lid))))
	}
	esc, err := routing.Compute("updn", net, routing.Options{VLs: 1})
	require.NoError(t, err)
	for s := range net.NumSwitches {
		for lid := range esc.NumLIDs {
			esc.SetSL(s, uint16(lid), 1)
		}
	}
	p := sim.DefaultParams()
	p.HW.HiccupPs = 0
	p.Traffic = traffic.Spec{Kind: traffic.Shift, JobTraffic: traffic.JobTraffic{MessageBytes: p.HW.MTU, Load: 1, Distance: 4}}
	p.MaxTime, p.Record = 100*fabric.Microsecond, true
	us := fabric.Microsecond
	writes := func(at int64) []sim.TableWrite {
		var w []sim.TableWrite
		for s := range net.NumSwitches {
			w = append(w, sim.TableWrite{AtPs: at, Switch: s, Block: sim.SL2VLBlock}, sim.TableWrite{AtPs: at, Switch: s, Block: 0})
		}
		return w
	}
	plain := &sim.Timeline{Next: next, Writes: writes(40 * us)}
	five := &sim.Timeline{Next: next, Writes: writes(45 * us), Escape: esc, MigrateAtPs: 30 * us, ReturnAtPs: 50 * us}
	for _, s := range simulators {
		for _, c := range []struct {
			name string
			tl   *sim.Timeline
		}{{"plain", plain}, {"five-phase", five}} {
			q := p
			q.Timeline = c.tl
			r, err := s.run(net, old, q)
			require.NoError(t, err)
			assert.Equal(t, int64(0), r.PacketsLost, "%s %s", s.name, c.name)
			over := overtaken(r.Deliveries)
			win := windowGBs(r.Deliveries, 5*us, q.MaxTime)
			t.Logf("%s %s: %.2f GB/s, %d packets overtaken by a later one of their flow; per 5 µs: %s", s.name, c.name, r.ThroughputGBs, over, fmtWindows(win))
			for i, x := range win[2:] { // after the first flits arrive
				assert.Greater(t, x, 0.9*r.ThroughputGBs, "%s %s: window %d", s.name, c.name, i+2)
			}
			if c.name == "plain" {
				assert.Greater(t, over, 0, "packets queued for the old cable overtaken on the new one")
			} else {
				assert.Equal(t, 0, over, "the drains keep every flow in order")
			}
		}
	}
}

// overtaken counts the deliveries of a flow (source, destination) that
// come after one with a higher number.
func overtaken(ds []sim.Delivery) int {
	type flow struct{ s, d int32 }
	last := map[flow]int64{}
	n := 0
	for _, d := range ds {
		f := flow{d.Src, d.Dst}
		if d.Seq < last[f] {
			n++
		}
		last[f] = max(last[f], d.Seq)
	}
	return n
}

// windowGBs is the payload delivered per window of w ps up to end.
func windowGBs(ds []sim.Delivery, w, end int64) []float64 {
	out := make([]float64, end/w)
	for _, d := range ds {
		if i := d.DonePs / w; i < int64(len(out)) {
			out[i] += float64(d.Bytes) * 1e3 / float64(w)
		}
	}
	return out
}

func fmtWindows(ws []float64) string {
	s := ""
	for _, x := range ws {
		s += fmt.Sprintf(" %.1f", x)
	}
	return s
}
