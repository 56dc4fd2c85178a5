package results

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Two traffic entries of one kind (here the exchange under two rank orders)
// are two groups, told apart by their label; records without a label group
// by kind as before.
func TestTrafficLabelsSplitGroups(t *testing.T) {
	var recs []Record
	for i, lbl := range []string{"", "", "exchange/random", "exchange/random"} {
		r := rec(i, "torus", "dfsssp", i%2, Completed, float64(100+10*i), true)
		r.Traffic, r.TrafficLabel = "exchange", lbl
		recs = append(recs, r)
	}
	regs := Regressions(recs)
	require.Len(t, regs, 2)
	assert.Equal(t, "exchange", regs[0].Traffic)
	assert.Equal(t, "exchange/random", regs[1].Traffic)
	assert.Equal(t, 2, regs[0].Points)
	assert.InDelta(t, 100, regs[0].Intercept, 1e-9) // (0,100), (1,110)
	assert.InDelta(t, 120, regs[1].Intercept, 1e-9) // (0,120), (1,130)
}
