package codex

import (
	"bytes"
	"encoding/json"
	"path/filepath"

	"github.com/graft-project/graft/hosts/adapter"
)

// cliVersion is the cli_version of an export written before graft wrote
// its own there (Made{}): the Codex release whose resume the tests drove
// then.
const cliVersion = "0.169.0"

// TestedVersion is the Codex release this package was checked against
// (internal/hosttest's pinned one): the cli_version of an export when no
// rollout of the person's Codex names one.
const TestedVersion = "0.171.0"

// originator is the originator graft writes in session_meta, where Codex
// stores the writer ("codex_cli_rs", "codex_exec"); cli_version holds the
// Codex version the export is for, and graft_version, a field Codex keeps
// and reads nothing of, graft's own (version.Info.Short). An export from
// before that (Made.Host "") has graft's version as cli_version and no
// graft_version.
const originator = "graft"

// TestedVersion implements adapter.Versioned.
func (Adapter) TestedVersion() string { return TestedVersion }

// LineVersion is the cli_version of a session_meta Codex wrote (not
// graft's, whose originator is "graft").
func (Adapter) LineVersion(line []byte) string {
	var l struct {
		Type    string `json:"type"`
		Payload struct {
			Originator string `json:"originator"`
			CLIVersion string `json:"cli_version"`
		} `json:"payload"`
	}
	if json.Unmarshal(line, &l) != nil || l.Type != "session_meta" || l.Payload.Originator == originator {
		return ""
	}
	return adapter.HostVersion(l.Payload.CLIVersion)
}

type line struct {
	Timestamp string `json:"timestamp"`
	Type      string `json:"type"`
	Payload   any    `json:"payload"`
}

type meta struct {
	ID           string `json:"id"`
	Timestamp    string `json:"timestamp"`
	Cwd          string `json:"cwd"`
	Originator   string `json:"originator"`
	CLIVersion   string `json:"cli_version"`
	GraftVersion string `json:"graft_version,omitempty"`
	// ModelProvider is the provider Codex resumes the session on
	// (adapter.Provided); none in an export from before graft named one.
	ModelProvider string  `json:"model_provider,omitempty"`
	Instructions  *string `json:"instructions"`
	Source        string  `json:"source"`
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
func (Adapter) Render(t *adapter.Turn, sid, cwd string, by adapter.Made) ([]byte, error) {
	cli, graft := by.Host, by.Graft
	switch {
	case by.Graft == "" && by.Host == "":
		cli = cliVersion
	case by.Host == "":
		cli, graft = by.Graft, ""
	}
	user := make([]adapter.TextBlock, len(t.User))
	for k, s := range t.User {
		user[k] = adapter.TextBlock{Type: "input_text", Text: s}
	}
	lines := []line{
		{Type: "session_meta", Payload: meta{ID: sid, Timestamp: adapter.Stamp(t.At, 0), Cwd: cwd, Originator: originator, CLIVersion: cli, GraftVersion: graft, ModelProvider: by.Provider, Source: "exec"}},
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

// Writer reads who made an export from graft's session_meta:
// graft_version, cli_version and model_provider; one without
// graft_version has graft's version as cli_version (an export from before
// graft named its version has cliVersion, which renders the same bytes).
func (Adapter) Writer(first []byte) (by adapter.Made, ok bool) {
	var l struct {
		Type    string `json:"type"`
		Payload struct {
			Originator    string `json:"originator"`
			CLIVersion    string `json:"cli_version"`
			GraftVersion  string `json:"graft_version"`
			ModelProvider string `json:"model_provider"`
		} `json:"payload"`
	}
	if json.Unmarshal(first, &l) != nil || l.Type != "session_meta" || l.Payload.Originator != originator {
		return adapter.Made{}, false
	}
	if l.Payload.GraftVersion == "" {
		return adapter.Made{Graft: l.Payload.CLIVersion, Provider: l.Payload.ModelProvider}, true
	}
	return adapter.Made{Graft: l.Payload.GraftVersion, Host: l.Payload.CLIVersion, Provider: l.Payload.ModelProvider}, true
}
