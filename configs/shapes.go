package configs

import (
	"bytes"
	"fmt"
	"sort"

	"github.com/BurntSushi/toml"
)

// The TOML shapes of the tables a file may hold: one table ([name]) or an
// array of tables ([[name]]).
const (
	oneTable    = "Hash"
	arrayTables = "ArrayHash"
)

// campaignShapes and workloadShapes give the shape of every table of a
// campaign file and of a jobs file. [faults] may be either.
var (
	campaignShapes = map[string][]string{
		"topology": {arrayTables}, "routing": {arrayTables}, "traffic": {arrayTables}, "job": {arrayTables},
		"faults": {oneTable, arrayTables}, "hardware": {oneTable}, "sim": {oneTable}, "fragmentation": {oneTable},
	}
	workloadShapes = map[string][]string{"job": {arrayTables}, "fragmentation": {oneTable}}
)

// checkShapes refuses a table written in the wrong shape (say [[hardware]]
// for [hardware], which would otherwise be read as no table at all) or a
// plain key where a table belongs (sim = 3), before the file is decoded
// into its types. Syntax errors are reported here too.
func checkShapes(data []byte, file string, shapes map[string][]string) error {
	var doc map[string]any
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&doc)
	if err != nil {
		return tomlError(err, file)
	}
	names := make([]string, 0, len(shapes))
	for name := range shapes {
		names = append(names, name)
	}
	sort.Strings(names)
	lines := keyLines(data)
	for _, name := range names {
		got := md.Type(name)
		if got == "" {
			continue
		}
		ok := false
		for _, want := range shapes[name] {
			ok = ok || got == want
		}
		if !ok {
			return &Error{File: file, Line: lines.find(name), Key: name,
				Msg: fmt.Sprintf("want %s, not %s", shapeName(name, shapes[name]), shapeName(name, []string{got}))}
		}
	}
	return nil
}

// shapeName says what TOML shapes look like in a file.
func shapeName(name string, shapes []string) string {
	var s string
	for i, sh := range shapes {
		if i > 0 {
			s += " or "
		}
		switch sh {
		case oneTable:
			s += "a [" + name + "] table"
		case arrayTables:
			s += "[[" + name + "]] tables"
		case "Array":
			s += "an array (" + name + " = [...])"
		default:
			s += "a plain " + sh + " (" + name + " = ...)"
		}
	}
	return s
}
