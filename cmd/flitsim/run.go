package main

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"
	"time"

	"flitsim/fabric"
	"flitsim/faults"
	"flitsim/routing"
	"flitsim/sim"
	"flitsim/traffic"
)

// The embedded default until campaign files exist: a small fat tree and a
// small torus, link faults 0/1/3/5 %, three routings, all-to-all exchange.
var (
	quickstartTopologies = []string{"kary-ntree:k=8,n=2", "torus:dims=4x4,hcas=64,redundancy=2"}
	quickstartRoutings   = []string{"dfsssp", "updn", "minhop"}
	quickstartFaults     = []float64{0, 1, 3, 5}
)

func runCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("run", "run [--seeds N]",
		"Runs the main job on the embedded quickstart: a small fat tree and a small torus at 0, 1, 3 and 5 %\n"+
			"link failures, each seed a different failure draw, routed by DFSSSP, Up*/Down* and MinHop, with an\n"+
			"all-to-all exchange of 2 KiB messages simulated at flit level. Prints the throughput per point and,\n"+
			"per topology and routing, the linear regression of throughput on the number of failed cables.", stderr)
	seeds := fs.Int("seeds", 3, "failure seeds per failure level")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return badInput("campaign files are not supported yet (got %q)", pos[0])
	}
	if *seeds < 1 {
		return badInput("--seeds must be at least 1")
	}
	start := time.Now()
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "topology\trouting\tfail %\tseed\tfailed\tverdict\tthroughput GB/s\t")
	type key struct{ topo, routing string }
	points := map[key][][2]float64{}
	total := len(quickstartTopologies) * len(quickstartFaults) * *seeds * len(quickstartRoutings)
	done := 0
	for _, spec := range quickstartTopologies {
		base, err := fabric.Build(spec)
		if err != nil {
			return err
		}
		for _, pct := range quickstartFaults {
			for seed := 1; seed <= *seeds; seed++ {
				net, rec, err := faults.Inject(base, faults.Spec{LinkPercent: pct, Seed: uint64(seed)})
				if err != nil {
					return fmt.Errorf("%s at %g %%: %w", spec, pct, err)
				}
				for _, eng := range quickstartRoutings {
					verdict, gbs := "routing failed", 0.0
					if tb, err := routing.Compute(eng, net, routing.DefaultOptions()); err == nil {
						p := sim.DefaultParams()
						p.Seed = uint64(seed)
						p.Traffic = traffic.Spec{Kind: traffic.Exchange, MessageBytes: 2048}
						res, err := sim.Run(net, tb, p)
						if err != nil {
							return err
						}
						verdict, gbs = res.Verdict, res.ThroughputGBs
						if verdict == sim.Completed {
							k := key{spec, eng}
							points[k] = append(points[k], [2]float64{float64(len(rec.Links)), gbs})
						}
					}
					fmt.Fprintf(tw, "%s\t%s\t%g\t%d\t%d\t%s\t%.2f\t\n", spec, eng, pct, seed, len(rec.Links), verdict, gbs)
					done++
					fmt.Fprintf(stderr, "\r%d/%d points", done, total)
				}
			}
		}
	}
	fmt.Fprintln(stderr)
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "\nThroughput degradation: linear regression of exchange throughput on failed cables")
	tw = tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "topology\trouting\tintercept GB/s\tslope GB/s per failure\tR²\tpoints\t")
	for _, spec := range quickstartTopologies {
		for _, eng := range quickstartRoutings {
			pts := points[key{spec, eng}]
			a, b, r2 := regress(pts)
			fmt.Fprintf(tw, "%s\t%s\t%.2f\t%.3f\t%.2f\t%d\t\n", spec, eng, a, b, r2, len(pts))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "done in %.1f s\n", time.Since(start).Seconds())
	return nil
}

// regress fits y = a + b·x by least squares and returns a, b and R².
func regress(pts [][2]float64) (a, b, r2 float64) {
	n := float64(len(pts))
	if n == 0 {
		return 0, 0, 0
	}
	var sx, sy, sxx, sxy, syy float64
	for _, p := range pts {
		sx += p[0]
		sy += p[1]
		sxx += p[0] * p[0]
		sxy += p[0] * p[1]
		syy += p[1] * p[1]
	}
	vx := sxx - sx*sx/n
	vy := syy - sy*sy/n
	if vx == 0 {
		return sy / n, 0, 0
	}
	b = (sxy - sx*sy/n) / vx
	a = (sy - b*sx) / n
	if vy > 0 {
		r2 = math.Pow(sxy-sx*sy/n, 2) / (vx * vy)
	}
	return a, b, r2
}
