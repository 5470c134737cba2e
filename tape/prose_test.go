package tape

import (
	"strings"
	"testing"
)

// A model's message names the files inside the working directory relative
// to it: Codex's models link each file by its absolute path, and a tape
// quoting them spent a tenth of its Breakpoint on one folder's name.
func TestProseNamesPathsRelativeToTheWorkingDirectory(t *testing.T) {
	const cwd = "/Users/me/src/ship"
	for _, c := range []struct{ in, want string }{
		{"I updated [quickstart.md](/Users/me/src/ship/specs/003/quickstart.md) with the results.",
			"I updated specs/003/quickstart.md with the results."},
		{"See [a.go:12](/Users/me/src/ship/pkg/a.go:12) and [`b.go`](/Users/me/src/ship/b.go#L4).",
			"See pkg/a.go:12 and b.go#L4."},
		{"The [plan](/Users/me/src/ship/docs/plan.md) says so.",
			"The [plan](docs/plan.md) says so."},
		{"Run /Users/me/src/ship/scripts/x.sh, not /Users/me/src/other/y.sh or [y](/etc/y).",
			"Run scripts/x.sh, not /Users/me/src/other/y.sh or [y](/etc/y)."},
		{"[broken](/Users/me/src/ship/a.go", "[broken](a.go"},
		{"No path here.", "No path here."},
		// Codex's app directives name the folder they act in: it is the
		// session's, which Workspace Files names.
		{"Pushed.\n::git-stage{cwd=\"/Users/me/src/ship\"}\n::git-push{cwd=\"/Users/me/src/ship\" branch=\"codex/fix\"}\n::git-stage{cwd=\"/Users/me/src/other\"}",
			"Pushed.\n::git-stage{}\n::git-push{branch=\"codex/fix\"}\n::git-stage{cwd=\"/Users/me/src/other\"}"},
	} {
		if got := proseRel(c.in, cwd); got != c.want {
			t.Errorf("proseRel(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
	if got := proseRel(`Edited C:\Code\app\src\main.ts.`, `C:\Code\app`); got != `Edited src\main.ts.` {
		t.Errorf("a Windows session's path: got %q", got)
	}
	if got := proseRel("/a/b/c", ""); got != "/a/b/c" {
		t.Errorf("no working directory: got %q", got)
	}

	evs := seqd(
		withMeta(human("Record the results."), "cwd", cwd),
		say("I updated [quickstart.md](/Users/me/src/ship/specs/003/quickstart.md)."),
		call("Bash", "b1", `{"command":"git status"}`),
		result("Bash", "b1", true, "nothing to commit"),
		say("Done: [quickstart.md](/Users/me/src/ship/specs/003/quickstart.md) holds them."),
	)
	blk := blockText(t, build(t, "s", evs, Options{}, nil), "Breakpoint")
	for _, want := range []string{"seq=2: I updated specs/003/quickstart.md.", "Done: specs/003/quickstart.md holds them."} {
		if !strings.Contains(blk, want) {
			t.Errorf("the Breakpoint lacks %q:\n%s", want, blk)
		}
	}
}
