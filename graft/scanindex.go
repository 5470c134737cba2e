package graft

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strings"
	"syscall"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/tape"
	"github.com/graft-project/graft/vfs"
)

// Incremental prepare. A fold of a source ends by storing a scan index in
// the catalog (catalog.ScanIndex): the offset of the last complete line,
// its line number and next seq, the log's dev and ino, a TailCheck of the
// bytes before the offset, and State, the fold at that offset:
//
//	{"v":1,"tape":<tape.Builder.Snapshot>,"info":<session.Info.Snapshot>}
//
// The next fold of that source (prepare, or commit's drift rebuild) uses
// the index only when the open log has the same dev and ino, is at least
// Offset bytes long and has the same TailCheck: a log replaced, rewritten
// by copy or truncated is never trusted. It then restores the fold and reads
// only the bytes past Offset. The builder's snapshot carries the running
// and prefix hash states, so the prefix hash still covers every byte before
// the boundary. An index that fails a check is reported in the review's
// warnings, and the whole log is read.
//
// The index is a hint: in-place edits of a log that keep its identity and
// its last 4 KiB before Offset are not detected (logs are append-only; the
// store only ever cuts a torn tail, after Offset).

// scanStateMagic starts the State of a catalog.ScanIndex: the magic, the
// state fold's snapshot (session.Info.Snapshot, one line of JSON) and
// "\n", then the tape builder's snapshot (tape.Builder.Snapshot) to the
// end. Version 1 was one JSON object {v, tape, info}, which a commit's
// drift check scanned twice (about 1.4 ms per 87 KiB).
const scanStateMagic = "graft-scanstate-v2\n"

// indexSaveTail is how many bytes a fold that resumed from a valid index
// reads before it stores a new one: below it, the next fold re-reads the
// small tail (milliseconds) rather than pay a catalog write now. Tests set
// it to 0 to store an index at every fold.
var indexSaveTail int64 = 4 << 20

// encodeScanState frames the two snapshots (see scanStateMagic).
func encodeScanState(info, tape []byte) ([]byte, error) {
	if bytes.IndexByte(info, '\n') >= 0 {
		return nil, errors.New("the state fold's snapshot holds a newline")
	}
	out := make([]byte, 0, len(scanStateMagic)+len(info)+1+len(tape))
	return append(append(append(append(out, scanStateMagic...), info...), '\n'), tape...), nil
}

// decodeScanState splits a State into the two snapshots; reason says why it
// cannot.
func decodeScanState(state []byte) (info, tape []byte, reason string) {
	rest, ok := bytes.CutPrefix(state, []byte(scanStateMagic))
	if !ok {
		magic, _, _ := bytes.Cut(state, []byte("\n"))
		return nil, nil, fmt.Sprintf("its state is not %s (it starts %.40q)", strings.TrimSpace(scanStateMagic), magic)
	}
	info, tape, ok = bytes.Cut(rest, []byte("\n"))
	if !ok {
		return nil, nil, "its state does not decode: no line of the state fold's snapshot"
	}
	return info, tape, ""
}

// sourceFold is one fold of a source: the tape builder and the state fold
// at its end, and how the log was read.
type sourceFold struct {
	b    *tape.Builder
	info *session.Info
	// From is where reading started: the zero value, or a valid index's
	// position.
	From session.ScanFrom
	// NotUsed says why an existing scan index was not used; "" when there
	// was none or it was used.
	NotUsed string
	// Saved reports whether this fold stored a new index.
	Saved bool
	// NotSaved says why the fold could not store its indexes (catalog.db
	// or index/ not writable, busy or damaged); "" when it stored them or
	// had no need to. The fold itself is whole either way.
	NotSaved string
	// seal identifies the bytes folded (no Info yet); nil without a file
	// identity or after a torn last line.
	seal *catalog.Seal
}

// foldSource folds the log of source, resuming from its scan index when
// the index is valid, and stores a new index when it read enough.
func (s *Service) foldSource(source string) (*sourceFold, error) {
	f, fi, err := s.openLog(source)
	if err != nil {
		return nil, err
	}
	fo, err := s.foldOpen(source, f, fi)
	if cerr := f.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("graft: closing %s: %w", f.Name(), cerr)
	}
	return fo, err
}

func (s *Service) foldOpen(source string, f vfs.File, fi os.FileInfo) (*sourceFold, error) {
	path := s.store.Path(source)
	dev, ino, haveIdentity := catalog.FileIdentity(fi)
	fo := &sourceFold{}
	var stored catalog.ScanIndex
	var haveIndex bool
	err := s.viewCatalog(func(db *catalog.DB) error {
		var err error
		stored, haveIndex, err = db.GetScanIndex(source)
		return err
	})
	// The index is a hint: one that cannot be read means reading the
	// whole log. When the catalog itself could not be read, storing a new
	// index would fail too (or wait for a busy catalog again): skip it.
	catalogUnread := false
	if err != nil {
		haveIndex = false
		fo.NotUsed = "catalog.db not read: " + catalogProblem(err)
		catalogUnread = !errors.Is(err, catalog.ErrCorruptValue)
		s.degrade("the scan index of %s was not used, the whole log was read: %s", source, fo.NotUsed)
	}
	var prevEvents int
	if haveIndex {
		b, info, reason, err := resumeFrom(stored, source, f, fi.Size(), dev, ino, haveIdentity)
		if err != nil {
			return nil, err
		}
		if reason != "" {
			fo.NotUsed = reason
		} else {
			fo.b, fo.info = b, info
			fo.From = session.ScanFrom{Offset: stored.Offset, Line: stored.Line, NextSeq: stored.NextSeq}
			prevEvents = info.Events
		}
	}
	if fo.b == nil {
		fo.b, fo.info = tape.NewBuilder(source), &session.Info{ID: source}
	}
	marks := newMarkCollector(fo.From)
	res, err := s.scanFold(f, path, fo.From, func(ev *session.Event, size int, sum session.LineSum, off int64) error {
		marks.see(ev.Seq, off)
		fo.info.Add(ev)
		return fo.b.AddSum(ev, size, sum)
	})
	if err != nil {
		return nil, err
	}
	res.Events += prevEvents
	fo.info.ScanResult = res
	if haveIdentity && res.Torn == nil {
		check, err := catalog.TailCheck(f, res.End)
		if err != nil {
			return nil, fmt.Errorf("graft: sealing the fold of %s: %w", source, err)
		}
		fo.seal = &catalog.Seal{Dev: dev, Ino: ino, End: res.End, LastSeq: res.LastSeq, Check: check}
	}
	if !catalogUnread && (fo.From.Offset == 0 || res.End-fo.From.Offset >= indexSaveTail) {
		if err := s.saveIndexes(source, f, dev, ino, haveIdentity, fo, marks.marks); err != nil {
			// A cache not stored costs the next fold a longer read; the
			// fold in hand is whole.
			fo.NotSaved = err.Error() + catalogAdvice(err)
			s.degrade("the indexes of %s were not stored (the next prepare or audit reads the whole log again): %s", source, fo.NotSaved)
		}
	}
	return fo, nil
}

// scanFold reads f from from.Offset with the fold decoder: the tape and the
// state fold never read the output of a successful tool call.
func (s *Service) scanFold(f vfs.File, path string, from session.ScanFrom, fn func(ev *session.Event, size int, sum session.LineSum, off int64) error) (session.ScanResult, error) {
	return session.ScanFoldSums(io.NewSectionReader(f, from.Offset, math.MaxInt64-from.Offset), path, from, fn)
}

// resumeFrom checks a stored index against the open log and restores its
// fold. reason says why the index cannot be used; err is an I/O failure.
func resumeFrom(ix catalog.ScanIndex, source string, f io.ReaderAt, size int64, dev, ino uint64, haveIdentity bool) (*tape.Builder, *session.Info, string, error) {
	switch {
	case !haveIdentity:
		return nil, nil, "this platform gives no file identity (dev/ino) to check it against", nil
	case ix.Dev != dev || ix.Ino != ino:
		return nil, nil, fmt.Sprintf("the log is another file now (dev/ino %d/%d, the index was built from %d/%d): replaced or rewritten", dev, ino, ix.Dev, ix.Ino), nil
	case size < ix.Offset:
		return nil, nil, fmt.Sprintf("the log is %d bytes, shorter than the indexed %d: truncated", size, ix.Offset), nil
	case ix.Session != source:
		return nil, nil, fmt.Sprintf("the index names session %q", ix.Session), nil
	}
	check, err := catalog.TailCheck(f, ix.Offset)
	if err != nil {
		return nil, nil, "", fmt.Errorf("graft: checking the scan index of %s: %w", source, err)
	}
	if check != ix.Check {
		return nil, nil, fmt.Sprintf("the %d bytes before offset %d changed: rewritten", min(ix.Offset, catalog.TailCheckBytes), ix.Offset), nil
	}
	infoState, tapeState, reason := decodeScanState(ix.State)
	if reason != "" {
		return nil, nil, reason, nil
	}
	b, err := tape.Restore(tapeState)
	if err != nil {
		return nil, nil, err.Error(), nil
	}
	info, err := session.RestoreInfo(infoState)
	if err != nil {
		return nil, nil, err.Error(), nil
	}
	last := ix.NextSeq - 1
	if b.SessionID() != source || info.ID != source || b.LastSeq() != last || info.LastSeq != last || info.End != ix.Offset {
		return nil, nil, fmt.Sprintf("its state (session %q/%q, seq %d/%d, offset %d) does not match its position (seq %d, offset %d)",
			b.SessionID(), info.ID, b.LastSeq(), info.LastSeq, info.End, last, ix.Offset), nil
	}
	return b, info, "", nil
}

// saveIndexes stores the scan index at the end of fo and the seq index
// extended with marks (the marks of the events fo read).
func (s *Service) saveIndexes(source string, f vfs.File, dev, ino uint64, haveIdentity bool, fo *sourceFold, marks []catalog.SeqMark) error {
	if !haveIdentity {
		return nil // nothing to validate an index against; see resumeFrom
	}
	res := fo.info.ScanResult
	var check string
	if fo.seal != nil && fo.seal.End == res.End {
		check = fo.seal.Check // the same 4 KiB, hashed once
	} else {
		var err error
		if check, err = catalog.TailCheck(f, res.End); err != nil {
			return fmt.Errorf("graft: storing the scan index of %s: %w", source, err)
		}
	}
	tapeState, err := fo.b.Snapshot()
	if err != nil {
		return err
	}
	infoState, err := fo.info.Snapshot()
	if err != nil {
		return err
	}
	state, err := encodeScanState(infoState, tapeState)
	if err != nil {
		return fmt.Errorf("graft: encoding the scan state of %s: %w", source, err)
	}
	all, err := s.extendSeqMarks(source, dev, ino, fo.From, marks)
	if err != nil {
		return err
	}
	// One line per event: the next line's number follows from the events
	// read since From.
	line := max(fo.From.Line, 1) + int(res.LastSeq+1-max(fo.From.NextSeq, 1))
	ix := catalog.ScanIndex{Session: source, Dev: dev, Ino: ino, Offset: res.End, Line: line, NextSeq: res.LastSeq + 1, Check: check, State: state}
	err = catalog.With(s.Home, s.CatalogTimeout, func(db *catalog.DB) error {
		if err := db.PutScanIndex(ix); err != nil {
			return err
		}
		return db.PutSeqIndex(source, dev, ino, all)
	})
	if err != nil {
		return fmt.Errorf("graft: storing the indexes of %s: %w", source, err)
	}
	if err := s.writeSeqCache(source, dev, ino, all); err != nil {
		return err
	}
	fo.Saved = true
	return nil
}

// openLog opens the log of id read-only under the store's rules: a regular
// file, never a symlink (vfs.FS opens with O_NOFOLLOW), errors worded as
// the store words them. The index must be checked against the very file
// that is read, so the fold needs the handle Store.Scan keeps to itself.
func (s *Service) openLog(id string) (vfs.File, os.FileInfo, error) {
	path := s.store.Path(id)
	fsys := s.store.FS
	lfi, err := fsys.Lstat(path)
	if err != nil {
		return nil, nil, storeError(path, err)
	}
	if !lfi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%w: %s", session.ErrSymlink, path)
	}
	f, err := fsys.Open(path)
	if err != nil {
		return nil, nil, storeError(path, err)
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%w: %s", session.ErrSymlink, path)
	}
	if err != nil {
		if cerr := f.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("graft: closing %s: %w", path, cerr))
		}
		return nil, nil, err
	}
	return f, fi, nil
}

// storeError words an open error as session.Store does.
func storeError(path string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: %s", session.ErrNotFound, path)
	case errors.Is(err, syscall.ELOOP):
		return fmt.Errorf("%w: %s", session.ErrSymlink, path)
	}
	return err
}
