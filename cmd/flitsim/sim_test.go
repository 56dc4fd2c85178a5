package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// simJSON runs `flitsim sim ... --json` and decodes the report.
func simJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	code, out, errs := run(append(append([]string{"sim"}, args...), "--json")...)
	require.Equal(t, 0, code, errs)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	return got
}

// --hw takes the keys of a campaign's [hardware] table; the run uses them
// and the report says so.
func TestSimHardwareOverrides(t *testing.T) {
	base := []string{"kary-ntree:k=2,n=2", "--routing", "minhop", "--traffic", "exchange"}
	def := simJSON(t, base...)
	hw := def["hardware"].(map[string]any)
	assert.Equal(t, 230.4, hw["crossbar_gbps"])
	slow := simJSON(t, append(base, "--hw", "cable_m=100,switch_latency=1us,crossbar_gbps=32,hiccup=0")...)
	hw = slow["hardware"].(map[string]any)
	assert.Equal(t, 32.0, hw["crossbar_gbps"])
	assert.Equal(t, 100.0, hw["cable_m"])
	assert.Equal(t, float64(1_000_000), hw["switch_latency_ps"])
	assert.Equal(t, 0.0, hw["hiccup_ps"])
	assert.Greater(t, slow["runtime_ns"].(float64), def["runtime_ns"].(float64)+1000, "longer cables and switch latency slow the exchange")

	for _, bad := range []string{"nosuch=1", "crossbar_gbps=8", "mtu", "switch_latency=soon", "vls=x", "rank3_gbps=16"} {
		code, _, errs := run(append(append([]string{"sim"}, base...), "--hw", bad)...)
		assert.Equal(t, 2, code, "--hw %s: %s", bad, errs)
		assert.Contains(t, errs, "--hw", bad)
	}
}

// The reference simulator answers the same as the fast one.
func TestSimReference(t *testing.T) {
	args := []string{"torus:dims=4x4,hcas=16", "--routing", "torus-2qos", "--traffic", "exchange"}
	fast := simJSON(t, args...)
	ref := simJSON(t, append(args, "--reference")...)
	assert.Equal(t, "fast", fast["simulator"])
	assert.Equal(t, "reference", ref["simulator"])
	for _, k := range []string{"verdict", "runtime_ns", "packets_delivered", "flit_hops"} {
		assert.Equal(t, fast[k], ref[k], k)
	}
	assert.InEpsilon(t, fast["throughput_gbs"], ref["throughput_gbs"], 1e-12)
	assert.Equal(t, "completed", fast["verdict"])
}

// --counters reports the NIC counters, per HCA and per channel in JSON,
// with the totals the run's own counts give, and prints a summary.
func TestSimCounters(t *testing.T) {
	args := []string{"mesh:dims=2,hcas=2", "--routing", "minhop", "--traffic", "shift", "--max-time", "30us", "--counters"}
	got := simJSON(t, args...)
	c := got["counters"].(map[string]any)
	assert.Equal(t, got["flits_injected"], c["request_flits"])
	assert.Len(t, c["hcas"], 2)
	assert.Len(t, c["links"], 6, "2 HCA cables and 1 switch cable, both directions")
	lat := c["latency"].(map[string]any)
	assert.Equal(t, got["packets_delivered"], lat["packets"])
	code, out, errs := run(append([]string{"sim"}, args...)...)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "stalls per flit")
	assert.NotContains(t, simJSON(t, args[:len(args)-1]...), "counters", "off unless asked")
}

// --order lays the ranks on the HCAs. On a 4-ary 2-tree with DFSSSP the
// exchange under the fabric's HCA order (and under round robin) is
// contention-free, every sink at its host-bus limit; a random order makes
// ranks of one leaf collide on spines and finishes later. Both simulators
// agree on the random order.
func TestSimOrder(t *testing.T) {
	args := []string{"kary-ntree:k=4,n=2", "--routing", "dfsssp", "--traffic", "exchange", "--msg-bytes", "4MTU"}
	hca := simJSON(t, args...)
	rr := simJSON(t, append(args, "--order", "round-robin")...)
	rnd := simJSON(t, append(args, "--order", "random")...)
	ref := simJSON(t, append(args, "--order", "random", "--reference")...)
	assert.Nil(t, hca["order"])
	assert.Equal(t, "random", rnd["order"])
	assert.Equal(t, hca["runtime_ns"], rr["runtime_ns"], "both contention-free")
	assert.Less(t, hca["runtime_ns"], rnd["runtime_ns"])
	assert.Equal(t, rnd["runtime_ns"], ref["runtime_ns"])
	code, out, errs := run(append([]string{"sim"}, append(args, "--order", "random")...)...)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "ranks in random order")
}

// Infinite traffic that does not converge reports what it measured, with
// its interval, and says it did not converge; never 0 when packets were
// delivered.
func TestSimNotConverged(t *testing.T) {
	args := []string{"kary-ntree:k=4,n=2", "--routing", "dfsssp", "--traffic", "uniform", "--max-time", "15us"}
	got := simJSON(t, args...)
	assert.Equal(t, "not_converged", got["verdict"])
	assert.Positive(t, got["packets_delivered"])
	assert.Positive(t, got["throughput_gbs"], "before warmup and a window: payload over the run")
	code, out, errs := run(append([]string{"sim"}, args...)...)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "NOT CONVERGED")
	got = simJSON(t, "kary-ntree:k=4,n=2", "--routing", "dfsssp", "--traffic", "uniform", "--max-time", "200us")
	assert.Equal(t, "not_converged", got["verdict"])
	assert.Positive(t, got["throughput_ci_gbs"])
	assert.EqualValues(t, 18, got["sampled_windows"], "(200-20) µs of 10-µs windows after the 20-µs warmup")
}

// A fabric whose HCAs are not all connected cannot be routed or
// simulated: bad input, exit 2, not a failed run.
func TestDisconnectedFabric(t *testing.T) {
	path := filepath.Join(t.TempDir(), "two.net")
	two := "Switch\t4 \"a\"\n[1]\t\"h1\"[1]\n\nSwitch\t4 \"b\"\n[1]\t\"h2\"[1]\n\nCa\t1 \"h1\"\n[1]\t\"a\"[1]\n\nCa\t1 \"h2\"\n[1]\t\"b\"[1]\n"
	require.NoError(t, os.WriteFile(path, []byte(two), 0o644))
	for _, cmd := range []string{"route", "sim"} {
		code, _, errs := run(cmd, path, "--routing", "minhop")
		assert.Equal(t, 2, code, errs)
		assert.Contains(t, errs, "not all connected")
	}
}

// sim --timed: the failures happen while traffic runs, rerouted by the
// subnet manager with the [faults.timed] keys given; the same numbers as
// the campaign's point (TestTimedCampaign's). Bad keys, values and a
// timed run without failures are refused.
func TestSimTimed(t *testing.T) {
	got := simJSON(t, "kary-ntree:k=4,n=2", "--routing", "dfsssp", "--traffic", "uniform", "--load", "0.7", "--links", "10",
		"--timed", "at=30us,detect=5us,route_time=5us,mad_rate=1e6,retry=20us,window=5us", "--max-time", "100us")
	timed, ok := got["timed"].(map[string]any)
	require.True(t, ok, "%v", got)
	assert.Equal(t, 45000.0, timed["tables_ns"])
	assert.Greater(t, timed["packets_lost"].(float64), 0.0)
	assert.Equal(t, timed["packets_lost"], timed["packets_resent"])
	for _, bad := range [][]string{{"--links", "10", "--timed", "at=0s"}, {"--links", "10", "--timed", "x=1"}, {"--timed", "at=1us"}} {
		code, _, errs := run(append([]string{"sim", "kary-ntree:k=4,n=2", "--routing", "dfsssp", "--traffic", "uniform"}, bad...)...)
		assert.Equal(t, 2, code, "%v: %s", bad, errs)
	}
}
