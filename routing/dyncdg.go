package routing

import "sort"

// topoCDG is a channel dependency graph kept acyclic under edge insertion
// and deletion, with a dynamic topological order (Pearce and Kelly): an
// insertion that respects the order costs O(1); otherwise only the nodes
// between the two positions are searched and reordered. Edges count their
// users, so a dependency shared by many paths stays until the last one
// leaves.
type topoCDG struct {
	ord      []int32 // node → position
	out, in  [][]int32
	count    map[uint64]int32
	mark     []uint32
	stamp    uint32
	fwd, bwd []int32
	stack    []int32
}

func newTopoCDG(nodes int) *topoCDG {
	d := &topoCDG{ord: make([]int32, nodes), out: make([][]int32, nodes), in: make([][]int32, nodes),
		count: map[uint64]int32{}, mark: make([]uint32, nodes)}
	for i := range d.ord {
		d.ord[i] = int32(i)
	}
	return d
}

// has reports whether the dependency x→y is in use.
func (d *topoCDG) has(x, y int32) bool { return d.count[edgeKey(x, y)] > 0 }

// add inserts x→y unless it closes a cycle; it reports success.
func (d *topoCDG) add(x, y int32) bool {
	k := edgeKey(x, y)
	if c := d.count[k]; c > 0 {
		d.count[k] = c + 1
		return true
	}
	if x == y {
		return false
	}
	if d.ord[x] > d.ord[y] {
		if !d.reorder(x, y) {
			return false
		}
	}
	d.count[k] = 1
	d.out[x] = append(d.out[x], y)
	d.in[y] = append(d.in[y], x)
	return true
}

// wouldAdd reports whether x→y could be inserted, without inserting it.
func (d *topoCDG) wouldAdd(x, y int32) bool {
	if d.count[edgeKey(x, y)] > 0 || d.ord[x] < d.ord[y] {
		return x != y
	}
	if x == y {
		return false
	}
	return !d.reaches(y, x, d.ord[x])
}

// remove drops one use of x→y.
func (d *topoCDG) remove(x, y int32) {
	k := edgeKey(x, y)
	c := d.count[k]
	if c > 1 {
		d.count[k] = c - 1
		return
	}
	if c == 0 {
		return
	}
	delete(d.count, k)
	d.out[x] = dropOne(d.out[x], y)
	d.in[y] = dropOne(d.in[y], x)
}

func dropOne(s []int32, v int32) []int32 {
	for i, w := range s {
		if w == v {
			s[i] = s[len(s)-1]
			return s[:len(s)-1]
		}
	}
	return s
}

// reaches searches forward from y among nodes ordered at most ub for x.
func (d *topoCDG) reaches(y, x, ub int32) bool {
	d.stamp++
	d.stack = append(d.stack[:0], y)
	d.mark[y] = d.stamp
	for len(d.stack) > 0 {
		u := d.stack[len(d.stack)-1]
		d.stack = d.stack[:len(d.stack)-1]
		if u == x {
			return true
		}
		for _, v := range d.out[u] {
			if d.mark[v] != d.stamp && d.ord[v] <= ub {
				d.mark[v] = d.stamp
				d.stack = append(d.stack, v)
			}
		}
	}
	return false
}

// reorder makes room for x→y when ord[x] > ord[y]: the nodes reachable from
// y (up to ord[x]) move after those reaching x (down to ord[y]). It fails if
// x is reachable from y (the edge would close a cycle).
func (d *topoCDG) reorder(x, y int32) bool {
	lb, ub := d.ord[y], d.ord[x]
	d.stamp++
	fs := d.stamp
	d.fwd = d.fwd[:0]
	d.stack = append(d.stack[:0], y)
	d.mark[y] = fs
	for len(d.stack) > 0 {
		u := d.stack[len(d.stack)-1]
		d.stack = d.stack[:len(d.stack)-1]
		if u == x {
			return false
		}
		d.fwd = append(d.fwd, u)
		for _, v := range d.out[u] {
			if d.mark[v] != fs && d.ord[v] <= ub {
				d.mark[v] = fs
				d.stack = append(d.stack, v)
			}
		}
	}
	d.stamp++
	bs := d.stamp
	d.bwd = d.bwd[:0]
	d.stack = append(d.stack[:0], x)
	d.mark[x] = bs
	for len(d.stack) > 0 {
		u := d.stack[len(d.stack)-1]
		d.stack = d.stack[:len(d.stack)-1]
		d.bwd = append(d.bwd, u)
		for _, v := range d.in[u] {
			if d.mark[v] != bs && d.ord[v] >= lb {
				d.mark[v] = bs
				d.stack = append(d.stack, v)
			}
		}
	}
	byOrd := func(s []int32) {
		sort.Slice(s, func(i, j int) bool { return d.ord[s[i]] < d.ord[s[j]] })
	}
	byOrd(d.bwd)
	byOrd(d.fwd)
	pool := make([]int32, 0, len(d.bwd)+len(d.fwd))
	for _, u := range d.bwd {
		pool = append(pool, d.ord[u])
	}
	for _, u := range d.fwd {
		pool = append(pool, d.ord[u])
	}
	sort.Slice(pool, func(i, j int) bool { return pool[i] < pool[j] })
	i := 0
	for _, u := range d.bwd {
		d.ord[u] = pool[i]
		i++
	}
	for _, u := range d.fwd {
		d.ord[u] = pool[i]
		i++
	}
	return true
}
