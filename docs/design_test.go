package docs

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/graft-project/graft/txn"
)

// heading is a numbered Markdown heading: "## 6. The transaction",
// "### 6.1 Points that are easy to get wrong".
var heading = regexp.MustCompile(`(?m)^#{1,6}[ \t]+(\d+(?:\.\d+)*)\.?[ \t]`)

// citation is "DESIGN §n" or "DESIGN.md §n", with n like 6 or 6.1; a
// comment may wrap between the name and the section sign.
var citation = regexp.MustCompile(`DESIGN(?:\.md)?[\s/#]*§[ \t]*(\d+(?:\.\d+)*)`)

// link is a relative Markdown link target.
var link = regexp.MustCompile(`\]\(([^)#:\s]+)(?:#[^)\s]*)?\)`)

// skipDirs are not walked (paths from the module root): the real host
// transcripts (third-party text) and build outputs. Hidden directories
// (.git) and node_modules are skipped wherever they are.
var skipDirs = map[string]bool{"testdata/fixtures": true, "bin": true, "build": true}

// sections returns the section numbers of the numbered headings of md.
func sections(md string) map[string]bool {
	out := map[string]bool{}
	for _, m := range heading.FindAllStringSubmatch(md, -1) {
		out[m[1]] = true
	}
	return out
}

type cite struct {
	file    string
	line    int
	section string
}

// citations returns every citation in the .go, .txtar and .md files of fsys.
func citations(fsys fs.FS) ([]cite, error) {
	var out []cite
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && (skipDirs[p] || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
				return fs.SkipDir
			}
			return nil
		}
		switch path.Ext(p) {
		case ".go", ".txtar", ".md":
		default:
			return nil
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		text := string(b)
		for _, m := range citation.FindAllStringSubmatchIndex(text, -1) {
			line := 1 + strings.Count(text[:m[0]], "\n")
			out = append(out, cite{file: p, line: line, section: text[m[2]:m[3]]})
		}
		return nil
	})
	return out, err
}

// missing returns "file:line: …" (the line where the citation starts) for
// each citation of a section that has no heading.
func missing(cs []cite, have map[string]bool) []string {
	var out []string
	for _, c := range cs {
		if !have[c.section] {
			out = append(out, fmt.Sprintf("%s:%d: cites §%s, but docs/DESIGN.md has no heading numbered %s", c.file, c.line, c.section, c.section))
		}
	}
	return out
}

func TestEveryCitedSectionExists(t *testing.T) {
	md, err := os.ReadFile("DESIGN.md")
	if err != nil {
		t.Fatal(err)
	}
	have := sections(string(md))
	for _, n := range []string{"1", "2", "3", "3.1", "4", "5", "6", "6.1", "7", "8", "9"} {
		if !have[n] {
			t.Errorf("docs/DESIGN.md has no section %s", n)
		}
	}
	if _, err := os.Stat("../go.mod"); err != nil {
		t.Fatalf("the module root is not the parent of docs/: %v", err)
	}
	cs, err := citations(os.DirFS(".."))
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) < 10 {
		t.Fatalf("found %d citations of docs/DESIGN.md in the module; the scan is broken", len(cs))
	}
	for _, m := range missing(cs, have) {
		t.Error(m)
	}
	t.Logf("%d citations of docs/DESIGN.md checked", len(cs))
}

// The checker fails on a citation of a section that does not exist, also
// when a comment wraps between the name and the section.
func TestMissingSectionIsReported(t *testing.T) {
	name := "DESIGN"
	fsys := fstest.MapFS{
		"a/a.go":                   {Data: []byte("package a\n\n// See docs/" + name + ".md §6.1 and " + name + " §9.\n")},
		"b/b.txtar":                {Data: []byte("# wraps: docs/" + name + ".md\n# §12\n")},
		"c/c.md":                   {Data: []byte("ok (" + name + " §6), but not " + name + ".md §6.7.\n")},
		"testdata/fixtures/x.md":   {Data: []byte(name + " §99\n")},
		".git/x.md":                {Data: []byte(name + " §98\n")},
		"testdata/script/drift.md": {Data: []byte(name + " §97\n")},
	}
	cs, err := citations(fsys)
	if err != nil {
		t.Fatal(err)
	}
	got := missing(cs, sections("## 6. T\n### 6.1 P\n## 9. L\n"))
	want := []string{
		"b/b.txtar:1: cites §12, but docs/DESIGN.md has no heading numbered 12",
		"c/c.md:1: cites §6.7, but docs/DESIGN.md has no heading numbered 6.7",
		"testdata/script/drift.md:1: cites §97, but docs/DESIGN.md has no heading numbered 97",
	}
	if !slices.Equal(got, want) {
		t.Errorf("missing:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Every relative link of DESIGN.md names a file that exists.
func TestLinksResolve(t *testing.T) {
	md, err := os.ReadFile("DESIGN.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range link.FindAllStringSubmatch(string(md), -1) {
		if _, err := os.Stat(m[1]); err != nil {
			t.Errorf("DESIGN.md links to %s: %v", m[1], err)
		}
	}
}

// txn/doc.go is the normative text of the protocol (docs/DESIGN.md §6):
// its step tables must name every crash point there is.
func TestTxnDocNamesEveryPoint(t *testing.T) {
	doc, err := os.ReadFile("../txn/doc.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range txn.Points {
		if !strings.Contains(string(doc), string(p)) {
			t.Errorf("txn/doc.go does not name crash point %s", p)
		}
	}
}
