package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"flitsim/fabric"
	"flitsim/routing"
	"flitsim/routing/engines"
	"flitsim/sim"
)

// On a terminal, route and sim show how far their work has come on one
// line they rewrite, and erase it when the work ends; elsewhere (a pipe,
// a file) they show nothing.
func TestStatusLine(t *testing.T) {
	require.Equal(t, "nue: destinations 256/40960 (1 %)", routeProgress("nue", "destinations", 256, 40960))
	require.Equal(t, "dfsssp: layer 2: cycles cut 512", routeProgress("dfsssp", "layer 2: cycles cut", 512, 0))
	require.Equal(t, "nue: verification", routeProgress("nue", "verification", 0, 0))
	require.Equal(t, "simulated 1.234ms of at most 20ms (6 %), 12.5 M events",
		simProgress(sim.Progress{Now: 1_234_567_890, MaxTime: 20_000 * fabric.Microsecond, Events: 12_500_000}))

	require.Nil(t, newStatusLine(&bytes.Buffer{}), "no line into a buffer")
	var none *statusLine
	require.Nil(t, none.routing("nue"))
	require.Nil(t, none.simulation())
	none.end()

	net, err := fabric.Build("kary-ntree:k=8,n=3")
	require.NoError(t, err)
	var out bytes.Buffer
	line := &statusLine{w: &out}
	_, err = engines.ComputeWatched("sssp", net, routing.DefaultOptions(), line.routing("sssp"))
	require.NoError(t, err)
	line.end()
	s := out.String()
	require.Contains(t, s, "\r\033[Ksssp: shortest-path trees 256/512 (50 %), 0s")
	require.Contains(t, s, "\r\033[Ksssp: shortest-path trees 512/512 (100 %), 0s")
	require.True(t, bytes.HasSuffix(out.Bytes(), []byte("\r\033[K")), "the line is erased at the end: %q", s)

	// A run's watch (sim.TestWatchedRunIsTheRun has the run tell it).
	out.Reset()
	w := line.simulation()
	w(sim.Progress{Now: 5 * fabric.Microsecond, MaxTime: 1000 * fabric.Microsecond, Events: 4 << 20})
	line.end()
	require.Equal(t, "\r\033[Ksimulated 5µs of at most 1ms (0 %), 4.2 M events, 0s\r\033[K", out.String())
}
