package sim

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The throughput's confidence half-width by batch means, from first
// principles: 41 windows make 20 batches of 2, the first window left out;
// batch means alternating 1 and 3 have mean 2 and sample sd √(20/19), so
// the half-width is t(0.995, 19) = 2.860935 times √(20/19)/√20. Below 20
// windows every window is a batch (Student's t with n−1 degrees of
// freedom); one window has none. A series that drifts slowly gets a wider
// interval than independent windows would.
func TestBatchHalfWidth(t *testing.T) {
	xs := []float64{100} // left out: 41 = 20·2 + 1
	for i := range 20 {
		v := 1.0 + 2*float64(i%2)
		xs = append(xs, v, v)
	}
	assert.InDelta(t, 2.860935*math.Sqrt(20.0/19)/math.Sqrt(20), batchHalfWidth(xs), 1e-6)
	// Three windows: t(0.995, 2) = 9.924843, sd 1.
	assert.InDelta(t, 9.924843/math.Sqrt(3), batchHalfWidth([]float64{1, 2, 3}), 1e-5)
	assert.Zero(t, batchHalfWidth([]float64{5}))
	assert.Zero(t, batchHalfWidth(nil))

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
	assert.Greater(t, batchHalfWidth(drift), 3*iid)
}
