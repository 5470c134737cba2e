package claudecode

import (
	"fmt"
	"testing"

	"github.com/graft-project/graft/session"
)

// Claude Code ends a Bash result with "Shell cwd was reset to <dir>" when
// it moved the shell back to the project's folder after the command; its
// own terminal view takes that line out of the output and shows it apart
// (BashToolResultMessage's SHELL_CWD_RESET_PATTERN). It is the host's
// note, not the command's output: the importer keeps it in meta cwdReset,
// and the output ends where the command's did (the tape had taken the note
// for the output's last line, beside a test run's verdict).
func TestTheShellCwdResetNoteIsNotTheOutput(t *testing.T) {
	result := func(n int, tool, content string) []string {
		return []string{
			fmt.Sprintf(`{"type":"assistant","uuid":"a%d","timestamp":"2026-02-12T20:00:0%d.000Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"t%d","name":%q,"input":{"command":"cd sub && make test"}}]}}`, n, n, n, tool),
			fmt.Sprintf(`{"type":"user","uuid":"r%d","timestamp":"2026-02-12T20:00:0%d.500Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":%q}]}}`, n, n, n, content),
		}
	}
	lines := []string{`{"type":"user","uuid":"u1","cwd":"/r","timestamp":"2026-02-12T20:00:00.000Z","message":{"role":"user","content":"Start."}}`}
	lines = append(lines, result(1, "Bash", "ok  \tpkg\t0.1s\n1657 passed, 4 warnings in 30.07s\nShell cwd was reset to /r")...)
	lines = append(lines, result(2, "Bash", "Shell cwd was reset to /r/with space")...)
	lines = append(lines, result(3, "Bash", "Shell cwd was reset to /r\nthe command's own last line")...)
	lines = append(lines, result(4, "Read", "notes\nShell cwd was reset to /r")...)
	want := map[string][2]string{
		"t1": {"ok  \tpkg\t0.1s\n1657 passed, 4 warnings in 30.07s", "/r"},
		"t2": {"", "/r/with space"},
		"t3": {"Shell cwd was reset to /r\nthe command's own last line", ""}, // not the last line: the command's
		"t4": {"notes\nShell cwd was reset to /r", ""},                       // not a shell's result
	}
	seen := 0
	for _, ev := range importLines(t, "cwdreset", lines) {
		if ev.Type != session.TypeToolResult {
			continue
		}
		w, ok := want[ev.Tool.CallID]
		if !ok {
			t.Fatalf("unexpected result %q", ev.Tool.CallID)
		}
		seen++
		if ev.Tool.Output != w[0] || ev.Meta["cwdReset"] != w[1] {
			t.Errorf("%s: output %q, cwdReset %q; want %q, %q", ev.Tool.CallID, ev.Tool.Output, ev.Meta["cwdReset"], w[0], w[1])
		}
	}
	if seen != len(want) {
		t.Fatalf("%d results, want %d", seen, len(want))
	}
}
