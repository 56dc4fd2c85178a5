package sim

// The counters over time (Params.Counters with Params.CounterWindow > 0):
// per job (or, without jobs, for all HCAs) and per window of
// CounterWindow, what its ranks' NICs counted, so that a user can watch a
// job's latency and stalls change and application-aware routing switch.
// An event counts in the window of its instant: a request packet's flits
// when it is granted its HCA's channel (and, when it goes with high bias,
// its flits again as high), its latency when it is delivered, an HCA
// stall when it ends (at the channel's next grant; one still open at the
// run's end counts in the window of the instant before the end).
// Each simulator feeds its own SeriesTally from its own events.

// CounterWindow is one window of a job's counters over time.
type CounterWindow struct {
	StartNs float64 `json:"start_ns"`
	// RequestFlits were granted the ranks' channels in the window,
	// HighFlits of them with high bias (ugal-high).
	RequestFlits int64 `json:"request_flits"`
	HighFlits    int64 `json:"high_flits,omitempty"`
	// Packets of the ranks were delivered in the window, after a mean
	// latency of LatencyNs.
	Packets   int64   `json:"packets"`
	LatencyNs float64 `json:"latency_ns"`
	// StalledNs of the ranks' channels' stalls ended in the window;
	// StallsPerFlit is that over RequestFlits, in flit times.
	StalledNs     float64 `json:"stalled_ns"`
	StallsPerFlit float64 `json:"stalls_per_flit"`
}

// SeriesTally accumulates the counters over time of each job.
type SeriesTally struct {
	window int64
	perJob bool // a series per job, else one for all HCAs
	jobs   [][]seriesWin
}

type seriesWin struct {
	flits, high, packets, latency, stalled int64
}

// NewSeriesTally returns a tally in windows of window ps of a series per
// job, or of one for all HCAs when there are no jobs (job 0).
func NewSeriesTally(window int64, jobs int) *SeriesTally {
	return &SeriesTally{window: window, perJob: jobs > 0, jobs: make([][]seriesWin, max(1, jobs))}
}

func (s *SeriesTally) at(job int, t int64) *seriesWin {
	w := int(t / s.window)
	for len(s.jobs[job]) <= w {
		s.jobs[job] = append(s.jobs[job], seriesWin{})
	}
	return &s.jobs[job][w]
}

// Sent counts a request packet of flits granted at t (high: with high bias).
func (s *SeriesTally) Sent(job int, t, flits int64, high bool) {
	w := s.at(job, t)
	w.flits += flits
	if high {
		w.high += flits
	}
}

// Delivered counts a packet delivered at t after latency ps.
func (s *SeriesTally) Delivered(job int, t, latency int64) {
	w := s.at(job, t)
	w.packets++
	w.latency += latency
}

// Stalled counts ps of a stall of a rank's channel that ended at t.
func (s *SeriesTally) Stalled(job int, t, ps int64) {
	if ps > 0 {
		s.at(job, t).stalled += ps
	}
}

// results returns job j's windows, ft being an HCA channel's flit time.
func (s *SeriesTally) results(j int, ft int64) []CounterWindow {
	if s == nil || j >= len(s.jobs) {
		return nil
	}
	out := make([]CounterWindow, len(s.jobs[j]))
	for i, w := range s.jobs[j] {
		c := CounterWindow{StartNs: float64(int64(i)*s.window) / 1000, RequestFlits: w.flits, HighFlits: w.high,
			Packets: w.packets, StalledNs: float64(w.stalled) / 1000, StallsPerFlit: stallsPerFlit(w.stalled, w.flits, ft)}
		if w.packets > 0 {
			c.LatencyNs = float64(w.latency) / float64(w.packets) / 1000
		}
		out[i] = c
	}
	return out
}

// Merge adds o's counts to s's (a domain's, in a run cut into domains);
// either may be nil.
func (s *SeriesTally) Merge(o *SeriesTally) {
	if s == nil || o == nil {
		return
	}
	for j, ws := range o.jobs {
		for i, w := range ws {
			x := s.at(j, int64(i)*s.window)
			x.flits += w.flits
			x.high += w.high
			x.packets += w.packets
			x.latency += w.latency
			x.stalled += w.stalled
		}
	}
}
