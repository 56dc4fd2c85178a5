package configs

import (
	"fmt"
	"sync"

	"flitsim/traffic"
	"flitsim/traffic/dumpi"
)

// LoadTrace opens the trace a trace job or pattern replays (traffic.Trace,
// key trace): a DUMPI trace's directory or its .meta file. Opening reads
// and checks every record once (traffic/dumpi); the replay reads the
// calls again, streaming.
func LoadTrace(path string) (traffic.Program, error) {
	t, err := dumpi.Open(path)
	if err != nil {
		return nil, fmt.Errorf("trace %s: %w", path, err)
	}
	return t, nil
}

// TraceFiles lists the files a trace reads (its digest covers them): a
// DUMPI trace's .meta file and each rank's .bin, in rank order.
func TraceFiles(p traffic.Program) ([]string, error) {
	t, ok := p.(*dumpi.Trace)
	if !ok {
		return nil, fmt.Errorf("%s: not a trace read from files", p.Name())
	}
	return t.Files(), nil
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
