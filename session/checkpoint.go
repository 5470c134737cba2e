package session

import (
	"fmt"
	"io"
	"io/fs"

	"github.com/graft-project/graft/index"
)

// A state checkpoint lets Info fold only what was appended since: the fold
// at a line boundary of the log, kept in index/<id>.state. The file, its
// checks (device, inode, size, the tail check of the 4 KiB before the
// offset) and its writer are the index package's (index/doc.go); this file
// restores the fold it holds and decides when to write one. It is a hint:
// anything that does not check out, or a fold that does not restore, folds
// the whole log.

// CheckpointEvery is how many bytes a fold reads past its checkpoint before
// it writes a new one (a write is a temp file, fsync and rename).
var CheckpointEvery int64 = 1 << 20

// CheckpointPath is the state checkpoint of session id in home.
func CheckpointPath(home, id string) string { return index.StatePath(home, id) }

// fileIdentity is the device and inode of fi; ok is false when the file
// system gives none (then no checkpoint is used or written).
func fileIdentity(fi fs.FileInfo) (dev, ino uint64, ok bool) { return index.FileIdentity(fi) }

// resumeInfo returns the fold a valid checkpoint of id holds for the open
// log f (of identity dev, ino and the given size), and where to scan on;
// nil when there is none usable, with why in reason when there was one. A
// checkpoint that cannot be read for an I/O error is an error: the disk is
// failing, and nothing graft reads hides that.
func (s *Store) resumeInfo(id string, f io.ReaderAt, dev, ino uint64, size int64) (info *Info, from ScanFrom, reason string, err error) {
	cp, reason, err := index.ReadState(s.FS, s.home, id, f, dev, ino, size)
	if err != nil {
		return nil, ScanFrom{}, "", fmt.Errorf("session: the state checkpoint of %s: %w", id, err)
	}
	if cp == nil {
		return nil, ScanFrom{}, reason, nil
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
	snap, err := info.Snapshot()
	if err != nil {
		return err
	}
	if err := index.NewWriter(s.FS, s.home).WriteState(info.ID, f, dev, ino, info.End, line, snap); err != nil {
		return fmt.Errorf("session: the state checkpoint of %s: %w", info.ID, err)
	}
	return nil
}
