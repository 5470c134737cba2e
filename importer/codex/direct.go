package codex

import (
	"encoding/json"
	"strings"

	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/session"
)

// Rollouts without the envelope (doc.go, "Rollouts without the
// envelope"): Codex of mid-2025 wrote the session's meta itself as the
// first line, {"id", "timestamp", "instructions", "git"}, the items bare,
// and a {"record_type": "state"} line where it saved the session's state.

// directLine maps a line with no "type" that such a rollout writes: a
// state record (skipped, counted) or the session's meta (the session_meta
// event, and its instructions injected); false for any other line.
func (m *Mapper) directLine(l importer.Line, rl *rolloutLine, out *importer.Output) bool {
	var d struct {
		RecordType   string          `json:"record_type"`
		ID           string          `json:"id"`
		Timestamp    string          `json:"timestamp"`
		Instructions *string         `json:"instructions"`
		Git          json.RawMessage `json:"git"`
	}
	if err := json.Unmarshal(l.Bytes, &d); err != nil {
		return false
	}
	switch {
	case d.RecordType != "":
		out.Skip("record_type " + importer.Clip(d.RecordType, 40))
		return true
	case d.ID == "" || d.Timestamp == "":
		return false
	}
	rl.Timestamp = d.Timestamp
	m.sessionMeta(rl, l.Bytes, out)
	if d.Instructions != nil && strings.TrimSpace(*d.Instructions) != "" {
		// What Codex gave its model before the conversation: the user's
		// and the project's instructions (AGENTS.md), never the human's
		// words of this session.
		ev := m.event(rl, session.TypeUserMessage, system(session.SourceUserInstructions))
		ev.Text = *d.Instructions
		out.Emit(ev)
	}
	return true
}
