package gen

import (
	"fmt"
	"strings"
)

// toolUse is one tool call and its result before ids and seqs are given.
type toolUse struct {
	name   string
	input  map[string]any
	ok     bool
	output string
}

// randomTool picks a tool the way a coding agent uses them: mostly reads
// and shell, then edits, searches, writes and patches.
func (g *generator) randomTool() toolUse {
	switch r := g.rng.intn(100); {
	case r < 28:
		return g.read(true)
	case r < 54:
		return g.shell()
	case r < 66:
		return g.edit()
	case r < 71:
		return g.multiEdit()
	case r < 78:
		return g.applyPatch()
	case r < 86:
		return g.grep()
	case r < 91:
		return g.glob()
	default:
		return g.write()
	}
}

// bigOutput reports whether this output should be big, and how big: when
// the session is behind its profile's bytes per event.
func (g *generator) bigOutput() (int, bool) {
	if g.est >= int64(g.prof.bytesPerEvent)*(g.seq+2) {
		return 0, false
	}
	return g.rng.between(g.prof.bigMin, g.prof.bigMax), true
}

func (g *generator) goFile() string {
	for {
		if f := pick(g.rng, projectFiles); strings.HasSuffix(f, ".go") {
			return f
		}
	}
}

// read is a Read: a numbered slice of the code corpus; big ones use
// offset/limit the way an agent pages through a large file.
func (g *generator) read(mayBeBig bool) toolUse {
	path := pick(g.rng, projectFiles)
	switch {
	case g.rng.chance(0.04):
		return toolUse{name: "Read", input: map[string]any{"file_path": strings.TrimSuffix(path, ".go") + "_old.go"}, output: "<tool_use_error>File does not exist.</tool_use_error>"}
	case path == "AGENTS.md":
		return toolUse{name: "Read", input: map[string]any{"file_path": path}, ok: true, output: numbered(agentsFile)}
	}
	if mayBeBig {
		if size, big := g.bigOutput(); big {
			first := g.rng.between(1, g.code.headLines())
			out, n := g.code.span(first, size)
			return toolUse{name: "Read", input: map[string]any{"file_path": path, "offset": first, "limit": n}, ok: true, output: out}
		}
	}
	n := g.rng.between(5, 220)
	if g.rng.chance(0.05) {
		n = g.rng.between(300, 2000)
	}
	return toolUse{name: "Read", input: map[string]any{"file_path": path}, ok: true, output: g.code.slice(1, n)}
}

// numbered renders text the way Read shows a file.
func numbered(text string) string {
	var b strings.Builder
	for k, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		fmt.Fprintf(&b, "%6d→%s\n", k+1, line)
	}
	return b.String()
}

func (g *generator) bash(command string, ok bool, output string) toolUse {
	return toolUse{name: "Bash", input: map[string]any{"command": command, "description": "Run " + strings.Fields(command)[0]}, ok: ok, output: output}
}

// shell is a Bash call: tests, builds, git; big ones dump logs.
func (g *generator) shell() toolUse {
	module := "github.com/acme/" + g.project
	pkg := pick(g.rng, packages)
	test := pick(g.rng, tests)
	if size, big := g.bigOutput(); big {
		out, n := g.logs.span(g.rng.between(1, g.logs.headLines()), size)
		cmd := pick(g.rng, []string{
			fmt.Sprintf("go test -v -run TestSoakKill ./%s/... 2>&1 | tail -n %d", pkg, n),
			fmt.Sprintf("journalctl -u %s --no-pager -n %d", g.project, n),
			"cat build/soak.log",
		})
		if g.rng.chance(0.15) {
			return g.bash(cmd, false, out+"--- FAIL: TestSoakKill (412.30s)\nFAIL\nexit status 1")
		}
		return g.bash(cmd, true, out)
	}
	switch r := g.rng.intn(100); {
	case r < 40:
		cmd := "go test ./" + pkg + "/..."
		if g.rng.chance(0.3) {
			return g.bash(cmd, false, fmt.Sprintf("--- FAIL: %s (0.00s)\n    %s_test.go:%d: replayed 2 records, want 3\nFAIL\nFAIL\t%s/%s\t0.%03ds\nFAIL\nexit status 1", test, pkg[strings.LastIndex(pkg, "/")+1:], g.rng.between(20, 300), module, pkg, g.rng.between(1, 999)))
		}
		return g.bash(cmd, true, fmt.Sprintf("ok  \t%s/%s\t0.%03ds", module, pkg, g.rng.between(1, 999)))
	case r < 52:
		return g.bash("go vet ./...", true, "")
	case r < 64:
		return g.bash("git status --short", true, " M "+g.goFile()+"\n M "+g.goFile()+"\n?? "+pkg+"/testdata/")
	case r < 74:
		return g.bash("git diff --stat", true, fmt.Sprintf(" %s | %d ++++++----\n 1 file changed, %d insertions(+), %d deletions(-)", g.goFile(), g.rng.between(2, 90), g.rng.between(1, 45), g.rng.between(1, 45)))
	case r < 84:
		return g.bash("make lint", false, "gofmt would change:\n"+g.goFile()+"\nmake: *** [Makefile:40: lint] Error 1")
	case r < 92:
		return g.bash("go build ./...", false, fmt.Sprintf("# %s/%s\n%s:%d:%d: undefined: syncDir", module, pkg, g.goFile(), g.rng.between(10, 400), g.rng.between(2, 30)))
	}
	return g.bash("ls "+pkg, true, "doc.go\n"+pick(g.rng, funcs)+".go\ntestdata")
}

var edits = [][2]string{
	{"return err", `return fmt.Errorf("journal: %w", err)`},
	{"f.Sync()", "syncFile(f)"},
	{"os.Rename(tmp, path)", "renameAndSync(tmp, path)"},
	{"defer f.Close()", "defer closeOrReport(f, &err)"},
	{"time.Sleep(100 * time.Millisecond)", "clock.Advance(100 * time.Millisecond)"},
}

func (g *generator) edit() toolUse {
	path := g.goFile()
	e := pick(g.rng, edits)
	in := map[string]any{"file_path": path, "old_string": e[0], "new_string": e[1]}
	if g.rng.chance(0.08) {
		return toolUse{name: "Edit", input: in, output: "<tool_use_error>String to replace not found in file.\nString: " + e[0] + "</tool_use_error>"}
	}
	snippet := g.code.slice(g.rng.between(1, g.code.headLines()), g.rng.between(3, 12))
	return toolUse{name: "Edit", input: in, ok: true, output: "The file " + path + " has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n" + snippet}
}

func (g *generator) multiEdit() toolUse {
	path := g.goFile()
	var list []map[string]string
	var out strings.Builder
	n := g.rng.between(2, 4)
	fmt.Fprintf(&out, "Applied %d edits to %s:", n, path)
	for k := range n {
		e := pick(g.rng, edits)
		list = append(list, map[string]string{"old_string": e[0], "new_string": e[1]})
		fmt.Fprintf(&out, "\n%d. Replaced %q with %q", k+1, e[0], e[1])
	}
	in := map[string]any{"file_path": path, "edits": list}
	if g.rng.chance(0.05) {
		return toolUse{name: "MultiEdit", input: in, output: "<tool_use_error>Edit 2: String to replace not found in file.</tool_use_error>"}
	}
	return toolUse{name: "MultiEdit", input: in, ok: true, output: out.String()}
}

// applyPatch is the generic patch tool of Codex-style agents.
func (g *generator) applyPatch() toolUse {
	path := g.goFile()
	e := pick(g.rng, edits)
	fn := pick(g.rng, funcs)
	patch := fmt.Sprintf("*** Begin Patch\n*** Update File: %s\n@@ func %s(\n-\t%s\n+\t%s\n*** End Patch", path, fn, e[0], e[1])
	in := map[string]any{"patch": patch}
	if g.rng.chance(0.12) {
		return toolUse{name: "apply_patch", input: in, output: fmt.Sprintf("Failed to apply patch: context not found in %s at @@ func %s(", path, fn)}
	}
	return toolUse{name: "apply_patch", input: in, ok: true, output: "Success. Updated the following files:\nM " + path}
}

func (g *generator) grep() toolUse {
	pattern := pick(g.rng, []string{`Sync\(`, `os\.Rename`, "ErrCorrupt", "TODO", "fsync"})
	in := map[string]any{"pattern": pattern, "path": ".", "output_mode": "content", "-n": true}
	n := g.rng.intn(16)
	if n == 0 {
		return toolUse{name: "Grep", input: in, ok: true, output: "No matches found"}
	}
	var b strings.Builder
	for range n {
		fmt.Fprintf(&b, "%s:%d:%s\n", g.goFile(), g.rng.between(1, 600), strings.TrimSpace(codeLine(g.rng)))
	}
	return toolUse{name: "Grep", input: in, ok: true, output: b.String()}
}

var globs = []struct {
	pattern string
	match   func(string) bool
}{
	{"**/*_test.go", func(f string) bool { return strings.HasSuffix(f, "_test.go") }},
	{"internal/**/*.go", func(f string) bool { return strings.HasPrefix(f, "internal/") && strings.HasSuffix(f, ".go") }},
	{"docs/*.md", func(f string) bool { return strings.HasPrefix(f, "docs/") }},
	{"cmd/**/*.go", func(f string) bool { return strings.HasPrefix(f, "cmd/") }},
}

func (g *generator) glob() toolUse {
	gl := pick(g.rng, globs)
	var matches []string
	for _, f := range projectFiles {
		if gl.match(f) {
			matches = append(matches, f)
		}
	}
	out := strings.Join(matches, "\n")
	if out == "" {
		out = "No files found"
	}
	return toolUse{name: "Glob", input: map[string]any{"pattern": gl.pattern}, ok: true, output: out}
}

func (g *generator) write() toolUse {
	path := strings.TrimSuffix(g.goFile(), ".go") + "_crash_test.go"
	lines := make([]string, g.rng.between(8, 40))
	for k := range lines {
		lines[k] = codeLine(g.rng)
	}
	in := map[string]any{"file_path": path, "content": "package " + pick(g.rng, []string{"journal", "store", "recovery"}) + "\n\n" + strings.Join(lines, "\n") + "\n"}
	if g.rng.chance(0.03) {
		return toolUse{name: "Write", input: in, output: "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>"}
	}
	return toolUse{name: "Write", input: in, ok: true, output: "File created successfully at: " + path}
}
