package codex

import (
	"encoding/json"
	"strings"

	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/session"
)

// agentMessage imports a message a sub-agent sent its parent (doc.go,
// "Sub-agents"): its readable payload is a subagent/report by that agent;
// a message whose payload is only encrypted content is skipped, counted.
func (m *Mapper) agentMessage(rl *rolloutLine, it *item, out *importer.Output) {
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if len(it.Content) > 0 && json.Unmarshal(it.Content, &parts) != nil {
		out.Warn("agent_message from %q: content is not a list of parts; not read", importer.Clip(it.Author, 200))
		return
	}
	var texts []string
	for _, p := range parts {
		if p.Type == "input_text" || p.Type == "output_text" || p.Type == "text" {
			texts = append(texts, p.Text)
		}
	}
	kind, payload := agentPayload(strings.Join(texts, ""))
	if strings.TrimSpace(payload) == "" {
		out.Skip("agent_message without a readable payload")
		return
	}
	ev := m.event(rl, session.TypeSubagentReport, session.Source{Kind: session.KindSubagent, Name: "spawn_agent"})
	ev.Agent = importer.Clip(it.Author, 200)
	ev.Text = strings.TrimSpace(payload)
	if kind != "" {
		ev.Meta["messageType"] = importer.Clip(kind, 40)
	}
	if kind == "FINAL_ANSWER" {
		ev.Meta[session.MetaFinalAnswer] = "true"
	}
	out.Emit(ev)
}

// agentPayload splits a sub-agent's message into its type (MESSAGE,
// FINAL_ANSWER) and its payload: Codex opens it with "Message Type: …",
// "Task name: …", "Sender: …" lines and "Payload:". A text without that
// head is all payload.
func agentPayload(text string) (kind, payload string) {
	head, body, ok := strings.Cut(text, "Payload:\n")
	if !ok || !strings.HasPrefix(head, "Message Type: ") {
		return "", text
	}
	kind, _, _ = strings.Cut(strings.TrimPrefix(head, "Message Type: "), "\n")
	return strings.TrimSpace(kind), body
}
