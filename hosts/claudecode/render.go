package claudecode

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strconv"
	"time"

	"github.com/graft-project/graft/hosts/adapter"
)

// record is one line Claude Code resumes from: a message, or the
// attachment of the goal an export carries (the same envelope).
type record struct {
	ParentUUID  *string     `json:"parentUuid"`
	IsSidechain bool        `json:"isSidechain"`
	UserType    string      `json:"userType"`
	Cwd         string      `json:"cwd"`
	SessionID   string      `json:"sessionId"`
	Version     string      `json:"version"`
	Entrypoint  string      `json:"entrypoint,omitempty"`
	Graft       string      `json:"graftVersion,omitempty"`
	Type        string      `json:"type"`
	Message     *message    `json:"message,omitempty"`
	Attachment  *goalStatus `json:"attachment,omitempty"`
	UUID        string      `json:"uuid"`
	Timestamp   string      `json:"timestamp"`
}

type message struct {
	Role    string              `json:"role"`
	Content []adapter.TextBlock `json:"content"`
}

// hostVersion is the "version" of the records of an export written before
// graft wrote its own (Made{}): the Claude Code release whose resume the
// tests drove then. A re-export of such a file renders it again.
const hostVersion = "2.1.328"

// TestedVersion is the Claude Code release this package was checked
// against (internal/hosttest's pinned one): the "version" of an export's
// records when no session file of the person's Claude Code names one.
const TestedVersion = "2.1.332"

// entrypoint is what graft writes as the "entrypoint" of its records:
// Claude Code stores the writer there ("cli", "sdk-cli") and its own
// version in "version", where graft puts the Claude Code version the
// export is for; graft's own version goes in "graftVersion", a field
// Claude Code keeps and reads nothing of. An export from before that
// (Made.Host "") has graft's version in "version" and no graftVersion.
const entrypoint = "graft"

// TestedVersion implements adapter.Versioned.
func (Adapter) TestedVersion() string { return TestedVersion }

// LineVersion is the "version" of a record Claude Code wrote (not one of
// graft's, whose entrypoint is "graft").
func (Adapter) LineVersion(line []byte) string {
	var r struct {
		Version    string `json:"version"`
		Entrypoint string `json:"entrypoint"`
	}
	if json.Unmarshal(line, &r) != nil || r.Entrypoint == entrypoint {
		return ""
	}
	return adapter.HostVersion(r.Version)
}

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
func (Adapter) Render(t *adapter.Turn, sid, cwd string, by adapter.Made) ([]byte, error) {
	var buf bytes.Buffer
	var parent *string
	msgs := []struct {
		typ, role string
		texts     []string
	}{{"user", "user", t.User}, {"assistant", "assistant", []string{t.Ack}}}
	ver, entry, graft := by.Host, entrypoint, by.Graft
	switch {
	case by.Graft == "" && by.Host == "":
		ver, entry = hostVersion, ""
	case by.Host == "":
		ver, graft = by.Graft, ""
	}
	for k, m := range msgs {
		id := adapter.DerivedUUID(4, time.Time{}, sid, "record", strconv.Itoa(k))
		blocks := make([]adapter.TextBlock, len(m.texts))
		for j, s := range m.texts {
			blocks[j] = adapter.TextBlock{Type: "text", Text: s}
		}
		rec := record{
			ParentUUID: parent, UserType: "external", Cwd: cwd, SessionID: sid, Version: ver, Entrypoint: entry, Graft: graft,
			Type: m.typ, Message: &message{Role: m.role, Content: blocks},
			UUID: id, Timestamp: adapter.Stamp(t.At, k),
		}
		if err := adapter.WriteLine(&buf, rec); err != nil {
			return nil, err
		}
		parent = &id
	}
	if t.Goal != "" {
		// The goal Claude Code restores on --resume: its last
		// goal_status attachment, neither met nor failed, as /goal
		// <condition> writes it (doc.go, "An export").
		rec := record{
			ParentUUID: parent, UserType: "external", Cwd: cwd, SessionID: sid, Version: ver, Entrypoint: entry, Graft: graft,
			Type:       "attachment",
			Attachment: &goalStatus{Type: "goal_status", Met: false, Sentinel: true, Condition: t.Goal},
			UUID:       adapter.DerivedUUID(4, time.Time{}, sid, "record", strconv.Itoa(len(msgs))), Timestamp: adapter.Stamp(t.At, len(msgs)),
		}
		if err := adapter.WriteLine(&buf, rec); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// goalStatus is Claude Code 2.1.332's goal_status attachment of a goal
// just set: not met, the sentinel of /goal <condition>.
type goalStatus struct {
	Type      string `json:"type"`
	Met       bool   `json:"met"`
	Sentinel  bool   `json:"sentinel"`
	Condition string `json:"condition"`
}

// Writer reads who made an export from its first record: graftVersion
// and version; an export without graftVersion has graft's version in
// version, one without an entrypoint is from before graft named itself.
func (Adapter) Writer(first []byte) (by adapter.Made, ok bool) {
	var r struct {
		Version    string `json:"version"`
		Entrypoint string `json:"entrypoint"`
		Graft      string `json:"graftVersion"`
	}
	if json.Unmarshal(first, &r) != nil {
		return adapter.Made{}, false
	}
	switch {
	case r.Entrypoint == entrypoint && r.Graft != "":
		return adapter.Made{Graft: r.Graft, Host: r.Version}, true
	case r.Entrypoint == entrypoint:
		return adapter.Made{Graft: r.Version}, true
	case r.Entrypoint == "" && r.Version == hostVersion:
		return adapter.Made{}, true
	}
	return adapter.Made{}, false
}
