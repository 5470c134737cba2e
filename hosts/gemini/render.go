package gemini

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Turn is a graft tape as one closed host turn: what an export renders.
type Turn struct {
	// User is the handoff text, then every recap block in order.
	User []string
	// Ack is the assistant's acknowledgement.
	Ack string
	// At is the time of the tape's graft/origin event.
	At time.Time
}

// ExportID is the session id of the export of graft target session, made
// by transaction txn at t.At: SHA-256 over "graft-host-v1", the host name,
// the session and the txn, shaped as a version-4 uuid (same target, same
// id; hosts/doc.go).
func ExportID(t *Turn, session, txn string) string {
	h := sha256.New()
	h.Write([]byte("graft-host-v1"))
	for _, p := range []string{Name, session, txn} {
		fmt.Fprintf(h, "\x00%d:%s", len(p), p)
	}
	b := h.Sum(nil)[:16]
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	x := hex.EncodeToString(b)
	return x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
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
// (a real path) goes under root, and the ownership markers to create
// first when Gemini CLI has no folder for cwd yet (Project.Claim).
func ExportPath(root, cwd, id string, t *Turn) (string, []File, error) {
	p, err := ProjectOf(root, cwd)
	if err != nil {
		return "", nil, err
	}
	return filepath.Join(p.Chats, FileName(id, t.At)), p.Claim, nil
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

// ExportModel is the "model" of the acknowledgement an export writes: no
// model wrote it.
const ExportModel = "graft"

// Render writes t as a Gemini CLI session file of session id in project
// root cwd, naming graft version writer in its header: the header, a user
// message holding each tape text as one text part, and a gemini message
// holding the acknowledgement (doc.go, "Export"). Same turn, same bytes.
func Render(t *Turn, id, cwd, writer string) ([]byte, error) {
	if err := ValidSessionID(id); err != nil {
		return nil, err
	}
	if len(t.User) == 0 || t.Ack == "" {
		return nil, errors.New("gemini: a turn to render needs its user texts and an acknowledgement")
	}
	if writer == "" {
		return nil, errors.New("gemini: an export names the graft version that writes it")
	}
	user := make([]textPart, len(t.User))
	for k, s := range t.User {
		user[k] = textPart{Text: s}
	}
	recs := []any{
		exportHeader{SessionID: id, ProjectHash: ProjectHash(cwd), StartTime: stamp(t.At, 0), LastUpdated: stamp(t.At, 1), Kind: "main", Graft: writer},
		exportMessage{ID: messageID(id, 0), Timestamp: stamp(t.At, 0), Type: "user", Content: user},
		exportMessage{ID: messageID(id, 1), Timestamp: stamp(t.At, 1), Type: "gemini", Content: t.Ack, Model: ExportModel},
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // as Node's JSON.stringify writes its own lines
	for _, r := range recs {
		if err := enc.Encode(r); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// messageID is the id of the k-th message of export id.
func messageID(id string, k int) string { return id + "-graft-" + strconv.Itoa(k) }

func stamp(at time.Time, k int) string {
	return at.Add(time.Duration(k) * time.Millisecond).UTC().Format("2006-01-02T15:04:05.000Z")
}

// Writer reads the graft version that wrote an export from its first
// line; ok is false when the line is not an export's header.
func Writer(first []byte) (writer string, ok bool) {
	var h exportHeader
	if json.Unmarshal(first, &h) != nil || h.SessionID == "" || h.Graft == "" {
		return "", false
	}
	return h.Graft, true
}

// Exported reports whether session file path is one graft wrote (its
// header names a graft version), and which.
func Exported(r io.Reader) (writer string, ok bool) {
	line, err := bufio.NewReader(r).ReadBytes('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", false
	}
	return Writer(line)
}

// IsExportName reports whether a file name is one graft gives its exports.
func IsExportName(name string) bool {
	return strings.HasPrefix(name, "session-") && strings.HasSuffix(name, ExportSuffix)
}
