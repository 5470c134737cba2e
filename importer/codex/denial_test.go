package codex

import (
	"encoding/json"
	"testing"
)

// A command Codex ran in its sandbox that ended nonzero comes back as
// Codex's own error text around the command's output ("failed in sandbox
// … with execution error: sandbox denied exec error, exit code: N,
// stdout: …, stderr: …", or the same error as Rust's Debug form, its
// output escaped, once or twice). The wrapper took the first line of every
// such failure (Codex's words, 100 to 190 characters) and, in the Debug
// form, left no line of the output readable: the tool result is the
// command's output, after one line that says where it failed and with
// which code.
func TestSandboxDenialIsTheCommandsOutput(t *testing.T) {
	for _, c := range []struct {
		name, raw, text string
	}{
		{"display, stdout and stderr",
			"failed in sandbox MacosSeatbelt with execution error: sandbox denied exec error, exit code: 1, stdout: .F   [100%]\nFAILED tests/test_a.py::test_b\n1 failed, 1 passed in 0.87s\n, stderr: warning: coverage\n",
			"failed in sandbox MacosSeatbelt, exit code 1: .F   [100%]\nFAILED tests/test_a.py::test_b\n1 failed, 1 passed in 0.87s\nwarning: coverage\n"},
		{"display, stderr only",
			"failed in sandbox MacosSeatbelt with execution error: sandbox denied exec error, exit code: 1, stdout: , stderr: bash: cannot create temp file for here document: Operation not permitted\n",
			"failed in sandbox MacosSeatbelt, exit code 1: bash: cannot create temp file for here document: Operation not permitted\n"},
		{"display, stdout names stderr: the last one splits",
			"failed in sandbox LinuxSeccomp with execution error: sandbox denied exec error, exit code: 128, stdout: [main 548dd49] note, stderr: is a word here, stderr: ssh: Could not resolve hostname github.com: Name or service not known\n",
			"failed in sandbox LinuxSeccomp, exit code 128: [main 548dd49] note, stderr: is a word here\nssh: Could not resolve hostname github.com: Name or service not known\n"},
		{"display, no output",
			"failed in sandbox LinuxSeccomp with execution error: sandbox denied exec error, exit code: 1, stdout: , stderr: ",
			"failed in sandbox LinuxSeccomp, exit code 1"},
		{"debug, escaped once",
			`failed in sandbox LinuxSeccomp with execution error: Denied { output: ExecToolCallOutput { exit_code: 1, stdout: StreamOutput { text: "", truncated_after_lines: None }, stderr: StreamOutput { text: "error: could not find \"Cargo.toml\" in /w\n\u{1b}[0m", truncated_after_lines: None }, aggregated_output: StreamOutput { text: "error: could not find \"Cargo.toml\" in /w\n\u{1b}[0m", truncated_after_lines: None }, duration: 12ms, timed_out: false } }`,
			"failed in sandbox LinuxSeccomp, exit code 1: error: could not find \"Cargo.toml\" in /w\n\x1b[0m"},
		{"debug inside exec_command's CreateProcess, escaped twice",
			`exec_command failed for ` + "`/bin/bash -lc \"sed -n '1,220p' a.yaml\"`" + `: CreateProcess { message: "Codex(Sandbox(Denied { output: ExecToolCallOutput { exit_code: 1, stdout: StreamOutput { text: \"\", truncated_after_lines: None }, stderr: StreamOutput { text: \"bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted\\n\", truncated_after_lines: None }, aggregated_output: StreamOutput { text: \"bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted\\n\", truncated_after_lines: None }, duration: 0ns, timed_out: false }, network_policy_decision: None }))" }`,
			"exec_command failed in the sandbox, exit code 1: bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted\n"},
		{"debug, timed out, stdout and stderr",
			`failed in sandbox MacosSeatbelt with execution error: Denied { output: ExecToolCallOutput { exit_code: 124, stdout: StreamOutput { text: "partial\n", truncated_after_lines: Some(10) }, stderr: StreamOutput { text: "killed\n", truncated_after_lines: None }, aggregated_output: StreamOutput { text: "partial\nkilled\n", truncated_after_lines: None }, duration: 10s, timed_out: true } }`,
			"failed in sandbox MacosSeatbelt, exit code 124, timed out: partial\nkilled\n"},
	} {
		raw, err := json.Marshal(c.raw)
		if err != nil {
			t.Fatal(err)
		}
		text, ok := NewMapper(Config{}).toolOutput(raw)
		if text != c.text || ok == nil || *ok {
			t.Errorf("%s:\n got %q (ok %v)\nwant %q, failed", c.name, text, ok, c.text)
		}
	}
	// What does not read as a whole denial is kept as Codex wrote it,
	// still a failure: nothing is lost on a form this does not know.
	for _, raw := range []string{
		"failed in sandbox None with execution error: command timed out",
		"failed in sandbox LinuxSeccomp with execution error: sandbox denied exec error, exit code: x, stdout: a",
		`failed in sandbox LinuxSeccomp with execution error: Denied { output: ExecToolCallOutput { exit_code: 1, stdout: StreamOutput { text: "bad \q escape", truncated_after_lines: None } } }`,
		`failed in sandbox LinuxSeccomp with execution error: Denied { output: ExecToolCallOutput { exit_code: 1, stdout: StreamOutput { text: "unterminated`,
		`exec_command failed: CreateProcess { message: "Rejected" }`,
	} {
		b, err := json.Marshal(raw)
		if err != nil {
			t.Fatal(err)
		}
		text, ok := NewMapper(Config{}).toolOutput(b)
		if text != raw || ok == nil || *ok {
			t.Errorf("%q: got %q (ok %v), want it as it is, failed", raw, text, ok)
		}
	}
}
