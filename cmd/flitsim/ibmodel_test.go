package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
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
