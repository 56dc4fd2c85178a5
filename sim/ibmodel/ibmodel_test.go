package ibmodel

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/fabric"
	"flitsim/routing"
	"flitsim/sim"
	"flitsim/traffic"
)

func inputs(t *testing.T, spec, engine string) Inputs {
	t.Helper()
	net, err := fabric.Build(spec)
	require.NoError(t, err)
	tb, err := routing.Compute(engine, net, routing.DefaultOptions())
	require.NoError(t, err)
	hw := fabric.DefaultHardware()
	return Inputs{Net: net, Tables: tb, HW: hw, Traffic: traffic.Spec{Kind: traffic.Exchange, JobTraffic: traffic.JobTraffic{MessageBytes: 2048, Load: 1}}, Seed: 1,
		SimTimePs: 1e9, Patched: true}
}

// The network the model gets is flitsim's: every cable once, every
// switch with its cabled ports numbered 0..k−1, every forwarding entry
// the tables' port in that numbering, every HCA's destinations flitsim's
// exchange order in LIDs.
func TestWriteTranslatesNetworkAndTables(t *testing.T) {
	in := inputs(t, "kary-ntree:k=2,n=2", "minhop")
	dir := t.TempDir()
	lay, err := Write(dir, in)
	require.NoError(t, err)
	assert.Equal(t, 4, lay.HCAs)
	net := in.Net
	ned, err := os.ReadFile(filepath.Join(dir, Network+".ned"))
	require.NoError(t, err)
	assert.Equal(t, len(net.Links), strings.Count(string(ned), "<-->")/2, "one connection per cable")
	assert.Contains(t, string(ned), "speed = 10Gbps;", "32 Gbit/s is 4X at 10 Gbit/s with 8b/10b")
	assert.Contains(t, string(ned), "delay = 42.7ns;", "7 m at 6.1 ns/m")
	fdbs, err := os.ReadFile(filepath.Join(dir, Network+".fdbs"))
	require.NoError(t, err)
	vec := map[int][]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(fdbs)), "\n") {
		idx, vals, ok := strings.Cut(l, ":")
		require.True(t, ok, l)
		s, err := strconv.Atoi(strings.TrimSpace(idx))
		require.NoError(t, err)
		vec[s] = append(vec[s], strings.Fields(vals)...)
	}
	ports := compactPorts(net)
	for s := 0; s < net.NumSwitches; s++ {
		require.Len(t, vec[s], int(net.MaxLID())+1)
		for lid, v := range vec[s] {
			p := int(in.Tables.Port(s, uint16(lid)))
			want := "255"
			if p > 0 && p != int(routing.NoPath) {
				want = strconv.Itoa(ports[s][p])
			}
			assert.Equal(t, want, v, "switch %d LID %d", s, lid)
		}
	}
	seq, err := os.ReadFile(filepath.Join(dir, "dst.seq"))
	require.NoError(t, err)
	first := strings.Fields(strings.SplitN(string(seq), "\n", 2)[0])
	lid := func(h int) string { return strconv.Itoa(int(net.Nodes[net.NumSwitches+h].LID)) }
	assert.Equal(t, []string{"0:", lid(1), lid(3), lid(2)}, first, "exchange order +1, −1, +2")
	ini, err := os.ReadFile(lay.INI)
	require.NoError(t, err)
	for _, want := range []string{"**.msgMtuLen = 2074B", "**.msgLength = 2074B", `**.H_0.app.dstMode = "seq_once"`,
		"**SW**.vlarb.coreFreq = 1200000000Hz", "**SW**.ibuf.maxStatic* = 128", "**.sink.hiccupDuration = 0.01us", "**.sink.hiccupDelay = 0.09us"} {
		assert.Contains(t, string(ini), want)
	}
	assert.Equal(t, int64(4*3*33), lay.Flits, "4 HCAs × 3 messages × 33 flits")
}

// What the model cannot run is refused, saying why.
func TestWriteRefuses(t *testing.T) {
	in := inputs(t, "kary-ntree:k=2,n=2", "minhop")
	in.HW.NICWindow = 4
	_, err := Write(t.TempDir(), in)
	assert.ErrorContains(t, err, "NIC window")
	in = inputs(t, "kary-ntree:k=2,n=2", "minhop")
	in.Traffic.MessageBytes = 3000
	_, err = Write(t.TempDir(), in)
	assert.ErrorContains(t, err, "whole number")
	in = inputs(t, "torus:dims=4x4", "dfsssp")
	in.Patched = false
	_, err = Write(t.TempDir(), in)
	assert.ErrorContains(t, err, "SLs other than 0")
}

// A finite traffic run that ends when done tells the model's sinks every
// flit the exchange sends: 4 HCAs × 3 destinations × one packet of 2048
// bytes + headers in 64-byte flits; an infinite one, and a run that does
// not ask, set no end; the release refuses it.
func TestWriteEndsWhenDone(t *testing.T) {
	in := inputs(t, "kary-ntree:k=2,n=2", "minhop")
	in.EndWhenDone = true
	dir := t.TempDir()
	lay, err := Write(dir, in)
	require.NoError(t, err)
	flits := int64(4 * 3 * in.HW.PacketFlits(2048))
	assert.Equal(t, flits, lay.Flits)
	ini, err := os.ReadFile(lay.INI)
	require.NoError(t, err)
	assert.Contains(t, string(ini), fmt.Sprintf("**.sink.endAfterFlits = %d\n", flits))
	in.EndWhenDone = false
	lay, err = Write(t.TempDir(), in)
	require.NoError(t, err)
	ini, err = os.ReadFile(lay.INI)
	require.NoError(t, err)
	assert.NotContains(t, string(ini), "endAfterFlits")
	in.EndWhenDone, in.Patched = true, false
	_, err = Write(t.TempDir(), in)
	assert.ErrorContains(t, err, "patched model")
}

// The model's sinks count every flit at its full 64 bytes (it has no
// shorter last flit), so its payload share of a 2,048-byte packet with
// 26 bytes of headers is 2048/2112, not flitsim's 2048/2074; and its
// uniform gaps keep flitsim's message rate, whose wire time is the
// packet's bytes (518.5 ns at 4X QDR) where the model's is 33 flits
// (528 ns).
func TestModelWholeFlits(t *testing.T) {
	hw := fabric.DefaultHardware()
	require.Equal(t, 26, hw.HeaderBytes)
	require.True(t, hw.WireBytes)
	for _, c := range []struct {
		msg, bytes int
	}{
		{2048, 33 * 64},       // 2,074 bytes: 33 flits
		{20480, 10 * 33 * 64}, // ten packets
		{38, 64},              // 64 bytes with headers: one flit
		{39, 128},             // 65: two
	} {
		assert.Equal(t, c.bytes, ModelBytes(hw, c.msg), "%d bytes", c.msg)
		assert.InDelta(t, float64(c.msg)/float64(c.bytes), PayloadShare(hw, c.msg), 1e-12, "%d bytes", c.msg)
	}
	in := Inputs{HW: hw, Traffic: traffic.Spec{Kind: traffic.Uniform, JobTraffic: traffic.JobTraffic{MessageBytes: 2048, Load: 0.5}}}
	// flitsim's period 518.5/0.5 = 1037 ns; the model is busy 528 ns.
	assert.Equal(t, "16ns + exponential(509.000000ns)", gap(in))
	in.HW.WireBytes = false // 528/0.5 − 528
	assert.Equal(t, "16ns + exponential(528.000000ns)", gap(in))
	in.Traffic.Load = 0.99 // 518.5/0.99 = 523.7 ns < 528: the model saturates
	in.HW.WireBytes = true
	assert.Equal(t, "16ns + exponential(0.000000ns)", gap(in))
	in.Traffic.Load = 1
	assert.Equal(t, "0ns", gap(in))
}

// An OMNeT++ 4 scalar file: quoted and plain names, statistics.
func TestReadScalars(t *testing.T) {
	sca := `version 2
run General-0-20261127
attr network fabric
scalar fabric.H_0.sink "Time last packet consumed:" 1.5e-06
scalar fabric.H_0.sink Sink-BW-MBps 3012.5
scalar fabric.H_1.sink Sink-BW-MBps 2987.5
scalar fabric.H_1.sink "Time last packet consumed:" 2.5e-06
scalar fabric.H_0.sink VL-0-total-flits 66
scalar fabric.H_1.sink VL-0-total-flits 33
statistic fabric.H_0.sink Msg-Network-Latency
field count 2
field mean 1e-06
field min 5e-07
field max 1.5e-06
statistic fabric.H_1.sink Msg-Network-Latency
field count 0
field mean nan
`
	s, err := ReadScalars(strings.NewReader(sca))
	require.NoError(t, err)
	var r Result
	require.NoError(t, s.fill(&r, 2))
	assert.Equal(t, []float64{3012.5, 2987.5}, r.SinkMBps)
	assert.Equal(t, int64(2_500_000), r.LastConsumedPs)
	assert.Equal(t, int64(99), r.Flits)
	assert.Equal(t, Summary{Count: 2, Mean: 1000, Min: 500, Max: 1500}, r.MsgLatency)
	assert.InDelta(t, 6.0, r.ThroughputGBs(), 1e-9)
	assert.Error(t, s.fill(&r, 3), "a sink without results")
}

// With the model built (IBMODEL_HOME), a one-message exchange on one
// switch takes the time both simulators agree on at zero load but for
// the model's delivery at reception start: 16 ns less, one flit time
// (docs/ibmodel.md).
func TestModelZeroLoadLatency(t *testing.T) {
	m, err := Find(os.Getenv("IBMODEL_HOME"))
	if err != nil {
		t.Skip(err)
	}
	net, err := fabric.Build("mesh:dims=1,hcas=2")
	require.NoError(t, err)
	tb, err := routing.Compute("minhop", net, routing.DefaultOptions())
	require.NoError(t, err)
	p := sim.DefaultParams()
	p.HW.HiccupPs = 0
	p.Traffic = traffic.Spec{Kind: traffic.Exchange, JobTraffic: traffic.JobTraffic{MessageBytes: 64, Load: 1}}
	res, err := sim.Run(net, tb, p)
	require.NoError(t, err)
	lay, err := Write(t.TempDir(), Inputs{Net: net, Tables: tb, HW: p.HW, Traffic: p.Traffic, Seed: p.Seed, SimTimePs: 1e8, Patched: m.Patched})
	require.NoError(t, err)
	r, err := m.Run(context.Background(), lay)
	require.NoError(t, err)
	assert.Equal(t, lay.Flits, r.Flits)
	t.Logf("flitsim %.1f ns, model %.1f ns", res.RuntimeNs, float64(r.LastConsumedPs)/1000)
}
