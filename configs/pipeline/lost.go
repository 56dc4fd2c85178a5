package pipeline

import (
	"fmt"

	"flitsim/fabric"
	"flitsim/faults"
	"flitsim/routing"
	"flitsim/sim"
)

// Lost is the experiment of seeds/001 §4.2.3.1 (Props. 4.1 and 4.2, Fig.
// 4.2): the share of HCA pairs whose route, computed on the intact
// fabric, crosses a component that has since failed: the paths lost until
// the subnet manager has rerouted. Each engine routes the intact network
// once; for every failure count and draw the same failures (faults.Inject,
// non-critical, seed = the draw) meet every engine's tables.
type Lost struct {
	Net     *fabric.Network
	Engines []string
	Options routing.Options
	// Switches draws switch failures (switches without HCAs, each taking
	// every cable it has); otherwise inter-switch cables fail.
	Switches bool
	Counts   []int // failures per draw, each ≥ 1
	Draws    int   // failure seeds 1..Draws per count
	Workers  int   // draws at once (results do not depend on it)
	// Progress, if set, hears of every draw done.
	Progress func(done, total int)
}

// LostEngine is one engine's outcome.
type LostEngine struct {
	Engine string `json:"engine"`
	// Pairs is the number of ordered HCA pairs the tables route.
	Pairs int `json:"pairs"`
	// PerFailure is Prop. 4.1's expected number of pairs one failure
	// loses: the mean over the candidates (the cables or switches a draw
	// may pick) of the routes crossing it, from the channels' forwarding
	// indices γ(c).
	PerFailure float64     `json:"per_failure"`
	Levels     []LostLevel `json:"levels"`
}

// LostLevel is one failure count of an engine.
type LostLevel struct {
	Count int `json:"count"`
	// Percent summarizes over the draws the percentage of Pairs lost.
	Percent sim.Stats `json:"percent"`
	Mean    float64   `json:"mean_percent"`
	// Prop42 is Prop. 4.2's approximation, n · PerFailure, in percent of
	// Pairs (at most 100).
	Prop42 float64   `json:"prop42_percent"`
	Draws  []float64 `json:"draws_percent"` // by seed 1..Draws
}

// Run routes the network with every engine and counts the lost pairs of
// every draw.
func (l Lost) Run() ([]LostEngine, error) {
	if l.Draws < 1 || len(l.Counts) == 0 || len(l.Engines) == 0 {
		return nil, fmt.Errorf("lost paths: want at least one engine, count and draw")
	}
	net := l.Net
	cands := l.candidates()
	if len(cands) == 0 {
		what := "inter-switch cables"
		if l.Switches {
			what = "switches without HCAs"
		}
		return nil, fmt.Errorf("%s has no %s to fail", net.Name, what)
	}
	tables := make([]*routing.Tables, len(l.Engines))
	out := make([]LostEngine, len(l.Engines))
	for i, e := range l.Engines {
		r, err := Route(net, e, l.Options)
		if err != nil {
			return nil, err
		}
		if !r.OK() {
			return nil, fmt.Errorf("%s on %s: %s", e, net.Name, r.Problem())
		}
		tables[i] = r.Tables
		loads, err := routing.ChannelLoads(net, r.Tables)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e, err)
		}
		_, pairs, err := routing.BrokenPaths(net, r.Tables, make([]bool, len(net.Links)))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e, err)
		}
		out[i] = LostEngine{Engine: e, Pairs: pairs, PerFailure: l.perFailure(loads, cands)}
	}
	ix := newCableIndex(net)

	// Every (count, draw) once, in a fixed order; workers take them in turn.
	type job struct{ level, draw int }
	var jobs []job
	for li := range l.Counts {
		for d := range l.Draws {
			jobs = append(jobs, job{li, d})
		}
	}
	lost := make([][]float64, len(jobs)) // per job, per engine: percent
	errs := make([]error, len(jobs))
	each(len(jobs), l.Workers, l.Progress, func(ji int) {
		j := jobs[ji]
		lost[ji], errs[ji] = l.draw(ix, tables, l.Counts[j.level], uint64(j.draw+1))
	})
	for ji, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("%d failures, draw %d: %w", l.Counts[jobs[ji].level], jobs[ji].draw+1, err)
		}
	}
	for i := range out {
		for li, n := range l.Counts {
			lv := LostLevel{Count: n, Draws: make([]float64, l.Draws)}
			sum := 0.0
			for d := range l.Draws {
				v := lost[li*l.Draws+d][i]
				lv.Draws[d] = v
				sum += v
			}
			lv.Percent = sim.Summarize(append([]float64(nil), lv.Draws...))
			lv.Mean = sum / float64(l.Draws)
			if p := out[i].Pairs; p > 0 {
				lv.Prop42 = min(100, 100*float64(n)*out[i].PerFailure/float64(p))
			}
			out[i].Levels = append(out[i].Levels, lv)
		}
	}
	return out, nil
}

// candidates lists what a draw may fail: inter-switch cables, or switches
// without HCAs (faults.Inject's candidates).
func (l Lost) candidates() []int {
	var c []int
	if l.Switches {
		for s := range l.Net.NumSwitches {
			if len(l.Net.HCAsOf(s)) == 0 {
				c = append(c, s)
			}
		}
		return c
	}
	for i := range l.Net.Links {
		if l.Net.IsSwitchLink(i) {
			c = append(c, i)
		}
	}
	return c
}

// perFailure is Prop. 4.1's mean over the candidates of the routes each
// carries: a cable's two channels, or every channel into a switch (a
// route enters a switch without HCAs once, by a cable).
func (l Lost) perFailure(loads []int64, cands []int) float64 {
	chans := fabric.NewChannels(l.Net)
	var sum int64
	if l.Switches {
		into := make([]int64, len(l.Net.Nodes))
		for ch := range int32(chans.Len()) {
			into[chans.To(ch).Node] += loads[ch]
		}
		for _, s := range cands {
			sum += into[s]
		}
	} else {
		for _, c := range cands {
			sum += loads[2*c] + loads[2*c+1]
		}
	}
	return float64(sum) / float64(len(cands))
}

// cableIndex finds a failure record's cables and switches in the network.
type cableIndex struct {
	byEnd  map[string]int   // "node/port" of a cable's A end → cable
	node   map[string]int32 // switch name → node
	cables map[int32][]int  // switch → its cables
}

func newCableIndex(net *fabric.Network) *cableIndex {
	ix := &cableIndex{byEnd: map[string]int{}, node: map[string]int32{}, cables: map[int32][]int{}}
	for i, lk := range net.Links {
		ix.byEnd[fmt.Sprintf("%s/%d", net.Nodes[lk.A.Node].Name, lk.A.Port)] = i
		ix.cables[lk.A.Node] = append(ix.cables[lk.A.Node], i)
		if lk.B.Node != lk.A.Node {
			ix.cables[lk.B.Node] = append(ix.cables[lk.B.Node], i)
		}
	}
	for i := range net.NumSwitches {
		ix.node[net.Nodes[i].Name] = int32(i)
	}
	return ix
}

// draw fails n components with seed and returns, per engine, the percent
// of its routed pairs lost.
func (l Lost) draw(ix *cableIndex, tables []*routing.Tables, n int, seed uint64) ([]float64, error) {
	net := l.Net
	spec := faults.Spec{Seed: seed}
	if l.Switches {
		spec.SwitchPercent = 100 * float64(n) / float64(net.NumSwitches)
	} else {
		spec.LinkPercent = 100 * float64(n) / float64(net.SwitchLinks())
	}
	_, rec, err := faults.Inject(net, spec)
	if err != nil {
		return nil, err
	}
	failed := make([]bool, len(net.Links))
	for _, f := range rec.Links {
		i, ok := ix.byEnd[fmt.Sprintf("%s/%d", f.A, f.PortA)]
		if !ok {
			return nil, fmt.Errorf("failed cable %s/%d not in %s", f.A, f.PortA, net.Name)
		}
		failed[i] = true
	}
	for _, name := range rec.Switches {
		s, ok := ix.node[name]
		if !ok {
			return nil, fmt.Errorf("failed switch %s not in %s", name, net.Name)
		}
		for _, i := range ix.cables[s] {
			failed[i] = true
		}
	}
	out := make([]float64, len(tables))
	for i, t := range tables {
		broken, total, err := routing.BrokenPaths(net, t, failed)
		if err != nil {
			return nil, err
		}
		if total > 0 {
			out[i] = 100 * float64(broken) / float64(total)
		}
	}
	return out, nil
}
