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
