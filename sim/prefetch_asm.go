//go:build amd64 || arm64

package sim

// prefetch asks the processor to bring the cache line at addr into its
// caches without waiting for it (PREFETCHT0, PRFM PLDL1KEEP); a bad
// address is ignored. Assembly: Go has no prefetch intrinsic outside the
// runtime.
func prefetch(addr uintptr)
