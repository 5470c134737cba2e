package docscheck

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/graft-project/graft/graft"
)

var placeholderRE = regexp.MustCompile(`<[^>]*>`)

// normPath replaces each <placeholder> of a path by "<>": the docs and the
// owners' doc.go name them differently (<id>, <name>, <hostSessionId>).
func normPath(p string) string { return placeholderRE.ReplaceAllString(p, "<>") }

// pathRE matches the paths a path pattern stands for.
func pathRE(p string) *regexp.Regexp {
	q := regexp.QuoteMeta(normPath(p))
	return regexp.MustCompile("^" + strings.ReplaceAll(q, "<>", `[^/]+`) + "$")
}

// top is a path's entry in the home: "sessions/" or "catalog.db".
func top(p string) string {
	if i := strings.Index(p, "/"); i >= 0 {
		return p[:i+1]
	}
	return p
}

// layoutEntry is one path of a layout listing.
type layoutEntry struct {
	line  int
	path  string
	owner string // DESIGN: the file the owner cell links to, from the module root
}

func checkLayout(c *checker, ds *docs, k *code) {
	f := k.flow
	// README: the block after "Data lives in `--home`".
	d := ds.readme
	var readme []layoutEntry
	line, m := d.findLine(d.all(), regexp.MustCompile("^Data lives in `--home`"))
	if c.fact("layout", d, 0, m != nil, "no \"Data lives in `--home`\"") {
		blocks := d.codeBlocks(span{line, len(d.lines)})
		if c.fact("layout", d, line, len(blocks) > 0, "no code block after it") {
			for i, l := range blocks[0].lines {
				if fs := strings.Fields(l); len(fs) > 0 {
					readme = append(readme, layoutEntry{line: blocks[0].line + 1 + i, path: fs[0]})
				}
			}
		}
		checkHomeChain(c, d, line, k, true)
	}
	// DESIGN §3: the table.
	dd := ds.design
	var design []layoutEntry
	sec, ok := dd.section("3. On disk")
	if c.fact("layout", dd, 0, ok, `no section "3. On disk"`) {
		t, ok := dd.table(sec, "path", "what", "owner")
		if c.fact("layout", dd, sec.from, ok, `no table "| path | what | owner |"`) {
			for _, row := range t.rows {
				links := dd.links(span{row.line, row.line})
				owner := ""
				if len(links) > 0 {
					owner = filepath.ToSlash(filepath.Clean(filepath.Join("docs", links[len(links)-1].target)))
				}
				for _, p := range codeSpans(row.cells[0]) {
					design = append(design, layoutEntry{line: row.line, path: p, owner: owner})
				}
			}
		}
		line, _ := dd.findLine(sec, regexp.MustCompile("^Everything lives in one home directory"))
		checkHomeChain(c, dd, line, k, false)
		checkSymlinkList(c, dd, sec, k, design)
	}
	if len(readme) == 0 || len(design) == 0 {
		c.fact("layout", d, line, false, "found %d paths in the README's block and %d in DESIGN §3's table", len(readme), len(design))
		return
	}

	inDesign := func(p string) bool {
		for _, e := range design {
			if normPath(e.path) == normPath(p) {
				return true
			}
		}
		return false
	}
	tops := func(es []layoutEntry) map[string]bool {
		out := map[string]bool{}
		for _, e := range es {
			out[normPath(top(e.path))] = true
		}
		return out
	}
	rTops, dTops := tops(readme), tops(design)
	for _, e := range readme {
		c.fact("layout", d, e.line, inDesign(e.path), "%s is not in DESIGN §3's table", e.path)
	}
	for _, e := range design {
		if !rTops[normPath(top(e.path))] {
			c.fact("layout", d, line, false, "DESIGN §3's %s is not in the README's block", top(e.path))
			rTops[normPath(top(e.path))] = true // once
		}
	}

	// Each DESIGN path is specified by its owner.
	for _, e := range design {
		b, err := os.ReadFile(filepath.Join(k.root, e.owner))
		c.fact("layout owner", dd, e.line, err == nil && strings.Contains(normPath(string(b)), normPath(e.path)),
			"the owner %s does not name %s (placeholders aside)", e.owner, e.path)
	}

	// What a real flow created: every file and directory is listed, and
	// every entry listed was created (config.toml: the file graft reads).
	matches := func(es []layoutEntry, file string) bool {
		for _, e := range es {
			if pathRE(e.path).MatchString(strings.TrimSuffix(file, "/")) {
				return true
			}
			// a directory on the way to a listed file
			parts := strings.Split(e.path, "/")
			for i := 1; i < len(parts); i++ {
				if strings.HasSuffix(file, "/") && pathRE(strings.Join(parts[:i], "/")+"/").MatchString(file) {
					return true
				}
			}
		}
		return false
	}
	createdTops := map[string]bool{}
	for _, file := range f.files {
		c.fact("layout", dd, sec.from, matches(design, file), "the flow (gen, prepare, commit, export, import, handoff, hook, recall, an append after a torn line, a rebuilt catalog) created %s in the home, and DESIGN §3's table has no path for it", file)
		if t := top(file); !createdTops[t] {
			createdTops[t] = true
			c.fact("layout", d, line, matches(readme, t), "the flow created %s in the home, and the README's block does not list it", t)
		}
	}
	r := k.run(f.env, f.cwd, "config", "--json")
	var cfg struct{ File string }
	_ = json.Unmarshal([]byte(r.stdout), &cfg)
	for _, es := range []struct {
		d  *mdDoc
		ts map[string]bool
		es []layoutEntry
	}{{d, rTops, readme}, {dd, dTops, design}} {
		for _, e := range es.es {
			t := top(e.path)
			created := false
			for ct := range createdTops {
				created = created || pathRE(t).MatchString(ct) || (strings.HasSuffix(t, "/") && ct == t)
			}
			if t == "config.toml" {
				created = cfg.File == filepath.Join(f.home, "config.toml")
			}
			c.fact("layout", es.d, e.line, created, "the flow created nothing at %s (config.toml: graft config --json reads %q)", t, cfg.File)
		}
	}

	// Outside the home: the host transcripts an export writes.
	for _, dx := range []*mdDoc{ds.readme, ds.design} {
		for _, s := range dx.spansOf(dx.all()) {
			host := ""
			switch {
			case strings.HasPrefix(s.text, "$CLAUDE_CONFIG_DIR/projects/"):
				host = "claude-code"
			case strings.HasPrefix(s.text, "$CODEX_HOME/sessions/"):
				host = "codex"
			default:
				continue
			}
			p := strings.NewReplacer("$CLAUDE_CONFIG_DIR", f.env["CLAUDE_CONFIG_DIR"], "$CODEX_HOME", f.env["CODEX_HOME"]).Replace(s.text)
			q := regexp.QuoteMeta(normPath(p))
			q = strings.NewReplacer("<>", `[^/]+`, "YYYY", `\d{4}`, "MM", `\d{2}`, "DD", `\d{2}`).Replace(q)
			got := f.exported[host]
			c.fact("export path", dx, s.line, regexp.MustCompile("^"+q+"$").MatchString(got), "graft export %s wrote %s, which is not %s", host, got, s.text)
		}
	}
}

// checkHomeChain compares where the home is, as the document says it
// ("--home (default `$GRAFT_HOME`, else …)" or "`--home`, else
// `$GRAFT_HOME`, else …"), with graft --help's "Data lives in --home
// (default $GRAFT_HOME, else …)".
func checkHomeChain(c *checker, d *mdDoc, line int, k *code, parenthesised bool) {
	if !c.fact("home chain", d, 0, line > 0, "no sentence saying where the home is") {
		return
	}
	chain := func(text, start, end string) []string {
		i := strings.Index(text, start)
		if i < 0 {
			return nil
		}
		text = text[i+len(start):]
		if j := strings.Index(text, end); j >= 0 {
			text = text[:j]
		}
		var out []string
		for _, p := range strings.Split(strings.ReplaceAll(text, "`", ""), ", else ") {
			out = append(out, strings.Join(strings.Fields(p), " "))
		}
		return out
	}
	help := strings.Join(strings.Fields(k.rootHelp), " ")
	want := chain(help, "Data lives in --home (default ", ")")
	_, para := d.paragraph(line)
	var got []string
	if parenthesised {
		got = chain(para, "(default ", ")")
	} else {
		got = chain(para+" ", "home directory: `--home`, else ", ". ")
	}
	c.fact("home chain", d, line, len(want) > 0 && strings.Join(got, " | ") == strings.Join(want, " | "),
		"says the home is %q; graft --help: %q", strings.Join(got, ", else "), strings.Join(want, ", else "))
}

// checkSymlinkList: DESIGN §3 names the entries of the home that may not be
// symlinks; each entry of the table is made a symlink in a fresh home, and
// exactly those graft refuses (symlink_refused) are in the list.
func checkSymlinkList(c *checker, d *mdDoc, sec span, k *code, design []layoutEntry) {
	line, m := d.findLine(sec, regexp.MustCompile(`when a directory of the home \(`))
	if !c.fact("symlink list", d, sec.from, m != nil, `no "when a directory of the home (…)"`) {
		return
	}
	_, para := d.paragraph(line)
	para = para[strings.Index(para, "when a directory of the home ("):]
	para = para[:strings.Index(para, "is a symlink")]
	listed := map[string]bool{}
	for _, s := range codeSpans(para) {
		listed[s] = true
	}
	refused := 0
	for _, e := range graft.ExitCodes() {
		if e.Code == "symlink_refused" {
			refused = e.Exit
		}
	}
	seen := map[string]bool{}
	for _, e := range design {
		t := top(e.path)
		if seen[t] || strings.Contains(t, "<") || t == "config.toml" {
			continue
		}
		seen[t] = true
		dir := filepath.Join(k.tmp, "symlink", strings.Trim(t, "./"))
		env := k.isolatedEnv(dir)
		target := filepath.Join(dir, "elsewhere")
		if err := mkdirs(env["HOME"], env["GRAFT_HOME"], target); err != nil {
			c.fact("symlink list", d, line, false, "%v", err)
			continue
		}
		if !strings.HasSuffix(t, "/") {
			target = filepath.Join(target, "file")
			if err := os.WriteFile(target, nil, 0o600); err != nil {
				c.fact("symlink list", d, line, false, "%v", err)
				continue
			}
		}
		if err := os.Symlink(target, filepath.Join(env["GRAFT_HOME"], strings.TrimSuffix(t, "/"))); err != nil {
			c.fact("symlink list", d, line, false, "%v", err)
			continue
		}
		r := k.run(env, "", "status")
		c.fact("symlink list", d, line, (r.exit == refused) == listed[t],
			"%s as a symlink: graft status exited %d (symlink_refused is %d), and the list %s it", t, r.exit, refused, map[bool]string{true: "names", false: "does not name"}[listed[t]])
	}
}
