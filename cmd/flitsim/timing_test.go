package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/results"
)

// The time report sums points by topology, puts the costliest first and
// gives each step's share of it; the "all" row sums everything.
func TestTimeSpent(t *testing.T) {
	s := newTimeSpent()
	s.add("torus", results.Wall{Seconds: 1, Fail: 0.1, Route: 0.2, Sim: 0.7})
	s.add("tree", results.Wall{Seconds: 3, Route: 0.3, Sim: 2.7})
	s.add("torus", results.Wall{Seconds: 1, Fail: 0.1, Route: 0.2, Sim: 0.7})
	var b bytes.Buffer
	s.write(&b)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Len(t, lines, 5, b.String())
	assert.Regexp(t, `^\s*tree\s+1\s+3\.0\s+3\.000\s+0 %\s+10 %\s+90 %$`, lines[2])
	assert.Regexp(t, `^\s*torus\s+2\s+2\.0\s+1\.000\s+10 %\s+20 %\s+70 %$`, lines[3])
	assert.Regexp(t, `^\s*all\s+3\s+5\.0\s+1\.667\s+4 %\s+14 %\s+82 %$`, lines[4])

	var none bytes.Buffer
	newTimeSpent().write(&none)
	assert.Empty(t, none.String(), "no points, no report")
}
