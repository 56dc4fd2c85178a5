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
	// Get: the message goes as a rendezvous over RDMA GET
	// (JobTraffic.Rendezvous), not as a PUT.
	Get bool
}

// Status says why a Source has no message for a terminal.
type Status uint8

// The answers of Source.Next.
const (
	Ready   Status = iota // the message is returned
	Waiting               // the next message waits for a delivery to this terminal
	Done                  // the terminal sends nothing more
	// Later: nothing now; ask again at the returned message's At (> now),
	// or when a delivery to the terminal wakes it, whichever is first (a
	// trace rank computing while a nonblocking collective of its own
	// progresses on deliveries).
	Later
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
	// none at instant now (asked once every delivery of now is booked).
	Next(src int, now int64, rng *rand.Rand) (Msg, Status)
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

// Open returns the traffic of a run, the one constructor both simulators
// take it from. With jobs, the workload of those jobs (job j drawing what
// it draws up front from the stream "traffic/job/<id>"); without, the
// pattern of spec as one job of every terminal, which draws from the
// stream "traffic/pattern" first what its pattern draws up front (a
// permutation's derangement), then the order of its ranks (Layout).
// switchOf lists each terminal's switch; stream returns the seeded stream
// of a name; wire is the simulator's wire time.
func Open(spec Spec, jobs []Job, switchOf []int, stream func(name string) *rand.Rand, wire WireFunc) (Source, error) {
	if len(jobs) > 0 {
		return NewWorkload(jobs, len(switchOf), func(id string) *rand.Rand { return stream("traffic/job/" + id) }, wire)
	}
	n := len(switchOf)
	if err := spec.Check(n); err != nil {
		return nil, err
	}
	rng := stream("traffic/pattern")
	w, err := newWorkload([]Job{spec.Job(n)}, n, func(string) *rand.Rand { return rng }, wire)
	if err != nil {
		return nil, err
	}
	if spec.Order != ByHCA && spec.Order != "" {
		hca, err := Layout(spec.Order, switchOf, rng)
		if err != nil {
			return nil, err
		}
		// Rank r moves from terminal r to terminal hca[r].
		state := make([]rankState, n)
		for r, t := range hca {
			state[t] = w.state[r]
			w.jobs[0].Ranks[r] = int(t)
		}
		w.state = state
	}
	w.whole = true
	return w, nil
}
