package gemini

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/graft-project/graft/hosts/adapter"
)

// ExportID is a version-4 uuid derived from "gemini", the target and its
// txn (hosts/doc.go: same target, same id).
func (Adapter) ExportID(t *adapter.Turn, session, txn string) string {
	return adapter.DerivedUUID(4, t.At, string(Name), session, txn)
}

// ExportSuffix ends the name of every session file graft writes. Gemini
// CLI's retention sweep deletes every file ending in -<first 8 of an
// id>.jsonl when one of them holds nothing to resume, which the stub a
// resume in another minute leaves always does (doc.go, "Retention"); a
// name that ends otherwise is out of its reach, and --resume <id> finds a
// file by the id in its header, not by its name.
const ExportSuffix = "-graft.jsonl"

// FileName is the name of the export of session id made at at:
// session-<YYYY-MM-DDTHH-MM, UTC>-<first 8 of id>-graft.jsonl.
func FileName(id string, at time.Time) string {
	return "session-" + at.UTC().Format("2006-01-02T15-04") + "-" + id[:8] + ExportSuffix
}

// ExportPath is where the export of session id in working directory cwd
// (a real path) goes under root: the chats folder of cwd's project
// (ProjectOf), FileName. "" when the project's folder cannot be told
// (Claims says why).
func (Adapter) ExportPath(root, cwd, id string, t *adapter.Turn) string {
	p, err := ProjectOf(root, cwd)
	if err != nil {
		return ""
	}
	return filepath.Join(p.Chats, FileName(id, t.At))
}

// Claims are the ownership markers an export into cwd creates first when
// Gemini CLI has no folder for cwd yet (Project.Claim): without them the
// host would give cwd another folder and not find the export.
func (Adapter) Claims(root, cwd string) ([]adapter.File, error) {
	p, err := ProjectOf(root, cwd)
	if err != nil {
		return nil, err
	}
	return p.Claim, nil
}

// ProjectHash is the header's projectHash of project root cwd: the hex
// SHA-256 of the path.
func ProjectHash(cwd string) string {
	sum := sha256.Sum256([]byte(cwd))
	return hex.EncodeToString(sum[:])
}

// exportHeader is the first record of an export; Graft names the graft
// version that wrote it (Gemini CLI keeps unknown header fields as
// metadata and reads nothing of them).
type exportHeader struct {
	SessionID   string `json:"sessionId"`
	ProjectHash string `json:"projectHash"`
	StartTime   string `json:"startTime"`
	LastUpdated string `json:"lastUpdated"`
	Kind        string `json:"kind"`
	Graft       string `json:"graft"`
}

type exportMessage struct {
	ID        string `json:"id"`
	Timestamp string `json:"timestamp"`
	Type      string `json:"type"`
	Content   any    `json:"content"`
	Model     string `json:"model,omitempty"`
}

type textPart struct {
	Text string `json:"text"`
}

// firstWriter is the writer of an export from before graft named itself
// (writer ""): Gemini CLI exports always named theirs, so this is only
// what Render writes when asked for such bytes.
const firstWriter = "graft"

// ExportModel is the "model" of the acknowledgement an export writes: no
// model wrote it.
const ExportModel = "graft"

// Render writes t as a Gemini CLI session file of session id in project
// root cwd, naming graft version by.Graft in its header (Gemini CLI's
// records name no version of their own: by.Host is not written): the header, a user
// message holding each tape text as one text part, and a gemini message
// holding the acknowledgement (doc.go, "Export"). Same turn, same bytes.
func (Adapter) Render(t *adapter.Turn, id, cwd string, by adapter.Made) ([]byte, error) {
	writer := by.Graft
	if err := adapter.ValidSessionID(id); err != nil {
		return nil, err
	}
	if len(t.User) == 0 || t.Ack == "" {
		return nil, errors.New("gemini: a turn to render needs its user texts and an acknowledgement")
	}
	if writer == "" {
		writer = firstWriter
	}
	user := make([]textPart, len(t.User))
	for k, s := range t.User {
		user[k] = textPart{Text: s}
	}
	recs := []any{
		exportHeader{SessionID: id, ProjectHash: ProjectHash(cwd), StartTime: adapter.Stamp(t.At, 0), LastUpdated: adapter.Stamp(t.At, 1), Kind: "main", Graft: writer},
		exportMessage{ID: messageID(id, 0), Timestamp: adapter.Stamp(t.At, 0), Type: "user", Content: user},
		exportMessage{ID: messageID(id, 1), Timestamp: adapter.Stamp(t.At, 1), Type: "gemini", Content: t.Ack, Model: ExportModel},
	}
	var buf bytes.Buffer
	for _, r := range recs {
		if err := adapter.WriteLine(&buf, r); err != nil { // as Node's JSON.stringify writes its own lines
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// messageID is the id of the k-th message of export id.
func messageID(id string, k int) string { return id + "-graft-" + strconv.Itoa(k) }

// Writer reads the graft version that wrote an export from its first
// line; ok is false when the line is not an export's header.
func (Adapter) Writer(first []byte) (by adapter.Made, ok bool) {
	var h exportHeader
	if json.Unmarshal(first, &h) != nil || h.SessionID == "" || h.Graft == "" {
		return adapter.Made{}, false
	}
	return adapter.Made{Graft: h.Graft}, true
}

// IsExportName reports whether a file name is one graft gives its exports.
func IsExportName(name string) bool {
	return strings.HasPrefix(name, "session-") && strings.HasSuffix(name, ExportSuffix)
}
