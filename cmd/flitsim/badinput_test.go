package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/configs"
	"flitsim/fabric"
	"flitsim/fabric/param"
)

// A bad input and where its error must point: the command exits 2, and
// its message names the file and line (when one is given) and the key or
// flag.
type badCase struct {
	name string
	args []string
	file string // file the message must name, with line
	line int
	key  string // key or flag the message must name
}

// campaignText is a valid campaign as tables of lines; extra lines go at
// the end of a table. text returns the file and the line of the marked
// extra line (1-based).
type campaignText struct {
	tables []struct {
		header string
		lines  []string
	}
}

func baseCampaign() *campaignText {
	c := &campaignText{}
	add := func(h string, lines ...string) {
		c.tables = append(c.tables, struct {
			header string
			lines  []string
		}{h, lines})
	}
	add("", `name = "bad"`, `fault_seeds = [1]`)
	add("[[topology]]", `spec = "kary-ntree:k=2,n=2"`)
	add("[faults]", `kind = "links"`, `percent = [0]`)
	add("[[routing]]", `engine = "minhop"`)
	add("[[traffic]]", `kind = "uniform"`, `max_time = "20us"`)
	add("[hardware]")
	add("[sim]")
	return c
}

// with sets key = value in the table with header h (replacing the key if
// present; a table not in the campaign is added at its end) and returns
// the text and the line of that key.
func (c *campaignText) with(h, key, value string) (string, int) {
	var b strings.Builder
	line, at := 0, 0
	found := false
	for _, t := range c.tables {
		found = found || t.header == h
	}
	if !found {
		c.tables = append(c.tables, struct {
			header string
			lines  []string
		}{h, nil})
	}
	for _, t := range c.tables {
		if t.header != "" {
			line++
			b.WriteString(t.header + "\n")
		}
		done := false
		for _, l := range t.lines {
			k, _, _ := strings.Cut(l, " =")
			line++
			if t.header == h && k == key {
				l, at, done = key+" = "+value, line, true
			}
			b.WriteString(l + "\n")
		}
		if t.header == h && !done && key != "" {
			line++
			at = line
			b.WriteString(key + " = " + value + "\n")
		}
	}
	return b.String(), at
}

// knobBadValues are values of a knob its declaration rules out: the wrong
// TOML types, NaN and infinities, values beyond its declared range, and
// values that overflow.
func knobBadValues(k param.Decl) []string {
	var v []string
	switch k.Kind {
	case param.Bool:
		return []string{`1`, `"yes"`, `0.5`, `[true]`}
	case param.Duration:
		v = []string{`"soon"`, `"-1s"`, `"3000h"`, `5`, `0.5`, `true`, `[1]`, `"1"`}
		if k.Max < 3.6e15 {
			v = append(v, fmt.Sprintf("%q", param.Decl{Kind: param.Duration}.Format(k.Max*2)))
		}
		if k.MinOpen {
			v = append(v, `"0s"`)
		}
		return v
	case param.Int:
		v = []string{`"x"`, `true`, `1.5`, `[1]`, `9223372036854775807`, fmt.Sprint(int64(k.Max) + 1), fmt.Sprint(int64(k.Min) - 1)}
		return v
	}
	v = []string{`"x"`, `true`, `[1]`, `nan`, `inf`, `-inf`, `1e300`, fmt.Sprint(k.Max * 2), fmt.Sprint(k.Min - 1)}
	if k.MinOpen {
		v = append(v, fmt.Sprint(k.Min))
	}
	return v
}

// knobBadFlagValues are the values of a knob ruled out as flag text.
func knobBadFlagValues(k param.Decl) []string {
	switch k.Kind {
	case param.Bool:
		return []string{"yes", "2", "x", ""}
	case param.Duration:
		v := []string{"soon", "-1s", "3000h", "5", "", "1m1"}
		if k.Max < 3.6e15 {
			v = append(v, param.Decl{Kind: param.Duration}.Format(k.Max*2))
		}
		return v
	case param.Int:
		return []string{"x", "1.5", "", "9223372036854775807", fmt.Sprint(int64(k.Max) + 1), fmt.Sprint(int64(k.Min) - 1)}
	}
	v := []string{"x", "", "nan", "inf", "-inf", "1e300", fmt.Sprint(k.Max * 2), fmt.Sprint(k.Min - 1)}
	if k.MinOpen {
		v = append(v, fmt.Sprint(k.Min))
	}
	return v
}

func campaignCases(t *testing.T, dir string) []badCase {
	var cases []badCase
	n := 0
	add := func(name, h, key, value, wantKey string) {
		text, line := baseCampaign().with(h, key, value)
		n++
		path := filepath.Join(dir, fmt.Sprintf("c%04d.toml", n))
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		cases = append(cases, badCase{name: name, args: []string{"check", path}, file: path, line: line, key: wantKey})
	}
	for _, tb := range configs.Tables() {
		for _, k := range tb.Decls {
			bad := knobBadValues(k)
			for _, v := range bad {
				if tb.Name == "faults.timed" && strings.HasPrefix(v, "[") {
					// A list sweeps its values: bad when empty or one of them is.
					add(tb.Name+"."+k.Key+"=[]", "["+tb.Name+"]", k.Key, "[]", tb.Name+"."+k.Key)
					v = "[" + bad[0] + "]"
				}
				add(tb.Name+"."+k.Key+"="+v, "["+tb.Name+"]", k.Key, v, tb.Name+"."+k.Key)
			}
		}
	}
	// Combinations only the validation of the whole hardware rules out.
	for _, kv := range [][2]string{{"input_buffer_flits", "32"}, {"hca_buffer_flits", "20"}, {"output_buffer_flits", "32"},
		{"crossbar_gbps", "16"}, {"hiccup", `"100ns"`}, {"hiccup", `"200ns"`}, {"cable_m", "0.00001"}, {"link_gbps", "99999"},
		{"rank3_gbps", "300"}, {"link_gbps", "0.0001"}, {"pcie_gbps", "0.0001"}, {"rank1_gbps", "0.0001"}} {
		add("hardware combination "+kv[0], "[hardware]", kv[0], kv[1], "hardware."+kv[0])
	}
	add("hardware unknown key", "[hardware]", "link_speed", "32", "hardware.link_speed")
	add("sim unknown key", "[sim]", "warm_up", `"1us"`, "sim.warm_up")
	// [[traffic]]
	traffic := map[string][]string{
		"kind":         {`"random"`, `5`, `""`},
		"msg_bytes":    {`0`, `-1`, `9223372036854775807`, `"x"`, `"9999999999999999MTU"`, `1.5`, `true`, `"0MTU"`, `2147483648`, `"-5KiB"`},
		"load":         {`0`, `-0.1`, `1.5`, `nan`, `inf`, `"x"`, `true`, `0.0`},
		"max_time":     {`"-1s"`, `"3000h"`, `"x"`, `5`, `true`, `""`, `"1001s"`},
		"seeds":        {`[]`, `[-1]`, `["x"]`, `1.5`, `[1.5]`, `5`},
		"distance":     {`2`},   // not shift traffic
		"hot_fraction": {`0.5`}, // not hotspot traffic
		"order":        {`"sideways"`, `3`, `"Random"`},
		// a job's traffic keys, which a [[traffic]] pattern takes too
		"iterations": {`0`, `-1`, `1.5`, `"x"`},
		"start":      {`"-1us"`, `5`, `"2000s"`},
		"burst_on":   {`"1us"`},  // not noise traffic
		"grid":       {`[4, 4]`}, // not halo traffic
	}
	for key, vals := range traffic {
		for _, v := range vals {
			add("traffic."+key+"="+v, "[[traffic]]", key, v, "traffic."+key)
		}
	}
	shift := baseCampaign()
	shift.tables[4].lines[0] = `kind = "shift"`
	hot := baseCampaign()
	hot.tables[4].lines[0] = `kind = "hotspot"`
	for _, c := range []struct {
		base     *campaignText
		key, val string
	}{{shift, "distance", "0"}, {shift, "distance", `"x"`}, {shift, "distance", "1.5"}, {shift, "distance", "4"},
		{hot, "hot_fraction", "0"}, {hot, "hot_fraction", "2"}, {hot, "hot_fraction", "nan"}, {hot, "hot_fraction", `"x"`}} {
		text, line := c.base.with("[[traffic]]", c.key, c.val)
		n++
		path := filepath.Join(dir, fmt.Sprintf("c%04d.toml", n))
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		cases = append(cases, badCase{name: "traffic." + c.key + "=" + c.val, args: []string{"check", path}, file: path, line: line, key: "traffic." + c.key})
	}
	// [[routing]]
	routingBad := map[string][]string{
		"engine": {`"nosuch"`, `5`, `""`, `"file"`},
		"vls":    {`0`, `-1`, `99`, `"x"`, `1.5`, `9`},
		"roots":  {`[]`, `[""]`, `["nosuch"]`, `"l1-0"`, `[5]`},
		"file":   {`"x.dump"`, `5`},
		"label":  {`5`},
	}
	for key, vals := range routingBad {
		for _, v := range vals {
			add("routing."+key+"="+v, "[[routing]]", key, v, "routing."+key)
		}
	}
	// [faults]
	faultsBad := map[string][]string{
		"kind":      {`"cables"`, `5`},
		"percent":   {`[]`, `[-1]`, `[100]`, `[nan]`, `["x"]`, `[150]`, `5`, `[inf]`, `[99.99]`},
		"ratio":     {`"1:2"`},
		"take_hcas": {`true`, `"yes"`},
		"fixed":     {`"missing.txt"`, `5`},
		"label":     {`5`},
	}
	for key, vals := range faultsBad {
		for _, v := range vals {
			add("faults."+key+"="+v, "[faults]", key, v, "faults."+key)
		}
	}
	mixed := baseCampaign()
	mixed.tables[2].lines[0] = `kind = "mixed"`
	for _, v := range []string{`"1"`, `"a:b"`, `"0:0"`, `"-1:2"`, `5`} {
		text, line := mixed.with("[faults]", "ratio", v)
		n++
		path := filepath.Join(dir, fmt.Sprintf("c%04d.toml", n))
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		cases = append(cases, badCase{name: "faults.ratio=" + v, args: []string{"check", path}, file: path, line: line, key: "faults.ratio"})
	}
	// [[topology]]: every generator's parameters with bad values, and
	// specs that are not specs.
	zeroOK := map[string]bool{"deimos.packed": true} // a 0/1 switch
	for _, g := range fabric.Generators() {
		for _, p := range g.Params {
			for _, v := range []string{"0", "-1", "x", "99999999", ""} {
				if v == "0" && zeroOK[g.Kind+"."+p.Name] {
					v = "2"
				}
				if p.Type == fabric.ListParam {
					v = strings.Replace(v, "99999999", "99999x99999", 1)
				}
				add(g.Kind+"."+p.Name+"="+v, "[[topology]]", "spec", fmt.Sprintf("%q", g.Kind+":"+p.Name+"="+v), "topology.spec")
			}
		}
	}
	for _, spec := range []string{"torus:", "mesh:dims=x", "tsubame2:rail=3", "kary-ntree:k=0,n=2", "nosuch:k=1", "torus:dims=3,bogus=1",
		"file:missing.net", "kary-ntree:k=2", "torus:dims=3x", "xgft:m=2", "dragonfly:a=4,p=1,h=1,g=9", ":", "torus:dims=1,hcas=1", "kautz:d=0,k=2"} {
		add("spec "+spec, "[[topology]]", "spec", fmt.Sprintf("%q", spec), "topology.spec")
	}
	// [[job]] tables in a campaign, run by a [[traffic]] entry of kind "jobs".
	jobs := func() *campaignText {
		c := baseCampaign()
		c.tables[4].lines = []string{`kind = "jobs"`, `max_time = "20us"`}
		c.tables = append(c.tables[:5], append([]struct {
			header string
			lines  []string
		}{{"[[job]]", []string{`id = "a"`, `size = 2`, `iterations = 1`}}, {"[fragmentation]", []string{`utilization = 0.5`}}}, c.tables[5:]...)...)
		return c
	}
	for _, c := range []struct{ h, key, val, want string }{
		{"[[job]]", "size", "0", "job.size"}, {"[[job]]", "distance", "2", "job.distance"}, {"[[job]]", "size", "999", "job.size"}, {"[[job]]", "size", `"x"`, "job.size"},
		{"[[job]]", "placement", `"sideways"`, "job.placement"}, {"[[job]]", "pattern", `"gossip"`, "job.pattern"},
		{"[[job]]", "msg_bytes", "0", "job.msg_bytes"}, {"[[job]]", "msg_bytes", `"x"`, "job.msg_bytes"}, {"[[job]]", "load", "2", "job.load"},
		{"[[job]]", "iterations", "-1", "job.iterations"}, {"[[job]]", "start", `"x"`, "job.start"}, {"[[job]]", "grid", "[3, 3]", "job.grid"},
		{"[[job]]", "colour", `"red"`, "job.colour"}, {"[[job]]", "id", `"mix1"`, "job.id"},
		{"[[job]]", "id", `"a b"`, "job.id"}, {"[fragmentation]", "utilization", "2", "fragmentation.utilization"},
		{"[fragmentation]", "bogus", "1", "fragmentation.bogus"}, {"[fragmentation]", "pattern", `"gossip"`, "fragmentation.pattern"},
		{"[[traffic]]", "msg_bytes", `"2MTU"`, "traffic.msg_bytes"}, {"[[traffic]]", "load", "0.5", "traffic.load"},
		{"[[traffic]]", "order", `"random"`, "traffic.order"}, {"[[traffic]]", "slowdowns", `"yes"`, "traffic.slowdowns"},
		{"", "jobs_seed", "-1", "jobs_seed"}, {"", "jobs_seed", `"x"`, "jobs_seed"}, {"", "seed", "1", "seed"},
		{"", "jobs_file", `"running.toml"`, "jobs_file"}, {"", "jobs_file", `5`, "jobs_file"},
		{"[faults]", "take_hcas", "true", "faults.take_hcas"},
		{"[[job]]", "routing", `"ugal-medium"`, "job.routing"}, {"[[job]]", "routing", `"ugal-high"`, "job.routing"}, // minhop is not adaptive
	} {
		text, line := jobs().with(c.h, c.key, c.val)
		n++
		path := filepath.Join(dir, fmt.Sprintf("c%04d.toml", n))
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		cases = append(cases, badCase{name: "jobs campaign " + c.key + "=" + c.val, args: []string{"check", path}, file: path, line: line, key: c.want})
	}
	noRun := jobs()
	noRun.tables[4].lines = []string{`kind = "uniform"`}
	uniform := baseCampaign()
	nodes := jobs()
	nodes.tables[5].lines = []string{`id = "a"`}
	for _, c := range []struct {
		base        *campaignText
		h, key, val string
		want        string
		line        int
	}{{noRun, "", "", "", "job", 12}, {nodes, "[[job]]", "nodes", `["nosuch"]`, "job.nodes", 0}, {uniform, "[[traffic]]", "slowdowns", "false", "traffic.slowdowns", 0},
		{uniform, "[[traffic]]", "kind", `"jobs"`, "traffic.kind", 0}, {uniform, "", "jobs_seed", "3", "jobs_seed", 0},
		{uniform, "", "jobs_file", `"/no/such/running.toml"`, "jobs_file", 0}} {
		text, line := c.base.with(c.h, c.key, c.val)
		if c.line > 0 {
			line = c.line
		}
		n++
		path := filepath.Join(dir, fmt.Sprintf("c%04d.toml", n))
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		cases = append(cases, badCase{name: "jobs campaign " + c.want, args: []string{"check", path}, file: path, line: line, key: c.want})
	}
	// The top level.
	for _, c := range []struct{ key, val string }{{"name", `""`}, {"name", `"../../escaped"`}, {"name", `"a b"`}, {"name", `5`},
		{"name", `".hidden"`}, {"seeds", `[]`}, {"seeds", `[-1]`}, {"seeds", `["x"]`}, {"bogus", `1`}, {"description", `5`}} {
		add("top "+c.key+"="+c.val, "", c.key, c.val, c.key)
	}
	return cases
}

// flagCases are bad flags of every command that takes one, and every
// [hardware] knob through sim --hw.
func flagCases() []badCase {
	var cases []badCase
	add := func(key string, args ...string) {
		cases = append(cases, badCase{name: strings.Join(args, " "), args: args, key: key})
	}
	for _, k := range fabric.HardwareParams() {
		for _, v := range knobBadFlagValues(k) {
			add(k.Key, "sim", "kary-ntree:k=2,n=2", "--hw", k.Key+"="+v)
		}
	}
	net := "torus:dims=4x4"
	for _, c := range []struct {
		key  string
		args []string
	}{
		{"--links", []string{"route", net, "--links", "-5"}}, {"--links", []string{"route", net, "--links", "nan"}},
		{"--links", []string{"route", net, "--links", "100"}}, {"--switches", []string{"route", net, "--switches", "-1"}},
		{"--mixed", []string{"route", net, "--mixed", "inf"}}, {"--ratio", []string{"route", net, "--mixed", "5", "--ratio", "x"}},
		{"--ebb", []string{"route", net, "--ebb", "-1"}}, {"--vls", []string{"route", net, "--vls", "0"}},
		{"--vls", []string{"route", net, "--vls", "99"}}, {"--roots", []string{"route", net, "--routing", "updn", "--roots", "nosuch"}},
		{"--path-vls", []string{"route", net, "--routing", "dfsssp", "--path-vls"}},
		{"--mixes", []string{"route", net, "--mixes", "5"}}, {"--mix-seed", []string{"route", net, "--mix-seed", "3"}},
		{"--jobs", []string{"route", net, "--jobs", "/no/such/jobs.toml"}},
		{"--jobs", []string{"sim", net, "--jobs", "/no/such/jobs.toml"}}, {"--jobs-seed", []string{"sim", net, "--jobs-seed", "3"}},
		{"--no-slowdown", []string{"sim", net, "--no-slowdown"}},
		{"--set", []string{"jobs", "sweep", net, "--jobs", "docs/jobs/noise.toml", "--set", "noise.load=2"}},
		{"--set", []string{"jobs", "sweep", net, "--jobs", "docs/jobs/noise.toml", "--set", "noise"}},
		{"--squeue", []string{"jobs", "from-slurm", "--squeue", "/no/such/squeue.txt"}},
		{"--map", []string{"jobs", "from-slurm", "--map", "/no/such/hosts.map"}},
		{"--partition", []string{"jobs", "from-slurm", "--partition", "a;b"}}, {"--traffic", []string{"sim", net, "--jobs", "docs/jobs/fig5-2.toml", "--traffic", "uniform"}},
		{"--take-hcas", []string{"sim", net, "--jobs", "docs/jobs/fig5-2.toml", "--switches", "5", "--take-hcas"}},
		{"--lfts", []string{"route", net, "--lfts", "x.dump"}}, {"--lfts", []string{"route", net, "--routing", "file"}},
		{"--dump-lfts", []string{"route", net, "--dump-lfts", "/no/such/dir/x.dump"}}, {"routing", []string{"route", net, "--routing", "nosuch"}},
		{"--lfts", []string{"sim", net, "--routing", "file"}}, {"--distance", []string{"sim", net, "--traffic", "shift", "--distance", "0"}},
		{"--distance", []string{"sim", net, "--distance", "3"}}, {"--load", []string{"sim", net, "--load", "0"}},
		{"--load", []string{"sim", net, "--load", "nan"}}, {"--load", []string{"sim", net, "--load", "1.5"}},
		{"--order", []string{"sim", net, "--order", "sideways"}},
		{"--compute", []string{"sim", net, "--traffic", "uniform", "--compute", "1us"}}, {"--grid", []string{"sim", net, "--traffic", "exchange", "--grid", "4,4"}},
		{"--grid", []string{"sim", net, "--traffic", "sweep3d", "--grid", "2,2,2"}}, {"--iterations", []string{"sim", net, "--iterations", "0"}},
		{"--burst-on", []string{"sim", net, "--traffic", "exchange", "--burst-on", "1us"}},
		{"--msg-bytes", []string{"sim", net, "--msg-bytes", "9999999999999999MTU"}}, {"--msg-bytes", []string{"sim", net, "--msg-bytes", "0"}},
		{"--max-time", []string{"sim", net, "--max-time", "-1s"}}, {"--vls", []string{"sim", net, "--vls", "9"}},
		{"traffic", []string{"sim", net, "--traffic", "nosuch"}}, {"--hw", []string{"sim", net, "--hw", "nosuch=1"}},
		{"--hw", []string{"sim", net, "--hw", "mtu"}}, {"--hw", []string{"sim", net, "--hw", "mtu=1,mtu=2"}},
		{"--traffic-seed", []string{"sim", net, "--traffic-seed", "-1"}}, {"--fault-seed", []string{"route", net, "--fault-seed", "x"}}, {"-o", []string{"topo", "gen", net, "-o", "/no/such/dir/x.net"}},
		{"-o", []string{"topo", "faults", net, "--links", "5", "-o", "/no/such/dir/x.net"}},
		{"--partition", []string{"slurm", "quickstart", "--tasks", "2", "--partition", "batch\necho injected"}},
		{"--account", []string{"slurm", "quickstart", "--tasks", "2", "--account", "a;b"}},
		{"--time", []string{"slurm", "quickstart", "--tasks", "2", "--time", "1:00; rm -rf /"}},
		{"--tasks", []string{"slurm", "quickstart", "--tasks", "0"}}, {"-j", []string{"run", "quickstart", "-j", "0"}},
		{"--shard", []string{"run", "quickstart", "--shard", "3/2"}}, {"--format", []string{"table", ".", "--format", "xml"}},
	} {
		add(c.key, c.args...)
	}
	return cases
}

// fileCases mutate a valid netlist, failure list and LFT dump line by
// line in ways that are always wrong, and expect the error at that line.
func fileCases(t *testing.T, dir string) []badCase {
	var cases []badCase
	n := 0
	write := func(ext string, lines []string) string {
		n++
		path := filepath.Join(dir, fmt.Sprintf("f%04d.%s", n, ext))
		require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
		return path
	}
	spec := "torus:dims=3x2,hcas=6"
	netPath := filepath.Join(dir, "good.net")
	code, _, errs := run("topo", "gen", spec, "-o", netPath)
	require.Equal(t, 0, code, errs)
	data, err := os.ReadFile(netPath)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	for i, l := range lines {
		var muts []string
		switch {
		case strings.HasPrefix(l, "["): // a port line: [p] "peer"[pp]
			close := strings.Index(l, "]")
			muts = append(muts, "[0"+l[close:], "[99"+l[close:], "[x"+l[close:])
			if q := strings.Index(l, `"`); q >= 0 {
				r := strings.Index(l[q+1:], `"`)
				peer := l[q+1 : q+1+r]
				muts = append(muts, strings.Replace(l, `"`+peer+`"`, `"nosuch"`, 1))
				rest := l[q+1+r+1:]
				if strings.HasPrefix(rest, "[") {
					pp := rest[1:strings.Index(rest, "]")]
					muts = append(muts, strings.Replace(l, `"`+peer+`"[`+pp+`]`, `"`+peer+`"[0]`, 1),
						strings.Replace(l, `"`+peer+`"[`+pp+`]`, `"`+peer+`"[999]`, 1))
				}
			}
			if c := strings.Index(l, "#"); c > 0 {
				muts = append(muts, l[:c]+" garbage "+l[c:])
			}
		case strings.HasPrefix(l, "Switch"), strings.HasPrefix(l, "Ca"):
			f := strings.Fields(l)
			muts = append(muts, strings.Replace(l, f[0]+"\t"+f[1], f[0]+"\t0", 1), strings.Replace(l, f[0]+"\t"+f[1], f[0]+"\t300", 1),
				strings.Replace(l, f[0]+"\t"+f[1], f[0]+"\tx", 1), "Rt\t"+strings.Join(f[1:], " "))
		}
		for _, m := range muts {
			mutated := append(append(append([]string{}, lines[:i]...), m), lines[i+1:]...)
			if m == l {
				continue
			}
			path := write("net", mutated)
			cases = append(cases, badCase{name: "netlist line " + fmt.Sprint(i+1) + ": " + m, args: []string{"topo", "info", path}, file: path, line: i + 1})
		}
	}
	// Failure lists against the same network.
	for _, l := range []string{"switch nosuch", "link s-0-0 99", "link s-0-0 nosuch", "bogus line", "link", "switch", "link s-0-0", "switch s-0-0 extra words here",
		"link s-0-0 0", "link s-0-0 -1", "link s-0-0 s-0-0"} {
		for _, before := range []int{0, 2} {
			body := make([]string, before)
			for j := range body {
				body[j] = "# comment"
			}
			path := write("txt", append(body, l))
			cases = append(cases, badCase{name: "fixed: " + l, args: []string{"topo", "faults", spec, "--fixed", path}, file: path, line: before + 1})
		}
	}
	// LFT dumps of MinHop's tables on the network.
	dump := filepath.Join(dir, "good.dump")
	code, _, errs = run("route", spec, "--routing", "minhop", "--dump-lfts", dump)
	require.Equal(t, 0, code, errs)
	data, err = os.ReadFile(dump)
	require.NoError(t, err)
	lines = strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	for i, l := range lines {
		var muts []string
		switch {
		case strings.HasPrefix(l, "0x"):
			f := strings.Fields(l)
			muts = append(muts, strings.Replace(l, " "+f[1], " 099", 1), strings.Replace(l, f[0], "0x0000", 1),
				strings.Replace(l, f[0], "0xbfff", 1), strings.Replace(l, f[0], "0xzz", 1), "garbage "+l)
		case strings.HasPrefix(l, "Unicast lids"):
			muts = append(muts, strings.Replace(l, "guid 0x", "guid 0xdead", 1), "Unicast lids [garbage]")
		}
		for _, m := range muts {
			mutated := append(append(append([]string{}, lines[:i]...), m), lines[i+1:]...)
			path := write("dump", mutated)
			cases = append(cases, badCase{name: "dump line " + fmt.Sprint(i+1) + ": " + m, args: []string{"route", spec, "--routing", "file", "--lfts", path}, file: path, line: i + 1})
		}
		if strings.HasPrefix(l, "0x") { // the same LID twice
			mutated := append(append(append([]string{}, lines[:i+1]...), l), lines[i+1:]...)
			path := write("dump", mutated)
			cases = append(cases, badCase{name: "dump line " + fmt.Sprint(i+2) + ": twice", args: []string{"route", spec, "--routing", "file", "--lfts", path}, file: path, line: i + 2})
		}
	}
	return cases
}

// TestBadInputBattery: more than a thousand bad inputs generated from the
// parameter declarations and from valid files, through every command that
// reads them. Each exits 2 (never 0 or 1, never a panic), and its message
// names the file and line, and the key or flag.
func TestBadInputBattery(t *testing.T) {
	dir := t.TempDir()
	cases := campaignCases(t, dir)
	nCampaign := len(cases)
	cases = append(cases, flagCases()...)
	nFlags := len(cases) - nCampaign
	cases = append(cases, fileCases(t, dir)...)
	nFiles := len(cases) - nCampaign - nFlags
	failed := 0
	for _, c := range cases {
		code, _, errs := run(c.args...)
		ok := code == 2
		if c.file != "" && c.line > 0 {
			ok = ok && strings.Contains(errs, fmt.Sprintf("%s:%d:", c.file, c.line))
		}
		if c.key != "" {
			ok = ok && strings.Contains(errs, c.key)
		}
		if !ok {
			failed++
			if failed <= 40 {
				t.Errorf("%s: exit %d, want 2 naming %s:%d and %q:\n  %s", c.name, code, filepath.Base(c.file), c.line, c.key, strings.TrimSpace(errs))
			}
		}
	}
	t.Logf("%d bad inputs (%d campaign keys, %d flags, %d file lines): %d failed", len(cases), nCampaign, nFlags, nFiles, failed)
	require.GreaterOrEqual(t, len(cases), 1000)
	require.Zero(t, failed)
	_ = math.Inf
}

// A flag or --sim key with a fixed set of values names the value it
// refuses once, whichever way it came.
func TestStringValueNamedOnce(t *testing.T) {
	code, _, errs := run("sim", "torus:dims=3x3", "--routing", "updn", "--order", "sideways")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, `--order "sideways": want one of hca, random, round-robin`)
	code, _, errs = run("sim", "torus:dims=3x3", "--routing", "updn", "--sim", "steady_rule=fast")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, `steady_rule: "fast": want one of sinks, network`)
	assert.NotContains(t, errs, `"fast": "fast"`)
}
