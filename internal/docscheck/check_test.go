package docscheck

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/graft-project/graft/internal/testfixtures"
)

// checker counts the facts checked and collects the mismatches.
type checker struct {
	kinds map[string]int
	fails []string
}

func newChecker() *checker { return &checker{kinds: map[string]int{}} }

// fact records one fact of document d, stated at line (0: the document as
// a whole), checked against the code: when ok is false it is a mismatch,
// "doc:line: kind: message". It returns ok.
func (c *checker) fact(kind string, d *mdDoc, line int, ok bool, format string, args ...any) bool {
	c.kinds[kind]++
	if !ok {
		loc := d.name
		if line > 0 {
			loc += ":" + strconv.Itoa(line)
		}
		c.fails = append(c.fails, fmt.Sprintf("%s: %s: %s", loc, kind, fmt.Sprintf(format, args...)))
	}
	return ok
}

func (c *checker) total() int {
	n := 0
	for _, k := range c.kinds {
		n += k
	}
	return n
}

func (c *checker) summary() string {
	var parts []string
	for _, k := range sortedKeys(c.kinds) {
		parts = append(parts, fmt.Sprintf("%s %d", k, c.kinds[k]))
	}
	return strings.Join(parts, ", ")
}

// docs are the documents checked.
type docs struct {
	readme, design, bench *mdDoc
}

func (ds *docs) all() []*mdDoc { return []*mdDoc{ds.readme, ds.design, ds.bench} }

func loadDocs(t *testing.T, root string) *docs {
	t.Helper()
	var ds docs
	for _, x := range []struct {
		p    **mdDoc
		name string
	}{{&ds.readme, "README.md"}, {&ds.design, "docs/DESIGN.md"}, {&ds.bench, "BENCHMARKS.md"}} {
		d, err := readDoc(root, x.name)
		if err != nil {
			t.Fatal(err)
		}
		*x.p = d
	}
	return &ds
}

// checks are the families of facts, by name.
var checks = []struct {
	name string
	fn   func(c *checker, ds *docs, k *code)
}{
	{"cli", checkCLI},
	{"exit-codes", checkExitCodes},
	{"words", checkWords},
	{"crash-points", checkCrashPoints},
	{"mcp", checkMCP},
	{"layout", checkLayout},
	{"config", checkConfig},
	{"hooks", checkHooks},
	{"hosts", checkHosts},
	{"figures", checkFigures},
	{"links", checkLinks},
	{"packages", checkPackages},
	{"limits", checkLimits},
}

func runChecks(ds *docs, k *code, names ...string) *checker {
	c := newChecker()
	for _, ch := range checks {
		if len(names) == 0 || contains(names, ch.name) {
			ch.fn(c, ds, k)
		}
	}
	return c
}

func contains[T comparable](xs []T, x T) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// TestDocsMatchTheCode checks every fact README.md and docs/DESIGN.md state
// about the code (and the labels of BENCHMARKS.md's figures) against the
// code.
func TestDocsMatchTheCode(t *testing.T) {
	k := loadCode(t)
	ds := loadDocs(t, testfixtures.ModuleRoot(t))
	c := runChecks(ds, k)
	for _, f := range c.fails {
		t.Error(f)
	}
	if n := c.total(); n < 300 {
		t.Errorf("only %d facts checked: a parser no longer finds what the documents state", n)
	}
	t.Logf("%d facts checked (%s)", c.total(), c.summary())
}

// TestAChangedFactIsNamed changes one fact on one side, the document's, and
// expects the check to name the document, the line and the fact.
func TestAChangedFactIsNamed(t *testing.T) {
	k := loadCode(t)
	root := testfixtures.ModuleRoot(t)
	for _, tc := range []struct {
		doc, old, new, check string
		want                 string // a substring of the mismatch: "doc:line: kind: …"
	}{
		{"README.md", "`10`–`", "`9`–`", "exit-codes", "exit-code range"},
		{"README.md", "each of the 19 points in `txn.Points`", "each of the 18 points in `txn.Points`", "crash-points", "crash-point count"},
		{"README.md", "| `graft_recall` |", "| `graft_recal` |", "mcp", "MCP tool"},
		{"README.md", "| `budget` |", "| `budgets` |", "config", "config key"},
		{"README.md", "| `PreCompact` |", "| `PreCompacts` |", "hooks", "hook event"},
		{"README.md", "--rebuild-catalog]", "--rebuild-catalogue]", "cli", "CLI flag"},
		{"docs/DESIGN.md", "| `index/<id>.seq` |", "| `index/<id>.sequence` |", "layout", "layout"},
		{"README.md", "crash suite: ", "crash suite passed: ", "figures", "figure label"},
		{"README.md", "(crashtest/suite_test.go)", "(crashtest/suite_tests.go)", "links", "link"},
	} {
		t.Run(tc.check+"/"+tc.want, func(t *testing.T) {
			ds := loadDocs(t, root)
			var d *mdDoc
			for _, x := range ds.all() {
				if x.name == tc.doc {
					d = x
				}
			}
			text := d.text()
			line := 1 + strings.Count(text[:max(strings.Index(text, tc.old), 0)], "\n")
			if !strings.Contains(text, tc.old) {
				t.Fatalf("%s no longer holds %q: pick another fact to change", tc.doc, tc.old)
			}
			*d = *parseDoc(d.name, strings.Replace(text, tc.old, tc.new, 1))
			c := runChecks(ds, k, tc.check)
			prefix := fmt.Sprintf("%s:%d: %s", tc.doc, line, tc.want)
			found := false
			for _, f := range c.fails {
				if strings.HasPrefix(f, prefix) {
					found = true
					t.Logf("named: %s", f)
				}
			}
			if !found {
				sort.Strings(c.fails)
				t.Errorf("changing %q to %q in %s (line %d): no mismatch starting %q; got:\n%s", tc.old, tc.new, tc.doc, line, prefix, strings.Join(c.fails, "\n"))
			}
		})
	}
}
