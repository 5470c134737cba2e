package logscan

import (
	"bytes"
	"io"
	"slices"
	"sync"

	"github.com/zeebo/xxh3"
)

// Schema is what a Pipeline knows of the lines it reads: how to decode
// one into an E. Its methods run on the pipeline's goroutines, each call
// with a Decoder of the calling goroutine's own.
type Schema[E any] interface {
	// Decode decodes line (without its '\n') into *ev, zeroing it first:
	// by the fast path, else by the schema's fallback. An error says the
	// line is bad.
	Decode(d *Decoder, line []byte, ev *E) error
	// DecodeFast decodes into *ev, zeroing it first, the line d holds
	// from its position (whitespace around the value included), by the
	// fast path alone. It reports false when it cannot decode the line
	// exactly, or when Decode would fail on it. d may be reading a long
	// line as it goes (see longline.go).
	DecodeFast(d *Decoder, ev *E) bool
}

// SumLine is the XXH3-128 of one raw line (without its '\n'), 16 bytes
// big-endian, high half first: what a Pipeline that sums lines hands out
// in Line.Sum.
func SumLine(raw []byte) [16]byte { return xxh3.Hash128(raw).Bytes() }

// Config says where a Pipeline starts and what it does.
type Config struct {
	Offset int64 // the log offset of r's first byte, which starts a line
	Line   int   // the number of that line (1-based)
	// Decoders is how many goroutines decode lines (at least one).
	Decoders int
	// Sums asks for each line's SumLine, computed by the decoder
	// goroutines right after they decode the line, while it is in their
	// cache. When r is also an io.ReaderAt and an io.Seeker, a line longer
	// than a batch is then decoded as it is read and never held whole
	// (see longline.go); it is read again through ReadAt, from r's
	// position when the pipeline starts, only if it cannot be decoded
	// that way.
	Sums bool
}

// The read-ahead: lines travel in batches, so that a channel operation
// is paid per batch rather than per line.
const (
	batchBytes = 256 << 10
	batchLines = 512
	aheadBytes = 4 << 20  // two long lines in flight; more costs RSS (issue 9: ≤ 64 MiB)
	tokenBytes = 64 << 10 // the unit of the read-ahead budget
	readBytes  = 64 << 10 // the least a read asks for
	// bufBytes holds a full batch and one more read, so that filling
	// a batch never reallocates it; only a line longer than that grows it.
	bufBytes = batchBytes + 2*readBytes
	// keptLongs long-line buffers of at most maxKeptLong bytes each are
	// recycled: enough for the lines in flight between the reader, the
	// decoders and the caller.
	keptLongs   = 2
	maxKeptLong = 16 << 20
)

// Line is one line of a Batch, decoded.
type Line[E any] struct {
	start, end int      // the line is buf[start:end], unless read as a long line
	Size       int      // the line's length, without its '\n'
	Off        int64    // its offset in the log
	Num        int      // its number (1-based)
	Ev         E        // what Schema.Decode made of it, unless Err
	Sum        [16]byte // its SumLine, when the pipeline sums lines
	Err        error    // Schema.Decode's error: the batch's lines after it are not decoded
}

// Batch is lines in the log's order, decoded.
type Batch[E any] struct {
	buf    []byte
	Lines  []Line[E]
	tokens int
	done   chan struct{} // closed once the lines are decoded
	decode bool          // for the decoders; else decoded by the reader
}

// Raw is the bytes of ln, one of b's lines, without its '\n': valid until
// b is released; nil for a long line decoded as it was read.
func (b *Batch[E]) Raw(ln *Line[E]) []byte {
	if b.buf == nil {
		return nil
	}
	return b.buf[ln.start:ln.end]
}

// Pipeline reads a log ahead of its caller, at most aheadBytes ahead (4
// MiB), and decodes its lines on decoder goroutines while the caller
// folds the lines before them: one reader goroutine, Config.Decoders
// decoder goroutines, and the caller taking decoded batches in order
// (Next, Release). Stop ends it.
type Pipeline[E any] struct {
	schema  Schema[E]
	ordered chan *Batch[E] // every batch, in order, for the caller
	work    chan *Batch[E] // the same batches, for the decoders
	budget  chan struct{}  // tokens of read-ahead
	free    chan *Batch[E]
	longMu  sync.Mutex
	longs   [][]byte // long-line buffers, recycled (see newLong)
	quit    chan struct{}
	wg      sync.WaitGroup
	// Long lines decoded as they are read (see longline.go), when the
	// pipeline sums lines and can read a line again: ra.ReadAt(p, raAt+off)
	// reads the log at offset off.
	ra      io.ReaderAt
	raAt    int64
	long    longLine
	longDec Decoder
	// How the reader stopped; written before it closes ordered.
	tornOff, tornBytes int64 // a torn tail: tornBytes > 0
	readErr            error
	readErrOff         int64
	// Long lines decoded as they were read, and read again whole: counted
	// by the reader, read once it has stopped (LongLines).
	streamed, reread int
}

// Start starts a Pipeline reading r, whose first byte is at c.Offset and
// starts line c.Line.
func Start[E any](r io.Reader, c Config, schema Schema[E]) *Pipeline[E] {
	batches := aheadBytes / tokenBytes
	decoders := max(1, c.Decoders)
	p := &Pipeline[E]{
		schema:  schema,
		ordered: make(chan *Batch[E], batches),
		work:    make(chan *Batch[E], batches),
		budget:  make(chan struct{}, batches),
		// Room for every batch the read-ahead lets live at once: a batch
		// dropped here is a batch buffer allocated and zeroed again.
		free: make(chan *Batch[E], batches+4*decoders),
		quit: make(chan struct{}),
	}
	if ra, ok := r.(interface {
		io.ReaderAt
		io.Seeker
	}); ok && c.Sums {
		if at, err := ra.Seek(0, io.SeekCurrent); err == nil {
			p.ra, p.raAt = ra, at-c.Offset
		}
	}
	p.wg.Add(1 + decoders)
	go p.read(r, c.Offset, c.Line)
	for range decoders {
		go p.decode(c.Sums)
	}
	return p
}

func (p *Pipeline[E]) newBatch() *Batch[E] {
	var b *Batch[E]
	select {
	case b = <-p.free:
	default:
		b = &Batch[E]{}
	}
	if b.buf == nil {
		b.buf = p.newBuf()
	}
	b.buf, b.Lines, b.tokens, b.done, b.decode = b.buf[:0], b.Lines[:0], 0, make(chan struct{}), true
	return b
}

// newBuf is an empty batch buffer: room for a full batch and one more
// read, so that filling a batch never reallocates it.
func (p *Pipeline[E]) newBuf() []byte {
	return make([]byte, 0, bufBytes)
}

// read cuts the log into batches of whole lines, reading straight into
// the batch buffers, until it ends or the caller quits. The bytes after a
// batch's last newline start the next batch. A line longer than a batch
// buffer is decoded as it is read when the pipeline can (readLong); else
// it moves to a long-line buffer (recycled, see newLong) and the rest of
// it is read straight into that, so a MiB line is neither copied nor
// zeroed again once the buffers have grown to the log's longest lines.
func (p *Pipeline[E]) read(r io.Reader, off int64, num int) {
	defer p.wg.Done()
	defer close(p.work)
	defer close(p.ordered)
	send := func(b *Batch[E]) bool {
		b.tokens = min(cap(p.budget), (len(b.buf)+tokenBytes-1)/tokenBytes)
		for range b.tokens {
			select {
			case p.budget <- struct{}{}:
			case <-p.quit:
				return false
			}
		}
		for _, ch := range []chan *Batch[E]{p.ordered, p.work} {
			if ch == p.work && !b.decode {
				break
			}
			select {
			case ch <- b:
			case <-p.quit:
				return false
			}
		}
		return true
	}
	b := p.newBatch()
	lineStart := 0  // in b.buf: the start of the line being read
	var long []byte // a long line read so far, when one is read
	for {
		var n int
		var err error
		// Only the start of one line fills b (a batch with a complete line
		// is sent before it fills): it is a long line.
		isLong := long == nil && cap(b.buf)-len(b.buf) < readBytes
		switch {
		case isLong && p.ra != nil:
			// Decoded as it is read (longline.go).
			lb, next, size, rerr := p.readLong(r, b.buf, off, num)
			b.buf = b.buf[:0]
			if lb == nil {
				if rerr == io.EOF {
					p.tornOff, p.tornBytes = off, size
				} else {
					p.readErr, p.readErrOff = rerr, off
				}
				return
			}
			off += size + 1
			num++
			if !send(lb) {
				return
			}
			b.buf = append(b.buf, next...)
			lineStart = 0
			err = p.cutLines(b, &lineStart, 0, &off, &num, rerr)
		case isLong || long != nil:
			if long == nil {
				long = append(p.newLong(2*len(b.buf)), b.buf...)
				b.buf = b.buf[:0]
			}
			if cap(long)-len(long) < readBytes {
				long = p.growLong(long)
			}
			// At most a batch's worth past the line's end can be read, so
			// the rest always fits the batch buffer.
			n, err = r.Read(long[len(long):min(cap(long), len(long)+batchBytes)])
			scanned := len(long)
			long = long[:scanned+n]
			i := bytes.IndexByte(long[scanned:], '\n')
			if i < 0 && err == nil {
				continue
			}
			if i >= 0 {
				end := scanned + i
				lb := &Batch[E]{buf: long[:end], Lines: []Line[E]{{start: 0, end: end, Size: end, Off: off, Num: num}}, done: make(chan struct{}), decode: true}
				off += int64(end + 1)
				num++
				b.buf = append(b.buf[:0], long[end+1:]...)
				long = nil
				if !send(lb) {
					return
				}
				lineStart = 0
				err = p.cutLines(b, &lineStart, 0, &off, &num, err)
			}
		default:
			n, err = r.Read(b.buf[len(b.buf):cap(b.buf)])
			scanned := len(b.buf)
			b.buf = b.buf[:scanned+n]
			err = p.cutLines(b, &lineStart, scanned, &off, &num, err)
		}
		if err == nil && len(b.Lines) > 0 && (len(b.buf) >= batchBytes || len(b.Lines) >= batchLines) {
			next := p.newBatch()
			next.buf = append(next.buf, b.buf[lineStart:]...)
			b.buf = b.buf[:lineStart]
			if !send(b) {
				return
			}
			b, lineStart = next, 0
		}
		if err == nil {
			continue
		}
		// The end, a torn tail, or a read error: the complete lines go first.
		rest := int64(len(long) + len(b.buf) - lineStart)
		b.buf = b.buf[:lineStart]
		if len(b.Lines) > 0 && !send(b) {
			return
		}
		switch {
		case err != io.EOF:
			p.readErr, p.readErrOff = err, off
		case rest > 0:
			p.tornOff, p.tornBytes = off, rest
		}
		return
	}
}

// cutLines adds to b the complete lines of b.buf from scanned on, and
// returns err.
func (p *Pipeline[E]) cutLines(b *Batch[E], lineStart *int, scanned int, off *int64, num *int, err error) error {
	for {
		i := bytes.IndexByte(b.buf[scanned:], '\n')
		if i < 0 {
			return err
		}
		end := scanned + i
		b.Lines = append(b.Lines, Line[E]{start: *lineStart, end: end, Size: end - *lineStart, Off: *off, Num: *num})
		*off += int64(end + 1 - *lineStart)
		*num++
		*lineStart, scanned = end+1, end+1
	}
}

// newLong is an empty long-line buffer of at least n bytes: the largest
// recycled one when there is one, so that lines of mixed lengths do not
// grow small buffers again and again.
func (p *Pipeline[E]) newLong(n int) []byte {
	p.longMu.Lock()
	defer p.longMu.Unlock()
	best := -1
	for k, buf := range p.longs {
		if best < 0 || cap(buf) > cap(p.longs[best]) {
			best = k
		}
	}
	if best >= 0 && cap(p.longs[best]) >= n {
		buf := p.longs[best]
		p.longs = slices.Delete(p.longs, best, best+1)
		return buf[:0]
	}
	return make([]byte, 0, n)
}

// growLong grows a long-line buffer by half.
func (p *Pipeline[E]) growLong(buf []byte) []byte {
	return append(make([]byte, 0, cap(buf)+cap(buf)/2), buf...)
}

// putLong recycles a long-line buffer: keptLongs are kept, the largest
// ones, each at most maxKeptLong bytes (one giant line must not pin its
// size for the whole scan).
func (p *Pipeline[E]) putLong(buf []byte) {
	if cap(buf) > maxKeptLong {
		return
	}
	p.longMu.Lock()
	defer p.longMu.Unlock()
	if len(p.longs) < keptLongs {
		p.longs = append(p.longs, buf[:0])
		return
	}
	small := 0
	for k := range p.longs {
		if cap(p.longs[k]) < cap(p.longs[small]) {
			small = k
		}
	}
	if cap(buf) > cap(p.longs[small]) {
		p.longs[small] = buf[:0]
	}
}

// decode decodes batches until the reader closes work. A batch stops at
// its first bad line: the caller stops there too.
func (p *Pipeline[E]) decode(sums bool) {
	defer p.wg.Done()
	d := &Decoder{}
	for b := range p.work {
		select {
		case <-p.quit:
		default:
			for k := range b.Lines {
				ln := &b.Lines[k]
				line := b.buf[ln.start:ln.end]
				if ln.Err = p.schema.Decode(d, line, &ln.Ev); ln.Err != nil {
					break
				}
				if sums {
					ln.Sum = SumLine(line)
				}
			}
		}
		close(b.done)
	}
}

// Next returns the next batch once decoded; nil when the reader is done
// (then Torn and ReadErr say how it stopped).
func (p *Pipeline[E]) Next() *Batch[E] {
	b, ok := <-p.ordered
	if !ok {
		return nil
	}
	<-b.done
	return b
}

// Release gives a batch's read-ahead back and recycles it (a long line's
// buffer as a long-line buffer): b, its lines and their bytes must not be
// used after.
func (p *Pipeline[E]) Release(b *Batch[E]) {
	for range b.tokens {
		<-p.budget
	}
	if cap(b.buf) != bufBytes {
		// A long line's batch: its buffer is recycled as a long one, and
		// the batch is not (it has no batch buffer to give).
		if b.buf != nil {
			p.putLong(b.buf)
		}
		return
	}
	select {
	case p.free <- b:
	default:
	}
}

// Stop ends the reader and the decoders and waits for them, so nothing
// reads the caller's reader after Stop returns. It must not wait for
// batches still queued: after quit, the reader's send of a batch may put
// it in ordered and, choosing quit over work, never hand it to a decoder.
// Every send selects on quit, so the reader returns (closing work, which
// ends the decoders) without anyone draining ordered.
func (p *Pipeline[E]) Stop() {
	close(p.quit)
	p.wg.Wait()
}

// Torn reports a torn tail: the bytes after the last '\n', which the
// reader met at the end of r, at offset off. Valid once Next has returned
// nil.
func (p *Pipeline[E]) Torn() (off, n int64, torn bool) {
	return p.tornOff, p.tornBytes, p.tornBytes > 0
}

// ReadErr is the read error that stopped the reader, if one did, and the
// offset of the line it was reading. Valid once Next has returned nil.
func (p *Pipeline[E]) ReadErr() (off int64, err error) { return p.readErrOff, p.readErr }

// LongLines is how many lines longer than a batch the pipeline decoded as
// it read them, and how many it read again whole (see longline.go), for
// the tests. Valid once Stop has returned.
func (p *Pipeline[E]) LongLines() (streamed, reread int) { return p.streamed, p.reread }
