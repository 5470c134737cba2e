package tape

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

// The newest keptNewestActions calls of Recent Actions quote their key
// lines at length (maxKeyLines); an older call that worked quotes its last
// olderKeyLines: what was done last at length, the earlier outcomes in
// fewer lines, so that more of them fit.
func TestAnOlderCallQuotesFewerKeyLines(t *testing.T) {
	evs := []session.Event{withMeta(human("Run the suites."), "cwd", "/r")}
	for k := range 6 {
		in, _ := json.Marshal(map[string]string{"command": fmt.Sprintf("go test ./suite%d/...", k)})
		id := fmt.Sprintf("t%d", k)
		var out strings.Builder
		for p := range 4 {
			fmt.Fprintf(&out, "ok  \tgithub.com/x/suite%d/pkg%d\t0.%d1s\n", k, p, p)
		}
		evs = append(evs, call("Bash", id, string(in)), result("Bash", id, true, out.String()))
	}
	acts := blockText(t, build(t, "s", seqd(evs...), Options{}, nil), "Recent Actions")
	for k := range 6 {
		quoted := strings.Count(acts, fmt.Sprintf("github.com/x/suite%d/", k))
		want := maxKeyLines
		if k < 6-keptNewestActions {
			want = olderKeyLines
		}
		if quoted != want {
			t.Errorf("suite %d: %d key lines quoted, want %d:\n%s", k, quoted, want, acts)
		}
	}
	if !strings.Contains(acts, "suite0/pkg3") || strings.Contains(acts, "suite0/pkg0") {
		t.Errorf("an older call keeps other than its last key lines:\n%s", acts)
	}
}

// An older call keeps its last olderKeyLines, but not at the price of
// the run's largest verdict: cargo test -p prints a verdict per test
// binary, and the last three lines of a run that passed 200 tests said
// "running 2 tests", "1 passed; … 1 ignored" and the doc tests' time (a
// real Codex session). The largest verdict of a shape that repeats stays,
// with the last lines after it.
func TestAnOlderCallKeepsItsLargestVerdict(t *testing.T) {
	cargo := strings.Join([]string{
		"running 200 tests",
		"test result: ok. 200 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.10s",
		"     Running tests/config.rs (target/debug/deps/config-1f2e)",
		"running 2 tests",
		"test result: ok. 1 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s",
		"all doctests ran in 0.77s; merged doctests compilation took 0.55s",
	}, "\n")
	evs := []session.Event{withMeta(human("Run the tests."), "cwd", "/r")}
	for k := range keptNewestActions + 1 {
		cmd, out := fmt.Sprintf("echo step%d > f%d", k, k), ""
		if k == 0 {
			cmd, out = "cargo test -p fnox-core", cargo
		}
		in, _ := json.Marshal(map[string]string{"command": cmd})
		id := fmt.Sprintf("t%d", k)
		evs = append(evs, call("Bash", id, string(in)), result("Bash", id, true, out))
	}
	acts := blockText(t, build(t, "s", seqd(evs...), Options{}, nil), "Recent Actions")
	line := acts[strings.Index(acts, "cargo test"):]
	line = line[:strings.Index(line, "\n- ")]
	if !strings.Contains(line, "200 passed") || !strings.Contains(line, "all doctests ran") {
		t.Errorf("the older cargo run lost its largest verdict or its last line:\n%s", line)
	}
	if n := strings.Count(line, "\n    → "); n != olderKeyLines {
		t.Errorf("the older cargo run quotes %d key lines, want %d:\n%s", n, olderKeyLines, line)
	}
}

// A log whose lines open with a timestamp: its first number counts
// nothing, and the older call keeps its last lines (a CI job's retries,
// "2026-07-23T21:06:28Z ##[warning]… attempt 3 failed").
func TestOlderKeyLinesOfALogAreItsLast(t *testing.T) {
	key := []string{
		"2026-07-23T21:06:08Z ##[warning]install attempt 1 failed: no match",
		"2026-07-23T21:06:18Z ##[warning]install attempt 2 failed: no match",
		"2026-07-23T21:06:28Z ##[warning]install attempt 3 failed: no match",
		"2026-07-23T21:06:38Z ##[error]Process completed with exit code 1.",
	}
	if got := olderKey(key); !reflect.DeepEqual(got, key[1:]) {
		t.Errorf("olderKey = %q, want the last %d lines", got, olderKeyLines)
	}
}
