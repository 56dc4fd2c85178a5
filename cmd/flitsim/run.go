package main

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"flitsim/fabric"
	"flitsim/faults"
)

// quickstartTopologies is the embedded default until campaign files exist:
// a small fat tree and a small torus of Table 4.2.
var quickstartTopologies = []string{
	"kary-ntree:k=16,n=2",
	"torus:dims=5x5,hcas=275,redundancy=6",
}

func runCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("run", "run [--seeds N]",
		"Runs the main job on the embedded default. For now (no simulator yet) this is the topology and\n"+
			"fault pipeline: each quickstart topology at 0, 1, 3 and 5 % link failures for every seed, with\n"+
			"the surviving network's size and connectivity.", stderr)
	seeds := fs.Int("seeds", 3, "seeds per failure level")
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
	fmt.Fprintln(tw, "topology\tfail %\tseed\tswitches\tHCAs\tswitch links\tfailed\tredrawn\tdiameter\tκ\tλ\t")
	for _, spec := range quickstartTopologies {
		net, err := fabric.Build(spec)
		if err != nil {
			return err
		}
		for _, pct := range []float64{0, 1, 3, 5} {
			for seed := 1; seed <= *seeds; seed++ {
				after, rec, err := faults.Inject(net, faults.Spec{LinkPercent: pct, Seed: uint64(seed)})
				if err != nil {
					return fmt.Errorf("%s at %g %%: %w", spec, pct, err)
				}
				in := fabric.Summarize(after)
				fmt.Fprintf(tw, "%s\t%g\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", spec, pct, seed, in.Switches, in.HCAs,
					in.SwitchLinks, len(rec.Links), rec.Redrawn, in.Diameter, in.VertexConnectivity, in.EdgeConnectivity)
			}
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "done in %.1f s\n", time.Since(start).Seconds())
	return nil
}
