package tape

import (
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

// Gemini CLI's shell tool gives its model the output between sections (and
// Qwen Code's, in Gemini CLI's earlier form):
// 0.61.0 "Output: <output>" then "Error: …", "Exit Code: N", "Signal: …",
// "Background PIDs: …", "Process Group PGID: N" (each only when it has
// one), wrapped in <untrusted_context>; earlier releases "Command: …" and
// "Directory: …" before it and every section after it, "(none)" or 0
// when empty. The tape quotes the output: no section is a key line, nor the
// "(empty)" the host writes for no output, and a process error is kept
// (genai.ParseShellOutput's test has each shape).
func TestGeminiShellSectionsAreNoOutput(t *testing.T) {
	for _, c := range []struct{ out, want string }{
		{"<untrusted_context>\nOutput: out\nerr\nExit Code: 3\nProcess Group PGID: 20901\n</untrusted_context>", "out\nerr"},
		{"Command: ls -R ~/x\ntype kwriteconfig6\nDirectory: (root)\nOutput: ~/x: none\nError: (none)\nExit Code: 1\nSignal: 0\nBackground PIDs: (none)\nProcess Group PGID: 42854", "~/x: none"},
		{"Directory: (root)\nOutput: (empty)\nError: (none)\nExit Code: 0\nSignal: (none)\nProcess Group PGID: (none)", ""},
		// Another tool's output in the wrapper: the output.
		{"<untrusted_context>\nTitle: Gemini CLI\nhttps://example.org\n</untrusted_context>", "Title: Gemini CLI\nhttps://example.org"},
		{"Outputs: not the shell's\nProcess Group PGID: 7", "Outputs: not the shell's\nProcess Group PGID: 7"},
	} {
		if got := outputBody(c.out); got != c.want {
			t.Errorf("outputBody(%q) =\n%q\nwant\n%q", c.out, got, c.want)
		}
	}
	// In a tape: the failed push's error, not the sections.
	out := "Command: git commit -m x && git push\nDirectory: (root)\nOutput: ❌  SECURITY ALERT: Blocked string found in staged files!\n    (Pattern defined in /home/u/.config/git_hooks/blocked_patterns.txt)\nCommit aborted. Remove the string and try again.\nError: (none)\nExit Code: 1\nSignal: 0\nBackground PIDs: (none)\nProcess Group PGID: 969064"
	ok := false
	evs := []session.Event{human("Push it."), call("run_shell_command", "s1", `{"command":"git commit -m x && git push"}`),
		{Type: session.TypeToolResult, Source: session.Source{Kind: session.KindTool}, Tool: &session.Tool{Name: "run_shell_command", CallID: "s1", OK: &ok, Output: out}}, say("Blocked.")}
	tp := build(t, "s", seqd(evs...), Options{}, nil)
	pending := blockText(t, tp, "Pending State")
	if !strings.Contains(pending, "SECURITY ALERT") || !strings.Contains(pending, "blocked_patterns.txt") || strings.Contains(tp.Text, "Process Group PGID") || strings.Contains(tp.Text, "Error: (none)") {
		t.Errorf("the failure is not quoted by its output:\n%s", tp.Text)
	}
}

// Gemini CLI's earlier read_file, and Qwen Code's before 0.13, name the file
// absolute_path (ReadFileToolParams; file_path since): real Qwen Code
// sessions of 0.5.0 and 0.12.6 read every file by it, those of 0.13.0 on
// by file_path. A file read so
// is one Workspace Files names with its read, and the call's line names
// the file, as one read by file_path.
func TestAReadByAbsolutePathNamesItsFile(t *testing.T) {
	tp := build(t, "s", seqd(human("Look at the sidebar config."),
		call("read_file", "r1", `{"absolute_path":"/repo/site/sidebars.js"}`), result("read_file", "r1", true, "module.exports = {tutorialSidebar: []};"),
		call("read_file", "r2", `{"absolute_path":"/repo/site/docusaurus.config.js","offset":0,"limit":40}`), result("read_file", "r2", true, "export default {title: 'Book'};"),
	), Options{}, nil)
	files := blockText(t, tp, "Workspace Files")
	for _, p := range []string{"/repo/site/sidebars.js", "/repo/site/docusaurus.config.js"} {
		if !strings.Contains(files, p) {
			t.Errorf("Workspace Files does not name %s:\n%s", p, files)
		}
	}
	if a := blockText(t, tp, "Recent Actions"); !strings.Contains(a, "read_file ok: /repo/site/docusaurus.config.js") {
		t.Errorf("the read's line does not name its file:\n%s", a)
	}
}
