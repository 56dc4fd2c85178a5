package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rescore takes only the keys that change flitsim's side alone, and
// refuses the others by name, exit status 2, before reading anything.
func TestIBModelRescoreKeys(t *testing.T) {
	dir := t.TempDir()
	code, _, errs := run("ibmodel", "rescore", dir, "--hw", "pcie_gbps=40")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "--hw pcie_gbps: rescore takes forward_at_start, shared_input_pointer, voq, wire_bytes")
	code, _, errs = run("ibmodel", "rescore", dir, "--hw", "hiccup_sync=1")
	assert.Equal(t, 2, code, errs)
	code, _, errs = run("ibmodel", "rescore", dir, "--hw", "hca_buffer_flits=1024")
	assert.Equal(t, 2, code, errs)
	assert.Contains(t, errs, "rescore takes", "the model is given the HCA buffer: not flitsim's alone")
	// Accepted keys go on to read the compare's results: none here.
	code, _, errs = run("ibmodel", "rescore", dir, "--hw", "forward_at_start=true,wire_bytes=true")
	assert.NotContains(t, errs, "rescore takes")
	assert.Equal(t, 2, code, errs)
	assert.Contains(t, errs, "no scenario of an 'ibmodel compare' finished there")
}

// A compare's results made before the model's whole flits were counted
// as it counts them (version 1, no version field) carry infinite-traffic
// model figures 2,112/2,074 too high; rescore scales them back, and
// leaves a finite one (counted by run time) and a current record alone.
func TestIBModelRescoreVersion1(t *testing.T) {
	dir := t.TempDir()
	uni := `{"scenario":{"name":"t","fabric":"kary-ntree:k=2,n=2","routing":"ftree","traffic":"uniform","msg_bytes":"1MTU","load":1,"max_time":"5us","warmup":"1us","seed":1},"flitsim_gbs":10,"model_gbs":21.12,"diff_pct":111.2}`
	cur := strings.Replace(uni, `"flitsim_gbs"`, `"version":2,"flitsim_gbs"`, 1)
	cur = strings.Replace(cur, `"name":"t"`, `"name":"c"`, 1)
	exc := `{"scenario":{"name":"x","fabric":"kary-ntree:k=2,n=2","routing":"ftree","traffic":"exchange","msg_bytes":"1MTU","seed":1},"flitsim_gbs":10,"model_gbs":21.12,"diff_pct":111.2}`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "results.jsonl"), []byte(uni+"\n"+cur+"\n"+exc+"\n"), 0o644))
	code, out, errs := run("ibmodel", "rescore", dir, "--hw", "wire_bytes=false")
	require.Equal(t, 0, code, errs)
	rows := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Split(l, "|"); len(f) > 5 {
			rows[strings.TrimSpace(f[1])] = strings.TrimSpace(f[4])
		}
	}
	assert.Equal(t, "20.74", rows["t"], "21.12 · 2,074/2,112: %s", out)
	assert.Equal(t, "21.12", rows["c"], "a current record: %s", out)
	assert.Equal(t, "21.12", rows["x"], "the exchange's figure comes from run time: %s", out)
}
