package invariants

import "testing"

func TestCheckf(t *testing.T) {
	Checkf(true, "never")
	defer func() {
		r := recover()
		if Enabled && r == nil {
			t.Fatal("a failed check did not panic with invariants enabled")
		}
		if !Enabled && r != nil {
			t.Fatalf("a check panicked without invariants: %v", r)
		}
	}()
	Checkf(false, "x = %d", 1)
}
