package graft

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/vfs"
)

// The seq index: where every seqMarkEvery-th event starts (catalog.SeqMark:
// mark k is the event with seq k·K+1), so that recall seeks to the nearest
// mark at or before a seq and reads forward at most K-1 lines, whatever
// the length of the session. The fold that stores a scan index stores
// these marks too: in the catalog (PutSeqIndex), and in a cache file that
// recall reads without opening the catalog (a bbolt open and the JSON of
// thousands of marks cost more than the recall itself):
//
//	$GRAFT_HOME/index/<id>.seq       mode 0600, directory 0700
//
//	header, 56 bytes, little-endian:
//	  magic "graft-seqidx-v1\n" (16 bytes)
//	  dev, ino      u64   the identity of the log the marks were read from
//	  every         u64   K, events from one mark to the next
//	  first         u64   the k of the first record
//	  count         u64   records that follow
//	records, 24 bytes each: seq, offset, line (i64); record j is mark first+j
//
// The file is a cache: written to a temporary name (O_EXCL) and renamed,
// never fsynced. A file whose size, header or records do not check out, or
// whose dev/ino are not the log's, is not used: recall then reads the
// catalog's marks, else the log from its start. Whatever the source of a
// mark, recall checks it against the log: the byte before it is a newline,
// every line it skips starts with the next seq, and the line it decodes has
// the seq asked for; anything else reads the log from its start instead.

// seqMarkEvery is K: 220,000 events give 3,438 marks (80 KiB of cache), and
// a recall reads on average 32 lines past its mark.
const seqMarkEvery = 64

const (
	seqCacheDir    = "index"
	seqCacheExt    = ".seq"
	seqCacheMagic  = "graft-seqidx-v1\n"
	seqCacheHeader = 56
	seqCacheRecord = 24
)

// markCollector keeps the marks of the events a fold reads.
type markCollector struct {
	from  session.ScanFrom
	marks []catalog.SeqMark
}

func newMarkCollector(from session.ScanFrom) *markCollector {
	return &markCollector{from: from}
}

// see records event seq, which starts at byte off, when it is a mark.
func (m *markCollector) see(seq, off int64) {
	if (seq-1)%seqMarkEvery != 0 {
		return
	}
	line := max(m.from.Line, 1) + int(seq-max(m.from.NextSeq, 1))
	m.marks = append(m.marks, catalog.SeqMark{Seq: seq, Offset: off, Line: line})
}

// extendSeqMarks returns the marks before from (read back from the cache,
// else the catalog) followed by tail, the marks a fold read from from on.
// Marks that are missing or do not continue into tail are dropped: the
// index then starts at tail, and recall reads earlier seqs from the start.
func (s *Service) extendSeqMarks(source string, dev, ino uint64, from session.ScanFrom, tail []catalog.SeqMark) ([]catalog.SeqMark, error) {
	if from.Offset == 0 {
		return tail, nil
	}
	prev, _, err := s.loadSeqCache(source, dev, ino)
	if err != nil {
		// A cache: the catalog's marks, or none (the index then starts
		// at tail and recall reads earlier seqs from the log's start).
		s.degrade("the seq cache %s could not be read (the catalog's marks are used instead): %v", s.seqCachePath(source), err)
		prev = nil
	}
	if prev == nil {
		err := s.viewCatalog(func(db *catalog.DB) error {
			cdev, cino, marks, ok, err := db.GetSeqIndex(source)
			if ok && cdev == dev && cino == ino {
				prev = marks
			}
			return err
		})
		if err != nil {
			// Storing the indexes will fail for the same reason, and say so.
			prev = nil
		}
	}
	keep := 0
	for keep < len(prev) && prev[keep].Seq < from.NextSeq && prev[keep].Offset < from.Offset {
		keep++
	}
	out := append([]catalog.SeqMark(nil), prev[:keep]...)
	if !regularMarks(out) {
		out = nil
	}
	next := int64(0) // the k the tail must start at
	if len(out) > 0 {
		next = markK(out[len(out)-1]) + 1
	} else if len(tail) > 0 {
		next = markK(tail[0])
	}
	if len(tail) > 0 && markK(tail[0]) != next {
		out = nil
	}
	return append(out, tail...), nil
}

// markK is k of mark m (seq k·K+1).
func markK(m catalog.SeqMark) int64 { return (m.Seq - 1) / seqMarkEvery }

// regularMarks reports whether marks are consecutive marks k, k+1, ….
func regularMarks(marks []catalog.SeqMark) bool {
	for j, m := range marks {
		if (m.Seq-1)%seqMarkEvery != 0 || (j > 0 && markK(m) != markK(marks[j-1])+1) {
			return false
		}
	}
	return true
}

func (s *Service) seqCachePath(id string) string {
	return filepath.Join(s.Home, seqCacheDir, id+seqCacheExt)
}

// writeSeqCache replaces the cache file of id with marks.
func (s *Service) writeSeqCache(id string, dev, ino uint64, marks []catalog.SeqMark) error {
	if !regularMarks(marks) {
		return fmt.Errorf("graft: seq marks of %s are not every %d events; not cached", id, seqMarkEvery)
	}
	first := int64(0)
	if len(marks) > 0 {
		first = markK(marks[0])
	}
	buf := make([]byte, seqCacheHeader, seqCacheHeader+seqCacheRecord*len(marks))
	copy(buf, seqCacheMagic)
	binary.LittleEndian.PutUint64(buf[16:], dev)
	binary.LittleEndian.PutUint64(buf[24:], ino)
	binary.LittleEndian.PutUint64(buf[32:], seqMarkEvery)
	binary.LittleEndian.PutUint64(buf[40:], uint64(first))
	binary.LittleEndian.PutUint64(buf[48:], uint64(len(marks)))
	for _, m := range marks {
		buf = binary.LittleEndian.AppendUint64(buf, uint64(m.Seq))
		buf = binary.LittleEndian.AppendUint64(buf, uint64(m.Offset))
		buf = binary.LittleEndian.AppendUint64(buf, uint64(m.Line))
	}
	fsys := s.store.FS
	dir := filepath.Join(s.Home, seqCacheDir)
	if err := fsys.MkdirAll(dir, session.DirMode); err != nil {
		return fmt.Errorf("graft: creating %s: %w", dir, err)
	}
	path := s.seqCachePath(id)
	tmp := path + ".tmp-" + rand.Text()[:8]
	f, err := fsys.Create(tmp, session.FileMode)
	if err != nil {
		return fmt.Errorf("graft: writing the seq cache %s: %w", tmp, err)
	}
	_, err = f.Write(buf)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = fsys.Rename(tmp, path)
	}
	if err != nil {
		err = fmt.Errorf("graft: writing the seq cache %s: %w", path, err)
		if rerr := fsys.Remove(tmp); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			err = errors.Join(err, fmt.Errorf("graft: removing %s: %w", tmp, rerr))
		}
		return err
	}
	return nil
}

// seqCache is an open cache file whose header checked out.
type seqCache struct {
	f            vfs.File
	first, count int64
}

// openSeqCache opens the cache of id for the log identified by dev and
// ino. A missing or unusable file is (nil, reason, nil); err is an I/O
// failure.
func (s *Service) openSeqCache(id string, dev, ino uint64) (*seqCache, string, error) {
	path := s.seqCachePath(id)
	fsys := s.store.FS
	fi, err := fsys.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "no seq cache", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("graft: stat %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Sprintf("%s is not a regular file", path), nil
	}
	f, err := fsys.Open(path)
	if err != nil {
		return nil, "", fmt.Errorf("graft: opening %s: %w", path, err)
	}
	var h [seqCacheHeader]byte
	reason := ""
	if _, err := f.ReadAt(h[:], 0); err != nil {
		if errors.Is(err, io.EOF) {
			reason = "the seq cache is shorter than its header"
		} else {
			return nil, "", closeAfterRead(f, fmt.Errorf("graft: reading %s: %w", path, err))
		}
	}
	le := binary.LittleEndian
	first, count := int64(le.Uint64(h[40:])), int64(le.Uint64(h[48:]))
	switch {
	case reason != "":
	case string(h[:16]) != seqCacheMagic:
		reason = "the seq cache has no graft-seqidx-v1 header"
	case le.Uint64(h[16:]) != dev || le.Uint64(h[24:]) != ino:
		reason = fmt.Sprintf("the seq cache was built from another file (dev/ino %d/%d, the log is %d/%d)", le.Uint64(h[16:]), le.Uint64(h[24:]), dev, ino)
	case le.Uint64(h[32:]) != seqMarkEvery:
		reason = fmt.Sprintf("the seq cache has a mark every %d events, this build every %d", le.Uint64(h[32:]), seqMarkEvery)
	case first < 0 || count < 0 || count > (math.MaxInt64-seqCacheHeader)/seqCacheRecord || fi.Size() != seqCacheHeader+seqCacheRecord*count:
		reason = fmt.Sprintf("the seq cache is %d bytes, its header says %d records", fi.Size(), count)
	}
	if reason != "" {
		return nil, reason, closeAfterRead(f, nil)
	}
	return &seqCache{f: f, first: first, count: count}, "", nil
}

// record reads record j and checks that it is mark first+j.
func (c *seqCache) record(j int64) (catalog.SeqMark, bool, error) {
	var r [seqCacheRecord]byte
	if _, err := c.f.ReadAt(r[:], seqCacheHeader+seqCacheRecord*j); err != nil {
		return catalog.SeqMark{}, false, fmt.Errorf("graft: reading %s: %w", c.f.Name(), err)
	}
	le := binary.LittleEndian
	m := catalog.SeqMark{Seq: int64(le.Uint64(r[0:])), Offset: int64(le.Uint64(r[8:])), Line: int(int64(le.Uint64(r[16:])))}
	ok := m.Seq == (c.first+j)*seqMarkEvery+1 && m.Offset >= 0 && m.Line >= 1
	return m, ok, nil
}

func (c *seqCache) close() error {
	if err := c.f.Close(); err != nil {
		return fmt.Errorf("graft: closing %s: %w", c.f.Name(), err)
	}
	return nil
}

func closeAfterRead(f vfs.File, err error) error {
	if cerr := f.Close(); cerr != nil {
		return errors.Join(err, fmt.Errorf("graft: closing %s: %w", f.Name(), cerr))
	}
	return err
}

// loadSeqCache returns every mark of the cache of id, nil with a reason
// when the cache is missing or unusable.
func (s *Service) loadSeqCache(id string, dev, ino uint64) ([]catalog.SeqMark, string, error) {
	c, reason, err := s.openSeqCache(id, dev, ino)
	if c == nil {
		return nil, reason, err
	}
	marks := make([]catalog.SeqMark, 0, c.count)
	for j := int64(0); j < c.count; j++ {
		m, ok, err := c.record(j)
		if err != nil {
			return nil, "", closeAfterRead(c.f, err)
		}
		if !ok || (j > 0 && m.Offset <= marks[j-1].Offset) {
			return nil, fmt.Sprintf("record %d of the seq cache is not mark %d", j, c.first+j), c.close()
		}
		marks = append(marks, m)
	}
	return marks, "", c.close()
}

// RecallPath says how Recall found an event: from which mark, how far it
// read, and why it read the log from its start when it did.
type RecallPath struct {
	// Index is where the mark came from: "cache", "catalog", or "" when
	// reading started at the start of the log.
	Index string           `json:"index,omitempty"`
	Mark  *catalog.SeqMark `json:"mark,omitempty"`
	// Skipped is how many lines and bytes were passed over to reach seq.
	SkippedLines int   `json:"skippedLines"`
	SkippedBytes int64 `json:"skippedBytes"`
	// FullScan says why the whole log up to seq was decoded: no usable
	// index, or a check against the log failed.
	FullScan string `json:"fullScan,omitempty"`
}

// RecallWithPath is Recall, also saying how the event was found.
func (s *Service) RecallWithPath(id string, seq int64) (*session.Event, RecallPath, error) {
	if err := session.ValidID(id); err != nil {
		return nil, RecallPath{}, err
	}
	if seq < 1 {
		return nil, RecallPath{}, fmt.Errorf("%w: seq %d (seqs start at 1)", ErrNoSuchSeq, seq)
	}
	f, fi, err := s.openLog(id)
	if err != nil {
		return nil, RecallPath{}, err
	}
	ev, path, err := s.recallIndexed(id, seq, f, fi.Size(), fi)
	if cerr := closeAfterRead(f, nil); cerr != nil && err == nil {
		err = cerr
	}
	if err != nil || ev != nil {
		return ev, path, err
	}
	ev, err = s.recallFromStart(id, seq)
	return ev, path, err
}

// recallIndexed looks for seq from its nearest mark. A nil event with a
// nil error means: read the log from its start (path.FullScan says why).
func (s *Service) recallIndexed(id string, seq int64, f vfs.File, size int64, fi fs.FileInfo) (*session.Event, RecallPath, error) {
	var path RecallPath
	dev, ino, ok := catalog.FileIdentity(fi)
	if !ok {
		path.FullScan = "this platform gives no file identity (dev/ino) to check an index against"
		return nil, path, nil
	}
	mark, src, reason, err := s.findMark(id, seq, dev, ino)
	if err != nil {
		return nil, path, err
	}
	if src == "" {
		path.FullScan = reason
		return nil, path, nil
	}
	path.Index, path.Mark = src, &mark
	if mark.Offset > size {
		path.FullScan = fmt.Sprintf("mark seq %d at byte %d is past the end of the log (%d bytes)", mark.Seq, mark.Offset, size)
		return nil, path, nil
	}
	if mark.Offset > 0 {
		var b [1]byte
		if _, err := f.ReadAt(b[:], mark.Offset-1); err != nil {
			return nil, path, fmt.Errorf("graft: reading %s: %w", f.Name(), err)
		}
		if b[0] != '\n' {
			path.FullScan = fmt.Sprintf("mark seq %d at byte %d does not start a line", mark.Seq, mark.Offset)
			return nil, path, nil
		}
	}
	off, line, skipped, reason, err := skipLines(f, mark, seq)
	path.SkippedLines, path.SkippedBytes = skipped, off-mark.Offset
	if err != nil || reason != "" {
		path.FullScan = reason
		return nil, path, err
	}
	var found *session.Event
	logPath := s.store.Path(id)
	_, err = session.Scan(io.NewSectionReader(f, off, math.MaxInt64-off), logPath, session.ScanFrom{Offset: off, Line: line, NextSeq: seq}, func(ev *session.Event, _ []byte, _ int64) error {
		e := *ev
		found = &e
		return errFound
	})
	if found != nil {
		return found, path, nil
	}
	// Past the last line, or a line that is not the one the marks promised:
	// the read from the start decides, and words the error.
	if err == nil {
		path.FullScan = fmt.Sprintf("no complete line at byte %d where seq %d should start", off, seq)
	} else {
		path.FullScan = fmt.Sprintf("the line at byte %d is not seq %d: %v", off, seq, err)
	}
	return nil, path, nil
}

// findMark returns the nearest mark at or before seq: from the cache, else
// the catalog. src is "" (with a reason) when neither has one. A cache or
// a catalog that cannot be read is a reason (and a note: TakeDegraded),
// never an error: the log is the truth, and recall reads it instead.
func (s *Service) findMark(id string, seq int64, dev, ino uint64) (catalog.SeqMark, string, string, error) {
	c, reason, err := s.openSeqCache(id, dev, ino)
	if err != nil {
		reason = fmt.Sprintf("the seq cache could not be read (%v)", err)
		s.degrade("recall of %s seq %d: the seq cache %s could not be read, catalog.db's marks (or the log) were read instead: %v", id, seq, s.seqCachePath(id), err)
	}
	if c != nil {
		j := min((seq-1)/seqMarkEvery-c.first, c.count-1)
		if j < 0 {
			return catalog.SeqMark{}, "", fmt.Sprintf("seq %d is before the first mark (seq %d)", seq, c.first*seqMarkEvery+1), c.close()
		}
		m, ok, err := c.record(j)
		if err != nil {
			err = closeAfterRead(c.f, err)
			reason = fmt.Sprintf("the seq cache could not be read (%v)", err)
			s.degrade("recall of %s seq %d: the seq cache %s could not be read, catalog.db's marks (or the log) were read instead: %v", id, seq, s.seqCachePath(id), err)
		} else {
			if err := c.close(); err != nil {
				return catalog.SeqMark{}, "", "", err
			}
			if ok {
				return m, "cache", "", nil
			}
			reason = fmt.Sprintf("record %d of the seq cache is not mark %d", j, c.first+j)
		}
	}
	var marks []catalog.SeqMark
	err = s.viewCatalog(func(db *catalog.DB) error {
		cdev, cino, ms, ok, err := db.GetSeqIndex(id)
		switch {
		case err != nil:
			return err
		case !ok:
			reason += "; no seq index in the catalog"
		case cdev != dev || cino != ino:
			reason += fmt.Sprintf("; the catalog's seq index was built from another file (dev/ino %d/%d, the log is %d/%d)", cdev, cino, dev, ino)
		default:
			marks = ms
		}
		return nil
	})
	if err != nil {
		problem := catalogProblem(err)
		s.degrade("recall of %s seq %d read the log from its start: catalog.db not read: %s", id, seq, problem)
		return catalog.SeqMark{}, "", reason + "; catalog.db not read: " + problem, nil
	}
	k := sort.Search(len(marks), func(k int) bool { return marks[k].Seq > seq })
	if k == 0 {
		if marks != nil {
			reason += fmt.Sprintf("; seq %d is before the catalog's first mark", seq)
		}
		return catalog.SeqMark{}, "", reason, nil
	}
	return marks[k-1], "catalog", "", nil
}

// skipLines passes over the lines from mark to the one of seq and returns
// where that one starts. Each line passed over must start with
// {"seq":<the next seq>, as every line graft writes does; reason is
// non-empty when one does not, or when the log ends first. The lines
// passed over are not decoded: that is the point of the index.
func skipLines(r io.ReaderAt, mark catalog.SeqMark, seq int64) (off int64, line int, skipped int, reason string, err error) {
	const maxPrefix = int64(len(`{"seq":`) + 20 + 1)
	off, line = mark.Offset, mark.Line
	buf := make([]byte, 64<<10)
	bufStart, n := int64(0), 0
	fill := func(at int64) error {
		k, err := r.ReadAt(buf, at)
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("graft: reading the log at byte %d: %w", at, err)
		}
		bufStart, n = at, k
		return nil
	}
	var prefix []byte
	for want := mark.Seq; want < seq; want++ {
		if off < bufStart || off+maxPrefix > bufStart+int64(n) {
			if err := fill(off); err != nil {
				return off, line, skipped, "", err
			}
		}
		prefix = append(strconv.AppendInt(append(prefix[:0], `{"seq":`...), want, 10), ',')
		if !bytes.HasPrefix(buf[off-bufStart:n], prefix) {
			if n == 0 {
				return off, line, skipped, fmt.Sprintf("the log ends at byte %d, before seq %d", off, seq), nil
			}
			return off, line, skipped, fmt.Sprintf("the line at byte %d does not start with %s", off, prefix), nil
		}
		pos := off + int64(len(prefix))
		for {
			if pos >= bufStart+int64(n) {
				if err := fill(pos); err != nil {
					return off, line, skipped, "", err
				}
				if n == 0 {
					return off, line, skipped, fmt.Sprintf("the line of seq %d at byte %d has no newline", want, off), nil
				}
			}
			if i := bytes.IndexByte(buf[pos-bufStart:n], '\n'); i >= 0 {
				pos += int64(i) + 1
				break
			}
			pos = bufStart + int64(n)
		}
		off = pos
		line++
		skipped++
	}
	return off, line, skipped, "", nil
}

// recallFromStart is the read of the whole log up to seq.
func (s *Service) recallFromStart(id string, seq int64) (*session.Event, error) {
	var found *session.Event
	res, err := s.store.Scan(id, session.ScanFrom{}, func(ev *session.Event, _ []byte, _ int64) error {
		if ev.Seq == seq {
			e := *ev
			found = &e
			return errFound
		}
		return nil
	})
	if found != nil {
		return found, nil
	}
	if err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("%w: %s has seqs 1..%d, not %d", ErrNoSuchSeq, id, res.LastSeq, seq)
}
