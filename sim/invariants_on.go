//go:build invariants

package sim

import "fmt"

// invariants is true when the package is built with the invariants tag
// (make test does): expensive consistency checks run and panic on failure.
const invariants = true

func checkf(ok bool, format string, args ...any) {
	if !ok {
		panic("sim invariant violated: " + fmt.Sprintf(format, args...))
	}
}
