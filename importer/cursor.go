package importer

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/graft-project/graft/index"
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

// CursorVersion is the version of the cursor file format (see doc.go): 2
// for a cursor that names a state file, 1 for one that does not (the
// form every cursor had before); LoadCursor reads both.
const CursorVersion = 2

// cursorVersionInline is the version of a cursor whose mapper's state, if
// any, is in the cursor itself.
const cursorVersionInline = 1

// BinaryState is a Mapper whose state the cursor keeps in a file of its
// own beside it, imports/<id>.state (doc.go), instead of JSON inside the
// cursor: a state that grows with the session (Gemini CLI's holds every
// message and call id) costs no JSON decoding, encoding or indenting per
// run. The importer calls these in place of SaveState and LoadState.
type BinaryState interface {
	// AppendBinaryState appends the state to b. The same state must give
	// the same bytes (an unchanged state file is not written again).
	AppendBinaryState(b []byte) ([]byte, error)
	// LoadBinaryState restores a state AppendBinaryState wrote; the
	// mapper may keep data, which is not changed after.
	LoadBinaryState(data []byte) error
}

// StateFile is what a cursor says of its state file: its name in
// imports/ (<id>.state, nothing else is read), size and hex SHA-256. A
// file missing or that does not match is ErrStateFile.
type StateFile struct {
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

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
	// StateFile names the file that holds the mapper's state (a
	// BinaryState mapper; State is then empty). It comes before State:
	// encodeCursor puts State just before Updated.
	StateFile *StateFile      `json:"stateFile,omitempty"`
	State     json.RawMessage `json:"state,omitempty"`
	Updated   string          `json:"updated"`
	// Sum is the checksum of the cursor's bytes without it ("sha256:" and
	// the hex SHA-256; doc.go): the last member, written by saveCursor,
	// checked by LoadCursor. A cursor without one (written before) is read
	// as it is.
	Sum string `json:"sum,omitempty"`

	// binState is the state file's content: what SaveCursor writes, what
	// readStateFile read.
	binState []byte
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

// StatePath is the state file of session id's cursor (BinaryState).
func StatePath(home, id string) string { return filepath.Join(ImportsDir(home), stateName(id)) }

func stateName(id string) string { return id + ".state" }

// LoadCursor reads the cursor of session id. A missing file is ErrNoCursor;
// one that is not JSON, or whose checksum does not match, is ErrCursorSum
// (damaged: Run sets it aside); one that does not decode otherwise, or
// names another session or version, is ErrCursor with the path.
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
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			// Not JSON at all (cut short, overwritten): damaged, as a
			// cursor whose checksum does not match is.
			return nil, fmt.Errorf("%w: %s is not JSON (%v)", ErrCursorSum, path, err)
		}
		if present, holds := cursorSumOf(data); present && !holds {
			// A digit damaged into a number no field holds.
			return nil, fmt.Errorf("%w: %s (%v)", ErrCursorSum, path, err)
		}
		// Fields of other types in a cursor that holds its checksum, or
		// has none: another format's, which is never overwritten.
		return nil, fmt.Errorf("%w %s: %v", ErrCursor, path, err)
	}
	if present, holds := cursorSumOf(data); c.Sum != "" && !(present && holds) {
		return nil, fmt.Errorf("%w: %s", ErrCursorSum, path)
	}
	if c.Version != CursorVersion && c.Version != cursorVersionInline {
		return nil, fmt.Errorf("%w %s: version %d, this graft reads versions %d and %d", ErrCursor, path, c.Version, cursorVersionInline, CursorVersion)
	}
	if c.StateFile != nil && (c.Version != CursorVersion || c.StateFile.Name != stateName(id) || len(c.State) > 0) {
		return nil, fmt.Errorf("%w %s: version %d, state file %q beside a state of %d bytes: want version %d, %q and no state", ErrCursor, path, c.Version, c.StateFile.Name, len(c.State), CursorVersion, stateName(id))
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
// fsync of the directory), creating imports/ with mode 0700 if needed. It
// writes the cursor with its state in it (State, version 1): the state
// file of a BinaryState mapper is written by Run and Seed.
func SaveCursor(fsys vfs.FS, home string, c *Cursor) error {
	c.binState = nil
	return saveCursor(fsys, home, c, nil)
}

// saveCursor is SaveCursor. A cursor with a state (binState) has its
// state file replaced first, the same way, so that the cursor never names
// a state file that is not durable; it is not written again when prev,
// the state file on disk, has the same size and digest. A crash between
// the two leaves the old cursor and the new state file: they do not
// match, and the next run reads the source again (doc.go).
func saveCursor(fsys vfs.FS, home string, c *Cursor, prev *StateFile) error {
	if err := session.ValidID(c.Session); err != nil {
		return err
	}
	if err := vfs.MkdirAllDurable(fsys, ImportsDir(home), session.DirMode); err != nil {
		return fmt.Errorf("importer: creating %s: %w", ImportsDir(home), err)
	}
	c.Version, c.StateFile = cursorVersionInline, nil
	if c.binState != nil {
		sum := sha256.Sum256(c.binState)
		sf := &StateFile{Name: stateName(c.Session), Size: int64(len(c.binState)), SHA256: hex.EncodeToString(sum[:])}
		if prev == nil || *prev != *sf {
			path := StatePath(home, c.Session)
			if err := fsys.WriteFileAtomic(path, c.binState, session.FileMode); err != nil {
				return fmt.Errorf("importer: writing the cursor's state file %s: %w", path, err)
			}
		}
		c.Version, c.StateFile, c.State = CursorVersion, sf, nil
	}
	c.Sum = ""
	data, err := encodeCursor(c)
	if err != nil {
		return fmt.Errorf("importer: encoding cursor of %s: %w", c.Session, err)
	}
	if data, err = withCursorSum(data, c); err != nil {
		return fmt.Errorf("importer: encoding cursor of %s: %w", c.Session, err)
	}
	path := CursorPath(home, c.Session)
	if err := fsys.WriteFileAtomic(path, data, session.FileMode); err != nil {
		return fmt.Errorf("importer: writing cursor %s: %w", path, err)
	}
	return nil
}

// readStateFile reads the state file c names and checks it against c: a
// file missing, of another size or another digest is ErrStateFile.
func readStateFile(fsys vfs.FS, home string, c *Cursor) ([]byte, error) {
	sf := c.StateFile
	path := StatePath(home, c.Session)
	f, err := fsys.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s is missing", ErrStateFile, path)
	}
	if err != nil {
		return nil, fmt.Errorf("importer: opening the cursor's state file %s: %w", path, err)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		err = fmt.Errorf("importer: reading the cursor's state file %s: %w", path, err)
	}
	if cerr := f.Close(); cerr != nil {
		err = errors.Join(err, fmt.Errorf("importer: closing the cursor's state file %s: %w", path, cerr))
	}
	if err != nil {
		return nil, err
	}
	if int64(len(data)) != sf.Size {
		return nil, fmt.Errorf("%w: %s is %d bytes, the cursor %s says %d", ErrStateFile, path, len(data), CursorPath(home, c.Session), sf.Size)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != sf.SHA256 {
		return nil, fmt.Errorf("%w: %s has sha256 %x, the cursor %s says %s", ErrStateFile, path, sum, CursorPath(home, c.Session), sf.SHA256)
	}
	return data, nil
}

// RestoreState gives m the state c holds: the state file's (read and
// checked here when readStateFile has not read it) or the state in c.
// A state that does not decode is ErrCursor.
func (c *Cursor) RestoreState(fsys vfs.FS, home string, m Mapper) error {
	if c.StateFile == nil {
		if err := m.LoadState(c.State); err != nil {
			return fmt.Errorf("%w %s: state: %v", ErrCursor, CursorPath(home, c.Session), err)
		}
		return nil
	}
	bm, ok := m.(BinaryState)
	if !ok {
		return fmt.Errorf("%w %s: it names a state file, which the %s importer does not read", ErrCursor, CursorPath(home, c.Session), m.Format())
	}
	if c.binState == nil {
		data, err := readStateFile(fsys, home, c)
		if err != nil {
			return err
		}
		c.binState = data
	}
	if err := bm.LoadBinaryState(c.binState); err != nil {
		return fmt.Errorf("%w %s: state file %s: %v", ErrCursor, CursorPath(home, c.Session), StatePath(home, c.Session), err)
	}
	return nil
}

// cursorSumMember opens the checksum, the cursor's last member, as
// json.MarshalIndent writes it.
const cursorSumMember = ",\n  \"sum\": \""

// withCursorSum puts the checksum of data, a cursor encoded without one,
// in as its last member (c.Sum is set): the bytes json.MarshalIndent gives
// with it, the sum of the bytes without it.
func withCursorSum(data []byte, c *Cursor) ([]byte, error) {
	body, ok := bytes.CutSuffix(data, []byte("\n}\n"))
	if !ok {
		return nil, errors.New("the cursor does not end in \"}\" and a newline")
	}
	c.Sum = index.ContentSum(data)
	out := make([]byte, 0, len(data)+len(cursorSumMember)+len(c.Sum)+2)
	out = append(append(append(append(out, body...), cursorSumMember...), c.Sum...), "\"\n}\n"...)
	return out, nil
}

// cursorSumOf reads the checksum data, a cursor file, ends with as
// withCursorSum writes it, without decoding the rest: present, whether
// it ends with one, and holds, whether its other bytes hash to it.
func cursorSumOf(data []byte) (present, holds bool) {
	body, ok := bytes.CutSuffix(data, []byte("\"\n}\n"))
	if !ok {
		return false, false
	}
	k := bytes.LastIndex(body, []byte(cursorSumMember))
	if k < 0 {
		return false, false
	}
	sum := string(body[k+len(cursorSumMember):])
	return true, index.ContentSum(append(bytes.Clone(body[:k]), "\n}\n"...)) == sum
}
