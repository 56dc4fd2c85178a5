package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"flitsim/fabric"
	"flitsim/routing"
	"flitsim/routing/engines"
)

// On a terminal, route shows the engine's stage and share done on one line
// it rewrites, and erases it when the routing ends; elsewhere (a pipe, a
// file) it shows nothing.
func TestRouteWatchLine(t *testing.T) {
	require.Equal(t, "nue: destinations 256/40960 (1 %), 3s", progressLine("nue", "destinations", 256, 40960, 3200*time.Millisecond))
	require.Equal(t, "dfsssp: layer 2: cycles cut 512, 1m5s", progressLine("dfsssp", "layer 2: cycles cut", 512, 0, 65*time.Second))
	require.Equal(t, "nue: verification, 2m0s", progressLine("nue", "verification", 0, 0, 2*time.Minute))

	require.Nil(t, newRouteWatch(&bytes.Buffer{}), "no progress line into a buffer")
	var nilWatch *routeWatch
	require.Nil(t, nilWatch.begin("nue"))
	nilWatch.end()

	var out bytes.Buffer
	w := &routeWatch{w: &out}
	net, err := fabric.Build("kary-ntree:k=8,n=3")
	require.NoError(t, err)
	_, err = engines.ComputeWatched("sssp", net, routing.DefaultOptions(), w.begin("sssp"))
	require.NoError(t, err)
	w.end()
	s := out.String()
	require.Contains(t, s, "\r\033[Ksssp: shortest-path trees 256/512 (50 %), 0s")
	require.Contains(t, s, "\r\033[Ksssp: shortest-path trees 512/512 (100 %), 0s")
	require.True(t, bytes.HasSuffix(out.Bytes(), []byte("\r\033[K")), "the line is erased at the end: %q", s)
}
