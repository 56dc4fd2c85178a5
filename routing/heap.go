package routing

// minHeap is a 4-ary min-heap of (key, node) with ties broken by node, so
// pop order is total and deterministic. No interface boxing. Each entry
// keeps its key and node side by side, and sifting moves entries into a
// hole instead of swapping pairs: a node's children share a cache line or
// two, and each level writes one entry.
//
// An indexed heap (newIndexHeap) holds each node at most once: pushing a
// node already in it moves it to its new key. Nue's Dijkstra lowers a
// switch's distance several times before it settles it; indexed, each
// lowering moves the switch up instead of leaving a stale entry behind to
// be popped and skipped, and the pops come in the order of the plain
// heap's with the stale entries left out.
type minHeap struct {
	e   []heapEntry
	pos []int32 // indexed heaps: node → index in the heap, -1 if not in it
}

// heapEntry is one (key, node) of a minHeap.
type heapEntry struct {
	key  int64
	node int32
}

// before orders entries by key, then node.
func (a heapEntry) before(b heapEntry) bool {
	return a.key < b.key || (a.key == b.key && a.node < b.node)
}

// newIndexHeap returns an empty indexed heap for nodes 0..n-1.
func newIndexHeap(n int) minHeap {
	h := minHeap{pos: make([]int32, n)}
	for i := range h.pos {
		h.pos[i] = -1
	}
	return h
}

func (h *minHeap) len() int { return len(h.e) }

func (h *minHeap) reset() {
	if h.pos != nil {
		for _, x := range h.e {
			h.pos[x.node] = -1
		}
	}
	h.e = h.e[:0]
}

// place puts x at index i.
func (h *minHeap) place(i int, x heapEntry) {
	h.e[i] = x
	if h.pos != nil {
		h.pos[x.node] = int32(i)
	}
}

// push adds node n with key k; an indexed heap that holds n already moves
// it to key k instead.
func (h *minHeap) push(k int64, n int32) {
	x := heapEntry{k, n}
	if h.pos != nil {
		if i := int(h.pos[n]); i >= 0 {
			if x.before(h.e[i]) {
				h.up(i, x)
			} else {
				h.down(i, x)
			}
			return
		}
	}
	h.e = append(h.e, x)
	h.up(len(h.e)-1, x)
}

// up moves x from the hole at i towards the root to its place.
func (h *minHeap) up(i int, x heapEntry) {
	for i > 0 {
		p := (i - 1) / 4
		if !x.before(h.e[p]) {
			break
		}
		h.place(i, h.e[p])
		i = p
	}
	h.place(i, x)
}

// down moves x from the hole at i towards the leaves to its place.
func (h *minHeap) down(i int, x heapEntry) {
	n := len(h.e)
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		best := c
		for j := c + 1; j <= c+3 && j < n; j++ {
			if h.e[j].before(h.e[best]) {
				best = j
			}
		}
		if !h.e[best].before(x) {
			break
		}
		h.place(i, h.e[best])
		i = best
	}
	h.place(i, x)
}

func (h *minHeap) pop() (int64, int32) {
	top := h.e[0]
	last := len(h.e) - 1
	x := h.e[last]
	h.e = h.e[:last]
	if h.pos != nil {
		h.pos[top.node] = -1
	}
	if last > 0 {
		h.down(0, x)
	}
	return top.key, top.node
}
