package codex

import (
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

// Codex's memories: its instructions ask the model to end a final answer
// that used a memory with one <oai-mem-citation> block "for programmatic
// parsing", and Codex takes it out of the text it shows (a real rollout,
// 0.142). The assistant message is the text without it; what it cited is
// kept in meta memoryCitations. A block inside a fenced code block (the
// model quoting the format) is text.
func TestAMemoryCitationIsNotTheAnswersText(t *testing.T) {
	answer := "Split and force-pushed.\n\nDraft PR #72 now points to `ccb6d90`.\n\n<oai-mem-citation>\n<citation_entries>\nMEMORY.md:114-144|note=[Fly branch and stacked PR publication context]\n</citation_entries>\n<rollout_ids>\n019f498d-29a6-7c51-b0a0-0a85d954f82a\n</rollout_ids>\n</oai-mem-citation>"
	quoted := "The format is:\n```\n<oai-mem-citation>\n<citation_entries>\nX\n</citation_entries>\n</oai-mem-citation>\n```"
	msg := func(text string) string {
		b := strings.ReplaceAll(strings.ReplaceAll(text, `\`, `\\`), "\n", `\n`)
		b = strings.ReplaceAll(b, `"`, `\"`)
		return `{"timestamp":"2026-07-11T22:40:00.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"` + b + `"}],"phase":"final_answer"}}`
	}
	lines := []string{
		`{"timestamp":"2026-07-11T22:31:32.000Z","type":"session_meta","payload":{"id":"019f5129-58cd-7e23-bb57-2fac45120e7f","timestamp":"2026-07-11T22:31:32.000Z","cwd":"/work","originator":"codex_cli_rs","cli_version":"0.142.0"}}`,
		msg(answer),
		msg(quoted),
	}
	_, evs := importRollout(t, "rollout-mem.jsonl", "mem", lines)
	var msgs []session.Event
	for _, ev := range evs {
		if ev.Type == session.TypeAssistantMessage {
			msgs = append(msgs, ev)
		}
	}
	if len(msgs) != 2 {
		t.Fatalf("%d assistant messages, want 2", len(msgs))
	}
	if want := "Split and force-pushed.\n\nDraft PR #72 now points to `ccb6d90`."; msgs[0].Text != want {
		t.Errorf("text %q, want %q", msgs[0].Text, want)
	}
	if got := msgs[0].Meta["memoryCitations"]; got != "MEMORY.md:114-144|note=[Fly branch and stacked PR publication context]" {
		t.Errorf("meta memoryCitations %q", got)
	}
	if msgs[1].Text != quoted || msgs[1].Meta["memoryCitations"] != "" {
		t.Errorf("a quoted block: text %q meta %q, want the text whole", msgs[1].Text, msgs[1].Meta["memoryCitations"])
	}
}
