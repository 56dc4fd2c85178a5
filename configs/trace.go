package configs

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"flitsim/traffic"
	"flitsim/traffic/chakra"
	"flitsim/traffic/dumpi"
)

// LoadTrace opens the trace a trace job or pattern replays (traffic.Trace,
// key trace): a DUMPI trace (its directory, holding a .meta file, or the
// .meta file; traffic/dumpi: every record read and checked once, the
// calls streamed again at each replay) or a Chakra execution trace (its
// directory of NAME.NPU.et files, or the path NAME of them;
// traffic/chakra).
func LoadTrace(path string) (traffic.Program, error) {
	var p traffic.Program
	var err error
	if chakraTrace(path) {
		p, err = chakra.Open(path)
	} else {
		p, err = dumpi.Open(path)
	}
	if err != nil {
		return nil, fmt.Errorf("trace %s: %w", path, err)
	}
	return p, nil
}

// chakraTrace reports whether path names a Chakra trace: NAME with
// NAME.0.et beside it, or a directory holding .et files and no .meta.
func chakraTrace(path string) bool {
	if _, err := os.Stat(path + ".0.et"); err == nil {
		return true
	}
	if st, err := os.Stat(path); err != nil || !st.IsDir() {
		return false
	}
	et, _ := filepath.Glob(filepath.Join(path, "*.et"))
	meta, _ := filepath.Glob(filepath.Join(path, "*.meta"))
	return len(et) > 0 && len(meta) == 0
}

// TraceFiles lists the files a trace reads (its digest covers them): a
// DUMPI trace's .meta file and each rank's .bin, in rank order.
func TraceFiles(p traffic.Program) ([]string, error) {
	switch t := p.(type) {
	case *dumpi.Trace:
		return t.Files(), nil
	case *chakra.Trace:
		return t.Files(), nil
	}
	return nil, fmt.Errorf("%s: not a trace read from files", p.Name())
}

// traceCache shares the traces a campaign or jobs file names among its
// points: a Program is immutable, each replay reads it afresh.
type traceCache struct {
	mu  sync.Mutex
	got map[string]traceResult
}

type traceResult struct {
	p   traffic.Program
	err error
}

func (tc *traceCache) get(path string) (traffic.Program, error) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if r, ok := tc.got[path]; ok {
		return r.p, r.err
	}
	if tc.got == nil {
		tc.got = map[string]traceResult{}
	}
	p, err := LoadTrace(path)
	tc.got[path] = traceResult{p, err}
	return p, err
}
