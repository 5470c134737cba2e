package qwen

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// TestedVersion is the Qwen Code release whose session files, resume,
// hooks and compression this package was checked against.
const TestedVersion = "0.24.4"

// Entrypoint is what graft writes as the "entrypoint" of the records of
// an export, so that they are known as graft's (Writer).
const Entrypoint = "graft"

// Turn is a tape as one closed host turn: the user's side (the handoff
// text, then every recap block in order) and the acknowledgement that
// closes it.
type Turn struct {
	User []string
	Ack  string
	// At is the tape's time: the first record's timestamp, each next one
	// a millisecond later.
	At time.Time
}

// RenderOptions say which session Render writes.
type RenderOptions struct {
	// SessionID is the new session's id, a uuid (the file is named
	// <SessionID>.jsonl).
	SessionID string
	// Cwd is the project root the session belongs to, symlinks resolved:
	// Qwen Code resumes a session only in the project it names.
	Cwd string
	// HostVersion is the Qwen Code version the records name ("" is
	// TestedVersion).
	HostVersion string
	// Writer is the graft version that writes them (graftVersion).
	Writer string
}

// exportRecord is one record of an export. A user record carries no
// provenance: Qwen Code writes "real_user" for what the person typed, and
// the tape is not that (graft's own mapper reads the entrypoint).
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

// Render writes t as a Qwen Code session file (doc.go, "Export"): a user
// record holding every text of t.User as one text part each, then an
// assistant record (role "model") holding t.Ack, its parentUuid the user
// record's uuid. Record uuids are derived from the session id, so the
// same turn and options give the same bytes.
func Render(t Turn, o RenderOptions) ([]byte, error) {
	if err := ValidSessionID(o.SessionID); err != nil {
		return nil, err
	}
	if o.Cwd == "" {
		return nil, errors.New("qwen: rendering a session without its project directory")
	}
	if len(t.User) == 0 || t.Ack == "" {
		return nil, fmt.Errorf("qwen: a turn needs user text and an acknowledgement (%d user texts, ack %d bytes)", len(t.User), len(t.Ack))
	}
	ver := o.HostVersion
	if ver == "" {
		ver = TestedVersion
	}
	msgs := []struct {
		typ, role string
		texts     []string
	}{{"user", "user", t.User}, {"assistant", "model", []string{t.Ack}}}
	var buf bytes.Buffer
	var parent *string
	for k, m := range msgs {
		id := recordUUID(o.SessionID, k)
		parts := make([]exportPart, len(m.texts))
		for j, s := range m.texts {
			parts[j] = exportPart{Text: s}
		}
		rec := exportRecord{
			UUID: id, ParentUUID: parent, SessionID: o.SessionID, Timestamp: stamp(t.At, k),
			Type: m.typ, Cwd: o.Cwd, Version: ver, Entrypoint: Entrypoint, GraftVersion: o.Writer,
			Message: exportContent{Role: m.role, Parts: parts},
		}
		if m.typ == "assistant" {
			rec.Model = Entrypoint
		}
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(rec); err != nil {
			return nil, err
		}
		parent = &id
	}
	return buf.Bytes(), nil
}

// Writer is the graft version that wrote an export, from its first line;
// ok is false when the line is not graft's.
func Writer(first []byte) (writer string, ok bool) {
	var r struct {
		Entrypoint   string `json:"entrypoint"`
		GraftVersion string `json:"graftVersion"`
	}
	if json.Unmarshal(first, &r) != nil || r.Entrypoint != Entrypoint {
		return "", false
	}
	return r.GraftVersion, true
}

// recordUUID is the k-th record's uuid: SHA-256 of the session id and k,
// shaped as a version 4 uuid.
func recordUUID(sid string, k int) string {
	return DerivedUUID("record", sid, strconv.Itoa(k))
}

// DerivedUUID shapes SHA-256 over the parts as a version 4 uuid: how a
// session id is derived from what it exports (the same parts give the
// same id).
func DerivedUUID(parts ...string) string {
	h := sha256.New()
	h.Write([]byte("graft-qwen-v1"))
	for _, p := range parts {
		fmt.Fprintf(h, "\x00%d:%s", len(p), p)
	}
	b := h.Sum(nil)[:16]
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	x := hex.EncodeToString(b)
	return x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
}

// stamp is the k-th record's time: at, k milliseconds later, as Qwen Code
// writes it (toISOString).
func stamp(at time.Time, k int) string {
	return at.Add(time.Duration(k) * time.Millisecond).UTC().Format("2006-01-02T15:04:05.000Z")
}
