package dumpi

import (
	"errors"
	"fmt"
	"io"

	"flitsim/traffic"
)

// The record ids the reader interprets (docs/dumpi-format.md §6).
const (
	idSend, idRecv, idBsend, idSsend, idRsend      = 0, 1, 3, 4, 5
	idIsend, idIbsend, idIssend, idIrsend, idIrecv = 8, 9, 10, 11, 12
	idWait, idTest, idWaitany, idTestany           = 13, 14, 16, 17
	idWaitall, idTestall, idWaitsome, idTestsome   = 18, 19, 20, 21
	idProbe                                        = 23
	idSendInit, idRsendInit, idRecvInit            = 26, 29, 30
	idStart, idStartall                            = 31, 32
	idSendrecv, idSendrecvReplace                  = 33, 34
	idBarrier, idBcast, idGather, idGatherv        = 52, 53, 54, 55
	idScatter, idScatterv, idAllgather             = 56, 57, 58
	idAllgatherv, idAlltoall, idAlltoallv          = 59, 60, 61
	idReduce, idAllreduce, idReduceScatter, idScan = 62, 65, 66, 67
	idCommGroup, idGroupIncl, idGroupExcl          = 72, 76, 77
	idCommDup, idCommCreate, idCommSplit, idFree   = 84, 85, 86, 87
	idCartCreate, idCartSub                        = 99, 111
	idAlltoallw, idExscan                          = 155, 156
)

// MPICH's values the tracer writes raw (§7.4).
const (
	anyOrNull = -1     // MPI_ANY_SOURCE, MPI_ANY_TAG, and MPICH's MPI_PROC_NULL
	undefined = -32766 // MPICH's MPI_UNDEFINED
)

// moves lists functions that move data the replay does not: their
// records are counted in Trace.Skipped and take the time they took.
func moves(name string) bool {
	switch {
	case name == "MPI_Put" || name == "MPI_Get" || name == "MPI_Accumulate":
		return true
	case len(name) > 9 && name[:9] == "MPI_File_" && name != "MPI_File_open" && name != "MPI_File_close":
		return true
	}
	return false
}

// unsupported lists functions whose communicators the reader cannot
// rebuild: a trace that calls them is refused.
var unsupported = map[uint16]bool{91: true, 92: true, 101: true, 130: true, 131: true, 133: true, 134: true, 135: true, 136: true}

// callOf maps the record ids whose call is one op with the same fields.
var callOf = map[uint16]traffic.CallOp{idRecv: traffic.CallRecv, idIrecv: traffic.CallIrecv, idProbe: traffic.CallProbe,
	idBcast: traffic.CallBcast, idReduce: traffic.CallReduce,
	idGather: traffic.CallGather, idAllgather: traffic.CallAllgather, idAlltoall: traffic.CallAlltoall}

// walker turns one rank's records into calls: communicators as the rank's
// own ids (Calls maps them), wildcard receives as the record says (Calls
// substitutes what they matched).
type walker struct {
	t          *Trace
	r          int
	persistent map[int32]traffic.Call // Send_init and Recv_init bindings by request
	epoch      int64                  // wraps of the 16-bit seconds, × 65536
	lastSec    uint16
	prevStop   int64 // ns; −1 before the first record
	// completed lists, after a completion record, each request it
	// completed with the index of its status (−1 none).
	completed []done
}

type done struct {
	req    int32
	status int
}

func newWalker(t *Trace, r int) *walker {
	return &walker{t: t, r: r, persistent: map[int32]traffic.Call{}, prevStop: -1}
}

// ns returns a timestamp in ns since the stream's first second.
func (w *walker) ns(ts timestamp) int64 {
	if ts.sec < w.lastSec && w.lastSec-ts.sec > 1<<15 {
		w.epoch += 1 << 16
	}
	w.lastSec = ts.sec
	return (w.epoch+int64(ts.sec))*1e9 + int64(ts.ns)
}

// v returns field name of rec (0 when the function has none).
func v(rec *record, name string) int64 {
	if i := fieldIndex(rec.id, name); i >= 0 {
		return rec.val[i]
	}
	return 0
}

func a(rec *record, name string) []int64 {
	if i := fieldIndex(rec.id, name); i >= 0 {
		return rec.arr[i]
	}
	return nil
}

// bytes is count elements of datatype dt in the rank's size table.
func (w *walker) bytes(count, dt int64) (int64, error) {
	if count <= 0 {
		return 0, nil
	}
	sizes := w.t.ranks[w.r].sizes
	if dt < 0 || dt >= int64(len(sizes)) || sizes[dt] <= 0 {
		return 0, fmt.Errorf("datatype %d has no size in the trace's table of %d", dt, len(sizes))
	}
	return count * sizes[dt], nil
}

func (w *walker) bytesEach(counts []int64, dt int64) ([]int64, error) {
	out := make([]int64, len(counts))
	for i, c := range counts {
		b, err := w.bytes(c, dt)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

// calls interprets rec: the calls it stands for (one; none for a
// persistent request's binding; several for Startall), with their times.
func (w *walker) calls(rec *record) ([]traffic.Call, error) {
	start, stop := w.ns(rec.start), w.ns(rec.stop)
	if stop < start {
		return nil, fmt.Errorf("it returns (%d ns) before it starts (%d ns)", stop, start)
	}
	c := traffic.Call{Op: traffic.CallOther, Duration: (stop - start) * 1000}
	if w.prevStop >= 0 {
		if start < w.prevStop {
			return nil, fmt.Errorf("it starts (%d ns) before the last call returned (%d ns)", start, w.prevStop)
		}
		c.Compute = (start - w.prevStop) * 1000
	}
	w.prevStop = stop
	w.completed = w.completed[:0]
	if err := w.interpret(rec, &c); err != nil {
		return nil, err
	}
	if rec.id == idStartall || rec.id == idStart {
		reqs := a(rec, "requests")
		if rec.id == idStart {
			reqs = []int64{v(rec, "request")}
		}
		var out []traffic.Call
		for i, q := range reqs {
			p, ok := w.persistent[int32(q)]
			if !ok {
				return nil, fmt.Errorf("starts request %d, which no Send_init or Recv_init made", q)
			}
			if i == 0 {
				p.Compute, p.Duration = c.Compute, c.Duration
			}
			out = append(out, p)
		}
		if len(out) == 0 {
			return []traffic.Call{c}, nil
		}
		return out, nil
	}
	return []traffic.Call{c}, nil
}

// interpret fills c from rec.
func (w *walker) interpret(rec *record, c *traffic.Call) error {
	id := rec.id
	comm := int32(v(rec, "comm"))
	set := func(op traffic.CallOp, peer, tag int64, bytes int64) {
		c.Op, c.Comm, c.Peer, c.Tag, c.Bytes = op, comm, int32(peer), int32(tag), bytes
	}
	var err error
	var b int64
	switch id {
	case idSend, idBsend, idSsend, idRsend, idIsend, idIbsend, idIssend, idIrsend:
		if b, err = w.bytes(v(rec, "count"), v(rec, "datatype")); err != nil {
			return err
		}
		if v(rec, "dest") == anyOrNull { // MPI_PROC_NULL
			return nil
		}
		op := traffic.CallSend
		if id >= idIsend {
			op = traffic.CallIsend
			c.Req = int32(v(rec, "request"))
		}
		set(op, v(rec, "dest"), v(rec, "tag"), b)
	case idRecv, idIrecv, idProbe:
		if id != idProbe {
			if b, err = w.bytes(v(rec, "count"), v(rec, "datatype")); err != nil {
				return err
			}
		}
		op := callOf[id]
		set(op, v(rec, "source"), v(rec, "tag"), b)
		if id == idIrecv {
			c.Req = int32(v(rec, "request"))
		}
	case idSendInit, idSendInit + 1, idSendInit + 2, idRsendInit, idRecvInit:
		var p traffic.Call
		if b, err = w.bytes(v(rec, "count"), v(rec, "datatype")); err != nil {
			return err
		}
		if id == idRecvInit {
			if v(rec, "source") == anyOrNull || v(rec, "tag") == anyOrNull {
				return errors.New("a persistent receive from MPI_ANY_SOURCE or with MPI_ANY_TAG: not supported")
			}
			p = traffic.Call{Op: traffic.CallIrecv, Comm: comm, Peer: int32(v(rec, "source")), Tag: int32(v(rec, "tag")), Bytes: b}
		} else {
			p = traffic.Call{Op: traffic.CallIsend, Comm: comm, Peer: int32(v(rec, "dest")), Tag: int32(v(rec, "tag")), Bytes: b}
			if p.Peer == anyOrNull {
				p.Op = traffic.CallOther
			}
		}
		p.Req = int32(v(rec, "request"))
		w.persistent[p.Req] = p
	case idSendrecv, idSendrecvReplace:
		cnt, dt, rcnt := v(rec, "sendcount"), v(rec, "sendtype"), v(rec, "recvcount")
		if id == idSendrecvReplace {
			cnt, dt, rcnt = v(rec, "count"), v(rec, "datatype"), v(rec, "count")
		}
		_ = rcnt
		if b, err = w.bytes(cnt, dt); err != nil {
			return err
		}
		set(traffic.CallSendrecv, v(rec, "dest"), v(rec, "sendtag"), b)
		c.Peer2, c.Tag2 = int32(v(rec, "source")), int32(v(rec, "recvtag"))
	case idWait, idTest:
		if id == idTest && v(rec, "flag") == 0 {
			return nil
		}
		c.Op, c.Reqs = traffic.CallWait, []int32{int32(v(rec, "request"))}
		w.completed = append(w.completed, done{c.Reqs[0], 0})
	case idWaitall, idTestall:
		if id == idTestall && v(rec, "flag") == 0 {
			return nil
		}
		c.Op = traffic.CallWait
		for i, q := range a(rec, "requests") {
			c.Reqs = append(c.Reqs, int32(q))
			w.completed = append(w.completed, done{int32(q), i})
		}
	case idWaitany, idTestany:
		reqs, i := a(rec, "requests"), v(rec, "index")
		if id == idTestany && v(rec, "flag") == 0 || i == undefined || i < 0 {
			return nil
		}
		if i >= int64(len(reqs)) {
			return fmt.Errorf("index %d of %d requests", i, len(reqs))
		}
		c.Op, c.Reqs = traffic.CallWait, []int32{int32(reqs[i])}
		w.completed = append(w.completed, done{c.Reqs[0], 0})
	case idWaitsome, idTestsome:
		reqs := a(rec, "requests")
		c.Op = traffic.CallWait
		for k, i := range a(rec, "indices") {
			if i < 0 || i >= int64(len(reqs)) {
				return fmt.Errorf("index %d of %d requests", i, len(reqs))
			}
			c.Reqs = append(c.Reqs, int32(reqs[i]))
			w.completed = append(w.completed, done{int32(reqs[i]), k})
		}
	case idBarrier:
		set(traffic.CallBarrier, 0, 0, 0)
	case idBcast, idReduce, idAllreduce, idScan, idExscan:
		if b, err = w.bytes(v(rec, "count"), v(rec, "datatype")); err != nil {
			return err
		}
		op, ok := callOf[id]
		if !ok {
			op = traffic.CallAllreduce // Scan and Exscan: MPICH's recursive doubling, as an allreduce's
		}
		set(op, v(rec, "root"), 0, b)
	case idGather, idAllgather, idAlltoall:
		if b, err = w.bytes(v(rec, "sendcount"), v(rec, "sendtype")); err != nil {
			return err
		}
		op := callOf[id]
		set(op, v(rec, "root"), 0, b)
	case idScatter:
		if b, err = w.bytes(v(rec, "recvcount"), v(rec, "recvtype")); err != nil {
			return err
		}
		set(traffic.CallScatter, v(rec, "root"), 0, b)
	case idGatherv:
		if b, err = w.bytes(v(rec, "sendcount"), v(rec, "sendtype")); err != nil {
			return err
		}
		set(traffic.CallGatherv, v(rec, "root"), 0, b)
		if v(rec, "commrank") == v(rec, "root") {
			if c.Counts2, err = w.bytesEach(a(rec, "recvcounts"), v(rec, "recvtype")); err != nil {
				return err
			}
		}
	case idScatterv:
		if b, err = w.bytes(v(rec, "recvcount"), v(rec, "recvtype")); err != nil {
			return err
		}
		set(traffic.CallScatterv, v(rec, "root"), 0, b)
		if v(rec, "commrank") == v(rec, "root") {
			if c.Counts, err = w.bytesEach(a(rec, "sendcounts"), v(rec, "sendtype")); err != nil {
				return err
			}
		}
	case idAllgatherv:
		set(traffic.CallAllgatherv, 0, 0, 0)
		if c.Counts, err = w.bytesEach(a(rec, "recvcounts"), v(rec, "recvtype")); err != nil {
			return err
		}
	case idAlltoallv:
		set(traffic.CallAlltoallv, 0, 0, 0)
		if c.Counts, err = w.bytesEach(a(rec, "sendcounts"), v(rec, "sendtype")); err != nil {
			return err
		}
		if c.Counts2, err = w.bytesEach(a(rec, "recvcounts"), v(rec, "recvtype")); err != nil {
			return err
		}
	case idAlltoallw:
		set(traffic.CallAlltoallv, 0, 0, 0)
		sc, st, rc, rt := a(rec, "sendcounts"), a(rec, "sendtypes"), a(rec, "recvcounts"), a(rec, "recvtypes")
		if len(st) != len(sc) || len(rt) != len(rc) {
			return errors.New("counts and datatypes of different lengths")
		}
		for i := range sc {
			x, err := w.bytes(sc[i], st[i])
			if err != nil {
				return err
			}
			c.Counts = append(c.Counts, x)
		}
		for i := range rc {
			x, err := w.bytes(rc[i], rt[i])
			if err != nil {
				return err
			}
			c.Counts2 = append(c.Counts2, x)
		}
	case idReduceScatter:
		set(traffic.CallReduceScatter, 0, 0, 0)
		if c.Counts, err = w.bytesEach(a(rec, "recvcounts"), v(rec, "datatype")); err != nil {
			return err
		}
	}
	return nil
}

// callReader streams a rank's calls for a replay (Trace.Calls): the
// walker's calls with the communicators and wildcard receives resolved.
type callReader struct {
	t     *Trace
	r     int
	d     *decoder
	c     io.Closer
	w     *walker
	rec   record
	k     int64           // records read
	local map[int32]int32 // the rank's communicator ids -> Trace.comms
	def   int             // communicator-making records met
	queue []traffic.Call
	err   error
}

func newCalls(t *Trace, r int, d *decoder, c io.Closer) *callReader {
	return &callReader{t: t, r: r, d: d, c: c, w: newWalker(t, r), local: initialComms(t, r)}
}

// initialComms maps the predefined communicators: MPI_COMM_WORLD (2) and
// MPI_COMM_SELF (3), the rank's own one-rank communicator.
func initialComms(t *Trace, r int) map[int32]int32 {
	return map[int32]int32{2: 0, 3: int32(1 + r)}
}

func (cr *callReader) Next() (traffic.Call, error) {
	for len(cr.queue) == 0 {
		if cr.err != nil {
			return traffic.Call{}, cr.err
		}
		cr.k++
		if err := cr.d.next(&cr.rec); err != nil {
			if errors.Is(err, io.EOF) {
				cr.err = io.EOF
			} else {
				cr.err = cr.t.recErr(cr.r, cr.k, &cr.rec, err)
			}
			continue
		}
		calls, err := cr.w.calls(&cr.rec)
		if err != nil {
			cr.err = cr.t.recErr(cr.r, cr.k, &cr.rec, err)
			continue
		}
		if err := cr.resolve(calls); err != nil {
			cr.err = cr.t.recErr(cr.r, cr.k, &cr.rec, err)
			continue
		}
		cr.queue = calls
	}
	c := cr.queue[0]
	cr.queue = cr.queue[1:]
	return c, nil
}

// resolve maps the calls' communicators and wildcards, and follows the
// record's communicator making and freeing.
func (cr *callReader) resolve(calls []traffic.Call) error {
	rec := &cr.rec
	switch rec.id {
	case idCommDup, idCommCreate, idCommSplit, idCartCreate, idCartSub:
		defs := cr.t.ranks[cr.r].defs
		if cr.def >= len(defs) {
			return errors.New("a communicator the first reading did not see")
		}
		cr.local[int32(v(rec, "newcomm"))] = defs[cr.def]
		cr.def++
	case idFree:
		delete(cr.local, int32(v(rec, "comm")))
	}
	for i := range calls {
		c := &calls[i]
		if c.Op == traffic.CallOther || c.Op == traffic.CallWait {
			continue
		}
		g, ok := cr.local[c.Comm]
		if !ok || g < 0 {
			return fmt.Errorf("%s on communicator %d, which the rank does not hold", c.Op, c.Comm)
		}
		c.Comm = g
		if wl, ok := cr.t.ranks[cr.r].wild[cr.k]; ok {
			switch c.Op {
			case traffic.CallSendrecv:
				c.Peer2, c.Tag2 = wl.source, wl.tag
			default:
				c.Peer, c.Tag = wl.source, wl.tag
			}
			if wl.source == anyOrNull { // matched MPI_PROC_NULL: no message
				switch c.Op {
				case traffic.CallSendrecv:
					c.Op, c.Peer2, c.Tag2 = traffic.CallSend, 0, 0
				default:
					*c = traffic.Call{Op: traffic.CallOther, Compute: c.Compute, Duration: c.Duration}
				}
			}
		}
		if c.Op == traffic.CallSendrecv && c.Peer == anyOrNull { // sends to MPI_PROC_NULL
			c.Op, c.Peer, c.Tag = traffic.CallRecv, c.Peer2, c.Tag2
		}
	}
	return nil
}

func (cr *callReader) Close() error { return cr.c.Close() }

// recErr locates err at rank r's record k.
func (t *Trace) recErr(r int, k int64, rec *record, err error) error {
	name := ""
	if rec.id < numIDs && functions()[rec.id] != nil && rec.offset > 0 {
		name = functions()[rec.id].name
	}
	return &RankError{File: t.ranks[r].file, Rank: r, Record: k, Func: name, Err: err}
}
