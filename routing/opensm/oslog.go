package opensm

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"
)

// logTail follows a growing log file and reports whether a marker has
// appeared, reading each byte once (a debug log runs to hundreds of MB).
type logTail struct {
	path   string
	off    int64
	carry  []byte // the last len(marker)-1 bytes, for matches across reads
	marker []byte
	found  bool
}

func (lt *logTail) poll() bool {
	if lt.found {
		return true
	}
	f, err := os.Open(lt.path)
	if err != nil {
		return false
	}
	defer f.Close()
	if _, err := f.Seek(lt.off, io.SeekStart); err != nil {
		return false
	}
	buf := make([]byte, 1<<20)
	for {
		n, err := f.Read(buf)
		if n > 0 {
			lt.off += int64(n)
			chunk := append(lt.carry, buf[:n]...)
			if bytes.Contains(chunk, lt.marker) {
				lt.found = true
				return true
			}
			keep := min(len(chunk), len(lt.marker)-1)
			lt.carry = append([]byte(nil), chunk[len(chunk)-keep:]...)
		}
		if err != nil {
			return false
		}
	}
}

// parsedLog is what flitsim takes from OpenSM's log.
type parsedLog struct {
	// text is the log without debug-level (0x08) lines.
	text string
	// pathVLs maps (source LID, destination LID) to the VL DFSSSP chose
	// ("route from src_lid=… to dest_lid=… on vl=…", debug level).
	pathVLs map[[2]uint16]uint8
	// destVLs maps a destination LID to the VL Nue routed it on
	// ("destination lids (base lid) for vl N:" and the lines under it).
	destVLs map[uint16]uint8
	// engineMS is the routing engine's own time in the last sweep that
	// finished it: from "building routing with …" to "… tables configured
	// on all switches" (the LFTs computed and handed to the switches'
	// update), by the log's timestamps; -1 when the log has no such pair.
	engineMS float64
}

// parseLog reads an OpenSM log. A later sweep's VL lines replace an
// earlier one's.
func parseLog(r io.Reader) (parsedLog, error) {
	p := parsedLog{engineMS: -1}
	var text strings.Builder
	start := int64(-1)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	nueVL := -1
	for sc.Scan() {
		line := sc.Text()
		fn, msg, level := splitLogLine(line)
		switch {
		case fn == "ucast_mgr_route" && strings.HasPrefix(msg, "building routing with"):
			start = logMicros(line)
		case fn == "osm_ucast_mgr_process" && strings.HasSuffix(msg, "tables configured on all switches") && start >= 0:
			if end := logMicros(line); end >= 0 {
				if end < start {
					end += 24 * 3600 * 1_000_000 // past midnight
				}
				p.engineMS = float64(end-start) / 1000
			}
			start = -1
		}
		switch fn {
		case "vltable_print":
			if s, d, vl, ok := parseRouteVL(msg); ok {
				if p.pathVLs == nil {
					p.pathVLs = map[[2]uint16]uint8{}
				}
				p.pathVLs[[2]uint16{s, d}] = vl
			}
		case "print_destination_distribution":
			if rest, ok := strings.CutPrefix(msg, "destination lids (base lid) for vl "); ok {
				v, err := strconv.Atoi(strings.TrimSuffix(rest, ":"))
				if err == nil && v >= 0 && v < 256 {
					if v == 0 || p.destVLs == nil { // a new sweep's distribution
						p.destVLs = map[uint16]uint8{}
					}
					nueVL = v
				}
			} else if f := strings.Fields(msg); len(f) > 0 && nueVL >= 0 {
				if lid, err := strconv.ParseUint(f[0], 10, 16); err == nil {
					p.destVLs[uint16(lid)] = uint8(nueVL)
				}
			}
		}
		if level != "0x08" {
			text.WriteString(line)
			text.WriteByte('\n')
		}
	}
	p.text = text.String()
	return p, sc.Err()
}

// logMicros returns the time of day of a log line "Nov 21 23:25:43 702619
// …" in µs, or -1.
func logMicros(line string) int64 {
	f := strings.Fields(line)
	if len(f) < 4 {
		return -1
	}
	hms := strings.Split(f[2], ":")
	us, err := strconv.ParseInt(f[3], 10, 64)
	if len(hms) != 3 || err != nil {
		return -1
	}
	var t int64
	for _, x := range hms {
		v, err := strconv.ParseInt(x, 10, 64)
		if err != nil {
			return -1
		}
		t = 60*t + v
	}
	return t*1_000_000 + us
}

// splitLogLine splits "Nov 21 23:25:43 702619 [C336E6C0] 0x08 -> fn: msg"
// into the function, the message and the level.
func splitLogLine(line string) (fn, msg, level string) {
	i := strings.Index(line, " -> ")
	if i < 0 {
		return "", "", ""
	}
	if j := strings.LastIndexByte(line[:i], ' '); j >= 0 {
		level = line[j+1 : i]
	}
	rest := line[i+4:]
	k := strings.Index(rest, ": ")
	if k < 0 {
		return "", rest, level
	}
	return rest[:k], strings.TrimSpace(rest[k+2:]), level
}

// parseRouteVL parses "route from src_lid=1 to dest_lid=2 on vl=0".
func parseRouteVL(msg string) (src, dst uint16, vl uint8, ok bool) {
	f := strings.Fields(msg)
	if len(f) != 7 || f[0] != "route" || f[1] != "from" || f[3] != "to" || f[5] != "on" {
		return 0, 0, 0, false
	}
	num := func(s, key string, bits int) (uint64, bool) {
		v, found := strings.CutPrefix(s, key)
		if !found {
			return 0, false
		}
		n, err := strconv.ParseUint(v, 10, bits)
		return n, err == nil
	}
	s, ok1 := num(f[2], "src_lid=", 16)
	d, ok2 := num(f[4], "dest_lid=", 16)
	v, ok3 := num(f[6], "vl=", 8)
	return uint16(s), uint16(d), uint8(v), ok1 && ok2 && ok3
}
