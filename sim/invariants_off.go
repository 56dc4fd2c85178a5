//go:build !invariants

package sim

// invariants is false in normal builds: the checks compile away.
const invariants = false

func checkf(bool, string, ...any) {}
