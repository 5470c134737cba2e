package session

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/graft-project/graft/vfs"
)

// A state checkpoint lets Info fold only what was appended since: the fold
// at a line boundary of the log, kept in index/<id>.state (see doc.go). It
// is a hint: used only when the open log is the same file (device, inode),
// at least as long, and the 4 KiB before the offset hash the same; anything
// else, or a checkpoint that does not decode, folds the whole log.

// checkpointVersion is the "v" of a checkpoint this build reads.
const checkpointVersion = 1

// CheckpointEvery is how many bytes a fold reads past its checkpoint before
// it writes a new one (a write is a temp file, fsync and rename).
var CheckpointEvery int64 = 1 << 20

// stateTailBytes is how many bytes before the offset the check hashes.
const stateTailBytes = 4096

type checkpoint struct {
	Version int             `json:"v"`
	Dev     uint64          `json:"dev"`
	Ino     uint64          `json:"ino"`
	Offset  int64           `json:"offset"`
	Line    int             `json:"line"`
	Tail    string          `json:"tail"`
	Info    json.RawMessage `json:"info"`
}

// CheckpointPath is the state checkpoint of session id in home.
func CheckpointPath(home, id string) string { return filepath.Join(home, "index", id+".state") }

func (s *Store) checkpointPath(id string) string {
	return CheckpointPath(filepath.Dir(s.dir), id)
}

// fileIdentity is the device and inode of fi; ok is false when the file
// system gives none (then no checkpoint is used or written).
func fileIdentity(fi fs.FileInfo) (dev, ino uint64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return uint64(st.Dev), st.Ino, true
}

// stateTail hashes the offset and the bytes just before it.
func stateTail(r io.ReaderAt, offset int64) (string, error) {
	start := max(0, offset-stateTailBytes)
	buf := make([]byte, offset-start)
	if n, err := r.ReadAt(buf, start); err != nil && !(err == io.EOF && n == len(buf)) {
		return "", err
	}
	h := sha256.New()
	h.Write([]byte("state-tail-v1\x00" + strconv.FormatInt(offset, 10) + "\x00"))
	h.Write(buf)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// resumeInfo returns the fold a valid checkpoint of id holds for the open
// log f (of identity dev, ino and the given size), and where to scan on;
// nil when there is none usable, with why in reason when there was one. A
// checkpoint that cannot be read for an I/O error is an error: the disk is
// failing, and nothing graft reads hides that.
func (s *Store) resumeInfo(id string, f io.ReaderAt, dev, ino uint64, size int64) (info *Info, from ScanFrom, reason string, err error) {
	path := s.checkpointPath(id)
	r, err := s.FS.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ScanFrom{}, "", nil
	}
	if err != nil {
		return nil, ScanFrom{}, "", fmt.Errorf("session: opening the state checkpoint %s: %w", path, err)
	}
	data, err := io.ReadAll(io.LimitReader(r, 16<<20))
	if cerr := r.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, ScanFrom{}, "", fmt.Errorf("session: reading the state checkpoint %s: %w", path, err)
	}
	var cp checkpoint
	switch {
	case json.Unmarshal(data, &cp) != nil || cp.Version != checkpointVersion:
		return nil, ScanFrom{}, "it does not decode as version " + strconv.Itoa(checkpointVersion), nil
	case cp.Dev != dev || cp.Ino != ino:
		return nil, ScanFrom{}, "the log is another file now", nil
	case cp.Offset <= 0 || cp.Offset > size || cp.Line < 1:
		return nil, ScanFrom{}, "the log is shorter than its offset", nil
	}
	tail, err := stateTail(f, cp.Offset)
	if err != nil {
		return nil, ScanFrom{}, "", fmt.Errorf("session: reading %s before offset %d for its state checkpoint: %w", s.Path(id), cp.Offset, err)
	}
	if tail != cp.Tail {
		return nil, ScanFrom{}, "the log's bytes before its offset changed", nil
	}
	info, err = RestoreInfo(cp.Info)
	if err != nil || info.ID != id || info.End != cp.Offset || info.Torn != nil {
		return nil, ScanFrom{}, "its fold does not restore", nil
	}
	return info, ScanFrom{Offset: cp.Offset, Line: cp.Line, NextSeq: info.LastSeq + 1}, "", nil
}

// saveCheckpoint writes the fold info of the log f (at its End, a line
// boundary) for the next Info to resume from.
func (s *Store) saveCheckpoint(info *Info, f io.ReaderAt, dev, ino uint64, line int) error {
	tail, err := stateTail(f, info.End)
	if err != nil {
		return fmt.Errorf("session: tail check of %s for its state checkpoint: %w", info.ID, err)
	}
	snap, err := info.Snapshot()
	if err != nil {
		return err
	}
	data, err := json.Marshal(checkpoint{Version: checkpointVersion, Dev: dev, Ino: ino, Offset: info.End, Line: line, Tail: tail, Info: snap})
	if err != nil {
		return err
	}
	path := s.checkpointPath(info.ID)
	if err := vfs.MkdirAllDurable(s.FS, filepath.Dir(path), DirMode); err != nil {
		return fmt.Errorf("session: creating %s: %w", filepath.Dir(path), err)
	}
	if err := s.FS.WriteFileAtomic(path, data, FileMode); err != nil {
		return fmt.Errorf("session: writing the state checkpoint %s: %w", path, err)
	}
	return nil
}
