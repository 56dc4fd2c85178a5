//go:build !amd64 && !arm64

package sim

// prefetch does nothing on architectures flitsim has no prefetch for.
func prefetch(addr uintptr) {}
