package routing

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
	k := key + 1
	mask := uint64(len(s.slots) - 1)
	for i := mix(k) & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case k:
			return false
		case 0:
			s.slots[i] = k
			s.n++
			return true
		}
	}
}

func (s *edgeSet) grow() {
	old := s.slots
	s.slots = make([]uint64, max(1024, 2*len(old)))
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
