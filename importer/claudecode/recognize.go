package claudecode

import "github.com/graft-project/graft/importer"

// Recognize implements importer.Recognizer (doc.go, "Recognising a
// transcript"): a JSON object with a non-empty string "type" and one of
// the fields that tie a record to its session (uuid, parentUuid,
// sessionId, leafUuid, messageId) or an Anthropic message ({"role",
// "content"}), whatever the type — unless it carries the fields by which
// Qwen Code's records, alike in the rest, differ (provenance,
// systemPayload, toolCallResult, a message of "parts") and none of Claude
// Code's own (userType, isSidechain).
func (m *Mapper) Recognize(line []byte) bool {
	s, ok := importer.ShapeOf(line)
	if !ok || !s.String("type") {
		return false
	}
	if s.Has("userType", "isSidechain") {
		return true
	}
	msg, isMsg := s.Object("message")
	if s.Has("provenance", "systemPayload", "toolCallResult") || isMsg && msg.Has("parts") && !msg.Has("content") {
		return false
	}
	return s.Has("uuid", "parentUuid", "sessionId", "leafUuid", "messageId") || isMsg && msg.Has("role") && msg.Has("content")
}

// Describe implements importer.Recognizer.
func (m *Mapper) Describe() (host, file string) { return "Claude Code", "a Claude Code transcript" }
