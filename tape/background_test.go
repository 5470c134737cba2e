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
