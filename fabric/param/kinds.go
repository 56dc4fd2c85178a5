package param

import (
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
)

// The kinds beyond numbers, durations and booleans. Their values travel as
// Go values of the field's type (string, []string, int for sizes) through
// Decode, ParseText, Put and Take; the numeric kinds travel there as
// float64, as through Value, Parse, Set and Get.
const (
	// String is text; with Values, one of them (an enumeration).
	String Kind = iota + Bool + 1
	// Strings is a list of text: a TOML array of strings, a flag's
	// comma-separated list.
	Strings
	// Size is a number of bytes: a whole number, or text with a unit
	// (B, KB, KiB, MiB, MTU); held in an int.
	Size
	// Path is a file path; a relative one is taken from Env.Dir.
	Path
	// Ints is a list of integers (a TOML array; a flag's "4x4" or "4,4").
	Ints
)

// Env is what some values need to be read: the MTU a size may be given
// in, the folder relative paths start from.
type Env struct {
	MTU int
	Dir string
}

// Numeric reports whether values of the kind travel as float64.
func (k Kind) Numeric() bool { return k <= Bool }

// kindNames are the kinds' names for messages and the params table.
var kindNames = map[Kind]string{String: "string", Strings: "list of strings", Size: "size", Path: "file", Ints: "list of integers"}

// declare fills the kind of a field that is no number, duration or
// boolean from its type and tags, or reports that it cannot be a
// parameter.
func (d *Decl) declare(f reflect.StructField) error {
	switch {
	case f.Type.Kind() == reflect.String && f.Tag.Get("kind") == "path":
		d.Kind = Path
	case f.Type.Kind() == reflect.String:
		d.Kind = String
		if v := f.Tag.Get("values"); v != "" {
			d.Values = strings.Split(v, "|")
		}
	case f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.String:
		d.Kind = Strings
	case f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.Int:
		d.Kind = Ints
	case f.Type.Kind() == reflect.Int && f.Tag.Get("kind") == "size":
		d.Kind = Size
		return d.parseRange(f.Tag.Get("range"))
	default:
		return fmt.Errorf("type %s cannot be a parameter", f.Type)
	}
	return nil
}

// Decode converts a decoded TOML value into the field's value, checked:
// numbers, durations and booleans as Value does (a float64); text for
// strings (one of Values when they are given); a non-empty array of
// non-empty strings for lists; a whole number of bytes or a size's text
// for sizes (an int); a path, made absolute from env.Dir (a string).
func (d Decl) Decode(v any, env Env) (any, error) {
	if d.Kind.Numeric() {
		return d.Value(v)
	}
	wrong := func() (any, error) {
		return nil, &Error{Key: d.Key, Msg: fmt.Sprintf("%v (%s): want %s", v, TOMLType(v), d.Range())}
	}
	switch d.Kind {
	case String, Path:
		s, ok := v.(string)
		if !ok {
			return wrong()
		}
		return d.ParseText(s, env)
	case Strings:
		a, ok := v.([]any)
		if !ok {
			return wrong()
		}
		out := make([]string, 0, len(a))
		for _, x := range a {
			s, ok := x.(string)
			if !ok {
				return nil, &Error{Key: d.Key, Msg: fmt.Sprintf("%v (%s) in the list: want strings", x, TOMLType(x))}
			}
			out = append(out, s)
		}
		return out, d.checkList(out)
	case Ints:
		a, ok := v.([]any)
		if !ok {
			return wrong()
		}
		out := make([]int, 0, len(a))
		for _, x := range a {
			n, ok := x.(int64)
			if !ok || n < math.MinInt32 || n > math.MaxInt32 {
				return nil, &Error{Key: d.Key, Msg: fmt.Sprintf("%v (%s) in the list: want integers", x, TOMLType(x))}
			}
			out = append(out, int(n))
		}
		if len(out) == 0 {
			return nil, &Error{Key: d.Key, Msg: "an empty list: give at least one, or leave the key out"}
		}
		return out, nil
	case Size:
		switch n := v.(type) {
		case int64:
			return d.checkSize(float64(n), fmt.Sprint(n))
		case string:
			return d.ParseText(n, env)
		}
		return wrong()
	}
	return nil, fmt.Errorf("param: %s: unknown kind %d", d.Key, d.Kind)
}

// ParseText reads a value from text (a flag's value): as Parse for the
// numeric kinds (a float64), a comma-separated list for lists.
func (d Decl) ParseText(s string, env Env) (any, error) {
	if d.Kind.Numeric() {
		return d.Parse(s)
	}
	switch d.Kind {
	case String:
		if len(d.Values) > 0 {
			for _, v := range d.Values {
				if s == v {
					return s, nil
				}
			}
			if d.accept != nil {
				err := d.accept(s)
				if err == nil {
					return s, nil
				}
				return nil, &Error{Key: d.Key, Msg: fmt.Sprintf("%q: want %s; %v", s, d.Range(), err)}
			}
			return nil, &Error{Key: d.Key, Msg: fmt.Sprintf("%q: want %s", s, d.Range())}
		}
		return s, nil
	case Path:
		if strings.TrimSpace(s) == "" {
			return nil, &Error{Key: d.Key, Msg: "an empty path: want " + d.Range()}
		}
		if !filepath.IsAbs(s) && env.Dir != "" {
			s = filepath.Join(env.Dir, s)
		}
		return s, nil
	case Strings:
		var out []string
		if strings.TrimSpace(s) != "" {
			out = strings.Split(s, ",")
		}
		return out, d.checkList(out)
	case Ints:
		var out []int
		for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == 'x' || r == ',' }) {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < math.MinInt32 || n > math.MaxInt32 {
				return nil, &Error{Key: d.Key, Msg: fmt.Sprintf("%q: want integers such as 4x4 or 4,4", s)}
			}
			out = append(out, n)
		}
		if len(out) == 0 {
			return nil, &Error{Key: d.Key, Msg: "an empty list: give at least one, or leave the key out"}
		}
		return out, nil
	case Size:
		n, err := ParseSize(s, env.MTU)
		if err != nil {
			return nil, &Error{Key: d.Key, Msg: err.Error()}
		}
		return d.checkSize(float64(n), s)
	}
	return nil, fmt.Errorf("param: %s: unknown kind %d", d.Key, d.Kind)
}

// checkList refuses an empty list (a key given names something) and an
// empty entry.
func (d Decl) checkList(l []string) error {
	if len(l) == 0 {
		return &Error{Key: d.Key, Msg: "an empty list: name at least one, or leave the key out"}
	}
	for _, s := range l {
		if strings.TrimSpace(s) == "" {
			return &Error{Key: d.Key, Msg: "an empty entry in the list"}
		}
	}
	return nil
}

// checkSize range-checks a size read from text.
func (d Decl) checkSize(n float64, text string) (any, error) {
	lowOK := n > d.Min || (!d.MinOpen && n == d.Min)
	highOK := n < d.Max || (!d.MaxOpen && n == d.Max)
	if !lowOK || !highOK {
		return nil, &Error{Key: d.Key, Msg: fmt.Sprintf("%s is %.0f bytes: want %s", text, n, d.Range())}
	}
	return int(n), nil
}

// Put writes a value Decode or ParseText returned into the struct ptr
// points to.
func (d Decl) Put(ptr any, x any) {
	if d.Kind.Numeric() {
		d.Set(ptr, x.(float64))
		return
	}
	f := reflect.ValueOf(ptr).Elem().FieldByIndex(d.field)
	f.Set(reflect.ValueOf(x).Convert(f.Type()))
}

// Take reads the parameter's value from the struct ptr points to, as Put
// takes it.
func (d Decl) Take(ptr any) any {
	if d.Kind.Numeric() {
		return d.Get(ptr)
	}
	return reflect.ValueOf(ptr).Elem().FieldByIndex(d.field).Interface()
}

// Show writes a value as a flag would take it: numbers as Format does,
// lists comma-separated.
func (d Decl) Show(x any) string {
	switch v := x.(type) {
	case float64:
		return d.Format(v)
	case []string:
		return strings.Join(v, ",")
	case []int:
		p := make([]string, len(v))
		for i, n := range v {
			p[i] = strconv.Itoa(n)
		}
		return strings.Join(p, "x")
	case int:
		return strconv.Itoa(v)
	case string:
		return v
	}
	return fmt.Sprint(x)
}

// DefaultText is the default of the parameter as help texts show it:
// what leaving it out means (Unset), else its value in the struct of
// defaults ptr points to.
func (d Decl) DefaultText(defaults any) string {
	if d.Unset != "" {
		return d.Unset
	}
	return d.Show(d.Take(defaults))
}

// rangeOther describes the values of the kinds that are no numbers.
func (d Decl) rangeOther() string {
	switch d.Kind {
	case String:
		if len(d.Values) > 0 {
			return "one of " + strings.Join(d.Values, ", ")
		}
		return "text"
	case Strings:
		return "a list of names"
	case Path:
		return "a file path"
	case Ints:
		return "a list of integers"
	case Size:
		return fmt.Sprintf("a size in [%.0f, %.0f] bytes: a number, or with a unit (B, KB, KiB, MiB, MTU), e.g. 2048, \"2KiB\", \"10MTU\"", d.Min, d.Max)
	}
	return ""
}

// ParseSize reads a number of bytes: a whole number, optionally with a
// unit B, KB, KiB, MiB or MTU (mtu bytes); case does not matter.
func ParseSize(s string, mtu int) (int, error) {
	t := strings.TrimSpace(strings.ToUpper(s))
	mult := 1
	for _, u := range []struct {
		suffix string
		m      int
	}{{"MTU", mtu}, {"KIB", 1024}, {"KB", 1000}, {"MIB", 1 << 20}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.m
			break
		}
	}
	n, err := strconv.Atoi(t)
	if err != nil || n <= 0 || mult <= 0 {
		return 0, fmt.Errorf("size %q: want a positive number of bytes, KiB or MTU", s)
	}
	if n > math.MaxInt32/mult {
		return 0, fmt.Errorf("size %q: more than %d bytes", s, math.MaxInt32)
	}
	return n * mult, nil
}

// SetText reads "key=value,key=value" (a flag such as sim --hw) against
// decls and sets each value in the struct target points to. A key may be
// given once.
func SetText(s string, decls []Decl, target any) error {
	seen := map[string]bool{}
	for _, kv := range strings.Split(s, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return fmt.Errorf("%q: want key=value", kv)
		}
		d, known := Find(decls, k)
		if !known {
			return fmt.Errorf("unknown key %q (known: %s)", k, strings.Join(Keys(decls), ", "))
		}
		if seen[k] {
			return fmt.Errorf("%s given twice", k)
		}
		seen[k] = true
		x, err := d.ParseText(v, Env{})
		if err != nil {
			return err
		}
		d.Put(target, x)
	}
	return nil
}
