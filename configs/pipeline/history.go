package pipeline

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"flitsim/configs"
	"flitsim/fabric"
	"flitsim/routing"
)

// History replays a job history on a fabric as the thesis' filter tool and
// its evaluation do (seeds/001 §5.2.2.1, §5.3.2, Figs. 5.6 and 5.8): every
// Poll seconds the tool lists the running multi-switch jobs (HCAs on two
// switches or more), and when that list differs from the last one (job
// ids aside: the same nodes in other jobs route the same) the job-aware
// engines (SAR) route the fabric for them; every Sample seconds the
// metrics of §5.1 are measured under every engine for the jobs running
// then, the job-aware ones with the tables of their last reroute.
type History struct {
	Net     *fabric.Network
	Jobs    []HistoryJob
	Engines []string
	Options routing.Options
	Poll    int64 // seconds between polls (the thesis' tool: 300)
	Sample  int64 // seconds between samples (Fig. 5.8: 600)
	// Progress, if set, hears of every sample done.
	Progress func(done, total int)
}

// HistoryJob is a job of a history on the fabric: it runs in [Start, End)
// seconds from the history's first start (End < 0: to the end), on HCAs
// (ordinals).
type HistoryJob struct {
	ID         string
	Start, End int64
	HCAs       []int
}

// Reroute is one reroute the filter tool asked for.
type Reroute struct {
	At              int64   `json:"at_s"`
	Engine          string  `json:"engine"`
	MultiSwitchJobs int     `json:"multi_switch_jobs"`
	WallS           float64 `json:"wall_s"` // the engine's time on this machine (measured, not reproducible)
}

// HistorySample is the fabric at one sample instant.
type HistorySample struct {
	At              int64                         `json:"at_s"`
	Jobs            int                           `json:"jobs"`
	MultiSwitchJobs int                           `json:"multi_switch_jobs"`
	BusyHCAs        int                           `json:"busy_hcas"`
	Metrics         map[string]routing.JobMetrics `json:"metrics"`
}

// HistoryReport is the replay's outcome.
type HistoryReport struct {
	Network string `json:"network"`
	Start   string `json:"start"` // the history's first start (UTC)
	Seconds int64  `json:"seconds"`
	Jobs    int    `json:"jobs"`
	PollS   int64  `json:"poll_s"`
	SampleS int64  `json:"sample_s"`
	Polls   int    `json:"polls"`
	// Unchanged counts the polls whose multi-switch jobs were the last
	// poll's (the tool routes nothing); Reroutes lists the others'.
	Unchanged    int             `json:"polls_unchanged"`
	Reroutes     []Reroute       `json:"reroutes"`
	Samples      []HistorySample `json:"samples"`
	Improvements []Improvement   `json:"improvements"`
}

// ResolveHistory lays a parsed history on net: each job's hosts become
// HCAs (refs.Host: a name, a description's first word, a GUID or
// lid:N, through hostMap if it names the host; hosts listed twice count
// once) and its times seconds from the first start; a job still running
// runs to the last instant the history names.
func ResolveHistory(net *fabric.Network, jobs []configs.HistoryJob, hostMap map[string]string, file string) ([]HistoryJob, time.Time, error) {
	if len(jobs) == 0 {
		return nil, time.Time{}, fmt.Errorf("%s: no job that ran", file)
	}
	refs := fabric.NewResolver(net)
	t0 := jobs[0].Start
	for _, j := range jobs {
		if j.Start.Before(t0) {
			t0 = j.Start
		}
	}
	out := make([]HistoryJob, len(jobs))
	for i, j := range jobs {
		hj := HistoryJob{ID: j.ID, Start: int64(j.Start.Sub(t0) / time.Second), End: -1}
		if !j.End.IsZero() {
			hj.End = int64(j.End.Sub(t0) / time.Second)
		}
		seen := map[int]bool{}
		for _, h := range j.Hosts {
			ref := h
			if m, ok := hostMap[h]; ok {
				ref = m
			}
			k, err := refs.Host(ref)
			if err != nil {
				return nil, time.Time{}, fmt.Errorf("%s:%d: job %s, host %s: %w (give a --map)", file, j.Line, j.ID, h, err)
			}
			if !seen[k] {
				seen[k] = true
				hj.HCAs = append(hj.HCAs, k)
			}
		}
		out[i] = hj
	}
	return out, t0, nil
}

// Run replays the history.
func (h History) Run() (*HistoryReport, error) {
	if h.Poll <= 0 || h.Sample <= 0 {
		return nil, fmt.Errorf("history: poll and sample intervals must be positive")
	}
	if len(h.Engines) == 0 {
		return nil, fmt.Errorf("history: no engine")
	}
	var end int64
	for _, j := range h.Jobs {
		end = max(end, j.Start, j.End)
	}
	rep := &HistoryReport{Network: h.Net.Name, Seconds: end, Jobs: len(h.Jobs), PollS: h.Poll, SampleS: h.Sample}
	hcaSw := h.Net.HCASwitches()
	multi := func(j HistoryJob) bool {
		for _, k := range j.HCAs[1:] {
			if hcaSw[k] != hcaSw[j.HCAs[0]] {
				return true
			}
		}
		return false
	}
	running := func(t int64) []HistoryJob {
		var r []HistoryJob
		for _, j := range h.Jobs {
			if j.Start <= t && (j.End < 0 || t < j.End) && len(j.HCAs) > 0 {
				r = append(r, j)
			}
		}
		return r
	}

	// The oblivious engines route once; the job-aware ones at every change.
	tables := map[string]*routing.Tables{}
	var aware []string
	for _, e := range h.Engines {
		if JobAware(e) {
			aware = append(aware, e)
			continue
		}
		r, err := Route(h.Net, e, h.Options)
		if err != nil {
			return nil, err
		}
		if !r.OK() {
			return nil, &InputError{fmt.Errorf("%s on %s: %s", e, h.Net.Name, r.Problem())}
		}
		tables[e] = r.Tables
	}
	var mixes []MixReport              // the samples, as Tables 5.1/5.2 take mixes
	lastMix, lastAll := "\x00", "\x00" // no poll, no sample yet
	var lastMetrics map[string]routing.JobMetrics
	nSamples := int(end/h.Sample) + 1
	for t := int64(0); t <= end; t += h.Poll {
		run := running(t)
		var ms [][]int
		for _, j := range run {
			if multi(j) {
				ms = append(ms, j.HCAs)
			}
		}
		rep.Polls++
		if key := mixKey(ms); key == lastMix {
			rep.Unchanged++
		} else {
			lastMix = key
			for _, e := range aware {
				o := h.Options
				o.Jobs = ms
				began := time.Now()
				r, err := Route(h.Net, e, o)
				if err != nil {
					return nil, err
				}
				if !r.OK() {
					return nil, &InputError{fmt.Errorf("%s at %d s: %s", e, t, r.Problem())}
				}
				tables[e] = r.Tables
				rep.Reroutes = append(rep.Reroutes, Reroute{At: t, Engine: e, MultiSwitchJobs: len(ms), WallS: time.Since(began).Seconds()})
			}
		}
		if t%h.Sample != 0 {
			continue
		}
		s := HistorySample{At: t, Jobs: len(run), MultiSwitchJobs: len(ms), Metrics: map[string]routing.JobMetrics{}}
		busy := map[int]bool{}
		all := make([][]int, len(run))
		for i, j := range run {
			all[i] = j.HCAs
			for _, k := range j.HCAs {
				busy[k] = true
			}
		}
		s.BusyHCAs = len(busy)
		if key := mixKey(all); key == lastAll {
			s.Metrics = lastMetrics // the same jobs, and so the same tables: the same figures
		} else {
			for _, e := range h.Engines {
				m, err := routing.MeasureJobs(h.Net, tables[e], all)
				if err != nil {
					return nil, fmt.Errorf("%s at %d s: %w", e, t, err)
				}
				m.PerJob = nil
				s.Metrics[e] = m
			}
			lastAll, lastMetrics = key, s.Metrics
		}
		rep.Samples = append(rep.Samples, s)
		mixes = append(mixes, MixReport{Seed: t, Jobs: s.Jobs, Busy: s.BusyHCAs, Metrics: s.Metrics})
		if h.Progress != nil {
			h.Progress(len(rep.Samples), nSamples)
		}
	}
	for _, e := range aware {
		for _, b := range h.Engines {
			if b == e {
				continue
			}
			for _, jm := range MixMetrics {
				rep.Improvements = append(rep.Improvements, improve(mixes, jm, e, b))
			}
		}
	}
	return rep, nil
}

// mixKey names a set of jobs by their HCAs alone.
func mixKey(jobs [][]int) string {
	keys := make([]string, len(jobs))
	for i, hs := range jobs {
		s := slices.Clone(hs)
		slices.Sort(s)
		var b strings.Builder
		for _, k := range s {
			b.WriteString(strconv.Itoa(k))
			b.WriteByte(',')
		}
		keys[i] = b.String()
	}
	slices.Sort(keys)
	return strings.Join(keys, ";")
}
