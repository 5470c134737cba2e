package tape

import (
	"strings"
	"testing"
)

// What Claude Code writes into a result for its model and not as the
// call's output is no key line: its placeholder for an empty output
// ("(Bash completed with no output)": "ok" says it ran), and the
// bookkeeping it appends to a sub-agent's result ("agentId: …" and the
// <usage> block), which Sub-agent Reports leaves out too.
func TestTheHostsWordsInAResultAreNoKeyLines(t *testing.T) {
	if got := keyLines("(Bash completed with no output)", true); len(got) != 0 {
		t.Errorf("the empty output's placeholder gave key lines %q", got)
	}
	report := "## Findings\n\nThe cache is rebuilt on start.\n\nAll 12 tests pass.\nagentId: a7be2f0 (for resuming to continue this agent's work if needed)\n<usage>total_tokens: 30610\ntool_uses: 19\nduration_ms: 106326</usage>"
	got := keyLines(report, true)
	if len(got) == 0 || got[len(got)-1] != "All 12 tests pass." {
		t.Fatalf("a sub-agent's result: key lines %q, want its last line of its own last", got)
	}
	for _, l := range got {
		if strings.Contains(l, "duration_ms") || strings.Contains(l, "agentId") || strings.Contains(l, "usage>") {
			t.Errorf("the host's bookkeeping is a key line: %q", l)
		}
	}
}
