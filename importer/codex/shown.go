package codex

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/session"
)

// What a line does to the assistant messages Codex's UI recorded and its
// model's history has not (doc.go, "One record per message").
const (
	shownNeutral = iota // waits with them: bookkeeping, reasoning, a record
	shownHeld           // an event_msg agent_message: held, or a copy dropped
	shownDecide         // the turn went on without their records: emitted
	shownRecord         // an assistant response_item: the first one's record
)

// shownRule sees each line before it is mapped. An event_msg
// agent_message is held until its response_item comes (then it is that
// record's copy) or a line shows that none will: the message is then
// emitted from its own line, meta record "event_msg agent_message".
func (m *Mapper) shownRule(l importer.Line, rl *rolloutLine, payload json.RawMessage, out *importer.Output) int {
	kind, text := m.shownKind(rl, payload)
	switch kind {
	case shownHeld:
		if m.answered > 0 {
			// Its record came first (a rollout that writes it so).
			m.answered--
			out.Skip("event_msg agent_message (copy of a response_item)")
			return kind
		}
		m.shown = append(m.shown, shownMessage{Line: l.Num, Timestamp: rl.Timestamp, Text: text, Plan: m.settings.Mode == "plan"})
	case shownDecide:
		m.releaseShown(out)
		m.answered = 0
	case shownRecord:
		if len(m.shown) == 0 {
			m.answered++
			break
		}
		m.shown = m.shown[1:]
		out.Skip("event_msg agent_message (copy of a response_item)")
	}
	return kind
}

// shownKind classifies a line for shownRule, with the text of an
// event_msg agent_message.
func (m *Mapper) shownKind(rl *rolloutLine, payload json.RawMessage) (int, string) {
	switch rl.Type {
	case "session_meta", "turn_context", "world_state", "token_usage_record", "inter_agent_communication_metadata":
		return shownNeutral, ""
	case "event_msg":
		ef, ok := m.fastEventOf(payload)
		if !ok {
			var em struct {
				Type    string          `json:"type"`
				Message json.RawMessage `json:"message"`
			}
			if json.Unmarshal(payload, &em) != nil {
				return shownNeutral, "" // malformed: eventMsg reports it
			}
			ef.Type, ef.Message = em.Type, em.Message
		}
		switch ef.Type {
		case "agent_message":
			var text string
			if json.Unmarshal(ef.Message, &text) != nil || strings.TrimSpace(text) == "" {
				return shownNeutral, "" // eventMsg counts it
			}
			return shownHeld, text
		case "token_count", "agent_reasoning", "agent_reasoning_raw_content", "agent_reasoning_section_break":
			return shownNeutral, ""
		}
		return shownDecide, ""
	case "response_item":
		it, err := m.itemOf(payload)
		switch {
		case err != nil, it.Type == "reasoning":
			return shownNeutral, ""
		case it.Type == "message" && it.Role == "assistant":
			return shownRecord, ""
		}
		return shownDecide, ""
	}
	return shownDecide, ""
}

// releaseShown emits the messages held, in order, each from its own line.
func (m *Mapper) releaseShown(out *importer.Output) {
	for _, s := range m.shown {
		ev := m.event(&rolloutLine{Timestamp: s.Timestamp}, session.TypeAssistantMessage, session.Source{Kind: session.KindAssistant})
		ev.Text = s.Text
		ev.Meta["line"] = strconv.Itoa(s.Line)
		ev.Meta["record"] = "event_msg agent_message"
		markProposedPlan(&ev, s.Plan)
		out.Emit(ev)
	}
	m.shown = nil
}
