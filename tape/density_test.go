package tape

import (
	"encoding/json"
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

// A command that prints (printf, echo, cat, jq, sed -n) is a read, but
// one whose output goes into a file writes that file: `printf … >
// ~/.config/autostart/app.desktop && cat …` is what was done last, and its
// output (the file as written) is the action's outcome, as a commit's is.
// The redirect may sit on the command's last line, past what its one line
// shows. A redirect to a device or a stream (>/dev/null, 2>&1) writes no
// file, and a here-document written with cat is a file write Workspace
// Files lists already.
func TestACommandThatPrintsIntoAFileActs(t *testing.T) {
	printf := "printf '%s\\n' \\\n    '[Desktop Entry]' \\\n    \"Exec=$HOME/.local/bin/app --tray\" \\\n    > ~/.config/autostart/app.desktop && cat ~/.config/autostart/app.desktop"
	in, _ := json.Marshal(map[string]string{"command": printf})
	evs := seqd(human("The tray icon is not there after logging in."),
		call("Bash", "c0", `{"command":"git commit -am 'tray'"}`), result("Bash", "c0", true, "[main 34099cd] tray"),
		call("Bash", "c1", `{"command":"go test ./..."}`), result("Bash", "c1", true, "ok  \texample/pkg\t0.2s"),
		call("Bash", "c2", `{"command":"go vet ./..."}`), result("Bash", "c2", true, "vet: clean"),
		call("Bash", "c3", `{"command":"go build ./..."}`), result("Bash", "c3", true, "built"),
		call("Bash", "c4", string(in)), result("Bash", "c4", true, "[Desktop Entry]\nExec=/home/u/.local/bin/app --tray"),
	)
	tp := build(t, "s", evs, Options{}, nil)
	containsAll(t, "Recent Actions", blockText(t, tp, "Recent Actions"), "seq=11 ok: $ printf", "Exec=/home/u/.local/bin/app --tray")

	for _, tc := range []struct {
		cmd   string
		write bool
	}{
		{printf, true},
		{"echo done >> notes.txt", true},
		{"jq '.a' in.json>out.json", true},
		{"cat a.txt 2> err.log", true},
		{"cat a.txt", false},
		{"cat a.txt > /dev/null 2>&1", false},
		{"grep -q x a.txt &>/dev/null", false},
		{"echo '> not a redirect' \"a > b\"", false},
		{"cat > notes.md <<'EOF'\nline > quoted\nEOF", false}, // a here-document write: a file touch
		{"sed -n '1,5p' a.go 1>&2", false},
	} {
		if got := printsIntoAFile(tc.cmd); got != tc.write {
			t.Errorf("printsIntoAFile(%q) = %v, want %v", tc.cmd, got, tc.write)
		}
	}
}
