package dumpi

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
)

// layout is a row of the generated table (layouts.go).
type layout struct {
	id     uint16
	name   string
	fields string
}

// kind is the wire type of an argument field.
type kind uint8

const (
	kI32 kind = iota
	kI64
	kU16
	kU8
	kA32 // i32 count, then i32 elements
	kA16 // i32 count, then u16 elements
	kA8  // i32 count, then u8 elements
	kS   // i32 length, then bytes
	kSA  // i32 count of S
	kSAA // i32 count of SA
	kA2  // i32 count of A32
	kST  // statuses: only when the record's mask has bit 0 or 1
)

var kinds = map[string]kind{"i32": kI32, "i64": kI64, "u16": kU16, "u8": kU8, "A32": kA32, "A16": kA16, "A8": kA8,
	"S": kS, "SA": kSA, "SAA": kSAA, "A2": kA2, "ST": kST}

type field struct {
	name string
	kind kind
	root bool // written only when the record's commrank (oldcommrank) equals its root
}

// function is a record id's decoded layout.
type function struct {
	name   string
	fields []field
	// rank and root index the fields a root-only field is decided by (−1
	// none).
	rank, root int
}

// The special record ids.
const (
	idEnd   = 293 // the end of the record stream
	numIDs  = 294
	idTotal = 290 // the footer's total slot
)

// functions parses the layout table once; it is immutable afterwards.
var functions = sync.OnceValue(func() *[numIDs]*function {
	var t [numIDs]*function
	for _, l := range layouts {
		f := &function{name: l.name, rank: -1, root: -1}
		for _, s := range strings.Fields(l.fields) {
			name, k, ok := strings.Cut(s, ":")
			kd, known := kinds[k]
			if !ok || !known {
				panic(fmt.Sprintf("dumpi: bad layout %q of %s", s, l.name))
			}
			fd := field{name: strings.TrimPrefix(name, "?"), kind: kd, root: strings.HasPrefix(name, "?")}
			switch fd.name {
			case "commrank", "oldcommrank":
				f.rank = len(f.fields)
			case "root":
				f.root = len(f.fields)
			}
			f.fields = append(f.fields, fd)
		}
		t[l.id] = f
	}
	return &t
})

// fieldIndex returns the index of the field name of record id, −1 when the
// function has none.
func fieldIndex(id uint16, name string) int {
	f := functions()[id]
	if f == nil {
		return -1
	}
	for i, fd := range f.fields {
		if fd.name == name {
			return i
		}
	}
	return -1
}

// status is one completion status of a record.
type status struct {
	bytes, source, tag int32
	cancelled          bool
}

// record is one decoded record. Scalar fields are in val; arrays (and a
// string's length) in arr, by field index.
type record struct {
	id             uint16
	mask           uint8
	wallOK, cpuOK  bool
	start, stop    timestamp // wall clock (or the CPU clock when no wall clock is written)
	val            [16]int64
	arr            [16][]int64
	stat           []status
	statOK         bool // the record carries its statuses
	offset, number int64
}

type timestamp struct {
	sec uint16
	ns  uint32
}

// The mask bits of a record's prefix.
const (
	maskStatus = 0x03
	maskCPU    = 0x04
	maskWall   = 0x08
	maskThread = 0x40
	maskPerf   = 0x80
)

// decoder reads a rank's record stream.
type decoder struct {
	r   *bufio.Reader
	off int64 // bytes read from the file's start
	buf [8]byte
	// limit bounds any count read (arrays, strings): the bytes left in
	// the body, so that a corrupt count fails as a truncation, not as an
	// allocation.
	limit int64
}

var errTruncated = errors.New("the file ends inside a record")

func (d *decoder) read(n int) ([]byte, error) {
	if _, err := io.ReadFull(d.r, d.buf[:n]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, errTruncated
		}
		return nil, err
	}
	d.off += int64(n)
	return d.buf[:n], nil
}

func (d *decoder) u8() (uint8, error) {
	b, err := d.read(1)
	if err != nil {
		return 0, err
	}
	return b[0], nil
}

func (d *decoder) u16() (uint16, error) {
	b, err := d.read(2)
	if err != nil {
		return 0, err
	}
	return binary.BigEndian.Uint16(b), nil
}

func (d *decoder) i32() (int32, error) {
	b, err := d.read(4)
	if err != nil {
		return 0, err
	}
	return int32(binary.BigEndian.Uint32(b)), nil
}

func (d *decoder) i64() (int64, error) {
	b, err := d.read(8)
	if err != nil {
		return 0, err
	}
	return int64(binary.BigEndian.Uint64(b)), nil
}

// count reads an i32 count of elements of size bytes each and checks it
// against what is left.
func (d *decoder) count(size int64) (int, error) {
	n, err := d.i32()
	if err != nil {
		return 0, err
	}
	if n < 0 || int64(n)*max(size, 1) > d.limit-d.off {
		return 0, fmt.Errorf("a count of %d at byte %d runs past the record stream", n, d.off-4)
	}
	return int(n), nil
}

func (d *decoder) skip(n int) error {
	k, err := d.r.Discard(n)
	d.off += int64(k)
	if err != nil {
		return errTruncated
	}
	return nil
}

func (d *decoder) time() (timestamp, error) {
	s, err := d.u16()
	if err != nil {
		return timestamp{}, err
	}
	b, err := d.read(4)
	if err != nil {
		return timestamp{}, err
	}
	ns := binary.BigEndian.Uint32(b)
	if ns >= 1e9 {
		return timestamp{}, fmt.Errorf("a timestamp of %d ns at byte %d", ns, d.off-4)
	}
	return timestamp{s, ns}, nil
}

// next decodes the next record into rec; io.EOF at the stream's end.
func (d *decoder) next(rec *record) error {
	rec.offset = d.off
	id, err := d.u16()
	if err != nil {
		return err
	}
	if id == idEnd {
		return io.EOF
	}
	fn := (*[numIDs]*function)(nil)
	if id < numIDs {
		fn = functions()
	}
	rec.id = id
	if fn == nil || fn[id] == nil {
		return fmt.Errorf("unknown function id %d at byte %d", id, rec.offset)
	}
	f := fn[id]
	if rec.mask, err = d.u8(); err != nil {
		return err
	}
	if rec.mask&0x30 != 0 {
		return fmt.Errorf("%s at byte %d: mask %#x has unused bits set", f.name, rec.offset, rec.mask)
	}
	if rec.mask&maskThread != 0 {
		if _, err := d.u16(); err != nil {
			return err
		}
	}
	rec.cpuOK, rec.wallOK = rec.mask&maskCPU != 0, rec.mask&maskWall != 0
	var cs, ce timestamp
	if rec.cpuOK {
		if cs, err = d.time(); err != nil {
			return err
		}
		if ce, err = d.time(); err != nil {
			return err
		}
	}
	if rec.wallOK {
		if rec.start, err = d.time(); err != nil {
			return err
		}
		if rec.stop, err = d.time(); err != nil {
			return err
		}
	} else {
		rec.start, rec.stop = cs, ce
	}
	if rec.mask&maskPerf != 0 {
		n, err := d.u8()
		if err != nil {
			return err
		}
		if err := d.skip(16 * int(n)); err != nil {
			return err
		}
	}
	if len(f.fields) > len(rec.val) {
		return fmt.Errorf("%s: %d fields", f.name, len(f.fields))
	}
	rec.stat, rec.statOK = rec.stat[:0], false
	for i, fd := range f.fields {
		rec.val[i], rec.arr[i] = 0, rec.arr[i][:0]
		if fd.root && (f.rank < 0 || f.root < 0 || rec.val[f.rank] != rec.val[f.root]) {
			continue
		}
		if err := d.field(rec, i, fd.kind); err != nil {
			return fmt.Errorf("%s field %s: %w", f.name, fd.name, err)
		}
	}
	return nil
}

// field decodes field i of kind k into rec.
func (d *decoder) field(rec *record, i int, k kind) error {
	var err error
	var v int32
	switch k {
	case kI32:
		v, err = d.i32()
		rec.val[i] = int64(v)
	case kI64:
		rec.val[i], err = d.i64()
	case kU16:
		var u uint16
		u, err = d.u16()
		rec.val[i] = int64(u)
	case kU8:
		var u uint8
		u, err = d.u8()
		rec.val[i] = int64(u)
	case kA32, kA16, kA8:
		size := 4
		if k == kA16 {
			size = 2
		} else if k == kA8 {
			size = 1
		}
		n, err := d.count(int64(size))
		if err != nil {
			return err
		}
		rec.val[i] = int64(n)
		for range n {
			var x int64
			switch size {
			case 4:
				var y int32
				y, err = d.i32()
				x = int64(y)
			case 2:
				var y uint16
				y, err = d.u16()
				x = int64(y)
			default:
				var y uint8
				y, err = d.u8()
				x = int64(y)
			}
			if err != nil {
				return err
			}
			rec.arr[i] = append(rec.arr[i], x)
		}
	case kS:
		var n int
		if n, err = d.count(1); err == nil {
			rec.val[i] = int64(n)
			err = d.skip(n)
		}
	case kSA, kA2:
		var n int
		if n, err = d.count(4); err == nil {
			rec.val[i] = int64(n)
			for range n {
				var m int
				elem := int64(1)
				if k == kA2 {
					elem = 4
				}
				if m, err = d.count(elem); err != nil {
					return err
				}
				if k == kA2 {
					m *= 4
				}
				if err = d.skip(m); err != nil {
					return err
				}
			}
		}
	case kSAA:
		var n int
		if n, err = d.count(4); err == nil {
			for range n {
				var m int
				if m, err = d.count(4); err != nil {
					return err
				}
				for range m {
					var l int
					if l, err = d.count(1); err != nil {
						return err
					}
					if err = d.skip(l); err != nil {
						return err
					}
				}
			}
		}
	case kST:
		if rec.mask&maskStatus == 0 {
			return nil
		}
		var n int
		if n, err = d.count(14); err != nil {
			return err
		}
		rec.statOK = true
		for range n {
			var s status
			if s.bytes, err = d.i32(); err != nil {
				return err
			}
			if s.source, err = d.i32(); err != nil {
				return err
			}
			var c uint8
			if c, err = d.u8(); err != nil {
				return err
			}
			s.cancelled = c != 0
			if _, err = d.u8(); err != nil {
				return err
			}
			if s.tag, err = d.i32(); err != nil {
				return err
			}
			rec.stat = append(rec.stat, s)
		}
	}
	return err
}
