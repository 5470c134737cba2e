package qwen

import "github.com/graft-project/graft/importer"

// Recognize implements importer.Recognizer (doc.go, "Recognising a
// session file"): a JSON object with a non-empty string "type", one of the
// fields that chain a record (uuid, parentUuid, sessionId) and one by
// which Qwen Code's records differ from Claude Code's, alike in the rest
// (provenance, systemPayload, toolCallResult, a message of Google GenAI
// "parts"), whatever the type (a record type newer than graft is still
// one); not one that carries Claude Code's own fields (userType,
// isSidechain).
func (m *Mapper) Recognize(line []byte) bool {
	s, ok := importer.ShapeOf(line)
	if !ok || !s.String("type") || s.Has("userType", "isSidechain") || !s.Has("uuid", "parentUuid", "sessionId") {
		return false
	}
	if s.Has("provenance", "systemPayload", "toolCallResult") {
		return true
	}
	msg, ok := s.Object("message")
	return ok && msg.Has("parts")
}

// Describe implements importer.Recognizer.
func (m *Mapper) Describe() (host, file string) { return "Qwen Code", "a Qwen Code session file" }
