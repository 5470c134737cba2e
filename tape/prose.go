package tape

import (
	"path"
	"strings"
)

// proseRel is a model's message with the paths inside the working
// directory named relative to it: a Markdown link to such a path,
// "[quickstart.md](/Users/me/repo/specs/quickstart.md)", becomes the
// path itself when its text only names it ("specs/quickstart.md"), and
// any other mention loses the folder's prefix. Codex's models link every
// file they name by its absolute path. A Codex app directive's cwd="…"
// naming the folder itself goes.
func proseRel(text, cwd string) string {
	c := strings.TrimRight(cwd, `/\`)
	if len(c) < 2 {
		return text // no folder, or the root
	}
	// Codex's app directives (::git-push{cwd="…" branch="…"}) name the
	// folder they act in: the session's goes.
	if attr := `cwd="` + c + `"`; strings.Contains(text, attr) {
		text = strings.NewReplacer("{"+attr+" ", "{", "{"+attr+"}", "{}", " "+attr, "").Replace(text)
	}
	prefix := c + "/"
	if isWindowsPath(cwd) {
		prefix = c + `\`
	}
	if !strings.Contains(text, prefix) {
		return text
	}
	var b strings.Builder
	rest := text
	for {
		i := strings.Index(rest, "]("+prefix)
		if i < 0 {
			break
		}
		open := strings.LastIndexByte(rest[:i], '[')
		end := strings.IndexByte(rest[i+2:], ')')
		if open < 0 || end < 0 || strings.Contains(rest[open:i], "\n") {
			b.WriteString(rest[:i+2])
			rest = rest[i+2:]
			continue
		}
		label := rest[open+1 : i]
		target := rest[i+2+len(prefix) : i+2+end]
		if isWindowsPath(cwd) {
			target = strings.ReplaceAll(target, `\`, "/")
		}
		b.WriteString(rest[:open])
		if namesOnly(strings.Trim(label, "`"), target) {
			b.WriteString(target)
		} else {
			b.WriteString("[" + label + "](" + target + ")")
		}
		rest = rest[i+2+end+1:]
	}
	b.WriteString(rest)
	return strings.ReplaceAll(b.String(), prefix, "")
}

// namesOnly: a link's label says no more than its target does: the
// target's path or its file's name, with or without the line it points
// at ("a.go:12" of "…/a.go:12", "a.go" of "…/a.go#L12").
func namesOnly(label, target string) bool {
	file := target
	if i := strings.IndexByte(file, '#'); i >= 0 {
		file = file[:i]
	}
	for _, t := range []string{target, file, strings.TrimRight(strings.TrimRight(file, "0123456789"), ":")} {
		if label == t || label == path.Base(t) {
			return true
		}
	}
	return false
}
