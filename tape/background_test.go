package tape

import (
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

// A call the host ran in the background (meta background "launched" on
// its result: Claude Code's Agent with run_in_background) has for its
// result the host's launch notice, words to the model that are no
// outcome. Recent Actions says the call was launched in the background and
// points at its report once one came (the report names the call: meta
// callId), or at its seq when Sub-agent Reports leaves it out, never
// quoting the notice.
func TestABackgroundCallPointsAtItsLaterReport(t *testing.T) {
	notice := "Async agent launched successfully. (This tool result is internal metadata — never quote or paste any part of it, including the agentId below, into a user-facing reply.)\nDo NOT Read or tail this file via the shell tool."
	launched := withMeta(result("Agent", "bg1", true, notice), session.MetaBackground, "launched")
	rep := withMeta(subagent("Explore", "## Findings\n\nComponents nest up to 10 levels (MAX_COMPONENT_DEPTH)."), "callId", "bg1")
	rep.Source.Name = "Agent"
	evs := []session.Event{
		human("Find the component code."),
		call("Agent", "bg1", `{"description":"Find component code","prompt":"Find it.","subagent_type":"Explore","run_in_background":true}`),
		launched,
		say("It runs in the background; meanwhile I read the installer."),
		call("Bash", "b1", `{"command":"go test ./..."}`), result("Bash", "b1", true, "ok  \tpkg\t0.1s"),
	}
	actions := blockText(t, build(t, "s", seqd(evs...), Options{}, nil), "Recent Actions")
	if !strings.Contains(actions, "- seq=3 Agent ok: Find component code\n    → (launched in the background; no report yet)") || strings.Contains(actions, "internal metadata") {
		t.Fatalf("before its report, the background call says so and quotes no notice:\n%s", actions)
	}
	withReport := seqd(append(evs, rep)...)
	tp := build(t, "s", withReport, Options{}, nil)
	actions = blockText(t, tp, "Recent Actions")
	if !strings.Contains(actions, "- seq=3 Agent ok: Find component code\n    → (launched in the background; its report: Sub-agent Reports, seq=7)") || strings.Contains(actions, "internal metadata") {
		t.Fatalf("the background call points at its report:\n%s", actions)
	}
	if reports := blockText(t, tp, "Sub-agent Reports"); !strings.Contains(reports, "- seq=7 Explore:\n## Findings") {
		t.Fatalf("the report itself:\n%s", reports)
	}

	// A report the tape leaves out (no report word near its start) still
	// came: the line says where, to recall it.
	poem := withMeta(subagent("Explore", "Green and fragrant, the curry simmers."), "callId", "bg1")
	poem.Source.Name = "Agent"
	tp2 := build(t, "s", seqd(append(evs, poem)...), Options{}, nil)
	if actions := blockText(t, tp2, "Recent Actions"); !strings.Contains(actions, "- seq=3 Agent ok: Find component code\n    → (launched in the background; reported at seq=7, not kept in Sub-agent Reports)") {
		t.Fatalf("a report left out is still said to have come:\n%s", actions)
	}

	if got := builtAtBuild(t, withReport, Options{}); got.Text != tp.Text {
		t.Fatalf("read at Build:\n%s\n\nin hand:\n%s", blockText(t, got, "Recent Actions"), actions)
	}
}

// A shell command the host runs in the background has the host's launch
// notice for its result (MetaBackground): the tape quotes no notice and
// says it was launched. How it ended comes in the host's notification
// (an injected message naming the call, meta callId, and how it ended,
// MetaTaskStatus): its line then says so, with the notification's
// summary ("… failed with exit code 10") and seq; a real conductor
// session's CI watch that failed had been shown as "ok" and its launch
// notice.
func TestABackgroundCommandSaysHowItEnded(t *testing.T) {
	notice := "Command running in background with ID: bjx1. Output is being written to: /tmp/tasks/bjx1.output. You will be notified when it completes."
	launched := withMeta(result("PowerShell", "w1", true, notice), session.MetaBackground, "launched")
	ended := injected(session.KindSystem, "task-notification", "<task-notification>\n<task-id>bjx1</task-id>\n<tool-use-id>w1</tool-use-id>\n<output-file>/tmp/tasks/bjx1.output</output-file>\n<status>failed</status>\n<summary>Background command \"Watch CI for the current dev tip\" failed with exit code 10</summary>\n</task-notification>")
	ended.Meta = map[string]string{"callId": "w1", session.MetaTaskStatus: "failed"}
	evs := []session.Event{
		human("Watch CI."),
		call("PowerShell", "w1", `{"command":"./scripts/Watch-CI.ps1","description":"Watch CI for the current dev tip","run_in_background":true}`),
		launched,
		say("CI runs; meanwhile I check the board."),
		call("Bash", "b1", `{"command":"go test ./..."}`), result("Bash", "b1", true, "ok  \tpkg\t0.1s"),
	}
	actions := blockText(t, build(t, "s", seqd(evs...), Options{}, nil), "Recent Actions")
	if !strings.Contains(actions, "- seq=3 ok: $ ./scripts/Watch-CI.ps1\n    → (launched in the background; no end reported yet)") || strings.Contains(actions, "Output is being written") {
		t.Fatalf("before its end, the background command says so and quotes no notice:\n%s", actions)
	}
	withEnd := seqd(append(evs, ended)...)
	tp := build(t, "s", withEnd, Options{}, nil)
	actions = blockText(t, tp, "Recent Actions")
	if !strings.Contains(actions, "- seq=3 ok: $ ./scripts/Watch-CI.ps1\n    → (launched in the background; seq=7: Background command \"Watch CI for the current dev tip\" failed with exit code 10)") {
		t.Fatalf("the background command says how it ended:\n%s", actions)
	}
	if got := builtAtBuild(t, withEnd, Options{}); got.Text != tp.Text {
		t.Fatalf("read at Build:\n%s\n\nin hand:\n%s", blockText(t, got, "Recent Actions"), actions)
	}
}
