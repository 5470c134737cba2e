package codex

import (
	"encoding/json"
	"fmt"
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

// toolSearchOutput imports the tools the host found for a tool search
// (0.142's tool_search_output: namespaces of tools, or tools): the result
// of the tool_search call, naming each tool found as namespace.name.
func (m *Mapper) toolSearchOutput(rl *rolloutLine, payload json.RawMessage, it *item, out *importer.Output) {
	var so struct {
		Status string `json:"status"`
		Tools  []struct {
			Name  string `json:"name"`
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(payload, &so); err != nil {
		out.Malformed(fmt.Errorf("tool_search_output: %w", err))
		return
	}
	var names []string
	for _, t := range so.Tools {
		if len(t.Tools) == 0 {
			names = append(names, t.Name)
		}
		for _, f := range t.Tools {
			names = append(names, t.Name+"."+f.Name)
		}
	}
	text := "no tool found"
	if len(names) > 0 {
		text = "tools found: " + strings.Join(names, ", ")
	}
	name := m.closeCall(it, out)
	ok := so.Status == "completed"
	ev := m.event(rl, session.TypeToolResult, session.Source{Kind: session.KindTool})
	ev.Tool = &session.Tool{Name: name, CallID: it.CallID, OK: &ok, Output: text}
	out.Emit(ev)
}

// webSearchDone closes a web search the item says is done: Codex writes a
// search as one web_search_call, "completed" (or "failed") once done, and
// no output item, its results reaching the model and not the rollout. A
// search still in progress stays open.
func (m *Mapper) webSearchDone(rl *rolloutLine, payload json.RawMessage, it *item, out *importer.Output) {
	var ws struct {
		Status string `json:"status"`
	}
	if err := json.Unmarshal(payload, &ws); err != nil {
		out.Warn("web_search_call %q: its status does not decode (%v); the search stays without a result", it.ID, err)
		return
	}
	if (ws.Status != "completed" && ws.Status != "failed") || it.ID == "" {
		return
	}
	ok := ws.Status == "completed"
	name := m.closeCall(&item{Type: it.Type, CallID: it.ID}, out)
	ev := m.event(rl, session.TypeToolResult, session.Source{Kind: session.KindTool})
	ev.Tool = &session.Tool{Name: name, CallID: it.ID, OK: &ok}
	ev.Meta["resultsInRollout"] = "false"
	out.Emit(ev)
}
