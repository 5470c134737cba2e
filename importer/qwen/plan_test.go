package qwen

import (
	"testing"

	"github.com/graft-project/graft/session"
)

// planVerdict reads exit_plan_mode's successful results as Qwen Code
// 0.24.4 words them (its bundle holds each text): approved (by the person
// or, in agent-team mode, the leader), not approved, the exit stopped, or
// an approval gone stale (no action: the agent's call failed). The person's
// "No, keep planning" at the prompt is a cancelled call (deniedReason), no
// success.
func TestPlanVerdict(t *testing.T) {
	for _, c := range []struct{ out, verdict string }{
		{"User approved. You can now start coding. Start with updating your todo list if applicable.", ""},
		{"Leader approved. You can now start coding.", ""},
		{"Plan execution was not approved. Remaining in plan mode.", session.DeclinedByUser},
		{"Plan exit was cancelled. Remaining in plan mode.", session.DeclinedStopped},
		{"Plan approval is stale because the approval mode changed. No action was taken.", "failed"},
	} {
		if v := planVerdict(c.out); v != c.verdict {
			t.Errorf("planVerdict(%q) = %q, want %q", c.out, v, c.verdict)
		}
	}
}
