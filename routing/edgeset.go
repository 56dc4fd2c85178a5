package routing

import (
	"math"

	"flitsim/fabric/invariants"
)

// edgeSet is a set of CDG edge keys (edgeKey) by open addressing, so a
// verification that meets one dependency once per destination keeps it
// once: on a 40,000-HCA fabric the edges met number ~10⁸, the distinct ones
// a few million.
type edgeSet struct {
	slots []uint64 // key+1; 0 = empty
	n     int
}

// add inserts key and reports whether it was new.
func (s *edgeSet) add(key uint64) bool {
	if 4*(s.n+1) > 3*len(s.slots) {
		s.grow()
	}
	i, there := s.probe(key)
	if !there {
		s.slots[i] = key + 1
		s.n++
	}
	return !there
}

// probe returns the slot holding key, or the empty slot where it would go,
// and whether key is there (the table has an empty slot).
func (s *edgeSet) probe(key uint64) (uint64, bool) {
	k := key + 1
	mask := uint64(len(s.slots) - 1)
	for i := mix(k) & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case k:
			return i, true
		case 0:
			return i, false
		}
	}
}

func (s *edgeSet) grow() {
	old := s.slots
	s.slots = make([]uint64, max(64, 2*len(old)))
	mask := uint64(len(s.slots) - 1)
	for _, k := range old {
		if k == 0 {
			continue
		}
		i := mix(k) & mask
		for s.slots[i] != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = k
	}
}

// mix spreads a key's bits over the table (the murmur3 finalizer).
func mix(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}

// edgeMap maps CDG edge keys (edgeKey) to edge ids by open addressing:
// every cdg looks an edge up at each insertion, use and removal (LASH's
// and Nue's ordered graphs, DFSSSP's layers, the dragonfly check). Keys
// are stored plus one, so the key 2⁶⁴−1 (edgeKey(−1, −1), never a CDG
// edge) cannot be held; nor can it in an edgeSet.
type edgeMap struct {
	slots []edgeSlot
	n     int
}

// edgeSlot is one entry of an edgeMap: key+1 (0 = empty) and its id.
type edgeSlot struct {
	key uint64
	val int32
}

// get returns the id of key and whether it is there.
func (m *edgeMap) get(key uint64) (int32, bool) {
	if m.n == 0 {
		return 0, false
	}
	k := key + 1
	mask := uint64(len(m.slots) - 1)
	for i := mix(k) & mask; ; i = (i + 1) & mask {
		switch m.slots[i].key {
		case k:
			return m.slots[i].val, true
		case 0:
			return 0, false
		}
	}
}

// put sets the id of key, which must not be there yet.
func (m *edgeMap) put(key uint64, val int32) {
	invariants.Checkf(key != math.MaxUint64, "edgeMap: key 2⁶⁴−1 cannot be held")
	if invariants.Enabled {
		_, there := m.get(key)
		invariants.Checkf(!there, "edgeMap: key %#x put twice", key)
	}
	if 4*(m.n+1) > 3*len(m.slots) {
		m.grow()
	}
	k := key + 1
	mask := uint64(len(m.slots) - 1)
	i := mix(k) & mask
	for m.slots[i].key != 0 {
		i = (i + 1) & mask
	}
	m.slots[i] = edgeSlot{k, val}
	m.n++
}

// reset empties the map, keeping its storage.
func (m *edgeMap) reset() {
	clear(m.slots)
	m.n = 0
}

// grow doubles the table (at least 64 slots: small fabrics route many
// small graphs) and re-inserts the keys.
func (m *edgeMap) grow() {
	old := m.slots
	m.slots = make([]edgeSlot, max(64, 2*len(old)))
	mask := uint64(len(m.slots) - 1)
	for _, s := range old {
		if s.key == 0 {
			continue
		}
		i := mix(s.key) & mask
		for m.slots[i].key != 0 {
			i = (i + 1) & mask
		}
		m.slots[i] = s
	}
}

// has reports whether key is in the set.
func (s *edgeSet) has(key uint64) bool {
	if s.n == 0 {
		return false
	}
	_, there := s.probe(key)
	return there
}
