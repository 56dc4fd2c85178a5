// Package sim is flitsim's deterministic discrete-event simulator of a
// lossless InfiniBand-like network at flit level (seeds/001 §4.3).
//
// Model (every value from fabric.Hardware):
//   - Links are full duplex; a flit takes FlitPs to serialize and CablePs to
//     propagate, and so does a credit on its way back.
//   - Credit flow control per VL in flit units: a packet starts onto a link
//     only when the receiver's VL buffer has credits for the whole packet.
//     Credits return when flits leave the receiving buffer.
//   - Switches, as in the Mellanox OMNeT++ InfiniBand model the thesis used:
//     an input buffer per port and VL; forwarding by the LFT on the head
//     flit; SL→VL per hop; per output port an arbiter that starts a packet
//     only with credits downstream and room in the port's output buffer for
//     the whole packet (fair share among VLs with an eligible packet,
//     round robin among inputs); a cut-through crossbar that then moves the
//     packet into the output buffer at CrossbarGbps, a flit no earlier than
//     it has arrived, and holds the output until the tail has crossed; the
//     cable sends the output buffer at link rate. A flit leaves the input
//     buffer, and its credit heads upstream, when it crosses, so a crossbar
//     faster than the links drains input buffers early and relieves
//     head-of-line blocking. (The model's limit on how many outputs one input
//     port feeds at once is not modelled: VL buffers cross independently.)
//   - HCAs split messages into MTU packets and inject them under credits in
//     message order; the sink consumes flit by flit at the PCIe rate and
//     stalls during PCIe hiccups, so its buffer backs up and credits slow
//     the sender.
//
// Because a packet occupies a link as one uninterrupted train of flits (its
// flits reach the output buffer no later than the cable needs them), every
// flit time, credit return and consumption is arithmetic from a few instants
// per packet and hop (the fast mode). The reference mode simulates the same
// semantics with one event per flit per hop; tests hold the two to identical
// per-packet delivery times.
package sim

import (
	"fmt"

	"flitsim/fabric"
	"flitsim/traffic"
)

// Mode selects the simulation engine.
type Mode uint8

const (
	// Fast: a handful of events per packet per hop.
	Fast Mode = iota
	// Reference: one event per flit per hop; slow and obviously right.
	Reference
)

// Params are everything a run depends on besides the network and tables.
type Params struct {
	HW      fabric.Hardware
	Traffic traffic.Spec
	// Seed is the master seed; per-purpose streams derive from it.
	Seed uint64
	// MaxTime stops the run (ps of simulated time); 0 = 1 s.
	MaxTime int64
	Mode    Mode

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

func (p *Params) normalize() error {
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
