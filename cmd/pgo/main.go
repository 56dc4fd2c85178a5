// Command pgo writes the profile for profile-guided optimisation of
// cmd/flitsim (`make pgo` runs it): it merges CPU profiles with `go tool
// pprof -proto` and replaces the absolute paths the profiles name (the
// files mapped into the profiled process: the binary, the C library) by
// their base names, which the compiler does not read.
//
//	go run ./cmd/pgo -o cmd/flitsim/default.pgo out/pgo/*.prof
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"flitsim/cmd/internal/pprofstr"
)

func main() {
	out := flag.String("o", "", "the profile to write")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "Usage: pgo -o FILE PROFILE...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *out == "" || flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*out, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "pgo:", err)
		os.Exit(1)
	}
}

func run(out string, profiles []string) error {
	cmd := exec.Command("go", append([]string{"tool", "pprof", "-proto"}, profiles...)...)
	cmd.Stderr = os.Stderr
	merged, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("merging %s: %w", strings.Join(profiles, " "), err)
	}
	clean, err := pprofstr.Map(merged, func(s string) string {
		if filepath.IsAbs(s) {
			return filepath.Base(s)
		}
		return s
	})
	if err != nil {
		return err
	}
	return os.WriteFile(out, clean, 0o644)
}
