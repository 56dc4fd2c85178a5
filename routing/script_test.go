package routing_test

import (
	"testing"

	"flitsim/sim/simtest"
)

// TestDataDriven runs the scripts in testdata/script (see package
// flitsim/sim/simtest for the commands; -rewrite regenerates their output).
func TestDataDriven(t *testing.T) { simtest.RunScripts(t, "testdata/script") }
