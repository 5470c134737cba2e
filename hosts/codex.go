package hosts

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
)

// CodexHome is $CODEX_HOME, else ~/.codex.
func CodexHome() (string, error) {
	if d := os.Getenv("CODEX_HOME"); d != "" {
		return d, nil
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(h, ".codex"), nil
}

// codexCLIVersion is the cli_version of an export written before graft
// wrote its own there (writer ""): the Codex release whose resume the tests
// drove. session_meta stores the writer in originator ("graft") and its
// version in cli_version, where graft puts its own (version.Info.Short).
const codexCLIVersion = "0.169.0"

// codexOriginator is the originator graft writes in session_meta.
const codexOriginator = "graft"

type codexLine struct {
	Timestamp string `json:"timestamp"`
	Type      string `json:"type"`
	Payload   any    `json:"payload"`
}

type codexMeta struct {
	ID           string  `json:"id"`
	Timestamp    string  `json:"timestamp"`
	Cwd          string  `json:"cwd"`
	Originator   string  `json:"originator"`
	CLIVersion   string  `json:"cli_version"`
	Instructions *string `json:"instructions"`
	Source       string  `json:"source"`
}

type codexMessage struct {
	Type    string      `json:"type"`
	Role    string      `json:"role"`
	Content []textBlock `json:"content"`
}

type codexUserMessage struct {
	Type    string   `json:"type"`
	Message string   `json:"message"`
	Images  []string `json:"images"`
}

// renderCodex writes the turn (doc.go) as a Codex rollout written by graft
// version writer ("": an export from before graft named its version).
func renderCodex(t turn, sid, cwd, writer string) ([]byte, error) {
	if writer == "" {
		writer = codexCLIVersion
	}
	user := make([]textBlock, len(t.user))
	for k, s := range t.user {
		user[k] = textBlock{Type: "input_text", Text: s}
	}
	lines := []codexLine{
		{Type: "session_meta", Payload: codexMeta{ID: sid, Timestamp: stamp(t.at, 0), Cwd: cwd, Originator: codexOriginator, CLIVersion: writer, Source: "exec"}},
		{Type: "response_item", Payload: codexMessage{Type: "message", Role: "user", Content: user}},
		{Type: "event_msg", Payload: codexUserMessage{Type: "user_message", Message: t.user[0], Images: []string{}}},
		{Type: "response_item", Payload: codexMessage{Type: "message", Role: "assistant", Content: []textBlock{{Type: "output_text", Text: t.ack}}}},
	}
	var buf bytes.Buffer
	for k := range lines {
		lines[k].Timestamp = stamp(t.at, k)
		if err := writeLine(&buf, lines[k]); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// codexWriter is the cli_version of a rollout graft wrote, from its first
// line (ok false when the line is not graft's session_meta). An export
// from before graft named its version holds codexCLIVersion, which renders
// the same bytes.
func codexWriter(first []byte) (writer string, ok bool) {
	var l struct {
		Type    string `json:"type"`
		Payload struct {
			Originator string `json:"originator"`
			CLIVersion string `json:"cli_version"`
		} `json:"payload"`
	}
	if json.Unmarshal(first, &l) != nil || l.Type != "session_meta" || l.Payload.Originator != codexOriginator {
		return "", false
	}
	return l.Payload.CLIVersion, true
}
