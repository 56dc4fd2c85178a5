package opensm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/routing"
)

const sampleLog = `Nov 21 23:25:33 003628 [4F99E6C0] 0x04 -> dfsssp_remove_deadlocks: Assign each src/dest pair a Virtual Lanes, to remove deadlocks in the routing
Nov 21 23:25:33 029288 [4F99E6C0] 0x02 -> dfsssp_remove_deadlocks: Virtual Lanes needed: 2
Nov 21 23:25:43 702619 [C336E6C0] 0x08 -> vltable_print:    route from src_lid=1 to dest_lid=2 on vl=0
Nov 21 23:25:43 702620 [C336E6C0] 0x08 -> vltable_print:    route from src_lid=3 to dest_lid=2 on vl=1
Nov 21 23:25:43 702620 [C336E6C0] 0x08 -> vltable_print:    route from src_lid=x to dest_lid=2 on vl=1
Nov 21 23:25:43 702621 [C336E6C0] 0x08 -> osm_vl15_post: Posting p_madw = 0x7f0130000b70
Nov 21 23:26:03 842337 [615326C0] 0x02 -> print_destination_distribution: destination lids (base lid) for vl 0:
Nov 21 23:26:03 842338 [615326C0] 0x02 -> print_destination_distribution:   28 (h-s-0-0-0-0)
Nov 21 23:26:03 842339 [615326C0] 0x08 -> osm_vl15_poll: Signalling poller thread
Nov 21 23:26:03 842339 [615326C0] 0x02 -> print_destination_distribution: destination lids (base lid) for vl 1:
Nov 21 23:26:03 842340 [615326C0] 0x02 -> print_destination_distribution:   29 (h-s-1-0-0-0)
Nov 21 23:26:03 842341 [615326C0] 0x02 -> print_destination_distribution:   30 (h-s-2-0-0-0)
`

func TestParseLog(t *testing.T) {
	p, err := parseLog(strings.NewReader(sampleLog))
	require.NoError(t, err)
	assert.Equal(t, map[[2]uint16]uint8{{1, 2}: 0, {3, 2}: 1}, p.pathVLs)
	assert.Equal(t, map[uint16]uint8{28: 0, 29: 1, 30: 1}, p.destVLs)
	assert.NotContains(t, p.text, "0x08 ->", "debug lines are dropped")
	assert.Contains(t, p.text, "Virtual Lanes needed: 2")
	// A second sweep's distribution replaces the first.
	p, err = parseLog(strings.NewReader(sampleLog + "Nov 21 23:26:04 1 [6] 0x02 -> print_destination_distribution: destination lids (base lid) for vl 0:\nNov 21 23:26:04 1 [6] 0x02 -> print_destination_distribution:   29 (x)\n"))
	require.NoError(t, err)
	assert.Equal(t, map[uint16]uint8{29: 0}, p.destVLs)
}

// The engine's time is the span from "building routing with" to "tables
// configured on all switches" of the last sweep, across midnight too; a
// log without the pair leaves it unknown.
func TestParseLogEngineTime(t *testing.T) {
	p, err := parseLog(strings.NewReader(sampleLog))
	require.NoError(t, err)
	assert.Equal(t, -1.0, p.engineMS)
	sweep := func(from, to string) string {
		return "Nov 29 " + from + " [4D] 0x04 -> ucast_mgr_route: building routing with 'dfsssp' routing algorithm...\n" +
			"Nov 29 " + to + " [4D] 0x02 -> osm_ucast_mgr_process: dfsssp tables configured on all switches\n"
	}
	p, err = parseLog(strings.NewReader(sweep("10:06:32 127795", "10:06:35 064930")))
	require.NoError(t, err)
	assert.InDelta(t, 2937.135, p.engineMS, 1e-9)
	p, err = parseLog(strings.NewReader(sweep("10:06:32 127795", "10:06:35 064930") + sweep("23:59:59 900000", "00:00:00 100000")))
	require.NoError(t, err)
	assert.InDelta(t, 200.0, p.engineMS, 1e-9)
}

func TestLogTailFindsMarkerAcrossReads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "osm.log")
	lt := &logTail{path: path, marker: []byte("No routing engine able")}
	assert.False(t, lt.poll(), "missing file")
	require.NoError(t, os.WriteFile(path, []byte("line 1\nERR: No routing eng"), 0o644))
	assert.False(t, lt.poll())
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("ine able to route\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	assert.True(t, lt.poll())
}

// HCAs on one switch share an SL: the majority VL, ties to the lowest.
func TestApplyPathVLsMajority(t *testing.T) {
	net := build(t, "torus:dims=2,hcas=6") // 3 HCAs on each of 2 switches
	tb := routing.NewTables(net, "x")
	a, b := net.HCAsOf(0), net.HCAsOf(1)
	lid := func(i int) uint16 { return net.Nodes[i].LID }
	vls := map[[2]uint16]uint8{}
	for _, h := range a {
		for _, d := range b {
			vls[[2]uint16{lid(h), lid(d)}] = 2
		}
	}
	vls[[2]uint16{lid(a[0]), lid(b[0])}] = 1 // outvoted 2:1
	for _, h := range b {                    // a tie 1:1 among the others → lowest
		vls[[2]uint16{lid(h), lid(a[0])}] = 3
	}
	vls[[2]uint16{lid(b[0]), lid(a[0])}] = 1
	delete(vls, [2]uint16{lid(b[1]), lid(a[0])})
	moved, total := applyPathVLs(net, tb, vls)
	assert.Equal(t, uint8(2), tb.SL(0, lid(b[0])))
	assert.Equal(t, uint8(1), tb.SL(1, lid(a[0])))
	assert.Equal(t, 2, moved)
	assert.Equal(t, 9+3-1, total)
	assert.Equal(t, 3, tb.VLsUsed, "VLs 0-2; the outvoted 3 is not used")
}

// OpenSM's ftree names the switches that fail its topology check on the
// indented lines after the ERR line; the failure reason keeps them.
func TestFirstErrorKeepsContinuationLines(t *testing.T) {
	for _, tc := range []struct{ name, log, want string }{
		{"none", "Nov 25 05:08:32 130487 [D0B916C0] 0x02 -> all fine\n", ""},
		{"one line", "Nov 25 05:08:32 1 [D0] 0x01 -> ucast_mgr_route: ERR 3A0B: ftree: cannot build lid matrices\nNov 25 next\n",
			"ftree: cannot build lid matrices"},
		{"continued",
			"Nov 25 05:08:32 130487 [D0B916C0] 0x01 -> fabric_validate_topology: ERR AB0A: Different number of downward port groups on switches:\n" +
				"       GUID 0x0002c90200000001, LID 1, Index 1.0.0 - 14 port groups\n" +
				"       GUID 0x0002c90200000007, LID 7, Index 1.4.0 - 13 port groups\n" +
				"Nov 25 05:08:32 130506 [D0B916C0] 0x01 -> fabric_validate_topology: ERR AB0D: Fabric topology hasn't been identified as FatTree\n",
			"Different number of downward port groups on switches: GUID 0x0002c90200000001, LID 1, Index 1.0.0 - 14 port groups; GUID 0x0002c90200000007, LID 7, Index 1.4.0 - 13 port groups"},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, firstError(tc.log)) })
	}
}
