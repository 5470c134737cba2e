package hosts

import (
	"bytes"
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

// codexCLIVersion is the cli_version graft writes in session_meta: the Codex
// release whose resume the tests drive.
const codexCLIVersion = "0.169.0"

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

// renderCodex writes the turn (doc.go) as a Codex rollout.
func renderCodex(t turn, sid, cwd string) ([]byte, error) {
	user := make([]textBlock, len(t.user))
	for k, s := range t.user {
		user[k] = textBlock{Type: "input_text", Text: s}
	}
	lines := []codexLine{
		{Type: "session_meta", Payload: codexMeta{ID: sid, Timestamp: stamp(t.at, 0), Cwd: cwd, Originator: "graft", CLIVersion: codexCLIVersion, Source: "exec"}},
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
