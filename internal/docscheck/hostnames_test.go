package docscheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/internal/testfixtures"
)

// hostNamesOutside lists where the production code outside the hosts'
// own packages and the registry names a host: a string that is a host's
// name ("codex"), a constant named after one (hosts.Codex,
// hookinstall.ClaudeCode), or an import of a host's package (hosts/codex,
// importer/codex). Comments, tests and the test harnesses (internal/,
// bench/, crashtest/) are not looked at. Each is "file:line: what".
func hostNamesOutside(t *testing.T, root string) []string {
	t.Helper()
	names := map[string]bool{}
	idents := map[string]bool{"ClaudeCode": true, "Codex": true, "Gemini": true, "Qwen": true}
	pkgs := map[string]bool{} // import paths of the hosts' packages
	for _, a := range hosts.Adapters() {
		names[string(a.Name())] = true
		idents[strings.ReplaceAll(a.Title(), " ", "")] = true
		pkgs[pkgPath(a)] = true
		if m := a.Mapper(); m != nil {
			pkgs[pkgPath(m)] = true
		}
	}
	const module = "github.com/graft-project/graft/"
	own := map[string]bool{"hosts/registry.go": true} // files that may name hosts
	skipDirs := map[string]bool{"internal": true, "bench": true, "crashtest": true, "testdata": true}
	for p := range pkgs {
		if !strings.HasPrefix(p, module) {
			t.Fatalf("a host's package %s is not graft's", p)
		}
		skipDirs[strings.TrimPrefix(p, module)] = true
	}

	var hits []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (skipDirs[rel] || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || own[rel] {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution) // no comments
		if err != nil {
			return err
		}
		hit := func(n ast.Node, what string) {
			hits = append(hits, rel+":"+strconv.Itoa(fset.Position(n.Pos()).Line)+": "+what)
		}
		for _, im := range f.Imports {
			if p, err := strconv.Unquote(im.Path.Value); err == nil && pkgs[p] {
				hit(im, "imports "+p)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ImportSpec:
				return false // seen above
			case *ast.BasicLit:
				if s, err := strconv.Unquote(n.Value); n.Kind == token.STRING && err == nil && names[s] {
					hit(n, n.Value)
				}
			case *ast.SelectorExpr:
				if idents[n.Sel.Name] {
					if x, ok := n.X.(*ast.Ident); ok {
						hit(n, x.Name+"."+n.Sel.Name)
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(hits)
	return hits
}

// pkgPath is the import path of the package that declares v's type.
func pkgPath(v any) string {
	ty := reflect.TypeOf(v)
	for ty.Kind() == reflect.Pointer {
		ty = ty.Elem()
	}
	return ty.PkgPath()
}

// Shared code asks a host's adapter what the host does (hosts/adapter:
// Hooks, MCPRegistrar, HookTruster, …) and never compares names: outside
// its own package and the registry, a host is named only in docs, comments
// and tests.
func TestNoHostNamedOutsideItsPackage(t *testing.T) {
	hits := hostNamesOutside(t, testfixtures.ModuleRoot(t))
	for _, h := range hits {
		t.Errorf("%s: shared code names a host; ask its adapter instead (hosts/adapter)", h)
	}
}

// The check finds each way of naming a host in code, and none in a
// comment, a test or a host's own package.
func TestNoHostNamedCatchesOne(t *testing.T) {
	root := t.TempDir()
	write := func(rel, src string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("shared/a.go", `package shared

import "github.com/graft-project/graft/hosts/codex"

// Only "codex" does this: a comment may name it.
func f(host string) bool {
	_ = codex.Name
	return host == "gemini" || host == string(hosts.ClaudeCode)
}
`)
	write("shared/a_test.go", "package shared\n\nvar _ = \"qwen\"\n")
	write("hosts/codex/x.go", "package codex\n\nvar _ = \"codex\"\n")
	write("hosts/registry.go", "package hosts\n\nconst Codex = codex.Name\n")
	got := strings.Join(hostNamesOutside(t, root), "\n")
	want := strings.Join([]string{
		"shared/a.go:3: imports github.com/graft-project/graft/hosts/codex",
		`shared/a.go:8: "gemini"`,
		"shared/a.go:8: hosts.ClaudeCode",
	}, "\n")
	if got != want {
		t.Fatalf("found\n%s\nwant\n%s", got, want)
	}
}
