package session

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/graft-project/graft/lockfile"
	"github.com/graft-project/graft/vfs"
)

const (
	// FileMode and DirMode are the permissions of session files and of the
	// data directories.
	FileMode os.FileMode = 0o600
	DirMode  os.FileMode = 0o700
	// Ext is the extension of a session log.
	Ext = ".jsonl"
)

// Store is the sessions/ directory of a graft home.
type Store struct {
	FS   vfs.FS
	home string
	dir  string
	// Now stamps events appended without a ts; tests pin it.
	Now func() time.Time
	// LockWait bounds the wait of a creator for the session's lock
	// (DefaultLockWait when zero).
	LockWait time.Duration
	// Locker, when set, takes a session's lock instead of the flock of
	// home/locks/<id>.lock: an etcd store's lease-bound lock
	// (package etcdstore), so every writer of a log on any machine holds
	// the same lock as a graft of it.
	Locker func(id string, wait time.Duration) (Unlocker, error)
}

// DefaultLockWait is how long a creator waits for a session's lock: a
// commit or revert holds it for a short critical section.
const DefaultLockWait = 10 * time.Second

const lockPoll = 20 * time.Millisecond

// OpenStore opens (creating if needed, mode 0700) home/sessions.
func OpenStore(fsys vfs.FS, home string) (*Store, error) {
	dir := filepath.Join(home, "sessions")
	if err := vfs.MkdirAllDurable(fsys, dir, DirMode); err != nil {
		return nil, fmt.Errorf("session: creating %s: %w", dir, err)
	}
	return &Store{FS: fsys, home: home, dir: dir, Now: time.Now}, nil
}

// lockSession takes the session's lock, home/locks/<id>.lock (package
// lockfile), waiting up to LockWait; a lock still held then is an error
// wrapping lockfile.ErrLocked. Every creator of a log holds it while it
// creates and writes the log: a graft transaction holds the lock of its
// target, so a log is never created under a commit into the same id (whose
// roll-back could take it for its own shell), and the recovery scan leaves
// a log being created alone.
func (s *Store) lockSession(id string) (Unlocker, error) {
	wait := s.LockWait
	if wait <= 0 {
		wait = DefaultLockWait
	}
	l, err := s.LockSession(id, wait)
	if err != nil {
		return nil, fmt.Errorf("session: creating %s: %w (waited %v)", id, err, wait)
	}
	return l, nil
}

// Unlocker releases a session's lock.
type Unlocker interface{ Unlock() error }

// LockSession takes the lock of session id, waiting up to wait: Locker's,
// or the flock of home/locks/<id>.lock. Still held then, it is an error
// wrapping the locker's "locked" error (lockfile.ErrLocked on the file
// store).
func (s *Store) LockSession(id string, wait time.Duration) (Unlocker, error) {
	if s.Locker != nil {
		return s.Locker(id, wait)
	}
	return lockfile.WaitLock(s.home, id, wait, lockPoll)
}

// unlockAfter releases l, the lock of id, after err, keeping both errors.
func unlockAfter(l Unlocker, id string, err error) error {
	if uerr := l.Unlock(); uerr != nil {
		return errors.Join(err, fmt.Errorf("session: releasing the lock of %s: %w", id, uerr))
	}
	return err
}

// Dir is the sessions directory.
func (s *Store) Dir() string { return s.dir }

// Path is the log file of id; id must be valid.
func (s *Store) Path(id string) string { return filepath.Join(s.dir, id+Ext) }

func translate(path string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: %s", ErrNotFound, path)
	case errors.Is(err, syscall.ELOOP):
		return fmt.Errorf("%w: %s", ErrSymlink, path)
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("%w: %s", ErrExists, path)
	}
	return err
}

// Exists reports whether id has a log file.
func (s *Store) Exists(id string) (bool, error) {
	if err := ValidID(id); err != nil {
		return false, err
	}
	fi, err := s.FS.Lstat(s.Path(id))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !fi.Mode().IsRegular() {
		return true, fmt.Errorf("%w: %s", ErrSymlink, s.Path(id))
	}
	return true, nil
}

// List returns the ids of the sessions in the store, sorted.
func (s *Store) List() ([]string, error) {
	ids, _, err := s.ListAll()
	return ids, err
}

// ListAll is List, and the strays beside: the files in the sessions
// directory that look like logs (name ending in .jsonl, not hidden) but
// whose name is no valid session id, so that List, and every command,
// passes them over; status names them rather than let a log placed by
// hand go unseen. One read of the directory.
func (s *Store) ListAll() (ids, strays []string, err error) {
	ents, err := s.FS.ReadDir(s.dir)
	if err != nil {
		return nil, nil, fmt.Errorf("session: listing %s: %w", s.dir, err)
	}
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, Ext) || strings.HasPrefix(name, ".") {
			continue
		}
		if id := strings.TrimSuffix(name, Ext); ValidID(id) == nil {
			ids = append(ids, id)
		} else {
			strays = append(strays, name)
		}
	}
	sort.Strings(ids)
	sort.Strings(strays)
	return ids, strays, nil
}

// Scan streams the events of id from the given position (zero: the start).
func (s *Store) Scan(id string, from ScanFrom, fn func(ev *Event, raw []byte, off int64) error) (ScanResult, error) {
	return s.scanWith(Scan, id, from, fn)
}

// ScanFold is Scan through ScanFold: successful tool outputs are validated
// but not built. For folds that never read them.
func (s *Store) ScanFold(id string, from ScanFrom, fn func(ev *Event, raw []byte, off int64) error) (ScanResult, error) {
	return s.scanWith(ScanFold, id, from, fn)
}

type scanner func(r io.Reader, path string, from ScanFrom, fn func(ev *Event, raw []byte, off int64) error) (ScanResult, error)

func (s *Store) scanWith(scan scanner, id string, from ScanFrom, fn func(ev *Event, raw []byte, off int64) error) (ScanResult, error) {
	if err := ValidID(id); err != nil {
		return ScanResult{}, err
	}
	path := s.Path(id)
	if err := s.regularPath(path); err != nil {
		return ScanResult{}, err
	}
	f, err := s.FS.Open(path)
	if err != nil {
		return ScanResult{}, translate(path, err)
	}
	if err := regular(f); err != nil {
		return ScanResult{}, vfs.CloseAfter(f, err)
	}
	res, err := scan(readerFrom(f, from.Offset), path, from, fn)
	if err != nil {
		return res, vfs.CloseAfter(f, err)
	}
	if err := f.Close(); err != nil {
		return res, fmt.Errorf("session: closing %s: %w", path, err)
	}
	return res, nil
}

// regularPath refuses a path that is not a regular file before it is
// opened: opening a planted FIFO blocks until the other end comes. The check
// after the open (regular) still decides; this one only avoids the hang.
func (s *Store) regularPath(path string) error {
	fi, err := s.FS.Lstat(path)
	if err != nil {
		return translate(path, err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%w: %s", ErrSymlink, path)
	}
	return nil
}

func regular(f vfs.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%w: %s", ErrSymlink, f.Name())
	}
	return nil
}

type offsetReader struct {
	f   vfs.File
	off int64
}

func (r *offsetReader) Read(p []byte) (int, error) {
	n, err := r.f.ReadAt(p, r.off)
	r.off += int64(n)
	if err != nil && n > 0 && errors.Is(err, errEOF) {
		err = nil
	}
	return n, err
}

func readerFrom(f vfs.File, off int64) io.Reader {
	if off == 0 {
		return f
	}
	return &offsetReader{f: f, off: off}
}

// Info folds the log of id: from its state checkpoint (checkpoint.go) when
// one is valid, so that its cost follows what was appended since, else
// from the start; it writes a new checkpoint after CheckpointEvery bytes.
// The state fold reads no tool output, so it goes through ScanFold.
func (s *Store) Info(id string) (*Info, error) {
	if err := ValidID(id); err != nil {
		return nil, err
	}
	path := s.Path(id)
	if err := s.regularPath(path); err != nil {
		return nil, err
	}
	f, err := s.FS.Open(path)
	if err != nil {
		return nil, translate(path, err)
	}
	info, err := s.infoOf(id, path, f)
	if err != nil {
		return nil, vfs.CloseAfter(f, err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("session: closing %s: %w", path, err)
	}
	return info, nil
}

func (s *Store) infoOf(id, path string, f vfs.File) (*Info, error) {
	if err := regular(f); err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("session: stat %s: %w", path, err)
	}
	dev, ino, haveIdentity := fileIdentity(fi)
	var info *Info
	var from ScanFrom
	var reason string
	if haveIdentity {
		if info, from, reason, err = s.resumeInfo(id, f, dev, ino, fi.Size()); err != nil {
			return nil, err
		}
	}
	if info == nil {
		info, from = &Info{ID: id}, ScanFrom{}
	}
	if reason != "" {
		info.checkpointErr = fmt.Errorf("session: the state checkpoint of %s was not used (%s): the whole log was folded", id, reason)
	}
	prev := info.Events
	res, err := ScanFold(readerFrom(f, from.Offset), path, from, func(ev *Event, _ []byte, _ int64) error {
		info.Add(ev)
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.Events += prev
	info.ScanResult = res
	if haveIdentity && res.End-from.Offset >= CheckpointEvery {
		// One line per event: the next line's number follows from the
		// events read since from.
		line := max(from.Line, 1) + int(res.LastSeq+1-max(from.NextSeq, 1))
		if err := s.saveCheckpoint(info, f, dev, ino, line); err != nil {
			info.checkpointErr = errors.Join(info.checkpointErr, err)
		}
	}
	return info, nil
}

// ReadAll returns every event of id. For small logs and tests.
func (s *Store) ReadAll(id string) ([]Event, ScanResult, error) {
	var evs []Event
	res, err := s.Scan(id, ScanFrom{}, func(ev *Event, _ []byte, _ int64) error {
		evs = append(evs, *ev)
		return nil
	})
	return evs, res, err
}

// Check refuses to resume a session that must not grow: retired (names the
// live target), abandoned, or a graft target whose commit point is not in its
// parent's log — judged from the parent, so it holds before recovery ran.
// The commit point must name this session: a copy of a target's log holds
// the target's graft/origin, but its parent retired into the target.
func (s *Store) Check(info *Info) error {
	if info.Abandoned != nil {
		use := info.Abandoned.Target
		if use == "" && info.Origin != nil {
			use = info.Origin.Parent
		}
		return &AbandonedError{ID: info.ID, Reason: info.Abandoned.Reason, Use: use}
	}
	if g, ok := info.Live(); ok {
		return &RetiredError{ID: info.ID, Target: g.Target}
	}
	if info.Origin != nil {
		parent, err := s.Info(info.Origin.Parent)
		if err != nil {
			return fmt.Errorf("session: %s: checking commit point in parent %s: %w", info.ID, info.Origin.Parent, err)
		}
		if !parent.Committed(info.Origin.Txn, info.ID) {
			e := &UncommittedError{ID: info.ID, Txn: info.Origin.Txn, Parent: info.Origin.Parent, Use: info.Origin.Parent}
			if into, ok := parent.RetiredInto(info.Origin.Txn); ok && into != info.ID {
				e.Into = into
				if parent.Committed(info.Origin.Txn, into) {
					e.Use = into
				}
			}
			return e
		}
	}
	return nil
}

// Append adds events to id, creating the log when it does not exist. The
// caller holds the session's lock (locks/<id>.lock: graft.Service.Append
// and the importer take it), so an append never lands inside a graft
// transaction of the session and a log it creates is never created under
// a commit into that id. Events
// without seq get the next ones and events without ts get Now; a given seq
// must be the next one. A torn tail is repaired first (RepairTail). Retired,
// abandoned and uncommitted sessions are refused (Check), except that a
// retired session accepts the results of tool calls that were open at its
// commit point (the self-graft epilogue). graft/* events are refused here:
// they are written by the transaction through AppendMark.
func (s *Store) Append(id string, evs []Event) ([]Event, error) {
	for k := range evs {
		if evs[k].IsGraft() {
			return nil, fmt.Errorf("%w: %s events are written by graft itself, not appended", ErrBadEvent, evs[k].Type)
		}
	}
	return s.appendChecked(id, evs, false, nil)
}

// AppendMark appends one graft/* mark, bypassing the state rules (a target
// is marked abandoned, a retired source gets graft/unretired), and fsyncs.
func (s *Store) AppendMark(id string, ev Event) (Event, error) {
	if !ev.IsGraft() {
		return Event{}, fmt.Errorf("%w: AppendMark takes graft/* events, not %s", ErrBadEvent, ev.Type)
	}
	out, err := s.appendChecked(id, []Event{ev}, true, nil)
	if err != nil {
		return Event{}, err
	}
	return out[0], nil
}

// AppendMarkAfter is AppendMark on condition that the log still ends where
// after (a scan the caller decided from) ended: same last seq, same end
// offset, checked under the append lock. Otherwise it writes nothing and
// returns an error matching ErrChanged. A torn tail is still repaired.
func (s *Store) AppendMarkAfter(id string, ev Event, after ScanResult) (Event, error) {
	if !ev.IsGraft() {
		return Event{}, fmt.Errorf("%w: AppendMarkAfter takes graft/* events, not %s", ErrBadEvent, ev.Type)
	}
	out, err := s.appendChecked(id, []Event{ev}, true, &after)
	if err != nil {
		return Event{}, err
	}
	return out[0], nil
}

func (s *Store) appendChecked(id string, evs []Event, mark bool, after *ScanResult) ([]Event, error) {
	if err := ValidID(id); err != nil {
		return nil, err
	}
	// Two tries: a concurrent writer may create the log between our Exists
	// and our O_EXCL create; then we append to what it created.
	for try := 0; ; try++ {
		exists, err := s.Exists(id)
		if err != nil {
			return nil, err
		}
		if exists {
			break
		}
		if mark {
			return nil, fmt.Errorf("%w: %s", ErrNotFound, s.Path(id))
		}
		out, err := s.stamp(evs, 0)
		if err != nil {
			return nil, err
		}
		err = s.create(id, out) // under the caller's session lock
		if try == 0 && errors.Is(err, ErrExists) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return out, nil
	}
	path := s.Path(id)
	f, err := s.openLocked(path)
	if err != nil {
		return nil, err
	}
	out, err := s.appendLocked(id, f, evs, mark, after)
	if err != nil {
		return nil, vfs.CloseAfter(f, err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("session: closing %s: %w", path, err)
	}
	return out, nil
}

// appendLocked folds, checks, repairs and writes while f holds the append
// lock: the fold is read under the lock, so the next seq is still free.
func (s *Store) appendLocked(id string, f vfs.File, evs []Event, mark bool, after *ScanResult) ([]Event, error) {
	if after != nil && mark {
		same, err := endsAt(s.FS, f, s.Path(id), *after)
		if err != nil {
			return nil, err
		}
		if same {
			// The log is byte for byte as long as the caller's scan and ends
			// on the seq it saw: append right after it without reading it
			// all again (the retire mark of a commit on a 1 GiB source).
			return s.writeLocked(id, f, evs, after.LastSeq)
		}
	}
	info, err := s.Info(id)
	if err != nil {
		return nil, err
	}
	if after != nil && (info.LastSeq != after.LastSeq || info.End != after.End) {
		return nil, fmt.Errorf("%w: %s ends at seq %d (byte %d), the caller read it ending at seq %d (byte %d)",
			ErrChanged, s.Path(id), info.LastSeq, info.End, after.LastSeq, after.End)
	}
	if !mark {
		if err := s.Check(info); err != nil {
			var re *RetiredError
			if !errors.As(err, &re) || !epilogueOnly(info, evs) {
				return nil, err
			}
		}
	}
	if info.Torn != nil {
		if _, err := s.stamp(evs, info.LastSeq); err != nil {
			return nil, err // refuse bad events before cutting anything
		}
		if err := s.repairTail(id, info); err != nil {
			return nil, err
		}
	}
	return s.writeLocked(id, f, evs, info.LastSeq)
}

// writeLocked stamps evs after seq last and appends them with an fsync; f
// holds the append lock. A batch is all or nothing: when the write or the
// fsync fails (a disk that fills half-way through), the log is cut back to
// its size before the batch and fsynced, so no event of the batch is ever
// read back and a retry does not repeat any.
func (s *Store) writeLocked(id string, f vfs.File, evs []Event, last int64) ([]Event, error) {
	out, err := s.stamp(evs, last)
	if err != nil {
		return nil, err
	}
	data, err := encodeAll(out)
	if err != nil {
		return nil, err
	}
	path := s.Path(id)
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("session: stat %s before appending: %w", path, err)
	}
	before := fi.Size()
	if _, err := f.Write(data); err != nil {
		return nil, undoBatch(f, path, before, len(out), fmt.Errorf("session: appending to %s: %w", path, err))
	}
	if err := f.Sync(); err != nil {
		return nil, undoBatch(f, path, before, len(out), fmt.Errorf("session: fsync %s: %w", path, err))
	}
	return out, nil
}

// undoBatch cuts the log f back to size, its length before a batch whose
// write or fsync failed, and fsyncs it. When that fails too, the error says
// the log may hold part of the batch (its complete lines are read back;
// its torn last line is cut by the next append).
func undoBatch(f vfs.File, path string, size int64, events int, cause error) error {
	if err := f.Truncate(size); err != nil {
		return fmt.Errorf("%w; cutting the log back to its %d bytes before the batch failed too (%v): %s may hold part of the %d event(s)", cause, size, err, path, events)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("%w; the log was cut back to its %d bytes before the batch, but that fsync failed too (%v): %s may hold part of the %d event(s) after a crash", cause, size, err, path, events)
	}
	return fmt.Errorf("%w (none of the %d event(s) was kept)", cause, events)
}

func epilogueOnly(info *Info, evs []Event) bool {
	seen := map[string]bool{}
	for _, ev := range evs {
		if ev.Type != TypeToolResult || ev.Tool == nil || !info.EpilogueOpen(ev.Tool.CallID) || seen[ev.Tool.CallID] {
			return false
		}
		seen[ev.Tool.CallID] = true
	}
	return len(evs) > 0
}

func (s *Store) stamp(evs []Event, last int64) ([]Event, error) {
	out := make([]Event, len(evs))
	for k, ev := range evs {
		want := last + int64(k) + 1
		if ev.Seq == 0 {
			ev.Seq = want
		} else if ev.Seq != want {
			return nil, &SeqError{Path: "(appended events)", Line: k + 1, Want: want, Got: ev.Seq}
		}
		if ev.TS == "" {
			ev.TS = s.Now().UTC().Format(time.RFC3339Nano)
		}
		if err := ev.Validate(); err != nil {
			return nil, fmt.Errorf("%w: seq %d: %v", ErrBadEvent, ev.Seq, err)
		}
		out[k] = ev
	}
	return out, nil
}

func encodeAll(evs []Event) ([]byte, error) {
	var buf []byte
	for k := range evs {
		b, err := Encode(&evs[k])
		if err != nil {
			return nil, err
		}
		buf = append(buf, b...)
	}
	return buf, nil
}

// Create writes a new log with O_EXCL and fsyncs the file and the directory.
// Like Append, it assigns seq and ts where they are zero, refuses a seq that
// is not the next one and validates every event, so it never writes a log
// that cannot be read back. It holds the session's lock (lockSession)
// throughout; a failure after the O_EXCL create removes the log again, so
// a session never appears holding part of its first events.
func (s *Store) Create(id string, evs []Event) error {
	if err := ValidID(id); err != nil {
		return err
	}
	l, err := s.lockSession(id)
	if err != nil {
		return err
	}
	return unlockAfter(l, id, s.create(id, evs))
}

// create is Create for a caller that holds the session's lock.
func (s *Store) create(id string, evs []Event) error {
	if err := ValidID(id); err != nil {
		return err
	}
	out, err := s.stamp(evs, 0)
	if err != nil {
		return err
	}
	data, err := encodeAll(out)
	if err != nil {
		return err
	}
	path := s.Path(id)
	f, err := s.FS.Create(path, FileMode)
	if err != nil {
		return translate(path, err)
	}
	if err := lockNew(f); err != nil {
		return vfs.CloseAfter(f, err)
	}
	// From here the log is this call's: a failure removes it, so a session
	// never appears holding part of its first batch.
	if _, err := f.Write(data); err != nil {
		return s.dropNew(path, len(out), vfs.CloseAfter(f, fmt.Errorf("session: writing %s: %w", path, err)))
	}
	if err := f.Sync(); err != nil {
		return s.dropNew(path, len(out), vfs.CloseAfter(f, fmt.Errorf("session: fsync %s: %w", path, err)))
	}
	if err := f.Close(); err != nil {
		return s.dropNew(path, len(out), fmt.Errorf("session: closing %s: %w", path, err))
	}
	if err := s.FS.SyncDir(s.dir); err != nil {
		return s.dropNew(path, len(out), fmt.Errorf("session: fsync directory %s: %w", s.dir, err))
	}
	return nil
}

// dropNew removes a log this process created (O_EXCL) whose first batch
// failed, and fsyncs the directory: all or nothing. When that fails too,
// the error says the log may remain.
func (s *Store) dropNew(path string, events int, cause error) error {
	if err := s.FS.Remove(path); err != nil {
		return fmt.Errorf("%w; removing the new log failed too (%v): %s may hold part of the %d event(s)", cause, err, path, events)
	}
	if err := s.FS.SyncDir(s.dir); err != nil {
		return fmt.Errorf("%w; the new log was removed, but the fsync of %s failed (%v): after a crash %s may hold part of the %d event(s)", cause, s.dir, err, path, events)
	}
	return fmt.Errorf("%w (the new log was removed: none of the %d event(s) was kept)", cause, events)
}

// RepairTail cuts a torn last line: the bytes are first kept in
// <id>.jsonl.broken (or .broken.N), fsynced, then the log is truncated to
// its last complete line and fsynced. It takes the append lock and re-reads
// the log under it, so a stale info (or a tail another writer completed
// since) never cuts a good line; info.Torn is cleared on success.
func (s *Store) RepairTail(id string, info *Info) error {
	if err := ValidID(id); err != nil {
		return err
	}
	f, err := s.openLocked(s.Path(id))
	if err != nil {
		return err
	}
	fresh, err := s.Info(id)
	if err == nil {
		err = s.repairTail(id, fresh)
	}
	if err != nil {
		return vfs.CloseAfter(f, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("session: closing %s: %w", f.Name(), err)
	}
	info.Torn = nil
	return nil
}

// repairTail is RepairTail for a caller that holds the append lock and
// folded the log under it.
func (s *Store) repairTail(id string, info *Info) error {
	if info.Torn == nil {
		return nil
	}
	path := s.Path(id)
	f, err := s.FS.Open(path)
	if err != nil {
		return translate(path, err)
	}
	if err := regular(f); err != nil {
		return vfs.CloseAfter(f, err)
	}
	fi, err := f.Stat()
	if err != nil {
		return vfs.CloseAfter(f, fmt.Errorf("session: stat %s: %w", path, err))
	}
	if end := info.Torn.Offset + info.Torn.Bytes; fi.Size() != end {
		return vfs.CloseAfter(f, fmt.Errorf("session: %s changed while repairing its torn tail: %d bytes, the scan saw %d", path, fi.Size(), end))
	}
	cut := make([]byte, info.Torn.Bytes)
	if _, err := f.ReadAt(cut, info.Torn.Offset); err != nil {
		return vfs.CloseAfter(f, fmt.Errorf("session: reading torn tail of %s: %w", path, err))
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("session: closing %s: %w", path, err)
	}
	broken, err := s.freeBrokenName(path)
	if err != nil {
		return err
	}
	bf, err := s.FS.Create(broken, FileMode)
	if err != nil {
		return fmt.Errorf("session: keeping torn tail of %s: %w", path, err)
	}
	if _, err := bf.Write(cut); err != nil {
		return s.dropBroken(broken, vfs.CloseAfter(bf, fmt.Errorf("session: writing %s: %w", broken, err)))
	}
	if err := bf.Sync(); err != nil {
		return s.dropBroken(broken, vfs.CloseAfter(bf, fmt.Errorf("session: fsync %s: %w", broken, err)))
	}
	if err := bf.Close(); err != nil {
		return fmt.Errorf("session: closing %s: %w", broken, err)
	}
	// The .broken entry must be durable before the bytes it keeps are cut.
	if err := s.FS.SyncDir(s.dir); err != nil {
		return fmt.Errorf("session: fsync directory %s: %w", s.dir, err)
	}
	af, err := s.FS.OpenAppend(path)
	if err != nil {
		return translate(path, err)
	}
	if err := af.Truncate(info.Torn.Offset); err != nil {
		return vfs.CloseAfter(af, fmt.Errorf("session: truncating %s: %w", path, err))
	}
	if err := af.Sync(); err != nil {
		return vfs.CloseAfter(af, fmt.Errorf("session: fsync %s: %w", path, err))
	}
	if err := af.Close(); err != nil {
		return fmt.Errorf("session: closing %s: %w", path, err)
	}
	info.Torn = nil
	return nil
}

// dropBroken removes a .broken copy that could not be completed (ENOSPC,
// say): nothing was cut yet, so the torn bytes are still in the log and a
// partial copy would only push the next try to .broken.1. A failed removal
// is reported with the cause.
func (s *Store) dropBroken(broken string, cause error) error {
	if err := s.FS.Remove(broken); err != nil {
		return errors.Join(cause, fmt.Errorf("session: removing the incomplete %s: %w", broken, err))
	}
	return cause
}

// freeBrokenName is the first of <path>.broken, <path>.broken.1, … that does
// not exist. Any other Lstat error stops the search: it would never end.
func (s *Store) freeBrokenName(path string) (string, error) {
	broken := path + ".broken"
	for n := 1; ; n++ {
		_, err := s.FS.Lstat(broken)
		if errors.Is(err, fs.ErrNotExist) {
			return broken, nil
		}
		if err != nil {
			return "", fmt.Errorf("session: looking for a free .broken name for %s: %w", path, err)
		}
		broken = fmt.Sprintf("%s.broken.%d", path, n)
	}
}
