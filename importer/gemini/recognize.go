package gemini

import (
	"encoding/json"
	"path/filepath"
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

// Hint implements importer.Hinter: Gemini CLI's earlier session files are
// one JSON document with two-space indents (session-<time>-<id8>.json,
// "{" then "  \"sessionId\": …" and "  \"projectHash\": …" lines). The
// real 0.61.0 lists such a file and, when it resumes it, writes it again
// beside it as the JSONL graft reads (session-….jsonl: its header, then
// each message), leaving the document as it was.
func (m *Mapper) Hint(path string, lines [][]byte) string {
	if len(lines) < 3 || string(lines[0]) != "{" {
		return ""
	}
	var id string
	hash := false
	for _, l := range lines[1:] {
		k, v, ok := strings.Cut(strings.TrimSuffix(string(l), ","), ": ")
		if !ok {
			break
		}
		switch k {
		case `"sessionId"`:
			if json.Unmarshal([]byte(v), &id) != nil {
				return ""
			}
		case `"projectHash"`:
			hash = true
		}
	}
	if id == "" || !hash {
		return ""
	}
	next := strings.TrimSuffix(filepath.Base(path), ".json") + ".jsonl"
	return "is a Gemini CLI session in its earlier format, one JSON document, which graft does not read: Gemini CLI 0.61 resumes it (gemini --resume " + id +
		" in its project) and writes it again beside it as " + next + ", the format graft imports: import that file"
}
