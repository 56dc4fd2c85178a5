package routing

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/fabric"
)

// The modes choose by occupancy × hops plus bias, as issue 16 specifies,
// and Step chooses only before the first hop.
func TestAdaptiveChoice(t *testing.T) {
	_, d := newDragonflyT(t, "dragonfly:a=4,p=2,h=2,g=9")
	// A pair of switches in different groups whose minimal candidates leave
	// the source by another port than both non-minimal ones.
	src, dst, cands := interGroupPair(t, d, 3, 4, func(src, dst int, cands []Route) bool {
		first := func(r Route) int { p, _ := d.Next(src, dst, &r); return p }
		pm, p2, p3 := first(cands[0]), first(cands[2]), first(cands[3])
		return first(cands[1]) == pm && p2 != pm && p3 != pm && p2 != p3
	})
	first := func(r Route) int { p, _ := d.Next(src, dst, &r); return p }
	hm, hn := d.Hops(src, dst, cands[0]), d.Hops(src, dst, cands[2])
	require.Less(t, hm, hn)
	b := Bias{Low: 10, High: 1000, Step: 100}
	// occupancy: q on the minimal routes' first port, qn on the first
	// non-minimal one's, 5·qn on the second's.
	occ := func(q, qn int64) Occupancy {
		return func(p int) int64 {
			switch p {
			case first(cands[0]):
				return q
			case first(cands[2]):
				return qn
			}
			return 5 * qn
		}
	}
	for _, tc := range []struct {
		name  string
		m     Mode
		q, qn int64
		want  int // index into cands
	}{
		{"idle network: minimal", ModeUGAL, 0, 0, 0},
		{"min never detours", ModeMin, 1000, 0, 0},
		{"valiant always detours", ModeValiant, 0, 1000, 2},
		{"ugal detours when occupancy × hops is lower", ModeUGAL, 100, 10, 2},
		{"ugal stays when it is not", ModeUGAL, 10, 10, 0},
		{"a tie goes to the minimal route", ModeUGAL, int64(hn), int64(hm), 0},
		{"low bias: still detours", ModeUGALLow, 100, 10, 2},
		{"high bias: stays", ModeUGALHigh, 100, 10, 0},
		{"high bias: detours under heavy congestion", ModeUGALHigh, 2000, 10, 2},
		{"imb at the source: as ugal", ModeUGALImb, 100, 10, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := d.Choose(tc.m, b, src, dst, cands, occ(tc.q, tc.qn))
			assert.Equal(t, cands[tc.want], got)
		})
	}

	// Step: the route chosen at the source is kept when the packet passes
	// the source again (a Valiant detour within a group does).
	r := Route{}
	p, vl := d.Step(ModeValiant, b, src, src, dst, &r, cands, occ(0, 0))
	assert.Equal(t, first(cands[2]), p)
	assert.Equal(t, 0, vl)
	r2 := r
	d.Step(ModeMin, b, src, src, dst, &r2, cands, occ(0, 0))
	assert.Equal(t, cands[2].Via, r2.Via, "chosen once")
	assert.Equal(t, uint8(2), r2.Hops)
}

// ugal-imb: at a further switch of the source group a detour gives way to
// a cheaper minimal route, the more readily the more hops it has taken;
// other modes, minimal routes and switches outside the source group keep
// their route.
func TestAdaptiveReconsider(t *testing.T) {
	net, d := newDragonflyT(t, "dragonfly:a=4,p=2,h=2,g=9")
	// A detour whose gate is not at its source: after one hop it is at
	// another switch of its source group.
	after := func(src, dst int, r *Route) int {
		p, _ := d.Next(src, dst, r)
		e, _ := net.Peer(src, p)
		return int(e.Node)
	}
	src, dst, cands := interGroupPair(t, d, 5, 6, func(src, dst int, cands []Route) bool {
		r := cands[2]
		return d.Group(after(src, dst, &r)) == d.Group(src)
	})
	r := cands[2]
	s := after(src, dst, &r)
	flat := func(q int64) Occupancy { return func(int) int64 { return q } }
	// Equal occupancy everywhere: the minimal route is shorter.
	got := d.Reconsider(ModeUGALImb, Bias{}, src, s, dst, r, cands, flat(10))
	assert.True(t, got.Minimal())
	assert.Equal(t, r.Hops, got.Hops, "the hops taken stay")
	for _, m := range []Mode{ModeUGAL, ModeUGALHigh, ModeMin, ModeValiant} {
		assert.Equal(t, r, d.Reconsider(m, Bias{}, src, s, dst, r, cands, flat(10)), m.String())
	}
	// No occupancy: every cost is the bias alone; a step makes the
	// detour dearer.
	assert.Equal(t, r, d.Reconsider(ModeUGALImb, Bias{}, src, s, dst, r, cands, flat(0)))
	assert.True(t, d.Reconsider(ModeUGALImb, Bias{Step: 1}, src, s, dst, r, cands, flat(0)).Minimal())
}

// The adaptive engines route only group topologies, with enough VLs, and
// their tables verify deadlock-free with the routing function's VLs.
func TestAdaptiveEngines(t *testing.T) {
	net, err := fabric.Build("dragonfly:a=4,p=2,h=2,g=9")
	require.NoError(t, err)
	for _, m := range ModeNames() {
		tb, err := Compute(m, net, Options{VLs: 8})
		require.NoError(t, err, m)
		require.NotNil(t, tb.Adaptive)
		assert.Equal(t, m, tb.Adaptive.Mode.String())
		assert.Equal(t, 4, tb.MaxVL(net))
		v, err := Verify(net, tb)
		require.NoError(t, err)
		assert.True(t, v.OK(), "%+v", v)
		assert.Equal(t, 5, v.VLsUsed)
		_, err = tb.Adaptive.Verify() // what v.DeadlockFree takes for granted
		require.NoError(t, err)
	}
	_, err = Compute("ugal", net, Options{VLs: 4})
	var f *Failure
	require.ErrorAs(t, err, &f)
	assert.Equal(t, 5, f.VLsNeeded)
	torus, err := fabric.Build("torus:dims=4x4")
	require.NoError(t, err)
	_, err = Compute("ugal-high", torus, Options{VLs: 8})
	assert.ErrorContains(t, err, "has no groups")
	_, err = ParseMode("ugal-medium")
	assert.ErrorContains(t, err, "ugal-imb")
}

// min takes the less occupied of its two minimal candidates when they
// leave by different ports (two global cables between every two groups).
func TestAdaptiveMinChoice(t *testing.T) {
	_, d := newDragonflyT(t, "dragonfly:a=4,p=2,h=2,g=5")
	src, dst, cands := interGroupPair(t, d, 7, 8, func(src, dst int, cands []Route) bool {
		first := func(r Route) int { p, _ := d.Next(src, dst, &r); return p }
		return first(cands[0]) != first(cands[1]) && d.Hops(src, dst, cands[0]) == d.Hops(src, dst, cands[1])
	})
	first := func(r Route) int { p, _ := d.Next(src, dst, &r); return p }
	p0, p1 := first(cands[0]), first(cands[1])
	busy := func(p int) Occupancy {
		return func(q int) int64 {
			if q == p {
				return 100
			}
			return 0
		}
	}
	assert.Equal(t, cands[1], d.Choose(ModeMin, Bias{}, src, dst, cands, busy(p0)))
	assert.Equal(t, cands[0], d.Choose(ModeMin, Bias{}, src, dst, cands, busy(p1)))
	// Everything busy but the detours' ports: min still stays minimal.
	assert.True(t, d.Choose(ModeMin, Bias{}, src, dst, cands, func(q int) int64 {
		if q == p0 || q == p1 {
			return 1000
		}
		return 0
	}).Minimal())
}

// newDragonflyT builds a topology and its routing function.
func newDragonflyT(t *testing.T, spec string) (*fabric.Network, *Dragonfly) {
	t.Helper()
	net, err := fabric.Build(spec)
	require.NoError(t, err)
	d, err := NewDragonfly(net)
	require.NoError(t, err)
	return net, d
}

// interGroupPair draws switch pairs in different groups and their
// candidates from a stream seeded (s1, s2) until want holds.
func interGroupPair(t *testing.T, d *Dragonfly, s1, s2 uint64, want func(src, dst int, cands []Route) bool) (int, int, []Route) {
	t.Helper()
	rng := rand.New(rand.NewPCG(s1, s2))
	n := d.net.NumSwitches
	for tries := 0; tries < 10000; tries++ {
		src, dst := rng.IntN(n), rng.IntN(n)
		if d.Group(src) == d.Group(dst) {
			continue
		}
		if cands := d.Candidates(src, dst, rng, nil); want(src, dst, cands) {
			return src, dst, cands
		}
	}
	require.FailNow(t, "no such pair in 10,000 draws")
	return 0, 0, nil
}

// The hashing modes route by the key alone: in-order gives every packet of
// a pair one path, min-hash spreads a pair's packets over the global cables
// between its groups, nmin-hash through every third group, and each is a
// route Verify walks (minimal ones at most the minimal hops).
func TestHashedModes(t *testing.T) {
	_, d := newDragonflyT(t, "aries:groups=3,h=1,hcas=96")
	src, dst := int(d.members[0][5]), int(d.members[1][17])
	cables := len(d.gates[0][1])
	require.Greater(t, cables, 8)
	gates, vias := map[int16]bool{}, map[int16]bool{}
	for addr := int64(1); addr <= 200; addr++ {
		io := d.Hashed(ModeInOrder, src, dst, HashKey(ModeInOrder, 3, 50, addr))
		assert.Equal(t, d.Hashed(ModeInOrder, src, dst, HashKey(ModeInOrder, 3, 50, 1)), io, "in-order: one path per pair")
		mh := d.Hashed(ModeMinHash, src, dst, HashKey(ModeMinHash, 3, 50, addr))
		require.True(t, mh.Minimal())
		gates[mh.Gate[0]] = true
		nm := d.Hashed(ModeNMinHash, src, dst, HashKey(ModeNMinHash, 3, 50, addr))
		require.False(t, nm.Minimal())
		require.Equal(t, int16(2), nm.Via, "the only third group")
		vias[nm.Via] = true
		assert.LessOrEqual(t, d.Hops(src, dst, mh), d.VLs)
		assert.LessOrEqual(t, d.Hops(src, dst, nm), d.VLs)
		busy := func(int) int64 { return 1 << 20 }
		assert.Equal(t, mh, d.Choose(ModeMinHash, Bias{}, src, dst, []Route{mh}, busy), "no congestion looked at")
	}
	assert.Greater(t, len(gates), cables/2, "min-hash spreads over the %d cables", cables)
	// Inside a group there is no global hop: minimal is the group's path.
	in := d.Hashed(ModeMinHash, src, int(d.members[0][40]), 12345)
	assert.Equal(t, Route{Via: -1, Phase: 1}, in)
}

// A spreading Dragonfly's hops inside a group take every shortest way
// (parallel cables, both orders of a two-hop way) as Spread varies, with
// the hops of the lowest-port way; Spread 0 and a non-spreading Dragonfly
// take the lowest port.
func TestSpreadInsideGroup(t *testing.T) {
	_, d := newDragonflyT(t, "aries:groups=3,h=1,hcas=96")
	src, dst := int(d.members[0][0]), int(d.members[0][95]) // another row and column: two hops
	lowest := Route{Via: -1, Phase: 1}
	p0, _ := d.Next(src, dst, &lowest)
	hops := d.Hops(src, dst, Route{Via: -1, Phase: 1})
	require.Equal(t, 2, hops)
	seen := map[int]bool{}
	for k := uint64(1); k <= 400; k++ {
		r := Route{Via: -1, Phase: 1, Spread: SpreadKey(HashKey(ModeMinHash, 1, 2, int64(k)))}
		d.Spread = false
		q := r
		p, _ := d.Next(src, dst, &q)
		assert.Equal(t, p0, p, "not spreading: the lowest port")
		d.Spread = true
		q = r
		p, _ = d.Next(src, dst, &q)
		seen[p] = true
		assert.Equal(t, hops, d.Hops(src, dst, r), "a shortest way")
	}
	assert.Equal(t, len(d.ways[src][d.pos[dst]]), len(seen), "every way taken: %v", seen)
	assert.Greater(t, len(seen), 2, "parallel rank-2 cables and the rank-1 first order")
	r := Route{Via: -1, Phase: 1}
	p, _ := d.Next(src, dst, &r)
	assert.Equal(t, p0, p, "Spread 0: the lowest port")
	d.Spread = false
}
