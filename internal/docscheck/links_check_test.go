package docscheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

var testFuncRE = regexp.MustCompile("^`?((?:Test|Fuzz|Benchmark)[A-Za-z0-9_]*)`?$")

// testLinks returns the links of a piece of text that point to a test: a
// _test.go file or a CLI script (.txtar).
func testLinks(ls []mdLink) []mdLink {
	var out []mdLink
	for _, l := range ls {
		if strings.HasSuffix(l.target, "_test.go") || strings.HasSuffix(l.target, ".txtar") {
			out = append(out, l)
		}
	}
	return out
}

// checkLinks: every relative link of the documents resolves (a file, and
// a heading for an anchor); a link named after a test function points to
// a file that declares it; each guarantee the README makes (the bullets of
// "Crash guarantees", the rows of the crash suite's table, the claims that
// the suite can fail) links to the test that proves it.
func checkLinks(c *checker, ds *docs, k *code) {
	anchors := map[string]map[string]bool{}
	for _, d := range ds.all() {
		anchors[d.name] = d.anchors()
	}
	for _, d := range ds.all() {
		base := filepath.Dir(d.name)
		for _, l := range d.links(d.all()) {
			if strings.Contains(l.target, "://") || strings.HasPrefix(l.target, "mailto:") {
				continue
			}
			target := d.name
			if l.target != "" {
				target = filepath.ToSlash(filepath.Clean(filepath.Join(base, l.target)))
				_, err := os.Stat(filepath.Join(k.root, target))
				if !c.fact("link", d, l.line, err == nil, "[%s](%s): %s does not exist", l.text, l.target, target) {
					continue
				}
			}
			if l.anchor != "" && strings.HasSuffix(target, ".md") {
				a, ok := anchors[target]
				if !ok {
					if td, err := readDoc(k.root, target); err == nil {
						a = td.anchors()
					}
				}
				c.fact("link", d, l.line, a[l.anchor], "[%s](%s#%s): %s has no heading #%s", l.text, l.target, l.anchor, target, l.anchor)
			}
			if m := testFuncRE.FindStringSubmatch(l.text); m != nil {
				src, err := parsePackage(filepath.Join(k.root, filepath.Dir(target)), true)
				ok := err == nil && strings.HasSuffix(target, "_test.go")
				if ok {
					ok = false
					for i, name := range src.names {
						if name == filepath.Base(target) {
							for _, dcl := range src.files[i].Decls {
								ok = ok || declares(dcl, m[1])
							}
						}
					}
				}
				c.fact("test link", d, l.line, ok, "%s does not declare %s", target, m[1])
			}
		}
	}

	// Each guarantee links to its test.
	d := ds.readme
	if sec, ok := d.section("Crash guarantees"); c.fact("guarantee test", d, 0, ok, `no section "Crash guarantees"`) {
		n := 0
		for i := sec.from; i <= sec.to; i++ {
			if !strings.HasPrefix(d.line(i), "* ") {
				continue
			}
			n++
			end := i
			for end < sec.to && strings.HasPrefix(d.line(end+1), "  ") {
				end++
			}
			c.fact("guarantee test", d, i, len(testLinks(d.links(span{i, end}))) > 0, "the guarantee %q links to no test", clipText(d.line(i), 60))
		}
		c.fact("guarantee test", d, sec.from, n >= 3, "found %d guarantees", n)
	}
	if sec, ok := d.section("The crash suite"); c.fact("guarantee test", d, 0, ok, `no section "The crash suite"`) {
		if t, ok := d.table(sec, "case", "injection", "expected", "test"); c.fact("guarantee test", d, sec.from, ok, `no table "| case | injection | expected | test |"`) {
			for _, row := range t.rows {
				c.fact("guarantee test", d, row.line, len(testLinks(d.links(span{row.line, row.line}))) > 0, "the case %q links to no test", row.cells[0])
			}
		}
		line, _ := d.findLine(sec, regexp.MustCompile(`^The suite can fail`))
		if c.fact("guarantee test", d, sec.from, line > 0, `no paragraph "The suite can fail …"`) {
			from, _ := d.paragraph(line)
			to := from
			for to < len(d.lines) && strings.TrimSpace(d.line(to+1)) != "" {
				to++
			}
			c.fact("guarantee test", d, line, len(testLinks(d.links(span{from, to}))) >= 4, "the claims that the suite can fail link to fewer than 4 tests")
		}
		line, _ = d.findLine(sec, regexp.MustCompile(`a normal .graft. binary ignores the variable`))
		if c.fact("guarantee test", d, sec.from, line > 0, "no \"a normal `graft` binary ignores the variable\"") {
			c.fact("guarantee test", d, line, len(testLinks(d.links(span{line, line + 1}))) > 0, "the claim that a normal binary ignores GRAFT_CRASH_POINT links to no test")
		}
	}
}

func clipText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
