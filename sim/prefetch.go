package sim

import (
	"unsafe"

	"flitsim/routing"
)

// Prefetching. On a large fabric the simulator's state (packets, channels,
// lanes, forwarding tables: 1.5 GiB on the 40,960-HCA fat tree) is far
// beyond the caches, and an event touches a handful of lines at random:
// its packet, then what that packet leads to (the forwarding table entry,
// the input lane, the output channel, the packets requesting it). Loaded
// on demand, each of these is a miss the processor waits for, one after
// the other. The queue already knows the next events of the current
// bucket in order, so touch walks a pipeline over them as each event
// starts: the event aheadFar places on gets its first line fetched, the
// one aheadNear on the lines its first line points to (now in the cache),
// and the next one the lines those point to. Prefetches do not wait, so
// the misses of many events overlap each other and the work in between.
//
// A prefetch changes nothing the simulation computes: the stages only read
// state the current domain owns (its queue's events, their packets, its
// channels, lanes and HCAs, the read-only tables) and fetch lines whose
// address they compute. An event that turns out stale (a superseded
// arbitration) or is preceded by one pushed later only wastes its fetch.
//
// On a fabric whose state fits the caches the pipeline only costs time,
// so it runs from prefetchFrom bytes of lanes, channels and forwarding
// tables on. Measured (binaries alternated, flit-hops/s): −2 to −10 % on
// Table 4.4's fabrics (1.1-1.8 MB), +15 to +30 % on 3-level fat trees of
// 2.9-12 MB, +60 % on the 40,960-HCA fat tree (1.5 GiB).
const (
	aheadFar     = 16
	aheadNear    = 4
	prefetchFrom = 2 << 20
)

// stateBytes is the size of the state events reach at random: lanes,
// channels and forwarding tables (packets come and go with them).
func (s *simulator) stateBytes() int {
	n := len(s.lanes)*int(unsafe.Sizeof(lane{})) + len(s.chans)*int(unsafe.Sizeof(channel{}))
	if s.ad == nil && s.t.Source == nil {
		n += s.t.NumSwitches() * s.t.NumLIDs
	}
	return n
}

// touch runs the prefetch pipeline over the events that follow the one
// just popped.
func (s *simulator) touch() {
	q := &s.k.q
	n := len(q.curBuf)
	if i := q.pos + aheadFar; i < n {
		s.prefetchFirst(q.at(i))
	}
	if i := q.pos + aheadNear; i < n {
		s.prefetchSecond(q.at(i))
	}
	if q.pos < n {
		s.prefetchThird(q.at(q.pos))
	}
}

// addr is p's address for prefetch.
func addr[T any](p *T) uintptr { return uintptr(unsafe.Pointer(p)) }

// prefetchFirst fetches the line event e starts from: its packet, its
// output channel or its HCA.
func (s *simulator) prefetchFirst(e *event) {
	switch e.kind {
	case evHeadArrive, evDone:
		prefetch(addr(&s.pkts[e.ref]))
	case evTryOut:
		prefetch(addr(&s.chans[e.ref]))
	case evTryHCA:
		prefetch(addr(&s.hcas[e.node]))
	}
}

// prefetchSecond fetches what e's first line points to: a head's
// forwarding entry and input lane (or its sink), an output's first
// request, an HCA's channel.
func (s *simulator) prefetchSecond(e *event) {
	switch e.kind {
	case evHeadArrive:
		pk := &s.pkts[e.ref]
		if h := s.hcaOf[e.node]; h >= 0 {
			prefetch(addr(&s.hcas[h]))
			return
		}
		if row := s.lftRow(e.node); int(pk.dstLID) < len(row) {
			prefetch(addr(&row[pk.dstLID]))
		}
		prefetch(addr(&s.lanes[s.lane(pk.ch, pk.vl)]))
	case evTryOut:
		if r := s.chans[e.ref].reqHead; r >= 0 && s.voq {
			prefetch(addr(&s.pkts[r]))
		}
	case evTryHCA:
		prefetch(addr(&s.chans[s.hcas[e.node].ch]))
	case evDone:
		prefetch(addr(&s.hcas[e.node]))
	}
}

// prefetchThird fetches, for the next event, what its second lines point
// to: a head's output channel and the packet it will queue behind; an
// output's first request's lanes and the request after it.
func (s *simulator) prefetchThird(e *event) {
	switch e.kind {
	case evHeadArrive:
		if s.hcaOf[e.node] >= 0 {
			return
		}
		pk := &s.pkts[e.ref]
		if row := s.lftRow(e.node); int(pk.dstLID) < len(row) {
			if p := row[pk.dstLID]; p != routing.NoPath && p != 0 {
				prefetch(addr(&s.chans[s.portCh[s.portBase[e.node]+int32(p)-1]]))
			}
		}
		if t := s.lanes[s.lane(pk.ch, pk.vl)].tail; t >= 0 {
			prefetch(addr(&s.pkts[t]))
		}
	case evTryOut:
		if r := s.chans[e.ref].reqHead; r >= 0 && s.voq {
			pk := &s.pkts[r]
			prefetch(addr(&s.lanes[s.lane(e.ref, pk.outVL)]))
			prefetch(addr(&s.lanes[s.lane(pk.ch, pk.vl)]))
			if pk.reqNext >= 0 {
				prefetch(addr(&s.pkts[pk.reqNext]))
			}
		}
	}
}

// lftRow is switch sw's forwarding table when packets follow it (nil for
// adaptive or source routing).
func (s *simulator) lftRow(sw int32) []uint8 {
	if s.ad != nil || s.t.Source != nil {
		return nil
	}
	return s.t.Row(int(sw))
}
