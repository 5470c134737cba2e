package claudecode

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graft-project/graft/internal/testfixtures"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/session/logscan"
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

// A shell command Claude Code runs in the background (run_in_background)
// has for its result the host's launch notice ("Command running in
// background with ID: …"; toolUseResult backgroundTaskId): meta
// background "launched", as a background agent's. How it ended comes
// later in a <task-notification> with <status> and <summary> ("Background
// command \"…\" failed with exit code 10") and no <result>: that injected
// message names the call (meta callId, found by its <tool-use-id> or, that
// redacted, by its <task-id>) and its status (meta taskStatus). Claude
// Code 2.1.2xx gives a notification that comes while a turn runs as an
// attachment (queued_command, commandMode "task-notification", the text
// in prompt) and no user line: it is imported as the injected message
// all the same (a real session's background CI watch that failed was
// only there). A person's queued text given so (commandMode "prompt")
// stays the queue's (queue-operation).
func TestABackgroundCommandsNotificationNamesItsCall(t *testing.T) {
	quote := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	launch := "Command running in background with ID: bjx1. Output is being written to: /tmp/tasks/bjx1.output. You will be notified when it completes. To check interim output, use Read on that file path."
	failed := "<task-notification>\n<task-id>bjx1</task-id>\n<tool-use-id>toolu_w1</tool-use-id>\n<output-file>/tmp/tasks/bjx1.output</output-file>\n<status>failed</status>\n<summary>Background command \"Watch CI for the current dev tip\" failed with exit code 10</summary>\n</task-notification>"
	done := "<task-notification>\n<task-id>b5ww</task-id>\n<tool-use-id>REDACTED</tool-use-id>\n<output-file>/tmp/tasks/b5ww.output</output-file>\n<status>completed</status>\n<summary>Background command \"Watch CI\" completed (exit code 0)</summary>\n</task-notification>"
	lines := []string{
		`{"type":"user","uuid":"u1","cwd":"/r","timestamp":"2026-07-23T21:00:00.000Z","message":{"role":"user","content":"Watch CI."}}`,
		`{"type":"assistant","uuid":"a1","cwd":"/r","timestamp":"2026-07-23T21:08:18.000Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_w1","name":"PowerShell","input":{"command":"./scripts/Watch-CI.ps1","description":"Watch CI for the current dev tip","run_in_background":true}}]}}`,
		`{"type":"user","uuid":"u2","cwd":"/r","timestamp":"2026-07-23T21:08:22.000Z","message":{"role":"user","content":[{"tool_use_id":"toolu_w1","type":"tool_result","content":` + quote(launch) + `,"is_error":false}]},"toolUseResult":{"stdout":"","stderr":"","interrupted":false,"backgroundTaskId":"bjx1"}}`,
		`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-07-23T21:08:26.366Z","content":` + quote(failed) + `}`,
		`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-07-23T21:08:32.372Z","content":"we're good on spend"}`,
		`{"type":"queue-operation","operation":"remove","timestamp":"2026-07-23T21:08:38.072Z","content":` + quote(failed) + `}`,
		`{"type":"queue-operation","operation":"remove","timestamp":"2026-07-23T21:08:38.072Z","content":"we're good on spend"}`,
		`{"type":"attachment","uuid":"t1","cwd":"/r","timestamp":"2026-07-23T21:08:26.366Z","attachment":{"type":"queued_command","prompt":` + quote(failed) + `,"commandMode":"task-notification"}}`,
		`{"type":"attachment","uuid":"t2","cwd":"/r","timestamp":"2026-07-23T21:08:32.372Z","attachment":{"type":"queued_command","prompt":"we're good on spend","commandMode":"prompt"}}`,
		`{"type":"assistant","uuid":"a2","cwd":"/r","timestamp":"2026-07-23T21:09:00.000Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_w2","name":"Bash","input":{"command":"gh run watch","run_in_background":true}}]}}`,
		`{"type":"user","uuid":"u3","cwd":"/r","timestamp":"2026-07-23T21:09:01.000Z","message":{"role":"user","content":[{"tool_use_id":"toolu_w2","type":"tool_result","content":"Command running in background with ID: b5ww.","is_error":false}]},"toolUseResult":{"stdout":"","stderr":"","interrupted":false,"backgroundTaskId":"b5ww"}}`,
		`{"type":"user","uuid":"u4","cwd":"/r","timestamp":"2026-07-23T21:12:00.000Z","message":{"role":"user","content":` + quote(done) + `},"origin":{"kind":"task-notification"}}`,
	}
	var got []string
	for _, ev := range importLines(t, "bgcmd", lines) {
		switch {
		case ev.Type == session.TypeToolResult:
			got = append(got, "result "+ev.Tool.CallID+" "+ev.Meta[session.MetaBackground])
		case ev.Type == session.TypeUserMessage:
			got = append(got, ev.Source.Name+" "+ev.Meta["callId"]+" "+ev.Meta["taskStatus"]+": "+strings.SplitN(ev.Text, "\n", 2)[0])
		case ev.Type == session.TypeSubagentReport:
			got = append(got, "report "+ev.Text)
		}
	}
	want := []string{
		"  : Watch CI.",
		"result toolu_w1 launched",
		"queued  : we're good on spend",
		"task-notification toolu_w1 failed: <task-notification>",
		"result toolu_w2 launched",
		"task-notification toolu_w2 completed: <task-notification>",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events\n got %q\nwant %q", got, want)
	}
}

// A queued_command's prompt is a string or, for a message with an image,
// content blocks: the fast reader and encoding/json read the same text,
// and a prompt of any other shape is no text, never a malformed line.
func TestAQueuedCommandsPromptReadsAlike(t *testing.T) {
	for raw, want := range map[string]string{
		`{"type":"attachment","attachment":{"type":"queued_command","prompt":"<task-notification>x</task-notification>","commandMode":"task-notification"}}`:                                      "<task-notification>x</task-notification>",
		`{"type":"attachment","attachment":{"type":"queued_command","prompt":[{"type":"text","text":"look"},{"type":"image","source":{}},{"type":"text","text":"here"}],"commandMode":"prompt"}}`: "look\nhere",
		`{"type":"attachment","attachment":{"type":"queued_command","prompt":42,"commandMode":"prompt"}}`:                                                                                         "",
	} {
		var slow line
		if err := json.Unmarshal([]byte(raw), &slow); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		var d logscan.Decoder
		var fast line
		if !fastLine(&d, []byte(raw), &fast) {
			if strings.Contains(raw, `"prompt":"`) {
				t.Errorf("%s: a string prompt left the fast reader", raw)
			}
			fast = slow // the slow path, as Map takes it
		}
		for _, ln := range []line{slow, fast} {
			if ln.Attachment == nil || string(ln.Attachment.Prompt) != want {
				t.Errorf("%s: prompt %+v, want %q", raw, ln.Attachment, want)
			}
		}
	}
	lines := []string{`{"type":"attachment","uuid":"t1","timestamp":"2026-07-23T21:08:26.366Z","attachment":{"type":"queued_command","prompt":{"odd":true},"commandMode":"task-notification"}}`}
	st, home := testfixtures.NewStore(t)
	path := filepath.Join(t.TempDir(), "q.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sum, err := Import(Options{Store: st, Home: home, Path: path, ID: "q"})
	if err != nil || sum.MalformedCount != 0 {
		t.Fatalf("an odd prompt: %v, malformed %d", err, sum.MalformedCount)
	}
}
