package tape

import (
	"strings"
	"testing"
)

// A call that only read and failed (cat of a file that is not there, ls
// of a path, a Read tool's missing file) changed nothing and leaves
// nothing to redo: what it found is its output, which Recent Actions
// shows. Pending State's failures not fixed since are the calls that
// acted and failed (a test run, a build, a push); the open turn ending on
// a look-up is no failure to handle first.
func TestAFailedLookUpIsNoPendingFailure(t *testing.T) {
	tp := build(t, "s", seqd(human("Scaffold the app from the plan."),
		call("shell", "c1", `{"command":["bash","-lc","cat .codex/prompts/implement.md"]}`),
		result("shell", "c1", false, "cat: .codex/prompts/implement.md: No such file or directory"),
		call("shell", "c2", `{"command":["bash","-lc","pnpm test"]}`),
		result("shell", "c2", false, "ERR_PNPM_NO_IMPORTER_MANIFEST_FOUND No package.json was found in /work/app"),
		call("Read", "r1", `{"file_path":"/work/app/tsconfig.json"}`),
		result("Read", "r1", false, "File does not exist."),
		say("There is no project scaffold yet: no package.json."),
		call("shell", "c3", `{"command":["bash","-lc","ls package.json"]}`),
		result("shell", "c3", false, "ls: package.json: No such file or directory")), Options{}, nil)
	pending := blockText(t, tp, "Pending State")
	if !strings.Contains(pending, "pnpm test") || !strings.Contains(pending, "ERR_PNPM_NO_IMPORTER_MANIFEST_FOUND") {
		t.Errorf("Pending State lacks the test run that failed:\n%s", pending)
	}
	for _, lookUp := range []string{"cat .codex/prompts/implement.md", "tsconfig.json", "ls package.json"} {
		if strings.Contains(pending, lookUp) {
			t.Errorf("Pending State lists the failed look-up %q:\n%s", lookUp, pending)
		}
	}
	actions := blockText(t, tp, "Recent Actions")
	for _, want := range []string{"ls package.json", "ls: package.json: No such file or directory", "cat: .codex/prompts/implement.md: No such file or directory"} {
		if !strings.Contains(actions, want) {
			t.Errorf("Recent Actions lacks %q of a failed look-up:\n%s", want, actions)
		}
	}
}
