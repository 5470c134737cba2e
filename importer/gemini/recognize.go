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
	if h := otherFileHint(path, lines); h != "" {
		return h
	}
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

// sessionFiles names the files graft reads, for a refusal of another.
const sessionFiles = "graft imports the session files under chats/ (session-….jsonl)"

// otherFileHint says what Gemini CLI's other files in a project's folder
// are, which are no session (seen in public dotfiles): a checkpoint,
// checkpoint-<tag>.json, what /chat save writes, a list of contents
// ({"role", "parts"}) on one line or indented; and logs.json, the
// prompts typed, a list of {sessionId, messageId, type, message,
// timestamp}. "" for any other file.
func otherFileHint(path string, lines [][]byte) string {
	var head strings.Builder
	for _, l := range lines[:min(len(lines), 4)] {
		head.Write(l)
	}
	h := head.String()
	if !strings.HasPrefix(h, "[") {
		return ""
	}
	base := filepath.Base(path)
	switch {
	case strings.HasPrefix(base, "checkpoint") && strings.HasSuffix(base, ".json") && strings.Contains(h, `"role"`):
		return "is a Gemini CLI checkpoint (what /chat save writes: a conversation's contents, with no session id or times), which graft does not read: " + sessionFiles
	case base == "logs.json" && strings.Contains(h, `"sessionId"`) && strings.Contains(h, `"messageId"`):
		return "is Gemini CLI's logs.json (the prompts typed in each session, without the replies or the tool calls), which graft does not read: " + sessionFiles
	}
	return ""
}
