package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"flitsim/cmd/internal/pprofstr"
)

// TestPGOProfileIsFresh: the profile `go build` optimises flitsim with
// (default.pgo, made by `make pgo`) names no path of the machine that
// recorded it, and still names the code: a function the profile saw hot
// that no longer exists (renamed, moved, removed) is one the compiler can
// no longer optimise by it. A few may go; when more than a tenth of the
// flitsim functions it names are gone, the profile is stale and `make pgo`
// makes it anew.
func TestPGOProfileIsFresh(t *testing.T) {
	data, err := os.ReadFile("default.pgo")
	require.NoError(t, err)
	strs, err := pprofstr.Strings(data)
	require.NoError(t, err)
	have := declaredFuncs(t, repoRoot(t))
	var named, gone []string
	for _, s := range strs {
		require.False(t, filepath.IsAbs(s), "default.pgo names the machine path %q (make pgo removes them)", s)
		keys := funcKeys(s)
		if len(keys) == 0 {
			continue
		}
		named = append(named, s)
		if !slices.ContainsFunc(keys, func(k string) bool { return have[k] }) {
			gone = append(gone, s)
		}
	}
	require.Greater(t, len(named), 100, "default.pgo names too few of flitsim's functions to be its profile")
	require.LessOrEqual(t, 10*len(gone), len(named),
		"default.pgo is stale, run make pgo: %d of the %d flitsim functions it names are gone, e.g. %s",
		len(gone), len(named), strings.Join(gone[:min(len(gone), 5)], ", "))
}

// generic is a function's type arguments as profiles print them.
var generic = regexp.MustCompile(`\[[^\]]*\]`)

// funcKeys turns a function name as a profile gives it (package path,
// dot, receiver and name, then closures: "flitsim/sim.(*simulator).loop.func1")
// into the keys declaredFuncs uses, one of which must be declared:
// "flitsim/sim.simulator.loop", or "flitsim/sim.F" for a function; "a.b"
// after the package is a method b of a value receiver a or a function a
// with a closure b (the closure of an inlined function is named after
// both). The main package is cmd/flitsim. None for strings that name no
// flitsim function (files, other packages, package initialisers).
func funcKeys(s string) []string {
	if !strings.HasPrefix(s, "flitsim/") && !strings.HasPrefix(s, "main.") || strings.HasSuffix(s, ".go") {
		return nil
	}
	slash := strings.LastIndexByte(s, '/')
	dot := strings.IndexByte(s[slash+1:], '.')
	if dot < 0 {
		return nil
	}
	pkg, rest := s[:slash+1+dot], s[slash+1+dot+1:]
	if pkg == "main" {
		pkg = "flitsim/cmd/flitsim"
	}
	rest = strings.TrimSuffix(generic.ReplaceAllString(rest, ""), "-fm")
	parts := strings.Split(rest, ".")
	if parts[0] == "init" || parts[0] == "map" && len(parts) > 1 && parts[1] == "init" {
		return nil
	}
	if strings.HasPrefix(parts[0], "(") && len(parts) > 1 {
		return []string{pkg + "." + strings.Trim(parts[0], "(*)") + "." + parts[1]}
	}
	keys := []string{pkg + "." + parts[0]}
	if len(parts) > 1 {
		keys = append(keys, pkg+"."+parts[0]+"."+parts[1])
	}
	return keys
}

// declaredFuncs lists the functions and methods declared in the
// repository's non-test Go files, by funcKey's keys.
func declaredFuncs(t *testing.T, root string) map[string]bool {
	t.Helper()
	have := map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "out" || d.Name() == "bin" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		pkg := "flitsim/" + filepath.ToSlash(rel)
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			if fn.Recv == nil {
				have[pkg+"."+fn.Name.Name] = true
				continue
			}
			typ := fn.Recv.List[0].Type
			if star, ok := typ.(*ast.StarExpr); ok {
				typ = star.X
			}
			switch x := typ.(type) {
			case *ast.IndexExpr:
				typ = x.X
			case *ast.IndexListExpr:
				typ = x.X
			}
			if id, ok := typ.(*ast.Ident); ok {
				have[pkg+"."+id.Name+"."+fn.Name.Name] = true
			}
		}
		return nil
	})
	require.NoError(t, err)
	return have
}
