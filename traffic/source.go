package traffic

import "math/rand/v2"

// Msg is one message a terminal sends.
type Msg struct {
	Dst   int   // destination terminal
	Bytes int   // payload
	At    int64 // creation instant (ps): the source may not inject it earlier
	// Tag is the sender's step (dependent job patterns match deliveries to
	// the steps waiting for them by it).
	Tag int64
}

// Status says why a Source has no message for a terminal.
type Status uint8

// The answers of Source.Next.
const (
	Ready   Status = iota // the message is returned
	Waiting               // the next message waits for a delivery to this terminal
	Done                  // the terminal sends nothing more
)

// WireFunc returns the wire time (ps) of a message of the given payload on
// one link: its packets' flits back to back. Each simulator passes its
// own, so the source's timing depends on no simulator's code.
type WireFunc func(bytes int) int64

// Source is the traffic of a run: per terminal, a sequence of messages
// with their creation instants. A simulator asks for a terminal's next
// message when it has cut the previous one into packets, and tells the
// source of every message fully delivered (dependent patterns, such as a
// ping-pong, create a message only when the one it answers has arrived).
// The draws of terminal src come from the rng passed with src, in the
// order of the calls to Next that return Ready, so a simulator that asks
// for the same messages gets the same traffic.
type Source interface {
	// Next returns terminal src's next message, or the reason there is
	// none now.
	Next(src int, rng *rand.Rand) (Msg, Status)
	// Delivered books message m from src whose last flit was consumed at
	// m.Dst at instant t. It reports whether m.Dst was Waiting and may now
	// have its next message.
	Delivered(src int, m Msg, t int64) bool
	// Counted reports whether the messages of terminal src belong to the
	// finite traffic whose completion ends the run.
	Counted(src int) bool
	// Total returns the number of counted messages and whether some
	// terminal sends forever.
	Total() (counted int64, infinite bool)
}

// patternSource is one pattern over all terminals, every message of the
// same size, open loop: a terminal creates its next message one wire time
// plus a seeded gap after the previous one, whatever the network does.
type patternSource struct {
	p     Pattern
	bytes int
	load  float64
	wire  int64
	nextT []int64
}

// NewSource returns the source of spec s over the terminals cabled to the
// switches switchOf lists (New's pattern), with messages of s.MessageBytes
// (which must be set).
func NewSource(s Spec, switchOf []int, rng *rand.Rand, wire WireFunc) (Source, error) {
	p, err := New(s, switchOf, rng)
	if err != nil {
		return nil, err
	}
	return &patternSource{p: p, bytes: s.MessageBytes, load: s.Load, wire: wire(s.MessageBytes), nextT: make([]int64, len(switchOf))}, nil
}

func (ps *patternSource) Next(src int, rng *rand.Rand) (Msg, Status) {
	dst, ok := ps.p.Next(src, rng)
	if !ok {
		return Msg{}, Done
	}
	m := Msg{Dst: dst, Bytes: ps.bytes, At: ps.nextT[src]}
	ps.nextT[src] += ps.wire + Gap(ps.load, ps.wire, rng)
	return m, Ready
}

func (*patternSource) Delivered(int, Msg, int64) bool { return false }

func (ps *patternSource) Counted(src int) bool { return ps.p.Messages(src) >= 0 }

func (ps *patternSource) Total() (int64, bool) {
	var n int64
	for i := range ps.nextT {
		m := ps.p.Messages(i)
		if m < 0 {
			return 0, true
		}
		n += int64(m)
	}
	return n, false
}

// Open returns the traffic of a run, the one constructor both simulators
// take it from: the jobs of a workload when there are jobs (NewWorkload,
// job j drawing from the stream "traffic/job/<id>"), else the pattern of
// spec on every terminal (NewSource, built with the stream
// "traffic/pattern"). switchOf lists each terminal's switch; stream
// returns the seeded stream of a name; wire is the simulator's wire time.
func Open(spec Spec, jobs []Job, switchOf []int, stream func(name string) *rand.Rand, wire WireFunc) (Source, error) {
	if len(jobs) > 0 {
		return NewWorkload(jobs, len(switchOf), func(id string) *rand.Rand { return stream("traffic/job/" + id) }, wire)
	}
	return NewSource(spec, switchOf, stream("traffic/pattern"), wire)
}
