package traffic

import (
	"errors"
	"fmt"
	"io"
)

// A Program is what an MPI program did, rank by rank, as a trace records
// it (a DUMPI trace: traffic/dumpi; or one made in memory: MemProgram). A
// trace job (pattern "trace") replays it: each rank's calls in order,
// the computation between them as the trace timed it, point-to-point
// messages matched as MPI matches them, collectives expanded into
// messages by named algorithms (replay.go).
type Program interface {
	// Name identifies the program in errors (a trace's directory).
	Name() string
	// Size is the number of ranks of its MPI_COMM_WORLD.
	Size() int
	// Comms lists the communicators: each one's members as world ranks,
	// in the order of its ranks; Comms()[0] is MPI_COMM_WORLD.
	Comms() [][]int32
	// Calls opens rank r's calls, read from the start; each call of Calls
	// reads them afresh, so a program replays any number of times.
	Calls(r int) (CallReader, error)
}

// A Librarian is a Program that names the collective algorithms of the
// library that ran it (a JobTraffic.Algorithm value, "op=alg,..."), which
// a trace job runs unless its own algorithm key says otherwise; the
// programs that do not name them ran MPICH's.
type Librarian interface {
	Algorithms() string
}

// A CallReader yields one rank's calls in order; Next returns io.EOF after
// the last.
type CallReader interface {
	Next() (Call, error)
	Close() error
}

// CallOp is an MPI call as the replay reads it.
type CallOp uint8

// The calls. Blocking sends of every mode (standard, synchronous,
// buffered, ready) are Send; MPI_Sendrecv is Sendrecv; MPI_Wait, Waitall,
// Waitany, Waitsome and the Tests that found requests complete are Wait,
// with the requests they completed; calls that move no data (MPI_Init,
// Comm_rank, Iprobe, a Test that found nothing, ...) are Other: they only
// take the time between calls.
const (
	CallOther         CallOp = iota
	CallSend                 // Peer, Tag, Bytes
	CallIsend                // Peer, Tag, Bytes, Req
	CallRecv                 // Peer, Tag (as matched), Bytes
	CallIrecv                // Peer, Tag (as matched), Bytes, Req
	CallProbe                // Peer, Tag: waits for the next message on that channel without taking it
	CallWait                 // Reqs
	CallSendrecv             // the send Peer, Tag, Bytes; the receive Peer2, Tag2
	CallBarrier              //
	CallBcast                // Peer the root, Bytes the vector
	CallReduce               // Peer the root, Bytes the vector
	CallAllreduce            // Bytes the vector
	CallGather               // Peer the root, Bytes each rank's part
	CallScatter              // Peer the root, Bytes each rank's part
	CallAllgather            // Bytes each rank's part
	CallAlltoall             // Bytes to each rank
	CallAlltoallv            // Counts: bytes to each rank; Counts2: bytes from each
	CallReduceScatter        // Counts: each rank's block of the result
	CallGatherv              // Peer the root; Bytes this rank's part; at the root Counts2: bytes from each
	CallScatterv             // Peer the root; Bytes this rank's part; at the root Counts: bytes to each
	CallAllgatherv           // Counts: each rank's part
	numCallOps
)

var callNames = [numCallOps]string{"other", "send", "isend", "recv", "irecv", "probe", "wait", "sendrecv",
	"barrier", "bcast", "reduce", "allreduce", "gather", "scatter", "allgather", "alltoall", "alltoallv",
	"reduce_scatter", "gatherv", "scatterv", "allgatherv"}

func (o CallOp) String() string {
	if o < numCallOps {
		return callNames[o]
	}
	return fmt.Sprintf("call(%d)", uint8(o))
}

// CallOps lists the calls' names, CallOther first.
func CallOps() []string { return callNames[:] }

// Collective reports whether the call is a collective.
func (o CallOp) Collective() bool { return o >= CallBarrier && o < numCallOps }

// Call is one MPI call of a rank.
type Call struct {
	Op CallOp
	// Compute is the time (ps) the rank computed before the call: from
	// the end of its previous call (or from MPI_Init's) to this call's
	// start.
	Compute int64
	// Duration is the time (ps) the call took in the traced run; the
	// replay reports it beside the simulated time.
	Duration int64
	// Comm is the communicator, an index into Program.Comms.
	Comm int32
	// Peer is a rank of Comm: a send's destination, a receive's or
	// probe's source (a wildcard resolved as the traced run matched it), a
	// rooted collective's root.
	Peer int32
	Tag  int32
	// Bytes is the payload (see the CallOp).
	Bytes int64
	// Req is the request an Isend or Irecv creates; Reqs the requests a
	// Wait completes (handles as the trace numbers them).
	Req  int32
	Reqs []int32
	// Peer2 and Tag2 are a Sendrecv's source and tag.
	Peer2, Tag2 int32
	// Counts and Counts2 are the per-rank sizes of the v-collectives.
	Counts, Counts2 []int64
	// Async makes a collective nonblocking (MPI_Iallreduce and the like,
	// a Chakra collective the graph lets overlap): the call returns at
	// once, its messages go beside the rank's later calls, and a Wait on
	// Req ends it.
	Async bool
}

// MemProgram is a Program held in memory: tests, the differential
// generator (RandomProgram) and small traces.
type MemProgram struct {
	ID      string
	Members [][]int32 // communicators; nil: the world alone
	Ranks   [][]Call  // each rank's calls
}

// Name implements Program.
func (p *MemProgram) Name() string { return p.ID }

// Size implements Program.
func (p *MemProgram) Size() int { return len(p.Ranks) }

// Comms implements Program.
func (p *MemProgram) Comms() [][]int32 {
	if p.Members != nil {
		return p.Members
	}
	w := make([]int32, len(p.Ranks))
	for i := range w {
		w[i] = int32(i)
	}
	return [][]int32{w}
}

// Calls implements Program.
func (p *MemProgram) Calls(r int) (CallReader, error) {
	if r < 0 || r >= len(p.Ranks) {
		return nil, fmt.Errorf("%s: no rank %d of %d", p.ID, r, len(p.Ranks))
	}
	return &sliceCalls{calls: p.Ranks[r]}, nil
}

type sliceCalls struct {
	calls []Call
	i     int
}

func (s *sliceCalls) Next() (Call, error) {
	if s.i >= len(s.calls) {
		return Call{}, io.EOF
	}
	s.i++
	return s.calls[s.i-1], nil
}

func (s *sliceCalls) Close() error { return nil }

// TraceError locates what is wrong with a program: its rank and the
// ordinal of the call (from 1).
type TraceError struct {
	Program string
	Rank    int
	Call    int64
	Err     error
}

func (e *TraceError) Error() string {
	return fmt.Sprintf("%s: rank %d, call %d: %v", e.Program, e.Rank, e.Call, e.Err)
}

func (e *TraceError) Unwrap() error { return e.Err }

// errEOF is io.EOF, named where a reader's end is meant.
var errEOF = io.EOF

// isEOF reports whether err is a reader's end.
func isEOF(err error) bool { return errors.Is(err, io.EOF) }

// TraceSummary is what a program does, rank by rank summed: its calls by
// kind, its point-to-point messages and bytes, its collectives, its
// computation, and the messages its replay sends (collectives expanded by
// the algorithms of algorithm, a JobTraffic.Algorithm value).
type TraceSummary struct {
	Name           string           `json:"name"`
	Ranks          int              `json:"ranks"`
	Communicators  int              `json:"communicators"`
	Calls          map[string]int64 `json:"calls"`
	P2PMessages    int64            `json:"p2p_messages"`
	P2PBytes       int64            `json:"p2p_bytes"`
	CollectiveData int64            `json:"collective_bytes"` // the calls' Bytes and Counts summed over ranks
	ComputeNs      float64          `json:"compute_ns_mean"`  // per rank
	ComputeMaxNs   float64          `json:"compute_ns_max"`
	TracedNs       float64          `json:"traced_ns_mean"` // per rank: in calls, in the traced run
	Messages       int64            `json:"replay_messages"`
}

// Summarize reads every call of p once (streaming) and sums it up.
func Summarize(p Program, algorithm string) (TraceSummary, error) {
	s := TraceSummary{Name: p.Name(), Ranks: p.Size(), Communicators: len(p.Comms()), Calls: map[string]int64{}}
	var compute, traced float64
	for r := range p.Size() {
		rd, err := p.Calls(r)
		if err != nil {
			return s, err
		}
		var c0 int64
		for {
			c, err := rd.Next()
			if isEOF(err) {
				break
			}
			if err != nil {
				rd.Close()
				return s, err
			}
			s.Calls[c.Op.String()]++
			c0 += c.Compute
			traced += float64(c.Duration)
			switch c.Op {
			case CallSend, CallIsend, CallSendrecv:
				s.P2PMessages++
				s.P2PBytes += c.Bytes
			}
			if c.Op.Collective() {
				s.CollectiveData += c.Bytes
				for _, x := range c.Counts {
					s.CollectiveData += x
				}
			}
		}
		rd.Close()
		compute += float64(c0)
		s.ComputeMaxNs = max(s.ComputeMaxNs, float64(c0)/1000)
	}
	if n := float64(p.Size()); n > 0 {
		s.ComputeNs, s.TracedNs = compute/1000/n, traced/1000/n
	}
	ranks := make([]int, p.Size())
	for i := range ranks {
		ranks[i] = i
	}
	j := Job{ID: "trace", Ranks: ranks, Program: p, Traffic: JobTraffic{Kind: Trace, MessageBytes: 1, Load: 1, Iterations: 1, Algorithm: algorithm}}
	rp, err := newReplay(&j)
	if err != nil {
		return s, err
	}
	s.Messages = rp.total
	return s, nil
}
