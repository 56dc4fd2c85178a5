package configs

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"flitsim/fabric"
)

// HistoryJob is one batch job of a job history: when it ran and on which
// hosts.
type HistoryJob struct {
	ID         string
	Start, End time.Time // End is zero while it runs (sacct's "Unknown")
	Hosts      []string
	Line       int // its line in the history file
}

// HistoryFormat is the sacct call whose output ParseHistory reads.
const HistoryFormat = "sacct -a -X -P -n -s CD,F,TO,CA,NF,R,OOM --format=JobID,Start,End,NodeList -S START -E END"

// ParseHistory reads a job history as Slurm's accounting prints it
// (HistoryFormat): lines JOBID|START|END|NODELIST, times in ISO 8601
// without a zone (sacct's), NODELIST a Slurm host list ("n[01-04,07],m3").
// A header line (JobID|Start|End|NodeList) and blank or # lines are
// skipped, and so are jobs that never started or hold no nodes (Start
// "Unknown" or "None", NodeList "None assigned") and job steps (an id with
// a dot). file names the source in errors, which give its line.
func ParseHistory(data []byte, file string) ([]HistoryJob, error) {
	var jobs []HistoryJob
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "|")
		if len(f) < 4 {
			return nil, fmt.Errorf("%s:%d: %q: want JOBID|START|END|NODELIST (%s)", file, n, line, HistoryFormat)
		}
		id, start, end, nodes := strings.TrimSpace(f[0]), strings.TrimSpace(f[1]), strings.TrimSpace(f[2]), strings.TrimSpace(f[3])
		if strings.EqualFold(id, "JobID") {
			continue // the header
		}
		if strings.Contains(id, ".") || unknownTime(start) || nodes == "" || strings.HasPrefix(nodes, "None") {
			continue
		}
		if !PlainWord(id) {
			return nil, fmt.Errorf("%s:%d: job id %q is not a plain word", file, n, id)
		}
		j := HistoryJob{ID: id, Line: n}
		var err error
		if j.Start, err = parseSacctTime(start); err != nil {
			return nil, fmt.Errorf("%s:%d: job %s: start: %v", file, n, id, err)
		}
		if !unknownTime(end) {
			if j.End, err = parseSacctTime(end); err != nil {
				return nil, fmt.Errorf("%s:%d: job %s: end: %v", file, n, id, err)
			}
			if j.End.Before(j.Start) {
				return nil, fmt.Errorf("%s:%d: job %s ends (%s) before it starts (%s)", file, n, id, end, start)
			}
		}
		if j.Hosts, err = ExpandHostlist(nodes); err != nil {
			return nil, fmt.Errorf("%s:%d: job %s: node list: %v", file, n, id, err)
		}
		jobs = append(jobs, j)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return jobs, nil
}

func unknownTime(s string) bool {
	return s == "" || strings.EqualFold(s, "Unknown") || strings.EqualFold(s, "None")
}

// parseSacctTime reads sacct's times: 2006-01-02T15:04:05, taken as UTC
// (a history's times are compared with each other only).
func parseSacctTime(s string) (time.Time, error) {
	t, err := time.Parse("2006-01-02T15:04:05", s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not a time as sacct prints one (2006-01-02T15:04:05)", s)
	}
	return t, nil
}

// maxHostlist bounds the hosts one host list may name.
const maxHostlist = 1 << 20

// ExpandHostlist expands a Slurm host list: names separated by commas,
// each with at most one bracket of ranges and numbers whose width (leading
// zeros) the expansion keeps, e.g. "r1n[01-03,07],login" is r1n01, r1n02,
// r1n03, r1n07 and login. Names stay in the order given.
func ExpandHostlist(s string) ([]string, error) {
	var out []string
	for len(s) > 0 {
		// The next name ends at a comma outside brackets.
		depth, end := 0, len(s)
		for i, c := range s {
			switch c {
			case '[':
				depth++
			case ']':
				depth--
			case ',':
				if depth == 0 {
					end = i
				}
			}
			if end != len(s) {
				break
			}
		}
		name := strings.TrimSpace(s[:end])
		if end < len(s) {
			s = s[end+1:]
		} else {
			s = ""
		}
		if name == "" {
			return nil, fmt.Errorf("an empty host name")
		}
		open := strings.IndexByte(name, '[')
		if open < 0 {
			if strings.ContainsAny(name, "] \t") {
				return nil, fmt.Errorf("host %q", name)
			}
			out = append(out, name)
			continue
		}
		close := strings.IndexByte(name, ']')
		if close < open || strings.IndexByte(name[close+1:], '[') >= 0 || strings.IndexByte(name[open+1:close], '[') >= 0 {
			return nil, fmt.Errorf("host range %q: want one bracket, as prefix[1-4,7]suffix", name)
		}
		prefix, suffix := name[:open], name[close+1:]
		for _, r := range strings.Split(name[open+1:close], ",") {
			lo, hi, isRange := strings.Cut(r, "-")
			a, err := strconv.Atoi(lo)
			if err != nil || a < 0 {
				return nil, fmt.Errorf("host range %q: %q is not a number", name, lo)
			}
			b := a
			if isRange {
				if b, err = strconv.Atoi(hi); err != nil || b < a {
					return nil, fmt.Errorf("host range %q: %q is not a range", name, r)
				}
			}
			if len(out)+b-a+1 > maxHostlist {
				return nil, fmt.Errorf("host list names more than %d hosts", maxHostlist)
			}
			for k := a; k <= b; k++ {
				out = append(out, fmt.Sprintf("%s%0*d%s", prefix, len(lo), k, suffix))
			}
		}
	}
	return out, nil
}

// HistorySynth describes a synthetic job history: a month of a batch
// system in miniature. Jobs arrive as a Poisson process, ask for a
// log-uniform number of nodes in [MinNodes, MaxNodes] and run a
// log-uniform time in [MinRun, MaxRun]; the scheduler starts them first
// come, first served, each on the first free hosts in the order given
// (first fit), a job waiting while too few are free.
type HistorySynth struct {
	Jobs               int
	MeanArrival        time.Duration
	MinNodes, MaxNodes int
	MinRun, MaxRun     time.Duration
	Start              time.Time
}

// Synthesize draws a history on hosts from rng's seed.
func (h HistorySynth) Synthesize(hosts []string, seed uint64) ([]HistoryJob, error) {
	switch {
	case h.Jobs < 1 || h.MeanArrival <= 0 || h.MinRun <= 0 || h.MaxRun < h.MinRun:
		return nil, fmt.Errorf("a synthetic history needs jobs, an arrival interval and a run time range")
	case h.MinNodes < 1 || h.MaxNodes < h.MinNodes || h.MaxNodes > len(hosts):
		return nil, fmt.Errorf("job sizes %d..%d do not fit %d hosts", h.MinNodes, h.MaxNodes, len(hosts))
	}
	rng := fabric.Stream(seed, "history")
	logUniform := func(lo, hi float64) float64 { return lo * math.Exp(rng.Float64()*math.Log(hi/lo)) }
	free := make([]bool, len(hosts))
	for i := range free {
		free[i] = true
	}
	type ending struct {
		at    time.Duration
		hosts []int
	}
	var running []ending // by end
	var out []HistoryJob
	now, arrive := time.Duration(0), time.Duration(0)
	nFree := len(hosts)
	for n := range h.Jobs {
		arrive += time.Duration(rng.ExpFloat64() * float64(h.MeanArrival))
		size := int(math.Round(logUniform(float64(h.MinNodes), float64(h.MaxNodes))))
		run := time.Duration(logUniform(float64(h.MinRun), float64(h.MaxRun))).Round(time.Second)
		now = max(now, arrive) // first come, first served
		for {
			for len(running) > 0 && running[0].at <= now {
				for _, k := range running[0].hosts {
					free[k] = true
				}
				nFree += len(running[0].hosts)
				running = running[1:]
			}
			if nFree >= size {
				break
			}
			now = running[0].at // wait for the next end
		}
		j := HistoryJob{ID: strconv.Itoa(n + 1), Start: h.Start.Add(now.Round(time.Second)), Line: n + 1}
		j.End = j.Start.Add(run)
		var took []int
		for k := 0; len(took) < size; k++ {
			if free[k] {
				free[k] = false
				took = append(took, k)
				j.Hosts = append(j.Hosts, hosts[k])
			}
		}
		nFree -= size
		e := ending{at: j.End.Sub(h.Start), hosts: took}
		i, _ := slices.BinarySearchFunc(running, e.at, func(x ending, t time.Duration) int { return cmp.Compare(x.at, t+1) })
		running = slices.Insert(running, i, e)
		out = append(out, j)
	}
	return out, nil
}

// FormatHistory writes jobs as HistoryFormat's output (with its header),
// which ParseHistory reads back.
func FormatHistory(jobs []HistoryJob) string {
	var b strings.Builder
	b.WriteString("JobID|Start|End|NodeList\n")
	const layout = "2006-01-02T15:04:05"
	for _, j := range jobs {
		end := "Unknown"
		if !j.End.IsZero() {
			end = j.End.Format(layout)
		}
		fmt.Fprintf(&b, "%s|%s|%s|%s\n", j.ID, j.Start.Format(layout), end, strings.Join(j.Hosts, ","))
	}
	return b.String()
}
