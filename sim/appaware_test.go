package sim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"flitsim/routing"
)

// TestAppAwareRule walks Algorithm 1 by hand: the threshold, the first
// decision from estimated values, the switch back on observed stalls, the
// instant rule of a read and the ageing of the other mode's value.
func TestAppAwareRule(t *testing.T) {
	p := AppAwareParams{Threshold: 4096, LatencyScale: 0.5, StallScale: 2, MaxAge: 2, FlitPs: 1000}
	a := NewAppAware(routing.ModeUGAL)

	// Below the threshold every message goes with high bias, undecided.
	require.Equal(t, routing.ModeUGALHigh, a.Choose(p, 10, 1000, 1, 17, 0, 0))
	require.Equal(t, routing.ModeUGALHigh, a.Choose(p, 20, 1000, 1, 17, 0, 17))
	require.Zero(t, a.Stats.Decisions)
	// The third reaches 4096 bytes in all: a decision, but there is no
	// value of the default mode yet, so it stays in the default.
	a.Delivered(25, 5000)
	require.Equal(t, routing.ModeUGAL, a.Choose(p, 30, 2096, 1, 34, 0, 34))
	require.Equal(t, int64(1), a.Stats.Decisions)
	require.Equal(t, int64(2000), a.Stats.HighBytes)
	require.Equal(t, int64(2096), a.Stats.DefaultBytes)
	// (That read, at 30, took the delivery at 25 as high bias's: the
	// previous message's mode.)
	require.True(t, a.last[1].ok)
	require.InDelta(t, 5000, a.last[1].latency, 0)

	// Default observed: latency 10,000 ps, no stalls. High bias has its
	// own value (5,000 ps, 0 stalls): it is cheaper; switch.
	a.Delivered(35, 10000)
	// A packet delivered at the very instant of the read is not in it.
	a.Delivered(40, 1e9)
	require.Equal(t, routing.ModeUGALHigh, a.Choose(p, 40, 8192, 4, 132, 0, 68))
	require.InDelta(t, 10000, a.last[0].latency, 0)
	require.Equal(t, int64(1), a.Stats.Switches)

	// High bias now stalls one flit time per flit over 100 flits; its
	// latency is the 1e9 packet delivered at 40. A message of 132 flits
	// costs 1e9 + 132·1000·2 in high bias against the default's
	// 10,000 + 132,000: switch back.
	require.Equal(t, routing.ModeUGAL, a.Choose(p, 50, 8192, 4, 132, 100*1000, 168))
	require.InDelta(t, 1.0, a.last[1].stalls, 1e-12)
	require.Equal(t, int64(2), a.Stats.Switches)

	// Samples of the default age high bias's value; after MaxAge of them
	// it is dropped and estimated again from the default's (0.5 × latency,
	// 2 × stalls).
	// On the third the estimate (half the default's latency, no stalls)
	// wins.
	var got []routing.Mode
	for i, at := range []int64{60, 70, 80} {
		a.Delivered(at-5, 10000)
		got = append(got, a.Choose(p, at, 8192, 4, 132, 100*1000, 300+int64(i)*132))
	}
	require.Equal(t, []routing.Mode{routing.ModeUGAL, routing.ModeUGAL, routing.ModeUGALHigh}, got)
	require.False(t, a.last[1].ok)
	require.Equal(t, int64(3), a.Stats.Switches)
}

// TestAppAwareEstimate checks Eq. 2 with a NIC window: the latency is paid
// once more per full window of packets.
func TestAppAwareEstimate(t *testing.T) {
	p := AppAwareParams{FlitPs: 10, Window: 4}
	v := aaValue{latency: 100, stalls: 0.5}
	require.InDelta(t, 100*1+8*10*1.5, p.estimate(v, 3, 8), 1e-9)
	require.InDelta(t, 100*3+80*10*1.5, p.estimate(v, 9, 80), 1e-9)
	p.Window = 0
	require.InDelta(t, 100+80*10*1.5, p.estimate(v, 9, 80), 1e-9)
}
