// Package pprofstr reads and rewrites the string table of a pprof profile
// (profile.proto, gzip-compressed, as runtime/pprof and `go tool pprof
// -proto` write it). flitsim's profile for profile-guided optimisation
// (cmd/flitsim/default.pgo) needs no more of the format: its strings name
// the functions the profile saw, and the files mapped into the profiled
// process by their absolute paths on the machine that recorded it, which
// the repository must not carry.
//
// A profile is a sequence of top-level fields; the string table is field
// 6, each entry a length-delimited string of its own, so an entry can be
// replaced without touching any other field.
package pprofstr

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// stringTable is the field number of profile.proto's string_table.
const stringTable = 6

// Strings returns the profile's string table, in order.
func Strings(profile []byte) ([]string, error) {
	var out []string
	_, err := walk(profile, func(s string) string {
		out = append(out, s)
		return s
	})
	return out, err
}

// Map returns the profile with every string s of its table replaced by
// f(s), gzip-compressed. The other fields are copied as they are.
func Map(profile []byte, f func(string) string) ([]byte, error) {
	raw, err := walk(profile, f)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(raw); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// walk decompresses the profile (if it is compressed), calls f on each
// string of the table, and returns the uncompressed profile with each
// string replaced by what f returned.
func walk(profile []byte, f func(string) string) ([]byte, error) {
	data := profile
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		r, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("pprof profile: %w", err)
		}
		if data, err = io.ReadAll(r); err != nil {
			return nil, fmt.Errorf("pprof profile: %w", err)
		}
	}
	out := make([]byte, 0, len(data))
	for pos := 0; pos < len(data); {
		start := pos
		tag, n := binary.Uvarint(data[pos:])
		if n <= 0 {
			return nil, fmt.Errorf("pprof profile: bad field tag at byte %d", pos)
		}
		pos += n
		switch wire := tag & 7; wire {
		case 0: // varint
			_, n := binary.Uvarint(data[pos:])
			if n <= 0 {
				return nil, fmt.Errorf("pprof profile: bad varint at byte %d", pos)
			}
			pos += n
		case 1: // 64-bit
			pos += 8
		case 5: // 32-bit
			pos += 4
		case 2: // length-delimited
			l, n := binary.Uvarint(data[pos:])
			if n <= 0 || l > uint64(len(data)-pos-n) {
				return nil, fmt.Errorf("pprof profile: bad length at byte %d", pos)
			}
			pos += n
			if tag>>3 == stringTable {
				s := f(string(data[pos : pos+int(l)]))
				out = binary.AppendUvarint(out, tag)
				out = binary.AppendUvarint(out, uint64(len(s)))
				out = append(out, s...)
				pos += int(l)
				continue
			}
			pos += int(l)
		default:
			return nil, fmt.Errorf("pprof profile: wire type %d at byte %d", wire, start)
		}
		if pos > len(data) {
			return nil, errors.New("pprof profile: truncated")
		}
		out = append(out, data[start:pos]...)
	}
	return out, nil
}
