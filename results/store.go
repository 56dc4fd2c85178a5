// Package results keeps campaign results and turns them into what a user
// reads: an append-only, crash-safe store of one JSON record per point;
// regression tables of throughput against failed components (seeds/001
// Tables 4.4-4.6); the usability matrix (Table 4.3); and plots.
package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"syscall"

	"flitsim/sim"
)

// Stats is a distribution's minimum, quartiles and maximum (sim's).
type Stats = sim.Stats

// Verdict is the outcome of a point: how its simulation ended, or why it
// did not run.
type Verdict string

// The verdicts: a simulation's (sim.Verdict), and the two that stop a
// point before it simulates.
const (
	Completed             = Verdict(sim.Completed)
	Steady                = Verdict(sim.Steady)
	Deadlock              = Verdict(sim.Deadlock)
	NotConverged          = Verdict(sim.NotConverged)
	RoutingFailed Verdict = "routing_failed" // the engine could not route the network, or left it incomplete
	Failed        Verdict = "error"          // the point could not be evaluated (see Record.Error)
)

// Record is the result of one point. It holds no wall-clock time, so the
// same campaign gives byte-identical records; wall times go to a separate
// file.
type Record struct {
	Campaign string `json:"campaign"`
	Point    int    `json:"point"`
	Key      string `json:"key"`

	Topology      string  `json:"topology"`
	TopologyLabel string  `json:"topology_label"`
	Switches      int     `json:"switches"`
	HCAs          int     `json:"hcas"`
	FaultKind     string  `json:"fault_kind"`
	FaultLabel    string  `json:"fault_label"`
	FaultPercent  float64 `json:"fault_percent"`
	FaultSeed     uint64  `json:"fault_seed"`
	TrafficSeed   uint64  `json:"traffic_seed"`
	FailedLinks   int     `json:"failed_links"`
	FailedSwitch  int     `json:"failed_switches"`
	Redrawn       int     `json:"redrawn"`
	Routing       string  `json:"routing"`
	Engine        string  `json:"engine"`
	Traffic       string  `json:"traffic"`
	// Finite traffic (the exchange) ends by itself; infinite traffic runs to
	// steady state or the time limit.
	Finite       bool `json:"finite"`
	TrafficIndex int  `json:"traffic_index"`
	// Order is the traffic's rank order when it is not the default "hca".
	Order string `json:"order,omitempty"`
	// TrafficLabel names the traffic entry when it is not just its kind;
	// tables and plots group by it.
	TrafficLabel string `json:"traffic_label,omitempty"`
	MsgBytes     int    `json:"msg_bytes"`

	RoutingOK    bool    `json:"routing_ok"`
	RoutingError string  `json:"routing_error,omitempty"`
	VLsNeeded    int     `json:"vls_needed,omitempty"`
	VLsUsed      int     `json:"vls_used,omitempty"`
	DeadlockFree bool    `json:"deadlock_free"`
	EFIMax       int     `json:"efi_max,omitempty"`
	EFIMean      float64 `json:"efi_mean,omitempty"`
	PathLenMax   int     `json:"path_len_max,omitempty"`

	Verdict       Verdict `json:"verdict"`
	ThroughputGBs float64 `json:"throughput_gbs"`
	// ThroughputCI is the 99 % confidence half-width of ThroughputGBs by
	// batch means, and SampledWindows the windows it comes from (infinite
	// traffic; sim.Result.ThroughputCIGBs).
	ThroughputCI   float64 `json:"throughput_ci_gbs,omitempty"`
	SampledWindows int     `json:"sampled_windows,omitempty"`
	HCABandwidth   Stats   `json:"hca_bw_gbs"`
	// HCACompletion is the distribution of the sources' completion times
	// of finite traffic that completed (sim.Result.HCACompletionNs).
	HCACompletion Stats   `json:"hca_completion_ns,omitzero"`
	SimTimeNs     float64 `json:"sim_time_ns"`
	RuntimeNs     float64 `json:"runtime_ns,omitempty"`
	Events        int64   `json:"events"`
	FlitHops      int64   `json:"flit_hops"`
	DeadlockCycle int     `json:"deadlock_cycle_len,omitempty"`
	// Jobs are the per-job results of a workload (traffic kind "jobs");
	// JobRouting the tables' metrics of seeds/001 §5.1 for its jobs
	// (routing.JobMetrics).
	Jobs       []JobRecord     `json:"jobs,omitempty"`
	JobRouting *JobRoutingInfo `json:"job_routing,omitempty"`
	// Timed is set when the failures happened while traffic ran
	// ([faults.timed]): the reroute's outcome beside the run's.
	Timed *TimedRecord `json:"timed,omitempty"`
	// Error is set when the point could not be evaluated at all.
	Error string `json:"error,omitempty"`
}

// TimedRecord is a run through a reroute (pipeline.RerouteRun): when the
// cables failed, when every switch held its new tables, when every pair
// was delivered again (-1 never, -2 not followed), when the
// throughput recovered (-1: not within the run), the packets lost and
// resent, whether the mixed tables deadlocked, and the throughput of the
// same traffic on the intact fabric and on the failed fabric routed by the
// new tables from the start.
type TimedRecord struct {
	// Sweep names the [faults.timed] variant when the entry sweeps keys
	// ("detect=5us"; empty otherwise).
	Sweep             string  `json:"sweep,omitempty"`
	FailNs            float64 `json:"fail_ns"`
	TablesNs          float64 `json:"tables_ns"`
	ReachableNs       float64 `json:"reachable_ns"`
	RecoveredNs       float64 `json:"recovered_ns"`
	PacketsLost       int64   `json:"packets_lost"`
	PacketsResent     int64   `json:"packets_resent"`
	TransientDeadlock bool    `json:"transient_deadlock,omitempty"`
	// MaxBroken and MaxLooping are the most HCA pairs the table states
	// from the failure until the last write sent into a dead end or a
	// forwarding loop at once (-1: not followed, switches failed).
	MaxBroken  int     `json:"max_broken_pairs"`
	MaxLooping int     `json:"max_looping_pairs"`
	IntactGBs  float64 `json:"intact_gbs"`
	FailedGBs  float64 `json:"failed_gbs"`
	// Windows is the run's throughput (GB/s) per whole window of WindowNs
	// from 0, the report's throughput over time.
	WindowNs float64   `json:"window_ns"`
	Windows  []float64 `json:"windows_gbs"`
}

// JobRecord is one job's result in a record.
type JobRecord struct {
	sim.JobResult
	// Mix marks a job of the fragmented mix, whose jobs and ids vary with
	// the seed: tables pool them as one row "mix".
	Mix bool `json:"mix,omitempty"`
	// EFIEffective is the most intra-job paths of this job on one
	// inter-switch channel (γᵉ(I,R,j)), Links the channels its paths cross.
	EFIEffective int `json:"efi_effective,omitempty"`
	Links        int `json:"links,omitempty"`
}

// JobRoutingInfo holds the metrics of Definitions 5.1 and 5.2 over all
// jobs of a point (routing.JobMetrics without the per-job figures, which
// are in JobRecord).
type JobRoutingInfo struct {
	EFIEffectiveMax     int     `json:"efi_effective_max"`
	EFIEffectiveJobMean float64 `json:"efi_effective_job_mean"`
	DarkFiberPct        float64 `json:"dark_fiber_pct"`
	LinksPerJobMean     float64 `json:"links_per_job_mean"`
	MultiSwitchJobs     int     `json:"multi_switch_jobs"`
}

// Failed is the number of failed components (the regression's x).
func (r *Record) Failed() int { return r.FailedLinks + r.FailedSwitch }

// Store is a results directory: results.jsonl holds the records (appended
// and synced one by one while a campaign runs, sorted by point when it
// ends), wall.jsonl the wall time of each point.
type Store struct {
	Dir      string
	campaign string
	mu       sync.Mutex
	f, wall  *os.File
	done     map[int]bool
	lock     *Lock
}

// ResultsFile is the records file inside a store directory.
const ResultsFile = "results.jsonl"

// Open opens (creating) the store in dir for campaign hash, holding the
// directory's lock until Close: a second process is refused, named the
// holder. Records of another campaign already there are an error.
func Open(dir, campaign, what string) (*Store, error) {
	lock, err := AcquireLock(dir, what)
	if err != nil {
		return nil, err
	}
	s, err := open(dir, campaign)
	if err != nil {
		lock.Release()
		return nil, err
	}
	s.lock = lock
	return s, nil
}

func open(dir, campaign string) (*Store, error) {
	s := &Store{Dir: dir, campaign: campaign, done: map[int]bool{}}
	recs, err := ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		if r.Campaign != campaign {
			return nil, fmt.Errorf("%s holds results of another campaign, or of this one under other hardware or simulator defaults (%s, this one is %s): choose another -o or remove it",
				filepath.Join(dir, ResultsFile), r.Campaign, campaign)
		}
		s.done[r.Point] = true
	}
	if err := s.truncateTorn(); err != nil {
		return nil, err
	}
	if s.f, err = os.OpenFile(filepath.Join(dir, ResultsFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err != nil {
		return nil, err
	}
	if s.wall, err = os.OpenFile(filepath.Join(dir, "wall.jsonl"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err != nil {
		return nil, err
	}
	return s, nil
}

// truncateTorn repairs the end of the records file after a crash. A last
// line without its newline is either a whole record (the power went
// between the record and its newline: it is kept, and the newline added)
// or a record cut short (it is cut off, and its point runs again). Either
// way ReadDir agrees: it counts a newline-less last line exactly when it
// is a whole record.
func (s *Store) truncateTorn() error {
	path := filepath.Join(s.Dir, ResultsFile)
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(data) == 0 || data[len(data)-1] == '\n' {
		return nil
	}
	i := bytes.LastIndexByte(data, '\n')
	var r Record
	if json.Unmarshal(data[i+1:], &r) == nil {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		if _, err := f.Write([]byte{'\n'}); err != nil {
			f.Close()
			return err
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	return os.Truncate(path, int64(i+1))
}

// Done reports whether point i already has a record.
func (s *Store) Done(i int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.done[i]
}

// Count returns how many points have records.
func (s *Store) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.done)
}

// Append writes one record and syncs it to disk before returning, so a
// killed run loses at most the points still running.
func (s *Store) Append(r Record, w Wall) error {
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done[r.Point] {
		return fmt.Errorf("point %d recorded twice", r.Point)
	}
	if _, err := s.f.Write(append(line, '\n')); err != nil {
		return err
	}
	if err := s.f.Sync(); err != nil {
		return err
	}
	s.done[r.Point] = true
	w.Point = r.Point
	round := func(x float64) float64 { return math.Round(x*1000) / 1000 }
	w.Seconds, w.Fail, w.Route, w.Sim = round(w.Seconds), round(w.Fail), round(w.Route), round(w.Sim)
	wl, err := json.Marshal(w)
	if err != nil {
		return err
	}
	_, err = s.wall.Write(append(wl, '\n'))
	return err
}

// Wall is the wall time of one point in seconds, in all and by step
// (building and failing the network, routing with verification and
// metrics, simulating): a line of wall.jsonl, which is kept apart from the
// records because it differs from run to run.
type Wall struct {
	Point   int     `json:"point"`
	Seconds float64 `json:"wall_s"`
	Fail    float64 `json:"fail_s"`
	Route   float64 `json:"route_s"`
	Sim     float64 `json:"sim_s"`
	// Build names the flitsim that ran the point (its version: release,
	// commit, Go), so that a directory resumed by another build says so.
	Build string `json:"build,omitempty"`
}

// Builds counts the points of walls by the flitsim that ran them, the
// builds in the order first seen ("" for points of a flitsim too old to
// say).
func Builds(walls []Wall) (names []string, points map[string]int) {
	points = map[string]int{}
	for _, w := range walls {
		if _, ok := points[w.Build]; !ok {
			names = append(names, w.Build)
		}
		points[w.Build]++
	}
	return names, points
}

// Close closes the files. The lock stays until Release, so that the
// final tables are written under it.
func (s *Store) Close() error {
	err := s.f.Close()
	if e := s.wall.Close(); err == nil {
		err = e
	}
	return err
}

// Release gives up the directory's lock.
func (s *Store) Release() error { return s.lock.Release() }

// Finalize rewrites results.jsonl sorted by point (atomically: a temporary
// file renamed over it), so the file is the same whatever order workers
// finished in.
func (s *Store) Finalize() error {
	recs, err := ReadDir(s.Dir)
	if err != nil {
		return err
	}
	return WriteRecords(filepath.Join(s.Dir, ResultsFile), recs)
}

// WriteRecords writes records sorted by point to path, atomically.
func WriteRecords(path string, recs []Record) error {
	sort.Slice(recs, func(i, j int) bool { return recs[i].Point < recs[j].Point })
	var buf bytes.Buffer
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			return err
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	return WriteFileAtomic(path, buf.Bytes())
}

// WriteFileAtomic writes path through a temporary file in the same
// directory, synced before it is renamed over path and the directory synced
// after, so that a reader never sees half of it and a crash leaves the old
// file or the new one. Concurrent writers each use their own temporary file;
// the last rename wins.
func WriteFileAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return err
	}
	return syncDir(dir)
}

// syncDir makes a rename in dir durable. Platforms that cannot open or
// sync a directory (Windows) skip it.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) && !errors.Is(err, syscall.EINVAL) {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// ReadDir reads the records of a store directory (none if it is new).
// A torn last line is ignored.
func ReadDir(dir string) ([]Record, error) {
	f, err := os.Open(filepath.Join(dir, ResultsFile))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Record
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	ln := 0
	for sc.Scan() {
		ln++
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			if !sc.Scan() { // the last line: a write cut short by a kill
				break
			}
			return nil, fmt.Errorf("%s:%d: %v", filepath.Join(dir, ResultsFile), ln, err)
		}
		out = append(out, r)
	}
	return out, sc.Err()
}
