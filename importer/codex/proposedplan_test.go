package codex

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

// Codex's Plan mode (collaboration mode "plan", 0.9x on) ends its turn with
// the plan in a <proposed_plan> block of the assistant's message; Codex
// then asks the person "Implement this plan?". The importer keeps the
// message's text as written and marks the plan's range in it
// (session.MetaProposedPlan), the block's inside without the newlines
// around it. Outside Plan mode Codex reads no block as a plan, and neither
// does the importer; a block with no end is no plan.
func TestAProposedPlanIsMarkedInPlanMode(t *testing.T) {
	mode := func(ts, m string) string {
		return `{"timestamp":"2026-12-03T02:00:` + ts + `.000Z","type":"turn_context","payload":{"cwd":"/w","approval_policy":"on-request","sandbox_policy":{"type":"workspace-write"},"collaboration_mode":{"mode":"` + m + `","settings":{}}}}`
	}
	say := func(ts, text string) string {
		return `{"timestamp":"2026-12-03T02:00:` + ts + `.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":` + string(must(json.Marshal(text))) + `}]}}`
	}
	const plan = "# Parser plan\n\n1. Tokenise by hand.\n2. Recursive descent."
	lines := []string{
		`{"timestamp":"2026-12-03T02:00:00.000Z","type":"session_meta","payload":{"id":"019ad65c-b4ff-7ec0-94b5-d8247f8004af","cwd":"/w","originator":"codex_cli_rs","cli_version":"0.142.0"}}`,
		mode("01", "plan"),
		say("02", "Here it is.\n\n<proposed_plan>\n"+plan+"\n</proposed_plan>\n\nSay if it suits."),
		say("03", "<proposed_plan>\nNo end."),
		mode("04", "default"),
		say("05", "<proposed_plan>\nNot in Plan mode.\n</proposed_plan>"),
	}
	// Codex's UI record of a message (event_msg agent_message) with no
	// response_item after it is imported from its own line once the turn
	// goes on, after the next turn's settings: it was said in Plan mode.
	shown := func(ts, text string) string {
		return `{"timestamp":"2026-12-03T02:00:` + ts + `.000Z","type":"event_msg","payload":{"type":"agent_message","message":` + string(must(json.Marshal(text))) + `}}`
	}
	user := func(ts, text string) string {
		return `{"timestamp":"2026-12-03T02:00:` + ts + `.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":` + string(must(json.Marshal(text))) + `}]}}`
	}
	lines = append(lines[:len(lines):len(lines)], mode("06", "plan"), user("06", "Plan it again."), shown("07", "<proposed_plan>\n"+plan+"\n</proposed_plan>"), mode("08", "default"), user("09", "Implement the plan."), say("10", "Implementing."))
	for _, steps := range []int{1, 3} {
		evs := importInSteps(t, lines, steps)
		var said []session.Event
		for _, ev := range evs {
			if ev.Type == session.TypeAssistantMessage {
				said = append(said, ev)
			}
		}
		if len(said) != 5 {
			t.Fatalf("in %d steps: %d assistant messages, want 5", steps, len(said))
		}
		if start, end, ok := session.PlanRange(said[3].Meta[session.MetaProposedPlan], len(said[3].Text)); !ok || said[3].Text[start:end] != plan {
			t.Errorf("in %d steps: the message Codex showed in Plan mode is not marked a plan (meta %q, record %q)", steps, said[3].Meta[session.MetaProposedPlan], said[3].Meta["record"])
		}
		start, end, ok := session.PlanRange(said[0].Meta[session.MetaProposedPlan], len(said[0].Text))
		if !ok || said[0].Text[start:end] != plan {
			t.Errorf("in %d steps: the plan marked is %q (meta %q), want %q", steps, said[0].Text[start:min(end, len(said[0].Text))], said[0].Meta[session.MetaProposedPlan], plan)
		}
		if !strings.HasPrefix(said[0].Text, "Here it is.") || !strings.HasSuffix(said[0].Text, "Say if it suits.") {
			t.Errorf("in %d steps: the message's text changed: %q", steps, said[0].Text)
		}
		for _, ev := range said[1:3] {
			if v, ok := ev.Meta[session.MetaProposedPlan]; ok {
				t.Errorf("in %d steps: %q is marked a plan (%q)", steps, ev.Text, v)
			}
		}
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
