package tape

import (
	"slices"
	"strings"
	"testing"
)

// git status --short (-s, -sb, --porcelain) names each changed file by two
// status letters and its path (" M README.md", "A  src/x.go"), as the long
// form does by "modified:" and "new file:": the files the work changed and
// has not committed are key lines of its output. Untracked files ("?? x")
// are not, as the long form's untracked list is not: tracked changes come
// first in git's order, and the cap on key lines kept the untracked ones
// at their end instead. With -b, the first line names the branch and how
// far it is from its upstream ("## main...origin/main [ahead 1]"): a key
// line of such an output too, which a verdict no longer shows whole.
func TestGitShortStatusNamesTheChangedFiles(t *testing.T) {
	out := "## 001-build-a-lightweight\n M README.md\nRM old.go -> new.go\n?? .arguments/\n?? .codex/\n?? .specify/\n?? AGENTS.md\n?? specs/\n"
	got := keyLines(out, true)
	joined := strings.Join(got, "\n")
	for _, want := range []string{"## 001-build-a-lightweight", "M README.md", "RM old.go -> new.go"} {
		if !strings.Contains(joined, want) {
			t.Errorf("key lines %q lack %q", got, want)
		}
	}
	for _, l := range got[:len(got)-1] { // the last line is always kept
		if strings.HasPrefix(l, "??") {
			t.Errorf("key lines %q hold the untracked file %q before the changed ones", got, l)
		}
	}
	// A Markdown heading in other output is no branch line.
	if got := keyLines("## Notes\n- HTTP 429\n- HTTP 500\n- HTTP 503\nok 1 passed\n", true); strings.Contains(strings.Join(got, "\n"), "## Notes") {
		t.Errorf("key lines %q hold a heading of a file's text", got)
	}
	// The shape needs its two status letters and a path: prose, a
	// Markdown heading or a table's cell is no status line.
	for _, l := range []string{"A  great plan", "## Error Cases", "MM", "M  ", "OK  done", "?? specs/", "do it"} {
		if shortStatusLine(l) {
			t.Errorf("%q read as a changed file of git status --short", l)
		}
	}
	for _, l := range []string{" M README.md", "M  src/x.go", "MM src/x.go", " D gone.txt", "R  a.go -> b.go", "UU conflict.go", "AM new.go"} {
		if !shortStatusLine(l) {
			t.Errorf("%q not read as a changed file of git status --short", l)
		}
	}
}

// Git's words for an operation in progress are the repository's state:
// a merge stopped on conflicts ("You have unmerged paths", "Automatic
// merge failed", "CONFLICT (content): Merge conflict in …"), one whose
// conflicts are fixed ("All conflicts fixed but you are still merging"),
// a rebase or cherry-pick under way. They are key lines of the output,
// as "nothing to commit" is.
func TestGitsOperationInProgressIsAKeyLine(t *testing.T) {
	for _, l := range []string{
		"You have unmerged paths.",
		"All conflicts fixed but you are still merging.",
		"Automatic merge failed; fix conflicts and then commit the result.",
		"CONFLICT (content): Merge conflict in .cursor-plugin/plugin.json",
		"interactive rebase in progress; onto 1a2b3c4",
		"You are currently rebasing branch 'feature' on '1a2b3c4'.",
		"You are currently cherry-picking commit 1a2b3c4.",
		"You are currently reverting commit 1a2b3c4.",
		"You are currently bisecting, started from branch 'main'.",
	} {
		if !isKeyLine(l) {
			t.Errorf("%q is no key line", l)
		}
	}
	out := "On branch alisha/refactor\nYou have unmerged paths.\n  (fix conflicts and run \"git commit\")\n  (use \"git merge --abort\" to abort the merge)\n\nUnmerged paths:\n  (use \"git add <file>...\" to mark resolution)\n\tboth modified:   package.json\n\tboth modified:   gemini-extension.json\n"
	if k := keyLines(out, true); !slices.Contains(k, "You have unmerged paths.") {
		t.Errorf("git status's key lines %q lack the merge in progress", k)
	}
}

// A merge stopped on its conflicts lists every unmerged path, more than
// the key lines have room for, and git names the state above them: the
// state is the output's verdict and is kept before the paths, as is how
// far the branch is from its upstream. Git's unmerged paths are named by
// its own labels ("deleted by us:", "added by them:", "both added:"), not
// "both modified:" alone: each is a changed file of the status.
func TestGitStatusKeepsTheStateAboveItsPaths(t *testing.T) {
	out := "On branch alisha/refactor\nYour branch is ahead of 'origin/alisha/refactor' by 2 commits.\n  (use \"git push\" to publish your local commits)\n\nYou have unmerged paths.\n  (fix conflicts and run \"git commit\")\n  (use \"git merge --abort\" to abort the merge)\n\nChanges to be committed:\n\tmodified:   .gitignore\n\tmodified:   README.md\n\tnew file:   plugins/entire/skills/what-happened/SKILL.md\n\nUnmerged paths:\n  (use \"git add/rm <file>...\" as appropriate to mark resolution)\n\tboth modified:   .claude-plugin/marketplace.json\n\tboth modified:   .claude-plugin/plugin.json\n\tboth modified:   .codex-plugin/plugin.json\n\tboth modified:   .cursor-plugin/plugin.json\n\tboth modified:   .opencode/INSTALL.md\n\tboth modified:   gemini-extension.json\n\tdeleted by us:   GEMINI.md\n\tboth modified:   package.json\n"
	got := keyLines(out, true)
	for _, want := range []string{"You have unmerged paths.", "Your branch is ahead of 'origin/alisha/refactor' by 2 commits.", "both modified:   package.json", "deleted by us:   GEMINI.md"} {
		if !slices.Contains(got, want) {
			t.Errorf("git status's key lines %q lack %q", got, want)
		}
	}
	for _, l := range []string{"deleted by us:   GEMINI.md", "deleted by them: a.go", "added by us:     b.go", "added by them:   c.go", "both added:      d.go", "both deleted:    e.go", "typechange: f", "copied:     g -> h"} {
		if !isKeyLine(l) {
			t.Errorf("git status's %q is no key line", l)
		}
	}
	// With no state to tell, the paths fill the room from the end, as
	// before.
	clean := "On branch main\nChanges not staged for commit:\n\tmodified:   a.go\n\tmodified:   b.go\n\tmodified:   c.go\n\tmodified:   d.go\n\tmodified:   e.go\n"
	if got := keyLines(clean, true); !slices.Equal(got, []string{"modified:   b.go", "modified:   c.go", "modified:   d.go", "modified:   e.go"}) {
		t.Errorf("key lines of a status without a state: %q", got)
	}
}

// A check's count before the paths git status names after it: a command
// that validates, then lists what it changed (`openspec validate --all;
// git status --short`), keeps its verdict, and the paths, which Workspace
// Files names, take what room is left: at most the last. A real session's
// "Totals: 20 passed, 5 failed" lost its room to ten short-status lines;
// an older call keeps its last 3 key lines, so the verdict is kept among
// those.
func TestACountBeforeThePathsGitNamesStays(t *testing.T) {
	out := "=== is it passing? ===\n✓ spec/ci-image-handoff\n✗ spec/windows-version-tracking\nTotals: 20 passed, 5 failed (25 items)\n=== restored ===\nA  openspec/archive/a/proposal.md\nA  openspec/archive/a/tasks.md\n D openspec/changes/a/proposal.md\n D openspec/changes/a/tasks.md\n"
	got := keyLines(out, true)
	last3 := got[max(0, len(got)-3):]
	if !slices.Contains(last3, "Totals: 20 passed, 5 failed (25 items)") {
		t.Fatalf("the count is not among the last 3 key lines: %q", got)
	}
	if !slices.Contains(got, "D openspec/changes/a/tasks.md") {
		t.Fatalf("the last path is gone: %q", got)
	}
}
