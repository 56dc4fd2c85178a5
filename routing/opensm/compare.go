package opensm

import (
	"context"
	"errors"
	"time"

	"flitsim/fabric"
	"flitsim/routing"
)

// Side is one engine's outcome in a comparison.
type Side struct {
	OK        bool   `json:"ok"`
	Error     string `json:"error,omitempty"`
	VLsNeeded int    `json:"vls_needed"`
	// SLSource says who chose the SLs of OpenSM's tables (routing.Tables.SLSource).
	SLSource     string  `json:"sl_source,omitempty"`
	DeadlockFree bool    `json:"deadlock_free"`
	EFIMin       int     `json:"efi_min"`
	EFIMean      float64 `json:"efi_mean"`
	EFIMax       int     `json:"efi_max"`
	PathLenMean  float64 `json:"path_len_mean"`
	PathLenMax   int     `json:"path_len_max"`
	RouteMS      float64 `json:"route_ms"`
	// EngineMS is the routing engine's own time: flitsim's is RouteMS,
	// OpenSM's the span its log gives the engine (RouteTimed; RouteMS
	// there is the whole run of ibsim and a subnet manager sweep); -1
	// unknown.
	EngineMS float64 `json:"engine_ms"`
	tables   *routing.Tables
}

// Comparison sets flitsim's engine beside OpenSM's.
type Comparison struct {
	Engine  string `json:"engine"`
	Flitsim Side   `json:"flitsim"`
	OpenSM  Side   `json:"opensm"`
	// SameLFT is the share of HCA-destination LFT entries both engines set
	// to the same port (-1 when one of them failed).
	SameLFT float64 `json:"same_lft"`
}

func side(net *fabric.Network, compute func() (*routing.Tables, float64, error)) Side {
	start := time.Now()
	t, engineMS, err := compute()
	s := Side{RouteMS: float64(time.Since(start).Microseconds()) / 1000, EngineMS: engineMS}
	if engineMS == 0 {
		s.EngineMS = s.RouteMS
	}
	if err != nil {
		s.Error = err.Error()
		var f *routing.Failure
		if errors.As(err, &f) {
			s.VLsNeeded = f.VLsNeeded
		}
		return s
	}
	v, err := routing.Verify(net, t)
	if err != nil {
		s.Error = err.Error()
		return s
	}
	m, err := routing.Measure(net, t)
	if err != nil {
		s.Error = err.Error()
		return s
	}
	s.OK, s.DeadlockFree, s.VLsNeeded, s.SLSource = v.OK(), v.DeadlockFree, t.VLsNeeded, t.SLSource
	if !v.OK() {
		s.Error = "incomplete tables: " + v.Problem
	}
	s.EFIMin, s.EFIMean, s.EFIMax = m.EFIMin, m.EFIMean, m.EFIMax
	s.PathLenMean, s.PathLenMax = m.PathLenMean, m.PathLenMax
	s.tables = t
	return s
}

// Compare routes net with flitsim's and OpenSM's implementation of each
// engine and measures both the same way.
func Compare(net *fabric.Network, names []string, o routing.Options) ([]Comparison, error) {
	if err := Available(); err != nil {
		return nil, err
	}
	var out []Comparison
	for _, name := range names {
		c := Comparison{Engine: name, SameLFT: -1}
		// flitsim's engine is timed on its second run, warm, as OpenSM's
		// time from its log leaves out the process around the engine.
		_, _ = routing.Compute(name, net, o)
		c.Flitsim = side(net, func() (*routing.Tables, float64, error) {
			t, err := routing.Compute(name, net, o)
			return t, 0, err // its engine time is its whole time
		})
		c.OpenSM = side(net, func() (*routing.Tables, float64, error) { return RouteTimed(context.Background(), net, name, o) })
		if a, b := c.Flitsim.tables, c.OpenSM.tables; a != nil && b != nil {
			same, total := 0, 0
			for s := 0; s < net.NumSwitches; s++ {
				for h := net.NumSwitches; h < len(net.Nodes); h++ {
					lid := net.Nodes[h].LID
					total++
					if a.Port(s, lid) == b.Port(s, lid) {
						same++
					}
				}
			}
			if total > 0 {
				c.SameLFT = float64(same) / float64(total)
			}
		}
		out = append(out, c)
	}
	return out, nil
}
