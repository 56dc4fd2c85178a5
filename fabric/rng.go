package fabric

import (
	"hash/fnv"
	"math/rand/v2"
)

// Stream returns a deterministic random stream for one purpose (for example
// "faults" or "traffic/hca/17") derived from a master seed. Streams for
// different purposes are independent; the same (seed, purpose) always gives
// the same sequence. The generator is PCG from math/rand/v2, whose output
// Go pins with regression tests.
func Stream(seed uint64, purpose string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(purpose))
	p := h.Sum64()
	return rand.New(rand.NewPCG(splitmix(seed^p), splitmix(p+0x9e3779b97f4a7c15)))
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
