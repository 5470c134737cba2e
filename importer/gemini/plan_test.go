package gemini

import (
	"testing"

	"github.com/graft-project/graft/session"
)

// planVerdict reads exit_plan_mode's result as Gemini CLI 0.61.0 words it
// (its bundle holds each text): approved, turned down with words or
// without, the dialog cancelled, or a plan it could not take (the agent's
// failure).
func TestPlanVerdict(t *testing.T) {
	for _, c := range []struct {
		out, verdict, words string
	}{
		{"Plan approved. Switching to Default mode (edits will require confirmation).\n\nThe approved implementation plan is stored at: /p/plans/x.md\nRead and follow the plan strictly during implementation.", "", ""},
		{"Plan rejected. User feedback: Split it in two.\nKeep the API.\n\nThe plan is stored at: /p/plans/x.md\nRevise the plan based on the feedback.", session.DeclinedByUser, "Split it in two.\nKeep the API."},
		{"Plan rejected. No feedback provided.\n\nThe plan is stored at: /p/plans/x.md\nAsk the user for specific feedback on how to improve the plan.", session.DeclinedByUser, ""},
		{"User cancelled the plan approval dialog. The plan was not approved and you are still in Plan Mode.", session.DeclinedByUser, ""},
		{"Plan file does not exist: x.md. You must create the plan file before requesting approval.", "failed", ""},
	} {
		if v, w := planVerdict(c.out); v != c.verdict || w != c.words {
			t.Errorf("planVerdict(%q) = %q, %q; want %q, %q", c.out, v, w, c.verdict, c.words)
		}
	}
}
