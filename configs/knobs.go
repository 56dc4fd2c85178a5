package configs

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"flitsim/fabric"
	"flitsim/fabric/param"
	"flitsim/sim"
)

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
	if err := c.decodeTable("hardware", c.Hardware, fabric.HardwareParams(), &hw); err != nil {
		return hw, err
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
	return p, c.decodeTable("sim", c.Sim, sim.ParamDecls(), &p)
}

// decodeTable sets the declared parameters of a TOML table m in the struct
// ptr points to, in key order; an unknown key or a bad value is an error at
// its line.
func (c *Campaign) decodeTable(table string, m map[string]any, decls []param.Decl, ptr any) error {
	for _, key := range sortedKeys(m) {
		d, ok := param.Find(decls, key)
		if !ok {
			return c.errAtKey(table+"."+key, -1, "unknown key%s", suggest(table+"."+key))
		}
		x, err := d.Decode(m[key], param.Env{Dir: c.dir})
		if err != nil {
			return c.paramErr(table, err)
		}
		d.Put(ptr, x)
	}
	return nil
}

// paramErr locates a *param.Error at its key in table, or, when
// that key is not in the file but another of an impossible combination
// is, at that one.
func (c *Campaign) paramErr(table string, err error) error {
	var pe *param.Error
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
	hw, err := fabric.HardwareFrom(s)
	if err != nil {
		return hw, fmt.Errorf("%s: %w", flag, err)
	}
	return hw, nil
}

// SimOverrides sets the keys of a [sim] table given as key=value,... on a
// command line (flag names the flag for errors) in p.
func SimOverrides(flag, s string, p *sim.Params) error {
	if err := param.SetText(s, sim.ParamDecls(), p); err != nil {
		return fmt.Errorf("%s: %w", flag, err)
	}
	return nil
}

// KnobHelp describes the keys of the [hardware] and [sim] tables, one per
// line, for help texts.
func KnobHelp() string {
	var b strings.Builder
	for _, t := range Tables() {
		fmt.Fprintf(&b, "[%s]\n", t.Name)
		for _, d := range t.Decls {
			fmt.Fprintf(&b, "  %-20s %s (default %s; %s)\n", d.Key, d.Help, d.DefaultText(t.Defaults), d.Range())
		}
	}
	return b.String()
}

// Table is a campaign table whose keys are declared parameters.
type Table struct {
	Name  string
	Decls []param.Decl
	// Defaults points to a struct holding the defaults (param.Decl.Get).
	Defaults any
}

// Tables lists the campaign tables of declared parameters: [hardware]
// (fabric.Hardware) and [sim] (sim.Params).
func Tables() []Table {
	hw := fabric.DefaultHardware()
	p := sim.DefaultParams()
	var t Timed
	param.Defaults(&t)
	return []Table{{"hardware", fabric.HardwareParams(), &hw}, {"sim", sim.ParamDecls(), &p}, {"faults.timed", TimedDecls(), &t}}
}
