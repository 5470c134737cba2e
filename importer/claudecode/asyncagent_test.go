package claudecode

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

// An agent Claude Code runs in the background answers its call at once
// with a launch notice (toolUseResult status "async_launched": "Async agent
// launched successfully. (This tool result is internal metadata …"): no
// report, whatever report words the notice holds. Its report comes later,
// as a <task-notification> user line holding <result>…</result>: that
// result is the sub-agent's report, linked to the call by its
// <tool-use-id> or, that redacted, by its <task-id> (the agent's id), with
// the call's agent; older notifications without a tool-use-id still give
// one. A background command's notification has no
// <result>: no report. The notification itself stays an injected message.
func TestABackgroundAgentsReportIsItsTaskNotificationsResult(t *testing.T) {
	notice := "Async agent launched successfully. (This tool result is internal metadata — never quote or paste any part of it, including the agentId below, into a user-facing reply.)\nagentId: ac13 (internal ID - do not mention to user.)\nThe agent is working in the background. You know nothing about its results until that notification arrives — do not report, assume, or predict them."
	result := "## Findings\n\nComponents can nest up to 10 levels deep (MAX_COMPONENT_DEPTH = 10 in components.py)."
	notification := "<task-notification>\n<task-id>ac13</task-id>\n<tool-use-id>toolu_bg</tool-use-id>\n<output-file>/tmp/tasks/ac13.output</output-file>\n<status>completed</status>\n<summary>Agent \"Find component code\" finished</summary>\n<result>" + result + "</result>\n<usage><subagent_tokens>142631</subagent_tokens><duration_ms>109565</duration_ms></usage>\n</task-notification>"
	older := "<task-notification>\n<task-id>ac27</task-id>\n<status>completed</status>\n<summary>Agent \"Poem about red curry\" completed</summary>\n<result>Here is the poem: red and warm.</result>\n</task-notification>\nFull transcript available at: /tmp/tasks/ac27.output"
	command := "<task-notification>\n<task-id>b73a</task-id>\n<output-file>/tmp/tasks/b73a.output</output-file>\n<status>completed</status>\n<summary>Background command \"Test running tray\" completed (exit code 0)</summary>\n</task-notification>\nRead the output file to retrieve the result: /tmp/tasks/b73a.output"
	quote := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	lines := []string{
		`{"type":"user","uuid":"u1","cwd":"/r","timestamp":"2026-07-23T20:00:00.000Z","message":{"role":"user","content":"Find the component code."}}`,
		`{"type":"assistant","uuid":"a1","cwd":"/r","timestamp":"2026-07-23T20:00:01.000Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_bg","name":"Agent","input":{"description":"Find component code","prompt":"Find it.","subagent_type":"Explore","run_in_background":true}}]}}`,
		`{"type":"user","uuid":"u2","cwd":"/r","timestamp":"2026-07-23T20:00:02.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_bg","content":[{"type":"text","text":` + quote(notice) + `}]}]},"toolUseResult":{"isAsync":true,"status":"async_launched","agentId":"ac13","description":"Find component code"}}`,
		`{"type":"assistant","uuid":"a2","cwd":"/r","timestamp":"2026-07-23T20:00:03.000Z","message":{"role":"assistant","content":[{"type":"text","text":"It runs in the background."}]}}`,
		`{"type":"user","uuid":"u3","cwd":"/r","timestamp":"2026-07-23T20:01:00.000Z","message":{"role":"user","content":` + quote(notification) + `},"origin":{"kind":"task-notification"}}`,
		`{"type":"user","uuid":"u4","cwd":"/r","timestamp":"2026-07-23T20:02:00.000Z","message":{"role":"user","content":` + quote(older) + `}}`,
		`{"type":"user","uuid":"u5","cwd":"/r","timestamp":"2026-07-23T20:03:00.000Z","message":{"role":"user","content":` + quote(command) + `},"origin":{"kind":"task-notification"}}`,
		// A second agent whose notification has its call id redacted (as
		// a published transcript may): found by its agent id.
		`{"type":"assistant","uuid":"a3","cwd":"/r","timestamp":"2026-07-23T20:04:00.000Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_bg2","name":"Agent","input":{"description":"Read the files","prompt":"Read.","subagent_type":"fork","run_in_background":true}}]}}`,
		`{"type":"user","uuid":"u6","cwd":"/r","timestamp":"2026-07-23T20:04:01.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_bg2","content":[{"type":"text","text":` + quote(notice) + `}]}]},"toolUseResult":{"isAsync":true,"status":"async_launched","agentId":"a1ec"}}`,
		`{"type":"user","uuid":"u7","cwd":"/r","timestamp":"2026-07-23T20:05:00.000Z","message":{"role":"user","content":` + quote(strings.NewReplacer("ac13", "a1ec", "toolu_bg", "REDACTED", result, "Read them all.").Replace(notification)) + `},"origin":{"kind":"task-notification"}}`,
	}
	var reports, notes []session.Event
	var res *session.Event
	evs := importLines(t, "async", lines)
	for k, ev := range evs {
		switch {
		case ev.Type == session.TypeSubagentReport:
			reports = append(reports, ev)
		case ev.Type == session.TypeUserMessage && ev.Source.Name == "task-notification":
			notes = append(notes, ev)
		case ev.Type == session.TypeToolResult && res == nil:
			res = &evs[k]
		}
	}
	if res == nil || res.Tool.CallID != "toolu_bg" || !strings.HasPrefix(res.Tool.Output, "Async agent launched successfully.") || res.Meta[session.MetaBackground] != "launched" {
		t.Fatalf("the launch notice is the call's result: %+v", res)
	}
	if len(notes) != 4 {
		t.Fatalf("%d notifications imported as injected messages, want 4", len(notes))
	}
	if len(reports) != 3 {
		t.Fatalf("%d reports, want 2 (the two agents' results, not the launch notice nor the command's notification): %+v", len(reports), reports)
	}
	r := reports[0]
	if r.Text != result || r.Agent != "Explore" || r.Source != (session.Source{Kind: session.KindSubagent, Name: "Agent"}) || r.Meta["callId"] != "toolu_bg" || r.Meta["agentId"] != "ac13" || r.Meta["line"] != "5" {
		t.Fatalf("the background agent's report = source %+v agent %q meta %v text %q", r.Source, r.Agent, r.Meta, r.Text)
	}
	if r := reports[1]; r.Text != "Here is the poem: red and warm." || r.Meta["callId"] != "" || r.Meta["line"] != "6" {
		t.Fatalf("the older notification's report = meta %v text %q", r.Meta, r.Text)
	}
	if r := reports[2]; r.Text != "Read them all." || r.Agent != "fork" || r.Meta["callId"] != "toolu_bg2" || r.Meta["agentId"] != "a1ec" {
		t.Fatalf("the report whose call id was redacted = agent %q meta %v text %q", r.Agent, r.Meta, r.Text)
	}
}
