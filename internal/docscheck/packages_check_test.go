package docscheck

import (
	"go/ast"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/gen"
	"github.com/graft-project/graft/tape"
)

const module = "github.com/graft-project/graft"

func declares(d ast.Decl, name string) bool {
	fd, ok := d.(*ast.FuncDecl)
	return ok && fd.Recv == nil && fd.Name.Name == name
}

// checkPackages: DESIGN §9's table names every package of the module and
// nothing else; its dependency lines hold (a lower layer imports no higher
// one); §9.1's libraries are the module's requirements, each imported by the
// packages its row names.
func checkPackages(c *checker, ds *docs, k *code) {
	d := ds.design
	ps, err := k.packages()
	if !c.fact("package", d, 0, err == nil, "parsing the module: %v", err) {
		return
	}
	sec, ok := d.section("9. Package layout")
	if !c.fact("package", d, 0, ok, `no section "9. Package layout"`) {
		return
	}
	t, ok := d.table(sec, "package", "owns / does")
	if !c.fact("package", d, sec.from, ok, `no table "| package | owns / does |"`) {
		return
	}
	named := map[string]bool{}
	for _, row := range t.rows {
		for _, s := range codeSpans(row.cells[0]) {
			named[s] = true
			p := ps[s]
			c.fact("package", d, row.line, p != nil && len(p.nonTestFiles().files) > 0, "the module has no package %s", s)
		}
	}
	for _, p := range sortedKeys(ps) {
		if len(ps[p].nonTestFiles().files) == 0 && !named[p] {
			continue // a directory of tests only
		}
		c.fact("package", d, t.line, named[p], "the package %s is not in the table", p)
	}

	// The dependency lines: "vfs ← session ← {lockfile, journal, …}".
	imports := func(p string) map[string]bool {
		if src := ps[p]; src != nil {
			return src.nonTestFiles().imports()
		}
		return nil
	}
	groups := func(s string) []string {
		s = strings.Trim(strings.TrimSpace(s), "{}")
		var out []string
		for _, n := range strings.Split(s, ",") {
			n = strings.TrimSpace(n)
			switch {
			case n == "…" || n == "":
			case strings.HasSuffix(n, "/*"):
				for _, p := range sortedKeys(ps) {
					if strings.HasPrefix(p, strings.TrimSuffix(n, "*")) {
						out = append(out, p)
					}
				}
			default:
				out = append(out, n)
			}
		}
		return out
	}
	for _, b := range d.codeBlocks(sec) {
		if len(b.lines) == 0 || !strings.Contains(b.lines[0], "←") {
			continue
		}
		for i, l := range b.lines {
			line := b.line + 1 + i
			for _, part := range strings.Split(l, ";") {
				layers := strings.Split(part, "←")
				for j := 0; j+1 < len(layers); j++ {
					lower, higher := groups(layers[j]), groups(layers[j+1])
					for _, lo := range lower {
						if !c.fact("package dependency", d, line, ps[lo] != nil, "the module has no package %s", lo) {
							continue
						}
						for _, hi := range higher {
							c.fact("package dependency", d, line, !imports(lo)[module+"/"+hi], "%s imports %s, which the line puts above it", lo, hi)
						}
					}
				}
			}
		}
	}

	// §9.1 Libraries.
	sec, ok = d.section("9.1 Libraries")
	if !c.fact("library", d, 0, ok, `no section "9.1 Libraries"`) {
		return
	}
	t, ok = d.table(sec, "library", "used for")
	if !c.fact("library", d, sec.from, ok, `no table "| library | used for |"`) {
		return
	}
	gomod, err := os.ReadFile(filepath.Join(k.root, "go.mod"))
	if !c.fact("library", d, sec.from, err == nil, "%v", err) {
		return
	}
	required, direct := map[string]bool{}, map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\s+(\S+) v\S+( // indirect)?$`).FindAllStringSubmatch(string(gomod), -1) {
		required[m[1]] = true
		if m[2] == "" {
			direct[m[1]] = true
		}
	}
	listed := map[string]bool{}
	for _, row := range t.rows {
		libs := codeSpans(row.cells[0])
		if !c.fact("library", d, row.line, len(libs) == 1, "the row names %d libraries", len(libs)) {
			continue
		}
		lib := libs[0]
		listed[lib] = true
		mod := ""
		for r := range required {
			if lib == r || strings.HasPrefix(lib, r+"/") {
				mod = r
			}
		}
		c.fact("library", d, row.line, mod != "", "go.mod requires no module of %s", lib)
		listed[mod] = true
		// The packages the row names import it.
		for _, s := range codeSpans(row.cells[1]) {
			p, _, _ := strings.Cut(s, ".")
			if ps[p] == nil || len(ps[p].nonTestFiles().files) == 0 {
				continue
			}
			uses := false
			for im := range ps[p].imports() {
				uses = uses || im == lib || strings.HasPrefix(im, lib+"/")
			}
			c.fact("library", d, row.line, uses, "the package %s does not import %s", p, lib)
		}
	}
	for _, lib := range sortedKeys(direct) {
		c.fact("library", d, t.line, listed[lib], "go.mod requires %s, which the table does not list", lib)
	}
}

// checkLimits: numbers the documents give for limits the code sets.
func checkLimits(c *checker, ds *docs, k *code) {
	seed, _ := gen.PresetOptions(gen.PresetSeed)
	for _, x := range []struct {
		d     *mdDoc
		re    string
		want  []int
		about string
	}{
		{ds.readme, `a ([\d,]+)-character budget`, []int{tape.DefaultBudget}, "tape.DefaultBudget"},
		{ds.design, `default\s+([\d,]+), allowed ([\d,]+)–([\d,]+)\)`, []int{tape.DefaultBudget, tape.MinBudget, tape.MaxBudget}, "tape.DefaultBudget, MinBudget, MaxBudget"},
		{ds.design, "keeps the first\\s+([\\d,]+) \\(`tape.MaxConstraints`\\)", []int{tape.MaxConstraints}, "tape.MaxConstraints"},
		{ds.design, "`recentTurns: N` \\((\\d+)–(\\d+)\\)", []int{1, tape.MaxRecentTurns}, "1 to tape.MaxRecentTurns"},
		{ds.readme, `generate a ([\d,]+)-event session`, []int{seed.Events}, "gen's seed preset (make demo runs gen --preset seed)"},
		{ds.design, `with a timeout \((\d+) s, then`, []int{int(catalog.DefaultTimeout / time.Second)}, "catalog.DefaultTimeout"},
	} {
		line, m := findPara(x.d, regexp.MustCompile(x.re))
		if m == nil {
			line, m = x.d.findLine(x.d.all(), regexp.MustCompile(x.re)) // a comment in a code block
		}
		if !c.fact("limit", x.d, 0, m != nil, "no text matches %q", x.re) {
			continue
		}
		for i, w := range x.want {
			c.fact("limit", x.d, line, atoi(m[i+1]) == w, "says %s; %s: %d", m[i+1], x.about, w)
		}
	}
	demo, err := os.ReadFile(filepath.Join(k.root, "scripts", "demo.sh"))
	c.fact("limit", ds.readme, 0, err == nil && strings.Contains(string(demo), `gen demo --preset seed`), "scripts/demo.sh (make demo) does not run gen --preset seed")

	// Session ids: DESIGN §3's pattern is the code's.
	d := ds.design
	line, m := findPara(d, regexp.MustCompile("Session ids \\(and txn ids\\) match `([^`]+)`"))
	if c.fact("limit", d, 0, m != nil, "no \"Session ids (and txn ids) match `…`\"") {
		c.fact("limit", d, line, k.codeLiterals()[m[1]], "the code has no pattern %s (session.ValidID)", m[1])
	}
}

// findPara finds re in the document's paragraphs (lines joined), returning
// the line the match starts on.
func findPara(d *mdDoc, re *regexp.Regexp) (int, []string) {
	for i := 1; i <= len(d.lines); i++ {
		if d.code[i-1] || strings.TrimSpace(d.line(i)) == "" || (i > 1 && strings.TrimSpace(d.line(i-1)) != "" && !d.code[i-2]) {
			continue
		}
		from, para := d.paragraph(i)
		if loc := re.FindStringSubmatchIndex(para); loc != nil {
			line := from
			n := 0
			for j := from; j <= len(d.lines); j++ {
				n += len(d.line(j)) + 1
				if n > loc[0] {
					line = j
					break
				}
			}
			m := re.FindStringSubmatch(para)
			return line, m
		}
	}
	return 0, nil
}
