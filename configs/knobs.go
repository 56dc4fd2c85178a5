package configs

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"flitsim/fabric"
	"flitsim/sim"
)

// knobValue converts a decoded TOML value for knob k: numbers for numbers
// (integers too), integers for integers, duration strings for durations
// (the integer 0 too), booleans for booleans.
func knobValue(k fabric.Knob, v any) (float64, error) {
	wrong := func() (float64, error) {
		return 0, &fabric.ParamError{Key: k.Key, Msg: fmt.Sprintf("%v (%s): want %s", v, tomlType(v), k.Range())}
	}
	var x float64
	switch k.Kind {
	case fabric.KnobBool:
		b, ok := v.(bool)
		if !ok {
			return wrong()
		}
		if b {
			return 1, nil
		}
		return 0, nil
	case fabric.KnobDuration:
		switch d := v.(type) {
		case string:
			ps, ok := fabric.ParseDurationPs(d)
			if !ok {
				return wrong()
			}
			x = ps
		case int64:
			if d != 0 {
				return 0, &fabric.ParamError{Key: k.Key, Msg: fmt.Sprintf("%d: a duration needs a unit, e.g. \"%dns\"", d, d)}
			}
		default:
			return wrong()
		}
	case fabric.KnobInt:
		n, ok := v.(int64)
		if !ok {
			return wrong()
		}
		x = float64(n)
	default:
		switch n := v.(type) {
		case int64:
			x = float64(n)
		case float64:
			x = n
		default:
			return wrong()
		}
	}
	return x, k.Check(x)
}

func tomlType(v any) string {
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

// sortedKeys returns a table's keys in order, for deterministic errors.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// hardware applies the [hardware] table to the defaults; every error names
// the key's line.
func (c *Campaign) hardware() (fabric.Hardware, error) {
	hw := fabric.DefaultHardware()
	knobs := fabric.HardwareKnobs()
	for _, key := range sortedKeys(c.Hardware) {
		i := findKnob(len(knobs), func(i int) string { return knobs[i].Key }, key)
		if i < 0 {
			return hw, c.errAtKey("hardware."+key, -1, "unknown key%s", suggest("hardware."+key))
		}
		x, err := knobValue(knobs[i].Knob, c.Hardware[key])
		if err != nil {
			return hw, c.paramErr("hardware", err)
		}
		knobs[i].Set(&hw, x)
	}
	if err := hw.Validate(); err != nil {
		return hw, c.paramErr("hardware", err)
	}
	return hw, nil
}

// simBase applies the [sim] table to the default parameters.
func (c *Campaign) simBase() (sim.Params, error) {
	p := sim.DefaultParams()
	p.HW = c.hw
	knobs := sim.Knobs()
	for _, key := range sortedKeys(c.Sim) {
		i := findKnob(len(knobs), func(i int) string { return knobs[i].Key }, key)
		if i < 0 {
			return p, c.errAtKey("sim."+key, -1, "unknown key%s", suggest("sim."+key))
		}
		x, err := knobValue(knobs[i].Knob, c.Sim[key])
		if err != nil {
			return p, c.paramErr("sim", err)
		}
		knobs[i].Set(&p, x)
	}
	return p, nil
}

func findKnob(n int, key func(int) string, want string) int {
	for i := 0; i < n; i++ {
		if key(i) == want {
			return i
		}
	}
	return -1
}

// paramErr locates a *fabric.ParamError at its key in table, or, when
// that key is not in the file but another of an impossible combination
// is, at that one.
func (c *Campaign) paramErr(table string, err error) error {
	var pe *fabric.ParamError
	if !errors.As(err, &pe) {
		return c.errAtKey(table, -1, "%v", err)
	}
	m := c.Hardware
	if table == "sim" {
		m = c.Sim
	}
	key := pe.Key
	if _, set := m[key]; !set {
		for _, k := range pe.Also {
			if _, ok := m[k]; ok {
				key = k
				break
			}
		}
	}
	msg := pe.Msg
	if key != pe.Key {
		msg = pe.Key + " " + msg
	}
	return c.errAtKey(table+"."+key, -1, "%s", msg)
}

// HardwareOverrides reads the value of a --hw flag, "key=value,…" with the
// keys of a campaign's [hardware] table (link_gbps=56,switch_latency=100ns),
// and returns the default hardware with those values, validated. flag names
// the flag in errors.
func HardwareOverrides(flag, s string) (fabric.Hardware, error) {
	hw := fabric.DefaultHardware()
	knobs := fabric.HardwareKnobs()
	seen := map[string]bool{}
	for _, kv := range strings.Split(s, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return hw, fmt.Errorf("%s: %q: want key=value", flag, kv)
		}
		i := findKnob(len(knobs), func(i int) string { return knobs[i].Key }, k)
		if i < 0 {
			var names []string
			for _, kn := range knobs {
				names = append(names, kn.Key)
			}
			return hw, fmt.Errorf("%s: unknown key %q (known: %s)", flag, k, strings.Join(names, ", "))
		}
		if seen[k] {
			return hw, fmt.Errorf("%s: %s given twice", flag, k)
		}
		seen[k] = true
		x, err := fabric.ParseKnob(knobs[i].Knob, v)
		if err != nil {
			return hw, fmt.Errorf("%s: %w", flag, err)
		}
		knobs[i].Set(&hw, x)
	}
	if err := hw.Validate(); err != nil {
		return hw, fmt.Errorf("%s: %w", flag, err)
	}
	return hw, nil
}

// KnobHelp describes the keys of the [hardware] and [sim] tables, one per
// line, for help texts.
func KnobHelp() string {
	var b strings.Builder
	hw := fabric.DefaultHardware()
	b.WriteString("[hardware]\n")
	for _, k := range fabric.HardwareKnobs() {
		fmt.Fprintf(&b, "  %-20s %s (default %s; %s)\n", k.Key, k.Help, k.Format(k.Get(&hw)), k.Range())
	}
	p := sim.DefaultParams()
	b.WriteString("[sim]\n")
	for _, k := range sim.Knobs() {
		fmt.Fprintf(&b, "  %-20s %s (default %s; %s)\n", k.Key, k.Help, k.Format(k.Get(&p)), k.Range())
	}
	return b.String()
}
