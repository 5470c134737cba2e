package tape

import (
	"strings"
	"testing"
)

// A commit whose message a here-document gives (git commit -F - <<EOF,
// Claude Code's git commit -m "$(cat <<'EOF' … EOF)") names its subject
// where the call is shown: git commit -q prints nothing of it, and a
// commit in flight at the cut has no output at all.
func TestACommitShowsItsMessagesSubject(t *testing.T) {
	for _, c := range []struct{ cmd, want string }{
		{"git add -A src && git commit -q -F - <<'MSGEOF'\nfix(experiments): bind the certifying commit to the document\n\nBody.\nMSGEOF\ngit push 2>&1 | tail -3", "(message: fix(experiments): bind the certifying commit to the document)"},
		{"git commit -m \"$(cat <<'EOF'\nFlatten repo layout to match cross-agent skills convention\n\nCo-Authored-By: Claude <noreply@anthropic.com>\nEOF\n)\"", "(message: Flatten repo layout to match cross-agent skills convention)"},
		{"git commit --file=- <<EOF\n\n  docs: say so\nEOF", "(message: docs: say so)"},
	} {
		got := whatOf("command", c.cmd, "", whatRunes)
		if !strings.HasSuffix(got, c.want) || !strings.HasPrefix(got, "git ") {
			t.Errorf("%q:\n got %q\nwant one ending %q", c.cmd, got, c.want)
		}
		if n := len([]rune(got)); n > whatRunes+len(messageMark)+commitSubjectRunes+3 {
			t.Errorf("%q: %d runes, over the bound", got, n)
		}
	}
	// Not a commit's message: a here-document fed to something else.
	for _, cmd := range []string{"python3 - <<'PY'\nprint('git commit')\nPY", "cat > notes.md <<EOF\ngit commit later\nEOF", "git log --oneline -3"} {
		if got := whatOf("command", cmd, "", whatRunes); strings.Contains(got, "(message:") {
			t.Errorf("%q: %q names a message", cmd, got)
		}
	}
	// Where the output's commit line names the subject, the call does not
	// again; in flight at the cut, the commit says what it commits.
	evs0 := seqd(human("Commit it."), call("Bash", "c0", `{"command":"git commit -F - <<'EOF'\nfix(x): zero\nEOF"}`), result("Bash", "c0", true, "[main 3f2a1b9] fix(x): zero\n 1 file changed"), say("Done."))
	if ra := blockText(t, build(t, "s", evs0, Options{}, nil), "Recent Actions"); strings.Contains(ra, "(message:") || !strings.Contains(ra, "[main 3f2a1b9] fix(x): zero") {
		t.Errorf("the subject twice, or the commit line lost:\n%s", ra)
	}
	evs := seqd(human("Commit it."), call("Bash", "c1", `{"command":"git commit -q -F - <<'EOF'\nfix(x): one\nEOF"}`))
	ps := blockText(t, build(t, "s", evs, Options{}, nil), "Pending State")
	if !strings.Contains(ps, "(message: fix(x): one)") {
		t.Errorf("the commit in flight lost its subject:\n%s", ps)
	}
}
