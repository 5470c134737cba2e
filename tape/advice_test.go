package tape

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// A runtime's advice on how to see more (CPython's "Enable tracemalloc to
// get traceback where the object was allocated.", Node's "(Use `node
// --trace-warnings ...` to show where the warning was created)", Rust's
// "note: run with `RUST_BACKTRACE=1` …", Gradle's "Run with --stacktrace
// option …") is printed after the warning or the error it is about, and is
// no outcome of the command: it took a key line of every pytest run with a
// warning, beside the verdict.
func TestRuntimeAdviceIsNoKeyLine(t *testing.T) {
	out := "tests/test_app.py::test_run\n" +
		"  /usr/lib/python3.12/asyncio/base_events.py:1: RuntimeWarning: coroutine 'x' was never awaited\n" +
		"  Enable tracemalloc to get traceback where the object was allocated.\n" +
		"  See https://docs.pytest.org/en/stable/how-to/capture-warnings.html#resource-warnings for more info.\n" +
		"1657 passed, 4 warnings in 30.07s\n"
	got := keyLines(out, true)
	if strings.Join(got, "\n") != "1657 passed, 4 warnings in 30.07s" {
		t.Errorf("key lines %q, want the verdict alone", got)
	}
	for _, l := range []string{
		"Enable tracemalloc to get traceback where the object was allocated.",
		"(Use `node --trace-warnings ...` to show where the warning was created)",
		"note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
		"Run with --stacktrace option to get the stack trace.",
		"Run with --info or --debug option to get more log output.",
	} {
		if !noiseLine(l) {
			t.Errorf("%q is no noise", l)
		}
	}
	for _, l := range []string{"error[E0308]: mismatched types", "1 passed (29.5s)", "(2 failed)", "RuntimeWarning: coroutine 'x' was never awaited"} {
		if noiseLine(l) {
			t.Errorf("%q taken for noise", l)
		}
	}
}

// A rule (a line of dashes, equals signs or box-drawing characters, a
// table's border, a label's "remote: ————") separates what a command
// printed and says nothing of it: no key line, so a table's last border
// does not take the place of the output's last line, and no room in the
// lines a failure shows (GitHub's push protection prints a rule between
// every finding).
func TestARuleIsNoKeyLine(t *testing.T) {
	for _, l := range []string{
		"==========", "----------------------------------------", "+------+-------+", "└────────┴───────┘",
		"remote:   —————————————————————————————————————————", "━━━━━━━━", "* * * * *", "............",
	} {
		if !noiseLine(l) {
			t.Errorf("%q is no noise", l)
		}
	}
	for _, l := range []string{
		"===== 4 failed, 31 passed in 0.39s =====", "remote:     —— Slack API Token ————————", "---", "--", "}", "...",
		"- item", "| name | 1 |", "remote: error: GH013", "-- a1b2c3",
	} {
		if noiseLine(l) {
			t.Errorf("%q taken for noise", l)
		}
	}
	out := "+------+-------+\nNAME    STATUS\n+------+-------+\napi     Running\ndb      Running\nweb     Pending\n+------+-------+\n"
	if got := keyLines(out, true); strings.Join(got, "\n") != "web     Pending" {
		t.Errorf("key lines %q, want the table's last row", got)
	}
	fail := "remote: error: GH013: Repository rule violations found\nremote:   ——————————————————————————————\nremote:     —— Slack API Token ——\nremote:          path: tests/a.py:32\n"
	got := outputLines(fail, 2000, 7, nil)
	for _, l := range got {
		if strings.Contains(l, "——————") {
			t.Errorf("failure lines %q keep the rule", got)
		}
	}
	if len(got) != 3 {
		t.Errorf("failure lines %q, want the 3 that say something", got)
	}
}

// GitHub's advice in a rejected push ("remote: (?) Learn how to resolve a
// blocked push", the settings page to visit) is about the host, not the
// push: no line of the failure's, so what it found — the secret's kind
// and the file and line it is at — fits in the lines the tape shows.
func TestAHostsAdviceIsNoKeyLine(t *testing.T) {
	for _, l := range []string{
		"remote:      (?) Learn how to resolve a blocked push",
		"remote:      (?) This repository does not have Secret Scanning enabled, but is eligible.",
		"(?) To push, remove secret from commit(s) or follow this URL to allow the secret.",
		// Codex's, cutting a command's output for its model.
		"Warning: truncated output (original token count: 8756)",
	} {
		if !noiseLine(l) {
			t.Errorf("%q is no noise", l)
		}
	}
	for _, l := range []string{"remote:       —— Slack API Token ———————", "remote:            path: tests/test_redaction.py:32", "remote: error: GH013: Repository rule violations found", "(?<![-a-f0-9]{4}-) lookbehind"} {
		if noiseLine(l) {
			t.Errorf("%q taken for noise", l)
		}
	}
}

// GitHub's advice runs from its "(?)" line to the next blank one (the
// page to read, the settings page to visit), and a finding's heading ends
// in a long rule ("—— Slack API Token ————…"): neither says anything the
// next window needs, and both took the room of the findings themselves,
// the file and line each secret is at.
func TestAPushProtectionFailureKeepsItsFindings(t *testing.T) {
	rule := strings.Repeat("—", 50)
	out := "remote: error: GH013: Repository rule violations found for refs/heads/unruffled-mcclintock.\n" +
		"remote: \nremote: - GITHUB PUSH PROTECTION\nremote:   " + rule + "\nremote:     Resolve the following violations before pushing again\nremote: \n" +
		"remote:     - Push cannot contain secrets\nremote: \nremote:     \n" +
		"remote:      (?) Learn how to resolve a blocked push\n" +
		"remote:      https://docs.github.com/code-security/secret-scanning/working-with-secret-scanning-and-push-protection/working-with-push-protection-from-the-command-line#resolving-a-blocked-push\n" +
		"remote:     \n" +
		"remote:      (?) This repository does not have Secret Scanning enabled, but is eligible. Enable Secret Scanning to view and manage detected secrets.\n" +
		"remote:      Visit the repository settings page, https://github.com/M-Thisness/M-Claude/settings/security_analysis\n" +
		"remote:     \nremote:     \n"
	for _, f := range []struct{ kind, lines string }{{"Slack API Token", "32"}, {"Stripe API Key", "220 222"}} {
		out += "remote:       —— " + f.kind + " " + rule + "\nremote:        locations:\n"
		for _, l := range strings.Fields(f.lines) {
			out += "remote:          - commit: ffe9ab782252faaf8cfdadb308f113fc535a7879\nremote:            path: tests/test_redaction.py:" + l + "\n"
		}
		out += "remote:     \nremote:        (?) To push, remove secret from commit(s) or follow this URL to allow the secret.\n" +
			"remote:        https://github.com/M-Thisness/M-Claude/security/secret-scanning/unblock-secret/383DgieecSibNymnLv4a6stTAOG\nremote:     \n"
	}
	out += "To https://github.com/M-Thisness/M-Claude.git\n ! [remote rejected] unruffled-mcclintock -> unruffled-mcclintock (push declined due to repository rule violations)\nerror: failed to push some refs to 'https://github.com/M-Thisness/M-Claude.git'\n"
	got := strings.Join(outputLines(out, lastFailureRunes, 155, nil), "\n")
	for _, want := range []string{"GH013", "Slack API Token", "tests/test_redaction.py:32", "Stripe API Key", "tests/test_redaction.py:222", "push declined"} {
		if !strings.Contains(got, want) {
			t.Errorf("the failure's lines lack %q:\n%s", want, got)
		}
	}
	for _, not := range []string{"docs.github.com", "settings page", "unblock-secret", "————"} {
		if strings.Contains(got, not) {
			t.Errorf("the failure's lines keep %q:\n%s", not, got)
		}
	}
}

func TestSqueezeRules(t *testing.T) {
	for in, want := range map[string]string{
		"—— Stripe API Key ————————————":  "—— Stripe API Key ——",
		"--- FAIL: TestFlags (0.00s)":     "--- FAIL: TestFlags (0.00s)",
		"===== 4 failed, 31 passed =====": "== 4 failed, 31 passed ==",
		"a ---- b":                        "a ---- b",
		"plain":                           "plain",
	} {
		if got := squeezeRules(in); got != want {
			t.Errorf("squeezeRules(%q) = %q, want %q", in, got, want)
		}
	}
}

// A line an output prints twice (a listing run twice in one command, two
// test binaries with the same verdict) is one key line: the room of the
// second goes to another line of the output.
func TestAKeyLineSaidTwiceIsShownOnce(t *testing.T) {
	listing := "-rw-r--r-- 1 k k 849 Aug 28 23:28 kpis.yml\n-rw-r--r-- 1 k k 523 Aug 28 23:28 resume.feature\n-rw-r--r-- 1 k k 849 Aug 28 23:28 kpis.yml\n"
	if got := keyLines(listing, true); len(got) != 2 || got[0] == got[1] {
		t.Errorf("key lines %q, want the two lines once each", got)
	}
	cargo := "running 3 tests\n" +
		"test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\n" +
		"running 200 tests\n" +
		"test result: ok. 200 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\n" +
		"running 0 tests\n" +
		"test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\n" +
		"running 0 tests\n" +
		"test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\n" +
		"all doctests ran in 0.77s\n"
	got := keyLines(cargo, true)
	seen := map[string]bool{}
	for _, l := range got {
		if seen[l] {
			t.Errorf("key lines %q say %q twice", got, l)
		}
		seen[l] = true
	}
	if want := "test result: ok. 200 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out"; !seen[want] {
		t.Errorf("key lines %q lack %q", got, want)
	}
}

// Cargo prints one "test result" line per test binary; a workspace prints
// twenty, the library's unit tests first and most of the rest "0 passed".
// More lines of one shape than the quote has room for: the one that
// counts the most (the run's largest suite) is kept beside the last ones
// (a real run: cargo test 2>&1 | grep "^test result", 21 lines).
func TestTheLargestOfManyVerdictsOfOneShapeIsKept(t *testing.T) {
	var b strings.Builder
	b.WriteString("test result: ok. 632 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 1.99s\n")
	for _, n := range []int{0, 6, 6, 8, 5, 11, 4, 3, 4, 15, 4, 2, 3, 4, 2, 2, 4, 3, 20, 0} {
		fmt.Fprintf(&b, "test result: ok. %d passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.29s\n", n)
	}
	got := keyLines(b.String(), true)
	if len(got) != maxKeyLines {
		t.Fatalf("key lines %q: want %d", got, maxKeyLines)
	}
	if !strings.Contains(got[0], "632 passed") {
		t.Errorf("key lines %q: want the 632 tests' verdict first (output order)", got)
	}
	if last := got[len(got)-1]; !strings.Contains(last, "0 passed") {
		t.Errorf("key lines %q: want the output's last line last", got)
	}
	// One verdict of each shape: nothing changes.
	out := "running 12 tests\ntest result: ok. 12 passed; 0 failed\n"
	if got := keyLines(out, true); len(got) != 2 || !strings.Contains(got[1], "12 passed") {
		t.Errorf("key lines %q: want the count and the one verdict", got)
	}
}

// A line with no letter and no digit (a JSON object's closing "}", "],",
// a lone "✓" or "…") says nothing by itself: it is no key line, so the
// last line of a JSON output is its last field, not its closing brace.
// In the tuning tapes such lines were 50 key lines, most of them a
// command's only one ("gh pr view --json …" → "}").
func TestALineOfPunctuationIsNoKeyLine(t *testing.T) {
	out := "{\n  \"number\": 10717,\n  \"state\": \"OPEN\",\n  \"mergeStateStatus\": \"BLOCKED\"\n}\n"
	got := keyLines(out, true)
	if len(got) == 0 || got[len(got)-1] != `"mergeStateStatus": "BLOCKED"` {
		t.Errorf("key lines %q: want the last field last", got)
	}
	for _, l := range got {
		if l == "{" || l == "}" {
			t.Errorf("key lines %q hold a brace", got)
		}
	}
	if got := keyLines("[\n  {\"name\": \"lint\", \"bucket\": \"fail\"}\n],\n", false); len(got) != 1 || got[0] != `{"name": "lint", "bucket": "fail"}` {
		t.Errorf("a failure's key lines %q: want its one line that says something", got)
	}
	if got := keyLines("✓\n…\n", true); got != nil {
		t.Errorf("key lines %q of an output that says nothing: want none", got)
	}
	// The lines of the open turn's last output, and of the last failure,
	// leave them out too.
	if got := outputLines(out, lastActionRunes, 3, nil); !reflect.DeepEqual(got, []string{`"number": 10717,`, `"state": "OPEN",`, `"mergeStateStatus": "BLOCKED"`}) {
		t.Errorf("outputLines = %q", got)
	}
}

// The open turn's last call shows its output's lines (outputLines); an
// output with no line to show (empty, or only the host's words) shows
// none: it had shown one empty key line, "→ " (a Gemini CLI chmod).
func TestAnEmptyLastOutputShowsNoLine(t *testing.T) {
	for _, out := range []string{"", "\n\n", "Exit code 0\n"} {
		if got := outputLines(out, lastActionRunes, 3, nil); len(got) != 0 {
			t.Errorf("outputLines(%q) = %q, want none", out, got)
		}
	}
	tp := build(t, "s", seqd(human("Make it executable."),
		call("Bash", "b1", `{"command":"chmod +x ~/.local/bin/toggle-theme"}`), result("Bash", "b1", true, "\n"),
	), Options{}, nil)
	if a := blockText(t, tp, "Recent Actions"); strings.Contains(a, "→ \n") || strings.HasSuffix(strings.TrimRight(a, "\n"), "→") {
		t.Errorf("Recent Actions shows an empty line of output:\n%q", a)
	}
}

// Two test binaries: the library's 200 tests, then an integration test's
// 2, then the doc tests (a real run of cargo test -p, Codex). The quote
// at length keeps the 200 tests' verdict among its lines, beside the
// second binary's; an older call's shorter quote keeps it from there
// (olderKey, TestAnOlderCallKeepsItsLargestVerdict), which it had cut:
// "1 passed" of a run that passed 200.
func TestTheLargestVerdictOutlivesOtherKeyLines(t *testing.T) {
	out := strings.Join([]string{
		"   Compiling fnox-core v1.28.0 (/src/fnox/crates/fnox-core)",
		"    Finished `test` profile [unoptimized + debuginfo] target(s) in 2.26s",
		"     Running unittests src/lib.rs (target/debug/deps/fnox_core-63b9)",
		"running 200 tests",
		"test auth::tests::skips ... ok",
		"test result: ok. 200 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.10s",
		"     Running tests/config.rs (target/debug/deps/config-1f2e)",
		"running 2 tests",
		"test loads ... ok",
		"test result: ok. 1 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s",
		"   Doc-tests fnox_core",
		"running 0 tests",
		"test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
		"all doctests ran in 0.77s; merged doctests compilation took 0.55s",
	}, "\n")
	got := keyLines(out, true)
	if !slices.ContainsFunc(got, func(l string) bool { return strings.Contains(l, "200 passed") }) {
		t.Errorf("key lines %q: want the 200 tests' verdict", got)
	}
	if len(got) > maxKeyLines || !strings.HasPrefix(got[len(got)-1], "all doctests ran") {
		t.Errorf("key lines %q: want at most %d, the output's last line last", got, maxKeyLines)
	}
	// One verdict of each shape, fewer key lines than the room: as before.
	short := "running 12 tests\ntest result: ok. 12 passed; 0 failed\n"
	if got := keyLines(short, true); len(got) != 2 {
		t.Errorf("key lines %q: want the count and the verdict", got)
	}
}
