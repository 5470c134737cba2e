package tape

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

// A diff's header lines ("--- a/x", "+++ b/x", "index 703c470e..8a73cde9
// 100644") are no verdicts: "--- " opens go test's "--- FAIL: TestX", and
// "a..b" of two hashes is a push's range, but in a diff they only name the
// file and its blobs (a real session: git log; git diff, whose quote held
// the header and a code line instead of the log).
func TestADiffsHeaderIsNoKeyLine(t *testing.T) {
	for _, l := range []string{
		"--- a/pkg/metricstore/metricstore.go",
		"+++ b/pkg/metricstore/metricstore.go",
		"--- /dev/null",
		"index 703c470e..8a73cde9 100644",
		"index 0000000..e69de29",
	} {
		if isKeyLine(l) {
			t.Errorf("isKeyLine(%q) = true, want false", l)
		}
	}
	for _, l := range []string{
		"--- FAIL: TestPager (0.00s)",
		"--- PASS: TestPager (0.00s)",
		"   3f2a1b9..8c4d2e7  main -> main",
	} {
		if !isKeyLine(l) {
			t.Errorf("isKeyLine(%q) = false, want true", l)
		}
	}
}

// "--- " opens go test's verdicts ("--- FAIL: TestX", "--- PASS", "---
// SKIP"), not every line that starts with three dashes: a chain of
// commands heads each part of its output with one ("echo '--- failures?
// ---'", "--- path ---" per file a script prints), and those headings
// took the room of the lines under them (real Claude Code and Codex
// sessions: "--- failures? ---", "--- mergeable ---" quoted where "9
// pass" stood below).
func TestAnEchoedHeadingIsNoKeyLine(t *testing.T) {
	for _, l := range []string{"--- failures? ---", "--- issue comments ---", "--- crates/fnox-core/providers/foks.toml ---", "--- ../ship-g4"} {
		if isKeyLine(l) {
			t.Errorf("isKeyLine(%q) = true, want false", l)
		}
	}
	for _, l := range []string{"--- FAIL: TestPager (0.00s)", "--- PASS: TestPager (0.00s)", "--- SKIP: TestRealHost (0.00s)"} {
		if !isKeyLine(l) {
			t.Errorf("isKeyLine(%q) = false, want true", l)
		}
	}
	out := "--- failures? ---\n--- mergeable ---\nMERGEABLE\n--- checks ---\nbuild\tpass\t1m2s\n9 pass\n"
	if k := keyLines(out, true); slices.Contains(k, "--- failures? ---") {
		t.Errorf("key lines %q hold an echoed heading", k)
	}
}

// go test says of a package without tests "? pkg [no test files]": what
// the run did not test is a verdict beside the "ok" lines (a real session:
// internal/archiver had none, and the quote showed only the three ok's).
func TestGoTestsNoTestFilesIsAKeyLine(t *testing.T) {
	out := "ok  \tgithub.com/x/y/internal/auth\t0.458s\n" +
		"ok  \tgithub.com/x/y/internal/api\t6.994s\n" +
		"?   \tgithub.com/x/y/internal/archiver\t[no test files]\n" +
		"ok  \tgithub.com/x/y/pkg/metricstore\t1.001s\n"
	got := keyLines(out, true)
	if !slices.ContainsFunc(got, func(l string) bool { return strings.Contains(l, "[no test files]") }) {
		t.Errorf("key lines %q lack the package with no test files", got)
	}
}

// The host's own tool loading (Claude Code's ToolSearch "select:…",
// answered by a tool_reference block; Codex's tool_search) and the plan
// the person approved (ExitPlanMode: Task Status shows the plan) quote
// nothing in Recent Actions: their outputs are no outcome of the work.
func TestToolLoadingAndPlanApprovalQuoteNothing(t *testing.T) {
	for _, name := range []string{"ToolSearch", "tool_search", "ExitPlanMode", "exit_plan_mode"} {
		if quotesOutput(name) {
			t.Errorf("quotesOutput(%q) = true, want false", name)
		}
	}
	for _, name := range []string{"Bash", "Agent", "mcp__github__create_pull_request"} {
		if !quotesOutput(name) {
			t.Errorf("quotesOutput(%q) = false, want true", name)
		}
	}
}

// Codex's code mode lets the model read its own tool list in a script
// (ALL_TOOLS.filter(…), ALL_TOOLS.find(…)) before it calls one: the model
// looking up its tools, as tool_search is, no outcome of the work. Such a
// script quotes nothing and is no milestone; a script that calls a tool
// (await tools.…) is work.
func TestACodeModeScriptThatReadsTheToolListQuotesNothing(t *testing.T) {
	script := func(id, code, out string) []session.Event {
		in, _ := json.Marshal(map[string]string{"input": code}) // as the importer gives a script
		return []session.Event{call("exec", id, string(in)), result("exec", id, true, out)}
	}
	evs := []session.Event{human("Find the PR's failing checks.")}
	evs = append(evs, script("c1", `const meta = ALL_TOOLS.filter(x => /github|discussion/i.test(x.name+" "+x.description)); text(meta);`,
		`[{"name":"mcp__codex_apps__github_add_comment_to_issue","description":"Access repositories, issues, and pull requests."}]`)...)
	evs = append(evs, script("c2", "const meta = ALL_TOOLS.find(x => x.name === \"mcp__codex_apps__github_fetch_pr\");\nconst pr = await tools.mcp__codex_apps__github_fetch_pr({number: 10973}); text(pr);",
		`{"url":"https://github.com/jdx/mise/pull/10973","state":"open"}`)...)
	tp := build(t, "s", seqd(evs...), Options{}, nil)
	ra := blockText(t, tp, "Recent Actions")
	if strings.Contains(ra, "mcp__codex_apps__github_add_comment_to_issue") {
		t.Errorf("the tool list is quoted:\n%s", ra)
	}
	if !strings.Contains(ra, "pull/10973") {
		t.Errorf("the script that called a tool quotes nothing:\n%s", ra)
	}
	// Its ".test(" read as a test run made it one.
	for _, m := range fold(t, "s", seqd(evs...)).st.Milestones {
		if strings.Contains(m.What, "ALL_TOOLS") {
			t.Errorf("the tool list's look-up is a milestone: %+v", m)
		}
	}
}

// The lines of a diff's hunks (after "@@ -a,b +c,d @@": added, removed
// and context lines) are code, no outcome: a real session's git diff was
// quoted by `cclog.Errorf("Error get tags …")` and `return tags, nil`,
// another's by `-	fail(` and `} finally {`, lines that hold an error word
// or end the output. The diff names its files; what a chain ran besides
// (git log, a test run) keeps its key lines.
func TestADiffsHunkLinesAreNoKeyLines(t *testing.T) {
	out := "5be1b91 bun verify (#25)\n" +
		"diff --git a/scripts/release.ts b/scripts/release.ts\n" +
		"index 703c470e..8a73cde9 100644\n" +
		"--- a/scripts/release.ts\n" +
		"+++ b/scripts/release.ts\n" +
		"@@ -593,6 +610,10 @@ func (r *JobRepository) getArchiveTags(job *int64) ([]*schema.Tag, error) {\n" +
		"-\t\t\tfail(\n" +
		"-\t\t\t\t`${pkgName}: cannot resolve workspace dependency ${depName} — not found in workspace`,\n" +
		"+\t\t\tcclog.Errorf(\"Error get tags with %s: %v\", s, err)\n" +
		" \t\treturn tags, nil\n" +
		"\n" +
		"\\ No newline at end of file\n" +
		" } finally {\n" +
		"ok  \tgithub.com/x/y/internal/auth\t0.458s\n"
	got := keyLines(out, true)
	for _, l := range got {
		for _, code := range []string{"fail(", "cannot resolve", "cclog.Errorf", "return tags", "finally", "@@"} {
			if strings.Contains(l, code) {
				t.Errorf("key lines %q quote the diff's line %q", got, l)
			}
		}
	}
	if !slices.ContainsFunc(got, func(l string) bool { return strings.HasPrefix(l, "ok ") }) {
		t.Errorf("key lines %q lack the test run after the diff", got)
	}
	// A hunk ends where its header's counts end: git diff --stat's line
	// after it opens with a space, as a context line does.
	out = "@@ -1 +1 @@\n-a\n+b\n 1 file changed, 1 insertion(+), 1 deletion(-)\n"
	if got := keyLines(out, true); !slices.Contains(got, "1 file changed, 1 insertion(+), 1 deletion(-)") {
		t.Errorf("key lines %q lost the stat after a hunk's last line", got)
	}
	// Lines that only look like a hunk's, outside one, stay: a list's
	// "- item".
	if got := keyLines("Changes:\n- 3 tests passed\n", true); !slices.Contains(got, "- 3 tests passed") {
		t.Errorf("key lines %q lost a list's line outside any hunk", got)
	}
}
