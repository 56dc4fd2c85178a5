package engines

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/routing"
)

func TestRegistryHoldsBothKinds(t *testing.T) {
	for _, n := range routing.Names() {
		e, ok := Lookup(n)
		require.True(t, ok, n)
		assert.False(t, e.OpenSM, n)
	}
	for _, tc := range []struct {
		name   string
		known  bool
		params []string
	}{
		{"opensm:dfsssp", true, []string{"vls"}},
		{"opensm:torus-2qos", true, []string{"vls"}},
		{"opensm:updn", true, []string{"roots"}},
		{"opensm:minhop", true, nil},
		{"opensm:bogus", false, nil},
		{"opensm:file", false, nil},
		{"bogus", false, nil},
		{"nue", true, []string{"vls", "relieve"}},
		{"minhop", true, nil},
		{"updn", true, []string{"roots"}},
		{"file", true, []string{"file"}},
	} {
		e, ok := Lookup(tc.name)
		require.Equal(t, tc.known, ok, tc.name)
		if !ok {
			_, err := Find(tc.name)
			assert.ErrorContains(t, err, "unknown routing engine", tc.name)
			continue
		}
		for _, k := range e.Params {
			assert.NoError(t, e.Takes(k))
		}
		assert.Equal(t, tc.params, e.Params, tc.name)
		assert.ErrorContains(t, e.Takes("bogus"), "reads no bogus", tc.name)
	}
}

func TestNamesSortedAndUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, n := range Names() {
		assert.False(t, seen[n], "%s twice", n)
		seen[n] = true
	}
	assert.Len(t, seen, len(routing.Names())+10)
}
