package dumpi

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
)

// event is a record of a rank that makes, frees or names communicators
// and groups, kept by the first reading for resolve.
type event struct {
	k        int64 // record number
	id       uint16
	parent   int32 // the communicator it is called on (free: the one freed)
	newcomm  int32
	color    int64
	key      int64
	group    int32 // Comm_create: its group; Comm_group: the group made; Group_*: the group it starts from
	newgroup int32
	list     []int64 // Group_incl, Group_excl: ranks; Cart_create: dims; Cart_sub: remain_dims
}

// scan is the first reading of rank r: every record decoded and checked,
// the footer's counts compared, the wildcard receives resolved, the
// communicator records kept.
func (t *Trace) scan(r int) ([]event, error) {
	ra, size, c, err := t.open(r)
	if err != nil {
		return nil, &RankError{File: t.ranks[r].file, Rank: r, Err: err}
	}
	defer c.Close()
	footer, err := t.trailer(r, ra, size)
	if err != nil {
		return nil, &RankError{File: t.ranks[r].file, Rank: r, Err: err}
	}
	ri := &t.ranks[r]
	ri.wild = map[int64]wild{}
	d, cl, err := t.stream(r)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	w := newWalker(t, r)
	// request -> the wildcard Irecvs bound to it, oldest first (MPICH
	// hands out handles again; a Wait completes the oldest).
	pending := map[int32][]int64{}
	var counts [numIDs]int64
	var evs []event
	var rec record
	var k int64
	for {
		k++
		if err := d.next(&rec); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, t.recErr(r, k, &rec, err)
		}
		fail := func(format string, v ...any) error { return t.recErr(r, k, &rec, fmt.Errorf(format, v...)) }
		name := functions()[rec.id].name
		counts[rec.id]++
		t.Records[name]++
		if moves(name) {
			t.Skipped[name]++
		}
		if unsupported[rec.id] {
			return nil, fail("makes communicators the reader cannot rebuild (intercommunicators, graphs, spawned or connected processes)")
		}
		if _, err := w.calls(&rec); err != nil {
			return nil, t.recErr(r, k, &rec, err)
		}
		switch rec.id {
		case idRecv, idProbe, idSendrecv, idSendrecvReplace:
			tag := "tag"
			if rec.id == idSendrecv || rec.id == idSendrecvReplace {
				tag = "recvtag"
			}
			if v(&rec, "source") == anyOrNull || v(&rec, tag) == anyOrNull {
				if !rec.statOK || len(rec.stat) == 0 {
					return nil, fail("a receive from MPI_ANY_SOURCE, with MPI_ANY_TAG or from MPI_PROC_NULL traced without its status (the program passed MPI_STATUS_IGNORE): what it matched cannot be known")
				}
				ri.wild[k] = wild{rec.stat[0].source, rec.stat[0].tag}
			}
		case idIrecv:
			if v(&rec, "source") == anyOrNull || v(&rec, "tag") == anyOrNull {
				q := int32(v(&rec, "request"))
				pending[q] = append(pending[q], k)
			}
		}
		for _, dn := range w.completed {
			ks := pending[dn.req]
			if len(ks) == 0 {
				continue
			}
			kk := ks[0]
			if !rec.statOK || dn.status >= len(rec.stat) {
				return nil, fail("completes the wildcard receive of record %d without its status (the program passed MPI_STATUS_IGNORE): what it matched cannot be known", kk)
			}
			st := rec.stat[dn.status]
			ri.wild[kk] = wild{st.source, st.tag}
			if pending[dn.req] = ks[1:]; len(ks) == 1 {
				delete(pending, dn.req)
			}
		}
		ev := event{k: k, id: rec.id}
		switch rec.id {
		case idCommDup, idCommSplit, idCommCreate, idCartCreate, idCartSub:
			ev.parent, ev.newcomm = int32(v(&rec, "oldcomm")), int32(v(&rec, "newcomm"))
			ev.color, ev.key, ev.group = v(&rec, "color"), v(&rec, "key"), int32(v(&rec, "group"))
			ev.list = slices.Clone(a(&rec, map[uint16]string{idCartCreate: "dims", idCartSub: "remain_dims"}[rec.id]))
		case idFree:
			ev.parent = int32(v(&rec, "comm"))
		case idCommGroup:
			ev.parent, ev.newgroup = int32(v(&rec, "comm")), int32(v(&rec, "group"))
		case idGroupIncl, idGroupExcl:
			ev.group, ev.newgroup, ev.list = int32(v(&rec, "group")), int32(v(&rec, "newgroup")), slices.Clone(a(&rec, "ranks"))
		default:
			continue
		}
		evs = append(evs, ev)
	}
	if d.off != ri.end {
		return nil, &RankError{File: ri.file, Rank: r, Err: fmt.Errorf("the record stream ends at byte %d, the header starts at %d", d.off, ri.end)}
	}
	first := int64(-1)
	for _, ks := range pending {
		if first < 0 || ks[0] < first {
			first = ks[0]
		}
	}
	if first >= 0 {
		return nil, &RankError{File: ri.file, Rank: r, Record: first, Func: "MPI_Irecv",
			Err: errors.New("a wildcard receive the trace never completes: what it matched cannot be known")}
	}
	if footer != nil {
		for id := range idTotal {
			calls, ignored := footer[id], footer[291+id]
			if calls < ignored || int64(calls-ignored) != counts[id] {
				name := fmt.Sprintf("id %d", id)
				if f := functions()[id]; f != nil {
					name = f.name
				}
				return nil, &RankError{File: ri.file, Rank: r, Err: fmt.Errorf("the footer counts %d %s records (%d calls, %d not traced), the stream holds %d", int64(calls)-int64(ignored), name, calls, ignored, counts[id])}
			}
		}
	}
	return evs, nil
}

// resolve rebuilds the communicators from every rank's events: Trace.comms
// (0 the world, 1+r rank r's MPI_COMM_SELF, then the ones made, in the
// order they are resolved) and each rank's defs. MPI has every member of a
// communicator make communicators on it in one order, so the k-th
// communicator-making call on a communicator is one collective call at
// every member; the reader resolves such a call once every member has
// reached it, rank by rank in a fixed order, so the numbering is the same
// on every reading.
func (t *Trace) resolve(evs [][]event) error {
	n := t.n
	world := make([]int32, n)
	for r := range world {
		world[r] = int32(r)
	}
	t.comms = [][]int32{world}
	for r := range n {
		t.comms = append(t.comms, []int32{int32(r)})
	}
	cart := map[int32][]int64{} // a Cartesian communicator's dims
	type rankState struct {
		pos    int
		local  map[int32]int32   // communicator ids -> t.comms
		groups map[int32][]int32 // group ids -> world ranks
		inst   map[int32]int     // communicator-making calls per communicator
	}
	st := make([]rankState, n)
	for r := range st {
		st[r] = rankState{local: initialComms(t, r), groups: map[int32][]int32{}, inst: map[int32]int{}}
	}
	type pendKey struct {
		comm int32
		k    int
	}
	pending := map[pendKey][]int{} // ranks waiting at the k-th call on comm
	fail := func(r int, e event, format string, v ...any) error {
		return &RankError{File: t.ranks[r].file, Rank: r, Record: e.k, Func: functions()[e.id].name, Err: fmt.Errorf(format, v...)}
	}
	waiting := make([]bool, n)
	for {
		progress := false
		for r := range n {
			s := &st[r]
			for !waiting[r] && s.pos < len(evs[r]) {
				e := evs[r][s.pos]
				switch e.id {
				case idFree:
					delete(s.local, e.parent)
					s.pos++
					continue
				case idCommGroup:
					g, ok := s.local[e.parent]
					if !ok || g < 0 {
						return fail(r, e, "communicator %d, which the rank does not hold", e.parent)
					}
					s.groups[e.newgroup] = slices.Clone(t.comms[g])
					s.pos++
					continue
				case idGroupIncl, idGroupExcl:
					from, ok := s.groups[e.group]
					if !ok {
						return fail(r, e, "group %d, which no Comm_group, Group_incl or Group_excl made", e.group)
					}
					var out []int32
					if e.id == idGroupIncl {
						for _, x := range e.list {
							if x < 0 || x >= int64(len(from)) {
								return fail(r, e, "rank %d of a group of %d", x, len(from))
							}
							out = append(out, from[x])
						}
					} else {
						for i, x := range from {
							if !slices.Contains(e.list, int64(i)) {
								out = append(out, x)
							}
						}
					}
					s.groups[e.newgroup] = out
					s.pos++
					continue
				}
				g, ok := s.local[e.parent]
				if !ok || g < 0 {
					return fail(r, e, "communicator %d, which the rank does not hold", e.parent)
				}
				key := pendKey{g, s.inst[g]}
				pending[key] = append(pending[key], r)
				waiting[r] = true
				progress = true
			}
		}
		// Resolve every call all members have reached, in a fixed order.
		keys := make([]pendKey, 0, len(pending))
		for k := range pending {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			if keys[i].comm != keys[j].comm {
				return keys[i].comm < keys[j].comm
			}
			return keys[i].k < keys[j].k
		})
		for _, key := range keys {
			members := t.comms[key.comm]
			if len(pending[key]) != len(members) {
				continue
			}
			for _, wr := range members {
				if !waiting[wr] || st[wr].pos >= len(evs[wr]) {
					return fmt.Errorf("%s: communicator %d's members do not all wait for the call ranks %v are at", t.Name(), key.comm, pending[key])
				}
			}
			// The members' events, by their rank in the communicator.
			es := make([]event, len(members))
			for i, wr := range members {
				es[i] = evs[wr][st[wr].pos]
				if es[i].id != es[0].id {
					return fail(int(wr), es[i], "rank %d of communicator %d calls %s where rank 0 calls %s", i, key.comm, functions()[es[i].id].name, functions()[es[0].id].name)
				}
			}
			out, err := t.makeComms(key.comm, es, cart, func(i int) []int32 { return st[members[i]].groups[es[i].group] })
			if err != nil {
				return fail(int(members[0]), es[0], "%v", err)
			}
			for i, wr := range members {
				s := &st[wr]
				s.local[es[i].newcomm] = out[i]
				t.ranks[wr].defs = append(t.ranks[wr].defs, out[i])
				s.inst[key.comm]++
				s.pos++
				waiting[wr] = false
			}
			delete(pending, key)
			progress = true
		}
		if !progress {
			break
		}
	}
	for r := range n {
		if st[r].pos < len(evs[r]) {
			e := evs[r][st[r].pos]
			return fail(r, e, "the other members of its communicator never make this call: the communicators cannot be rebuilt")
		}
	}
	return nil
}

// makeComms makes the communicators of one collective call on communicator
// parent, es the members' records by their rank there; it returns each
// member's new communicator (−1: MPI_COMM_NULL).
func (t *Trace) makeComms(parent int32, es []event, cart map[int32][]int64, group func(i int) []int32) ([]int32, error) {
	members := t.comms[parent]
	out := make([]int32, len(members))
	add := func(m []int32) int32 {
		t.comms = append(t.comms, m)
		return int32(len(t.comms) - 1)
	}
	// split groups the members by color, ordered by key then rank.
	split := func(color func(i int) int64, key func(i int) int64) {
		byColor := map[int64][]int{}
		var colors []int64
		for i := range members {
			c := color(i)
			out[i] = -1
			if c == undefined {
				continue
			}
			if _, ok := byColor[c]; !ok {
				colors = append(colors, c)
			}
			byColor[c] = append(byColor[c], i)
		}
		slices.Sort(colors)
		for _, c := range colors {
			is := byColor[c]
			sort.SliceStable(is, func(a, b int) bool { return key(is[a]) < key(is[b]) })
			m := make([]int32, len(is))
			for j, i := range is {
				m[j] = members[i]
			}
			id := add(m)
			for _, i := range is {
				out[i] = id
			}
		}
	}
	switch es[0].id {
	case idCommDup:
		id := add(slices.Clone(members))
		for i := range out {
			out[i] = id
		}
		if d, ok := cart[parent]; ok {
			cart[id] = d
		}
	case idCommSplit:
		split(func(i int) int64 { return es[i].color }, func(i int) int64 { return es[i].key })
	case idCommCreate:
		g := group(0)
		if g == nil {
			return nil, fmt.Errorf("group %d, which no Comm_group, Group_incl or Group_excl made", es[0].group)
		}
		for i := range members {
			if h := group(i); !slices.Equal(h, g) {
				return nil, fmt.Errorf("Comm_create with groups that differ between ranks 0 and %d", i)
			}
		}
		for _, x := range g {
			if !slices.Contains(members, x) {
				return nil, fmt.Errorf("Comm_create's group holds world rank %d, which its communicator has not", x)
			}
		}
		id := add(slices.Clone(g))
		for i, x := range members {
			out[i] = -1
			if slices.Contains(g, x) {
				out[i] = id
			}
		}
	case idCartCreate:
		dims := es[0].list
		p := int64(1)
		for _, d := range dims {
			if d < 1 || p*d > int64(len(members)) {
				return nil, fmt.Errorf("Cart_create with dims %v on a communicator of %d ranks", dims, len(members))
			}
			p *= d
		}
		if p > int64(len(members)) {
			return nil, fmt.Errorf("Cart_create of %d ranks on a communicator of %d", p, len(members))
		}
		id := add(slices.Clone(members[:p]))
		cart[id] = slices.Clone(dims)
		for i := range out {
			out[i] = -1
			if int64(i) < p {
				out[i] = id
			}
		}
	case idCartSub:
		dims, ok := cart[parent]
		if !ok || len(es[0].list) != len(dims) {
			return nil, fmt.Errorf("Cart_sub of %d dimensions on a communicator that is not Cartesian (or of other dimensions)", len(es[0].list))
		}
		keep := es[0].list
		// Ranks lie in row-major order, the last dimension fastest.
		coords := func(i int) []int64 {
			c := make([]int64, len(dims))
			for d := len(dims) - 1; d >= 0; d-- {
				c[d] = int64(i) % dims[d]
				i /= int(dims[d])
			}
			return c
		}
		split(func(i int) int64 {
			var color int64
			for d, c := range coords(i) {
				if keep[d] == 0 {
					color = color*dims[d] + c
				}
			}
			return color
		}, func(i int) int64 { return int64(i) })
		var sub []int64
		for d, k := range keep {
			if k != 0 {
				sub = append(sub, dims[d])
			}
		}
		for _, id := range out {
			cart[id] = sub
		}
	}
	return out, nil
}
