package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/fabric"
)

// A campaign around one table of lines, for the regressions below.
const regressionBase = `name = "bad"
[[topology]]
spec = "kary-ntree:k=2,n=2"
[[routing]]
engine = "minhop"
[[traffic]]
kind = "uniform"
max_time = "20us"
`

// Inputs that a battery of malformed files once let through (issue 47):
// each is refused with exit status 2, naming the file, line and key or
// the flag, and nothing runs.
func TestBadInputRegressions(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	net, err := fabric.Build("kary-ntree:k=2,n=2")
	require.NoError(t, err)
	hcaGUID := fmt.Sprintf("0x%016x", net.Nodes[net.NumSwitches].GUID)

	// A fabric file with a LID given twice.
	good := filepath.Join(dir, "good.net")
	code, _, errs := run("topo", "gen", "kary-ntree:k=2,n=2", "-o", good)
	require.Equal(t, 0, code, errs)
	data, err := os.ReadFile(good)
	require.NoError(t, err)
	lines := strings.Split(string(data), "\n")
	second := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "Switch") && strings.Contains(l, "lid 2 ") {
			lines[i], second = strings.Replace(l, "lid 2 ", "lid 1 ", 1), i+1
		}
	}
	require.Positive(t, second)
	dupLID := write("duplid.net", strings.Join(lines, "\n"))

	for _, c := range []struct {
		name string
		args []string
		file string
		line int
		want []string // each in the message
	}{
		{"[[hardware]] for [hardware]", []string{"check", write("hw-array.toml", regressionBase+"[[hardware]]\nvls = 2\n")},
			"hw-array.toml", 9, []string{"hardware: want a [hardware] table, not [[hardware]] tables"}},
		{"top-level sim = 3", []string{"check", write("sim-int.toml", strings.Replace(regressionBase, "name = \"bad\"\n", "name = \"bad\"\nsim = 3\n", 1))},
			"sim-int.toml", 2, []string{"sim: want a [sim] table"}},
		{"[[sim]] for [sim]", []string{"check", write("sim-array.toml", regressionBase+"[[sim]]\nmax_time = \"1us\"\n")},
			"sim-array.toml", 9, []string{"sim: want a [sim] table"}},
		{"[job] for [[job]] in a jobs file", []string{"sim", "kary-ntree:k=2,n=2", "--jobs", write("job-table.toml", "[job]\nid = \"a\"\nsize = 2\n")},
			"job-table.toml", 1, []string{"job: want [[job]] tables"}},
		{"--ratio without --mixed", []string{"sim", "kary-ntree:k=2,n=2", "--ratio", "x"}, "", 0, []string{"--ratio"}},
		{"--ratio without --mixed (route)", []string{"route", "kary-ntree:k=2,n=2", "--ratio", "1:2"}, "", 0, []string{"--ratio"}},
		{"--fault-seed without failures", []string{"route", "kary-ntree:k=2,n=2", "--fault-seed", "3"}, "", 0, []string{"--fault-seed"}},
		{"--max-time beyond Go's durations", []string{"sim", "kary-ntree:k=2,n=2", "--max-time", "9999999h"}, "", 0,
			[]string{`--max-time "9999999h": want a duration in [0s, 16m40s]`}},
		{"--max-time at Go's limit", []string{"sim", "kary-ntree:k=2,n=2", "--max-time", "2562047h47m16.854775807s"}, "", 0, []string{"--max-time", "want a duration"}},
		{"--max-time of jobs sweep", []string{"jobs", "sweep", "kary-ntree:k=2,n=2", "--max-time", "9999999h"}, "", 0, []string{"--max-time"}},
		{"[sim] max_time at Go's limit", []string{"check", write("maxtime.toml", regressionBase+"[sim]\nmax_time = \"2562047h47m16.854775807s\"\n")},
			"maxtime.toml", 10, []string{"sim.max_time: 2.56205e+06h: want"}},
		{"a LID twice in a fabric file", []string{"topo", "info", dupLID}, "duplid.net", second, []string{"lid: ", "has LID 1"}},
		{"an HCA as a root of OpenSM's Up*/Down*", []string{"check", write("hca-root.toml", strings.Replace(regressionBase, `engine = "minhop"`,
			`engine = "opensm:updn"`+"\nroots = [\""+hcaGUID+"\"]", 1))}, "hca-root.toml", 6, []string{"routing.roots", "is an HCA", "not a switch"}},
		{"rank1_gbps without link classes", []string{"check", write("rank1.toml", regressionBase+"[hardware]\nrank1_gbps = 10\n")},
			"rank1.toml", 3, []string{"topology.spec", "rank1_gbps", "no groups"}},
		{"--hw rank1_gbps without link classes", []string{"sim", "kary-ntree:k=2,n=2", "--hw", "rank1_gbps=10"}, "", 0, []string{"--hw", "rank1_gbps", "no groups"}},
	} {
		code, stdout, errs := run(c.args...)
		assert.Equal(t, 2, code, "%s: exit status; stderr: %s", c.name, errs)
		assert.Empty(t, stdout, "%s: nothing runs", c.name)
		assert.NotContains(t, errs, "Usage:", "%s: one line, not the whole usage", c.name)
		assert.NotContains(t, errs, "parse error", c.name)
		if c.file != "" {
			assert.Contains(t, errs, fmt.Sprintf("%s:%d: ", c.file, c.line), c.name)
		}
		for _, w := range c.want {
			assert.Contains(t, errs, w, c.name)
		}
	}
}

// A GUID root of OpenSM's Up*/Down* that names a switch passes check, as
// it routes (TestOpenSMRootsByAnyReference); routing.seed is a campaign
// key; `flitsim params` lists no [[routing]] key a campaign refuses.
func TestCampaignKeysAccepted(t *testing.T) {
	dir := t.TempDir()
	net, err := fabric.Build("kary-ntree:k=2,n=2")
	require.NoError(t, err)
	sw := fmt.Sprintf("0x%016x", net.Nodes[0].GUID)
	for name, text := range map[string]string{
		"guid-root.toml": strings.Replace(regressionBase, `engine = "minhop"`, `engine = "opensm:updn"`+"\nroots = [\""+sw+"\", \"lid:2\"]", 1),
		"seed.toml":      strings.Replace(strings.Replace(regressionBase, `engine = "minhop"`, "engine = \"angara-genetic\"\nseed = 7", 1), "kary-ntree:k=2,n=2", "torus:dims=2x2x2x2", 1),
		"spread.toml":    strings.Replace(strings.Replace(regressionBase, `engine = "minhop"`, "engine = \"ugal\"\nspread = true", 1), "kary-ntree:k=2,n=2", "dragonfly:a=4,p=2,h=2,g=9", 1),
		"storage.toml":   strings.Replace(regressionBase, `engine = "minhop"`, "engine = \"sar\"\nstorage = [\""+net.Nodes[net.NumSwitches].Name+"\"]", 1),
		"symmetric.toml": strings.Replace(regressionBase, `engine = "minhop"`, "engine = \"lash\"\nsymmetric = false", 1),
		"min_gain.toml":  strings.Replace(strings.Replace(regressionBase, `engine = "minhop"`, "engine = \"angara-genetic\"\nmin_gain = 0.05", 1), "kary-ntree:k=2,n=2", "torus:dims=2x2x2x2", 1),
	} {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		code, _, errs := run("check", p)
		assert.Equal(t, 0, code, "%s: %s", name, errs)
	}
	p := filepath.Join(dir, "unknown.toml")
	require.NoError(t, os.WriteFile(p, []byte(strings.Replace(regressionBase, `engine = "minhop"`, "engine = \"minhop\"\nsead = 1", 1)), 0o644))
	_, _, errs := run("check", p)
	assert.Contains(t, errs, "seed", "the suggestion lists routing.seed")

	code, out, errs := run("params")
	require.Equal(t, 0, code, errs)
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) > 1 && f[0] == "[[routing]]" {
			assert.Contains(t, []string{"engine", "vls", "roots", "file", "path_vls", "relieve", "seed", "spread", "storage", "break", "symmetric", "min_gain", "label"}, f[1], "params lists [[routing]] %s", f[1])
		}
	}
}

// check finds the same first error every time, whatever the order of
// Go's maps: here bit reversal on every HCA count the failure draws leave.
func TestCheckDeterministic(t *testing.T) {
	dir := t.TempDir()
	text := `name = "det"
fault_seeds = [1, 2, 3, 4, 5, 6]
[[topology]]
spec = "torus:dims=4x4,hcas=32"
[faults]
kind = "switches"
percent = [6, 13, 19]
take_hcas = true
[[routing]]
engine = "minhop"
[[traffic]]
kind = "bitrev"
`
	p := filepath.Join(dir, "det.toml")
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	var first string
	for i := 0; i < 20; i++ {
		code, _, errs := run("check", p)
		require.Equal(t, 2, code, errs)
		if i == 0 {
			first = errs
			continue
		}
		require.Equal(t, first, errs, "check run %d", i+1)
	}
}

// `flitsim params --json` lists every key a campaign accepts, and only
// those: each listed key, given a value no key takes (an inline table) in
// its table, is refused as a bad value of that key, never as unknown;
// a key it does not list is refused as unknown in every table.
func TestParamsListsEveryKey(t *testing.T) {
	code, out, errs := run("params", "--json")
	require.Equal(t, 0, code, errs)
	var rows []struct{ Table, Key string }
	require.NoError(t, json.Unmarshal([]byte(out), &rows))
	require.Greater(t, len(rows), 60)
	base := strings.Replace(regressionBase, "name = \"bad\"\n", "name = \"bad\"\n@top\n", 1) + "[faults]\nkind = \"links\"\n@faults\n[faults.timed]\n@timed\n[hardware]\n@hardware\n[sim]\n@sim\n"
	jobs := "name = \"bad\"\n[[topology]]\nspec = \"kary-ntree:k=2,n=2\"\n[[routing]]\nengine = \"minhop\"\n[[job]]\nsize = 2\n@job\n[fragmentation]\nutilization = 0.5\n@fragmentation\n"
	place := map[string]string{"": "@top", "[faults]": "@faults", "[faults.timed]": "@timed", "[hardware]": "@hardware", "[sim]": "@sim", "[[job]]": "@job", "[fragmentation]": "@fragmentation"}
	dir := t.TempDir()
	tables := map[string]bool{}
	for i, r := range rows {
		tables[r.Table] = true
		text := base
		switch r.Table {
		case "[[topology]]":
			text = strings.Replace(text, "spec = ", r.Key+" = { x = 1 }\nspec = ", 1)
			if r.Key == "spec" {
				text = strings.Replace(text, "spec = { x = 1 }\nspec = \"kary-ntree:k=2,n=2\"", "spec = { x = 1 }", 1)
			}
		case "[[routing]]":
			text = strings.Replace(text, "engine = \"minhop\"", "engine = \"minhop\"\n"+r.Key+" = { x = 1 }", 1)
			if r.Key == "engine" {
				text = strings.Replace(text, "engine = \"minhop\"\nengine = { x = 1 }", "engine = { x = 1 }", 1)
			}
		case "[[traffic]]":
			text = strings.Replace(text, "kind = \"uniform\"", "kind = \"uniform\"\n"+r.Key+" = { x = 1 }", 1)
			if r.Key == "kind" {
				text = strings.Replace(text, "kind = \"uniform\"\nkind = { x = 1 }", "kind = { x = 1 }", 1)
			}
		case "[[job]]", "[fragmentation]":
			text = jobs
			fallthrough
		default:
			tag, ok := place[r.Table]
			require.True(t, ok, "a table the test does not know: %s", r.Table)
			text = strings.Replace(text, tag, r.Key+" = { x = 1 }", 1)
			if r.Key == "kind" && r.Table == "[faults]" {
				text = strings.Replace(text, "kind = \"links\"\nkind = { x = 1 }", "kind = { x = 1 }", 1)
			}
		}
		text = regexp.MustCompile(`(?m)^@\w+\n`).ReplaceAllString(text, "")
		p := filepath.Join(dir, fmt.Sprintf("k%03d.toml", i))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		code, _, errs := run("check", p)
		assert.Equal(t, 2, code, "%s %s: %s", r.Table, r.Key, errs)
		assert.Contains(t, errs, r.Key, "%s %s", r.Table, r.Key)
		assert.NotContains(t, errs, "unknown key", "%s %s is listed but refused as unknown:\n%s", r.Table, r.Key, text)
	}
	for table := range tables {
		text := base
		if table == "[[job]]" || table == "[fragmentation]" {
			text = jobs
		}
		switch table {
		case "[[topology]]", "[[routing]]", "[[traffic]]":
			text += table + "\nbogus_key = 1\n"
		default:
			text = strings.Replace(text, place[table], "bogus_key = 1", 1)
		}
		text = regexp.MustCompile(`(?m)^@\w+\n`).ReplaceAllString(text, "")
		p := filepath.Join(dir, "bogus.toml")
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		_, _, errs := run("check", p)
		assert.Contains(t, errs, "bogus_key", table)
		assert.Contains(t, errs, "unknown key", "table %q:\n%s", table, errs)
	}
}
