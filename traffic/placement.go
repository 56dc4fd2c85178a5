package traffic

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
)

// Place allocates size HCAs among the free ones (free[h]; nil: all free)
// in the order o lays ranks on HCAs: ByHCA takes the lowest free HCAs
// (contiguous where the fabric is), RandomOrder a seeded random choice,
// RoundRobin the first HCA of every switch, then the second, … (Layout's
// order), skipping busy ones. It marks them busy in free and returns them
// in rank order.
func Place(o Order, size int, free []bool, switchOf []int, rng *rand.Rand) ([]int, error) {
	n := len(switchOf)
	if free == nil {
		free = make([]bool, n)
		for i := range free {
			free[i] = true
		}
	}
	avail := 0
	for _, f := range free {
		if f {
			avail++
		}
	}
	if size < 1 || size > avail {
		return nil, fmt.Errorf("cannot place a job of %d HCAs: %d of %d free", size, avail, n)
	}
	order, err := Layout(o, switchOf, rng)
	if err != nil {
		return nil, err
	}
	job := make([]int, 0, size)
	for _, h := range order {
		if free[h] {
			free[h] = false
			job = append(job, int(h))
			if len(job) == size {
				break
			}
		}
	}
	return job, nil
}

// Fragmentation is the seeded job-mix model: a stream of job arrivals and
// departures on a fabric whose scheduler puts each arriving job first-fit
// on the lowest free HCAs, as a batch system does that prefers utilization
// over locality (seeds/001 §5.1). After Steps events the running jobs are
// the mix: departures leave holes that later jobs fill piecemeal, so jobs
// end up spread over many switches, as Fig. 5.1 shows for Taurus and
// TSUBAME2. Zero values mean the declared defaults.
type Fragmentation struct {
	// Utilization is the share of HCAs the stream may keep busy: an event
	// is the arrival of a job of a drawn size if it fits under that share,
	// else the departure of a running job drawn uniformly.
	Utilization float64 `json:"utilization" param:"utilization" range:"(0,1]" default:"0.9" help:"fragmentation model: share of the HCAs the job stream keeps busy"`
	// MinSize and MaxSize bound the job sizes, drawn log-uniformly (many
	// small jobs, few large ones); MaxSize 0 is an eighth of the HCAs.
	MinSize int `json:"min_size" param:"min_size" range:"[1,1048576]" default:"2" help:"fragmentation model: smallest job, in HCAs"`
	MaxSize int `json:"max_size,omitempty" param:"max_size" range:"[0,1048576]" default:"0" help:"fragmentation model: largest job, in HCAs (0: an eighth of the HCAs)"`
	// Steps is the number of arrivals and departures before the snapshot
	// (0: 20 per HCA slot a mean job takes, enough to forget the empty start).
	Steps int `json:"steps,omitempty" param:"steps" range:"[0,100000000]" default:"0" help:"fragmentation model: arrivals and departures before the snapshot (0: 20 × HCAs / mean job size)"`
}

// Mix draws the running jobs of the fragmentation model on n HCAs: each
// job's HCAs ascending, jobs in arrival order.
func (f Fragmentation) Mix(n int, rng *rand.Rand) ([][]int, error) {
	util, lo, hi := f.Utilization, f.MinSize, f.MaxSize
	if util == 0 {
		util = 0.9
	}
	if lo == 0 {
		lo = 2
	}
	if hi == 0 {
		hi = max(lo, n/8)
	}
	switch {
	case util <= 0 || util > 1:
		return nil, fmt.Errorf("utilization %g outside (0,1]", util)
	case lo < 1 || hi < lo:
		return nil, fmt.Errorf("job sizes min %d, max %d: want 1 ≤ min ≤ max", lo, hi)
	case hi > n:
		return nil, fmt.Errorf("largest job %d exceeds the %d HCAs", hi, n)
	}
	// Mean of the log-uniform size distribution, for the default steps.
	mean := float64(lo)
	if hi > lo {
		mean = float64(hi-lo) / math.Log(float64(hi)/float64(lo))
	}
	steps := f.Steps
	if steps == 0 {
		steps = int(20 * float64(n) / mean)
	}
	free := make([]bool, n)
	for i := range free {
		free[i] = true
	}
	busy := 0
	var running [][]int
	oneSwitch := make([]int, n) // first fit needs no switches: ByHCA order

	for range steps {
		size := int(math.Round(float64(lo) * math.Pow(float64(hi)/float64(lo), rng.Float64())))
		if float64(busy+size) <= util*float64(n) || len(running) == 0 {
			job, err := Place(ByHCA, size, free, oneSwitch, nil)
			if err != nil {
				return nil, err
			}
			running = append(running, job)
			busy += size
			continue
		}
		k := rng.IntN(len(running))
		for _, h := range running[k] {
			free[h] = true
		}
		busy -= len(running[k])
		running = append(running[:k], running[k+1:]...)
	}
	for _, j := range running {
		sort.Ints(j)
	}
	return running, nil
}

// PlaceOnSwitches allocates size HCAs on n switches drawn at random among
// those with a free HCA: compact per switch, scattered over the fabric, as
// a batch system's allocation often is (seeds/004's Fig. 8: 1,024 nodes on
// 257 routers over six groups; Fig. 9: 64 on 33). The HCAs are dealt over
// the drawn switches one at a time in turn, so each switch gets ⌊size/n⌋
// or one more where its free HCAs allow; a switch that runs out leaves its
// turn to the others. Ranks follow fabric order (switch by switch, each
// switch's HCAs ascending), as a scheduler's sorted node list gives them.
// It marks the HCAs busy in free.
func PlaceOnSwitches(size, n int, free []bool, switchOf []int, rng *rand.Rand) ([]int, error) {
	bySwitch := map[int][]int{}
	var switches []int
	for h, s := range switchOf {
		if free != nil && !free[h] {
			continue
		}
		if _, ok := bySwitch[s]; !ok {
			switches = append(switches, s)
		}
		bySwitch[s] = append(bySwitch[s], h)
	}
	sort.Ints(switches)
	if n < 1 || n > len(switches) {
		return nil, fmt.Errorf("cannot place a job on %d switches: %d have a free HCA", n, len(switches))
	}
	rng.Shuffle(len(switches), func(i, j int) { switches[i], switches[j] = switches[j], switches[i] })
	chosen := switches[:n]
	sort.Ints(chosen)
	avail := 0
	for _, s := range chosen {
		avail += len(bySwitch[s])
	}
	if size < 1 || size > avail {
		return nil, fmt.Errorf("cannot place a job of %d HCAs on %d switches: they have %d free", size, n, avail)
	}
	take := make([]int, n)
	for dealt := 0; dealt < size; {
		for i, s := range chosen {
			if dealt < size && take[i] < len(bySwitch[s]) {
				take[i]++
				dealt++
			}
		}
	}
	job := make([]int, 0, size)
	for i, s := range chosen {
		for _, h := range bySwitch[s][:take[i]] {
			job = append(job, h)
			if free != nil {
				free[h] = false
			}
		}
	}
	return job, nil
}
