package sim

import (
	"fmt"

	"flitsim/fabric"
	"flitsim/traffic"
)

// Params are everything a run depends on besides the network and tables.
type Params struct {
	HW      fabric.Hardware
	Traffic traffic.Spec
	// Seed is the master seed; per-purpose streams derive from it.
	Seed uint64
	// MaxTime stops the run (ps of simulated time); 0 = 1 s.
	MaxTime int64

	// Steady-state controller: every sink's consumption bandwidth is
	// sampled per SampleWindow after Warmup; a sink is steady when the 99 %
	// confidence interval of its mean is within CIRel of the mean (after at
	// least MinSamples samples); the run stops when SteadyFraction of the
	// sinks are steady.
	SampleWindow   int64
	Warmup         int64
	MinSamples     int
	CIRel          float64
	SteadyFraction float64

	// TraceHash computes a hash over every processed event.
	TraceHash bool
	// Record keeps every packet's injection and delivery time.
	Record bool
}

// DefaultParams returns the thesis' hardware and controller settings with
// uniform random traffic of 1-MTU messages at full load.
func DefaultParams() Params {
	hw := fabric.DefaultHardware()
	return Params{
		HW:             hw,
		Traffic:        traffic.Spec{Kind: traffic.Uniform, MessageBytes: hw.MTU, Load: 1},
		Seed:           1,
		SampleWindow:   10 * fabric.Microsecond,
		Warmup:         20 * fabric.Microsecond,
		MinSamples:     20,
		CIRel:          0.01,
		SteadyFraction: 0.99,
	}
}

// Normalize fills in defaults for zero values and reports parameters no
// simulator can run with. Both simulators call it first.
func (p *Params) Normalize() error {
	if err := p.HW.Validate(); err != nil {
		return err
	}
	if p.Traffic.MessageBytes == 0 {
		p.Traffic.MessageBytes = p.HW.MTU
	}
	if p.Traffic.MessageBytes < 0 {
		return fmt.Errorf("message size %d must be positive", p.Traffic.MessageBytes)
	}
	if p.Traffic.Load == 0 {
		p.Traffic.Load = 1
	}
	if p.Traffic.Load < 0 || p.Traffic.Load > 1 {
		return fmt.Errorf("load %g outside (0, 1]", p.Traffic.Load)
	}
	if p.MaxTime == 0 {
		p.MaxTime = 1000 * 1000 * fabric.Microsecond // 1 s
	}
	if p.MaxTime < 0 {
		return fmt.Errorf("max time must be positive")
	}
	if p.SampleWindow <= 0 {
		p.SampleWindow = 2 * fabric.Microsecond
	}
	if p.MinSamples < 2 {
		p.MinSamples = 2
	}
	if p.CIRel <= 0 {
		p.CIRel = 0.01
	}
	if p.SteadyFraction <= 0 || p.SteadyFraction > 1 {
		p.SteadyFraction = 0.99
	}
	return nil
}
