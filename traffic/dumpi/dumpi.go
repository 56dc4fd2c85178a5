// Package dumpi reads the binary MPI traces of sst-dumpi (docs/dumpi-format.md
// describes the format as this reader understands it) into a
// traffic.Program that a trace job replays.
//
// A trace is a directory holding one .meta file and one .bin file per rank
// of MPI_COMM_WORLD. Open reads every record of every rank once: it checks
// each file against its own footer's call counts, rebuilds the
// communicators (the trace records only each rank's own handle of a new
// communicator; Comm_split's colors and keys, Comm_dup, Comm_create's
// groups, Cart_create and Cart_sub say who is in it), and resolves the
// wildcard receives by the statuses the traced run completed them with.
// What it keeps is small (the communicators, the resolutions, the
// datatype sizes); the calls themselves are read again, streaming, rank by
// rank, each time the program is replayed.
//
// Every record of the format's 291 functions is decoded (a record has no
// length, so an unknown one cannot be skipped); the functions that move
// data beyond point-to-point and collective calls (one-sided Put, Get and
// Accumulate; file I/O; spawning) are counted in Trace.Skipped and replayed
// as the time they took. A truncated or corrupt file is an error naming
// the file, the rank and the record.
package dumpi

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"flitsim/traffic"
)

// Trace is an opened DUMPI trace: a traffic.Program.
type Trace struct {
	// Dir and Prefix locate the files: Dir/Prefix-%04d.bin per rank.
	Dir, Prefix string
	n           int
	comms       [][]int32
	ranks       []rankInfo
	// Records counts the records read per function name; Skipped the
	// records of functions that move data the replay does not (one-sided
	// communication, file I/O).
	Records, Skipped map[string]int64
	// open returns rank r's file (tests and the fuzzer give bytes).
	open    func(r int) (io.ReaderAt, int64, io.Closer, error)
	checked traffic.Checked
}

// Checked implements traffic.Memo.
func (t *Trace) Checked() *traffic.Checked { return &t.checked }

// rankInfo is what the first reading of a rank keeps for the next.
type rankInfo struct {
	file   string
	sizes  []int64        // bytes of each datatype id
	body   int64          // the first record's offset
	end    int64          // the header's offset: the record stream ends before it
	defs   []int32        // the global communicator of each communicator-making record, in order (−1: MPI_COMM_NULL)
	wild   map[int64]wild // wildcard receives by record number: what they matched
	wallOK bool
}

type wild struct{ source, tag int32 }

// Open reads the trace of path: a directory holding one .meta file, or the
// .meta file.
func Open(path string) (*Trace, error) {
	meta := path
	if st, err := os.Stat(path); err != nil {
		return nil, err
	} else if st.IsDir() {
		m, err := filepath.Glob(filepath.Join(path, "*.meta"))
		if err != nil {
			return nil, err
		}
		if len(m) != 1 {
			return nil, fmt.Errorf("%s: want one DUMPI .meta file, found %d", path, len(m))
		}
		meta = m[0]
	}
	data, err := os.ReadFile(meta)
	if err != nil {
		return nil, err
	}
	n, prefix, err := parseMeta(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", meta, err)
	}
	t := &Trace{Dir: filepath.Dir(meta), Prefix: prefix, n: n}
	t.open = func(r int) (io.ReaderAt, int64, io.Closer, error) {
		f, err := os.Open(t.ranks[r].file)
		if err != nil {
			return nil, 0, nil, err
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, 0, nil, err
		}
		return f, st.Size(), f, nil
	}
	files := make([]string, n)
	for r := range files {
		files[r] = filepath.Join(t.Dir, fmt.Sprintf("%s-%04d.bin", prefix, r))
	}
	if err := t.load(files); err != nil {
		return nil, err
	}
	return t, nil
}

// parseMeta reads a .meta file's numprocs and fileprefix.
func parseMeta(data []byte) (int, string, error) {
	n, prefix := -1, ""
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return 0, "", fmt.Errorf("line %d: want key=value, have %q", i+1, line)
		}
		switch k {
		case "numprocs":
			x, err := strconv.Atoi(v)
			if err != nil || x < 1 || x > 1<<24 {
				return 0, "", fmt.Errorf("line %d: numprocs %q", i+1, v)
			}
			n = x
		case "fileprefix":
			if v == "" || strings.ContainsAny(v, "/\\") {
				return 0, "", fmt.Errorf("line %d: fileprefix %q", i+1, v)
			}
			prefix = v
		}
	}
	switch {
	case n < 0:
		return 0, "", errors.New("no numprocs")
	case prefix == "":
		return 0, "", errors.New("no fileprefix")
	}
	return n, prefix, nil
}

// FromBytes reads a trace held in memory, one file's bytes per rank (the
// fuzzer and the tests).
func FromBytes(name string, files [][]byte) (*Trace, error) {
	t := &Trace{Dir: name, Prefix: name, n: len(files)}
	t.open = func(r int) (io.ReaderAt, int64, io.Closer, error) {
		return bytes.NewReader(files[r]), int64(len(files[r])), io.NopCloser(nil), nil
	}
	names := make([]string, len(files))
	for r := range names {
		names[r] = fmt.Sprintf("%s rank %d", name, r)
	}
	if err := t.load(names); err != nil {
		return nil, err
	}
	return t, nil
}

// The magic numbers of a rank file.
var (
	magic       = []byte{0xff, 0xaa, 0xdd, 0x44, 0x55, 0x4d, 0x50, 0x49}
	footerMagic = uint64(0xf007fee7)
)

// load reads every rank file once (the trailer, the datatype sizes, the
// footer, every record), then rebuilds the communicators.
func (t *Trace) load(files []string) error {
	if t.n < 1 {
		return errors.New("a trace of no ranks")
	}
	t.ranks = make([]rankInfo, t.n)
	t.Records, t.Skipped = map[string]int64{}, map[string]int64{}
	evs := make([][]event, t.n)
	for r := range t.ranks {
		t.ranks[r].file = files[r]
		ev, err := t.scan(r)
		if err != nil {
			return err
		}
		evs[r] = ev
	}
	return t.resolve(evs)
}

// RankError locates an error in a rank's file.
type RankError struct {
	File   string
	Rank   int
	Record int64 // from 1; 0: not in a record
	Func   string
	Err    error
}

func (e *RankError) Error() string {
	switch {
	case e.Record > 0 && e.Func != "":
		return fmt.Sprintf("%s (rank %d), record %d (%s): %v", e.File, e.Rank, e.Record, e.Func, e.Err)
	case e.Record > 0:
		return fmt.Sprintf("%s (rank %d), record %d: %v", e.File, e.Rank, e.Record, e.Err)
	}
	return fmt.Sprintf("%s (rank %d): %v", e.File, e.Rank, e.Err)
}

func (e *RankError) Unwrap() error { return e.Err }

// trailer reads rank r's index, datatype sizes and footer.
func (t *Trace) trailer(r int, ra io.ReaderAt, size int64) (footer []uint32, err error) {
	ri := &t.ranks[r]
	if size < 64+8 {
		return nil, fmt.Errorf("%d bytes: too short for a DUMPI file", size)
	}
	head := make([]byte, 8)
	if _, err := ra.ReadAt(head, 0); err != nil {
		return nil, err
	}
	if !bytes.Equal(head, magic) {
		return nil, errors.New("not a DUMPI file (no magic number at its start)")
	}
	idx := make([]byte, 64)
	if _, err := ra.ReadAt(idx, size-64); err != nil {
		return nil, err
	}
	if !bytes.Equal(idx[:8], magic) {
		return nil, errors.New("no index at the file's end (truncated, or written by a DUMPI older than version 1)")
	}
	off := func(i int) (int64, error) {
		v := binary.BigEndian.Uint64(idx[8*i:])
		if v >= uint64(size-64) {
			return 0, fmt.Errorf("the index points past the file (%d of %d bytes)", v, size)
		}
		return int64(v), nil
	}
	var sizes, header, body, foot int64
	for _, f := range []struct {
		i int
		p *int64
	}{{1, &sizes}, {4, &header}, {5, &body}, {6, &foot}} {
		if *f.p, err = off(f.i); err != nil {
			return nil, err
		}
	}
	if body < 8 || header <= body+8 {
		return nil, fmt.Errorf("the record stream's bounds %d..%d", body, header)
	}
	ri.body, ri.end = body+8, header
	// The datatype sizes.
	if sizes > 0 {
		d := &decoder{r: bufio.NewReader(io.NewSectionReader(ra, sizes, size-64-sizes)), off: sizes, limit: size - 64}
		n, err := d.count(4)
		if err != nil {
			return nil, fmt.Errorf("datatype sizes: %w", err)
		}
		ri.sizes = make([]int64, n)
		for i := range ri.sizes {
			v, err := d.i32()
			if err != nil {
				return nil, fmt.Errorf("datatype sizes: %w", err)
			}
			ri.sizes[i] = int64(v)
		}
	}
	if foot > 0 {
		b := make([]byte, 8+2*291*4)
		if foot+int64(len(b)) > size-64 {
			return nil, errors.New("the footer runs past the index")
		}
		if _, err := ra.ReadAt(b, foot); err != nil {
			return nil, err
		}
		if binary.BigEndian.Uint64(b) != footerMagic {
			return nil, errors.New("the footer has no magic number")
		}
		footer = make([]uint32, 2*291)
		for i := range footer {
			footer[i] = binary.BigEndian.Uint32(b[8+4*i:])
		}
	}
	return footer, nil
}

// stream opens rank r's record stream.
func (t *Trace) stream(r int) (*decoder, io.Closer, error) {
	ra, size, c, err := t.open(r)
	if err != nil {
		return nil, nil, err
	}
	ri := &t.ranks[r]
	if ri.end == 0 { // the first reading
		if _, err := t.trailer(r, ra, size); err != nil {
			c.Close()
			return nil, nil, &RankError{File: ri.file, Rank: r, Err: err}
		}
	}
	d := &decoder{r: bufio.NewReaderSize(io.NewSectionReader(ra, ri.body, ri.end-ri.body), 1<<16), off: ri.body, limit: ri.end}
	return d, c, nil
}

// Files lists the trace's files: the .meta file, then each rank's .bin.
func (t *Trace) Files() []string {
	out := []string{filepath.Join(t.Dir, t.Prefix+".meta")}
	for _, r := range t.ranks {
		out = append(out, r.file)
	}
	return out
}

// Name implements traffic.Program.
func (t *Trace) Name() string { return filepath.Join(t.Dir, t.Prefix) }

// Size implements traffic.Program.
func (t *Trace) Size() int { return t.n }

// Comms implements traffic.Program.
func (t *Trace) Comms() [][]int32 { return t.comms }

// Functions lists the functions of the trace's records with their counts,
// by name.
func (t *Trace) Functions() []string {
	var out []string
	for k, v := range t.Records {
		out = append(out, fmt.Sprintf("%s %d", k, v))
	}
	sort.Strings(out)
	return out
}

// Calls implements traffic.Program: rank r's calls, read from its file.
func (t *Trace) Calls(r int) (traffic.CallReader, error) {
	if r < 0 || r >= t.n {
		return nil, fmt.Errorf("%s: no rank %d of %d", t.Name(), r, t.n)
	}
	d, c, err := t.stream(r)
	if err != nil {
		return nil, err
	}
	return newCalls(t, r, d, c), nil
}

var (
	_ traffic.Program = (*Trace)(nil)
	_ traffic.Memo    = (*Trace)(nil)
)
