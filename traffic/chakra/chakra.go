// Package chakra reads Chakra execution traces (MLCommons' schema,
// et_def.proto: what ASTRA-sim replays for distributed AI training) into
// a traffic.Program that a trace job replays.
//
// A trace is one file per NPU, <name>.<npu>.et: a length-delimited
// GlobalMetadata message, then length-delimited Node messages (varint
// lengths; a file may be gzipped). A node computes for its
// duration_micros (COMP_NODE), sends or receives (COMM_SEND_NODE,
// COMM_RECV_NODE: comm_src, comm_dst, comm_tag, comm_size), or runs a
// collective (COMM_COLL_NODE: comm_type, comm_size, pg_name) once the
// nodes it depends on (data_deps, ctrl_deps) are done. A comm_group.json
// beside the files gives the process groups' NPUs ({"<pg_name>": [npu,
// ...]}, ASTRA-sim's format); without it every collective runs on all
// NPUs.
//
// The replay runs each NPU's nodes one after another in an order the
// dependencies allow (ready nodes by their start time, then id): a
// receive is posted where it stands and waited for just before the first
// node that depends on it, so it overlaps whatever comes between; a
// collective holds its NPU until it is done, so computation that the
// graph would let overlap a collective does not (ASTRA-sim overlaps it).
// Memory, metadata and unknown nodes take no time and are counted in
// Trace.Skipped.
package chakra

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"container/heap"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"

	"flitsim/traffic"
)

// Trace is an opened Chakra trace: a traffic.Program.
type Trace struct {
	prog    traffic.MemProgram
	files   []string
	Skipped map[string]int64 // nodes of the kinds that take no time, by kind
	checked traffic.Checked
}

// Checked implements traffic.Memo.
func (t *Trace) Checked() *traffic.Checked { return &t.checked }

var etName = regexp.MustCompile(`^(.*)\.([0-9]+)\.et$`)

// Files lists a trace's files: each NPU's, then comm_group.json if there is one.
func (t *Trace) Files() []string { return t.files }

// Open reads the trace in directory dir (its <name>.<npu>.et files and
// comm_group.json), or the trace whose files are path.<npu>.et.
func Open(path string) (*Trace, error) {
	dir, prefix := path, ""
	if st, err := os.Stat(path); err != nil || !st.IsDir() {
		dir, prefix = filepath.Dir(path), filepath.Base(path)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	byNPU := map[int]string{}
	for _, e := range ents {
		m := etName.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		if prefix == "" {
			prefix = m[1]
		}
		if m[1] != prefix {
			return nil, fmt.Errorf("%s: the Chakra traces %s and %s: give one (the path %s/NAME)", dir, prefix, m[1], dir)
		}
		n, err := strconv.Atoi(m[2])
		if err != nil {
			return nil, fmt.Errorf("%s: %v", e.Name(), err)
		}
		byNPU[n] = filepath.Join(dir, e.Name())
	}
	if len(byNPU) == 0 {
		return nil, fmt.Errorf("%s: no Chakra trace files (NAME.NPU.et)", path)
	}
	t := &Trace{Skipped: map[string]int64{}}
	t.prog.ID = filepath.Join(dir, prefix)
	for i := range len(byNPU) {
		f, ok := byNPU[i]
		if !ok {
			return nil, fmt.Errorf("%s: NPU %d has no file %s.%d.et (have %d files)", dir, i, prefix, i, len(byNPU))
		}
		t.files = append(t.files, f)
	}
	readers := make([]io.Reader, len(t.files))
	for i, f := range t.files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		readers[i] = bytes.NewReader(data)
	}
	groups := map[string][]int32{}
	if data, err := os.ReadFile(filepath.Join(dir, "comm_group.json")); err == nil {
		if err := json.Unmarshal(data, &groups); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "comm_group.json"), err)
		}
		t.files = append(t.files, filepath.Join(dir, "comm_group.json"))
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if err := t.read(readers, t.files, groups); err != nil {
		return nil, err
	}
	return t, nil
}

// FromReaders reads a trace from one reader per NPU (the fuzzer and the
// tests); names name them in errors.
func FromReaders(name string, rs []io.Reader, groups map[string][]int32) (*Trace, error) {
	t := &Trace{Skipped: map[string]int64{}}
	t.prog.ID = name
	names := make([]string, len(rs))
	for i := range names {
		names[i] = fmt.Sprintf("%s NPU %d", name, i)
	}
	if err := t.read(rs, names, groups); err != nil {
		return nil, err
	}
	return t, nil
}

// read decodes every NPU's nodes and orders them into calls.
func (t *Trace) read(rs []io.Reader, names []string, groups map[string][]int32) error {
	n := len(rs)
	world := make([]int32, n)
	for i := range world {
		world[i] = int32(i)
	}
	t.prog.Members = [][]int32{world}
	pgs := map[string]int32{}
	var keys []string
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		m := groups[k]
		seen := map[int32]bool{}
		for _, x := range m {
			if x < 0 || int(x) >= n || seen[x] {
				return fmt.Errorf("comm_group.json: group %q holds NPU %d (of %d), or twice", k, x, n)
			}
			seen[x] = true
		}
		if len(m) == 0 {
			return fmt.Errorf("comm_group.json: group %q is empty", k)
		}
		pgs[k] = int32(len(t.prog.Members))
		t.prog.Members = append(t.prog.Members, m)
	}
	t.prog.Ranks = make([][]traffic.Call, n)
	for npu, r := range rs {
		nodes, err := decodeFile(r)
		if err != nil {
			return fmt.Errorf("%s: %w", names[npu], err)
		}
		calls, err := t.order(npu, nodes, pgs)
		if err != nil {
			return fmt.Errorf("%s: %w", names[npu], err)
		}
		t.prog.Ranks[npu] = calls
	}
	return nil
}

// The node types and collectives of et_def.proto.
const (
	metadataNode = 1
	memLoadNode  = 2
	memStoreNode = 3
	compNode     = 4
	sendNode     = 5
	recvNode     = 6
	collNode     = 7
)

var nodeTypes = map[uint64]string{0: "invalid", metadataNode: "metadata", memLoadNode: "mem_load", memStoreNode: "mem_store",
	compNode: "comp", sendNode: "comm_send", recvNode: "comm_recv", collNode: "comm_coll"}

// node is what the reader keeps of a Node.
type node struct {
	id, typ     uint64
	name        string
	deps        []uint64
	start, dur  uint64 // µs
	commType    int64
	commSize    int64
	src, dst    int64
	tag         int64
	pg          string
	hasCommType bool
}

// order turns one NPU's nodes into calls, in an order the dependencies
// allow.
func (t *Trace) order(npu int, nodes []node, pgs map[string]int32) ([]traffic.Call, error) {
	byID := make(map[uint64]int, len(nodes))
	for i, nd := range nodes {
		if _, dup := byID[nd.id]; dup {
			return nil, fmt.Errorf("node %d given twice", nd.id)
		}
		byID[nd.id] = i
	}
	indeg := make([]int, len(nodes))
	kids := make([][]int, len(nodes))
	for i, nd := range nodes {
		for _, d := range nd.deps {
			j, ok := byID[d]
			if !ok {
				return nil, fmt.Errorf("node %d (%s) depends on node %d, which the trace has not", nd.id, nd.name, d)
			}
			indeg[i]++
			kids[j] = append(kids[j], i)
		}
	}
	ready := &readyHeap{nodes: nodes}
	for i := range nodes {
		if indeg[i] == 0 {
			heap.Push(ready, i)
		}
	}
	var calls []traffic.Call
	var compute int64 // ps not yet given to a call
	waited := make([]bool, len(nodes))
	recvReq := map[int]int32{} // a receive node's request, until waited for
	emit := func(c traffic.Call) {
		c.Compute = compute
		compute = 0
		calls = append(calls, c)
	}
	done := 0
	for ready.Len() > 0 {
		i := heap.Pop(ready).(int)
		nd := nodes[i]
		done++
		// Wait for the receives this node depends on.
		var reqs []int32
		for _, d := range nd.deps {
			j := byID[d]
			if q, ok := recvReq[j]; ok && !waited[j] {
				waited[j] = true
				reqs = append(reqs, q)
				delete(recvReq, j)
			}
		}
		if len(reqs) > 0 {
			emit(traffic.Call{Op: traffic.CallWait, Reqs: reqs})
		}
		switch nd.typ {
		case compNode:
			compute += int64(nd.dur) * 1e6
		case sendNode, recvNode:
			peer := nd.dst
			if nd.typ == recvNode {
				peer = nd.src
			}
			if peer < 0 || peer >= int64(len(t.prog.Ranks)) || peer == int64(npu) {
				return nil, fmt.Errorf("node %d (%s): %s with NPU %d (of %d NPUs, this one %d)", nd.id, nd.name, nodeTypes[nd.typ], peer, len(t.prog.Ranks), npu)
			}
			c := traffic.Call{Op: traffic.CallIsend, Peer: int32(peer), Tag: int32(nd.tag), Bytes: nd.commSize, Req: int32(i)}
			if nd.typ == recvNode {
				c.Op = traffic.CallIrecv
				recvReq[i] = int32(i)
			}
			emit(c)
		case collNode:
			c, err := t.collective(npu, nd, pgs)
			if err != nil {
				return nil, err
			}
			// Posted, as a receive is: waited for just before the first
			// node that depends on it, so that what comes between
			// overlaps it (ASTRA-sim runs collectives beside computation).
			c.Async, c.Req = true, int32(i)
			recvReq[i] = int32(i)
			emit(c)
		default:
			t.Skipped[nodeTypes[nd.typ]]++
		}
		for _, k := range kids[i] {
			if indeg[k]--; indeg[k] == 0 {
				heap.Push(ready, k)
			}
		}
	}
	if done < len(nodes) {
		return nil, fmt.Errorf("the dependencies of %d nodes form a cycle", len(nodes)-done)
	}
	var rest []int32
	for j := range nodes {
		if q, ok := recvReq[j]; ok {
			rest = append(rest, q)
		}
	}
	sort.Slice(rest, func(a, b int) bool { return rest[a] < rest[b] })
	emit(traffic.Call{Op: traffic.CallWait, Reqs: rest})
	return calls, nil
}

// collective is a collective node's call.
func (t *Trace) collective(npu int, nd node, pgs map[string]int32) (traffic.Call, error) {
	comm := int32(0)
	if nd.pg != "" && len(pgs) > 0 {
		c, ok := pgs[nd.pg]
		if !ok {
			return traffic.Call{}, fmt.Errorf("node %d (%s): process group %q, which comm_group.json has not", nd.id, nd.name, nd.pg)
		}
		comm = c
	}
	members := t.prog.Members[comm]
	n := int64(len(members))
	in := false
	for _, m := range members {
		in = in || int(m) == npu
	}
	if !in {
		return traffic.Call{}, fmt.Errorf("node %d (%s): NPU %d runs a collective of group %q, which it is not in", nd.id, nd.name, npu, nd.pg)
	}
	if !nd.hasCommType {
		return traffic.Call{}, fmt.Errorf("node %d (%s): a collective without comm_type", nd.id, nd.name)
	}
	b := nd.commSize
	if b < 0 || b > 1<<40 {
		return traffic.Call{}, fmt.Errorf("node %d (%s): comm_size %d", nd.id, nd.name, b)
	}
	c := traffic.Call{Comm: comm, Bytes: b}
	switch nd.commType {
	case 0:
		c.Op = traffic.CallAllreduce
	case 1:
		c.Op = traffic.CallReduce
	case 2:
		c.Op = traffic.CallAllgather
	case 3:
		c.Op = traffic.CallGather
	case 4:
		c.Op, c.Bytes = traffic.CallScatter, b/n
	case 5:
		c.Op = traffic.CallBcast
	case 6:
		c.Op, c.Bytes = traffic.CallAlltoall, b/n
	case 7, 8:
		c.Op, c.Bytes = traffic.CallReduceScatter, 0
		c.Counts = make([]int64, n)
		for i := range c.Counts {
			c.Counts[i] = b / n
		}
	case 9:
		c.Op, c.Bytes = traffic.CallBarrier, 0
	default:
		return traffic.Call{}, fmt.Errorf("node %d (%s): comm_type %d", nd.id, nd.name, nd.commType)
	}
	return c, nil
}

// Algorithms implements traffic.Librarian: NCCL's rings for the
// collectives of AI training, every message of an all-to-all posted at
// once; a job may name NCCL's double binary tree for its allreduces
// ("allreduce=tree"). NCCL's choice between them and its ring broadcast
// are not modelled: broadcast runs MPICH's binomial tree.
func (t *Trace) Algorithms() string {
	return "allreduce=ring,allgather=ring,reduce_scatter=ring,alltoall=isend,bcast=binomial"
}

// Name implements traffic.Program.
func (t *Trace) Name() string { return t.prog.Name() }

// Size implements traffic.Program.
func (t *Trace) Size() int { return t.prog.Size() }

// Comms implements traffic.Program.
func (t *Trace) Comms() [][]int32 { return t.prog.Comms() }

// Calls implements traffic.Program.
func (t *Trace) Calls(r int) (traffic.CallReader, error) { return t.prog.Calls(r) }

var (
	_ traffic.Program   = (*Trace)(nil)
	_ traffic.Librarian = (*Trace)(nil)
	_ traffic.Memo      = (*Trace)(nil)
)

// readyHeap orders ready nodes by start time, then id.
type readyHeap struct {
	nodes []node
	idx   []int
}

func (h *readyHeap) Len() int { return len(h.idx) }
func (h *readyHeap) Less(a, b int) bool {
	x, y := h.nodes[h.idx[a]], h.nodes[h.idx[b]]
	if x.start != y.start {
		return x.start < y.start
	}
	return x.id < y.id
}
func (h *readyHeap) Swap(a, b int) { h.idx[a], h.idx[b] = h.idx[b], h.idx[a] }
func (h *readyHeap) Push(x any)    { h.idx = append(h.idx, x.(int)) }
func (h *readyHeap) Pop() any {
	x := h.idx[len(h.idx)-1]
	h.idx = h.idx[:len(h.idx)-1]
	return x
}

// decodeFile reads one NPU's file: the metadata message, then the nodes
// (gzipped or not).
func decodeFile(r io.Reader) ([]node, error) {
	br := bufio.NewReader(r)
	if b, err := br.Peek(2); err == nil && b[0] == 0x1f && b[1] == 0x8b {
		z, err := gzip.NewReader(br)
		if err != nil {
			return nil, err
		}
		br = bufio.NewReader(z)
	}
	var nodes []node
	for k := 0; ; k++ {
		size, err := readVarint(br)
		if errors.Is(err, io.EOF) {
			if k == 0 {
				return nil, errors.New("an empty file: no GlobalMetadata")
			}
			return nodes, nil
		}
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", k, err)
		}
		if size > 1<<30 {
			return nil, fmt.Errorf("message %d of %d bytes", k, size)
		}
		msg := make([]byte, size)
		if _, err := io.ReadFull(br, msg); err != nil {
			return nil, fmt.Errorf("message %d: the file ends inside it", k)
		}
		if k == 0 {
			if err := skipMessage(msg); err != nil {
				return nil, fmt.Errorf("GlobalMetadata: %w", err)
			}
			continue
		}
		nd, err := decodeNode(msg)
		if err != nil {
			return nil, fmt.Errorf("node message %d: %w", k, err)
		}
		nodes = append(nodes, nd)
	}
}
