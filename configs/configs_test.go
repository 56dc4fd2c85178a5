package configs

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/fabric/param"
	"flitsim/sim"
	"flitsim/traffic"
)

const good = `
name = "t"
fault_seeds = [1, 2]

[[topology]]
spec = "kary-ntree:k=4,n=2"

[[topology]]
spec = "torus:dims=3x3"
label = "torus"

[faults]
kind = "links"
percent = [0, 5]

[[routing]]
engine = "dfsssp"

[[routing]]
engine = "updn"
roots = ["l1-0"]

[[traffic]]
kind = "exchange"
msg_bytes = "2MTU"

[[traffic]]
kind = "uniform"
fault_seeds = [7]
traffic_seeds = [3]
max_time = "100us"
`

func TestParseAndExpand(t *testing.T) {
	c, err := Parse([]byte(good), "good.toml", ".")
	require.NoError(t, err)
	pts, err := c.Points()
	require.NoError(t, err)
	// 2 topologies × (exchange: 2 levels × 2 seeds + uniform: 2 levels × 1 seed) × 2 routings
	assert.Len(t, pts, 2*(2*2+2*1)*2)
	for i, p := range pts {
		assert.Equal(t, i, p.Index)
	}
	assert.Equal(t, "kary-ntree:k=4,n=2|exchange#0|links=0%|fault_seed=1|traffic_seed=1|dfsssp", pts[0].Key)
	assert.Equal(t, 4096, pts[0].Params.Traffic.MessageBytes)
	assert.Equal(t, uint64(7), pts[8].FaultSeed, "uniform uses its own fault seeds")
	assert.Equal(t, uint64(7), pts[8].Faults.Seed)
	assert.Equal(t, uint64(3), pts[8].Params.Seed, "and its own traffic seeds")
	assert.Equal(t, uint64(1), pts[0].Params.Seed, "the default traffic seed")
	assert.Equal(t, int64(100_000_000), pts[8].Params.MaxTime)
	keys := map[string]bool{}
	for _, p := range pts {
		assert.False(t, keys[p.Key], "duplicate key %s", p.Key)
		keys[p.Key] = true
	}
	c2, _ := Parse([]byte(good), "good.toml", ".")
	assert.Equal(t, c.Hash(), c2.Hash())
	c3, _ := Parse([]byte(strings.Replace(good, "[0, 5]", "[0, 6]", 1)), "good.toml", ".")
	assert.NotEqual(t, c.Hash(), c3.Hash())
	// The same text under other defaults (a flitsim whose model changed)
	// is another campaign: its results are not resumed into these.
	c2.hw.ForwardAtStart = !c2.hw.ForwardAtStart
	assert.NotEqual(t, c.Hash(), c2.Hash())
	c2, _ = Parse([]byte(good), "good.toml", ".")
	c2.base.SampleWindow++
	assert.NotEqual(t, c.Hash(), c2.Hash())
	c2, _ = Parse([]byte(good), "good.toml", ".")
	c2.base.SteadyRule = sim.SteadyNetwork
	assert.NotEqual(t, c.Hash(), c2.Hash(), "a key that is not a number")
}

// Every bad campaign names file, line and key.
func TestStrictErrors(t *testing.T) {
	for _, tc := range []struct {
		name, edit, with string
		line             int
		key, want        string
	}{
		{"unknown key", `kind = "links"`, "kind = \"links\"\ncolour = 3", 14, "faults.colour", "unknown key"},
		{"unknown top key", `fault_seeds = [1, 2]`, "fault_seeds = [1, 2]\nworkerz = 2", 4, "workerz", "unknown key"},
		{"wrong type", `percent = [0, 5]`, `percent = "five"`, 14, "faults.percent", "incompatible types"},
		{"unknown engine", `engine = "updn"`, `engine = "spf"`, 20, "routing.engine", "unknown routing engine \"spf\""},
		{"unknown topology", `spec = "torus:dims=3x3"`, `spec = "hypercube:d=4"`, 9, "topology.spec", "unknown topology kind"},
		{"unknown topology param", `spec = "torus:dims=3x3"`, `spec = "torus:dims=3x3,bogus=1"`, 9, "topology.spec", "no parameter \"bogus\""},
		{"impossible percent", `percent = [0, 5]`, `percent = [0, 500]`, 14, "faults.percent", "want a failure level in [0, 100)"},
		{"impossible load", `max_time = "100us"`, "max_time = \"100us\"\nload = 3.0", 32, "traffic.load", "want a number in (0, 1]"},
		{"bad duration", `max_time = "100us"`, `max_time = "soon"`, 31, "traffic.max_time", "duration"},
		{"bad size", `msg_bytes = "2MTU"`, `msg_bytes = "two"`, 25, "traffic.msg_bytes", "size"},
		{"impossible hardware", `[faults]`, "[hardware]\ninput_buffer_flits = 8\n\n[faults]", 13, "hardware.input_buffer_flits", "credits for a whole packet"},
		{"parameter the engine does not read", `engine = "dfsssp"`, "engine = \"minhop\"\nroots = [\"l1-0\"]", 18, "routing.roots", "routing engine minhop reads no roots"},
		{"relieve on an engine other than nue", `engine = "dfsssp"`, "engine = \"dfsssp\"\nrelieve = false", 18, "routing.relieve", "routing engine dfsssp reads no relieve"},
		{"path_vls on an engine without SL-to-VL tables", `engine = "dfsssp"`, "engine = \"dfsssp\"\npath_vls = true", 18, "routing.path_vls", "routing engine dfsssp reads no path_vls"},
		{"old seeds key", `fault_seeds = [1, 2]`, `seeds = [1, 2]`, 3, "seeds", "unknown key"},
		{"syntax", `name = "t"`, `name = "t`, 2, "", ""},
		{"bad traffic kind", `kind = "uniform"`, `kind = "random"`, 28, "traffic.kind", "unknown traffic kind"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Replace(good, tc.edit, tc.with, 1)
			require.NotEqual(t, good, text, "edit did not apply")
			_, err := Parse([]byte(text), "bad.toml", ".")
			require.Error(t, err)
			var ce *Error
			require.True(t, errors.As(err, &ce), "%T %v", err, err)
			assert.Equal(t, "bad.toml", ce.File)
			assert.Equal(t, tc.line, ce.Line, err.Error())
			if tc.key != "" {
				assert.Equal(t, tc.key, ce.Key, err.Error())
			}
			assert.Contains(t, err.Error(), tc.want)
			assert.True(t, strings.HasPrefix(err.Error(), "bad.toml:"), err.Error())
		})
	}
}

const severalFaults = `
name = "f"
fault_seeds = [1, 2]

[[topology]]
spec = "tsubame2"

[[faults]]
kind = "links"
percent = [0, 1]

[[faults]]
kind = "switches"
percent = [1]

[[faults]]
kind = "mixed"
ratio = "1:13"
percent = [2]

[[routing]]
engine = "dfsssp"

[[traffic]]
kind = "exchange"
`

// [[faults]] entries sweep link-only, switch-only and mixed failures of one
// system in one campaign (Fig. 4.7a-c), in file order, each labelled.
func TestSeveralFaultEntries(t *testing.T) {
	c, err := Parse([]byte(severalFaults), "f.toml", ".")
	require.NoError(t, err)
	require.Len(t, c.Faults, 3)
	assert.Equal(t, []string{"links", "switches", "mixed 1:13"}, []string{c.Faults[0].Label, c.Faults[1].Label, c.Faults[2].Label})
	pts, err := c.Points()
	require.NoError(t, err)
	require.Len(t, pts, (2+1+1)*2)
	assert.Equal(t, "tsubame2|exchange#0|links=1%|fault_seed=2|traffic_seed=1|dfsssp", pts[3].Key)
	assert.Equal(t, "tsubame2|exchange#0|switches=1%|fault_seed=1|traffic_seed=1|dfsssp", pts[4].Key)
	assert.Equal(t, 1.0, pts[4].Faults.SwitchPercent)
	assert.Equal(t, "tsubame2|exchange#0|mixed 1:13=2%|fault_seed=2|traffic_seed=1|dfsssp", pts[7].Key)
	assert.Equal(t, 13, pts[7].Faults.RatioLinks)
	assert.Equal(t, "mixed 1:13", pts[7].FaultLabel)

	for _, tc := range []struct {
		name, edit, with string
		line             int
		key, want        string
	}{
		{"bad kind in the second entry", `kind = "switches"`, `kind = "nodes"`, 13, "faults.kind", "want links, switches or mixed"},
		{"ratio without mixed", "kind = \"switches\"\n", "kind = \"switches\"\nratio = \"1:2\"\n", 14, "faults.ratio", "only applies to mixed"},
		{"same failures twice", `kind = "switches"`, `kind = "links"`, 12, "faults.label", "listed twice"},
		{"unknown key in an entry", `ratio = "1:13"`, "ratio = \"1:13\"\nrate = 2", 19, "faults.rate", "unknown key"},
		{"faults not a table", "[[faults]]\nkind = \"links\"\npercent = [0, 1]\n", "faults = 3\n[[faults]]\nkind = \"links\"\npercent = [0, 1]\n", 0, "", "toml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Replace(severalFaults, tc.edit, tc.with, 1)
			require.NotEqual(t, severalFaults, text, "edit did not apply")
			_, err := Parse([]byte(text), "f.toml", ".")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.True(t, strings.HasPrefix(err.Error(), "f.toml:"), err.Error())
			if tc.line > 0 {
				var ce *Error
				require.True(t, errors.As(err, &ce), "%T %v", err, err)
				assert.Equal(t, tc.line, ce.Line, err.Error())
				assert.Equal(t, tc.key, ce.Key, err.Error())
			}
		})
	}
}

// The campaigns docs/validation.md reports (docs/campaigns) stay valid.
func TestDocCampaigns(t *testing.T) {
	files, err := filepath.Glob("../docs/campaigns/*.toml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		expands(t, f)
	}
}

// expands loads a campaign by name or path and returns its points, failing
// the test if it does not validate or expands to nothing.
func expands(t *testing.T, nameOrPath string) []Point {
	t.Helper()
	c, err := Load(nameOrPath)
	require.NoError(t, err, nameOrPath)
	pts, err := c.Points()
	require.NoError(t, err, nameOrPath)
	assert.NotEmpty(t, pts, nameOrPath)
	return pts
}

// Every embedded campaign loads, validates and expands.
func TestEmbeddedCampaigns(t *testing.T) {
	names := Embedded()
	for _, want := range []string{"quickstart", "usability", "small", "large", "tsubame2", "deimos", "angara"} {
		assert.Contains(t, names, want)
	}
	for _, n := range names {
		t.Logf("%s: %d points", n, len(expands(t, n)))
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(good))
	f.Add([]byte(severalFaults))
	f.Add([]byte(jobsCampaign))
	f.Add([]byte("jobs_seed = 2\n" + jobsCampaign + "[[traffic]]\nkind = \"jobs\"\nslowdowns = false\n[[traffic]]\nkind = \"uniform\"\n"))
	f.Add([]byte("name = \"x\"\n[[topology]]\nspec = \"torus:dims=3\"\n[[routing]]\nengine = \"minhop\"\n[[traffic]]\nkind = \"uniform\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data, "fuzz.toml", ".")
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), "fuzz.toml") {
				t.Fatalf("error without location: %v", err)
			}
			return
		}
		// Through Check, as flitsim check and run do, when the work is
		// small (the fuzzer must not spend minutes on one input): every
		// error still names the file and a key, and a campaign that passes
		// expands into points.
		draws := len(c.Topologies) * len(c.seedsOfFaults())
		for _, f := range c.Faults {
			draws *= max(1, len(f.Percent))
		}
		for _, tp := range c.Topologies {
			if len(tp.Spec) > 40 || strings.HasPrefix(tp.Spec, "file:") {
				return
			}
		}
		if draws > 20 {
			return
		}
		if err := c.Check(); err != nil {
			var ce *Error
			if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), "fuzz.toml") || ce.Key == "" {
				t.Fatalf("check error without file and key: %v", err)
			}
			return
		}
		if _, err := c.Points(); err != nil {
			t.Fatalf("a campaign that passes check fails to expand: %v", err)
		}
	})
}

// Every point of every embedded campaign belongs to exactly one shard, for
// any number of shards, and Size counts them.
func TestShardsPartitionCampaign(t *testing.T) {
	for _, name := range Embedded() {
		c, err := Load(name)
		require.NoError(t, err)
		pts, err := c.Points()
		require.NoError(t, err)
		for n := 1; n <= 5; n++ {
			owner := make([]int, len(pts))
			for i := range owner {
				owner[i] = -1
			}
			for i := 0; i < n; i++ {
				sh, err := ParseShard(fmt.Sprintf("%d/%d", i, n))
				require.NoError(t, err)
				cnt := 0
				for _, p := range pts {
					if sh.Has(p.Index) {
						require.Equal(t, -1, owner[p.Index], "%s: point %d in shards %d and %d of %d", name, p.Index, owner[p.Index], i, n)
						owner[p.Index] = i
						cnt++
					}
				}
				assert.Equal(t, sh.Size(len(pts)), cnt, "%s shard %d/%d", name, i, n)
			}
			for i, o := range owner {
				require.NotEqual(t, -1, o, "%s: point %d in no shard of %d", name, i, n)
			}
		}
	}
}

func TestParseShardErrors(t *testing.T) {
	for _, s := range []string{"", "1", "a/2", "2/2", "-1/2", "0/0", "1/x"} {
		_, err := ParseShard(s)
		assert.Error(t, err, s)
	}
	sh, err := ParseShard(" 3 / 5 ")
	require.NoError(t, err)
	assert.Equal(t, Shard{I: 3, N: 5}, sh)
	assert.Equal(t, 2, Shard{I: 3, N: 5}.Size(13)) // 3, 8
	assert.Equal(t, 0, Shard{I: 3, N: 5}.Size(3))
}

// Two entries of one kind are told apart by their label (default: the kind,
// plus the rank order); the same label twice is refused at its line.
func TestSeveralTrafficEntries(t *testing.T) {
	text := severalFaults + "\n[[traffic]]\nkind = \"exchange\"\norder = \"random\"\n"
	c, err := Parse([]byte(text), "t.toml", ".")
	require.NoError(t, err)
	require.Len(t, c.Traffic, 2)
	assert.Equal(t, []string{"exchange", "exchange/random"}, []string{c.Traffic[0].TrafficLabel(), c.Traffic[1].TrafficLabel()})
	pts, err := c.Points()
	require.NoError(t, err)
	require.Len(t, pts, 2*(2+1+1)*2)
	var orders []traffic.Order
	for _, p := range pts {
		orders = append(orders, p.Params.Traffic.Order)
	}
	assert.Contains(t, orders, traffic.RandomOrder)
	assert.Contains(t, orders, traffic.ByHCA)

	for _, tc := range []struct {
		name, with string
		line       int
		key, want  string
	}{
		{"same traffic twice", "\n[[traffic]]\nkind = \"exchange\"\n", 27, "traffic.label", "listed twice"},
		{"same order twice", "\n[[traffic]]\nkind = \"exchange\"\norder = \"hca\"\nlabel = \"a\"\n[[traffic]]\nkind = \"exchange\"\norder = \"random\"\nlabel = \"a\"\n", 34, "traffic.label", "listed twice"},
		{"unknown order", "\n[[traffic]]\nkind = \"exchange\"\norder = \"diagonal\"\n", 29, "traffic.order", "want one of hca, random, round-robin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(severalFaults+tc.with), "t.toml", ".")
			require.Error(t, err)
			var ce *Error
			require.True(t, errors.As(err, &ce), "%T %v", err, err)
			assert.Equal(t, tc.line, ce.Line, err.Error())
			assert.Equal(t, tc.key, ce.Key, err.Error())
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// path_vls reaches torus-2qos's options and names its entry apart from the
// per-hop one.
func TestRoutingPathVLs(t *testing.T) {
	text := strings.Replace(severalFaults, `engine = "dfsssp"`, "engine = \"torus-2qos\"\n\n[[routing]]\nengine = \"torus-2qos\"\npath_vls = true", 1)
	c, err := Parse([]byte(text), "t.toml", ".")
	require.NoError(t, err)
	require.Len(t, c.Routings, 2)
	assert.Equal(t, []string{"torus-2qos", "torus-2qos-path-vls"}, []string{c.Routings[0].Label, c.Routings[1].Label})
	pts, err := c.Points()
	require.NoError(t, err)
	byLabel := map[string]bool{}
	for _, p := range pts {
		byLabel[p.Routing.Label] = p.Options.PathVLs
	}
	assert.Equal(t, map[string]bool{"torus-2qos": false, "torus-2qos-path-vls": true}, byLabel)
}

// relieve = false reaches nue's options and names its entry apart from the
// default.
func TestRoutingRelieve(t *testing.T) {
	text := strings.Replace(severalFaults, `engine = "dfsssp"`, "engine = \"nue\"\n\n[[routing]]\nengine = \"nue\"\nrelieve = false", 1)
	c, err := Parse([]byte(text), "t.toml", ".")
	require.NoError(t, err)
	require.Len(t, c.Routings, 2)
	pts, err := c.Points()
	require.NoError(t, err)
	byLabel := map[string]bool{}
	for _, p := range pts {
		byLabel[p.Routing.Label] = p.Options.NoRelieve
	}
	assert.Equal(t, map[string]bool{"nue": false, "nue-no-relieve": true}, byLabel)
}

// A routing seed reaches angara-genetic's options and names its entry; an
// engine that draws nothing refuses it.
func TestRoutingSeed(t *testing.T) {
	text := strings.Replace(severalFaults, `engine = "dfsssp"`, "engine = \"angara-genetic\"\n\n[[routing]]\nengine = \"angara-genetic\"\nseed = 3", 1)
	c, err := Parse([]byte(text), "t.toml", ".")
	require.NoError(t, err)
	require.Len(t, c.Routings, 2)
	assert.Equal(t, []string{"angara-genetic", "angara-genetic-seed3"}, []string{c.Routings[0].Label, c.Routings[1].Label})
	pts, err := c.Points()
	require.NoError(t, err)
	seeds := map[string]uint64{}
	for _, p := range pts {
		seeds[p.Routing.Label] = p.Options.Seed
	}
	assert.Equal(t, map[string]uint64{"angara-genetic": 1, "angara-genetic-seed3": 3}, seeds)

	bad := strings.Replace(severalFaults, `engine = "dfsssp"`, "engine = \"angara-sssp\"\nseed = 3", 1)
	_, err = Parse([]byte(bad), "t.toml", ".")
	var ce *Error
	require.True(t, errors.As(err, &ce), "%T %v", err, err)
	assert.Equal(t, "routing.seed", ce.Key)
	assert.Contains(t, err.Error(), "reads no seed")
}

// Every traffic key a [[traffic]] table gives enters the campaign's
// identity: a campaign that gives it is another campaign than one that
// leaves it out (a key missing here fails the test, so a new key brings
// its case).
func TestTrafficKeysEnterIdentity(t *testing.T) {
	cases := map[string]struct{ kind, base, line string }{
		"msg_bytes":     {"exchange", "", `msg_bytes = "2MTU"`},
		"start":         {"exchange", "", `start = "1us"`},
		"iterations":    {"exchange", "", `iterations = 2`},
		"load":          {"uniform", "", `load = 0.5`},
		"distance":      {"shift", "", `distance = 2`},
		"burst_on":      {"noise", "", `burst_on = "1us"`},
		"burst_off":     {"noise", `burst_on = "1us"`, `burst_off = "2us"`},
		"hot_fraction":  {"hotspot", "", `hot_fraction = 0.3`},
		"grid":          {"halo", "", `grid = [4, 4]`},
		"order":         {"exchange", "", `order = "random"`},
		"compute":       {"halo", "", `compute = "1us"`},
		"compute_noise": {"sweep3d", "", `compute_noise = "1us"`},
		"algorithm":     {"allreduce", "", `algorithm = "mpich"`},
		"rendezvous":    {"exchange", "", `rendezvous = "8KiB"`},
		"end":           {"uniform", "", `end = "50us"`},
		"compute_scale": {"trace", `trace = "../traffic/dumpi/testdata/cg4"`, `compute_scale = 0.5`},
		"drop_compute":  {"trace", `trace = "../traffic/dumpi/testdata/cg4"`, `drop_compute = true`},
	}
	campaign := func(kind string, lines ...string) *Campaign {
		text := "name = \"id\"\n[[topology]]\nspec = \"kary-ntree:k=4,n=2\"\n[[routing]]\nengine = \"ftree\"\n[[traffic]]\nkind = \"" + kind + "\"\n"
		for _, l := range lines {
			if l != "" {
				text += l + "\n"
			}
		}
		c, err := Parse([]byte(text), "id.toml", ".")
		require.NoError(t, err, text)
		return c
	}
	trace := `trace = "../traffic/dumpi/testdata/`
	assert.NotEqual(t, campaign("trace", trace+`cg4"`).Hash(), campaign("trace", trace+`ring4"`).Hash(), "trace leaves the identity as it is")
	for _, key := range param.Keys(trafficDecls()) {
		if key == "trace" {
			continue // above: a trace pattern needs one
		}
		tc, ok := cases[key]
		if !assert.True(t, ok, "no case for traffic key %s", key) {
			continue
		}
		assert.NotEqual(t, campaign(tc.kind, tc.base).Hash(), campaign(tc.kind, tc.base, tc.line).Hash(), "%s leaves the identity as it is", key)
	}
}
