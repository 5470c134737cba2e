package tape

import (
	"slices"
	"strings"
	"testing"
)

// A check piped into a filter (go build … | head, pytest … | tail) exits
// as the filter does: the host reports it ok. The line by which its
// output says it failed (a compiler's "file.go:1:2:" line, a test
// runner's FAIL, a summary that counts failures) is a key line, so the
// call's quote shows the failure, not its last line.
func TestTheLineByWhichACheckFailedIsAKeyLine(t *testing.T) {
	buildErr := "# github.com/x/y/internal/api\ninternal/api/job.go:1081:77: not enough arguments in call to resolver.Query().JobMetrics\n\thave (context.Context, string)\n\twant (context.Context, string, *int)\n"
	evs := seqd(
		human("Wire the new argument through."),
		call("Bash", "b1", `{"command":"go build ./... 2>&1 | head -30"}`),
		result("Bash", "b1", true, buildErr),
	)
	if acts := blockText(t, build(t, "s", evs, Options{}, nil), "Recent Actions"); !strings.Contains(acts, "→ internal/api/job.go:1081:77: not enough arguments") {
		t.Errorf("the build's error line is not quoted:\n%s", acts)
	}
	for _, tc := range []struct {
		out, key string
	}{
		{"FAILED tests/test_a.py::test_x - AssertionError\n=== 1 failed, 44 passed in 2.10s ===\nextra", "=== 1 failed, 44 passed in 2.10s ==="},
		{"--- FAIL: TestRoute (0.00s)\nFAIL\tgithub.com/x/y/route\t0.120s\nok  \tgithub.com/x/z\t0.1s", "--- FAIL: TestRoute (0.00s)"},
		{"error[E0425]: cannot find value `x` in this scope\n --> src/main.rs:3:5\nerror: could not compile `app` due to 1 previous error\nwarning: build failed", "error[E0425]: cannot find value `x` in this scope"},
		{"src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.\nsrc/b.ts(1,1): note\nFound 1 error.", "src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'."},
	} {
		if got := keyLines(tc.out, true); !slices.Contains(got, tc.key) {
			t.Errorf("key lines of %q are %q: want %q among them", tc.out, got, tc.key)
		}
	}
	for _, l := range []string{"=== 45 passed, 0 failed in 2.10s ===", " 0 fail", "test result: ok. 632 passed; 0 failed", "ok  \tgithub.com/x/y\t0.512s"} {
		if failedCheckLine(strings.TrimSpace(l)) {
			t.Errorf("%q reads as a failure", l)
		}
	}
}

// GHC (and Stack) write an error's header, "Main.hs:290:5: error:
// [GHC-44287]", and its message on the lines below it: the failure's
// quote takes the message with the header.
func TestAnErrorWhoseMessageIsOnTheNextLine(t *testing.T) {
	out := "system-scripts-0.1.0.0: unregistering (local file changes: app/hoogle-mcp/Main.hs)\n" +
		"Building library for system-scripts-0.1.0.0..\n" +
		"/home/p/system-scripts/app/hoogle-mcp/Main.hs:290:5: error: [GHC-44287]\n" +
		"    Illegal use of punning for field ‘textType’\n" +
		"    Suggested fix: Perhaps you intended to use NamedFieldPuns\n" +
		"    |\n290 |     TextContent\n    |     ^^^^^^^^^^^...\n\n\n" +
		"Error: [S-7282]\n       Stack failed to execute the build plan.\n"
	got := keyLines(out, false)
	if !slices.Contains(got, "Illegal use of punning for field ‘textType’") {
		t.Errorf("key lines %q lack the error's message", got)
	}
	if got := keyLines("build\nsrc/a.go:3:1: error: x is unused\nnext line\nmore\nlast\n", false); slices.Contains(got, "next line") {
		t.Errorf("an error line with its message took the next line too: %q", got)
	}
}

// Pending State shows two of a failure's key lines, the one that names its
// error among them. When that one is a bare header ("Error:" of a Rust
// tool's error report, mise's "Error: \n   0: could not execute …"), its
// message is the line below it, and the two are shown, not the output's
// first line and a header that says nothing (a real Codex session: "→
// Error:" was all Pending State said of two failed runs).
func TestPendingStateShowsTheMessageUnderABareErrorHeader(t *testing.T) {
	out := "mise github:cross-rs/cross@0.2.5 [1/3] install\nmise github:cross-rs/cross@0.2.5 ✓ installed\nError: \n   0: could not execute `rustc --print target-list`\n   1: No such file or directory (os error 2)\n"
	got := pendingKey(keyLines(out, false))
	if !slices.Contains(got, "0: could not execute `rustc --print target-list`") {
		t.Errorf("Pending State's lines of the failure %q lack the error's message", got)
	}
	// A failure worked around shows its error on one line: the header and
	// its message.
	if got := errorLineOf(keyLines(out, false)); got != "Error: 0: could not execute `rustc --print target-list`" {
		t.Errorf("the error line of a failure worked around: %q", got)
	}
	ghc := "Building library for system-scripts-0.1.0.0..\n/home/p/Main.hs:290:5: error: [GHC-44287]\n    Illegal use of punning for field ‘textType’\n    Suggested fix: Perhaps you intended to use NamedFieldPuns\n"
	if got := pendingKey(keyLines(ghc, false)); !slices.Equal(got, []string{"/home/p/Main.hs:290:5: error: [GHC-44287]", "Illegal use of punning for field ‘textType’"}) {
		t.Errorf("Pending State's lines of GHC's failure: %q", got)
	}
}

// A line whose lower case is longer than itself ("İ" lowers to two runes
// of three bytes) is read as it is: an error header's rest is looked for
// in the lowered line, never by its offsets in the other.
func TestAnErrorHeaderWithLettersThatGrowInLowerCase(t *testing.T) {
	for _, l := range []string{"İİİİİİİİ error:", "İİİİ error: [GHC-1]", "İİİİİİ error: x"} {
		want := !strings.HasSuffix(l, "x")
		if got := bareErrorHeader(l); got != want {
			t.Errorf("bareErrorHeader(%q) = %v, want %v", l, got, want)
		}
	}
}
