//go:build invariants || race

package invariants

// Enabled is true: this build checks invariants.
const Enabled = true
