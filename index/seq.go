package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/graft-project/graft/vfs"
)

// MarkEvery is K: mark k is the event with seq k·K+1. 220,000 events give
// 3,438 marks (80 KiB of file), and a recall reads on average 32 lines
// past its mark.
const MarkEvery = 64

const (
	seqMagic  = "graft-seqidx-v1\n"
	seqHeader = 56
	seqRecord = 24
)

// SeqMark says where event Seq starts: byte Offset, line number Line.
type SeqMark struct {
	Seq    int64 `json:"seq"`
	Offset int64 `json:"offset"`
	Line   int   `json:"line"`
}

// K is k of mark m (seq k·K+1).
func (m SeqMark) K() int64 { return (m.Seq - 1) / MarkEvery }

// Collector keeps the marks of the events a fold reads.
type Collector struct {
	line    int   // the line number at the fold's start
	nextSeq int64 // the seq expected there
	marks   []SeqMark
}

// NewCollector collects the marks of a fold that starts at line number
// line with seq nextSeq (zero values: the log's start).
func NewCollector(line int, nextSeq int64) *Collector {
	return &Collector{line: max(line, 1), nextSeq: max(nextSeq, 1)}
}

// See records event seq, which starts at byte off, when it is a mark.
func (c *Collector) See(seq, off int64) {
	if (seq-1)%MarkEvery != 0 {
		return
	}
	c.marks = append(c.marks, SeqMark{Seq: seq, Offset: off, Line: c.line + int(seq-c.nextSeq)})
}

// Marks are the marks seen so far.
func (c *Collector) Marks() []SeqMark { return c.marks }

// Extend returns the marks of prev before a fold's start (byte fromOffset,
// seq fromNextSeq) followed by tail, the marks that fold read. Marks that
// are not regular or do not continue into tail are dropped: the marks
// then start at tail, and recall reads earlier seqs from the log's start.
func Extend(prev []SeqMark, fromOffset, fromNextSeq int64, tail []SeqMark) []SeqMark {
	if fromOffset == 0 {
		return tail
	}
	keep := 0
	for keep < len(prev) && prev[keep].Seq < fromNextSeq && prev[keep].Offset < fromOffset {
		keep++
	}
	out := append([]SeqMark(nil), prev[:keep]...)
	if !regular(out) {
		out = nil
	}
	next := int64(0) // the k the tail must start at
	if len(out) > 0 {
		next = out[len(out)-1].K() + 1
	} else if len(tail) > 0 {
		next = tail[0].K()
	}
	if len(tail) > 0 && tail[0].K() != next {
		out = nil
	}
	return append(out, tail...)
}

// regular reports whether marks are consecutive marks k, k+1, ….
func regular(marks []SeqMark) bool {
	for j, m := range marks {
		if (m.Seq-1)%MarkEvery != 0 || (j > 0 && m.K() != marks[j-1].K()+1) {
			return false
		}
	}
	return true
}

// EncodeSeq is the seq file of marks read from the log of identity dev,
// ino (doc.go: index/<id>.seq).
func EncodeSeq(dev, ino uint64, marks []SeqMark) ([]byte, error) {
	if !regular(marks) {
		return nil, fmt.Errorf("index: seq marks that are not every %d events", MarkEvery)
	}
	first := int64(0)
	if len(marks) > 0 {
		first = marks[0].K()
	}
	le := binary.LittleEndian
	buf := make([]byte, seqHeader, seqHeader+seqRecord*len(marks))
	copy(buf, seqMagic)
	le.PutUint64(buf[16:], dev)
	le.PutUint64(buf[24:], ino)
	le.PutUint64(buf[32:], MarkEvery)
	le.PutUint64(buf[40:], uint64(first))
	le.PutUint64(buf[48:], uint64(len(marks)))
	for _, m := range marks {
		buf = le.AppendUint64(buf, uint64(m.Seq))
		buf = le.AppendUint64(buf, uint64(m.Offset))
		buf = le.AppendUint64(buf, uint64(m.Line))
	}
	return buf, nil
}

// WriteSeq replaces the seq file of id with marks. It is a cache: not
// fsynced.
func (w *Writer) WriteSeq(id string, dev, ino uint64, marks []SeqMark) error {
	data, err := EncodeSeq(dev, ino, marks)
	if err != nil {
		return fmt.Errorf("index: seq marks of %s: %w; not cached", id, err)
	}
	return w.write("the seq cache", id+seqExt, data, false)
}

// SeqFile is an open seq file whose header checked out.
type SeqFile struct {
	f vfs.File
	// First is k of the first record; Count the number of records.
	First, Count int64
}

// OpenSeq opens the seq file of id for the log of identity dev, ino. A
// missing or unusable file is (nil, reason, nil); err is an I/O failure.
func OpenSeq(fsys vfs.FS, home, id string, dev, ino uint64) (*SeqFile, string, error) {
	path := SeqPath(home, id)
	f, fi, reason, err := openFile(fsys, path)
	if f == nil {
		if reason == "" && err == nil {
			reason = "no seq cache"
		}
		return nil, reason, err
	}
	var h [seqHeader]byte
	if _, err := f.ReadAt(h[:], 0); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, "the seq cache is shorter than its header", vfs.CloseAfter(f, nil)
		}
		return nil, "", vfs.CloseAfter(f, fmt.Errorf("index: reading %s: %w", path, err))
	}
	le := binary.LittleEndian
	first, count := int64(le.Uint64(h[40:])), int64(le.Uint64(h[48:]))
	switch {
	case string(h[:16]) != seqMagic:
		reason = "the seq cache has no graft-seqidx-v1 header"
	case le.Uint64(h[16:]) != dev || le.Uint64(h[24:]) != ino:
		reason = fmt.Sprintf("the seq cache was built from another file (dev/ino %d/%d, the log is %d/%d)", le.Uint64(h[16:]), le.Uint64(h[24:]), dev, ino)
	case le.Uint64(h[32:]) != MarkEvery:
		reason = fmt.Sprintf("the seq cache has a mark every %d events, this build every %d", le.Uint64(h[32:]), MarkEvery)
	case first < 0 || count < 0 || count > (math.MaxInt64-seqHeader)/seqRecord || fi.Size() != seqHeader+seqRecord*count:
		reason = fmt.Sprintf("the seq cache is %d bytes, its header says %d records", fi.Size(), count)
	}
	if reason != "" {
		return nil, reason, vfs.CloseAfter(f, nil)
	}
	return &SeqFile{f: f, First: first, Count: count}, "", nil
}

// Path is the file's path.
func (c *SeqFile) Path() string { return c.f.Name() }

// Record reads record j; ok is false when it is not mark First+j.
func (c *SeqFile) Record(j int64) (m SeqMark, ok bool, err error) {
	var r [seqRecord]byte
	if _, err := c.f.ReadAt(r[:], seqHeader+seqRecord*j); err != nil {
		return SeqMark{}, false, fmt.Errorf("index: reading %s: %w", c.f.Name(), err)
	}
	m, ok = c.decode(r[:], j)
	return m, ok, nil
}

// decode reads record j from its bytes r; ok says it is mark First+j.
func (c *SeqFile) decode(r []byte, j int64) (m SeqMark, ok bool) {
	le := binary.LittleEndian
	m = SeqMark{Seq: int64(le.Uint64(r[0:])), Offset: int64(le.Uint64(r[8:])), Line: int(int64(le.Uint64(r[16:])))}
	return m, m.Seq == (c.First+j)*MarkEvery+1 && m.Offset >= 0 && m.Line >= 1
}

// Nearest returns the mark nearest at or before seq; reason says why
// there is none.
func (c *SeqFile) Nearest(seq int64) (m SeqMark, reason string, err error) {
	j := min((seq-1)/MarkEvery-c.First, c.Count-1)
	if j < 0 {
		return SeqMark{}, fmt.Sprintf("seq %d is before the first mark (seq %d)", seq, c.First*MarkEvery+1), nil
	}
	m, ok, err := c.Record(j)
	if err != nil {
		return SeqMark{}, "", err
	}
	if !ok {
		return SeqMark{}, fmt.Sprintf("record %d of the seq cache is not mark %d", j, c.First+j), nil
	}
	return m, "", nil
}

// All reads every record, checking that record j is mark First+j and
// that offsets rise; reason says why they cannot be used.
func (c *SeqFile) All() ([]SeqMark, string, error) {
	// One read for them all: a read a record was a syscall per mark.
	buf := make([]byte, seqRecord*c.Count)
	if _, err := c.f.ReadAt(buf, seqHeader); err != nil {
		return nil, "", fmt.Errorf("index: reading %s: %w", c.f.Name(), err)
	}
	marks := make([]SeqMark, 0, c.Count)
	for j := int64(0); j < c.Count; j++ {
		m, ok := c.decode(buf[seqRecord*j:seqRecord*(j+1)], j)
		if !ok || (j > 0 && m.Offset <= marks[j-1].Offset) {
			return nil, fmt.Sprintf("record %d of the seq cache is not mark %d", j, c.First+j), nil
		}
		marks = append(marks, m)
	}
	return marks, "", nil
}

// Close closes the file.
func (c *SeqFile) Close() error {
	if err := c.f.Close(); err != nil {
		return fmt.Errorf("index: closing %s: %w", c.f.Name(), err)
	}
	return nil
}

// FindMark returns the mark nearest at or before seq from the seq file of
// id, for the log of identity dev, ino; reason says why there is none (no
// file, a file that does not fit the log, seq before its first mark);
// err is an I/O failure reading it.
func FindMark(fsys vfs.FS, home, id string, seq int64, dev, ino uint64) (SeqMark, string, error) {
	c, reason, err := OpenSeq(fsys, home, id, dev, ino)
	if c == nil {
		return SeqMark{}, reason, err
	}
	m, reason, err := c.Nearest(seq)
	if cerr := c.Close(); err == nil {
		err = cerr
	} else if cerr != nil {
		err = errors.Join(err, cerr)
	}
	if err != nil {
		return SeqMark{}, "", err
	}
	return m, reason, nil
}

// LoadSeq returns every mark of the seq file of id for the log of identity
// dev, ino; nil with a reason when the file is missing or unusable.
func LoadSeq(fsys vfs.FS, home, id string, dev, ino uint64) ([]SeqMark, string, error) {
	c, reason, err := OpenSeq(fsys, home, id, dev, ino)
	if c == nil {
		return nil, reason, err
	}
	marks, reason, err := c.All()
	if err != nil {
		return nil, "", vfs.CloseAfter(c.f, err)
	}
	if err := c.Close(); err != nil {
		return nil, "", err
	}
	return marks, reason, nil
}
