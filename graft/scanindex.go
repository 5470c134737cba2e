package graft

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/index"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/tape"
	"github.com/graft-project/graft/vfs"
)

// Incremental prepare. A fold of a source ends by storing a scan index in
// the catalog (index.ScanIndex, in bucket scanindex): where it stopped (a
// line boundary), the log's dev and ino, the tail check of the bytes
// before that offset, and the fold there (index.EncodeScanState of the
// state fold's and the tape builder's snapshots). It stores the seq marks
// of the events it read in index/<id>.seq too (seqindex.go). The formats
// and their checks are the index package's (index/doc.go).
//
// The next fold of that source (prepare, or commit's drift rebuild) uses
// the index only when it fits the open log (index.ScanIndex.Fits: the same
// dev and ino, at least Offset bytes, the same tail check) and its state
// restores to its position: a log replaced, rewritten by copy or truncated
// is never trusted. It then restores the fold and reads only the bytes
// past Offset. The builder's snapshot carries the running and prefix hash
// states, so the prefix hash still covers every byte before the boundary.
// An index that is not used is reported in the review's warnings, and the
// whole log is read.

// indexSaveTail is how many bytes a fold that resumed from a valid index
// reads before it stores a new one: below it, the next fold re-reads the
// small tail (milliseconds) rather than pay a catalog write now. Tests set
// it to 0 to store an index at every fold.
var indexSaveTail int64 = 4 << 20

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
	seal *index.Seal
}

// foldSource folds the log of source, resuming from its scan index when
// the index is valid, and stores a new index when it read enough.
func (s *Service) foldSource(source string) (*sourceFold, error) {
	return s.foldSourceContext(context.Background(), source)
}

// foldSourceContext is foldSource, cancelled with ctx: the fold checks it
// every foldCheckEvents events or foldCheckBytes bytes.
func (s *Service) foldSourceContext(ctx context.Context, source string) (*sourceFold, error) {
	return s.foldSourceThen(ctx, source, nil)
}

// foldSourceThen is foldSourceContext calling then, when the fold
// succeeded, with the log still open: the tape reads the outputs it
// quotes from the very file it folded (logOutputs).
func (s *Service) foldSourceThen(ctx context.Context, source string, then func(fo *sourceFold, f vfs.File) error) (*sourceFold, error) {
	f, fi, err := s.store.OpenLog(source)
	if err != nil {
		return nil, err
	}
	fo, err := s.foldOpen(ctx, source, f, fi)
	if err == nil && then != nil {
		err = then(fo, f)
	}
	if cerr := f.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("graft: closing %s: %w", f.Name(), cerr)
	}
	return fo, err
}

// logOutputs reads tool outputs from a session log for the tape
// (tape.Outputs): the line at an offset the fold recorded, decoded.
type logOutputs struct {
	f    vfs.File
	path string
}

func (o logOutputs) Output(seq, off int64, size int) (string, error) {
	ev, err := o.read(seq, off, size)
	if err != nil {
		return "", err
	}
	return ev.Tool.Output, nil
}

func (o logOutputs) Input(seq, off int64, size int) (json.RawMessage, error) {
	ev, err := o.read(seq, off, size)
	if err != nil {
		return nil, err
	}
	return ev.Tool.Input, nil
}

// read decodes the tool event seq from its line, size bytes at off.
func (o logOutputs) read(seq, off int64, size int) (*session.Event, error) {
	buf := make([]byte, size)
	if _, err := o.f.ReadAt(buf, off); err != nil {
		return nil, fmt.Errorf("graft: %s: reading seq %d at offset %d: %w", o.path, seq, off, err)
	}
	var ev session.Event
	if err := session.Decode(buf, &ev); err != nil {
		return nil, fmt.Errorf("graft: %s: the line of seq %d at offset %d does not decode: %w", o.path, seq, off, err)
	}
	if ev.Seq != seq || ev.Tool == nil {
		return nil, fmt.Errorf("graft: %s: the line at offset %d is seq %d, not the tool event seq %d the fold read there", o.path, off, ev.Seq, seq)
	}
	return &ev, nil
}

func (s *Service) foldOpen(ctx context.Context, source string, f vfs.File, fi os.FileInfo) (*sourceFold, error) {
	path := s.store.Path(source)
	dev, ino, haveIdentity := index.FileIdentity(fi)
	fo := &sourceFold{}
	var stored index.ScanIndex
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
	marks := index.NewCollector(fo.From.Line, fo.From.NextSeq)
	var seen, read int64
	res, err := s.scanFold(f, path, fo.From, func(ev *session.Event, size int, sum session.LineSum, off int64) error {
		// The fold is the long part of a prepare: ctx is checked every
		// foldCheckEvents events or foldCheckBytes bytes.
		seen++
		read += int64(size)
		if seen%foldCheckEvents == 0 || read >= foldCheckBytes {
			read = 0
			if s.foldHook != nil {
				s.foldHook(source, seen)
			}
			if err := cancelled(ctx, "prepare of "+source); err != nil {
				return err
			}
		}
		marks.See(ev.Seq, off)
		fo.info.Add(ev)
		return fo.b.AddSumAt(ev, size, sum, off)
	})
	if err != nil {
		return nil, err
	}
	res.Events += prevEvents
	fo.info.ScanResult = res
	if haveIdentity && res.Torn == nil {
		if fo.seal, err = index.NewSeal(f, dev, ino, res.End, res.LastSeq); err != nil {
			return nil, fmt.Errorf("graft: sealing the fold of %s: %w", source, err)
		}
	}
	if !catalogUnread && (fo.From.Offset == 0 || res.End-fo.From.Offset >= indexSaveTail) {
		if err := s.saveIndexes(source, f, dev, ino, haveIdentity, fo, marks.Marks()); err != nil {
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
func resumeFrom(ix index.ScanIndex, source string, f io.ReaderAt, size int64, dev, ino uint64, haveIdentity bool) (*tape.Builder, *session.Info, string, error) {
	if reason, err := ix.Fits(f, source, size, dev, ino, haveIdentity); reason != "" || err != nil {
		return nil, nil, reason, err
	}
	infoState, tapeState, reason := index.DecodeScanState(ix.State)
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

// saveIndexes stores the scan index at the end of fo in the catalog and
// the seq marks, extended with marks (those of the events fo read), in
// index/<id>.seq.
func (s *Service) saveIndexes(source string, f vfs.File, dev, ino uint64, haveIdentity bool, fo *sourceFold, marks []index.SeqMark) error {
	if !haveIdentity {
		return nil // nothing to validate an index against; see resumeFrom
	}
	res := fo.info.ScanResult
	var check string
	if fo.seal != nil && fo.seal.End == res.End {
		check = fo.seal.Check // the same 4 KiB, hashed once
	} else {
		var err error
		if check, err = index.TailCheck(f, res.End); err != nil {
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
	state, err := index.EncodeScanState(infoState, tapeState)
	if err != nil {
		return fmt.Errorf("graft: encoding the scan state of %s: %w", source, err)
	}
	all := s.extendSeqMarks(source, dev, ino, fo.From, marks)
	// One line per event: the next line's number follows from the events
	// read since From.
	line := max(fo.From.Line, 1) + int(res.LastSeq+1-max(fo.From.NextSeq, 1))
	ix := index.ScanIndex{Session: source, Dev: dev, Ino: ino, Offset: res.End, Line: line, NextSeq: res.LastSeq + 1, Check: check, State: state}
	err = s.cat().With(func(db *catalog.DB) error { return db.PutScanIndex(ix) })
	if err != nil {
		return fmt.Errorf("graft: storing the indexes of %s: %w", source, err)
	}
	if err := index.NewWriter(s.store.FS, s.Home).WriteSeq(source, dev, ino, all); err != nil {
		return err
	}
	fo.Saved = true
	return nil
}
