package tape

import (
	"fmt"
	"strings"
	"testing"
)

// The tape's fixed text (the handoff, its acknowledgement, each block's
// marker and head) is room the work does not get: at 16,000 characters
// every 1,000 of it is about eight facts of the truth set
// (BENCHMARKS.md, stop 52). A block's head says what its entries do not
// say themselves; the entries' own headings, seqs and outcomes need no
// description.
func TestTheSkeletonLeavesTheRoomToTheWork(t *testing.T) {
	tp := build(t, "s", seqd(human("Hi.")), Options{}, nil)
	if tp.TapeChars > 1200 {
		t.Fatalf("a session of one instruction makes a tape of %d runes, want at most 1,200:\n%s", tp.TapeChars, tp.Text)
	}
	for _, head := range []string{"No hard constraints.", "Nothing pending."} {
		if !strings.Contains(tp.Text, "\n"+head+"\n") && !strings.HasSuffix(tp.Text, "\n"+head) {
			t.Errorf("the tape lacks the head %q:\n%s", head, tp.Text)
		}
	}
}

// A shell command is named by the command itself, "$ make test", not by
// the host's name for its shell tool (Bash, exec_command, shell,
// shell_command, run_shell_command): that name says nothing the command
// does not, and a session's tape repeats it on every action, milestone
// and failure. Another tool keeps its name.
func TestAShellCallIsNamedByItsCommand(t *testing.T) {
	for _, tool := range []string{"Bash", "exec_command", "shell", "shell_command", "run_shell_command"} {
		t.Run(tool, func(t *testing.T) {
			evs := seqd(human("Fix the build."),
				call("Read", "r1", `{"file_path":"/w/Makefile"}`), result("Read", "r1", true, "test:\n\tgo test ./..."),
				call(tool, "c1", `{"command":"make test"}`), result(tool, "c1", true, "ok  \texample/pkg\t0.2s"),
				call(tool, "c2", `{"command":"npm run build"}`), result(tool, "c2", false, "npm ERR! missing script: build"),
				call(tool, "c3", `{"command":"npm run lint"}`), declinedResult(tool, "c3", "The user declined."),
				call(tool, "c4", `{"command":"git push origin main"}`),
			)
			tp := build(t, "s", evs, Options{}, nil)
			actions, pending := blockText(t, tp, "Recent Actions"), blockText(t, tp, "Pending State")
			for _, want := range []struct{ block, text string }{
				{actions, "- seq=3 Read ok: /w/Makefile"},
				{actions, "- seq=5 ok: $ make test\n"},
				{actions, "- seq=7 FAILED: $ npm run build\n"},
				{pending, "- seq=7 FAILED (open turn): $ npm run build\n"},
				{pending, "- seq=9 declined: $ npm run lint"},
				{pending, "- seq=10: $ git push origin main"},
			} {
				if !strings.Contains(want.block, want.text) {
					t.Errorf("lacks %q:\n%s", want.text, want.block)
				}
			}
			if strings.Contains(actions+pending, " "+tool+" ") || strings.Contains(actions+pending, fmt.Sprintf("seq=10 %s", tool)) {
				t.Errorf("a shell call is named by its tool:\n%s\n%s", actions, pending)
			}
		})
	}
}
