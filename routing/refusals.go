package routing

import "slices"

// refusalMemo remembers the all-or-nothing insertions an ordered graph
// refused, each with a witness: the path that made its refused edge close
// a cycle. Nue's backtracking (switchNext) tries the same few moves again
// and again: on a 12×12×12 torus with 1 % failed cables 99 % of its 1.2 M
// refused moves repeat one refused before, and each costs the searches of
// a reorder.
//
// A refusal stands as long as its witness does. Insertions only add paths,
// so the refused edge, inserted after the same earlier edges of the same
// step, would close a cycle again unless an edge of the witness left the
// graph. The graph counts its cuts (removals of an edge's last use) and
// stamps the tail of each removed edge with that count, so a witness
// whose nodes (all but its last) carry no stamp later than the refusal is
// intact. A stamp may come from another out-edge of the node: then the
// memo answers nothing and the step is tried again, as if never refused.
// An undo (a step taking back what it inserted) restores the graph and
// leaves no stamp. Every answer is the one the insertions would give.
type refusalMemo struct {
	slots []int32 // open addressing by a step's hash: entry index + 1, 0 empty
	entry []refusal
	data  []int32 // steps' edges (two nodes each) and witnesses
}

// refusal is one refused step: its hash, its edges and its witness as
// ranges of data, and the graph's cut count when it was refused.
type refusal struct {
	hash                                 uint64
	edges, edgesEnd, witness, witnessEnd int32
	at                                   uint32
}

// find returns the slot of the entry with hash h, or the empty slot where
// it would go.
func (m *refusalMemo) find(h uint64) int {
	mask := len(m.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		if e := m.slots[i]; e == 0 || m.entry[e-1].hash == h {
			return i
		}
	}
}

// lookup returns the entry with hash h, nil if there is none.
func (m *refusalMemo) lookup(h uint64) *refusal {
	if len(m.slots) == 0 {
		return nil
	}
	if e := m.slots[m.find(h)]; e != 0 {
		return &m.entry[e-1]
	}
	return nil
}

// grow doubles the slots (from 1,024) and places every entry again.
func (m *refusalMemo) grow() {
	m.slots = make([]int32, max(1024, 2*len(m.slots)))
	for i := range m.entry {
		m.slots[m.find(m.entry[i].hash)] = int32(i + 1)
	}
}

// maxMemoData bounds the memo; past it the memo starts afresh.
const maxMemoData = 1 << 24

// hashStep hashes the edges of a step.
func hashStep(step []uint64) uint64 {
	h := uint64(len(step))
	for _, e := range step {
		h = mix(h ^ e)
	}
	return h
}

// insertStep adds one use of each edge of step (edgeKey's, inserted in
// order), all of them or, if one would close a cycle, none. With a memo,
// a step refused before whose witness stands is refused at once, and a
// refused step is remembered.
func (c *cdg) insertStep(step []uint64) bool {
	if c.refusals != nil && c.refusedBefore(step) {
		return false
	}
	for i, e := range step {
		x, y := int32(e>>32), int32(uint32(e))
		if !c.insert(x, y) {
			if c.refusals != nil {
				c.refuse(step, y)
			}
			for _, b := range step[:i] {
				c.undo(int32(b>>32), int32(uint32(b)))
			}
			return false
		}
	}
	return true
}

// refusedBefore reports whether the step (its edges in the order they
// would be inserted) was refused before and its witness still stands.
func (c *cdg) refusedBefore(step []uint64) bool {
	m := c.refusals
	r := m.lookup(hashStep(step))
	if r == nil {
		return false
	}
	edges := m.data[r.edges:r.edgesEnd]
	if len(edges) != 2*len(step) {
		return false
	}
	for k, e := range step {
		if edgeKey(edges[2*k], edges[2*k+1]) != e {
			return false
		}
	}
	w := m.data[r.witness:r.witnessEnd]
	for _, v := range w[:len(w)-1] {
		if c.node[v].cut > r.at {
			return false
		}
	}
	return true
}

// refuse remembers that the step was refused because its insertion of an
// edge into y closed a cycle (met, or a self-loop, as insertNew recorded
// them); it must run right after that insertion, before any other search.
func (c *cdg) refuse(step []uint64, y int32) {
	m := c.refusals
	if len(m.data) > maxMemoData {
		clear(m.slots)
		m.data, m.entry = m.data[:0], m.entry[:0]
	}
	h := hashStep(step)
	r := refusal{hash: h, edges: int32(len(m.data)), at: c.cuts}
	for _, e := range step {
		m.data = append(m.data, int32(e>>32), int32(uint32(e)))
	}
	r.edgesEnd = int32(len(m.data))
	r.witness = r.edgesEnd
	// The witness runs from y to the refused edge's tail: the forward
	// search's chain from y to met[0], then the backward search's from
	// met[1] on (a self-loop's witness is y alone).
	if c.met[0] >= 0 {
		start := len(m.data)
		for v := c.met[0]; v >= 0; v = c.parent[v] {
			m.data = append(m.data, v)
		}
		slices.Reverse(m.data[start:])
		for v := c.met[1]; v >= 0; v = c.parent[v] {
			m.data = append(m.data, v)
		}
	} else {
		m.data = append(m.data, y)
	}
	r.witnessEnd = int32(len(m.data))
	if 4*(len(m.entry)+1) > 3*len(m.slots) {
		m.grow()
	}
	i := m.find(h)
	if e := m.slots[i]; e != 0 {
		m.entry[e-1] = r
		return
	}
	m.entry = append(m.entry, r)
	m.slots[i] = int32(len(m.entry))
}

// cut stamps node x, which lost an out-edge.
func (c *cdg) cut(x int32) {
	if c.refusals == nil {
		return
	}
	c.cuts++
	if c.cuts == 0 { // wrapped: forget every stamp and refusal
		for i := range c.node {
			c.node[i].cut = 0
		}
		*c.refusals = refusalMemo{}
		c.cuts = 1
	}
	c.node[x].cut = c.cuts
}
