package gemini

import (
	"strings"

	"github.com/graft-project/graft/importer"
)

// Recognize implements importer.Recognizer (doc.go, "Recognising a
// session file"): a JSON object that is one of the records the host reads
// — {"$rewindTo"}, {"$set": {…}}, any other object of one "$" field (a
// record newer than graft), the header (sessionId and projectHash) — or a
// message: a string "id" and a non-empty string "type", whatever the type,
// and none of the fields of the other hosts' records (uuid, sessionId,
// payload, message).
func (m *Mapper) Recognize(line []byte) bool {
	s, ok := importer.ShapeOf(line)
	if !ok {
		return false
	}
	if len(s) == 1 {
		for k := range s {
			if strings.HasPrefix(k, "$") {
				return true
			}
		}
	}
	if s.Has("projectHash") && s.String("sessionId") {
		return true
	}
	if s.Has("uuid", "sessionId", "payload", "message") {
		return false
	}
	return s.String("id") && s.String("type")
}

// Describe implements importer.Recognizer.
func (m *Mapper) Describe() (host, file string) { return "Gemini CLI", "a Gemini CLI session file" }
