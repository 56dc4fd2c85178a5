package sim

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The throughput's confidence half-width by batch means, from first
// principles: 41 windows make 20 batches of 2, the first window left out;
// batch means alternating 1 and 3 have mean 2 and sample sd √(20/19), so
// the half-width is t(0.995, 19) = 2.860935 times √(20/19)/√20. Below 20
// windows every window is a batch (Student's t with n−1 degrees of
// freedom); one window has none. A series that drifts slowly gets a wider
// interval than independent windows would.
func TestBatchHalfWidth(t *testing.T) {
	var st steadyState
	xs := []float64{100} // left out: 41 = 20·2 + 1
	for i := range 20 {
		v := 1.0 + 2*float64(i%2)
		xs = append(xs, v, v)
	}
	assert.InDelta(t, 2.860935*math.Sqrt(20.0/19)/math.Sqrt(20), batchHalfWidth(xs, st.studentT), 1e-6)
	// Three windows: t(0.995, 2) = 9.924843, sd 1.
	assert.InDelta(t, 9.924843/math.Sqrt(3), batchHalfWidth([]float64{1, 2, 3}, st.studentT), 1e-5)
	assert.Zero(t, batchHalfWidth([]float64{5}, st.studentT))
	assert.Zero(t, batchHalfWidth(nil, st.studentT))

	// A slow sine over 400 windows: neighbours are alike, so independent
	// windows' 2.576·sd/√n understates the mean's uncertainty.
	var drift []float64
	var mean, m2 float64
	for i := range 400 {
		x := 10 + math.Sin(float64(i)/40)
		drift = append(drift, x)
		d := x - mean
		mean += d / float64(i+1)
		m2 += d * (x - mean)
	}
	iid := z99 * math.Sqrt(m2/399) / math.Sqrt(400)
	assert.Greater(t, batchHalfWidth(drift, st.studentT), 3*iid)
}

// The network's steady-state rule stops a loaded fat tree at the first
// window where the throughput's batch-means interval is within ci_rel of
// its mean: one window earlier the run is not steady; its throughput
// agrees with a run ten times as long within the two intervals; and the
// thesis' rule (every sink within 1 %) has not stopped the same run by then.
func TestNetworkSteadyRule(t *testing.T) {
	net, tb := setup(t, "kary-ntree:k=8,n=2", "dfsssp")
	p := DefaultParams()
	p.SteadyRule = SteadyNetwork
	r, err := Run(net, tb, p)
	require.NoError(t, err)
	require.Equal(t, Steady, r.Verdict)
	assert.GreaterOrEqual(t, r.SampledWindows, p.MinSamples)
	assert.LessOrEqual(t, r.ThroughputCIGBs, p.CIRel*r.ThroughputGBs)
	assert.Greater(t, r.ThroughputCIGBs, 0.0)
	stop := int64(r.SimTimeNs * 1000)
	assert.Equal(t, int64(r.SampledWindows)*p.SampleWindow+p.Warmup, stop, "the run stops at a window's end")

	q := p
	q.MaxTime = stop - p.SampleWindow
	early, err := Run(net, tb, q)
	require.NoError(t, err)
	assert.Equal(t, NotConverged, early.Verdict, "one window earlier")
	assert.Greater(t, early.ThroughputCIGBs, p.CIRel*early.ThroughputGBs)

	// steady_fraction above 1 runs to the time limit under this rule too
	// (the runs of a job alone that slowdowns compare with rely on it).
	q = p
	q.SteadyFraction, q.MaxTime = 2, stop+5*p.SampleWindow
	limit, err := Run(net, tb, q)
	require.NoError(t, err)
	assert.Equal(t, NotConverged, limit.Verdict)
	assert.Equal(t, float64(q.MaxTime)/1000, limit.SimTimeNs)

	q = p
	q.SteadyRule, q.MaxTime = "sinks", 10*stop
	long, err := Run(net, tb, q)
	require.NoError(t, err)
	assert.InDelta(t, long.ThroughputGBs, r.ThroughputGBs, math.Hypot(long.ThroughputCIGBs, r.ThroughputCIGBs))
	assert.Greater(t, long.SimTimeNs, r.SimTimeNs, "the sinks' rule runs on: %s", long.Verdict)
	t.Logf("network rule: %.2f ± %.2f GB/s at %.0f µs; sinks' rule: %s, %.2f ± %.2f GB/s at %.0f µs",
		r.ThroughputGBs, r.ThroughputCIGBs, r.SimTimeNs/1000, long.Verdict, long.ThroughputGBs, long.ThroughputCIGBs, long.SimTimeNs/1000)
}
