package configs

import (
	"bytes"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"flitsim/fabric"
)

// HardwareOverrides reads the value of a --hw flag, "key=value,…" with the
// keys of a campaign's [hardware] table (link_gbps=56, switch_latency=100ns),
// and returns the default hardware with those values, validated. flag names
// the flag in errors.
func HardwareOverrides(flag, s string) (fabric.Hardware, error) {
	var doc strings.Builder
	doc.WriteString("[hardware]\n")
	for _, kv := range strings.Split(s, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || v == "" {
			return fabric.Hardware{}, fmt.Errorf("%s: %q: want key=value", flag, kv)
		}
		if strings.ContainsAny(k, " \t\"'[]=.#") {
			return fabric.Hardware{}, fmt.Errorf("%s: %q is not a key", flag, k)
		}
		if stringKey(k) || !isTOMLValue(v) {
			v = strconv.Quote(v) // durations such as 100ns are strings in TOML
		}
		fmt.Fprintf(&doc, "%s = %s\n", k, v)
	}
	var c struct {
		Hardware HardwareEntry `toml:"hardware"`
	}
	md, err := toml.NewDecoder(bytes.NewReader([]byte(doc.String()))).Decode(&c)
	if err != nil {
		msg := err.Error()
		if m := reTOMLErr.FindStringSubmatch(msg); m != nil {
			msg = m[2] + ": " + m[3]
		}
		return fabric.Hardware{}, fmt.Errorf("%s: %s", flag, msg)
	}
	if und := md.Undecoded(); len(und) > 0 {
		k := und[0].String()
		return fabric.Hardware{}, fmt.Errorf("%s: unknown key %q%s", flag, strings.TrimPrefix(k, "hardware."), suggest(k))
	}
	camp := Campaign{Hardware: c.Hardware}
	hw, err := camp.hardware()
	if err != nil {
		return fabric.Hardware{}, fmt.Errorf("%s: %w", flag, err)
	}
	return hw, nil
}

// stringKey reports whether the [hardware] key k takes a string (a
// duration), so that hiccup=0 means the string "0".
func stringKey(k string) bool {
	t := reflect.TypeOf(HardwareEntry{})
	for i := 0; i < t.NumField(); i++ {
		if f := t.Field(i); f.Tag.Get("toml") == k {
			return f.Type.Kind() == reflect.String
		}
	}
	return false
}

// isTOMLValue reports whether v is a bare TOML number or boolean.
func isTOMLValue(v string) bool {
	if v == "true" || v == "false" {
		return true
	}
	_, err := strconv.ParseFloat(v, 64)
	return err == nil
}
