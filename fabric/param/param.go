// Package param declares tunable parameters once, as struct tags on the
// field that holds them, and reads the declarations: defaults, decoding
// from TOML values and flag text, range checks, help texts and the
// `flitsim params` table all come from the same tags.
//
// A parameter is a struct field of type float64, int, int64 or bool with
// a `param` tag:
//
//		LinkGbps float64 `param:"link_gbps" unit:"Gbit/s" range:"(0,100000]" default:"32" help:"data rate per link direction"`
//
//	  - param: the key in a campaign table and in flags such as sim --hw.
//	  - unit: printed after values; "ps" on an int64 makes it a duration,
//	    written as a Go duration ("100ns", "2us") and held in picoseconds.
//	  - range: the accepted values, an interval "[min,max]" whose ends may
//	    be open "(" or ")"; durations in Go duration syntax. Booleans have none.
//	  - default: the value the defaults constructor sets (same syntax as a
//	    flag value).
//	  - help: one line saying what the parameter does.
//
// A field with only a default tag is set by Defaults but is no parameter
// (a derived or internal constant). The package imports nothing of the
// project, so every package may declare parameters with it.
package param

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Kind is the type of value a parameter takes.
type Kind int

// The kinds of values.
const (
	// Float is a real number.
	Float Kind = iota
	// Int is an integer.
	Int
	// Duration is a time written as a Go duration ("100ns", "10ms") and
	// held in picoseconds.
	Duration
	// Bool is true or false.
	Bool
)

func (k Kind) String() string {
	if n, ok := kindNames[k]; ok {
		return n
	}
	return [...]string{"number", "integer", "duration", "boolean"}[k]
}

// Decl is one declared parameter.
type Decl struct {
	Key  string
	Kind Kind
	Unit string
	// Min and Max bound the value (durations in ps); MinOpen and MaxOpen
	// exclude the bound itself. Booleans are unbounded.
	Min, Max         float64
	MinOpen, MaxOpen bool
	// Default is the default as written in the declaration.
	Default string
	Help    string
	// Values lists the values a String takes (tag values:"a|b|c"); none:
	// any text.
	Values []string
	// accept takes a String's values beyond Values (an Acceptor's), or
	// says why not.
	accept func(string) error
	// Flag is the command-line flag that sets the parameter (tag flag;
	// default: the key with '-' for '_').
	Flag string
	// Label is how a given value names the entry it is given in (tag
	// label, "{}" standing for the value), e.g. "-{}vl" for vls = 4.
	Label string
	// Unset says what a key left out means when that is no value of its
	// own (tag unset), e.g. "auto" or "hardware.vls".
	Unset string
	// Negate: the boolean field holds the opposite of the key (tag
	// negate:"true"), so that its zero value is the key's default true
	// (NoRelieve for relieve).
	Negate bool
	field  []int
	name   string // the Go field's name
}

// Error is a parameter value that cannot be, naming the key to blame and,
// for impossible combinations, the other keys involved (Also), so that a
// caller can point at whichever of them the user set.
type Error struct {
	Key  string
	Msg  string
	Also []string
}

func (e *Error) Error() string {
	if e.Key == "" {
		return e.Msg
	}
	return e.Key + ": " + e.Msg
}

// Valuer is a struct whose text parameters take values listed in code
// rather than in a tag (a registry of patterns, say): ParamValues returns
// the values of key, or nil for any text.
type Valuer interface {
	ParamValues(key string) []string
}

// An Acceptor takes values of a text parameter beyond the ones its Valuer
// lists, which then name the usual ones: ParamAccepts returns, for key,
// the check of such a value (nil error: taken), or nil when Values are
// all there is.
type Acceptor interface {
	ParamAccepts(key string) func(value string) error
}

// declared memoizes Of by type (reflect.Type → []Decl), as encoding/json
// caches a type's fields: the declarations depend on the type alone, and
// a simulation normalizes its parameters through them on every run.
var declared sync.Map

// Of returns the parameters declared on the struct type of ptr (a pointer
// to a struct), in field order. A malformed declaration panics: it is a
// programming error that every test run finds. The slice is the caller's;
// the declarations' own slices (Values) are shared and not to be changed.
func Of(ptr any) []Decl {
	t := reflect.TypeOf(ptr)
	if ds, ok := declared.Load(t); ok {
		return slices.Clone(ds.([]Decl))
	}
	ds := declare(ptr)
	declared.Store(t, ds)
	return slices.Clone(ds)
}

// declare reads the declarations of Of. An embedded struct without a
// param tag declares its own parameters in its place, as encoding/json
// inlines an embedded struct's fields, but those of its fields that an
// outer field of the same name shadows. Two declarations of one key
// panic.
func declare(ptr any) []Decl {
	vr, _ := ptr.(Valuer)
	t := reflect.TypeOf(ptr).Elem()
	var ds []Decl
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		key, ok := f.Tag.Lookup("param")
		if !ok {
			if f.Anonymous && f.Type.Kind() == reflect.Struct {
				for _, d := range Of(reflect.New(f.Type).Interface()) {
					if g, ok := t.FieldByName(d.name); ok && len(g.Index) == 1 {
						continue // shadowed by the outer struct's field, as in Go
					}
					d.field = append(slices.Clone(f.Index), d.field...)
					ds = append(ds, d)
				}
			}
			continue
		}
		d := Decl{Key: key, Unit: f.Tag.Get("unit"), Default: f.Tag.Get("default"), Help: f.Tag.Get("help"),
			Flag: f.Tag.Get("flag"), Label: f.Tag.Get("label"), Unset: f.Tag.Get("unset"), Negate: f.Tag.Get("negate") == "true",
			field: f.Index, name: f.Name}
		if d.Flag == "" {
			d.Flag = strings.ReplaceAll(key, "_", "-")
		}
		var err error
		switch k := f.Type.Kind(); {
		case k == reflect.Float64:
			d.Kind = Float
		case k == reflect.Int && f.Tag.Get("kind") == "":
			d.Kind = Int
		case k == reflect.Int64 || k == reflect.Uint64:
			d.Kind = Int
			if d.Unit == "ps" {
				d.Kind, d.Unit = Duration, ""
			}
		case k == reflect.Bool:
			d.Kind = Bool
		default:
			err = d.declare(f) // the kinds beyond numbers (kinds.go)
		}
		if err == nil && d.Kind.Numeric() && d.Kind != Bool {
			err = d.parseRange(f.Tag.Get("range"))
		}
		if err != nil {
			panic(fmt.Sprintf("param: %s.%s: %v", t.Name(), f.Name, err))
		}
		if d.Kind == String && d.Values == nil && vr != nil {
			d.Values = vr.ParamValues(key)
		}
		if ac, ok := ptr.(Acceptor); ok && d.Kind == String && d.Values != nil {
			d.accept = ac.ParamAccepts(key)
		}
		if d.Help == "" {
			panic(fmt.Sprintf("param: %s.%s: no help", t.Name(), f.Name))
		}
		ds = append(ds, d)
	}
	for i, d := range ds {
		if slices.ContainsFunc(ds[:i], func(e Decl) bool { return e.Key == d.Key }) {
			panic(fmt.Sprintf("param: %s: key %q declared twice", t.Name(), d.Key))
		}
	}
	return ds
}

// Find returns the declaration of key, or false.
func Find(ds []Decl, key string) (Decl, bool) {
	for _, d := range ds {
		if d.Key == key {
			return d, true
		}
	}
	return Decl{}, false
}

// Keys lists the declarations' keys in order.
func Keys(ds []Decl) []string {
	keys := make([]string, len(ds))
	for i, d := range ds {
		keys[i] = d.Key
	}
	return keys
}

// Defaults sets every field of the struct ptr points to that declares a
// default, its embedded structs' too. A malformed default panics (every
// test run finds it).
func Defaults(ptr any) { defaults(reflect.ValueOf(ptr).Elem()) }

func defaults(v reflect.Value) {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		def, ok := f.Tag.Lookup("default")
		if !ok {
			if _, tagged := f.Tag.Lookup("param"); !tagged && f.Anonymous && f.Type.Kind() == reflect.Struct {
				defaults(v.Field(i))
			}
			continue
		}
		d := Decl{Key: f.Name, Kind: Float}
		switch f.Type.Kind() {
		case reflect.Int, reflect.Int64, reflect.Uint64:
			d.Kind = Int
			if f.Tag.Get("unit") == "ps" {
				d.Kind = Duration
			}
		case reflect.Bool:
			d.Kind = Bool
		case reflect.String:
			v.Field(i).SetString(def)
			continue
		case reflect.Slice:
			if def != "" {
				v.Field(i).Set(reflect.ValueOf(strings.Split(def, ",")))
			}
			continue
		}
		d.Min, d.Max = math.Inf(-1), math.Inf(1)
		x, err := d.Parse(def)
		if err != nil {
			panic(fmt.Sprintf("param: %s.%s: default: %v", t.Name(), f.Name, err))
		}
		d.field = f.Index
		d.Negate = f.Tag.Get("negate") == "true"
		d.set(v, x)
	}
}

// Get reads the parameter from the struct ptr points to.
func (d Decl) Get(ptr any) float64 {
	f := reflect.ValueOf(ptr).Elem().FieldByIndex(d.field)
	switch f.Kind() {
	case reflect.Float64:
		return f.Float()
	case reflect.Bool:
		if f.Bool() != d.Negate {
			return 1
		}
		return 0
	case reflect.Uint64:
		return float64(f.Uint())
	}
	return float64(f.Int())
}

// Set writes a checked value into the struct ptr points to.
func (d Decl) Set(ptr any, x float64) { d.set(reflect.ValueOf(ptr).Elem(), x) }

func (d Decl) set(v reflect.Value, x float64) {
	f := v.FieldByIndex(d.field)
	switch f.Kind() {
	case reflect.Float64:
		f.SetFloat(x)
	case reflect.Bool:
		f.SetBool((x != 0) != d.Negate)
	case reflect.Uint64:
		f.SetUint(uint64(x))
	default:
		f.SetInt(int64(x))
	}
}

// Check reports a value outside the declared range (NaN and infinities
// included) as an *Error.
func (d Decl) Check(x float64) error {
	if d.Kind == Bool {
		return nil
	}
	lowOK := x > d.Min || (!d.MinOpen && x == d.Min)
	highOK := x < d.Max || (!d.MaxOpen && x == d.Max)
	if math.IsNaN(x) || !lowOK || !highOK || (d.Kind != Float && x != math.Trunc(x)) {
		return &Error{Key: d.Key, Msg: fmt.Sprintf("%s: want %s", d.Format(x), d.Range())}
	}
	return nil
}

// Range describes the accepted values, e.g. "a number in (0, 100000] Gbit/s".
func (d Decl) Range() string {
	if !d.Kind.Numeric() {
		return d.rangeOther()
	}
	lo, hi := "[", "]"
	if d.MinOpen {
		lo = "("
	}
	if d.MaxOpen {
		hi = ")"
	}
	switch d.Kind {
	case Bool:
		return "true or false"
	case Duration:
		return fmt.Sprintf("a duration in %s%s, %s%s (e.g. 100ns, 2us)", lo, fmtPs(d.Min), fmtPs(d.Max), hi)
	case Int:
		return fmt.Sprintf("an integer in %s%d, %d%s%s", lo, int64(d.Min), int64(d.Max), hi, unitSuffix(d.Unit))
	}
	return fmt.Sprintf("a number in %s%g, %g%s%s", lo, d.Min, d.Max, hi, unitSuffix(d.Unit))
}

// Format writes a value of the parameter for messages.
func (d Decl) Format(x float64) string {
	switch d.Kind {
	case Duration:
		return fmtPs(x)
	case Int:
		if x == math.Trunc(x) && math.Abs(x) < 1<<62 {
			return strconv.FormatInt(int64(x), 10) + unitSuffix(d.Unit)
		}
	case Bool:
		return strconv.FormatBool(x != 0)
	}
	return strconv.FormatFloat(x, 'g', -1, 64) + unitSuffix(d.Unit)
}

// Parse reads a value from text (a flag's value, a declared default):
// numbers for numbers and integers, Go durations for durations ("0" is
// zero), true/false for booleans; the value is range checked.
func (d Decl) Parse(s string) (float64, error) {
	s = strings.TrimSpace(s)
	bad := func() (float64, error) {
		return 0, &Error{Key: d.Key, Msg: fmt.Sprintf("%q: want %s", s, d.Range())}
	}
	var x float64
	switch d.Kind {
	case Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return bad()
		}
		if b {
			return 1, nil
		}
		return 0, nil
	case Duration:
		ps, ok := ParseDurationPs(s)
		if !ok {
			return bad()
		}
		x = ps
	case Int:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return bad()
		}
		x = float64(n)
	default:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return bad()
		}
		x = f
	}
	return x, d.Check(x)
}

// Value converts a decoded TOML value: numbers for numbers (integers
// too), integers for integers, duration strings for durations (the
// integer 0 too), booleans for booleans; the value is range checked.
func (d Decl) Value(v any) (float64, error) {
	wrong := func() (float64, error) {
		return 0, &Error{Key: d.Key, Msg: fmt.Sprintf("%v (%s): want %s", v, TOMLType(v), d.Range())}
	}
	var x float64
	switch n := v.(type) {
	case bool:
		if d.Kind != Bool {
			return wrong()
		}
		if n {
			x = 1
		}
	case string:
		ps, ok := ParseDurationPs(n)
		if d.Kind != Duration || !ok {
			return wrong()
		}
		x = ps
	case int64:
		switch d.Kind {
		case Bool:
			return wrong()
		case Duration:
			if n != 0 {
				return 0, &Error{Key: d.Key, Msg: fmt.Sprintf("%d: a duration needs a unit, e.g. \"%dns\"", n, n)}
			}
		}
		x = float64(n)
	case float64:
		if d.Kind != Float {
			return wrong()
		}
		x = n
	default:
		return wrong()
	}
	return x, d.Check(x)
}

// TOMLType names the type of a decoded TOML value for messages.
func TOMLType(v any) string {
	switch v.(type) {
	case int64:
		return "an integer"
	case float64:
		return "a number"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return fmt.Sprintf("%T", v)
}

// parseRange reads "[min,max]", "(min,max]", … .
func (d *Decl) parseRange(r string) error {
	r = strings.TrimSpace(r)
	if len(r) < 5 || !strings.ContainsRune("[(", rune(r[0])) || !strings.ContainsRune("])", rune(r[len(r)-1])) {
		return fmt.Errorf("range %q: want an interval such as (0,100] or [1ns,1000s]", r)
	}
	lo, hi, ok := strings.Cut(r[1:len(r)-1], ",")
	if !ok {
		return fmt.Errorf("range %q: want min,max", r)
	}
	d.MinOpen, d.MaxOpen = r[0] == '(', r[len(r)-1] == ')'
	num := func(s string) (float64, error) {
		if d.Kind == Duration {
			ps, ok := ParseDurationPs(strings.TrimSpace(s))
			if !ok {
				return 0, fmt.Errorf("range %q: %q is no duration", r, s)
			}
			return ps, nil
		}
		return strconv.ParseFloat(strings.TrimSpace(s), 64)
	}
	var err error
	if d.Min, err = num(lo); err != nil {
		return err
	}
	d.Max, err = num(hi)
	return err
}

// ParseDurationPs reads a Go duration ("100ns", "1.5us", "0") as
// picoseconds; durations beyond the time.Duration range (about 292 years)
// are refused.
func ParseDurationPs(s string) (float64, bool) {
	if s == "0" {
		return 0, true
	}
	d, err := time.ParseDuration(strings.ReplaceAll(s, "µ", "u"))
	if err != nil {
		return 0, false
	}
	return float64(d.Nanoseconds()) * 1000, true
}

func unitSuffix(u string) string {
	if u == "" {
		return ""
	}
	return " " + u
}

func fmtPs(ps float64) string {
	if ps == 0 {
		return "0s"
	}
	if math.Abs(ps) < 1000 || math.IsNaN(ps) || math.IsInf(ps, 0) {
		return strconv.FormatFloat(ps, 'g', -1, 64) + "ps"
	}
	if math.Abs(ps) >= 9e21 { // beyond time.Duration (about 292 years)
		return strconv.FormatFloat(ps/3.6e15, 'g', 6, 64) + "h"
	}
	return time.Duration(ps / 1000).String()
}
