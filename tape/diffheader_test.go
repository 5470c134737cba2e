package tape

import (
	"slices"
	"strings"
	"testing"
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
