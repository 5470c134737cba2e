package codex

import (
	"bytes"
	"encoding/json"
	"path/filepath"

	"github.com/graft-project/graft/hosts/adapter"
)

// cliVersion is the cli_version of an export written before graft wrote
// its own there (writer ""): the Codex release whose resume the tests
// drove. session_meta stores the writer in originator ("graft") and its
// version in cli_version, where graft puts its own (version.Info.Short).
const cliVersion = "0.169.0"

// originator is the originator graft writes in session_meta.
const originator = "graft"

type line struct {
	Timestamp string `json:"timestamp"`
	Type      string `json:"type"`
	Payload   any    `json:"payload"`
}

type meta struct {
	ID           string  `json:"id"`
	Timestamp    string  `json:"timestamp"`
	Cwd          string  `json:"cwd"`
	Originator   string  `json:"originator"`
	CLIVersion   string  `json:"cli_version"`
	Instructions *string `json:"instructions"`
	Source       string  `json:"source"`
}

type message struct {
	Type    string              `json:"type"`
	Role    string              `json:"role"`
	Content []adapter.TextBlock `json:"content"`
}

type userMessage struct {
	Type    string   `json:"type"`
	Message string   `json:"message"`
	Images  []string `json:"images"`
}

// ExportID is a version-7 uuid (the commit time in its first 48 bits)
// derived from the host, the target and its txn.
func (Adapter) ExportID(t *adapter.Turn, session, txn string) string {
	return adapter.DerivedUUID(7, t.At, string(Name), session, txn)
}

// ExportPath is <codex home>/sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<id>.jsonl,
// the date the commit's (UTC).
func (Adapter) ExportPath(root, _, id string, t *adapter.Turn) string {
	at := t.At.UTC()
	name := "rollout-" + at.Format("2006-01-02T15-04-05") + "-" + id + ".jsonl"
	return filepath.Join(root, "sessions", at.Format("2006"), at.Format("01"), at.Format("02"), name)
}

// Render writes the turn as a Codex rollout (doc.go).
func (Adapter) Render(t *adapter.Turn, sid, cwd, writer string) ([]byte, error) {
	if writer == "" {
		writer = cliVersion
	}
	user := make([]adapter.TextBlock, len(t.User))
	for k, s := range t.User {
		user[k] = adapter.TextBlock{Type: "input_text", Text: s}
	}
	lines := []line{
		{Type: "session_meta", Payload: meta{ID: sid, Timestamp: adapter.Stamp(t.At, 0), Cwd: cwd, Originator: originator, CLIVersion: writer, Source: "exec"}},
		{Type: "response_item", Payload: message{Type: "message", Role: "user", Content: user}},
		{Type: "event_msg", Payload: userMessage{Type: "user_message", Message: t.User[0], Images: []string{}}},
		{Type: "response_item", Payload: message{Type: "message", Role: "assistant", Content: []adapter.TextBlock{{Type: "output_text", Text: t.Ack}}}},
	}
	var buf bytes.Buffer
	for k := range lines {
		lines[k].Timestamp = adapter.Stamp(t.At, k)
		if err := adapter.WriteLine(&buf, lines[k]); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// Writer is the cli_version of graft's session_meta. An export from
// before graft named its version holds cliVersion, which renders the same
// bytes.
func (Adapter) Writer(first []byte) (writer string, ok bool) {
	var l struct {
		Type    string `json:"type"`
		Payload struct {
			Originator string `json:"originator"`
			CLIVersion string `json:"cli_version"`
		} `json:"payload"`
	}
	if json.Unmarshal(first, &l) != nil || l.Type != "session_meta" || l.Payload.Originator != originator {
		return "", false
	}
	return l.Payload.CLIVersion, true
}
