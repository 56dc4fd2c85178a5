// Package invariants switches expensive consistency checks on in test
// builds, as pebble's internal/invariants does: Enabled is a constant, true
// under the invariants or race build tag (make test builds with
// invariants), so that checks guarded by it cost nothing in benchmarks and
// releases.
package invariants

import "fmt"

// Checkf panics with the formatted message when checks are enabled and ok
// is false. Call it only with arguments that are cheap to evaluate, or
// guard the call with Enabled.
func Checkf(ok bool, format string, args ...any) {
	if Enabled && !ok {
		panic("invariant violated: " + fmt.Sprintf(format, args...))
	}
}
