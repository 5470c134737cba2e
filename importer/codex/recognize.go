package codex

import (
	"bytes"
	"encoding/json"

	"github.com/graft-project/graft/importer"
)

// Recognize implements importer.Recognizer (doc.go, "Recognising a
// rollout"): a RolloutLine, a JSON object with "timestamp", a non-empty
// string "type" and a "payload" that is not null, whatever the type (a
// RolloutItem newer than graft is still one); or a bare response item of a
// rollout from before the envelope (a ResponseItem type, no payload).
func (m *Mapper) Recognize(line []byte) bool {
	s, ok := importer.ShapeOf(line)
	if !ok || !s.String("type") {
		return false
	}
	payload := bytes.TrimSpace(s.Get("payload"))
	if len(payload) == 0 || bytes.Equal(payload, []byte("null")) {
		var typ string
		return json.Unmarshal(s.Get("type"), &typ) == nil && responseItemTypes[typ]
	}
	return s.Has("timestamp")
}

// Describe implements importer.Recognizer.
func (m *Mapper) Describe() (host, file string) { return "Codex", "a Codex rollout" }
