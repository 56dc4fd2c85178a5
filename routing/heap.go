package routing

// minHeap is a 4-ary min-heap of (key, node) with ties broken by node, so
// pop order is total and deterministic. No interface boxing.
type minHeap struct {
	key  []int64
	node []int32
}

func (h *minHeap) len() int { return len(h.node) }

func (h *minHeap) reset() { h.key, h.node = h.key[:0], h.node[:0] }

func (h *minHeap) less(i, j int) bool {
	return h.key[i] < h.key[j] || (h.key[i] == h.key[j] && h.node[i] < h.node[j])
}

func (h *minHeap) swap(i, j int) {
	h.key[i], h.key[j] = h.key[j], h.key[i]
	h.node[i], h.node[j] = h.node[j], h.node[i]
}

func (h *minHeap) push(k int64, n int32) {
	h.key = append(h.key, k)
	h.node = append(h.node, n)
	i := len(h.node) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !h.less(i, p) {
			break
		}
		h.swap(i, p)
		i = p
	}
}

func (h *minHeap) pop() (int64, int32) {
	k, n := h.key[0], h.node[0]
	last := len(h.node) - 1
	h.key[0], h.node[0] = h.key[last], h.node[last]
	h.key, h.node = h.key[:last], h.node[:last]
	i := 0
	for {
		best := i
		for c := 4*i + 1; c <= 4*i+4 && c < last; c++ {
			if h.less(c, best) {
				best = c
			}
		}
		if best == i {
			break
		}
		h.swap(i, best)
		i = best
	}
	return k, n
}

// indexHeap is minHeap holding each node at most once: pushing a node
// already in it moves it to its new key. Nue's Dijkstra lowers a switch's
// distance several times before it settles it; here each lowering moves
// the switch up instead of leaving a stale entry behind to be popped and
// skipped. Its pops give the same order as minHeap's with the stale
// entries left out.
type indexHeap struct {
	minHeap
	pos []int32 // node → index in the heap, -1 if not in it
}

// newIndexHeap returns an empty heap for nodes 0..n-1.
func newIndexHeap(n int) indexHeap {
	h := indexHeap{pos: make([]int32, n)}
	for i := range h.pos {
		h.pos[i] = -1
	}
	return h
}

func (h *indexHeap) reset() {
	for _, v := range h.node {
		h.pos[v] = -1
	}
	h.minHeap.reset()
}

func (h *indexHeap) swap(i, j int) {
	h.minHeap.swap(i, j)
	h.pos[h.node[i]], h.pos[h.node[j]] = int32(i), int32(j)
}

// push gives node v the key k, adding it if it is not in the heap.
func (h *indexHeap) push(k int64, v int32) {
	i := int(h.pos[v])
	if i < 0 {
		i = len(h.node)
		h.key, h.node = append(h.key, k), append(h.node, v)
		h.pos[v] = int32(i)
	} else {
		up := k < h.key[i]
		h.key[i] = k
		if !up {
			h.down(i)
			return
		}
	}
	h.up(i)
}

func (h *indexHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 4
		if !h.less(i, p) {
			break
		}
		h.swap(i, p)
		i = p
	}
}

func (h *indexHeap) down(i int) {
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

func (h *indexHeap) pop() (int64, int32) {
	k, v := h.key[0], h.node[0]
	last := len(h.node) - 1
	h.swap(0, last)
	h.key, h.node = h.key[:last], h.node[:last]
	h.pos[v] = -1
	h.down(0)
	return k, v
}
