package pipeline

import (
	"math"
	"math/rand/v2"
	"strconv"

	"flitsim/fabric"
	"flitsim/sim"
	"flitsim/traffic"
)

// IdealTimes gives every finite job of res that completed its completion
// alone on an ideal network (sim.JobResult.IdealNs; traffic.Ideal): each
// message takes one wire time of an HCA's link, packets' headers
// included, and nothing else delays it. The same draws as the run's
// (fabric.Stream by job and HCA), so a random pattern sends the same
// messages.
func IdealTimes(res *sim.Result, p sim.Params) {
	hw := p.HW
	ft := hw.FlitPs()
	wire := func(b int) int64 {
		full, rem := b/hw.MTU, b%hw.MTU
		w := int64(full*hw.PacketFlits(hw.MTU)) * ft
		if rem > 0 {
			w += int64(hw.PacketFlits(rem)) * ft
		}
		return w
	}
	n := 0
	for _, j := range p.Jobs {
		for _, t := range j.Ranks {
			n = max(n, t+1)
		}
	}
	for j, job := range p.Jobs {
		if j >= len(res.Jobs) || !job.Finite() || !res.Jobs[j].Completed {
			continue
		}
		src, err := traffic.NewWorkload([]traffic.Job{job}, n, func(id string) *rand.Rand { return fabric.Stream(p.Seed, "traffic/job/"+id) }, wire)
		if err != nil {
			continue // the run itself opened it
		}
		run := traffic.Ideal(src, n, wire, math.MaxInt, func(t int) *rand.Rand { return fabric.Stream(p.Seed, "traffic/hca/"+strconv.Itoa(t)) })
		if !run.Done || run.Last[0] <= job.Traffic.Start {
			continue
		}
		r := &res.Jobs[j]
		r.IdealNs = float64(run.Last[0]-job.Traffic.Start) / 1000
		r.IdealSlowdown = r.CompletionNs / r.IdealNs
	}
}
