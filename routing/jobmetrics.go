package routing

import (
	"fmt"

	"flitsim/fabric"
)

// JobMetrics are the metrics of the thesis' §5.1 for the jobs running on a
// fabric, over its inter-switch channels C* (both directions of a cable,
// parallel cables separate, as Metrics counts them).
type JobMetrics struct {
	// EFIEffectiveMax is max over C* of the effective edge forwarding
	// index γᵉ(c) (Definition 5.1): the intra-job paths crossing c, summed
	// over all jobs.
	EFIEffectiveMax int `json:"efi_effective_max"`
	// EFIEffectiveJobMean is the mean over the multi-switch jobs of
	// γᵉ(I,R,j), the most intra-job paths of job j on one channel.
	EFIEffectiveJobMean float64 `json:"efi_effective_job_mean"`
	// DarkFiberPct is θ (Definition 5.2): the percentage of C* that no
	// intra-job path crosses.
	DarkFiberPct float64 `json:"dark_fiber_pct"`
	// LinksPerJobMean is the mean over the multi-switch jobs of the
	// channels of C* that job j's paths cross (the links available to it).
	LinksPerJobMean float64 `json:"links_per_job_mean"`
	// Jobs counts the jobs, MultiSwitchJobs those with HCAs on at least
	// two switches: only they cross C*, and only they enter the means
	// (the thesis' filter, §5.2.2.1).
	Jobs            int `json:"jobs"`
	MultiSwitchJobs int `json:"multi_switch_jobs"`
	// Unrouted counts intra-job HCA pairs the tables do not deliver.
	Unrouted int64 `json:"unrouted_pairs,omitempty"`
	// PerJob holds each job's figures, in the order given.
	PerJob []JobEFI `json:"per_job,omitempty"`
	// Channels is |C*|.
	Channels int `json:"channels"`
}

// JobEFI is one job's share of JobMetrics.
type JobEFI struct {
	HCAs     int `json:"hcas"`
	Switches int `json:"switches"`
	// EFIMax is γᵉ(I,R,j); Links the channels of C* its paths cross.
	EFIMax int `json:"efi_max"`
	Links  int `json:"links"`
}

// MeasureJobs computes the JobMetrics of tables t for jobs (HCA ordinals
// per job, as Options.Jobs) on net.
func MeasureJobs(net *fabric.Network, t *Tables, jobs [][]int) (JobMetrics, error) {
	if err := t.check(net); err != nil {
		return JobMetrics{}, err
	}
	g := newGraph(net)
	jm, err := g.newJobMap(jobs)
	if err != nil {
		return JobMetrics{}, err
	}
	destOf := make([]int32, len(g.hcaSwitch)) // HCA ordinal → index into dests
	for i := range destOf {
		destOf[i] = -1
	}
	for i, n := range g.destNode {
		destOf[int(n)-g.S] = int32(i)
	}
	m := JobMetrics{Jobs: len(jobs)}
	all := make([]int64, g.chans.Len()) // γᵉ over all jobs
	one := make([]int64, g.chans.Len()) // γᵉ of the current job
	cnt := make([]int64, g.S)
	onSwitch := make([]int32, g.S)
	var tr destTree
	var touched []int32
	for j, hs := range jm.members {
		e := JobEFI{HCAs: len(hs)}
		for _, h := range hs {
			s := g.hcaSwitch[h]
			if onSwitch[s] != int32(j+1) {
				onSwitch[s] = int32(j + 1)
				e.Switches++
			}
		}
		touched = touched[:0]
		for _, d := range hs {
			i := destOf[d]
			if i < 0 {
				m.Unrouted += int64(len(hs) - 1) // no LID: nothing reaches it
				continue
			}
			if t.Source != nil {
				m.Unrouted += g.jobSourceLoads(t, hs, d, i, destOf, one, &touched)
				continue
			}
			g.tree(t, int(i), &tr)
			clear(cnt)
			for _, h := range hs {
				if h != d {
					cnt[g.hcaSwitch[h]]++
				}
			}
			dst := int(g.destSwitch[i])
			for s := range cnt {
				if cnt[s] > 0 && tr.depth[s] < 0 {
					m.Unrouted += cnt[s]
				}
			}
			for _, u := range tr.order {
				if int(u) == dst || cnt[u] == 0 {
					continue
				}
				ch := tr.next[u]
				if one[ch] == 0 {
					touched = append(touched, ch)
				}
				one[ch] += cnt[u]
				cnt[g.chTo(ch)] += cnt[u]
			}
		}
		for _, ch := range touched {
			e.EFIMax = max(e.EFIMax, int(one[ch]))
			all[ch] += one[ch]
			one[ch] = 0
		}
		e.Links = len(touched)
		if e.Switches >= 2 {
			m.MultiSwitchJobs++
			m.EFIEffectiveJobMean += float64(e.EFIMax)
			m.LinksPerJobMean += float64(e.Links)
		}
		m.PerJob = append(m.PerJob, e)
	}
	if m.MultiSwitchJobs > 0 {
		m.EFIEffectiveJobMean /= float64(m.MultiSwitchJobs)
		m.LinksPerJobMean /= float64(m.MultiSwitchJobs)
	}
	dark := 0
	for ch := range all {
		if !g.isSwitchChannel(int32(ch)) {
			continue
		}
		m.Channels++
		m.EFIEffectiveMax = max(m.EFIEffectiveMax, int(all[ch]))
		if all[ch] == 0 {
			dark++
		}
	}
	if m.Channels > 0 {
		m.DarkFiberPct = 100 * float64(dark) / float64(m.Channels)
	}
	return m, nil
}

// String is a one-line summary.
func (m JobMetrics) String() string {
	return fmt.Sprintf("effective EFI max %d, per job %.1f; dark fiber %.2f %%; links per job %.1f (%d of %d jobs span switches)",
		m.EFIEffectiveMax, m.EFIEffectiveJobMean, m.DarkFiberPct, m.LinksPerJobMean, m.MultiSwitchJobs, m.Jobs)
}

// jobSourceLoads adds to one the channels of every source route from the
// job's HCAs hs to HCA d (destination index i), noting the channels first
// touched, and returns the pairs without a route.
func (g *graph) jobSourceLoads(t *Tables, hs []int32, d int32, i int32, destOf []int32, one []int64, touched *[]int32) int64 {
	var unrouted int64
	for _, h := range hs {
		if h == d {
			continue
		}
		if destOf[h] < 0 {
			unrouted++
			continue
		}
		path, ok := g.hcaPath(t, int(destOf[h]), int(i))
		if !ok {
			unrouted++
			continue
		}
		for _, ch := range path[1 : len(path)-1] {
			if one[ch] == 0 {
				*touched = append(*touched, ch)
			}
			one[ch]++
		}
	}
	return unrouted
}
