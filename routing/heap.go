package routing

// minHeap is a 4-ary min-heap of (key, node) with ties broken by node, so
// pop order is total and deterministic. No interface boxing.
//
// An indexed heap (newIndexHeap) holds each node at most once: pushing a
// node already in it moves it to its new key. Nue's Dijkstra lowers a
// switch's distance several times before it settles it; indexed, each
// lowering moves the switch up instead of leaving a stale entry behind to
// be popped and skipped, and the pops come in the order of the plain
// heap's with the stale entries left out.
type minHeap struct {
	key  []int64
	node []int32
	pos  []int32 // indexed heaps: node → index in the heap, -1 if not in it
}

// newIndexHeap returns an empty indexed heap for nodes 0..n-1.
func newIndexHeap(n int) minHeap {
	h := minHeap{pos: make([]int32, n)}
	for i := range h.pos {
		h.pos[i] = -1
	}
	return h
}

func (h *minHeap) len() int { return len(h.node) }

func (h *minHeap) reset() {
	if h.pos != nil {
		for _, v := range h.node {
			h.pos[v] = -1
		}
	}
	h.key, h.node = h.key[:0], h.node[:0]
}

func (h *minHeap) less(i, j int) bool {
	return h.key[i] < h.key[j] || (h.key[i] == h.key[j] && h.node[i] < h.node[j])
}

func (h *minHeap) swap(i, j int) {
	h.key[i], h.key[j] = h.key[j], h.key[i]
	h.node[i], h.node[j] = h.node[j], h.node[i]
	if h.pos != nil {
		h.pos[h.node[i]], h.pos[h.node[j]] = int32(i), int32(j)
	}
}

// push adds node n with key k; an indexed heap that holds n already moves
// it to key k instead.
func (h *minHeap) push(k int64, n int32) {
	if h.pos != nil {
		if i := int(h.pos[n]); i >= 0 {
			up := k < h.key[i]
			h.key[i] = k
			if up {
				h.up(i)
			} else {
				h.down(i)
			}
			return
		}
		h.pos[n] = int32(len(h.node))
	}
	h.key = append(h.key, k)
	h.node = append(h.node, n)
	h.up(len(h.node) - 1)
}

func (h *minHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 4
		if !h.less(i, p) {
			break
		}
		h.swap(i, p)
		i = p
	}
}

func (h *minHeap) down(i int) {
	n := len(h.node)
	for {
		best := i
		for c := 4*i + 1; c <= 4*i+4 && c < n; c++ {
			if h.less(c, best) {
				best = c
			}
		}
		if best == i {
			return
		}
		h.swap(i, best)
		i = best
	}
}

func (h *minHeap) pop() (int64, int32) {
	k, n := h.key[0], h.node[0]
	last := len(h.node) - 1
	h.swap(0, last)
	h.key, h.node = h.key[:last], h.node[:last]
	if h.pos != nil {
		h.pos[n] = -1
	}
	h.down(0)
	return k, n
}
