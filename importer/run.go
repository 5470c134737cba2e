package importer

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"iter"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/graft-project/graft/index"
	"github.com/graft-project/graft/lockfile"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/vfs"
)

// Mapper turns the lines of one transcript format into session events. It
// must be deterministic: the same lines after the same state give the same
// events, which is how a run that stopped half-way is checked and resumed.
type Mapper interface {
	// Format names the transcript format: a host's name in the registry
	// (package hosts).
	Format() string
	// Settings are the options that shape the mapping; a re-import must use
	// the same ones (they are kept in the cursor).
	Settings() map[string]string
	// Map reads one complete line. An error aborts the import; a line that
	// cannot be read is reported with out.Malformed instead.
	Map(l Line, out *Output) error
	// SaveState and LoadState carry what Map remembers across lines (open
	// tool calls) from one run to the next, through the cursor.
	SaveState() (json.RawMessage, error)
	LoadState(json.RawMessage) error
}

// Holder is a Mapper that can hold a line's events until a later line
// decides what they are (Codex: a user message until the line that shows
// whether its twin follows). It emits them then with meta "line" set to
// the line they came from; what it holds is in its state. Held says what
// it holds, "" when nothing: a run that ends with something held says so
// in a warning.
type Holder interface {
	Held() string
}

// Line is one complete source line.
type Line struct {
	Num    int    // 1-based
	Offset int64  // byte offset of its first byte
	Bytes  []byte // without the '\n'; valid only during Map
}

// Options of one import run.
type Options struct {
	Store  *session.Store
	Home   string // graft home: the cursor lives in Home/imports/
	ID     string // target session
	Source string // transcript path
	// Progress, when set, is called with bytes read and the source size
	// about every MiB and once at the end.
	Progress func(read, total int64)
	// BatchBytes bounds the source bytes whose events are held in memory
	// before they are appended to an existing session (default
	// DefaultBatchBytes). A new session's are written to its
	// session.Writer after at most createBatchBytes, or BatchBytes when
	// it is smaller.
	BatchBytes int
	// LockWait bounds the wait for the session's lock before each append
	// (default DefaultLockWait).
	LockWait time.Duration
	// Ctx, when set, is checked about every MiB read; once it is done the
	// run stops with an error matching Ctx.Err(): the batch in hand is
	// dropped, an existing session keeps the batches appended (with the
	// cursor), and a session the run was creating is not created.
	Ctx context.Context
	// Others are the other hosts, by name and mapper: when a first import
	// is refused (Check), the one whose records the file holds is named in
	// the error.
	Others []Other
}

// DefaultBatchBytes is the default of Options.BatchBytes.
const DefaultBatchBytes = 8 << 20

// createBatchBytes bounds the source bytes whose events are held before
// they are written into a new session: its Writer streams them into a log
// that exists only once it is closed, so holding more buys nothing, and
// the events of 8 MiB of a transcript are MBs of memory (issue 25).
const createBatchBytes = 256 << 10

const progressEvery = 1 << 20

// Run imports the lines of o.Source that earlier runs did not consume into
// session o.ID, and records how far it got in the cursor (see doc.go).
func Run(o Options, m Mapper) (sum *Summary, err error) {
	if err := session.ValidID(o.ID); err != nil {
		return nil, err
	}
	// Before anything is written, not even the lock file: a first import
	// of a file that is not the host's writes nothing.
	if err := Check(o, m); err != nil {
		return nil, err
	}
	fsys := o.Store.FS
	dir := ImportsDir(o.Home)
	if err := vfs.MkdirAllDurable(fsys, dir, session.DirMode); err != nil {
		return nil, fmt.Errorf("importer: creating %s: %w", dir, err)
	}
	lock, err := lockfile.TryLockImport(o.Home, o.ID)
	if errors.Is(err, lockfile.ErrLocked) {
		return nil, fmt.Errorf("%w: %s (lock %s is held)", ErrBusy, o.ID, lockfile.ImportPath(o.Home, o.ID))
	}
	if err != nil {
		return nil, fmt.Errorf("importer: %w", err)
	}
	defer func() {
		if uerr := lock.Unlock(); uerr != nil && err == nil {
			err = fmt.Errorf("importer: %w", uerr)
		}
	}()
	if o.BatchBytes <= 0 {
		o.BatchBytes = DefaultBatchBytes
	}
	if o.LockWait <= 0 {
		o.LockWait = DefaultLockWait
	}
	r := &run{o: o, m: m, st: o.Store, verified: -1}
	return r.do()
}

type run struct {
	o   Options
	m   Mapper
	st  *session.Store
	sum *Summary

	src        string
	f          *os.File
	dev, ino   uint64
	h          hash.Hash
	pos        int64
	lines      int
	read       bool // a line with more than white space was consumed
	lastUUID   string
	lastSeq    int64
	pending    []session.Event
	pendBytes  int
	create     bool // the session did not exist: stream into a new log
	w          *session.Writer
	verify     *verifier
	lastReport int64
	lastCheck  int64
	// verified is the cursor's VerifiedOffset when the prefix hash was
	// resumed, -1 when this run read the transcript from byte 0.
	verified int64
	// cur is the cursor this run resumed from (nil: none).
	cur *Cursor
	// stateFile is the cursor's state file on disk, as this run read or
	// wrote it (nil: none, or not known).
	stateFile *StateFile
}

func (r *run) do() (_ *Summary, err error) {
	src, err := filepath.Abs(r.o.Source)
	if err != nil {
		return nil, fmt.Errorf("importer: resolving %s: %w", r.o.Source, err)
	}
	r.src = src
	r.sum = &Summary{Format: r.m.Format(), Session: r.o.ID, Source: src, Skipped: map[string]int{}}
	cur, err := LoadCursor(r.st.FS, r.o.Home, r.o.ID)
	switch {
	case errors.Is(err, ErrNoCursor):
		cur = nil
	case errors.Is(err, ErrCursorSum):
		// Damaged on the disk: what it says of the source and of the
		// mapper's state cannot be had again but from the source. The
		// session's events are checked against it.
		r.sum.warn("%v; the cursor is set aside: %s is read again from its first line and the session's events are checked against it", err, src)
		cur = nil
	case err != nil:
		return nil, err
	}
	if cur != nil {
		if cur.Format != r.m.Format() {
			return nil, fmt.Errorf("%w: session %s was imported from a %s transcript, not %s", ErrFormat, r.o.ID, cur.Format, r.m.Format())
		}
		if !maps.Equal(cur.Settings, r.m.Settings()) {
			return nil, fmt.Errorf("%w: session %s was imported with %v, this run asks for %v; re-import with the same options or into a new session id", ErrSettings, r.o.ID, cur.Settings, r.m.Settings())
		}
	}
	if cur != nil && cur.StateFile != nil {
		data, err := readStateFile(r.st.FS, r.o.Home, cur)
		switch {
		case errors.Is(err, ErrStateFile):
			// A crash between the state file and its cursor, or a file
			// changed by hand: the state can be had again only from the
			// source. The session's events are checked against it.
			r.sum.warn("%v; the cursor is set aside: %s is read again from its first line and the session's events are checked against it", err, src)
			cur = nil
		case err != nil:
			return nil, err
		default:
			cur.binState = data
			r.stateFile = cur.StateFile
		}
	}
	r.cur = cur
	if err := r.openSource(cur); err != nil {
		return nil, err
	}
	// Read-only, so a failed close loses nothing; it is still reported.
	defer func() {
		if cerr := r.f.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("importer: closing source %s: %w", r.src, cerr)
		}
	}()
	if err := r.openSession(cur); err != nil {
		return nil, err
	}
	if r.verify != nil {
		defer r.verify.stop()
	}
	r.sum.FromLine = r.lines + 1
	if err := r.consume(); err != nil {
		return r.sum, r.abort(err)
	}
	if h, ok := r.m.(Holder); ok {
		if held := h.Held(); held != "" {
			r.sum.warn("%s", held)
		}
	}
	if r.verify != nil {
		r.skipMarks()
		// A scan that failed ends the walk early: that is a read error, not
		// events the source does not produce.
		if r.verify.err != nil {
			return r.sum, r.abort(fmt.Errorf("importer: reading session %s to check it against the source: %w", r.o.ID, r.verify.err))
		}
	}
	if r.verify != nil && r.verify.left > 0 {
		return r.sum, r.abort(fmt.Errorf("%w: session %s holds %d event(s) after seq %d that %s (through line %d) does not produce", ErrSessionDiverged, r.o.ID, r.verify.left, r.lastSeq, r.src, r.lines))
	}
	if err := r.flush(); err != nil {
		return r.sum, r.abort(err)
	}
	if r.w != nil {
		w := r.w
		r.w = nil
		// Not durable until closed, and no cursor covers it yet: a failed
		// close keeps none of it.
		if err := w.CloseOrRemove(); err != nil {
			r.sum.LastSeq, r.sum.Appended, r.sum.FirstSeq = 0, 0, 0
			return r.sum, fmt.Errorf("importer: closing session %s: %w", r.o.ID, err)
		}
	}
	// A first run that read no record (the file empty, blank or its
	// first line unfinished: a host still writing) keeps no cursor: it
	// accepted nothing, and the next run, a first import again, checks
	// the lines the file has by then (Check).
	if !r.unchanged() && (r.cur != nil || r.read || r.sum.Appended > 0) {
		if err := r.saveCursor(); err != nil {
			return r.sum, err
		}
	}
	r.sum.ToLine, r.sum.Offset, r.sum.LastSeq = r.lines, r.pos, r.lastSeq
	if r.o.Progress != nil {
		r.o.Progress(r.pos, r.sizeNow())
	}
	if len(r.sum.Skipped) == 0 {
		r.sum.Skipped = nil
	}
	return r.sum, nil
}

// abort ends a failed run; the cursor is not moved. A session this run
// was creating is removed (session.Writer.Abort): no cursor covers any of
// it, so nothing of it is kept, and the next run imports the transcript
// afresh. Appends to an existing session are all or nothing per batch
// (session.Store.Append), so a failed batch left nothing of itself.
func (r *run) abort(err error) error {
	r.sum.ToLine, r.sum.Offset, r.sum.LastSeq = r.lines, r.pos, r.lastSeq
	if r.w != nil {
		w := r.w
		r.w = nil
		r.sum.LastSeq, r.sum.Appended, r.sum.FirstSeq = 0, 0, 0
		if aerr := w.Abort(); aerr != nil {
			return fmt.Errorf("%w; removing the partial session %s also failed: %v", err, r.o.ID, aerr)
		}
	}
	return err
}

// openSource opens the transcript and, when a cursor exists, proves that
// the part already imported is byte for byte what it was.
func (r *run) openSource(cur *Cursor) error {
	f, err := openRegular(r.src)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err != nil {
		return vfs.CloseAfter(f, fmt.Errorf("importer: stat %s: %w", r.src, err))
	}
	if !fi.Mode().IsRegular() {
		return vfs.CloseAfter(f, fmt.Errorf("%w: %s (%s)", ErrNotRegular, r.src, fi.Mode().Type()))
	}
	r.f = f
	dev, ino, ok := index.FileIdentity(fi)
	if !ok {
		return vfs.CloseAfter(f, fmt.Errorf("importer: %s: no device and inode on this system (%T)", r.src, fi.Sys()))
	}
	r.dev, r.ino = dev, ino
	r.h = sha256.New()
	if cur == nil {
		return nil
	}
	r.sum.Resumed = true
	if fi.Size() < cur.Offset {
		return vfs.CloseAfter(f, fmt.Errorf("%w: %s is %d bytes, but %d bytes (%d lines) of it were imported into %s; nothing was appended", ErrSourceShortened, r.src, fi.Size(), cur.Offset, cur.Lines, r.o.ID))
	}
	resumed, err := r.resumeHash(f, cur)
	if err != nil {
		return vfs.CloseAfter(f, err)
	}
	if resumed {
		if err := cur.RestoreState(r.st.FS, r.o.Home, r.m); err != nil {
			return vfs.CloseAfter(f, err)
		}
		r.pos, r.lines, r.lastUUID = cur.Offset, cur.Lines, cur.LastUUID
		return nil
	}
	n, err := io.CopyN(r.h, f, cur.Offset)
	if errors.Is(err, io.EOF) {
		return vfs.CloseAfter(f, fmt.Errorf("%w: %s ended after %d bytes while reading the %d bytes already imported into %s; nothing was appended", ErrSourceShortened, r.src, n, cur.Offset, r.o.ID))
	}
	if err != nil {
		return vfs.CloseAfter(f, fmt.Errorf("importer: reading %s: %w", r.src, err))
	}
	if got := hex.EncodeToString(r.h.Sum(nil)); got != cur.PrefixSHA256 {
		return vfs.CloseAfter(f, fmt.Errorf("%w: the first %d bytes (%d lines) of %s were imported into %s with sha256 %s, now they hash to %s; nothing was appended", ErrSourceRewritten, cur.Offset, cur.Lines, r.src, r.o.ID, cur.PrefixSHA256, got))
	}
	if cur.Source != r.src || cur.Device != r.dev || cur.Inode != r.ino {
		r.sum.warn("source identity changed since the last import (%s dev %d inode %d, now %s dev %d inode %d); its first %d bytes are unchanged, continuing", cur.Source, cur.Device, cur.Inode, r.src, r.dev, r.ino, cur.Offset)
	}
	if err := cur.RestoreState(r.st.FS, r.o.Home, r.m); err != nil {
		return vfs.CloseAfter(f, err)
	}
	r.pos, r.lines, r.lastUUID = cur.Offset, cur.Lines, cur.LastUUID
	return nil
}

// resumeHash restores the prefix hash from the cursor instead of reading
// [0, offset) again, when the file is the one the cursor saw (device and
// inode) and its last TailCheckBytes before offset are unchanged; it leaves
// f positioned at offset. false: the caller reads the whole prefix.
func (r *run) resumeHash(f *os.File, cur *Cursor) (bool, error) {
	if cur.Offset < FullCheckBelow || cur.Offset > 2*cur.VerifiedOffset ||
		len(cur.HashState) == 0 || cur.TailSHA256 == "" || cur.Device != r.dev || cur.Inode != r.ino || cur.Source != r.src {
		return false, nil
	}
	tail, err := tailSum(f, cur.Offset)
	if err != nil {
		return false, fmt.Errorf("importer: reading %s: %w", r.src, err)
	}
	if tail != cur.TailSHA256 {
		return false, nil // read it all: the prefix check names what changed
	}
	h := sha256.New()
	if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(cur.HashState); err != nil {
		return false, nil // an unreadable state is only a lost shortcut
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != cur.PrefixSHA256 {
		return false, nil
	}
	if _, err := f.Seek(cur.Offset, io.SeekStart); err != nil {
		return false, fmt.Errorf("importer: seeking %s: %w", r.src, err)
	}
	r.h, r.verified = h, cur.VerifiedOffset
	r.sum.PrefixCheck = "resumed"
	return true, nil
}

// tailSum is the hex SHA-256 of the TailCheckBytes before off (fewer at the
// start of a file).
func tailSum(f io.ReaderAt, off int64) (string, error) {
	from := max(off-TailCheckBytes, 0)
	buf := make([]byte, off-from)
	if _, err := f.ReadAt(buf, from); err != nil {
		return "", err
	}
	sum := sha256.Sum256(buf)
	return hex.EncodeToString(sum[:]), nil
}

// hashMarks are the cursor's shortcut for the next run (Cursor.HashState).
func hashMarks(h hash.Hash, f io.ReaderAt, off int64) (state []byte, tail string, err error) {
	m, ok := h.(encoding.BinaryMarshaler)
	if !ok {
		return nil, "", nil
	}
	if state, err = m.MarshalBinary(); err != nil {
		return nil, "", err
	}
	if tail, err = tailSum(f, off); err != nil {
		return nil, "", err
	}
	return state, tail, nil
}

// openRegular opens a transcript for reading, refusing anything but a
// regular file (ErrNotRegular) before it can block: a FIFO's open waits for
// a writer, its read for data. It looks first (stat follows a symlink to
// its file) and then opens without blocking (O_NONBLOCK, which changes
// nothing for a regular file); the caller checks the open file again.
func openRegular(path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("importer: opening source: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s (%s)", ErrNotRegular, path, fi.Mode().Type())
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("importer: opening source: %w", err)
	}
	return f, nil
}

// openSession compares the session with the cursor. Events past the
// cursor's seq come from a run that stopped before saving its cursor: they
// are checked one by one against what the source produces again.
func (r *run) openSession(cur *Cursor) error {
	var want int64
	if cur != nil {
		want = cur.LastSeq
	}
	exists, err := r.st.Exists(r.o.ID)
	if err != nil {
		return err
	}
	if !exists {
		if want > 0 {
			return fmt.Errorf("%w: %s had %d events; remove %s to import it afresh", ErrSessionGone, r.o.ID, want, CursorPath(r.o.Home, r.o.ID))
		}
		r.create = true
		return nil
	}
	info, err := r.st.Info(r.o.ID)
	if err != nil {
		return err
	}
	switch {
	case info.LastSeq < want:
		return fmt.Errorf("%w: %s ends at seq %d, the cursor %s recorded seq %d", ErrSessionShort, r.o.ID, info.LastSeq, CursorPath(r.o.Home, r.o.ID), want)
	case info.LastSeq > want:
		if cur == nil {
			r.sum.warn("session %s exists with no import cursor: its %d event(s) are checked against the source before anything is appended", r.o.ID, info.LastSeq)
		}
		r.verify = newVerifier(r.st, r.o.ID, want, info.LastSeq-want)
	}
	r.lastSeq = want
	return nil
}

func (r *run) consume() error {
	lr := session.NewLineReader(r.f, r.pos, r.lines+1)
	var out Output
	nl := []byte{'\n'}
	for {
		line, off, num, err := lr.Next()
		if err == io.EOF {
			return nil
		}
		var torn *session.TornTailError
		if errors.As(err, &torn) {
			t := torn.Torn
			r.sum.PendingTail = &t
			return nil
		}
		if err != nil {
			return fmt.Errorf("importer: reading %s at byte offset %d (line %d): %w", r.src, off, num, err)
		}
		r.h.Write(line)
		r.h.Write(nl)
		out.reset()
		if err := r.m.Map(Line{Num: num, Offset: off, Bytes: line}, &out); err != nil {
			return fmt.Errorf("importer: %s line %d: %w", r.src, num, err)
		}
		if err := r.take(&out, num, off, len(line)); err != nil {
			return err
		}
		r.pos, r.lines = lr.Offset(), num
		r.read = r.read || len(bytes.TrimSpace(line)) > 0
		if out.uuid != "" {
			r.lastUUID = out.uuid
		}
		if r.pendBytes >= r.o.BatchBytes || r.create && r.pendBytes >= createBatchBytes {
			if err := r.flush(); err != nil {
				return err
			}
		}
		if r.o.Ctx != nil && r.pos-r.lastCheck >= progressEvery {
			r.lastCheck = r.pos
			if err := r.o.Ctx.Err(); err != nil {
				if cause := context.Cause(r.o.Ctx); cause != nil && cause != err {
					return fmt.Errorf("importer: %s cancelled at byte offset %d (%v; what was appended before stays, the next run goes on from there): %w", r.src, r.pos, cause, err)
				}
				return fmt.Errorf("importer: %s cancelled at byte offset %d (what was appended before stays, the next run goes on from there): %w", r.src, r.pos, err)
			}
		}
		if r.o.Progress != nil && r.pos-r.lastReport >= progressEvery {
			r.lastReport = r.pos
			r.o.Progress(r.pos, r.sizeNow())
		}
	}
}

// take accounts one line's output and queues its events (or checks them
// against the session when resuming).
func (r *run) take(out *Output, num int, off int64, size int) error {
	for _, s := range out.skipped {
		r.sum.Skipped[s]++
	}
	for _, w := range out.warnings {
		r.sum.warn("line %d: %s", num, w)
	}
	if out.malformed != nil {
		r.sum.malformed(Malformed{Line: num, Offset: off, Error: out.malformed.Error()})
		return nil
	}
	for _, ev := range out.events {
		// A mapper keeps a source time it cannot read in meta "timestamp"
		// and leaves ts to the store: the time is then the import's, say so.
		if raw := ev.Meta["timestamp"]; ev.TS == "" && raw != "" {
			r.sum.warn("line %d: timestamp %q is not RFC 3339: kept in meta \"timestamp\", the line's events are stamped with the time they are written", num, raw)
			break
		}
	}
	line := strconv.Itoa(num)
	for _, ev := range out.events {
		meta := make(map[string]string, len(ev.Meta)+1)
		maps.Copy(meta, ev.Meta)
		if meta["line"] == "" {
			// A mapper that held a line's events until a later line
			// (Holder) names the line they came from itself.
			meta["line"] = line
		}
		ev.Meta = meta
		r.sum.Counts.add(&ev)
		if r.verify != nil {
			r.skipMarks()
		}
		if r.verify != nil && r.verify.left > 0 {
			if err := r.verify.check(ev, r.lastSeq+1, num); err != nil {
				return err
			}
			r.lastSeq++
			r.sum.Verified++
			continue
		}
		r.pending = append(r.pending, ev)
	}
	if len(out.events) > 0 {
		r.pendBytes += size
	}
	return nil
}

// skipMarks moves lastSeq past graft/* marks the verifier steps over.
func (r *run) skipMarks() {
	if n, last := r.verify.skipMarks(); n > 0 {
		r.lastSeq = last
		r.sum.GraftMarks += n
	}
}

// flush appends the queued events. Seqs are set explicitly so that an
// append by anyone else in between is refused by the store, not interleaved.
func (r *run) flush() error {
	if len(r.pending) == 0 {
		return nil
	}
	for k := range r.pending {
		r.pending[k].Seq = r.lastSeq + int64(k) + 1
	}
	if r.create {
		if r.w == nil {
			w, err := r.st.CreateWriter(r.o.ID)
			if err != nil {
				return fmt.Errorf("importer: creating session %s: %w", r.o.ID, err)
			}
			r.w = w
		}
		for k := range r.pending {
			if err := r.w.Write(&r.pending[k]); err != nil {
				return fmt.Errorf("importer: writing session %s: %w", r.o.ID, err)
			}
		}
	} else if err := r.appendLocked(); err != nil {
		return err
	}
	if r.sum.FirstSeq == 0 {
		r.sum.FirstSeq = r.pending[0].Seq
	}
	r.lastSeq = r.pending[len(r.pending)-1].Seq
	r.sum.Appended += len(r.pending)
	clear(r.pending) // what the array holds past its length would stay alive
	r.pending = r.pending[:0]
	r.pendBytes = 0
	if r.create {
		// A new log is durable only when the writer closes: the cursor
		// follows it then, never before.
		return nil
	}
	return r.saveCursor()
}

// DefaultLockWait is the default of Options.LockWait: a commit or revert
// holds the session's lock for a short critical section.
const DefaultLockWait = 10 * time.Second

// appendLocked appends the batch under the session's lock (Store.LockSession), so it
// never lands in the middle of a graft of that session.
func (r *run) appendLocked() error {
	l, err := r.st.LockSession(r.o.ID, r.o.LockWait)
	if err != nil {
		return fmt.Errorf("importer: appending to session %s: %w (waited %v)", r.o.ID, err, r.o.LockWait)
	}
	_, err = r.st.Append(r.o.ID, r.pending)
	if uerr := l.Unlock(); uerr != nil && err == nil {
		return fmt.Errorf("importer: appending to session %s: %w", r.o.ID, uerr)
	}
	if err != nil {
		return fmt.Errorf("importer: appending to session %s: %w", r.o.ID, err)
	}
	return nil
}

// unchanged: the run read nothing past the cursor it resumed from, of the
// same file, stepped over no graft mark of the session and verified no
// more of it: the cursor it would save says
// what the saved one says (a hook on every turn of an idle session writes
// nothing).
func (r *run) unchanged() bool {
	c := r.cur
	if c == nil || r.pos != c.Offset || r.lines != c.Lines || r.lastSeq != c.LastSeq || r.sum.Appended != 0 || r.sum.Verified != 0 || r.sum.GraftMarks != 0 ||
		c.Source != r.src || c.Device != r.dev || c.Inode != r.ino {
		return false
	}
	verified := r.verified
	if verified < 0 {
		verified = r.pos
	}
	return verified == c.VerifiedOffset
}

func (r *run) saveCursor() error {
	state, bin, err := saveState(r.m)
	if err != nil {
		return fmt.Errorf("importer: saving %s importer state of %s: %w", r.m.Format(), r.o.ID, err)
	}
	hashState, tail, err := hashMarks(r.h, r.f, r.pos)
	if err != nil {
		return fmt.Errorf("importer: reading %s for the cursor of %s: %w", r.src, r.o.ID, err)
	}
	verified := r.verified
	if verified < 0 {
		verified = r.pos // this run read every byte from the first
	}
	c := &Cursor{
		HashState:      hashState,
		TailSHA256:     tail,
		VerifiedOffset: verified,
		Format:         r.m.Format(),
		Session:        r.o.ID,
		Source:         r.src,
		Device:         r.dev,
		Inode:          r.ino,
		Size:           r.sizeNow(),
		Offset:         r.pos,
		Lines:          r.lines,
		LastUUID:       r.lastUUID,
		PrefixSHA256:   hex.EncodeToString(r.h.Sum(nil)),
		LastSeq:        r.lastSeq,
		Settings:       r.m.Settings(),
		State:          state,
		binState:       bin,
		Updated:        r.st.Now().UTC().Format(time.RFC3339Nano),
	}
	if err := saveCursor(r.st.FS, r.o.Home, c, r.stateFile); err != nil {
		r.stateFile = nil // which of the two is on disk is not known
		return err
	}
	r.stateFile = c.StateFile
	return nil
}

// saveState is m's state: its binary form (BinaryState), or its JSON.
func saveState(m Mapper) (json.RawMessage, []byte, error) {
	if bm, ok := m.(BinaryState); ok {
		bin, err := bm.AppendBinaryState(nil)
		if err == nil && bin == nil {
			bin = []byte{}
		}
		return nil, bin, err
	}
	state, err := m.SaveState()
	return state, nil, err
}

func (r *run) sizeNow() int64 {
	fi, err := r.f.Stat()
	if err != nil || fi.Size() < r.pos {
		// The size is informative (progress, cursor); the offset is what
		// the next run checks, so the consumed offset is the floor.
		return r.pos
	}
	return fi.Size()
}

var errStopScan = errors.New("importer: scan stopped")

// verifier walks the session's events after a seq, in step with the events
// the source produces again. graft/* marks (a graft or revert of the
// session) are graft's own, never an importer's: they are stepped over.
type verifier struct {
	next   func() (session.Event, bool)
	stop   func()
	left   int64
	err    error
	peeked *session.Event
}

func newVerifier(st *session.Store, id string, after, count int64) *verifier {
	v := &verifier{left: count}
	seq := func(yield func(session.Event) bool) {
		_, err := st.Scan(id, session.ScanFrom{}, func(ev *session.Event, _ []byte, _ int64) error {
			if ev.Seq <= after {
				return nil
			}
			if !yield(*ev) {
				return errStopScan
			}
			return nil
		})
		if err != nil && !errors.Is(err, errStopScan) {
			v.err = err
		}
	}
	v.next, v.stop = iter.Pull(seq)
	return v
}

func (v *verifier) pull() (session.Event, bool) {
	if v.peeked != nil {
		ev := *v.peeked
		v.peeked = nil
		return ev, true
	}
	return v.next()
}

// skipMarks steps over the graft/* marks at the head: how many, and the
// seq of the last one.
func (v *verifier) skipMarks() (n int, last int64) {
	for v.left > 0 {
		ev, ok := v.pull()
		if !ok {
			return n, last
		}
		if !ev.IsGraft() {
			v.peeked = &ev
			return n, last
		}
		n, last = n+1, ev.Seq
		v.left--
	}
	return n, last
}

func (v *verifier) check(ev session.Event, seq int64, line int) error {
	have, ok := v.pull()
	if !ok {
		if v.err != nil {
			return fmt.Errorf("importer: reading the session to check it against the source: %w", v.err)
		}
		return fmt.Errorf("%w: the session ended at seq %d while %d more event(s) were expected", ErrSessionDiverged, seq-1, v.left)
	}
	same, err := sameEvent(have, ev)
	if err != nil {
		return err
	}
	if !same {
		return fmt.Errorf("%w: seq %d is a %s event (%s), but source line %d produces a %s event (%s) there; re-import into a new session id", ErrSessionDiverged, have.Seq, have.Type, have.Source.Kind, line, ev.Type, ev.Source.Kind)
	}
	v.left--
	return nil
}

// sameEvent compares everything but seq and ts (a source line without a
// time is stamped when it is written).
func sameEvent(a, b session.Event) (bool, error) {
	a.Seq, b.Seq, a.TS, b.TS = 0, 0, "", ""
	ab, err := session.Encode(&a)
	if err != nil {
		return false, err
	}
	bb, err := session.Encode(&b)
	if err != nil {
		return false, err
	}
	return bytes.Equal(ab, bb), nil
}

// FileOptions are the options of a host package's Import of one transcript
// (codex, gemini, qwen: each names them Options).
type FileOptions struct {
	Store *session.Store
	Home  string
	// Path is the host's transcript.
	Path string
	// ID is the session to import into; "": DefaultID(Path).
	ID           string
	KeepThinking bool
	// Progress, when set, is called with bytes read and the file's size.
	Progress func(read, total int64)
	// Ctx, when set, cancels the import (Options.Ctx).
	Ctx context.Context
	// LockWait bounds each wait for the session's lock (Options.LockWait).
	LockWait time.Duration
	// Others are the other hosts (Options.Others).
	Others []Other
}

// RunFile imports the transcript at o.Path with m into session o.ID
// (DefaultID(o.Path) when empty), incrementally (Run).
func RunFile(o FileOptions, m Mapper) (*Summary, error) {
	id := o.ID
	if id == "" {
		var err error
		if id, err = DefaultID(o.Path); err != nil {
			return nil, err
		}
	}
	return Run(Options{Store: o.Store, Home: o.Home, ID: id, Source: o.Path, Progress: o.Progress, Ctx: o.Ctx, LockWait: o.LockWait, Others: o.Others}, m)
}
