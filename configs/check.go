package configs

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"flitsim/fabric"
	"flitsim/fabric/param"
	"flitsim/faults"
	"flitsim/routing"
	"flitsim/traffic"
)

// Check does everything a run does before it simulates: it reads every
// file the campaign names (fabric files, failure lists, LFT dumps; their
// digests go into Inputs, so the campaign's identity covers their
// contents), builds every network, draws every failure level with every
// seed, resolves every routing's roots and dump, and builds every traffic
// pattern for the HCAs each failure draw leaves. A campaign that passes
// Check fails no point for a reason Check could have seen; every error
// names the campaign file, the line and the key.
func (c *Campaign) Check() error {
	c.Inputs = map[string]string{}
	c.built = map[string]*fabric.Network{}
	nets := make([]*fabric.Network, len(c.Topologies))
	for i, t := range c.Topologies {
		sp, _ := fabric.ParseSpec(t.Spec)
		if sp.Kind == "file" {
			if err := c.digest(sp.Path); err != nil {
				return c.errAtKey("topology.spec", i, "%v", err)
			}
		}
		net, err := fabric.Build(t.Spec)
		if err != nil {
			return c.errAtKey("topology.spec", i, "%v", err)
		}
		if net.NumHCAs() < 2 {
			return c.errAtKey("topology.spec", i, "%s has %d HCAs: traffic needs at least two", t.Spec, net.NumHCAs())
		}
		if err := c.hw.CheckNetwork(net); err != nil {
			return c.errAtKey("topology.spec", i, "%s with this [hardware]: %v", t.Spec, err)
		}
		nets[i] = net
		c.built[t.Spec] = net
	}
	if c.JobsFile != "" {
		if err := c.digest(c.JobsFile); err != nil {
			return c.errAtKey("jobs_file", -1, "%v", err)
		}
	}
	fixed := map[string][]faults.Fixed{}
	for i, f := range c.Faults {
		if f.Fixed == "" || fixed[f.Fixed] != nil {
			continue
		}
		if err := c.digest(f.Fixed); err != nil {
			return c.errAtKey("faults.fixed", i, "%v", err)
		}
		list, err := faults.LoadFixed(f.Fixed)
		if err != nil {
			return c.errAtKey("faults.fixed", i, "%v", err)
		}
		fixed[f.Fixed] = list
	}
	for i, t := range c.Traffic {
		if p := t.Spec.Program; p != nil {
			if err := c.checkTrace(t.Spec.Job(p.Size())); err != nil {
				return c.errAtKey("traffic.trace", i, "%v", err)
			}
		}
	}
	for i, r := range c.Routings {
		o := r.Options
		if r.Has("file") {
			if err := c.digest(o.File); err != nil {
				return c.errAtKey("routing.file", i, "%v", err)
			}
		}
		if r.Has("vls") && o.VLs > c.hw.VLs {
			return c.errAtKey("routing.vls", i, "%d VLs, but the hardware has %d (hardware.vls)", o.VLs, c.hw.VLs)
		}
		for ti, net := range nets {
			if len(o.Roots) > 0 {
				if _, err := routing.ResolveRoots(net, o.Roots); err != nil {
					return c.errAtKey("routing.roots", i, "on %s: %v", c.Topologies[ti].Spec, err)
				}
			}
			if r.Has("file") {
				if _, err := routing.LoadLFTs(o.File, net); err != nil {
					return c.errAtKey("routing.file", i, "on %s: %v", c.Topologies[ti].Spec, err)
				}
			}
		}
	}
	for ti, net := range nets {
		hcaCounts := map[int]bool{net.NumHCAs(): true}
		for fi, f := range c.Faults {
			for _, pct := range f.Percent {
				for _, seed := range c.seedsOfFaults() {
					spec := c.faultSpec(f, pct, uint64(seed), fixed[f.Fixed])
					failed, _, err := faults.Inject(net, spec)
					if err != nil {
						return c.errAtKey("faults.percent", fi, "%s %g %% on %s (seed %d): %v", f.Kind, pct, c.Topologies[ti].Spec, seed, err)
					}
					if failed.NumHCAs() < 2 {
						return c.errAtKey("faults.percent", fi, "%s %g %% on %s (seed %d) leaves %d HCAs: traffic needs two", f.Kind, pct, c.Topologies[ti].Spec, seed, failed.NumHCAs())
					}
					hcaCounts[failed.NumHCAs()] = true
				}
			}
		}
		if err := c.checkPlacements(ti, net, hcaCounts); err != nil {
			return err
		}
		for i, t := range c.Traffic {
			if t.Kind == JobsKind {
				continue // checkPlacements
			}
			p, _ := c.simParams(t)
			for _, n := range slices.Sorted(maps.Keys(hcaCounts)) { // the same first error every run
				if err := p.Traffic.Check(n); err != nil {
					key, msg := "traffic.kind", err.Error()
					if pe := (*param.Error)(nil); errors.As(err, &pe) {
						msg = pe.Msg
						if pe.Key != "" && pe.Key != "pattern" && t.Has(pe.Key) {
							key = "traffic." + pe.Key
						}
					}
					return c.errAtKey(key, i, "on %s with %d HCAs: %s", c.Topologies[ti].Spec, n, msg)
				}
			}
		}
	}
	return nil
}

// checkPlacements places the workload on topology ti with every seed a
// point will place it with, and refuses failure draws that leave fewer
// HCAs than it was placed on (hcaCounts: the HCAs every draw leaves).
func (c *Campaign) checkPlacements(ti int, net *fabric.Network, hcaCounts map[int]bool) error {
	if c.Workload == nil {
		return nil
	}
	if len(hcaCounts) > 1 {
		for fi, f := range c.Faults {
			if f.Fixed != "" {
				return c.errAtKey("faults.fixed", fi, "on %s the failures take HCAs, and the jobs are placed on all %d of them", c.Topologies[ti].Spec, net.NumHCAs())
			}
		}
		return c.errAtKey("faults", -1, "on %s the failures take HCAs, and the jobs are placed on all %d of them", c.Topologies[ti].Spec, net.NumHCAs())
	}
	seen := map[int64]bool{}
	for _, t := range c.Traffic {
		if t.Kind != JobsKind {
			continue
		}
		seeds := c.TrafficSeeds
		if len(t.TrafficSeeds) > 0 {
			seeds = t.TrafficSeeds
		}
		for _, tseed := range seeds {
			seed := c.jobsSeed(tseed)
			if seen[seed] {
				continue
			}
			seen[seed] = true
			jobs, err := c.Workload.Place(net, seed, c.hw.MTU)
			for _, j := range jobs {
				if j.Traffic.Kind == traffic.Trace && err == nil {
					err = c.checkTrace(j)
				}
			}
			if err != nil {
				var ce *Error
				if errors.As(err, &ce) {
					e := *ce
					e.Msg = fmt.Sprintf("on %s, placed with seed %d: %s", c.Topologies[ti].Spec, seed, e.Msg)
					return &e
				}
				return c.errAtKey("job", -1, "on %s, placed with seed %d: %v", c.Topologies[ti].Spec, seed, err)
			}
		}
	}
	return nil
}

// seedsOfFaults are every seed a failure draw uses (the campaign's and
// every traffic entry's own).
func (c *Campaign) seedsOfFaults() []int64 {
	seen := map[int64]bool{}
	var out []int64
	add := func(ss []int64) {
		for _, s := range ss {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	add(c.FaultSeeds)
	for _, t := range c.Traffic {
		add(t.FaultSeeds)
	}
	return out
}

// faultSpec is the failure draw of one level and seed of entry f.
func (c *Campaign) faultSpec(f FaultsEntry, pct float64, seed uint64, fixed []faults.Fixed) faults.Spec {
	fs := faults.Spec{Seed: seed, TakeHCAs: f.TakeHCAs, Fixed: fixed, Level: f.Level}
	switch f.Kind {
	case "links":
		fs.LinkPercent = pct
	case "switches":
		fs.SwitchPercent = pct
	case "mixed":
		fs.MixedPercent = pct
		fs.RatioSwitches, fs.RatioLinks, _ = f.ratio()
	}
	return fs
}

// digest records the SHA-256 of a file the campaign reads.
func (c *Campaign) digest(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(data)
	c.Inputs[path] = hex.EncodeToString(sum[:])
	return nil
}

// checkTrace reads a trace job's program through as its replay will
// (once per trace and algorithms) and records the digest of its files.
func (c *Campaign) checkTrace(j traffic.Job) error {
	key := j.Traffic.Trace + "\x00" + j.Traffic.Algorithm
	if c.tracesChecked[key] {
		return nil
	}
	if err := traffic.CheckTrace(j); err != nil {
		return err
	}
	if c.tracesChecked == nil {
		c.tracesChecked = map[string]bool{}
	}
	c.tracesChecked[key] = true
	return c.digestTrace(j.Traffic.Trace, j.Program)
}

// digestTrace records the digest of a trace's files (Trace.Files) as
// the input path.
func (c *Campaign) digestTrace(path string, p traffic.Program) error {
	if _, ok := c.Inputs[path]; ok {
		return nil
	}
	h := sha256.New()
	files, err := TraceFiles(p)
	if err != nil {
		return err
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %d\n", filepath.Base(f), len(data))
		h.Write(data)
	}
	c.Inputs[path] = hex.EncodeToString(h.Sum(nil))
	return nil
}

// String names the campaign for messages.
func (c *Campaign) String() string { return fmt.Sprintf("campaign %q (%s)", c.Name, c.Source) }

// Built returns the networks Check built, by topology spec, for the run
// that follows to take rather than build again (nil before Check).
func (c *Campaign) Built() map[string]*fabric.Network { return c.built }
