package configs

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Check reads a trace job's program through as its replay will: a Chakra
// trace whose gather would send more than a message can hold is refused
// before anything runs, at the job's trace, and the trace's files enter
// the campaign's inputs.
func TestCheckReadsTraces(t *testing.T) {
	dir := t.TempDir()
	attr := func(name string, v uint64) []byte {
		a := append([]byte{0x0a, byte(len(name))}, name...)
		a = binary.AppendUvarint(append(a, 0x48), v) // int64_val
		return append([]byte{0x52, byte(len(a))}, a...)
	}
	write := func(size uint64) string {
		d := filepath.Join(dir, fmt.Sprint(size))
		require.NoError(t, os.MkdirAll(d, 0o755))
		node := append([]byte{0x08, 1, 0x18, 7}, attr("comm_type", 3)...) // a GATHER
		node = append(node, attr("comm_size", size)...)
		file := append([]byte{0, byte(len(node))}, node...) // empty metadata, the node
		for npu := range 4 {
			require.NoError(t, os.WriteFile(filepath.Join(d, fmt.Sprintf("t.%d.et", npu)), file, 0o644))
		}
		return d
	}
	campaign := func(trace string) *Campaign {
		text := "name = \"tr\"\n[[topology]]\nspec = \"kary-ntree:k=2,n=2\"\n[[routing]]\nengine = \"dfsssp\"\n" +
			"[[traffic]]\nkind = \"jobs\"\n[[job]]\nsize = 4\npattern = \"trace\"\ntrace = \"" + trace + "\"\n"
		c, err := Parse([]byte(text), filepath.Join(dir, "tr.toml"), dir)
		require.NoError(t, err)
		return c
	}
	good := campaign(write(1 << 20))
	require.NoError(t, good.Check())
	assert.Len(t, good.Inputs, 1)
	err := campaign(write(600 << 20)).Check()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "beyond 1 GiB")
	assert.Contains(t, err.Error(), "rank 0, call 1")
}
