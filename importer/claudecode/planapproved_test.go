package claudecode

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

// When the person approves a plan and has Claude Code clear the context
// to implement it, the host starts the conversation anew with a user line
// of its own: "Implement the following plan:\n\n<plan>", the hint where
// the earlier transcript is, and, when the person typed any, "User
// feedback on this plan: …" (the pinned 2.1.332 builds it so, with origin
// auto-continuation and the plan in planContent; 2.1.37 to 2.1.78 wrote
// the same text and planContent with no origin). The plan is the model's,
// approved: one user/message of kind system, plan-approved, holds the
// line's text, meta plan the plan's byte range in it (session.MetaPlan);
// none of it is the person's words, so no human instruction comes of it
// but their feedback, a human instruction of its own (plan-feedback).
func TestAnApprovedPlanIsNoHumanInstruction(t *testing.T) {
	plan := "# Plan: Docker-Based Lambda Runtime\n\n## Files\n- Keep the existing `UpdateNodeState` method.\n"
	hint := "\n\nIf you need specific details from before exiting plan mode (like exact code snippets, error messages, or content you generated), read the full transcript at: /u/.claude/projects/p/abc.jsonl"
	quote := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	old := "Implement the following plan:\n\n" + plan + hint
	current := old + "\n\nUser feedback on this plan: use sqlite, not postgres"
	lines := []string{
		`{"type":"user","uuid":"u1","cwd":"/r","version":"2.1.39","timestamp":"2026-02-11T02:06:43.750Z","message":{"role":"user","content":` + quote(old) + `},"planContent":` + quote(plan) + `}`,
		`{"type":"assistant","uuid":"a1","cwd":"/r","timestamp":"2026-02-11T02:06:50.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Implementing."}]}}`,
		`{"type":"user","uuid":"u2","cwd":"/r","version":"2.1.332","timestamp":"2026-02-11T03:00:00.000Z","message":{"role":"user","content":` + quote(current) + `},"origin":{"kind":"auto-continuation"},"planContent":` + quote(plan) + `}`,
	}
	var got []string
	for _, ev := range importLines(t, "plan", lines) {
		if ev.Type != session.TypeUserMessage {
			continue
		}
		g := ev.Source.Kind + "/" + ev.Source.Name
		if r := ev.Meta[session.MetaPlan]; r != "" {
			start, end, ok := session.PlanRange(r, len(ev.Text))
			if !ok {
				t.Fatalf("meta plan %q over a text of %d bytes", r, len(ev.Text))
			}
			g += " plan=" + ev.Text[start:end]
			if ev.Text != old && ev.Text != current {
				t.Errorf("the plan's event holds not the line's text: %q", ev.Text)
			}
		} else {
			g += " " + ev.Text
		}
		if ev.IsHumanInstruction() {
			g += " (human)"
		}
		got = append(got, g)
	}
	want := []string{
		"system/plan-approved plan=" + plan,
		"system/plan-approved plan=" + plan,
		"user/plan-feedback use sqlite, not postgres (human)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events\n got %q\nwant %q", got, want)
	}
}
