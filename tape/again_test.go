package tape

import (
	"strings"
	"testing"
)

// The same call failing again and again (a debug test run after each
// change that fails by design, a build retried) is one pending failure:
// the newest run, which names the seqs it failed at before; a different
// call's failure keeps its own line.
func TestAFailureRepeatedIsListedOnce(t *testing.T) {
	run := `{"command":"go test ./internal/sem -run TestDebug -count=1"}`
	evs := seqd(human("Fix the parser."), // 1
		call("Bash", "a", run), result("Bash", "a", false, "debug_test.go:46: wrote 20 failing files\nFAIL"), // 2, 3
		call("Bash", "b", `{"command":"make lint"}`), result("Bash", "b", false, "lint: 2 issues\nmake: *** [lint] Error 1"), // 4, 5
		call("Bash", "c", run), result("Bash", "c", false, "debug_test.go:46: wrote 10 failing files\nFAIL"), // 6, 7
		call("Bash", "d", run), result("Bash", "d", false, "debug_test.go:46: wrote 3 failing files\nFAIL"), // 8, 9
		say("Down to 3 files."))
	ps := stillPending(blockText(t, build(t, "s", evs, Options{}, nil), "Pending State"))
	if n := strings.Count(ps, "$ go test ./internal/sem -run TestDebug"); n != 1 {
		t.Errorf("the repeated failure is listed %d times, want once:\n%s", n, ps)
	}
	for _, want := range []string{"- seq=9 FAILED (open turn; it failed at seq=3 and seq=7 too): $ go test ./internal/sem -run TestDebug -count=1", "wrote 3 failing files", "- seq=5 FAILED (open turn): $ make lint"} {
		if !strings.Contains(ps, want) {
			t.Errorf("want %q:\n%s", want, ps)
		}
	}
	if strings.Contains(ps, "wrote 20 failing files") {
		t.Errorf("an older run's output is the newest's to say:\n%s", ps)
	}
}
