package pprofstr

import (
	"bytes"
	"runtime/pprof"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMapRewritesOnlyTheStrings: a heap profile written by runtime/pprof
// read back, every string replaced (some longer, some shorter), reads
// back as the replaced strings; the other fields are unchanged (the
// profile with its strings mapped back is byte for byte the original).
func TestMapRewritesOnlyTheStrings(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, pprof.Lookup("heap").WriteTo(&buf, 0))
	orig, err := Strings(buf.Bytes())
	require.NoError(t, err)
	require.Contains(t, orig, "alloc_space")

	there := func(s string) string { return "<" + strings.Repeat(s, 3) + ">" }
	back := func(s string) string {
		if s == "" || s[0] != '<' {
			return s
		}
		return s[1 : 1+(len(s)-2)/3]
	}
	mapped, err := Map(buf.Bytes(), there)
	require.NoError(t, err)
	got, err := Strings(mapped)
	require.NoError(t, err)
	require.Len(t, got, len(orig))
	for i := range orig {
		require.Equal(t, there(orig[i]), got[i])
	}
	again, err := Map(mapped, back)
	require.NoError(t, err)
	want, err := walk(buf.Bytes(), func(s string) string { return s })
	require.NoError(t, err)
	raw, err := walk(again, func(s string) string { return s })
	require.NoError(t, err)
	require.Equal(t, want, raw)
}

// TestBadProfiles: truncated or foreign data is an error, not a panic.
func TestBadProfiles(t *testing.T) {
	for _, data := range [][]byte{{0x32, 0x10, 'a'}, {0x07}, {0x80}, {0x1f, 0x8b, 0}} {
		_, err := Strings(data)
		require.Error(t, err, "%x", data)
	}
}
