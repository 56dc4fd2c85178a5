package main

import (
	"fmt"
	"io"
	"sort"
	"sync"
	"text/tabwriter"

	"flitsim/results"
)

// timeSpent sums the wall time of a run's points by topology and step, to
// tell a user where a campaign's time goes. Safe for concurrent use.
type timeSpent struct {
	mu     sync.Mutex
	byTopo map[string]*spentOn
}

type spentOn struct {
	points int
	w      results.Wall
}

func newTimeSpent() *timeSpent { return &timeSpent{byTopo: map[string]*spentOn{}} }

// add counts one point of topology topo.
func (t *timeSpent) add(topo string, w results.Wall) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.byTopo[topo]
	if s == nil {
		s = &spentOn{}
		t.byTopo[topo] = s
	}
	s.add(w)
}

// add counts one point that took w.
func (s *spentOn) add(w results.Wall) {
	s.points++
	s.w = plus(s.w, w)
}

// plus sums two wall times step by step.
func plus(a, b results.Wall) results.Wall {
	return results.Wall{Seconds: a.Seconds + b.Seconds, Fail: a.Fail + b.Fail, Route: a.Route + b.Route, Sim: a.Sim + b.Sim}
}

// write prints the time by topology, most first, with each step's share;
// seconds are summed over the workers (wall.jsonl has every point's).
func (t *timeSpent) write(w io.Writer) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.byTopo) == 0 {
		return
	}
	names := make([]string, 0, len(t.byTopo))
	var all spentOn
	for n, s := range t.byTopo {
		names = append(names, n)
		all.points += s.points
		all.w = plus(all.w, s.w)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := t.byTopo[names[i]], t.byTopo[names[j]]
		return a.w.Seconds > b.w.Seconds || a.w.Seconds == b.w.Seconds && names[i] < names[j]
	})
	fmt.Fprintln(w, "where the time went (seconds summed over workers; per point in wall.jsonl):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "topology\tpoints\tseconds\tper point\tbuild+fail\troute+verify\tsimulate\t")
	row := func(name string, s *spentOn) {
		pct := func(x float64) string {
			if s.w.Seconds <= 0 {
				return "-"
			}
			return fmt.Sprintf("%.0f %%", 100*x/s.w.Seconds)
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.3f\t%s\t%s\t%s\t\n", name, s.points, s.w.Seconds, s.w.Seconds/float64(s.points),
			pct(s.w.Fail), pct(s.w.Route), pct(s.w.Sim))
	}
	for _, n := range names {
		row(n, t.byTopo[n])
	}
	row("all", &all)
	tw.Flush()
}
