package fabric

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func roundTrip(t *testing.T, net *Network) *Network {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, WriteIBNetDiscover(&buf, net))
	back, err := ReadIBNetDiscover(&buf, "roundtrip")
	require.NoError(t, err)
	return back
}

func TestRoundTripEveryGenerator(t *testing.T) {
	specs := []string{
		"mesh:dims=3x3x2,hcas=20,redundancy=2", "torus:dims=4x4", "torus:dims=2x3", "kary-ntree:k=3,n=3",
		"xgft:m=4x3,w=2x3,hcas=30", "kautz:d=2,k=3,redundancy=2", "dragonfly:a=4,p=2,h=2,g=5",
		"random:switches=16,hcas=40,links=40,seed=3", "cascade:groups=2,p=1", "deimos", "taurus", "tsubame2:rail=2",
	}
	for _, s := range specs {
		net, err := Build(s)
		require.NoError(t, err, s)
		back := roundTrip(t, net)
		assert.Empty(t, Diff(net, back), s)
		// Exact: the same node order and cable order, too.
		require.Equal(t, len(net.Nodes), len(back.Nodes))
		for i := range net.Nodes {
			assert.Equal(t, net.Nodes[i].Name, back.Nodes[i].Name)
		}
		assert.Equal(t, net.Links, back.Links, s)
	}
}

// testdata/ibsim-kary-ntree-2-2.topo is what the real ibnetdiscover printed
// when run (under umad2sim) against ibsim loaded with flitsim's netlist of
// kary-ntree:k=2,n=2. Reading it back must give the generated network.
func TestReadRealIBNetDiscoverOfOurNetlist(t *testing.T) {
	want, err := Build("kary-ntree:k=2,n=2")
	require.NoError(t, err)
	got, err := LoadFile("testdata/ibsim-kary-ntree-2-2.topo")
	require.NoError(t, err)
	assert.Empty(t, Diff(want, got))
}

func TestReadHandWrittenSample(t *testing.T) {
	net, err := LoadFile("testdata/handwritten-cluster.topo")
	require.NoError(t, err)
	assert.Equal(t, 2, net.NumSwitches)
	assert.Equal(t, 3, net.NumHCAs())
	assert.Equal(t, 2, net.SwitchLinks(), "two parallel cables leaf1-spine")
	byName := net.ByName()
	leaf := byName["ibswitch-leaf1"]
	assert.Equal(t, uint64(0x8f10500200134), net.Nodes[leaf].GUID)
	assert.Equal(t, uint16(1), net.Nodes[leaf].LID)
	n3 := byName["node3 HCA-1"]
	assert.Equal(t, uint16(12), net.Nodes[n3].LID)
	assert.Equal(t, uint64(0x2c9030000aa12), net.Nodes[n3].PortGUID)
	assert.Equal(t, 2, net.HCAPort(n3), "node3 uses its port 2")
	sw, port := net.HCASwitch(n3)
	assert.Equal(t, "ibswitch-spine", net.Nodes[sw].Name)
	assert.Equal(t, 5, port)
	back := roundTrip(t, net)
	assert.Empty(t, Diff(net, back))
}

func TestReadShortNetlist(t *testing.T) {
	net, err := LoadFile("testdata/ibsim-short.net")
	require.NoError(t, err)
	assert.Equal(t, 2, net.NumSwitches)
	assert.Equal(t, 3, net.NumHCAs())
	assert.Equal(t, 2, net.SwitchLinks())
	// No LIDs in the file: assigned switches first.
	assert.Equal(t, uint16(1), net.Nodes[0].LID)
	assert.Equal(t, "Switch1", net.Nodes[0].Name)
}

func TestMalformedFiles(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		line       int
		want       string
	}{
		{"garbage", "Switch 4 \"a\"\nthis is not a port\n", 2, "cannot parse"},
		{"port range", "Switch 4 \"a\"\n[5]\t\"b\"[1]\n\nCa 1 \"b\"\n[1]\t\"a\"[5]\n", 2, "ports 1..4"},
		{"unknown peer", "Switch 4 \"a\"\n[1]\t\"zz\"[1]\n", 2, "unknown node \"zz\""},
		{"dup node", "Switch 4 \"a\"\n\nSwitch 4 \"a\"\n", 3, "defined twice"},
		{"conflict", "Switch 4 \"a\"\n[1]\t\"b\"[1]\n\nSwitch 4 \"b\"\n[1]\t\"a\"[2]\n", 5, "already cabled"},
		{"port outside block", "[1]\t\"b\"[1]\n", 1, "outside a node block"},
		{"bad radix", "Switch 0 \"a\"\n", 1, "not in 1..255"},
		{"router", "Rt 4 \"r\"\n", 1, "routers"},
		{"empty", "# nothing\n", 1, "no Switch or Ca"},
		{"hca pair", "Ca 1 \"a\"\n[1]\t\"b\"[1]\n\nCa 1 \"b\"\n[1]\t\"a\"[1]\n", 5, "no switch"},
		{"bad lid", "Switch 4 \"a\"\t# \"a\" enhanced port 0 lid 70000 lmc 0\n", 1, "LID"},
		{"trailing", "Switch 4 \"a\" junk\n", 1, "unexpected"},
		{"include", "include other.net\n", 1, "not supported"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadIBNetDiscover(strings.NewReader(tc.text), "bad.topo")
			require.Error(t, err)
			var pe *ParseError
			require.True(t, errors.As(err, &pe), "want a ParseError, got %T: %v", err, err)
			assert.Equal(t, "bad.topo", pe.File)
			assert.Equal(t, tc.line, pe.Line, err.Error())
			assert.Contains(t, err.Error(), tc.want)
			assert.True(t, strings.HasPrefix(err.Error(), "bad.topo:"), err.Error())
		})
	}
}

// FuzzReadIBNetDiscover: the reader never panics, and whatever it accepts
// writes out and reads back to the same network.
func FuzzReadIBNetDiscover(f *testing.F) {
	// Small seeds: the fuzzer minimizes every interesting input byte by
	// byte, which crawls on whole files; the files have unit tests.
	f.Add("switchguid=0x8f10500200134(8f10500200134)\nSwitch\t36 \"S-0008f10500200134\"\t\t# \"leaf\" enhanced port 0 lid 1 lmc 0\n" +
		"[4]\t\"H-001e0bffff4cafc0\"[1](1e0bffff4cafc1) \t\t# \"node2\" lid 3 4xQDR\n\n" +
		"caguid=0x1e0bffff4cafc0\nCa\t2 \"H-001e0bffff4cafc0\"\t\t# \"node2\"\n" +
		"[1](1e0bffff4cafc1) \t\"S-0008f10500200134\"[4]\t\t# lid 3 lmc 0 \"leaf\" lid 1 4xQDR\n")
	f.Add("Switch 8 \"s1\"\n[3]\t\"s2\"[3]\n[4]\t\"s2\"[4]\tw=4\n\nSwitch 8 \"s2\"\n[3]\t\"s1\"[3]\n\nHca 2 \"h\"\n[2]\t\"s1\"[1]\n")
	f.Add("Switch 4 \"a\"\n[1]\t\"b\"[1]\n\nCa 1 \"b\"\n[1]\t\"a\"[1]\n")
	f.Fuzz(func(t *testing.T, text string) {
		net, err := ReadIBNetDiscover(strings.NewReader(text), "fuzz")
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error without file:line: %v", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := WriteIBNetDiscover(&buf, net); err != nil {
			return // names that cannot be written are reported, not panicked on
		}
		back, err := ReadIBNetDiscover(&buf, "again")
		if err != nil {
			t.Fatalf("re-reading written network: %v\n%s", err, buf.String())
		}
		if d := Diff(net, back); d != "" {
			t.Fatalf("round trip differs: %s", d)
		}
	})
}

func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"torus:dims=5x5,hcas=275,redundancy=6", "kary-ntree:k=4,n=2", "random:switches=8,links=12,seed=2", "file:x", "dragonfly:a=3,p=1,h=1,g=4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sp, err := ParseSpec(s)
		if err != nil || sp.Kind == "file" {
			return
		}
		// Keep generated sizes small so the fuzzer explores syntax, not memory.
		for _, kv := range sp.Params {
			if len(kv.Value) > 3 {
				return
			}
		}
		if sp.Kind == "tsubame2" || sp.Kind == "taurus" || sp.Kind == "deimos" || sp.Kind == "cascade" {
			return
		}
		_, _ = BuildSpec(sp)
	})
}

// Netlists a simulation cannot use are refused at the line at fault: a
// switch cabled to itself, an HCA without a cable, a GUID given twice (at
// the second node, not the end of the file).
func TestReadIBNetDiscoverRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		line       int
		msg        string
	}{
		{"loop", "Switch\t4 \"a\"\n[1]\t\"a\"[2]\n", 2, "cabled to its own port"},
		{"uncabled HCA", "Switch\t4 \"a\"\n[1]\t\"h1\"[1]\n\nCa\t1 \"h1\"\n[1]\t\"a\"[1]\n\nCa\t1 \"h2\"\n", 7, "has no cable"},
		{"duplicate GUID", "switchguid=0x10\nSwitch\t4 \"a\"\n[1]\t\"h1\"[1]\n\nswitchguid=0x10\nSwitch\t4 \"b\"\n[1]\t\"h2\"[1]\n\nCa\t1 \"h1\"\n[1]\t\"a\"[1]\n\nCa\t1 \"h2\"\n[1]\t\"b\"[1]\n", 6, "has GUID"},
	} {
		_, err := ReadIBNetDiscover(strings.NewReader(tc.text), "x.net")
		require.Error(t, err, tc.name)
		var pe *ParseError
		require.ErrorAs(t, err, &pe, tc.name)
		assert.Equal(t, tc.line, pe.Line, "%s: %v", tc.name, err)
		assert.Contains(t, err.Error(), tc.msg, tc.name)
	}
}

// Cable rates as ibnetdiscover (4xDDR after the comment's LIDs) and ibsim
// (w= s=) state them: read per cable, written back, kept by Without; a
// cable listed from both ends needs one rate; a node description that
// looks like a rate is not one.
func TestReadCableRates(t *testing.T) {
	const file = "Switch 8 \"S1\" # \"4xSDR spine\" lid 1\n" +
		"[1] \"H1\"[1] # \"H1 4xEDR\" lid 3 1xQDR\n" +
		"[2] \"S2\"[2] w=2 s=2 # \"S2\" lid 2 4xDDR\n" +
		"[3] \"S2\"[3] # \"S2\" lid 2 4xFDR\n" +
		"[4] \"S2\"[4]\n\n" +
		"Switch 8 \"S2\" # \"S2\" lid 2\n" +
		"[2] \"S1\"[2] # \"S1\" lid 1 4xDDR\n" +
		"[3] \"S1\"[3]\n" +
		"[1] \"H2\"[1] # \"H2\" lid 4 4xQDR\n\n" +
		"Ca 1 \"H1\" # \"H1\"\n[1] \"S1\"[1] # lid 3 lmc 0 \"S1\" lid 1 1xQDR\n\n" +
		"Ca 1 \"H2\" # \"H2\"\n[1] \"S2\"[1] # lid 4 lmc 0 \"S2\" lid 2\n"
	net, err := ReadIBNetDiscover(strings.NewReader(file), "rates.topo")
	require.NoError(t, err)
	byName := net.ByName()
	rate := func(node string, port int) float64 { return net.Links[net.LinkAt(byName[node], port)].Gbps }
	assert.Equal(t, 8.0, rate("S1", 1), "1xQDR")
	assert.Equal(t, 16.0, rate("S1", 2), "4xDDR, and w=2 s=2 agree")
	assert.InDelta(t, 54.545454, rate("S1", 3), 1e-5, "4xFDR: 4 × 14.0625 × 64/66")
	assert.Zero(t, rate("S1", 4), "no rate stated")
	assert.Equal(t, 32.0, rate("H2", 1))
	assert.Equal(t, map[string]int{"8": 1, "16": 1, "54.54545454545455": 1, "32": 1, "": 1}, Summarize(net).Rates)

	back := roundTrip(t, net)
	assert.Equal(t, net.Links, back.Links, "written and read back, rates and all")
	less, err := net.Without([]bool{true, false, false, false, false}, nil)
	require.NoError(t, err)
	for _, lk := range less.Links {
		assert.Equal(t, net.Links[net.LinkAt(byName[net.Nodes[lk.A.Node].Name], int(lk.A.Port))].Gbps, lk.Gbps)
	}

	for _, tc := range []struct{ line, want string }{
		{`[2] "S2"[2] # "S2" lid 2 4xQDR`, `rates.topo:8: "S2" port 2 runs at 16 Gbit/s here and at 32 at line 3`},
		{`[2] "S2"[2] # "S2" lid 2 4xXDR`, `rates.topo:3: "S1" port 2: link speed "XDR": want one of SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR`},
		{`[2] "S2"[2] # "S2" lid 2 3xQDR`, `rates.topo:3: "S1" port 2: link width 3x: want 1x, 2x, 4x, 8x or 12x`},
		{`[2] "S2"[2] w=2 s=8`, `rates.topo:3: "S1" port 2: ibsim speed code s=8: want 1 (SDR), 2 (DDR) or 4 (QDR)`},
		{`[2] "S2"[2] w=1 s=4 # 4xQDR`, `rates.topo:3: "S1" port 2: 4xQDR and w=1 s=4 state different rates (32 and 8 Gbit/s)`},
	} {
		bad := strings.Replace(file, "[2] \"S2\"[2] w=2 s=2 # \"S2\" lid 2 4xDDR", tc.line, 1)
		_, err := ReadIBNetDiscover(strings.NewReader(bad), "rates.topo")
		assert.EqualError(t, err, tc.want, tc.line)
	}
}

func TestRateNames(t *testing.T) {
	for _, name := range []string{"1xSDR", "4xDDR", "4xQDR", "12xQDR", "4xFDR10", "4xFDR", "4xEDR", "4xHDR", "4xNDR"} {
		w, sp, _ := strings.Cut(name, "x")
		width, _ := strconv.Atoi(w)
		g, err := RateGbps(width, sp)
		require.NoError(t, err, name)
		assert.Equal(t, name, RateName(g), "%s = %g Gbit/s", name, g)
	}
	assert.Equal(t, "", RateName(33))
}

// Switches that keep their vendor's default description share it: they
// are named by their ids (which hold their GUIDs), the nodes with a
// description of their own by it, and the fabric reads.
func TestSharedDescriptionsNamedByID(t *testing.T) {
	const dump = `switchguid=0x10
Switch	2 "S-0000000000000010"	# "Aspen Switch" lid 1
[1]	"H-0000000000000100"[1]	# "node1 HCA-1" lid 3
[2]	"S-0000000000000011"[2]	# "Aspen Switch" lid 2

switchguid=0x11
Switch	2 "S-0000000000000011"	# "Aspen Switch" lid 2
[1]	"H-0000000000000101"[1]	# "node2 HCA-1" lid 4
[2]	"S-0000000000000010"[2]	# "Aspen Switch" lid 1

Ca	1 "H-0000000000000100"	# "node1 HCA-1"
[1]	"S-0000000000000010"[1]	# lid 3 lmc 0 "Aspen Switch" lid 1

Ca	1 "H-0000000000000101"	# "node2 HCA-1"
[1]	"S-0000000000000011"[1]	# lid 4 lmc 0 "Aspen Switch" lid 2
`
	net, err := ReadIBNetDiscover(strings.NewReader(dump), "dump")
	require.NoError(t, err)
	var names []string
	for _, n := range net.Nodes {
		names = append(names, n.Name)
	}
	assert.ElementsMatch(t, []string{"S-0000000000000010", "S-0000000000000011", "node1 HCA-1", "node2 HCA-1"}, names)
	assert.Len(t, net.Links, 3)
}
