package param

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type knobs struct {
	Rate    float64 `param:"rate" unit:"Gbit/s" range:"(0,100]" default:"32" help:"a rate"`
	Count   int     `param:"count" range:"[1,10)" default:"3" help:"a count"`
	Delay   int64   `param:"delay" unit:"ps" range:"[0,1s]" default:"100ns" help:"a delay"`
	On      bool    `param:"on" default:"true" help:"a switch"`
	Derived int64   `default:"6100"`
	Plain   string
}

func TestDeclarationsFromTags(t *testing.T) {
	ds := Of(&knobs{})
	require.Equal(t, []string{"rate", "count", "delay", "on"}, Keys(ds))
	var k knobs
	Defaults(&k)
	assert.Equal(t, knobs{Rate: 32, Count: 3, Delay: 100_000, On: true, Derived: 6100}, k)
	for _, d := range ds {
		assert.NoError(t, d.Check(d.Get(&k)), "%s: the default is in range", d.Key)
	}
	d, ok := Find(ds, "delay")
	require.True(t, ok)
	assert.Equal(t, Duration, d.Kind)
	assert.Equal(t, "100ns", d.Format(d.Get(&k)))
}

// An embedded struct declares its keys in its place, but those an outer
// field of the same Go name shadows; its defaults are set and its values
// read and written through the outer struct.
func TestEmbeddedStructsInline(t *testing.T) {
	type outer struct {
		Count int `param:"n" range:"[0,5]" default:"2" help:"the outer count"`
		knobs
		Extra float64 `param:"extra" range:"[0,1]" default:"0.5" help:"one more"`
	}
	ds := Of(&outer{})
	require.Equal(t, []string{"n", "rate", "delay", "on", "extra"}, Keys(ds))
	var o outer
	Defaults(&o)
	assert.Equal(t, outer{Count: 2, knobs: knobs{Rate: 32, Count: 3, Delay: 100_000, On: true, Derived: 6100}, Extra: 0.5}, o)
	d, _ := Find(ds, "rate")
	d.Set(&o, 7)
	assert.Equal(t, 7.0, o.Rate)
	assert.Equal(t, 7.0, d.Get(&o))
	type twice struct {
		knobs
		R float64 `param:"rate" range:"[0,1]" help:"a second rate"`
	}
	assert.PanicsWithValue(t, `param: twice: key "rate" declared twice`, func() { Of(&twice{}) })
}

func TestRangesAndValues(t *testing.T) {
	ds := Of(&knobs{})
	for _, tc := range []struct {
		key  string
		text string
		toml any
		ok   bool
	}{
		{"rate", "0", int64(0), false}, // open lower end
		{"rate", "100", 100.0, true},   // closed upper end
		{"rate", "100.5", 100.5, false},
		{"rate", "nan", "x", false},
		{"count", "10", int64(10), false}, // open upper end
		{"count", "1", int64(1), true},
		{"count", "1.5", 1.5, false},
		{"delay", "1s", "1s", true},
		{"delay", "1.5s", "1.5s", false},
		{"delay", "5", int64(5), false}, // a duration needs a unit
		{"delay", "0", int64(0), true},
		{"on", "false", false, true},
		{"on", "yes", int64(1), false},
	} {
		d, _ := Find(ds, tc.key)
		_, err := d.Parse(tc.text)
		assert.Equal(t, tc.ok, err == nil, "%s Parse(%q): %v", tc.key, tc.text, err)
		_, err = d.Value(tc.toml)
		assert.Equal(t, tc.ok, err == nil, "%s Value(%v): %v", tc.key, tc.toml, err)
		if err != nil {
			var pe *Error
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tc.key, pe.Key)
		}
	}
}

func TestSetGetRoundTrip(t *testing.T) {
	var k knobs
	for _, d := range Of(&k) {
		x, err := d.Parse(map[Kind]string{Float: "7.5", Int: "4", Duration: "2us", Bool: "true"}[d.Kind])
		require.NoError(t, err)
		d.Set(&k, x)
		assert.Equal(t, x, d.Get(&k), d.Key)
	}
	assert.Equal(t, knobs{Rate: 7.5, Count: 4, Delay: 2_000_000, On: true}, k)
}

func TestMalformedDeclarationsPanic(t *testing.T) {
	type noHelp struct {
		X float64 `param:"x" range:"[0,1]"`
	}
	type badRange struct {
		X float64 `param:"x" range:"0..1" help:"x"`
	}
	type badType struct {
		X map[string]int `param:"x" help:"x"`
	}
	type badDefault struct {
		X int `default:"many"`
	}
	assert.Panics(t, func() { Of(&noHelp{}) })
	assert.Panics(t, func() { Of(&badRange{}) })
	assert.Panics(t, func() { Of(&badType{}) })
	assert.Panics(t, func() { Defaults(&badDefault{}) })
}

// Durations beyond Go's time.Duration (about 292 years) are written in
// hours, never as the negative duration a conversion overflow gives.
func TestFormatHugeDurations(t *testing.T) {
	d := Decl{Kind: Duration}
	for _, s := range []string{"2562047h47m16.854775807s", "2562047h"} {
		ps, ok := ParseDurationPs(s)
		require.True(t, ok, s)
		assert.NotContains(t, d.Format(ps), "-", s)
	}
	assert.Equal(t, "2.56205e+06h", d.Format(9.223372036854775807e21))
	assert.Equal(t, "-2.56205e+06h", d.Format(-9.223372036854775807e21))
	assert.Equal(t, "1h0m0s", d.Format(3.6e15))
}

type options struct {
	Name  string   `param:"name" help:"a name"`
	Mode  string   `param:"mode" values:"fast|slow" default:"fast" help:"a mode"`
	Roots []string `param:"roots" help:"names" label:"-{}"`
	File  string   `param:"file" kind:"path" flag:"lfts" help:"a file"`
	Bytes int      `param:"msg_bytes" kind:"size" range:"[1,1048576]" help:"a size"`
	Seed  uint64   `param:"seed" range:"[0,1e18]" default:"1" help:"a seed"`
}

// Text, enumerations, lists, paths, sizes and unsigned seeds decode from
// TOML values and flag text, are checked, and round-trip through Put and
// Take; flags and labels come from their tags.
func TestKindsBeyondNumbers(t *testing.T) {
	ds := Of(&options{})
	require.Equal(t, []string{"name", "mode", "roots", "file", "msg_bytes", "seed"}, Keys(ds))
	env := Env{MTU: 2048, Dir: "/campaigns"}
	var o options
	Defaults(&o)
	assert.Equal(t, options{Mode: "fast", Seed: 1}, o)
	for _, tc := range []struct {
		key  string
		toml any
		text string
		want any
	}{
		{"name", "x", "x", "x"},
		{"mode", "slow", "slow", "slow"},
		{"roots", []any{"a", "b"}, "a,b", []string{"a", "b"}},
		{"file", "t.dump", "t.dump", "/campaigns/t.dump"},
		{"file", "/abs/t.dump", "/abs/t.dump", "/abs/t.dump"},
		{"msg_bytes", "10MTU", "10MTU", 20480},
		{"msg_bytes", int64(100), "100", 100},
		{"seed", int64(7), "7", 7.0},
	} {
		d, ok := Find(ds, tc.key)
		require.True(t, ok)
		x, err := d.Decode(tc.toml, env)
		require.NoError(t, err, tc.key)
		assert.Equal(t, tc.want, x, tc.key)
		y, err := d.ParseText(tc.text, env)
		require.NoError(t, err, tc.key)
		assert.Equal(t, tc.want, y, tc.key)
		d.Put(&o, x)
		assert.Equal(t, tc.want, d.Take(&o), tc.key)
	}
	assert.Equal(t, uint64(7), o.Seed)
	for _, tc := range []struct {
		key  string
		toml any
		want string
	}{
		{"name", int64(1), "want text"},
		{"mode", "medium", "want one of fast, slow"},
		{"roots", []any{}, "an empty list"},
		{"roots", []any{""}, "an empty entry"},
		{"roots", "a", "want a list"},
		{"roots", []any{int64(1)}, "want strings"},
		{"file", "", "an empty path"},
		{"msg_bytes", int64(0), "want a size in [1, 1048576] bytes"},
		{"msg_bytes", "1000MTU", "is 2048000 bytes"},
		{"msg_bytes", "x", "want a positive number"},
		{"msg_bytes", 1.5, "want a size"},
	} {
		d, _ := Find(ds, tc.key)
		_, err := d.Decode(tc.toml, env)
		var pe *Error
		require.ErrorAs(t, err, &pe, "%s %v", tc.key, tc.toml)
		assert.Equal(t, tc.key, pe.Key)
		assert.Contains(t, pe.Msg, tc.want, "%s %v", tc.key, tc.toml)
	}
	f, _ := Find(ds, "file")
	assert.Equal(t, "lfts", f.Flag)
	b, _ := Find(ds, "msg_bytes")
	assert.Equal(t, "msg-bytes", b.Flag)
	r, _ := Find(ds, "roots")
	assert.Equal(t, "-{}", r.Label)
	assert.Equal(t, "a,b", r.Show([]string{"a", "b"}))
}

// named lists its mode's usual values and takes "x=y" pairs beside them.
type named struct {
	Mode string `param:"mode" help:"a mode"`
}

func (*named) ParamValues(string) []string { return []string{"a", "b"} }

func (*named) ParamAccepts(key string) func(string) error {
	return func(s string) error {
		if len(s) == 3 && s[1] == '=' {
			return nil
		}
		return errors.New("or a pair x=y")
	}
}

// A text parameter with listed values takes what its Acceptor accepts
// beyond them, from TOML and from flag text alike, and its refusal names
// both the list and the acceptor's reason.
func TestAcceptorTakesMore(t *testing.T) {
	d, ok := Find(Of(&named{}), "mode")
	require.True(t, ok)
	for _, v := range []string{"a", "b", "x=y"} {
		x, err := d.Decode(v, Env{})
		require.NoError(t, err, v)
		assert.Equal(t, v, x)
		x, err = d.ParseText(v, Env{})
		require.NoError(t, err, v)
		assert.Equal(t, v, x)
	}
	_, err := d.Decode("c", Env{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "one of a, b; or a pair x=y")
}
