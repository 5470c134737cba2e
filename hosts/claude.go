package hosts

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"time"
	"unicode/utf16"
)

// ClaudeConfigDir is $CLAUDE_CONFIG_DIR, else ~/.claude.
func ClaudeConfigDir() (string, error) {
	if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d, nil
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(h, ".claude"), nil
}

// claudeMaxDirName is where Claude Code cuts a project folder's name and
// appends the path's hash.
const claudeMaxDirName = 200

// ClaudeProjectDirName is the folder under <config>/projects/ that Claude
// Code keeps the transcripts of working directory path in (path must be
// real: symlinks resolved). See doc.go.
func ClaudeProjectDirName(path string) string {
	units := utf16.Encode([]rune(path))
	name := make([]byte, len(units))
	for k, u := range units {
		switch {
		case u >= 'a' && u <= 'z', u >= 'A' && u <= 'Z', u >= '0' && u <= '9':
			name[k] = byte(u)
		default:
			name[k] = '-'
		}
	}
	if len(name) <= claudeMaxDirName {
		return string(name)
	}
	var h int32
	for _, u := range units {
		h = (h << 5) - h + int32(u)
	}
	abs := int64(h)
	if abs < 0 {
		abs = -abs
	}
	return string(name[:claudeMaxDirName]) + "-" + strconv.FormatInt(abs, 36)
}

// claudeRecord is one line Claude Code resumes from.
type claudeRecord struct {
	ParentUUID  *string       `json:"parentUuid"`
	IsSidechain bool          `json:"isSidechain"`
	UserType    string        `json:"userType"`
	Cwd         string        `json:"cwd"`
	SessionID   string        `json:"sessionId"`
	Version     string        `json:"version"`
	Entrypoint  string        `json:"entrypoint,omitempty"`
	Type        string        `json:"type"`
	Message     claudeMessage `json:"message"`
	UUID        string        `json:"uuid"`
	Timestamp   string        `json:"timestamp"`
}

type claudeMessage struct {
	Role    string      `json:"role"`
	Content []textBlock `json:"content"`
}

type textBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// claudeVersion is the "version" of the records of an export written
// before graft wrote its own (writer ""): the Claude Code release whose
// resume the tests drove. A re-export of such a file renders it again.
const claudeVersion = "2.1.328"

// claudeEntrypoint is what graft writes as the "entrypoint" of its
// records: Claude Code stores the writer there ("cli", "sdk-cli") and its
// version in "version", where graft puts its own (version.Info.Short).
const claudeEntrypoint = "graft"

// renderClaude writes the turn (doc.go) as Claude Code records written by
// graft version writer ("": the records of an export from before graft
// named itself, for a re-export to compare with).
func renderClaude(t turn, sid, cwd, writer string) ([]byte, error) {
	var buf bytes.Buffer
	var parent *string
	msgs := []struct {
		typ, role string
		texts     []string
	}{{"user", "user", t.user}, {"assistant", "assistant", []string{t.ack}}}
	ver, entry := writer, claudeEntrypoint
	if writer == "" {
		ver, entry = claudeVersion, ""
	}
	for k, m := range msgs {
		id := derivedUUID(4, time.Time{}, sid, "record", strconv.Itoa(k))
		blocks := make([]textBlock, len(m.texts))
		for j, s := range m.texts {
			blocks[j] = textBlock{Type: "text", Text: s}
		}
		rec := claudeRecord{
			ParentUUID: parent, UserType: "external", Cwd: cwd, SessionID: sid, Version: ver, Entrypoint: entry,
			Type: m.typ, Message: claudeMessage{Role: m.role, Content: blocks},
			UUID: id, Timestamp: stamp(t.at, k),
		}
		if err := writeLine(&buf, rec); err != nil {
			return nil, err
		}
		parent = &id
	}
	return buf.Bytes(), nil
}

// claudeWriter is the graft version that wrote the records of an export,
// from its first line: "" for one from before graft named itself; ok is
// false when the line is not graft's.
func claudeWriter(first []byte) (writer string, ok bool) {
	var r struct {
		Version    string `json:"version"`
		Entrypoint string `json:"entrypoint"`
	}
	if json.Unmarshal(first, &r) != nil {
		return "", false
	}
	switch {
	case r.Entrypoint == claudeEntrypoint:
		return r.Version, true
	case r.Entrypoint == "" && r.Version == claudeVersion:
		return "", true
	}
	return "", false
}

// writeLine appends v as one compact JSON line (no HTML escaping: the host
// writes its own lines the same way).
func writeLine(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// stamp is the k-th record's time: the tape's, a millisecond apart.
func stamp(at time.Time, k int) string {
	return at.Add(time.Duration(k) * time.Millisecond).UTC().Format("2006-01-02T15:04:05.000Z")
}
