package tape

import (
	"strings"
	"testing"
)

// Claude Code on Windows runs commands with its PowerShell tool
// ({"command": …}, as Bash's): it is a shell, so its calls are commands
// ("$ git commit …"), and a commit or a push through it is a milestone.
// A real conductor
// session ran every git and gh command so: its tape had named them
// "PowerShell ok: …" and kept none as a milestone.
func TestPowerShellIsAShell(t *testing.T) {
	if !isShellTool("PowerShell") {
		t.Fatal("PowerShell is no shell")
	}
	b := fold(t, "s", seqd(human("Commit it."),
		call("PowerShell", "p1", `{"command":"git commit -m \"feat: board\"","description":"Commit"}`), result("PowerShell", "p1", true, "[dev 59bc98d] feat: board\n 2 files changed, 40 insertions(+)"),
	))
	if len(b.st.Milestones) != 1 || b.st.Milestones[0].Kind != "vcs" {
		t.Fatalf("milestones %+v: want the commit", b.st.Milestones)
	}
	tp, err := b.Build(Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a := blockText(t, tp, "Recent Actions"); !strings.Contains(a, `ok: $ git commit -m "feat: board"`) {
		t.Fatalf("the commit is not named as a command:\n%s", a)
	}
}
