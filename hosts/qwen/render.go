package qwen

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strconv"
	"time"

	"github.com/graft-project/graft/hosts/adapter"
	mapper "github.com/graft-project/graft/importer/qwen"
)

// TestedVersion is the Qwen Code release whose session files, resume,
// hooks and compression this package was checked against: the "version"
// of an export's records when no session file of the person's Qwen Code
// names one (and of every export from before graft looked).
const TestedVersion = "0.24.4"

// TestedVersion implements adapter.Versioned.
func (Adapter) TestedVersion() string { return TestedVersion }

// LineVersion is the "version" of a record Qwen Code wrote (not one of
// graft's, whose entrypoint is "graft").
func (Adapter) LineVersion(line []byte) string {
	var r struct {
		Version    string `json:"version"`
		Entrypoint string `json:"entrypoint"`
	}
	if json.Unmarshal(line, &r) != nil || r.Entrypoint == mapper.Entrypoint {
		return ""
	}
	return adapter.HostVersion(r.Version)
}

// exportRecord is one record of an export. A user record carries no
// provenance: Qwen Code writes "real_user" for what the person typed, and
// the tape is not that (graft's mapper reads the entrypoint).
type exportRecord struct {
	UUID         string        `json:"uuid"`
	ParentUUID   *string       `json:"parentUuid"`
	SessionID    string        `json:"sessionId"`
	Timestamp    string        `json:"timestamp"`
	Type         string        `json:"type"`
	Cwd          string        `json:"cwd"`
	Version      string        `json:"version"`
	Entrypoint   string        `json:"entrypoint"`
	GraftVersion string        `json:"graftVersion,omitempty"`
	Model        string        `json:"model,omitempty"`
	Message      exportContent `json:"message"`
}

type exportContent struct {
	Role  string       `json:"role"`
	Parts []exportPart `json:"parts"`
}

type exportPart struct {
	Text string `json:"text"`
}

// ExportID is a version-4 uuid derived from the host, the target and its
// txn.
func (Adapter) ExportID(t *adapter.Turn, session, txn string) string {
	return adapter.DerivedUUID(4, t.At, string(Name), session, txn)
}

// ExportPath is <root>/projects/<folder of cwd>/chats/<id>.jsonl.
func (Adapter) ExportPath(root, cwd, id string, _ *adapter.Turn) string {
	return filepath.Join(root, "projects", ProjectDirName(cwd), "chats", id+".jsonl")
}

// Render writes the turn as a Qwen Code session file (doc.go, "An
// export"): a user record holding every text of t.User as one text part
// each, then an assistant record (role "model") holding t.Ack, its
// parentUuid the user record's uuid. Record uuids are derived from the
// session id, so the same turn gives the same bytes.
func (Adapter) Render(t *adapter.Turn, sid, cwd string, by adapter.Made) ([]byte, error) {
	host := by.Host
	if host == "" {
		host = TestedVersion
	}
	msgs := []struct {
		typ, role string
		texts     []string
	}{{"user", "user", t.User}, {"assistant", "model", []string{t.Ack}}}
	var buf bytes.Buffer
	var parent *string
	for k, m := range msgs {
		id := adapter.DerivedUUID(4, time.Time{}, sid, "record", strconv.Itoa(k))
		parts := make([]exportPart, len(m.texts))
		for j, s := range m.texts {
			parts[j] = exportPart{Text: s}
		}
		rec := exportRecord{
			UUID: id, ParentUUID: parent, SessionID: sid, Timestamp: adapter.Stamp(t.At, k),
			Type: m.typ, Cwd: cwd, Version: host, Entrypoint: mapper.Entrypoint, GraftVersion: by.Graft,
			Message: exportContent{Role: m.role, Parts: parts},
		}
		if m.typ == "assistant" {
			rec.Model = mapper.Entrypoint
		}
		if err := adapter.WriteLine(&buf, rec); err != nil {
			return nil, err
		}
		parent = &id
	}
	if t.Goal != "" {
		// The goal Qwen Code restores on --resume: its newest goal_state
		// record that parses, a goal just created (doc.go, "An export").
		// Its evidence starts at the acknowledgement, a record of this
		// file (the host's verifier reads from there).
		at := t.At.Add(time.Duration(len(msgs)) * time.Millisecond).UnixMilli()
		rec := goalRecord{
			UUID: adapter.DerivedUUID(4, time.Time{}, sid, "record", strconv.Itoa(len(msgs))), ParentUUID: parent, SessionID: sid,
			Timestamp: adapter.Stamp(t.At, len(msgs)), Type: "system", Subtype: "goal_state", Provenance: "goal_control",
			Cwd: cwd, Version: host, Entrypoint: mapper.Entrypoint, GraftVersion: by.Graft,
			SystemPayload: goalPayload{V: 2, Cause: "create", Snapshot: goalSnapshot{V: 2, Activity: "idle", Goal: goalRecordGoal{
				GoalID: adapter.DerivedUUID(4, time.Time{}, sid, "goal"), Revision: 1, Objective: t.Goal, Status: "active",
				EvidenceCursor: goalCursor{RecordID: *parent}, CreatedAt: at, UpdatedAt: at,
			}}},
		}
		if err := adapter.WriteLine(&buf, rec); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// goalRecord is the goal_state record of the goal an export carries, as
// Qwen Code 0.24.4's parser takes it (parseGoalStateRecordPayloadV2,
// parseGoalRecord: no key it does not know; no budget is none).
type goalRecord struct {
	UUID          string      `json:"uuid"`
	ParentUUID    *string     `json:"parentUuid"`
	SessionID     string      `json:"sessionId"`
	Timestamp     string      `json:"timestamp"`
	Type          string      `json:"type"`
	Subtype       string      `json:"subtype"`
	Provenance    string      `json:"provenance"`
	Cwd           string      `json:"cwd"`
	Version       string      `json:"version"`
	Entrypoint    string      `json:"entrypoint"`
	GraftVersion  string      `json:"graftVersion,omitempty"`
	SystemPayload goalPayload `json:"systemPayload"`
}

type goalPayload struct {
	V        int          `json:"v"`
	Cause    string       `json:"cause"`
	Snapshot goalSnapshot `json:"snapshot"`
}

type goalSnapshot struct {
	V        int            `json:"v"`
	Activity string         `json:"activity"`
	Goal     goalRecordGoal `json:"goal"`
}

type goalRecordGoal struct {
	GoalID         string     `json:"goalId"`
	Revision       int        `json:"revision"`
	Objective      string     `json:"objective"`
	Status         string     `json:"status"`
	EvidenceCursor goalCursor `json:"evidenceCursor"`
	TurnCount      int        `json:"turnCount"`
	ActiveTimeMs   int64      `json:"activeTimeMs"`
	TokensUsed     int64      `json:"tokensUsed"`
	CreatedAt      int64      `json:"createdAt"`
	UpdatedAt      int64      `json:"updatedAt"`
}

type goalCursor struct {
	RecordID string `json:"recordId"`
}

// Writer reads who made an export from its first record: graftVersion
// ("" when it names none) and version (every export from before graft
// looked for the person's Qwen Code names TestedVersion, which renders
// the same bytes); ok is false when the record is not graft's.
func (Adapter) Writer(first []byte) (by adapter.Made, ok bool) {
	var r struct {
		Entrypoint   string `json:"entrypoint"`
		Version      string `json:"version"`
		GraftVersion string `json:"graftVersion"`
	}
	if json.Unmarshal(first, &r) != nil || r.Entrypoint != mapper.Entrypoint {
		return adapter.Made{}, false
	}
	return adapter.Made{Graft: r.GraftVersion, Host: r.Version}, true
}
