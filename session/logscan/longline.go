package logscan

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/zeebo/xxh3"
)

// Long lines of a Pipeline that sums lines (session.ScanFoldSums). A line
// longer than a batch buffer is, in a real log, nearly always a tool
// result whose output is MiBs: the fold keeps none of a successful one and
// only the first line with text of a failed one. Reading such a line whole
// into a buffer and decoding it afterwards costs two trips through memory
// (the copy, then the decoder's and the hash's reads) and a buffer the
// size of the line. Instead the reader decodes the line as it reads it,
// readBytes at a time (Schema.DecodeFast over a Decoder whose data grows):
// each read is scanned and hashed while it is still in the cache, and the
// part of the output's body that has been validated (and is not the head
// a failed result keeps: SkipStringCut) is dropped, so the line never
// needs more than its other fields, the head and a read.
//
// Anything this cannot decode exactly — a malformed line, one the
// schema's fast path declines, a structure that runs past the bytes read —
// is read again whole from the file (r is an io.ReaderAt) and decoded as
// every other line is (Schema.Decode), so errors, their wording and the
// values are those of a whole-line read.

// longAhead is how many bytes past the end of a string a long line holds
// before the decoder reads the structure that follows it; a structure
// longer than that between two strings (never written by a logger) sends
// the line to the whole-line path.
const longAhead = 64 << 10

// longLine is the reader's state while it decodes one long line. Reads
// land in d.data unsearched: the string scan stops at a '\n' (a control
// byte) anyway, so the bytes of a string's body need no search of their
// own; only the structure after a string is searched for the line's end.
// Hashing trails the scan: each scanned part is hashed before it may be
// dropped, while it is still in the cache.
type longLine struct {
	r        io.Reader
	h        *xxh3.Hasher
	dropped  int64  // bytes of the line cut out of d.data
	searched int    // d.data[:searched] holds no '\n'
	hashed   int    // d.data[:hashed] has been hashed
	done     bool   // the line's '\n' has been found: d.data ends there
	next     []byte // the bytes read past the '\n': the lines after it
	err      error  // the read error that ended the reads (io.EOF included)
	read     int    // the most one read asks for
}

// fill reads once more onto the end of d.data, growing it when it is
// full. It reports false when nothing more can be read: the line's end
// has been found or a read failed.
func (s *longLine) fill(d *Decoder) bool {
	if s.done || s.err != nil {
		return false
	}
	if cap(d.data)-len(d.data) < s.read {
		d.data = append(make([]byte, 0, 2*cap(d.data)+s.read), d.data...)
	}
	at := len(d.data)
	n, err := s.r.Read(d.data[at : at+s.read])
	d.data = d.data[:at+n]
	if err != nil {
		s.err = err
	}
	return n > 0 || err == nil
}

// search looks for the line's '\n' in d.data past the part known to hold
// none; found, d.data ends there and what follows it is kept in next.
func (s *longLine) search(d *Decoder) {
	if s.done || s.searched >= len(d.data) {
		return
	}
	if k := bytes.IndexByte(d.data[s.searched:], '\n'); k >= 0 {
		at := s.searched + k
		s.next = append(s.next[:0], d.data[at+1:]...)
		d.data = d.data[:at]
		s.done = true
	}
	s.searched = len(d.data)
}

// hash hashes d.data up to end.
func (s *longLine) hash(d *Decoder, end int) {
	if s.hashed < end {
		s.h.Write(d.data[s.hashed:end])
		s.hashed = end
	}
}

// size is the length of the line read so far: all of it once done.
func (s *longLine) size(d *Decoder) int64 { return s.dropped + int64(len(d.data)) }

// ensure reads until d.data holds n bytes or the whole line, searching
// what it reads.
func (s *longLine) ensure(d *Decoder, n int) {
	s.search(d)
	for len(d.data) < n && s.fill(d) {
		s.search(d)
	}
}

// stringEnd is the decoder's stringEnd over a line still being read: it
// reads on until the string ends, dropping the scanned part of the body
// as cut allows, then holds longAhead bytes past the string (searched for
// the line's end) for the structure after it. A string starts in
// searched bytes, and the bytes the scan passes hold no '\n'.
func (s *longLine) stringEnd(d *Decoder, i int, cut Cut) (int, bool, bool) {
	body, escaped, cutAt := i, false, -1
	for {
		end, esc, st := scanString(d.data, i)
		escaped = escaped || esc
		switch st {
		case strDone:
			s.searched = max(s.searched, end)
			s.ensure(d, end+1+longAhead)
			return end, escaped, true
		case strBad:
			return 0, false, false // malformed, or the line's '\n' inside the string
		}
		// d.data ends inside the string; end is where to go on from.
		s.searched = max(s.searched, end)
		s.hash(d, end)
		if cutAt < 0 && cut == CutAfterHead {
			// Keep the body through its head: textHead reads no further.
			buf, headEnd, whole := textHeadOf(d.scratch[:0], d.data[body:end])
			d.scratch = buf[:0]
			if whole {
				cut, cutAt = CutAll, body+headEnd
			} else {
				cut = CutNever // the head is long: keep the line (rare)
			}
		}
		if cut == CutAll {
			if cutAt < 0 {
				cutAt = body // a success's: none of it is kept
			}
			// Drop the scanned body past cutAt; keep a cut escape.
			n := copy(d.data[cutAt:], d.data[end:])
			d.data = d.data[:cutAt+n]
			gone := end - cutAt
			s.dropped += int64(gone)
			s.searched -= gone
			s.hashed -= gone
			end = cutAt
		}
		if !s.fill(d) {
			return 0, false, false
		}
		i = end
	}
}

// decodeLong decodes into ev the line that d.data starts (no '\n' in
// it), reading the rest through s. It reports false when the line must
// be decoded whole instead: the schema's fast path cannot decode it
// exactly, or the line is not a single well-formed line of the schema.
func (p *Pipeline[E]) decodeLong(d *Decoder, s *longLine, ev *E) bool {
	d.long, d.pos = s, 0
	defer func() { d.long = nil }()
	s.ensure(d, longAhead)
	ok := p.schema.DecodeFast(d, ev)
	d.trimScratch()
	return ok && s.done && d.pos == len(d.data)
}

// readLong decodes the long line at off that starts with first (the
// bytes that filled a batch buffer without a '\n'), reading the rest from
// r. It returns the line's batch, decoded, or to be decoded whole by the
// decoders when decodeLong could not; and the bytes read past the line.
// lb is nil when the log ends inside the line (err is io.EOF, size the
// line's bytes) or a read fails.
func (p *Pipeline[E]) readLong(r io.Reader, first []byte, off int64, num int) (lb *Batch[E], next []byte, size int64, err error) {
	s := &p.long
	if s.h == nil {
		s.h = xxh3.New()
	}
	s.h.Reset()
	*s = longLine{r: r, h: s.h, searched: len(first), next: s.next[:0], read: readBytes}
	d := &p.longDec
	// first is the batch buffer's: read into its room, it is the caller's
	// again once the line is decoded (the value holds copies).
	d.data = first
	// Decoded straight into its batch: a Line on the stack would escape
	// through the schema's interface call, an allocation more per line.
	lb = &Batch[E]{Lines: make([]Line[E], 1), done: make(chan struct{})}
	ln := &lb.Lines[0]
	ln.Off, ln.Num = off, num
	if p.decodeLong(d, s, &ln.Ev) {
		p.streamed++
		s.hash(d, len(d.data))
		ln.Size, ln.Sum = int(s.size(d)), s.h.Sum128().Bytes()
		d.data = nil
		close(lb.done)
		return lb, s.next, int64(ln.Size), s.err
	}
	// Read to the end of the line, keeping none of it, and read it again.
	for s.search(d); !s.done; s.search(d) {
		s.hash(d, len(d.data))
		s.dropped += int64(len(d.data))
		d.data, s.searched, s.hashed = d.data[:0], 0, 0
		if !s.fill(d) {
			break
		}
	}
	s.hash(d, len(d.data))
	size = s.size(d)
	d.data = nil
	if !s.done {
		return nil, nil, size, s.err
	}
	p.reread++
	line := p.newLong(int(size))[:size]
	if _, err := p.ra.ReadAt(line, p.raAt+off); err != nil {
		return nil, nil, size, fmt.Errorf("reading the line again: %w", err)
	}
	if SumLine(line) != s.h.Sum128().Bytes() {
		return nil, nil, size, errors.New("the line changed while it was read")
	}
	lb.buf, lb.decode = line, true
	*ln = Line[E]{start: 0, end: len(line), Size: len(line), Off: off, Num: num}
	return lb, s.next, size, s.err
}
