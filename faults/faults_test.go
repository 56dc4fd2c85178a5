package faults

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/fabric"
)

// The balanced topologies of Table 4.2.
var table42 = []string{
	"mesh:dims=5x5,hcas=275,redundancy=6",
	"mesh:dims=3x3x3,hcas=270,redundancy=4",
	"torus:dims=5x5,hcas=275,redundancy=6",
	"torus:dims=3x3x3,hcas=270,redundancy=4",
	"kautz:d=2,k=4,hcas=264,redundancy=6",
	"kary-ntree:k=16,n=2",
	"xgft:m=22,w=11,hcas=264",
	"dragonfly:a=10,p=5,h=5,g=4,hcas=280",
	"random:switches=32,hcas=256,links=256,radix=36,seed=1",
}

func build(t testing.TB, spec string) *fabric.Network {
	t.Helper()
	net, err := fabric.Build(spec)
	require.NoError(t, err)
	return net
}

// hcasConnected checks with a plain BFS over the resulting network that
// every HCA reaches every other.
func hcasConnected(net *fabric.Network) bool {
	if net.NumHCAs() == 0 {
		return true
	}
	seen := make([]bool, len(net.Nodes))
	q := []int{net.NumSwitches}
	seen[net.NumSwitches] = true
	for len(q) > 0 {
		u := q[0]
		q = q[1:]
		for p := 1; p <= net.Nodes[u].Radix; p++ {
			if e, ok := net.Peer(u, p); ok && !seen[e.Node] {
				seen[e.Node] = true
				q = append(q, int(e.Node))
			}
		}
	}
	for h := net.NumSwitches; h < len(net.Nodes); h++ {
		if !seen[h] {
			return false
		}
	}
	return true
}

func TestSameSeedSameRecord(t *testing.T) {
	net := build(t, "kary-ntree:k=16,n=2")
	spec := Spec{LinkPercent: 10, Seed: 42}
	a1, r1, err := Inject(net, spec)
	require.NoError(t, err)
	a2, r2, err := Inject(net, spec)
	require.NoError(t, err)
	assert.Equal(t, r1, r2)
	assert.Empty(t, fabric.Diff(a1, a2))
	spec.Seed = 43
	_, r3, err := Inject(net, spec)
	require.NoError(t, err)
	assert.NotEqual(t, r1.Links, r3.Links, "another seed fails other cables")
}

// 100 seeds × {1,5,10,40} % on every Table 4.2 topology: counts follow
// ⌊p·cables⌋ and no HCA pair is ever disconnected.
func TestNonCriticalOnTable42(t *testing.T) {
	seeds := 100
	if testing.Short() {
		seeds = 10
	}
	for _, spec := range table42 {
		net := build(t, spec)
		cables := net.SwitchLinks()
		for _, pct := range []float64{1, 5, 10, 40} {
			want := int(pct * float64(cables) / 100)
			for seed := 1; seed <= seeds; seed++ {
				after, rec, err := Inject(net, Spec{LinkPercent: pct, Seed: uint64(seed)})
				require.NoError(t, err, "%s %g%% seed %d", spec, pct, seed)
				require.Len(t, rec.Links, want, "%s %g%%", spec, pct)
				require.Equal(t, cables-want, after.SwitchLinks())
				require.Equal(t, net.NumHCAs(), after.NumHCAs())
				require.True(t, hcasConnected(after), "%s %g%% seed %d disconnected HCAs", spec, pct, seed)
			}
		}
	}
}

func TestCountsFollowFloor(t *testing.T) {
	net := build(t, "kary-ntree:k=16,n=2") // 256 cables
	for _, tc := range []struct {
		pct  float64
		want int
	}{{1, 2}, {3, 7}, {5, 12}, {10, 25}, {20, 51}, {40, 102}, {0, 0}} {
		n, _, err := Spec{LinkPercent: tc.pct}.Counts(net)
		require.NoError(t, err)
		assert.Equal(t, tc.want, n, "%g %% of 256", tc.pct)
	}
	// Exact decimal fractions are not lost to binary floating point.
	n, _, err := Spec{LinkPercent: 3}.Counts(build(t, "random:switches=10,hcas=10,links=100,seed=1"))
	require.NoError(t, err)
	assert.Equal(t, 3, n, "3 % of 100")
}

func TestFailedCablesAreTheRecordedOnes(t *testing.T) {
	net := build(t, "torus:dims=4x4,redundancy=2")
	after, rec, err := Inject(net, Spec{LinkPercent: 25, Seed: 5})
	require.NoError(t, err)
	idx := after.ByName()
	for _, l := range rec.Links {
		a := idx[l.A]
		assert.Equal(t, -1, after.LinkAt(a, l.PortA), "%s port %d should be dark", l.A, l.PortA)
		b := idx[l.B]
		assert.Equal(t, -1, after.LinkAt(b, l.PortB))
		orig := net.ByName()
		e, ok := net.Peer(orig[l.A], l.PortA)
		require.True(t, ok)
		assert.Equal(t, l.B, net.Nodes[e.Node].Name, "the record names both ends of one cable")
	}
	// Everything else is untouched: same LIDs and GUIDs.
	for i := range after.Nodes {
		j := net.ByName()[after.Nodes[i].Name]
		assert.Equal(t, net.Nodes[j].LID, after.Nodes[i].LID)
		assert.Equal(t, net.Nodes[j].GUID, after.Nodes[i].GUID)
	}
}

func TestSwitchFailures(t *testing.T) {
	net := build(t, "kary-ntree:k=16,n=2")
	after, rec, err := Inject(net, Spec{SwitchPercent: 10, Seed: 1})
	require.NoError(t, err)
	assert.Len(t, rec.Switches, 3, "⌊10 % of 32⌋")
	assert.Equal(t, 29, after.NumSwitches)
	assert.Equal(t, 256, after.NumHCAs(), "only HCA-free switches (roots) fail by default")
	for _, s := range rec.Switches {
		assert.True(t, strings.HasPrefix(s, "l1-"), "root switch expected, got %s", s)
	}
	assert.Equal(t, 256-3*16, after.SwitchLinks())

	// A torus has HCAs on every switch: switch failures need take_hcas.
	torus := build(t, "torus:dims=4x4x3,hcas=192")
	_, _, err = Inject(torus, Spec{SwitchPercent: 5, Seed: 1})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "take_hcas")
	after, rec, err = Inject(torus, Spec{SwitchPercent: 2.1, Seed: 1, TakeHCAs: true})
	require.NoError(t, err)
	require.Len(t, rec.Switches, 1)
	assert.Len(t, rec.RemovedHCAs, 4)
	assert.Equal(t, 188, after.NumHCAs())
	assert.True(t, hcasConnected(after))
}

func TestMixedRatio(t *testing.T) {
	net := build(t, "tsubame2")
	nl, ns, err := Spec{MixedPercent: 8, RatioSwitches: 1, RatioLinks: 13}.Counts(net)
	require.NoError(t, err)
	total := 310 // ⌊8 % of (3,621 cables + 258 switches)⌋
	assert.Equal(t, total, nl+ns)
	assert.Equal(t, 22, ns, "round(310/14)")
	after, rec, err := Inject(net, Spec{MixedPercent: 8, RatioSwitches: 1, RatioLinks: 13, Seed: 3})
	require.NoError(t, err)
	assert.Len(t, rec.Switches, ns)
	assert.Len(t, rec.Links, nl)
	assert.Equal(t, 1555, after.NumHCAs())
	assert.True(t, hcasConnected(after))
}

// A critical draw is redrawn and counted: on a ring every switch holds an
// HCA and two cut cables disconnect it, so 2 of 5 cables can never fail.
func TestRedrawsCounted(t *testing.T) {
	net := build(t, "torus:dims=5,hcas=5")
	_, rec, err := Inject(net, Spec{LinkPercent: 20, Seed: 1}) // 1 cable: never critical
	require.NoError(t, err)
	assert.Zero(t, rec.Redrawn)
	_, _, err = Inject(net, Spec{LinkPercent: 40, Seed: 1}) // 2 cables: always critical
	require.Error(t, err)
	assert.Contains(t, err.Error(), "without disconnecting")
	// On a 2-redundant ring any 2 cables may fail unless they are a parallel
	// pair... which splits nothing either: a ring minus one segment is a path.
	redrawn := 0
	net2 := build(t, "torus:dims=6,hcas=6,redundancy=2")
	for seed := uint64(1); seed <= 30; seed++ {
		after, rec, err := Inject(net2, Spec{LinkPercent: 34, Seed: seed}) // 4 of 12
		require.NoError(t, err)
		require.True(t, hcasConnected(after))
		redrawn += rec.Redrawn
	}
	assert.Positive(t, redrawn, "some draws must have been critical and redrawn")
}

func TestFixedList(t *testing.T) {
	net := build(t, "kary-ntree:k=4,n=2")
	text := "# a comment\nlink l0-0 1\nswitch l1-3\nlink l0-1 l1-0  # by switch pair\n"
	fx, err := ParseFixed(strings.NewReader(text), "fail.txt")
	require.NoError(t, err)
	require.Len(t, fx, 3)
	after, rec, err := Inject(net, Spec{Fixed: fx})
	require.NoError(t, err)
	assert.Equal(t, []string{"l1-3"}, rec.Switches)
	require.Len(t, rec.Links, 2)
	assert.Equal(t, "l0-0", rec.Links[0].A)
	assert.Equal(t, 7, after.NumSwitches)
	assert.Equal(t, 16-4-2, after.SwitchLinks())

	for _, tc := range []struct{ text, want string }{
		{"break l0-0\n", "fail.txt:1: want"},
		{"\n\nlink l0-0 999\n", "fail.txt:3: port 999"},
	} {
		_, err := ParseFixed(strings.NewReader(tc.text), "fail.txt")
		require.Error(t, err)
		assert.Contains(t, err.Error(), tc.want)
	}
	for _, tc := range []struct{ text, want string }{
		{"switch nosuch\n", "no node"},
		{"switch h-l0-0-0\n", "is an HCA"},
		{"link l0-0 5\n", "HCA cable"},
		{"link l0-0 l0-1\n", "no live cable"},
	} {
		fx, err := ParseFixed(strings.NewReader(tc.text), "fail.txt")
		require.NoError(t, err)
		_, _, err = Inject(net, Spec{Fixed: fx})
		require.Error(t, err, tc.text)
		assert.Contains(t, err.Error(), tc.want)
		assert.Contains(t, err.Error(), "fail.txt:1")
	}
}

func TestBadPercentages(t *testing.T) {
	net := build(t, "torus:dims=3x3")
	for _, s := range []Spec{{LinkPercent: -1}, {LinkPercent: 101}, {MixedPercent: 5}} {
		_, _, err := Inject(net, s)
		assert.Error(t, err, fmt.Sprintf("%+v", s))
	}
}

func FuzzParseFixed(f *testing.F) {
	f.Add("link a 1\nswitch b\nlink a b\n")
	f.Add("# c\n\nswitch 0x0002c90200000001\n")
	net, _ := fabric.Build("kary-ntree:k=3,n=2")
	f.Fuzz(func(t *testing.T, text string) {
		fx, err := ParseFixed(strings.NewReader(text), "fuzz")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz") {
				t.Fatalf("error without location: %v", err)
			}
			return
		}
		after, _, err := Inject(net, Spec{Fixed: fx})
		if err == nil && !hcasConnected(after) {
			t.Fatal("a fixed list disconnected HCAs without an error")
		}
	})
}

// Failures confined to one level of a tree (seeds/001 §4.3.1): on a
// 4-ary 3-tree (16 switches a level, 64 cables between levels 0-1 and
// 64 between 1-2), 25 % at level 1 fails 16 of the 64 cables between
// levels 1 and 2 and nothing else; 25 % of switches at level 2 fails 4
// of its 16 spines. A fabric without tree levels refuses a level.
func TestLevelFailures(t *testing.T) {
	net := build(t, "kary-ntree:k=4,n=3")
	one, two := 1, 2
	_, rec, err := Inject(net, Spec{LinkPercent: 25, Seed: 3, Level: &one})
	require.NoError(t, err)
	require.Len(t, rec.Links, 16)
	byName := net.ByName()
	for _, l := range rec.Links {
		a, b := net.Nodes[byName[l.A]].Level, net.Nodes[byName[l.B]].Level
		assert.Equal(t, [2]int{1, 2}, [2]int{min(a, b), max(a, b)}, "%v", l)
	}
	_, rec, err = Inject(net, Spec{SwitchPercent: 25, Seed: 3, Level: &two})
	require.NoError(t, err)
	require.Len(t, rec.Switches, 4)
	for _, s := range rec.Switches {
		assert.Equal(t, 2, net.Nodes[byName[s]].Level, s)
	}
	_, _, err = Inject(build(t, "torus:dims=4x4"), Spec{LinkPercent: 10, Level: &one})
	assert.ErrorContains(t, err, "no switches of that tree level")
}
