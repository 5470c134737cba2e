package docscheck

import (
	"go/ast"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/txn"
)

var (
	pkgsOnce sync.Once
	pkgs     map[string]*goSource // by import path relative to the module ("session", "importer/codex")
	pkgsErr  error
)

// packages parses every package of the module (test files included; see
// goSource.nonTest), skipping testdata, build outputs, node_modules and
// hidden directories.
func (k *code) packages() (map[string]*goSource, error) {
	pkgsOnce.Do(func() {
		pkgs = map[string]*goSource{}
		pkgsErr = filepath.WalkDir(k.root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(k.root, p)
			rel = filepath.ToSlash(rel)
			n := d.Name()
			if p != k.root && (n == "testdata" || n == "node_modules" || strings.HasPrefix(n, ".") || rel == "bin" || rel == "build") {
				return fs.SkipDir
			}
			src, err := parsePackage(p, true)
			if err != nil {
				return err
			}
			if len(src.files) > 0 {
				pkgs[rel] = src
			}
			return nil
		})
	})
	return pkgs, pkgsErr
}

var (
	literalsOnce sync.Once
	literals     map[string]bool
)

// codeLiterals is every string literal of the module's non-test Go files.
func (k *code) codeLiterals() map[string]bool {
	literalsOnce.Do(func() {
		literals = map[string]bool{}
		ps, err := k.packages()
		if err != nil {
			return
		}
		for _, p := range ps {
			for _, l := range p.nonTestFiles().stringLiterals() {
				literals[l] = true
			}
		}
	})
	return literals
}

// stringConsts returns the string constants of a package whose names start
// with prefix, by value.
func stringConsts(src *goSource, prefix string) map[string]string {
	out := map[string]string{}
	for _, f := range src.files {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, sp := range gd.Specs {
				vs := sp.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if !strings.HasPrefix(n.Name, prefix) || i >= len(vs.Values) {
						continue
					}
					if bl, ok := vs.Values[i].(*ast.BasicLit); ok && bl.Kind == token.STRING {
						if v, err := strconv.Unquote(bl.Value); err == nil {
							out[v] = n.Name
						}
					}
				}
			}
		}
	}
	return out
}

var (
	snakeRE     = regexp.MustCompile(`^[a-z]+(_[a-z]+)+$`)
	eventTypeRE = regexp.MustCompile(`^(user|assistant|tool|todo|subagent|system|graft)/[a-z]+$`)
	pointRE     = regexp.MustCompile(`^(commit|revert)/[a-z-]+(:[a-z]+)?$`)
	envRE       = regexp.MustCompile(`^\$?(GRAFT_[A-Z_]+)`)
)

// checkWords: the code's words the documents quote. A snake_case word in
// backticks is an exit code, an MCP tool, or a string the code uses (a host
// format's field, a todo status); an event type is one of session's; a
// crash point one of txn.Points; a GRAFT_ variable one the code reads.
// DESIGN §3.1's table of event types lists every type and source kind.
func checkWords(c *checker, ds *docs, k *code) {
	ps, err := k.packages()
	if !c.fact("code word", ds.design, 0, err == nil, "parsing the module: %v", err) {
		return
	}
	lits := k.codeLiterals()
	codes := map[string]bool{}
	for _, e := range graft.ExitCodes() {
		codes[string(e.Code)] = true
	}
	tools := map[string]bool{}
	for _, t := range k.tools {
		tools[t.Name] = true
	}
	points := map[string]bool{}
	for _, p := range append(append([]txn.Point{}, txn.Points...), txn.EtcdPoints...) {
		points[string(p)] = true
	}
	types := stringConsts(ps["session"].nonTestFiles(), "Type")
	kinds := stringConsts(ps["session"].nonTestFiles(), "Kind")
	for _, d := range []*mdDoc{ds.readme, ds.design} {
		for _, s := range d.spansOf(d.all()) {
			w := s.text
			switch {
			case snakeRE.MatchString(w):
				c.fact("code word", d, s.line, codes[w] || tools[w] || lits[w],
					"%s is no exit code (graft.ExitCodes), no MCP tool, and no string of the code", w)
			case eventTypeRE.MatchString(w):
				_, ok := types[w]
				c.fact("event type", d, s.line, ok, "%s is no event type of package session", w)
			case pointRE.MatchString(w):
				c.fact("crash point", d, s.line, points[w], "%s is not in txn.Points (nor txn.EtcdPoints)", w)
			}
			if m := envRE.FindStringSubmatch(w); m != nil {
				c.fact("GRAFT_ name", d, s.line, literalWord(lits, m[1]), "no string of the code holds %s (a variable it reads, a line it prints)", m[1])
			}
		}
	}

	d := ds.design
	sec, ok := d.section("3.1 Events")
	if !c.fact("event type", d, 0, ok, `no section "3.1 Events"`) {
		return
	}
	t, ok := d.table(sec, "type", "`source.kind`", "what it is")
	if !c.fact("event type", d, sec.from, ok, "no table \"| type | `source.kind` | what it is |\"") {
		return
	}
	seenT, seenK := map[string]bool{}, map[string]bool{}
	for _, row := range t.rows {
		for _, s := range codeSpans(row.cells[0]) {
			_, ok := types[s]
			c.fact("event type", d, row.line, ok, "%s is no event type of package session", s)
			seenT[s] = true
		}
		for _, s := range codeSpans(row.cells[1]) {
			_, ok := kinds[s]
			c.fact("source kind", d, row.line, ok, "%s is no source kind of package session", s)
			seenK[s] = true
		}
	}
	for _, v := range sortedKeys(types) {
		c.fact("event type", d, t.line, seenT[v], "session.%s (%s) is not in the table", types[v], v)
	}
	for _, v := range sortedKeys(kinds) {
		c.fact("source kind", d, t.line, seenK[v], "session.%s (%s) is not in the table", kinds[v], v)
	}
}

// literalWord: some literal holds w as a whole word.
func literalWord(lits map[string]bool, w string) bool {
	re := regexp.MustCompile(`(^|[^A-Za-z0-9_])` + regexp.QuoteMeta(w) + `($|[^A-Za-z0-9_])`)
	for l := range lits {
		if strings.Contains(l, w) && re.MatchString(l) {
			return true
		}
	}
	return false
}

func mkdirs(dirs ...string) error {
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	return nil
}
