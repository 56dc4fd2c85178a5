package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// repoRoot is the folder holding go.mod, found upwards from the test's
// working directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	require.NoError(t, err)
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		require.NotEqual(t, d, filepath.Dir(d), "no go.mod above %s", wd)
	}
}

// repoFiles lists the repository's tracked files (git ls-files), or every
// file under root when there is no git checkout.
func repoFiles(t *testing.T, root string) []string {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = root
	if out, err := cmd.Output(); err == nil {
		var files []string
		for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
			if f != "" {
				files = append(files, f)
			}
		}
		return files
	}
	var files []string
	require.NoError(t, filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "out" || d.Name() == "bin") {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			files = append(files, rel)
		}
		return nil
	}))
	return files
}

// Paths of one machine, and the workspace folders beside the repository
// that a clone elsewhere does not have. Built from pieces so that this
// file does not match itself.
var (
	machinePath = regexp.MustCompile(`(^|[\s"'(\x60=:])/(` + strings.Join([]string{"work", "root", "home", "Users", "mnt"}, "|") + `)/`)
	besidePath  = regexp.MustCompile(`\b` + "shared" + `/(tools|notes|seeds/0|hooks|DESIGN|STYLE)`)
	upPath      = regexp.MustCompile(`(?:\.\./)+[A-Za-z0-9_.-]+`)
)

// TestNoPathOutsideTheRepository: no tracked file refers to a path
// outside the repository (a relative path that climbs above its root, a
// folder of the workspace beside it, or an absolute path of one machine).
// A clone in an empty folder must be able to run its tests and CI, and
// its documents name files by their path in the repository.
func TestNoPathOutsideTheRepository(t *testing.T) {
	root := repoRoot(t)
	files := repoFiles(t, root)
	require.NotEmpty(t, files)
	var bad []string
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil || bytes.IndexByte(data, 0) >= 0 || strings.Contains(f, "testdata/fuzz/") {
			continue // gone from the work tree, binary, or a fuzzer's input
		}
		for i, line := range strings.Split(string(data), "\n") {
			where := f + ":" + strconv.Itoa(i+1)
			if m := machinePath.FindString(line); m != "" {
				bad = append(bad, where+": machine path "+strings.TrimSpace(m)+"…")
			}
			if m := besidePath.FindString(line); m != "" {
				bad = append(bad, where+": workspace folder "+m)
			}
			for _, m := range upPath.FindAllString(line, -1) {
				abs := filepath.Join(root, filepath.Dir(f), m)
				if rel, err := filepath.Rel(root, abs); err != nil || strings.HasPrefix(rel, "..") {
					bad = append(bad, where+": "+m+" climbs out of the repository")
				}
			}
		}
	}
	if len(bad) > 20 {
		bad = append(bad[:20], "…")
	}
	require.Empty(t, bad, "tracked files refer to paths outside the repository:\n%s", strings.Join(bad, "\n"))
}
