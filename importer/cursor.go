package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/vfs"
)

// FullCheckBelow is the prefix size under which every run hashes the whole
// prefix again (milliseconds); above it a run resumes the hash while the
// prefix is at most twice what was last read whole (see doc.go, step 3).
var FullCheckBelow int64 = 8 << 20

// TailCheckBytes is how many bytes before the offset a resumed run re-reads
// and compares before trusting the saved hash state (see Cursor.HashState).
const TailCheckBytes = 4096

// CursorVersion is the version of the cursor file format (see doc.go).
const CursorVersion = 1

// Cursor is how far an import into one session got: the content of
// $GRAFT_HOME/imports/<id>.json. doc.go specifies every field.
type Cursor struct {
	Version int    `json:"version"`
	Format  string `json:"format"`
	Session string `json:"session"`

	Source string `json:"source"`
	Device uint64 `json:"device"`
	Inode  uint64 `json:"inode"`
	Size   int64  `json:"size"`

	Offset       int64  `json:"offset"`
	Lines        int    `json:"lines"`
	LastUUID     string `json:"lastUuid,omitempty"`
	PrefixSHA256 string `json:"prefixSha256"`
	// HashState is the SHA-256 state after [0, offset) (MarshalBinary) and
	// TailSHA256 the hex SHA-256 of the last TailCheckBytes before offset:
	// a run that finds the same file (dev, ino), at least offset bytes long
	// and the same tail resumes the hash instead of reading the prefix again.
	HashState  []byte `json:"hashState,omitempty"`
	TailSHA256 string `json:"tailSha256,omitempty"`
	// VerifiedOffset is how far one run last read the transcript from its
	// first byte (a full prefix check or a first import).
	VerifiedOffset int64 `json:"verifiedOffset,omitempty"`

	LastSeq  int64             `json:"lastSeq"`
	Settings map[string]string `json:"settings,omitempty"`
	State    json.RawMessage   `json:"state,omitempty"`
	Updated  string            `json:"updated"`
}

// encodeCursor is json.MarshalIndent(c, "", "  ") and a newline, to the
// byte. A mapper's state can be MBs (Gemini CLI's holds every message and
// call id): MarshalIndent would copy it three times (compacting it into
// its buffer, indenting the whole, the newline's append). Here the rest
// of the cursor is marshalled without it and the state is indented once
// into its place, before "updated" (the field that follows it), into a
// buffer of the final size. A state that holds what encoding/json would
// escape for HTML takes MarshalIndent's own path.
func encodeCursor(c *Cursor) ([]byte, error) {
	state := c.State
	if len(state) == 0 || bytes.ContainsAny(state, "<>&\u2028\u2029") {
		data, err := json.MarshalIndent(c, "", "  ")
		return append(data, '\n'), err
	}
	rest := *c
	rest.State = nil
	head, err := json.MarshalIndent(&rest, "", "  ")
	if err != nil {
		return nil, err
	}
	const at = ",\n  \"updated\": "
	k := bytes.LastIndex(head, []byte(at))
	if k < 0 {
		return nil, fmt.Errorf("importer: cursor encoding: no %q", at)
	}
	out := bytes.NewBuffer(make([]byte, 0, len(head)+len(state)+len(state)/4+64))
	out.Write(head[:k])
	out.WriteString(",\n  \"state\": ")
	// Indent drops the space before a value, not after it.
	if err := json.Indent(out, bytes.TrimRight(state, " \t\r\n"), "  ", "  "); err != nil {
		return nil, fmt.Errorf("importer: cursor state: %w", err)
	}
	out.Write(head[k:])
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// ImportsDir is the directory of the cursor files of a graft home.
func ImportsDir(home string) string { return filepath.Join(home, "imports") }

// CursorPath is the cursor file of session id.
func CursorPath(home, id string) string { return filepath.Join(ImportsDir(home), id+".json") }

// LoadCursor reads the cursor of session id. A missing file is ErrNoCursor;
// a file that does not decode, or names another session or version, is
// ErrCursor with the path.
func LoadCursor(fsys vfs.FS, home, id string) (*Cursor, error) {
	if err := session.ValidID(id); err != nil {
		return nil, err
	}
	path := CursorPath(home, id)
	f, err := fsys.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w for session %s (%s)", ErrNoCursor, id, path)
	}
	if err != nil {
		return nil, fmt.Errorf("importer: opening cursor %s: %w", path, err)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		err = fmt.Errorf("importer: reading cursor %s: %w", path, err)
	}
	if cerr := f.Close(); cerr != nil {
		err = errors.Join(err, fmt.Errorf("importer: closing cursor %s: %w", path, cerr))
	}
	if err != nil {
		return nil, err
	}
	var c Cursor
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrCursor, path, err)
	}
	if c.Version != CursorVersion {
		return nil, fmt.Errorf("%w %s: version %d, this graft reads version %d", ErrCursor, path, c.Version, CursorVersion)
	}
	if c.Session != id {
		return nil, fmt.Errorf("%w %s: it is the cursor of session %q, not %q", ErrCursor, path, c.Session, id)
	}
	if c.Offset < 0 || c.Lines < 0 || c.LastSeq < 0 {
		return nil, fmt.Errorf("%w %s: negative offset, line count or seq", ErrCursor, path)
	}
	return &c, nil
}

// SaveCursor replaces the cursor file atomically (temp file, fsync, rename,
// fsync of the directory), creating imports/ with mode 0700 if needed.
func SaveCursor(fsys vfs.FS, home string, c *Cursor) error {
	if err := session.ValidID(c.Session); err != nil {
		return err
	}
	if err := vfs.MkdirAllDurable(fsys, ImportsDir(home), session.DirMode); err != nil {
		return fmt.Errorf("importer: creating %s: %w", ImportsDir(home), err)
	}
	c.Version = CursorVersion
	data, err := encodeCursor(c)
	if err != nil {
		return fmt.Errorf("importer: encoding cursor of %s: %w", c.Session, err)
	}
	path := CursorPath(home, c.Session)
	if err := fsys.WriteFileAtomic(path, data, session.FileMode); err != nil {
		return fmt.Errorf("importer: writing cursor %s: %w", path, err)
	}
	return nil
}
