package claudecode

import (
	"testing"

	"github.com/graft-project/graft/session"
)

// Claude Code 2.1.332 writes where a user line came from, "origin":
// {"kind": …} (its binary sets human, person, suggestion and composer for
// the person's own input; auto-continuation, channel, coordinator, peer,
// plugin, task-notification and observer-activity for text the host, a
// plugin, an MCP channel or another agent put there). A line of those
// others is never the person's instruction, however plain its text: it is
// imported as injected, source.name the kind. The person's own stay theirs.
func TestALinesOriginSaysWhoWroteIt(t *testing.T) {
	kinds := map[string]bool{
		"human": true, "person": true, "suggestion": true, "composer": true,
		"auto-continuation": false, "channel": false, "coordinator": false, "peer": false,
		"plugin": false, "task-notification": false, "observer-activity": false,
	}
	var lines []string
	for kind := range kinds {
		lines = append(lines, `{"type":"user","uuid":"u-`+kind+`","cwd":"/r","timestamp":"2026-12-04T02:58:55.047Z","message":{"role":"user","content":"Use pnpm, not npm (`+kind+`)."},"origin":{"kind":"`+kind+`"}}`)
	}
	lines = append(lines, `{"type":"user","uuid":"u-none","cwd":"/r","timestamp":"2026-12-04T02:58:56.047Z","message":{"role":"user","content":"Use pnpm, not npm (none)."}}`)
	got := map[string]session.Source{}
	for _, ev := range importLines(t, "origin", lines) {
		if ev.Type == session.TypeUserMessage {
			got[ev.Meta["uuid"]] = ev.Source
			if want := kinds[ev.Meta["uuid"][2:]] || ev.Meta["uuid"] == "u-none"; ev.IsHumanInstruction() != want {
				t.Errorf("%s: human instruction %v, want %v (source %+v)", ev.Meta["uuid"], ev.IsHumanInstruction(), want, ev.Source)
			}
		}
	}
	if len(got) != len(lines) {
		t.Fatalf("%d user messages of %d lines: %v", len(got), len(lines), got)
	}
	for kind, human := range kinds {
		if !human && got["u-"+kind] != (session.Source{Kind: session.KindSystem, Name: kind}) {
			t.Errorf("%s: source %+v, want system/%s", kind, got["u-"+kind], kind)
		}
	}
}
