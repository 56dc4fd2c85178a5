// Package difftest holds the two simulators to each other: a seeded
// generator of small simulation scenarios (every topology generator, with
// and without failures, every routing engine, every traffic pattern,
// message sizes from one byte to ten MTUs, loads from 0.05 to 1, hardware
// overrides) and a comparison of two results packet by packet. The fast
// simulator (package sim) and the reference (package sim/reference) must
// agree on every scenario; the reference is the specification.
package difftest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"

	"flitsim/fabric"
	"flitsim/faults"
	"flitsim/routing"
	"flitsim/sim"
	"flitsim/traffic"
)

// Scenario is one generated simulation input, complete and printable: the
// same Scenario always builds the same network, tables and parameters.
type Scenario struct {
	// Seed is the generator seed the scenario came from (0 for scenarios
	// written by hand or drawn from fuzz input).
	Seed     uint64
	Topology string
	// LinkPercent and SwitchPercent fail cables and switches (seeded by
	// FaultSeed) before routing.
	LinkPercent, SwitchPercent float64
	FaultSeed                  uint64
	// TakeHCAs lets switches with HCAs fail (their HCAs leave).
	TakeHCAs bool
	// Engine routes the network with VLs virtual lanes; "file" routes with
	// minhop, writes the tables as an OpenSM dump and reads them back.
	Engine string
	VLs    int
	// Spread: an adaptive engine's hops inside groups spread over every
	// shortest way (routing option spread).
	Spread bool
	Params sim.Params
	// Jobs, when set, make the run a workload: Fit places each plan on a
	// share of the HCAs (seeded by JobSeed) as Params.Jobs.
	Jobs    []JobPlan
	JobSeed uint64
	// RatePercent of the cables (drawn with RateSeed) run at a rate of
	// their own, as a fabric file can state (fabric.Link.Gbps).
	RatePercent int
	RateSeed    uint64
	// Timed events (sim.Timeline): Failing cables between switches (drawn
	// with TimedSeed once the network is routed) fail while traffic runs
	// and some come back; Reroute, when set, routes the network without
	// them and its tables are written switch by switch, a block every
	// WriteGapNs from WriteAtNs after the first failure; RetryNs resends
	// lost packets (0: never).
	Failing    int
	TimedSeed  uint64
	Reroute    string
	WriteAtNs  int64
	WriteGapNs int64
	RetryNs    int64
	// Migrate: while the tables are written the sources are migrated to
	// Up*/Down* tables of the rest on a VL of their own (the five-phase
	// update), from halfway to the first write until 1 µs after the last.
	Migrate bool
}

// cableRates are the rates a generated cable may get: 1xQDR, 4xDDR, 4xQDR,
// 4xFDR10, 4xFDR, 4xEDR.
var cableRates = func() []float64 {
	var r []float64
	for _, c := range []struct {
		width int
		speed string
	}{{1, "QDR"}, {4, "DDR"}, {4, "QDR"}, {4, "FDR10"}, {4, "FDR"}, {4, "EDR"}} {
		g, err := fabric.RateGbps(c.width, c.speed)
		if err != nil {
			panic(err)
		}
		r = append(r, g)
	}
	return r
}()

// JobPlan is a job of a generated workload before the network is known:
// its pattern and the share of the HCAs it gets.
type JobPlan struct {
	Share   float64 // of the HCAs, at least two
	Traffic traffic.JobTraffic
	Routing string // the job's own adaptive mode ("": the engine's)
	// ProgramSeed draws a trace job's program (traffic.RandomProgram on
	// the job's ranks); 0 for the other patterns.
	ProgramSeed uint64 `json:",omitempty"`
}

// String is a one-line description for test names and failure messages.
func (s Scenario) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s", s.Topology)
	if s.LinkPercent > 0 {
		fmt.Fprintf(&b, " links-%g%%", s.LinkPercent)
	}
	if s.SwitchPercent > 0 {
		fmt.Fprintf(&b, " switches-%g%%", s.SwitchPercent)
	}
	if s.TakeHCAs {
		b.WriteString("+hcas")
	}
	if s.LinkPercent > 0 || s.SwitchPercent > 0 {
		fmt.Fprintf(&b, "(seed %d)", s.FaultSeed)
	}
	t := s.Params.Traffic
	fmt.Fprintf(&b, " %s/%d", s.Engine, s.VLs)
	if s.Spread {
		b.WriteString("+spread")
	}
	fmt.Fprintf(&b, " %s %dB load %g", t.Kind, t.MessageBytes, t.Load)
	if t.Kind == traffic.Shift {
		fmt.Fprintf(&b, " d=%d", t.Distance)
	}
	if t.Kind == traffic.HotSpot {
		fmt.Fprintf(&b, " hot=%g", t.HotFraction)
	}
	if t.Order != traffic.ByHCA && t.Order != "" {
		fmt.Fprintf(&b, " order=%s", t.Order)
	}
	if t.Rendezvous > 0 && s.Jobs == nil {
		fmt.Fprintf(&b, " rendezvous>=%dB", t.Rendezvous)
	}
	if t.End > 0 && s.Jobs == nil {
		fmt.Fprintf(&b, " end %dns", t.End/1000)
	}
	fmt.Fprintf(&b, " seed %d max %dns", s.Params.Seed, s.Params.MaxTime/1000)
	if !t.Finite() {
		p := s.Params
		fmt.Fprintf(&b, " window %dns warmup %dns min %d ci %g frac %g", p.SampleWindow/1000, p.Warmup/1000, p.MinSamples, p.CIRel, p.SteadyFraction)
		if p.SteadyRule == sim.SteadyNetwork {
			b.WriteString(" rule network")
		}
	}
	for _, j := range s.Jobs {
		t := j.Traffic
		fmt.Fprintf(&b, " job[%s %.2f %dB it=%d load %g start %dns", t.Kind, j.Share, t.MessageBytes, t.Iterations, t.Load, t.Start/1000)
		if t.BurstOn > 0 {
			fmt.Fprintf(&b, " bursts %d/%dns", t.BurstOn/1000, t.BurstOff/1000)
		}
		if t.Compute > 0 || t.ComputeNoise > 0 {
			fmt.Fprintf(&b, " compute %d+exp(%d)ns", t.Compute/1000, t.ComputeNoise/1000)
		}
		if t.Algorithm != "" {
			fmt.Fprintf(&b, " alg=%s", t.Algorithm)
		}
		if t.Rendezvous > 0 {
			fmt.Fprintf(&b, " rendezvous>=%dB", t.Rendezvous)
		}
		if t.End > 0 {
			fmt.Fprintf(&b, " end %dns", t.End/1000)
		}
		if t.Kind == traffic.Shift {
			fmt.Fprintf(&b, " d=%d", t.Distance)
		}
		if t.Kind == traffic.HotSpot {
			fmt.Fprintf(&b, " hot %g", t.HotFraction)
		}
		if j.Routing != "" {
			fmt.Fprintf(&b, " routing %s", j.Routing)
		}
		b.WriteString("]")
	}
	if s.Jobs != nil {
		fmt.Fprintf(&b, " jobseed %d", s.JobSeed)
	}
	if _, err := routing.ParseMode(s.Engine); err == nil {
		p := s.Params
		fmt.Fprintf(&b, " bias low %d high %d step %d", p.UGALBiasLow, p.UGALBiasHigh, p.UGALBiasStep)
	}
	if s.Params.Domains > 1 {
		fmt.Fprintf(&b, " domains %d", s.Params.Domains)
	}
	if s.RatePercent > 0 {
		fmt.Fprintf(&b, " rates %d%%(seed %d)", s.RatePercent, s.RateSeed)
	}
	if s.Failing > 0 {
		fmt.Fprintf(&b, " timed[fail %d seed %d", s.Failing, s.TimedSeed)
		if s.Reroute != "" {
			fmt.Fprintf(&b, " reroute %s at +%dns every %dns", s.Reroute, s.WriteAtNs, s.WriteGapNs)
		}
		if s.RetryNs > 0 {
			fmt.Fprintf(&b, " retry %dns", s.RetryNs)
		}
		if s.Migrate {
			b.WriteString(" migrate")
		}
		b.WriteString("]")
	}
	if d := hwDiff(s.Params.HW); d != "" {
		fmt.Fprintf(&b, " hw[%s]", d)
	}
	return b.String()
}

// hwDiff lists the hardware parameters that differ from the defaults.
func hwDiff(h fabric.Hardware) string {
	d := fabric.DefaultHardware()
	var out []string
	add := func(name string, a, b any) {
		if a != b {
			out = append(out, fmt.Sprintf("%s=%v", name, a))
		}
	}
	add("link_gbps", h.LinkGbps, d.LinkGbps)
	add("rank1_gbps", h.Rank1Gbps, d.Rank1Gbps)
	add("rank2_gbps", h.Rank2Gbps, d.Rank2Gbps)
	add("rank3_gbps", h.Rank3Gbps, d.Rank3Gbps)
	add("mtu", h.MTU, d.MTU)
	add("header_bytes", h.HeaderBytes, d.HeaderBytes)
	add("cable_m", h.CableMeters, d.CableMeters)
	add("input_buffer_flits", h.InputBufferFlits, d.InputBufferFlits)
	add("output_buffer_flits", h.OutputBufferFlits, d.OutputBufferFlits)
	add("crossbar_gbps", h.CrossbarGbps, d.CrossbarGbps)
	add("hca_buffer_flits", h.HCABufferFlits, d.HCABufferFlits)
	add("vls", h.VLs, d.VLs)
	add("pcie_gbps", h.PCIeGbps, d.PCIeGbps)
	add("hiccup_period_ps", h.HiccupPeriodPs, d.HiccupPeriodPs)
	add("hiccup_ps", h.HiccupPs, d.HiccupPs)
	add("hiccup_sync", h.HiccupSync, d.HiccupSync)
	add("shared_input_pointer", h.SharedInputPointer, d.SharedInputPointer)
	add("forward_at_start", h.ForwardAtStart, d.ForwardAtStart)
	add("wire_bytes", h.WireBytes, d.WireBytes)
	add("switch_latency_ps", h.SwitchLatencyPs, d.SwitchLatencyPs)
	add("voq", h.VOQ, d.VOQ)
	add("nic_window", h.NICWindow, d.NICWindow)
	add("bubble_vls", h.BubbleVLs, d.BubbleVLs)
	add("file_rates", h.FileRates, d.FileRates)
	return strings.Join(out, ",")
}

// Built is a scenario ready to simulate.
type Built struct {
	Net    *fabric.Network
	Tables *routing.Tables
	Params sim.Params
	// DeadlockFree reports whether every VL's channel dependency graph
	// of the tables is acyclic, or has cycles only within torus rings on
	// VLs with bubble flow control.
	DeadlockFree bool
}

// Build makes the network, injects the failures, routes and verifies. An
// error means the scenario cannot run (a routing failure, say); generated
// scenarios avoid that where they can.
func (s Scenario) Build() (*Built, error) {
	net, err := fabric.Build(s.Topology)
	if err != nil {
		return nil, err
	}
	if s.RatePercent > 0 {
		rng := rand.New(rand.NewPCG(s.RateSeed, 0x4a7e))
		gbps := make([]float64, len(net.Links))
		for l := range gbps {
			if rng.IntN(100) < s.RatePercent {
				gbps[l] = cableRates[rng.IntN(len(cableRates))]
			}
		}
		if net, err = net.WithCableRates(gbps); err != nil {
			return nil, err
		}
	}
	if s.LinkPercent > 0 || s.SwitchPercent > 0 {
		net, _, err = faults.Inject(net, faults.Spec{LinkPercent: s.LinkPercent, SwitchPercent: s.SwitchPercent, Seed: s.FaultSeed, TakeHCAs: s.TakeHCAs})
		if err != nil {
			return nil, fmt.Errorf("faults: %w", err)
		}
	}
	tb, err := route(net, s.Engine, routing.Options{VLs: s.VLs, Spread: s.Spread})
	if err != nil {
		return nil, err
	}
	v, err := routing.Verify(net, tb)
	if err != nil {
		return nil, err
	}
	if !v.OK() {
		return nil, fmt.Errorf("routing %s: %s", s.Engine, v.Problem)
	}
	b := &Built{Net: net, Tables: tb, Params: s.Params, DeadlockFree: v.DeadlockFreeWith(s.Params.HW.BubbleVLs)}
	if s.Jobs != nil {
		b.Params.Jobs = placeJobs(s.Jobs, s.JobSeed, net.NumHCAs())
	}
	if s.Failing > 0 {
		b.Params.Timeline = s.timeline(net, tb)
	}
	return b, nil
}

// timeline draws the scenario's timed events on the routed network: its
// failing cables among those between switches, each down at an instant
// from 200 ns to 8 µs and half of them up again 0.5-5 µs later, and with
// Reroute the tables of the network without them written from WriteAtNs
// after the first failure, switch by switch in a drawn order, its SL→VL
// table and then its blocks in order, one every WriteGapNs. Nil when the
// network has no cable between switches.
func (s Scenario) timeline(net *fabric.Network, tb *routing.Tables) *sim.Timeline {
	var links []int
	for l := range net.Links {
		if net.IsSwitchLink(l) {
			links = append(links, l)
		}
	}
	if len(links) == 0 {
		return nil
	}
	rng := rand.New(rand.NewPCG(s.TimedSeed, 0x71e))
	tl := &sim.Timeline{RetryPs: s.RetryNs * fabric.Nanosecond}
	drop := make([]bool, len(net.Links))
	first := int64(math.MaxInt64)
	for _, i := range rng.Perm(len(links))[:min(s.Failing, len(links))] {
		l := links[i]
		drop[l] = true
		at := (200 + rng.Int64N(7800)) * fabric.Nanosecond
		first = min(first, at)
		tl.Links = append(tl.Links, sim.LinkEvent{AtPs: at, Link: l})
		if rng.IntN(2) == 0 {
			tl.Links = append(tl.Links, sim.LinkEvent{AtPs: at + (500+rng.Int64N(4500))*fabric.Nanosecond, Link: l, Up: true})
		}
	}
	if s.Reroute == "" || tb.Adaptive != nil || tb.Source != nil {
		return tl
	}
	rest, err := net.Without(drop, nil)
	if err != nil {
		return tl
	}
	if _, all := rest.HCAsConnected(); !all {
		return tl // the failures cut HCAs off: no tables route the rest
	}
	next, err := route(rest, s.Reroute, routing.Options{VLs: s.VLs})
	if err != nil || next.Adaptive != nil || next.Source != nil {
		return tl // the rest cannot be routed so: no new tables
	}
	tl.Next = next
	at := first + s.WriteAtNs*fabric.Nanosecond
	blocks := (tb.NumLIDs + sim.LFTBlock - 1) / sim.LFTBlock
	// The switches in a drawn order (a stream of its own, so that the
	// other draws stay what they were).
	order := rand.New(rand.NewPCG(s.TimedSeed, 0x0de)).Perm(net.NumSwitches)
	for _, sw := range order {
		for b := sim.SL2VLBlock; b < blocks; b++ {
			tl.Writes = append(tl.Writes, sim.TableWrite{AtPs: at, Switch: sw, Block: b})
			at += s.WriteGapNs * fabric.Nanosecond
		}
	}
	if s.Migrate {
		esc, err := route(rest, "updn", routing.Options{VLs: 1})
		if err != nil {
			return tl
		}
		v := uint8(max(tb.MaxVL(net), next.MaxVLOf(net, tb.SLsUsed())) + 1)
		if v > 14 { // the hardware's last data VL
			return tl
		}
		for sw := range net.NumSwitches {
			for lid := range esc.NumLIDs {
				esc.SetSL(sw, uint16(lid), v)
			}
		}
		tl.Escape, tl.MigrateAtPs, tl.ReturnAtPs = esc, first+s.WriteAtNs*fabric.Nanosecond/2, at+fabric.Microsecond
	}
	return tl
}

func route(net *fabric.Network, engine string, o routing.Options) (*routing.Tables, error) {
	if engine != "file" {
		return routing.Compute(engine, net, o)
	}
	tb, err := routing.Compute("minhop", net, routing.Options{VLs: o.VLs})
	if err != nil {
		return nil, err
	}
	var dump bytes.Buffer
	if err := routing.WriteLFTs(&dump, net, tb); err != nil {
		return nil, err
	}
	return routing.ReadLFTs(&dump, "generated.dump", net)
}

// chooser supplies the generator's decisions: from a seeded stream, or from
// fuzz input (so the fuzzer steers the choices), zeros once it runs out.
type chooser interface {
	// intn returns a value in [0, n).
	intn(n int) int
}

type rngChooser struct{ r *rand.Rand }

func (c rngChooser) intn(n int) int { return c.r.IntN(n) }

type byteChooser struct{ b []byte }

func (c *byteChooser) intn(n int) int {
	if n <= 1 {
		return 0
	}
	var v uint32
	if len(c.b) >= 4 {
		v = binary.LittleEndian.Uint32(c.b)
		c.b = c.b[4:]
	} else if len(c.b) > 0 {
		v = uint32(c.b[0])
		c.b = c.b[1:]
	}
	return int(v % uint32(n))
}

func between(c chooser, lo, hi int) int { return lo + c.intn(hi-lo+1) }

func pick[T any](c chooser, xs ...T) T { return xs[c.intn(len(xs))] }

// chance is true with probability pct/100.
func chance(c chooser, pct int) bool { return c.intn(100) < pct }

// Generate draws the scenario of a seed.
func Generate(seed uint64) Scenario {
	s := generate(rngChooser{rand.New(rand.NewPCG(seed, 0x5eed))})
	s.Seed = seed
	return s
}

// FromBytes draws a scenario steered by fuzz input.
func FromBytes(b []byte) Scenario { return generate(&byteChooser{b: b}) }

// Budget is the work (flit-hops, roughly) Fit allows one scenario, so
// that the reference simulator takes a fraction of a second.
const Budget = 3_000_000

// Ready builds scenario s, repairing what keeps it from running:
// failures that would cut HCAs off are dropped (a switch failure first
// lets the switches take their HCAs along), an engine short of VLs gets
// eight, an engine that cannot route the network gives way to Up*/Down*
// (which routes every connected network). Then it fits the hardware and
// the time limit (Built.Fit with Budget). The repairs are deterministic;
// Ready returns the scenario as finally built.
func Ready(s Scenario) (Scenario, *Built, error) {
	for attempt := 0; ; attempt++ {
		b, err := s.Build()
		if err == nil {
			b.Fit(Budget)
			s.Params = b.Params
			return s, b, nil
		}
		var rf *routing.Failure
		switch {
		case attempt >= 4:
			return s, nil, err
		case strings.HasPrefix(err.Error(), "faults:") && s.SwitchPercent > 0 && !s.TakeHCAs:
			s.TakeHCAs = true
		case strings.HasPrefix(err.Error(), "faults:"):
			s.LinkPercent, s.SwitchPercent = 0, 0 // every cable is critical
		case errors.As(err, &rf) && rf.VLsNeeded > 0 && s.VLs < 8:
			s.VLs = 8
		case s.Engine != "updn":
			s.Engine, s.VLs = "updn", 8
			for i := range s.Jobs {
				s.Jobs[i].Routing = "" // a job's own mode needs an adaptive engine
			}
		default:
			return s, nil, err
		}
	}
}

// topology draws a small instance of one generator family, and the
// engines that suit it (beyond the general ones).
func topology(c chooser) (spec string, special []string) {
	switch c.intn(12) {
	case 0, 1: // meshes and tori, 1-3 dimensions
		kind := pick(c, "mesh", "torus")
		var dims []string
		nd := between(c, 1, 3)
		sw := 1
		for i := 0; i < nd; i++ {
			d := between(c, 2, []int{6, 4, 3}[nd-1])
			sw *= d
			dims = append(dims, fmt.Sprint(d))
		}
		hcas := sw * between(c, 1, 3)
		spec = fmt.Sprintf("%s:dims=%s,hcas=%d", kind, strings.Join(dims, "x"), hcas)
		if chance(c, 20) {
			spec += ",redundancy=2"
		}
		return spec, []string{"dor", "torus-2qos"}
	case 2, 3:
		k, n := between(c, 2, 4), between(c, 2, 3)
		if k == 4 && n == 3 && chance(c, 50) {
			n = 2
		}
		spec = fmt.Sprintf("kary-ntree:k=%d,n=%d", k, n)
		if chance(c, 30) {
			spec += fmt.Sprintf(",hcas=%d", between(c, 2, int(math.Pow(float64(k), float64(n)))))
		}
		return spec, []string{"ftree"}
	case 4:
		m := []string{fmt.Sprint(between(c, 2, 4))}
		w := []string{fmt.Sprint(between(c, 1, 3))}
		if chance(c, 40) {
			m = append(m, fmt.Sprint(between(c, 2, 3)))
			w = append(w, fmt.Sprint(between(c, 1, 2)))
		}
		spec = fmt.Sprintf("xgft:m=%s,w=%s", strings.Join(m, "x"), strings.Join(w, "x"))
		return spec, []string{"ftree"}
	case 5:
		k := between(c, 2, 3)
		sw := 3 * int(math.Pow(2, float64(k-1)))
		return fmt.Sprintf("kautz:d=2,k=%d,hcas=%d", k, sw*between(c, 1, 2)), nil
	case 6, 7:
		a, h := between(c, 2, 4), between(c, 1, 2)
		g := between(c, 2, min(a*h+1, 5))
		return fmt.Sprintf("dragonfly:a=%d,p=%d,h=%d,g=%d", a, between(c, 1, 2), h, g), nil
	case 8, 9:
		sw := between(c, 3, 12)
		return fmt.Sprintf("random:switches=%d,hcas=%d,links=%d,seed=%d", sw, sw*between(c, 1, 3), between(c, sw, 2*sw), between(c, 1, 99)), nil
	case 10: // the big rebuilds with few HCAs
		switch c.intn(4) {
		case 0:
			return fmt.Sprintf("cascade:groups=2,hcas=%d", between(c, 4, 24)), nil
		case 1:
			return fmt.Sprintf("deimos:hcas=%d", between(c, 4, 24)), nil
		case 2:
			return fmt.Sprintf("taurus:hcas=%d", between(c, 4, 24)), nil
		default:
			return fmt.Sprintf("tsubame2:hcas=%d", between(c, 4, 24)), []string{"ftree"}
		}
	default: // the smallest cases: two HCAs, one switch, a line
		return pick(c, "torus:dims=1,hcas=2", "mesh:dims=2,hcas=2", "mesh:dims=3,hcas=3", "kary-ntree:k=2,n=2"), nil
	}
}

// sizes are the message sizes drawn: one byte, odd sizes, a flit, the
// header boundary, non-multiples of the MTU, one and ten MTUs.
var sizes = []int{1, 2, 37, 38, 39, 64, 100, 500, 998, 1000, 2021, 2022, 2047, 2048, 2049, 3000, 4096, 5000, 10 * 2048}

func generate(c chooser) Scenario {
	topo, special := topology(c)
	s := Scenario{Topology: topo, VLs: 8, Params: sim.DefaultParams()}
	switch c.intn(10) {
	case 0, 1, 2:
		s.LinkPercent = float64(pick(c, 5, 10, 15))
		s.FaultSeed = uint64(between(c, 1, 1000))
	case 3:
		s.SwitchPercent = float64(pick(c, 10, 20))
		s.FaultSeed = uint64(between(c, 1, 1000))
	}
	engines := []string{"minhop", "sssp", "dfsssp", "updn", "dnup", "lash", "nue", "file"}
	engines = append(engines, special...)
	s.Engine = pick(c, engines...)
	if chance(c, 40) {
		s.VLs = between(c, 1, 4)
	}
	p := &s.Params
	p.Seed = uint64(between(c, 1, 1<<30))
	p.Record, p.Counters = true, true
	hw := &p.HW
	if chance(c, 15) {
		hw.MTU = pick(c, 256, 512, 1024, 4096)
	}
	pf := hw.PacketFlits(hw.MTU)
	t := &p.Traffic
	t.Kind = pick(c, traffic.Uniform, traffic.Exchange, traffic.Exchange, traffic.Shift, traffic.Permutation, traffic.BitReversal, traffic.HotSpot)
	t.MessageBytes = pick(c, sizes...)
	if chance(c, 20) {
		t.MessageBytes = between(c, 1, 3*hw.MTU)
	}
	t.Load = 1
	if chance(c, 50) {
		t.Load = float64(between(c, 5, 100)) / 100
	}
	t.Distance = between(c, 1, 7)
	t.HotFraction = float64(between(c, 5, 50)) / 100
	drawHardware(c, hw, pf)
	// The steady-state controller: short windows so that some infinite
	// runs converge within the time limit.
	p.SampleWindow = int64(between(c, 1, 5)) * fabric.Microsecond
	p.Warmup = int64(between(c, 0, 4)) * p.SampleWindow
	p.MinSamples = between(c, 2, 6)
	p.CIRel = float64(between(c, 1, 30)) / 100
	p.SteadyFraction = float64(between(c, 50, 100)) / 100
	p.MaxTime = int64(between(c, 5, 60)) * fabric.Microsecond
	if t.Kind == traffic.Exchange {
		p.MaxTime = int64(between(c, 100, 2000)) * fabric.Microsecond
	}
	// Drawn last so that every earlier draw of a seed stays what it was.
	t.Order = pick(c, traffic.ByHCA, traffic.ByHCA, traffic.RandomOrder, traffic.RoundRobin)
	drawJobs(c, &s)
	drawLate(c, &s, topo)
	return s
}

// drawHardware draws the hardware overrides of a scenario (pf: the
// flits of a full packet).
func drawHardware(c chooser, hw *fabric.Hardware, pf int) {
	if chance(c, 20) {
		hw.InputBufferFlits = pf // exactly one packet
	} else if chance(c, 20) {
		hw.InputBufferFlits = between(c, pf, 2*pf+7)
	}
	if chance(c, 15) {
		hw.HCABufferFlits = between(c, pf, 2*pf)
	}
	if chance(c, 20) {
		hw.OutputBufferFlits = between(c, pf, pf+20)
	}
	switch c.intn(6) {
	case 0:
		hw.CrossbarGbps = hw.LinkGbps // no speedup
	case 1:
		hw.CrossbarGbps = float64(between(c, 33, 100))
	}
	switch c.intn(8) {
	case 0:
		hw.CableMeters = float64(between(c, 30, 200)) // long cables
	case 1:
		hw.CableMeters = 0.001 // 6 ps
	case 2:
		hw.CableMeters = float64(between(c, 1, 20)) / 10
	}
	switch c.intn(6) {
	case 0:
		hw.SwitchLatencyPs = 100 * fabric.Nanosecond
	case 1:
		hw.SwitchLatencyPs = int64(between(c, 1, 500_000))
	}
	switch c.intn(6) {
	case 0:
		hw.HiccupPs = 0
	case 1:
		hw.HiccupPeriodPs = int64(between(c, 20, 300)) * fabric.Nanosecond
		hw.HiccupPs = int64(between(c, 1, int(hw.HiccupPeriodPs/fabric.Nanosecond)-1)) * fabric.Nanosecond
	}
	if chance(c, 10) {
		hw.PCIeGbps = float64(between(c, 8, 64))
	}
	hw.VOQ = chance(c, 40)
	if chance(c, 10) {
		hw.LinkGbps = pick(c, 8.0, 16.0, 56.0)
		hw.CrossbarGbps = max(hw.CrossbarGbps, hw.LinkGbps)
	}
}

// drawJobs draws a workload of jobs, after everything else of the base
// scenario so that those draws stay what they were.
func drawJobs(c chooser, s *Scenario) {
	if chance(c, 30) {
		s.JobSeed = uint64(between(c, 1, 1<<30))
		kinds := []traffic.Kind{traffic.Exchange, traffic.Shift, traffic.Uniform, traffic.Permutation,
			traffic.Halo, traffic.PingPong, traffic.Allreduce, traffic.Barrier, traffic.Noise}
		for range between(c, 1, 3) {
			jt := traffic.JobTraffic{Kind: pick(c, kinds...), MessageBytes: pick(c, sizes...), Load: 1}
			jt.Iterations = jt.Kind.DefaultIterations()
			if chance(c, 30) {
				jt.Iterations = between(c, 0, 3)
			}
			if !jt.Kind.Dependent() && chance(c, 40) {
				jt.Load = float64(between(c, 5, 100)) / 100
			}
			if chance(c, 30) {
				jt.Start = int64(between(c, 1, 5000)) * fabric.Nanosecond
			}
			if jt.Kind == traffic.Shift {
				jt.Distance = between(c, 1, 3)
			}
			if jt.Kind == traffic.Noise && chance(c, 60) {
				jt.BurstOn = int64(between(c, 100, 3000)) * fabric.Nanosecond
				jt.BurstOff = int64(between(c, 0, 3000)) * fabric.Nanosecond
			}
			s.Jobs = append(s.Jobs, JobPlan{Share: float64(between(c, 10, 60)) / 100, Traffic: jt})
		}
		if s.Params.MaxTime < 100*fabric.Microsecond {
			s.Params.MaxTime = int64(between(c, 20, 200)) * fabric.Microsecond
		}
	}
}

// drawLate draws what was added to the generator later, each after the
// others so that every earlier draw of a seed stays what it was.
func drawLate(c chooser, s *Scenario, topo string) {
	p := &s.Params
	hw := &p.HW
	// Adaptive routing on the group topologies, drawn last too: an
	// adaptive engine, the biases, and jobs with modes of their own.
	if (strings.HasPrefix(topo, "dragonfly:") || strings.HasPrefix(topo, "cascade:")) && chance(c, 50) {
		// The modes the generator drew from before app-aware was one
		// (drawn below), so that every earlier seed draws as it did.
		modes := []string{"min", "valiant", "ugal", "ugal-imb", "ugal-low", "ugal-high"}
		s.Engine, s.VLs = pick(c, modes...), 8
		p.UGALBiasLow = int64(between(c, 0, 300))
		p.UGALBiasHigh = int64(between(c, 0, 1000))
		p.UGALBiasStep = int64(between(c, 0, 300))
		for i := range s.Jobs {
			if chance(c, 40) {
				s.Jobs[i].Routing = pick(c, modes...)
			}
		}
	}
	// Broadcast jobs (added after the others): half the barrier jobs.
	for i := range s.Jobs {
		if s.Jobs[i].Traffic.Kind == traffic.Barrier && chance(c, 50) {
			s.Jobs[i].Traffic.Kind = traffic.Broadcast
		}
	}
	// A rate per cable class on the group topologies (after the broadcast
	// jobs): slower and faster cables than the HCAs', so that packets go
	// cut-through onto slower ones and store-and-forward onto faster ones.
	if (strings.HasPrefix(topo, "dragonfly:") || strings.HasPrefix(topo, "cascade:")) && chance(c, 50) {
		for _, r := range []*float64{&hw.Rank1Gbps, &hw.Rank2Gbps, &hw.Rank3Gbps} {
			if chance(c, 70) {
				*r = pick(c, 8.0, 12.0, 24.0, 37.6, 42.0, 56.0, 100.0)
				hw.CrossbarGbps = max(hw.CrossbarGbps, *r)
			}
		}
	}
	// A NIC window with responses, drawn last of all.
	if chance(c, 30) {
		hw.NICWindow = pick(c, 1, 2, 3, 8, 64)
	}
	// Packets without headers (one-flit responses, payload-only flits).
	if chance(c, 5) {
		hw.HeaderBytes = 0
	}
	// Source routes on meshes and tori (the Angara engines) and bubble flow
	// control, drawn after everything else for the same reason: bubbles on
	// some VLs with input buffers of two to three full packets (any
	// topology; only torus rings are affected).
	if (strings.HasPrefix(topo, "torus:") || strings.HasPrefix(topo, "mesh:")) && chance(c, 50) {
		s.Engine = pick(c, "angara-dor", "angara-bfs", "angara-sssp", "angara-genetic")
		for i := range s.Jobs {
			s.Jobs[i].Routing = ""
		}
	}
	// Pairwise all-to-all jobs (after the bubbles): half the exchange jobs.
	for i := range s.Jobs {
		if s.Jobs[i].Traffic.Kind == traffic.Exchange && chance(c, 50) {
			s.Jobs[i].Traffic.Kind = traffic.Alltoall
			s.Jobs[i].Traffic.Load = 1
		}
	}
	if chance(c, 30) || strings.HasPrefix(s.Engine, "angara-") && chance(c, 60) {
		hw.BubbleVLs = pick(c, 1, 1, 3, 0xff, between(c, 1, 255))
		pf := hw.PacketFlits(hw.MTU)
		if hw.InputBufferFlits < 2*pf || chance(c, 50) {
			hw.InputBufferFlits = between(c, 2*pf, 3*pf+7)
		}
	}
	// The fabric cut into domains (sim/domains.go), drawn last of all: half
	// the scenarios run cut in two or three, on as many goroutines as the
	// test has processors.
	if chance(c, 50) {
		p.Domains = pick(c, 2, 2, 3)
	}
	// Cables with rates of their own, as a fabric file states them (after
	// the domains): slower and faster than the rest, so that switches cut
	// through onto slower cables and store before faster ones.
	if chance(c, 20) {
		s.RatePercent = pick(c, 10, 30, 60, 100)
		s.RateSeed = uint64(c.intn(1 << 30))
		hw.CrossbarGbps = max(hw.CrossbarGbps, slices.Max(cableRates))
		hw.FileRates = !chance(c, 10)
	}
	// Sinks whose hiccups are in step (after the cable rates): all in
	// phase, as the Mellanox model has them, or within part of a period.
	if hw.HiccupPs > 0 && chance(c, 20) {
		hw.HiccupSync = pick(c, 1.0, 1.0, 0.5, 0.9)
	}
	// The Mellanox model's input round robin (after the hiccup phases).
	hw.SharedInputPointer = chance(c, 30)
	// Flits taken at the start of their reception (after the pointer).
	hw.ForwardAtStart = chance(c, 40)
	// Hot-spot and bit-reversal jobs, which the one traffic model gave
	// jobs (after the start-of-reception flits): a third of the uniform
	// jobs and a third of the permutation jobs (placeJobs keeps the bit
	// reversal to power-of-two sizes).
	for i := range s.Jobs {
		switch t := &s.Jobs[i].Traffic; {
		case t.Kind == traffic.Uniform && chance(c, 33):
			t.Kind, t.HotFraction = traffic.HotSpot, float64(between(c, 5, 100))/100
		case t.Kind == traffic.Permutation && chance(c, 33):
			t.Kind = traffic.BitReversal
		}
	}
	// Sweeps, 3D halos and compute between iterations (after the hot-spot
	// jobs): a third of the halo jobs become halo3d or sweep3d, a third of
	// the dependent jobs compute before each iteration, half of those with
	// noise.
	for i := range s.Jobs {
		t := &s.Jobs[i].Traffic
		if t.Kind == traffic.Halo && chance(c, 33) {
			t.Kind = pick(c, traffic.Halo3D, traffic.Sweep3D)
		}
		if t.Kind.Dependent() && chance(c, 33) {
			t.Compute = int64(between(c, 0, 3000)) * fabric.Nanosecond
			if chance(c, 50) {
				t.ComputeNoise = int64(between(c, 1, 2000)) * fabric.Nanosecond
			}
		}
	}
	// Application-aware routing (after the compute): on half the adaptive
	// scenarios, the engine's mode or some jobs', with its constants drawn
	// so that ranks decide and switch often.
	if _, err := routing.ParseMode(s.Engine); err == nil && chance(c, 50) {
		if len(s.Jobs) == 0 || chance(c, 30) {
			s.Engine = "app-aware"
		}
		for i := range s.Jobs {
			if chance(c, 50) {
				s.Jobs[i].Routing = "app-aware"
			}
		}
		p.AppAwareThreshold = int64(pick(c, 0, 0, 64, 2048, 4096, 65536))
		p.AppAwareLatencyScale = float64(between(c, 20, 200)) / 100
		p.AppAwareStallScale = float64(between(c, 20, 800)) / 100
		p.AppAwareMaxAge = between(c, 1, 20)
	}
	// Aries' deterministic modes (after app-aware): on a third of the
	// adaptive scenarios, the engine's or some jobs'.
	if _, err := routing.ParseMode(s.Engine); err == nil && chance(c, 33) {
		hashing := []string{"in-order", "min-hash", "nmin-hash"}
		if len(s.Jobs) == 0 || chance(c, 30) {
			s.Engine = pick(c, hashing...)
		}
		for i := range s.Jobs {
			if chance(c, 40) {
				s.Jobs[i].Routing = pick(c, hashing...)
			}
		}
	}
	// Hops inside groups spread over every shortest way (after the
	// hashing modes): half the adaptive scenarios.
	if _, err := routing.ParseMode(s.Engine); err == nil && chance(c, 50) {
		s.Spread = true
	}
	// The collectives' algorithms (after the spread): half the allreduce,
	// broadcast and alltoall jobs run MPICH's choice or one named.
	for i := range s.Jobs {
		t := &s.Jobs[i].Traffic
		switch t.Kind {
		case traffic.Allreduce, traffic.Broadcast, traffic.Alltoall:
			if chance(c, 50) {
				t.Algorithm = pick(c, append([]string{traffic.AlgMPICH}, traffic.Algorithms(t.Kind)...)...)
			}
		}
	}
	// The application skeletons (after the algorithms): a fifth of the
	// dependent jobs without an algorithm or a grid of their own.
	for i := range s.Jobs {
		t := &s.Jobs[i].Traffic
		if t.Kind.Dependent() && t.Algorithm == "" && len(t.Grid) == 0 && chance(c, 20) {
			t.Kind = pick(c, traffic.CG, traffic.MILC, traffic.FFT, traffic.BFS)
		}
	}
	// MPI's rendezvous over RDMA GET (after the skeletons): on a fifth of
	// the scenarios the pattern or some jobs send their larger messages,
	// or all of them, as an RTS, GET requests and data responses.
	if chance(c, 20) {
		sizes := []int{1, 1, 64, 512, 2048, 8192}
		if len(s.Jobs) == 0 {
			p.Traffic.Rendezvous = pick(c, sizes...)
		}
		for i := range s.Jobs {
			if chance(c, 60) {
				s.Jobs[i].Traffic.Rendezvous = pick(c, sizes...)
			}
		}
	}
	// Tornado and transpose (after the rendezvous): a fifth of the uniform
	// and shift patterns and jobs (placeJobs and Fit keep a transpose on a
	// square number of ranks).
	shaped := func(t *traffic.JobTraffic) {
		if (t.Kind == traffic.Uniform || t.Kind == traffic.Shift) && chance(c, 20) {
			t.Kind, t.Distance = pick(c, traffic.Tornado, traffic.Transpose), 0
		}
	}
	if len(s.Jobs) == 0 {
		shaped(&p.Traffic.JobTraffic)
	}
	for i := range s.Jobs {
		shaped(&s.Jobs[i].Traffic)
	}
	// Cables failing while traffic runs (after the shapes): a quarter of
	// the scenarios, half of those with new tables written, half with
	// lost packets resent.
	if chance(c, 25) {
		s.Failing = between(c, 1, 3)
		s.TimedSeed = uint64(c.intn(1 << 30))
		if chance(c, 50) {
			s.Reroute = pick(c, "updn", "minhop", "dfsssp", "sssp", "lash", "nue", s.Engine)
			s.WriteAtNs = int64(between(c, 0, 3000))
			s.WriteGapNs = int64(pick(c, 1, 20, 100, 500))
		}
		if chance(c, 50) {
			s.RetryNs = int64(pick(c, 100, 1000, 5000, 20000))
		}
	}
	// Migrations to Up*/Down* on a VL of its own (after the timed
	// events): half the reroutes.
	if s.Reroute != "" && chance(c, 50) {
		s.Migrate = true
	}
	// Jobs that end (after the migrations): a fifth of the infinite
	// patterns and jobs stop 1-20 µs after they start.
	end := func(t *traffic.JobTraffic) {
		if chance(c, 20) {
			t.End = t.Start + int64(between(c, 1, 20))*fabric.Microsecond
		}
	}
	if len(s.Jobs) == 0 && !p.Traffic.Finite() {
		end(&p.Traffic.JobTraffic)
	}
	for i := range s.Jobs {
		if s.Jobs[i].Traffic.Iterations == 0 {
			end(&s.Jobs[i].Traffic)
		}
	}
	// Trace jobs (after the ends): a sixth of the jobs replay a random MPI
	// program (traffic.RandomProgram), under MPICH's algorithms or named
	// ones, once or twice.
	for i := range s.Jobs {
		if chance(c, 16) {
			t := &s.Jobs[i].Traffic
			s.Jobs[i].ProgramSeed = uint64(between(c, 1, 1<<30))
			*t = traffic.JobTraffic{Kind: traffic.Trace, MessageBytes: 1, Load: 1, Iterations: between(c, 1, 2), Start: t.Start, Rendezvous: t.Rendezvous}
			if chance(c, 30) {
				t.Algorithm = pick(c, "allreduce=ring", "alltoall=bruck,bcast=scatter-ring", "allreduce=rabenseifner,allgather=ring", "allreduce=tree")
			}
			if chance(c, 20) {
				t.ComputeScale = pick(c, 0.01, 0.5, 3.0)
			}
		}
	}
	// Packets on the cables and host buses by their bytes (after the
	// trace jobs).
	hw.WireBytes = chance(c, 40)
	// The network's steady-state rule (after the wire bytes): a third of
	// the scenarios.
	if chance(c, 33) {
		p.SteadyRule = sim.SteadyNetwork
	}
}

// placeJobs lays the job plans on the network's n HCAs: a seeded shuffle
// of the terminals, each job taking its share (at least two) in turn while
// two or more remain.
func placeJobs(plans []JobPlan, seed uint64, n int) []traffic.Job {
	rng := rand.New(rand.NewPCG(seed, 0x10b5))
	order := rng.Perm(n)
	var jobs []traffic.Job
	for i, pl := range plans {
		size := max(2, int(pl.Share*float64(n)))
		if len(order) < 2 {
			break
		}
		size = min(size, len(order))
		jt := pl.Traffic
		if jt.Kind == traffic.Shift && jt.Distance%size == 0 {
			jt.Distance = 1
		}
		if jt.Kind == traffic.BitReversal || jt.Algorithm == traffic.AlgScatterRD {
			size = 1 << (bits.Len(uint(size)) - 1)
		}
		if jt.Kind == traffic.Transpose {
			k := int(math.Sqrt(float64(size)))
			size = k * k
			if k < 2 {
				jt.Kind, size = traffic.Tornado, min(2, len(order))
			}
		}
		job := traffic.Job{ID: fmt.Sprintf("j%d", i+1), Ranks: order[:size], Traffic: jt, Routing: pl.Routing}
		if pl.ProgramSeed != 0 {
			job.Program = traffic.RandomProgram(size, pl.ProgramSeed)
		}
		jobs = append(jobs, job)
		order = order[size:]
	}
	return jobs
}

// Fit adjusts a built scenario so it can run: enough hardware VLs for the
// tables, a pattern the terminal count allows, and a time limit that keeps
// the work (flit-hops) within budget so the reference stays quick.
func (b *Built) Fit(budget int64) {
	p := &b.Params
	if m := b.Tables.MaxVL(b.Net); m >= p.HW.VLs {
		p.HW.VLs = m + 1
	}
	if tl := p.Timeline; tl != nil && tl.Next != nil {
		if m := tl.Next.MaxVLOf(b.Net, b.Tables.SLsUsed()); m >= p.HW.VLs {
			p.HW.VLs = m + 1
		}
	}
	if tl := p.Timeline; tl != nil && tl.Escape != nil {
		m := tl.Escape.MaxVL(b.Net)
		if tl.Next != nil {
			m = max(m, tl.Next.MaxVL(b.Net), b.Tables.MaxVLOf(b.Net, tl.Next.SLsUsed()))
		}
		if m >= p.HW.VLs {
			p.HW.VLs = m + 1
		}
	}
	n := b.Net.NumHCAs()
	if p.Traffic.Kind == traffic.BitReversal && n&(n-1) != 0 {
		p.Traffic.Kind = traffic.Uniform
	}
	if k := int(math.Sqrt(float64(n))); p.Traffic.Kind == traffic.Transpose && k*k != n {
		p.Traffic.Kind = traffic.Tornado
	}
	if p.Traffic.Kind == traffic.Shift && p.Traffic.Distance%n == 0 {
		p.Traffic.Distance = 1
	}
	// Work per microsecond if every HCA sends at its offered load over
	// about four hops; a finite pattern that fits the budget as a whole
	// runs to its end.
	msgFlits := 0
	for left := p.Traffic.MessageBytes; left > 0; left -= p.HW.MTU {
		msgFlits += p.HW.PacketFlits(min(left, p.HW.MTU))
	}
	load := p.Traffic.Load
	if p.Jobs != nil {
		// A workload: every HCA at full load bounds its work.
		load = 1
	} else if p.Traffic.Finite() && int64(n*(n-1)*msgFlits*4) <= budget {
		return
	}
	flitsPerUs := float64(fabric.Microsecond) / float64(p.HW.FlitPs()) * load * float64(n) * 4
	if limit := int64(float64(budget) / flitsPerUs * float64(fabric.Microsecond)); limit < p.MaxTime {
		p.MaxTime = max(limit, 2*fabric.Microsecond)
	}
}
