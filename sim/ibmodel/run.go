package ibmodel

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Model is a built IB model: its binary, its NED sources and OMNeT++'s
// libraries, under one home folder laid out as docs/ibmodel.md builds it
// (HOME/omnetpp-4.6.1, HOME/ib_flit_sim).
type Model struct {
	Home string
	Bin  string // the ib_flit_sim executable
	NED  string // the model's src folder (package ib_model)
	Lib  string // OMNeT++'s lib folder
	// Patched says the model has docs/ibmodel.md's addition (read from
	// the marker file the build leaves, HOME/ib_flit_sim/.flitsim-patch).
	Patched bool
	// Ends says the build has the addition's part (c): its sinks end the
	// run once they have consumed a given number of flits
	// (endAfterFlits), so a finite traffic stops the model when it is done.
	Ends bool
}

// Find locates the model under home, or says what is missing.
func Find(home string) (*Model, error) {
	if home == "" {
		return nil, errors.New("ibmodel: no model home (set IBMODEL_HOME or --home to the folder docs/ibmodel.md builds)")
	}
	m := &Model{Home: home,
		Bin: filepath.Join(home, "ib_flit_sim", "out", "gcc-release", "src", "ib_flit_sim"),
		NED: filepath.Join(home, "ib_flit_sim", "src"),
	}
	libs, _ := filepath.Glob(filepath.Join(home, "omnetpp-*", "lib"))
	if len(libs) == 0 {
		return nil, fmt.Errorf("ibmodel: no OMNeT++ under %s (omnetpp-*/lib)", home)
	}
	sort.Strings(libs)
	m.Lib = libs[len(libs)-1]
	for _, f := range []string{m.Bin, filepath.Join(m.NED, "ib.msg")} {
		if _, err := os.Stat(f); err != nil {
			return nil, fmt.Errorf("ibmodel: %w (build the model as docs/ibmodel.md says)", err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(home, "ib_flit_sim", ".flitsim-patch")); err == nil {
		m.Patched = true
		m.Ends = strings.Contains(string(b), "endAfterFlits")
	}
	return m, nil
}

// Result is what one run of the model reports.
type Result struct {
	// SinkMBps is each sink's Sink-BW-MBps (bytes received from
	// startStatCol on, headers included, per µs), in HCA order.
	SinkMBps []float64
	// LastConsumedPs is the latest "Time last packet consumed" of any sink.
	LastConsumedPs int64
	// Flits are the flits the sinks consumed, over all VLs.
	Flits int64
	// MsgLatency summarises Msg-Network-Latency over every sink (first
	// flit injected to last flit received), in ns.
	MsgLatency Summary
	// Events and SimEndPs are the model's event count and final time;
	// Wall the run's wall-clock time.
	Events   int64
	SimEndPs int64
	Wall     time.Duration
}

// Summary is a count with its mean, minimum and maximum.
type Summary struct {
	Count          int64
	Mean, Min, Max float64
}

// Run runs the model on the inputs Write laid out and reads its results.
// The model's output goes to dir/model.log.
func (m *Model) Run(ctx context.Context, lay *Layout) (*Result, error) {
	res := filepath.Join(lay.Dir, "results")
	if err := os.RemoveAll(res); err != nil {
		return nil, err
	}
	logPath := filepath.Join(lay.Dir, "model.log")
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd := exec.CommandContext(ctx, m.Bin, "-u", "Cmdenv", "-n", m.NED+":"+lay.Dir, "-f", lay.INI, "-c", "General", "-r", "0",
		"--result-dir="+res)
	cmd.Dir = lay.Dir
	cmd.Env = append(os.Environ(), "LD_LIBRARY_PATH="+m.Lib+":"+os.Getenv("LD_LIBRARY_PATH"))
	cmd.Stdout, cmd.Stderr = logf, logf
	start := time.Now()
	runErr := cmd.Run()
	r := &Result{Wall: time.Since(start)}
	logf.Close()
	if err := readLog(logPath, r); err != nil {
		return nil, err
	}
	if runErr != nil {
		return r, fmt.Errorf("ibmodel: %v; the end of %s:\n%s", runErr, logPath, tail(logPath, 20))
	}
	scas, _ := filepath.Glob(filepath.Join(res, "*.sca"))
	if len(scas) != 1 {
		return r, fmt.Errorf("ibmodel: want one .sca file in %s, found %d", res, len(scas))
	}
	f, err := os.Open(scas[0])
	if err != nil {
		return r, err
	}
	defer f.Close()
	sc, err := ReadScalars(f)
	if err != nil {
		return r, fmt.Errorf("%s: %w", scas[0], err)
	}
	return r, sc.fill(r, lay.HCAs)
}

var reEvent = regexp.MustCompile(`Event #(\d+)\s+T=([0-9.eE+-]+)`)

// readLog takes the last event count and simulated time the model printed.
func readLog(path string, r *Result) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		if m := reEvent.FindStringSubmatch(sc.Text()); m != nil {
			r.Events, _ = strconv.ParseInt(m[1], 10, 64)
			t, _ := strconv.ParseFloat(m[2], 64)
			r.SimEndPs = int64(t*1e12 + 0.5)
		}
	}
	return sc.Err()
}

// tail returns the last n lines of a file.
func tail(path string, n int) string {
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// Scalars are the scalars and statistics of an OMNeT++ .sca file, by
// module and name.
type Scalars struct {
	Scalar map[[2]string]float64
	Stat   map[[2]string]map[string]float64
}

// ReadScalars reads an OMNeT++ 4 .sca file: "scalar MODULE NAME VALUE"
// lines and "statistic MODULE NAME" blocks of "field KEY VALUE" lines
// (names may be quoted).
func ReadScalars(r io.Reader) (*Scalars, error) {
	s := &Scalars{Scalar: map[[2]string]float64{}, Stat: map[[2]string]map[string]float64{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	var cur map[string]float64
	ln := 0
	for sc.Scan() {
		ln++
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "scalar "):
			mod, name, rest, err := splitNamed(line[len("scalar "):])
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", ln, err)
			}
			v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: scalar %s %s: %q is no number", ln, mod, name, rest)
			}
			s.Scalar[[2]string{mod, name}] = v
			cur = nil
		case strings.HasPrefix(line, "statistic "):
			mod, name, _, err := splitNamed(line[len("statistic "):])
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", ln, err)
			}
			cur = map[string]float64{}
			s.Stat[[2]string{mod, name}] = cur
		case strings.HasPrefix(line, "field ") && cur != nil:
			f := strings.Fields(line)
			if len(f) != 3 {
				return nil, fmt.Errorf("line %d: want field KEY VALUE", ln)
			}
			v, err := strconv.ParseFloat(f[2], 64)
			if err != nil {
				continue // nan or inf of an empty statistic
			}
			cur[f[1]] = v
		case strings.HasPrefix(line, "attr "), strings.HasPrefix(line, "bin "):
		default:
			cur = nil
		}
	}
	return s, sc.Err()
}

// splitNamed splits `MODULE NAME REST`, where MODULE and NAME may be
// double-quoted.
func splitNamed(s string) (mod, name, rest string, err error) {
	word := func(s string) (string, string, error) {
		s = strings.TrimLeft(s, " \t")
		if strings.HasPrefix(s, `"`) {
			end := strings.Index(s[1:], `"`)
			if end < 0 {
				return "", "", fmt.Errorf("unterminated quote in %q", s)
			}
			return s[1 : end+1], s[end+2:], nil
		}
		w, r, _ := strings.Cut(s, " ")
		return w, r, nil
	}
	if mod, s, err = word(s); err != nil {
		return
	}
	name, rest, err = word(s)
	return
}

var reHCAModule = regexp.MustCompile(`\.H_(\d+)\.`)

// fill takes a run's results from its scalars.
func (s *Scalars) fill(r *Result, hcas int) error {
	r.SinkMBps = make([]float64, hcas)
	found := 0
	var latSum float64
	for key, v := range s.Scalar {
		m := reHCAModule.FindStringSubmatch(key[0] + ".")
		if m == nil {
			continue
		}
		h, _ := strconv.Atoi(m[1])
		if h >= hcas {
			return fmt.Errorf("ibmodel: results name H_%d of %d HCAs", h, hcas)
		}
		switch {
		case key[1] == "Sink-BW-MBps":
			r.SinkMBps[h] = v
			found++
		case strings.HasPrefix(key[1], "Time last packet consumed"):
			r.LastConsumedPs = max(r.LastConsumedPs, int64(v*1e12+0.5))
		case strings.HasPrefix(key[1], "VL-") && strings.HasSuffix(key[1], "-total-flits"):
			r.Flits += int64(v)
		}
	}
	if found != hcas {
		return fmt.Errorf("ibmodel: %d of %d sinks reported Sink-BW-MBps", found, hcas)
	}
	for key, f := range s.Stat {
		if key[1] != "Msg-Network-Latency" || f["count"] == 0 {
			continue
		}
		c := int64(f["count"])
		if r.MsgLatency.Count == 0 || f["min"]*1e9 < r.MsgLatency.Min {
			r.MsgLatency.Min = f["min"] * 1e9
		}
		r.MsgLatency.Max = max(r.MsgLatency.Max, f["max"]*1e9)
		r.MsgLatency.Count += c
		latSum += f["mean"] * 1e9 * float64(c)
	}
	if r.MsgLatency.Count > 0 {
		r.MsgLatency.Mean = latSum / float64(r.MsgLatency.Count)
	}
	return nil
}

// ThroughputGBs is the sum of the sinks' rates in GB/s.
func (r *Result) ThroughputGBs() float64 {
	var s float64
	for _, v := range r.SinkMBps {
		s += v
	}
	return s / 1000
}
