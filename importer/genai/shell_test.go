package genai

import "testing"

// The sections of Gemini CLI's shell tool (0.61.0's, seen on the real
// program, and its earlier releases'), and of Qwen Code 0.24.4's, which
// keeps the earlier form: the output inside, and how the command ended.
func TestParseShellOutput(t *testing.T) {
	for _, c := range []struct {
		out, body, exit string
		failed, ok      bool
	}{
		{"<untrusted_context>\nOutput: out\nerr\nExit Code: 3\nProcess Group PGID: 20901\n</untrusted_context>", "out\nerr", "3", true, true},
		{"Output: fine\nProcess Group PGID: 20903", "fine", "", false, true},
		{"Command: git commit -m x\nDirectory: (root)\nOutput: Commit aborted.\nError: (none)\nExit Code: 1\nSignal: 0\nBackground PIDs: (none)\nProcess Group PGID: 969064", "Commit aborted.", "1", true, true},
		{"Command: git push\nDirectory: (root)\nOutput: To github.com:x/y.git\n   7368c30..65f4852  master -> master\nError: (none)\nExit Code: 0\nSignal: 0\nBackground PIDs: (none)\nProcess Group PGID: 972251", "To github.com:x/y.git\n   7368c30..65f4852  master -> master", "", false, true},
		{"Command: sleep 9\nDirectory: (root)\nOutput: (empty)\nError: (none)\nExit Code: (none)\nSignal: 15\nBackground PIDs: (none)\nProcess Group PGID: 9", "", "", true, true},
		{"Output: (empty)\nError: spawn /bin/bash ENOENT\nProcess Group PGID: 7", "Error: spawn /bin/bash ENOENT", "", true, true},
		{"Output: plain text of another tool", "plain text of another tool", "", false, true},
		// A command of several lines (a heredoc, two commands).
		{"Command: ls -R ~/x\ntype kwriteconfig6\nDirectory: (root)\nOutput: ~/x: none\nError: (none)\nExit Code: 1\nSignal: 0\nBackground PIDs: (none)\nProcess Group PGID: 42854", "~/x: none", "1", true, true},
		// Qwen Code 0.24.4's, and in its code mode without the command.
		{"Command: go vet ./...\nDirectory: (root)\nOutput: (empty)\nError: (none)\nExit Code: 0\nSignal: (none)\nProcess Group PGID: 4242", "", "", false, true},
		{"Directory: (root)\nOutput: ok  ex/parser 0.1s\nError: (none)\nExit Code: 0\nSignal: (none)\nProcess Group PGID: (none)", "ok  ex/parser 0.1s", "", false, true},
		// Other shapes.
		{"Directory: not a section list", "", "", false, false},
		{"Outputs: not the shell's\nProcess Group PGID: 7", "", "", false, false},
		{"Exit Code: 2 is what the docs say", "", "", false, false},
		{"Command: /usr/bin/zsh -lc ls\nChunk ID: 59b319\nOutput:\nx", "", "", false, false},
	} {
		so, ok := ParseShellOutput(c.out)
		if ok != c.ok || so.Body != c.body || so.Failed != c.failed || so.Exit != c.exit {
			t.Errorf("ParseShellOutput(%q) = %+v, %v; want body %q, failed %v, exit %q, %v", c.out, so, ok, c.body, c.failed, c.exit, c.ok)
		}
	}
}
