package tape

import (
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

// A shell that prints something each time it starts (nvm's "Now using
// node …") opens every command's output with it. A line that opens at
// least 3 of the outputs the tape quotes, and half of them or more, is the
// shell's, not the commands': no key line of any, and a failure is quoted
// by its own error. Fewer, or a verdict said again ("All checks
// passed!"), stay.
func TestALineTheShellPrintsBeforeEveryOutputIsNoKeyLine(t *testing.T) {
	const nvm = "Now using node v22.20.0 (npm v10.9.3)"
	run := func(id, cmd string, ok bool, out string) []session.Event {
		return []session.Event{call("Bash", id, `{"command":"`+cmd+`"}`), result("Bash", id, ok, out)}
	}
	tapeOf := func(evs []session.Event) string {
		b, src := foldWithOffsets(t, seqd(evs...))
		tp, err := b.BuildFrom(Options{}, nil, src)
		if err != nil {
			t.Fatal(err)
		}
		return blockText(t, tp, "Recent Actions") + blockText(t, tp, "Pending State")
	}
	evs := []session.Event{human("Build it and lint it.")}
	evs = append(evs, run("c1", "npm run build", true, nvm+"\nbuilt in 2.1s")...)
	evs = append(evs, run("c2", "npm test", true, nvm+"\nTests: 12 passed, 12 total")...)
	evs = append(evs, run("c3", "node -v", true, nvm+"\nv22.20.0")...)
	evs = append(evs, run("c4", "npm run lint", false, nvm+"\nnpm ERR! Missing script: lint")...)
	got := tapeOf(evs)
	if strings.Contains(got, nvm) {
		t.Errorf("the shell's line is quoted:\n%s", got)
	}
	containsAll(t, "the tape", got, "Tests: 12 passed, 12 total", "v22.20.0", "npm ERR! Missing script: lint")

	// Two outputs of four: a coincidence, not the shell.
	few := []session.Event{human("Check the versions.")}
	few = append(few, run("c1", "node -v", true, nvm+"\nv22.20.0")...)
	few = append(few, run("c2", "node -v", true, nvm+"\nv22.20.0")...)
	few = append(few, run("c3", "go version", true, "go version go1.26.8 linux/amd64")...)
	few = append(few, run("c4", "git --version", true, "git version 2.47.1")...)
	if got := tapeOf(few); !strings.Contains(got, nvm) {
		t.Errorf("a line that opens two outputs of four is dropped:\n%s", got)
	}

	// A verdict said again is still one.
	lint := []session.Event{human("Lint until clean.")}
	for _, id := range []string{"c1", "c2", "c3"} {
		lint = append(lint, run(id, "ruff check .", true, "All checks passed!")...)
	}
	if got := tapeOf(lint); !strings.Contains(got, "All checks passed!") {
		t.Errorf("a verdict repeated is dropped:\n%s", got)
	}
}
