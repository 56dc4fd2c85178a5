package chakra

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// The protobuf wire format, as far as et_def.proto's Node needs it:
// varints, fixed 32 and 64 bits, length-delimited fields; unknown fields
// are skipped by their wire type.

const (
	wireVarint = 0
	wire64     = 1
	wireBytes  = 2
	wire32     = 5
)

var errShort = errors.New("the message ends inside a field")

// readVarint reads a varint from r; io.EOF only before its first byte.
func readVarint(r io.ByteReader) (uint64, error) {
	var x uint64
	for s := 0; s < 64; s += 7 {
		b, err := r.ReadByte()
		if err != nil {
			if s > 0 && errors.Is(err, io.EOF) {
				return 0, io.ErrUnexpectedEOF
			}
			return 0, err
		}
		x |= uint64(b&0x7f) << s
		if b < 0x80 {
			return x, nil
		}
	}
	return 0, errors.New("a varint longer than 10 bytes")
}

// buf reads fields from one message.
type buf struct {
	b []byte
	i int
}

func (p *buf) varint() (uint64, error) {
	x, n := binary.Uvarint(p.b[p.i:])
	if n <= 0 {
		return 0, errShort
	}
	p.i += n
	return x, nil
}

// key reads a field's number and wire type.
func (p *buf) key() (int, int, error) {
	k, err := p.varint()
	if err != nil {
		return 0, 0, err
	}
	if k>>3 == 0 || k>>3 > math.MaxInt32 {
		return 0, 0, fmt.Errorf("field number %d", k>>3)
	}
	return int(k >> 3), int(k & 7), nil
}

// bytes reads a length-delimited field's contents.
func (p *buf) bytes() ([]byte, error) {
	n, err := p.varint()
	if err != nil {
		return nil, err
	}
	if n > uint64(len(p.b)-p.i) {
		return nil, errShort
	}
	b := p.b[p.i : p.i+int(n)]
	p.i += int(n)
	return b, nil
}

// skip passes over a field of wire type wt.
func (p *buf) skip(wt int) error {
	switch wt {
	case wireVarint:
		_, err := p.varint()
		return err
	case wire64, wire32:
		n := 8
		if wt == wire32 {
			n = 4
		}
		if len(p.b)-p.i < n {
			return errShort
		}
		p.i += n
		return nil
	case wireBytes:
		_, err := p.bytes()
		return err
	}
	return fmt.Errorf("wire type %d", wt)
}

// skipMessage checks that b is a well-formed message.
func skipMessage(b []byte) error {
	p := &buf{b: b}
	for p.i < len(p.b) {
		_, wt, err := p.key()
		if err != nil {
			return err
		}
		if err := p.skip(wt); err != nil {
			return err
		}
	}
	return nil
}

// uints reads a repeated uint64 field's value: packed (wire type 2) or
// one element.
func (p *buf) uints(wt int, out []uint64) ([]uint64, error) {
	if wt == wireVarint {
		x, err := p.varint()
		return append(out, x), err
	}
	if wt != wireBytes {
		return out, fmt.Errorf("a list of wire type %d", wt)
	}
	b, err := p.bytes()
	if err != nil {
		return out, err
	}
	q := &buf{b: b}
	for q.i < len(q.b) {
		x, err := q.varint()
		if err != nil {
			return out, err
		}
		out = append(out, x)
	}
	return out, nil
}

// decodeNode reads a Node message: id 1, name 2, type 3, ctrl_deps 4,
// data_deps 5, start_time_micros 6, duration_micros 7, attr 10.
func decodeNode(b []byte) (node, error) {
	var nd node
	p := &buf{b: b}
	for p.i < len(p.b) {
		f, wt, err := p.key()
		if err != nil {
			return nd, err
		}
		switch {
		case (f == 1 || f == 3 || f == 6 || f == 7) && wt == wireVarint:
			x, err := p.varint()
			if err != nil {
				return nd, err
			}
			switch f {
			case 1:
				nd.id = x
			case 3:
				nd.typ = x
			case 6:
				nd.start = x
			case 7:
				nd.dur = x
			}
		case f == 2 && wt == wireBytes:
			s, err := p.bytes()
			if err != nil {
				return nd, err
			}
			nd.name = string(s)
		case f == 4 || f == 5:
			if nd.deps, err = p.uints(wt, nd.deps); err != nil {
				return nd, fmt.Errorf("dependencies: %w", err)
			}
		case f == 10 && wt == wireBytes:
			a, err := p.bytes()
			if err != nil {
				return nd, err
			}
			if err := nd.attr(a); err != nil {
				return nd, fmt.Errorf("node %d attribute: %w", nd.id, err)
			}
		default:
			if err := p.skip(wt); err != nil {
				return nd, err
			}
		}
	}
	return nd, nil
}

// attr reads an AttributeProto (name 1; the integer values int32_val 7,
// int64_val 9, uint32_val 11, uint64_val 13, sint32_val 15, sint64_val
// 17; string_val 29) into the node's fields it names.
func (nd *node) attr(b []byte) error {
	p := &buf{b: b}
	var name, str string
	var v int64
	has := false
	for p.i < len(p.b) {
		f, wt, err := p.key()
		if err != nil {
			return err
		}
		switch {
		case f == 1 && wt == wireBytes:
			s, err := p.bytes()
			if err != nil {
				return err
			}
			name = string(s)
		case f == 29 && wt == wireBytes:
			s, err := p.bytes()
			if err != nil {
				return err
			}
			str = string(s)
		case (f == 7 || f == 9 || f == 11 || f == 13 || f == 15 || f == 17) && wt == wireVarint:
			x, err := p.varint()
			if err != nil {
				return err
			}
			switch f {
			case 7:
				v = int64(int32(x))
			case 15, 17:
				v = int64(x>>1) ^ -int64(x&1) // zigzag
			default:
				v = int64(x)
			}
			has = true
		default:
			if err := p.skip(wt); err != nil {
				return err
			}
		}
	}
	switch name {
	case "comm_type":
		nd.commType, nd.hasCommType = v, has
	case "comm_size":
		nd.commSize = v
	case "comm_src":
		nd.src = v
	case "comm_dst":
		nd.dst = v
	case "comm_tag":
		nd.tag = v
	case "pg_name":
		nd.pg = str
	}
	return nil
}
