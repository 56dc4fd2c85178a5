package routing

import (
	"math/rand/v2"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/fabric"
)

// Every route of the per-packet dragonfly routing arrives, minimal routes
// as short as the switch graph allows between the groups' gate switches,
// non-minimal ones through their intermediate group; VL = hop index keeps
// the union of all routes' channel dependencies acyclic, within 5 VLs on
// complete groups and 8 on Aries.
func TestDragonflyRoutes(t *testing.T) {
	for _, tc := range []struct {
		spec   string
		vls    int
		routes int
	}{
		// 36 switches, one global cable per pair of groups, each switch
		// the gate to 2 groups: a pair of one group has its minimal route
		// and 8 detours, a pair of two groups its minimal route and 7
		// detours. ugal-imb switches a detour whose gate is another switch
		// to the minimal route there: within a group for the 4 detours
		// whose gate is neither end, between groups for the 6 or 5 (the
		// destination group's gate at the source or not) detours per
		// destination group of 4 switches.
		{"dragonfly:a=4,p=2,h=2,g=9", 5, 36*3*(1+8) + 36*32*(1+7) + 36*3*4 + 36*4*(2*6+6*5)},
		// The balanced dragonfly of issue 16 (a = 2p = 2h, 1,056 nodes),
		// each switch the gate to 4 groups.
		{"dragonfly:a=8,p=4,h=4,g=33", 5, 264*7*(1+32) + 264*256*(1+31) + 264*7*24 + 264*8*(4*28+28*27)},
		// 192 switches, 96 cables between the two groups; in a group, row
		// then column: 2 hops. 169,887,552 routes.
		{"aries:groups=2,h=1,p=1", 8, 0},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			if tc.routes == 0 && os.Getenv("FLITSIM_LONG") == "" {
				t.Skip("170 million routes, 40 s: FLITSIM_LONG=1 (make test-long)")
			}
			net, err := fabric.Build(tc.spec)
			require.NoError(t, err)
			d, err := NewDragonfly(net)
			require.NoError(t, err)
			assert.Equal(t, tc.vls, d.VLs)
			n, err := d.Verify()
			require.NoError(t, err)
			if tc.routes > 0 {
				assert.Equal(t, tc.routes, n)
			}
			t.Logf("%d routes walked", n)
		})
	}
}

// The candidates follow seeds/004 §2.2: two minimal routes, two through
// intermediate groups other than the source's and destination's; on a
// balanced dragonfly a minimal route between groups takes at most 3 hops
// and a non-minimal one at most 5, each hop one VL up.
func TestDragonflyCandidates(t *testing.T) {
	net, d := newDragonflyT(t, "dragonfly:a=4,p=2,h=2,g=9")
	rng := rand.New(rand.NewPCG(1, 2))
	vias := map[int16]int{}
	for i := 0; i < 2000; i++ {
		src, dst := rng.IntN(36), rng.IntN(36)
		if src == dst {
			continue
		}
		c := d.Candidates(src, dst, rng, nil)
		require.Len(t, c, 4)
		for k, r := range c {
			assert.Equal(t, k < 2, r.Minimal())
			if !r.Minimal() {
				assert.NotEqual(t, d.Group(src), int(r.Via))
				assert.NotEqual(t, d.Group(dst), int(r.Via))
				vias[r.Via]++
			}
			hops := d.Hops(src, dst, r)
			switch {
			case d.Group(src) == d.Group(dst) && r.Minimal():
				assert.Equal(t, 1, hops)
			case r.Minimal():
				assert.LessOrEqual(t, hops, 3)
				assert.GreaterOrEqual(t, hops, 1)
			default:
				assert.LessOrEqual(t, hops, 5)
			}
			// The walk's VLs are 0, 1, 2, ... and it passes Via.
			s, seen := src, false
			for vl := 0; s != dst; vl++ {
				p, v := d.Next(s, dst, &r)
				assert.Equal(t, vl, v)
				e, ok := net.Peer(s, p)
				require.True(t, ok)
				s = int(e.Node)
				seen = seen || d.Group(s) == int(r.Via)
			}
			switch {
			case r.Minimal():
				assert.False(t, seen)
			case !seen:
				// A detour whose way out of the group passes the
				// destination's switch ends there: switches eject first.
				assert.Equal(t, d.Group(src), d.Group(dst))
				assert.Equal(t, 1, hops)
			default:
				assert.GreaterOrEqual(t, hops, 2)
			}
		}
	}
	assert.Len(t, vias, 9, "every group serves as an intermediate")
}

// Verify fails when the routes' dependencies close a cycle: on one VL,
// dragonfly routes depend on each other around the groups (minimal routing
// alone needs two VLs, Kim et al.); and when a route is longer than VLs.
func TestDragonflyVerifyFindsCycle(t *testing.T) {
	_, d := newDragonflyT(t, "dragonfly:a=4,p=2,h=2,g=9")
	d.oneVL = true
	_, err := d.Verify()
	assert.ErrorContains(t, err, "have a cycle")
	d.oneVL, d.VLs = false, 1
	_, err = d.Verify()
	assert.ErrorContains(t, err, "more than 1 hops")
}

// Networks the routing cannot serve are refused with the reason.
func TestDragonflyRefuses(t *testing.T) {
	net, err := fabric.Build("torus:dims=3x3")
	require.NoError(t, err)
	_, err = NewDragonfly(net)
	assert.ErrorContains(t, err, "has no groups")
	df, err := fabric.Build("dragonfly:a=2,p=1,h=1,g=3")
	require.NoError(t, err)
	drop := make([]bool, len(df.Links))
	for l := range df.Links {
		drop[l] = df.LinkClass(l) == fabric.ClassRank3 && df.Nodes[df.Links[l].A.Node].Group+df.Nodes[df.Links[l].B.Node].Group == 1
	}
	cut, err := df.Without(drop, nil)
	require.NoError(t, err)
	_, err = NewDragonfly(cut)
	assert.ErrorContains(t, err, "no global cable between groups 0 and 1")
}

// On Aries a route crosses a group in at most two hops (a rank-1 cable in
// the chassis, a rank-2 cable along the column), so a detour takes at most
// 8: the routing needs all 8 VLs.
func TestDragonflyAriesHops(t *testing.T) {
	net, err := fabric.Build("aries:groups=3,h=1,p=1")
	require.NoError(t, err)
	d, err := NewDragonfly(net)
	require.NoError(t, err)
	assert.Equal(t, 8, d.VLs)
	rng := rand.New(rand.NewPCG(3, 4))
	most := 0
	for i := 0; i < 3000; i++ {
		src, dst := rng.IntN(net.NumSwitches), rng.IntN(net.NumSwitches)
		for _, r := range d.Candidates(src, dst, rng, nil) {
			h := d.Hops(src, dst, r)
			if r.Minimal() && d.Group(src) == d.Group(dst) {
				assert.LessOrEqual(t, h, 2)
			}
			if r.Minimal() {
				assert.LessOrEqual(t, h, 5)
			}
			most = max(most, h)
		}
	}
	assert.LessOrEqual(t, most, 8)
	assert.GreaterOrEqual(t, most, 7, "some detours cross three groups far from their gates")
}

// Hops counts a route's hops from the groups' distances; it must give what
// walking the route with Next gives, for every kind of route a packet can
// carry (minimal, detours before and after their intermediate group,
// routes reconsidered after hops, spreading or not) and on a network with
// failed cables, where the lowest-port ways and the gates change.
func TestDragonflyHopsIsTheWalk(t *testing.T) {
	aries, err := fabric.Build("aries:groups=3,h=1,p=1")
	require.NoError(t, err)
	drop := make([]bool, len(aries.Links))
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range drop {
		// About a tenth of the switch-to-switch cables, global ones included.
		l := aries.Links[i]
		if int(l.A.Node) < aries.NumSwitches && int(l.B.Node) < aries.NumSwitches && rng.IntN(10) == 0 {
			drop[i] = true
		}
	}
	cut, err := aries.Without(drop, nil)
	require.NoError(t, err)
	df, err := fabric.Build("dragonfly:a=4,p=2,h=2,g=9")
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		net  *fabric.Network
	}{{"dragonfly", df}, {"aries", aries}, {"aries-cut", cut}} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := NewDragonfly(tc.net)
			require.NoError(t, err)
			S := tc.net.NumSwitches
			rng := rand.New(rand.NewPCG(1, 2))
			checked := 0
			for _, spread := range []bool{false, true} {
				d.Spread = spread
				for i := 0; i < 20000; i++ {
					src, dst := rng.IntN(S), rng.IntN(S)
					for _, r := range d.Candidates(src, dst, rng, nil) {
						r.Spread = SpreadKey(rng.Uint64())
						// From the source, and from each switch the route passes.
						s := src
						for n := 0; n <= d.VLs; n++ {
							require.Equal(t, d.walkHops(s, dst, r), d.Hops(s, dst, r), "%s: %+v from %d to %d", tc.name, r, s, dst)
							checked++
							if s == dst {
								break
							}
							p, _ := d.Next(s, dst, &r)
							e, ok := tc.net.Peer(s, p)
							require.True(t, ok)
							s = int(e.Node)
						}
					}
				}
			}
			t.Logf("%d routes", checked)
		})
	}
}
