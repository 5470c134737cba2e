package tape

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// A session run on Windows names its files with the drive and
// backslashes (C:\Users\…\repo\scripts\search.py); git, the person and
// the assistant name them relative, with slashes (scripts/search.py).
// The tape shows a file under the session's folder the way they do.
func TestRelPathOfAWindowsSession(t *testing.T) {
	const cwd = `C:\Users\M\.claude-worktrees\repo\branch`
	for _, tc := range []struct{ path, cwd, want string }{
		{cwd + `\scripts\search.py`, cwd, "scripts/search.py"},
		{cwd + `\.github\workflows\test.yml`, cwd, ".github/workflows/test.yml"},
		{`c:\users\m\.claude-worktrees\repo\branch\README.md`, cwd, "README.md"}, // Windows paths ignore case
		{`C:/Users/M/.claude-worktrees/repo/branch/tests/conftest.py`, cwd, "tests/conftest.py"},
		{cwd + `\scripts\search.py`, cwd + `\`, "scripts/search.py"},
		{`C:\Users\M\other\x.py`, cwd, `C:\Users\M\other\x.py`}, // outside: as it was
		{cwd + `2\x.py`, cwd, cwd + `2\x.py`},                   // a sibling folder whose name only begins the same
		{cwd, cwd, cwd},
		// POSIX paths are as they were: case matters.
		{"/work/repo/a/b.go", "/work/repo", "a/b.go"},
		{"/work/Repo/a/b.go", "/work/repo", "/work/Repo/a/b.go"},
		{`/work/repo/a\b.go`, "/work/repo", `a\b.go`},
	} {
		if got := relPath(tc.path, tc.cwd); got != tc.want {
			t.Errorf("relPath(%q, %q) = %q, want %q", tc.path, tc.cwd, got, tc.want)
		}
	}
}

// Claude Code on Windows runs each Bash call from a fresh shell, so its
// agents open every command with cd "<the session's folder>" &&: what the
// call ran is the rest; so with ";", or a script whose first line is that
// cd (the commit it runs is what it does). A cd elsewhere is part of the
// command.
func TestCommandLeavesOutTheCdIntoTheSessionsFolder(t *testing.T) {
	for _, tc := range []struct{ cmd, cwd, want string }{
		{`cd "C:\Users\M\repo" && git push -u origin main`, `C:\Users\M\repo`, "git push -u origin main"},
		{`cd 'C:\Users\M\repo' && python -m pytest tests/ -v`, `C:\Users\M\repo`, "python -m pytest tests/ -v"},
		{`cd C:/Users/M/repo && ls`, `C:\Users\M\repo`, "ls"},
		{`cd /c/Users/M/repo && git status`, `C:\Users\M\repo`, "git status"}, // Git Bash's name of the same folder
		{`cd "c:\users\m\repo" && git log`, `C:\Users\M\repo`, "git log"},
		{`cd /work/repo && make test`, "/work/repo", "make test"},
		{`cd /work/repo/sub && make test`, "/work/repo", "cd /work/repo/sub && make test"},
		{`cd "C:\Users\M\repo\assets" && node build.js`, `C:\Users\M\repo`, `cd "C:\Users\M\repo\assets" && node build.js`},
		{`cd /work/repo; make`, "/work/repo", "make"},
		{"cd /work/repo\ngit commit -q -m \"docs: archive it\n\nBody.\"\ngit log -2", "/work/repo", "git commit -q -m \"docs: archive it …"}, // a script of lines
		{"cd /work/repo/sub\nmake", "/work/repo", "cd /work/repo/sub …"},
		{`cd /work/repo || exit 1`, "/work/repo", `cd /work/repo || exit 1`},
		{`cd /work/repo && make`, "", `cd /work/repo && make`},
	} {
		got := callWhat("Bash", json.RawMessage(`{"command":`+strconv.Quote(tc.cmd)+`}`), tc.cwd)
		if got != tc.want {
			t.Errorf("callWhat(%q) in %q = %q, want %q", tc.cmd, tc.cwd, got, tc.want)
		}
	}
}

// git commit lists each new file as "create mode 100644 tests/x.py": a
// file mode and a path, no count of tests. The commit's own lines, the
// "[branch hash]" line and "N files changed", are its key lines.
func TestAGitCommitsKeyLinesAreItsSummary(t *testing.T) {
	var out strings.Builder
	out.WriteString("[unruffled ffe9ab7] Comprehensive repository improvements\n 21 files changed, 2357 insertions(+), 13 deletions(-)\n")
	for _, p := range []string{".github/workflows/test.yml", "scripts/search.py", "tests/test_failures.py", "tests/conftest.py", "tests/test_redaction.py"} {
		out.WriteString(" create mode 100644 " + p + "\n")
	}
	got := keyLines(out.String(), true)
	joined := strings.Join(got, "\n")
	for _, want := range []string{"[unruffled ffe9ab7] Comprehensive repository improvements", "21 files changed, 2357 insertions(+), 13 deletions(-)"} {
		if !strings.Contains(joined, want) {
			t.Errorf("key lines %q lack %q", got, want)
		}
	}
	for _, l := range got[:len(got)-1] { // the last line is always kept
		if strings.HasPrefix(l, "create mode") {
			t.Errorf("key lines %q hold the file listing line %q", got, l)
		}
	}
	// A word of a path is no verdict either.
	if isKeyLine("create mode 100644 tests/test_failures.py") {
		t.Error("a path's words made a key line")
	}
	for _, l := range []string{"FAILED tests/test_x.py::test_y - assert 1 == 2", "5 passed, 1 failed in 0.3s", "error: src/main.go:12: undefined: x"} {
		if !isKeyLine(l) {
			t.Errorf("%q is no key line", l)
		}
	}
}

// Git Bash on Windows (the MSYS runtime) prints its own trouble forking
// into a command's output ("0 [main] bash (1620) child_copy: cygheap read
// copy failed", "fork: retry: Resource temporarily unavailable"); the
// command went on. Those lines are no outcome of it.
func TestGitBashRuntimeChatterIsNoKeyLine(t *testing.T) {
	out := "      0 [main] bash (1620) child_copy: cygheap read copy failed, 0x0..0x8000211C0, done 0, windows pid 1620, Win32 error 299\n" +
		"/etc/profile: fork: retry: Resource temporarily unavailable\n" +
		"bash: fork: retry: Resource temporarily unavailable\n" +
		"[main 2623ca1] Fix test data\n 1 file changed, 5 insertions(+), 4 deletions(-)\n"
	got := keyLines(out, true)
	want := []string{"[main 2623ca1] Fix test data", "1 file changed, 5 insertions(+), 4 deletions(-)"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("key lines %q, want %q", got, want)
	}
	for _, l := range []string{"0 [main] hostname (14416) child_copy: cygheap read copy failed, 0x0..0x800023390", "fork: retry: Resource temporarily unavailable", "0 [main] bash 403 dofork: child -1 - forked process 1620 died unexpectedly, retry 0, exit code 0xC0000142, errno 11"} {
		if !noiseLine(l) {
			t.Errorf("%q is no noise", l)
		}
	}
	if noiseLine("0 passed, 3 failed") || noiseLine("[main 2623ca1] Fix test data") {
		t.Error("a verdict or a commit line taken for noise")
	}
}

// WSL prints, before every command it runs from a Windows PATH it cannot
// map, "wsl: Failed to translate 'E:\…\bin'": its own chatter, no outcome
// of the command (one Codex session on WSL had three of them as the key
// lines of every call, its branch's creation among them unseen).
func TestWSLChatterIsNoKeyLine(t *testing.T) {
	out := "wsl: Failed to translate 'E:\\gradle-8.10.2\\bin'\nwsl: Failed to translate 'E:\\apache-maven-3.9.9\\bin'\nwsl: Failed to translate 'E:\\curl\\bin'\nBRANCH_NAME=001-functional-acceptance\n"
	if got := keyLines(out, true); strings.Join(got, "\n") != "BRANCH_NAME=001-functional-acceptance" {
		t.Fatalf("key lines %q, want the command's own line", got)
	}
	if noiseLine("wsl.exe --install failed: 0x80070005") {
		t.Error("a line about wsl itself taken for its chatter")
	}
}
