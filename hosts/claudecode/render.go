package claudecode

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strconv"
	"time"

	"github.com/graft-project/graft/hosts/adapter"
)

// record is one line Claude Code resumes from.
type record struct {
	ParentUUID  *string `json:"parentUuid"`
	IsSidechain bool    `json:"isSidechain"`
	UserType    string  `json:"userType"`
	Cwd         string  `json:"cwd"`
	SessionID   string  `json:"sessionId"`
	Version     string  `json:"version"`
	Entrypoint  string  `json:"entrypoint,omitempty"`
	Type        string  `json:"type"`
	Message     message `json:"message"`
	UUID        string  `json:"uuid"`
	Timestamp   string  `json:"timestamp"`
}

type message struct {
	Role    string              `json:"role"`
	Content []adapter.TextBlock `json:"content"`
}

// hostVersion is the "version" of the records of an export written before
// graft wrote its own (writer ""): the Claude Code release whose resume the
// tests drove. A re-export of such a file renders it again.
const hostVersion = "2.1.328"

// entrypoint is what graft writes as the "entrypoint" of its records:
// Claude Code stores the writer there ("cli", "sdk-cli") and its version
// in "version", where graft puts its own (version.Info.Short).
const entrypoint = "graft"

// ExportID is a version-4 uuid derived from the host, the target and its
// txn.
func (Adapter) ExportID(t *adapter.Turn, session, txn string) string {
	return adapter.DerivedUUID(4, t.At, string(Name), session, txn)
}

// ExportPath is <config>/projects/<folder of cwd>/<id>.jsonl.
func (Adapter) ExportPath(root, cwd, id string, _ *adapter.Turn) string {
	return filepath.Join(root, "projects", ProjectDirName(cwd), id+".jsonl")
}

// Render writes the turn as Claude Code records (doc.go).
func (Adapter) Render(t *adapter.Turn, sid, cwd, writer string) ([]byte, error) {
	var buf bytes.Buffer
	var parent *string
	msgs := []struct {
		typ, role string
		texts     []string
	}{{"user", "user", t.User}, {"assistant", "assistant", []string{t.Ack}}}
	ver, entry := writer, entrypoint
	if writer == "" {
		ver, entry = hostVersion, ""
	}
	for k, m := range msgs {
		id := adapter.DerivedUUID(4, time.Time{}, sid, "record", strconv.Itoa(k))
		blocks := make([]adapter.TextBlock, len(m.texts))
		for j, s := range m.texts {
			blocks[j] = adapter.TextBlock{Type: "text", Text: s}
		}
		rec := record{
			ParentUUID: parent, UserType: "external", Cwd: cwd, SessionID: sid, Version: ver, Entrypoint: entry,
			Type: m.typ, Message: message{Role: m.role, Content: blocks},
			UUID: id, Timestamp: adapter.Stamp(t.At, k),
		}
		if err := adapter.WriteLine(&buf, rec); err != nil {
			return nil, err
		}
		parent = &id
	}
	return buf.Bytes(), nil
}

// Writer reads the entrypoint and version of an export's first record.
func (Adapter) Writer(first []byte) (writer string, ok bool) {
	var r struct {
		Version    string `json:"version"`
		Entrypoint string `json:"entrypoint"`
	}
	if json.Unmarshal(first, &r) != nil {
		return "", false
	}
	switch {
	case r.Entrypoint == entrypoint:
		return r.Version, true
	case r.Entrypoint == "" && r.Version == hostVersion:
		return "", true
	}
	return "", false
}
