package txn

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
	"time"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/index"
	"github.com/graft-project/graft/journal"
	"github.com/graft-project/graft/lockfile"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/tape"
	"github.com/graft-project/graft/vfs"
)

// RecordStore is where the records of transactions in flight live: .txn/ on
// the file store (*journal.Journal), keys under the prefix on etcd.
type RecordStore interface {
	Write(journal.Record) error
	Read(txn string) (journal.Record, error)
	Remove(txn string) error
	Scan() (journal.ScanResult, error)
}

// Unlocker releases one lock.
type Unlocker interface{ Unlock() error }

// Backend is the store a transaction's locks and commit point live in:
// the file store in the home (FileBackend), or a store shared by workers
// on several machines (package etcdstore), whose locks are leases that die
// with the worker, and a worker that lost them cannot write a record any
// more (fencing).
type Backend interface {
	// TryLock takes the lock of a session without blocking: an error
	// matching ErrLocked (or lockfile.ErrLocked) when another holds it.
	TryLock(name string) (Unlocker, error)
	// Decide is the commit point of a store that has one of its own: it
	// moves rec to journal.Committed, only while this worker holds the
	// locks of its target and source, and reports decided. Any error leaves
	// it undecided, or unknown (a lost answer): recovery reads the record
	// to know. A store whose commit point is the source's graft/retired
	// append (the file store) decides nothing: false, nil.
	Decide(rec journal.Record) (decided bool, err error)
}

// FileBackend is the file store of a home: flocks under locks/, and the
// commit point is the graft/retired append.
type FileBackend struct{ Home string }

// TryLock takes the session's flock.
func (f FileBackend) TryLock(name string) (Unlocker, error) { return lockfile.TryLock(f.Home, name) }

// Decide decides nothing: the file store's commit point is the append.
func (FileBackend) Decide(journal.Record) (bool, error) { return false, nil }

// Env is what a transaction touches.
type Env struct {
	Home    string
	FS      vfs.FS
	Store   *session.Store
	Journal RecordStore
	// Backend holds the locks and the commit point; nil is the file store
	// of Home (FileBackend).
	Backend Backend
	// Catalog opens the catalog; nil is catalog.db in Home.
	Catalog catalog.Opener
	Now     func() time.Time
	// CatalogTimeout bounds the wait for catalog.db (one process at a time).
	CatalogTimeout time.Duration
	// Hook is called at every crash point (tests); the crashpoints build tag
	// arms its own hook from the environment.
	Hook   func(Point)
	Faults Faults
}

// At is a crash point outside the transaction itself: the steps of a
// handoff's export after its commit (ExportPoints).
func (e *Env) At(p Point) { e.at(p) }

func (e *Env) at(p Point) {
	if e.Hook != nil {
		e.Hook(p)
	}
	if armed != nil {
		armed(p)
	}
}

func (e *Env) faults() Faults {
	f := e.Faults
	f.SkipColdRead = f.SkipColdRead || armedFaults.SkipColdRead
	f.SkipTargetDirSync = f.SkipTargetDirSync || armedFaults.SkipTargetDirSync
	return f
}

func (e *Env) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

// Cat is the catalog opener: Catalog, or catalog.db in Home.
func (e *Env) Cat() catalog.Opener {
	if e.Catalog != nil {
		return e.Catalog
	}
	return catalog.Files(e.Home, e.CatalogWait())
}

// CatalogWait is how long to wait for catalog.db (the default when unset).
func (e *Env) CatalogWait() time.Duration {
	if e.CatalogTimeout > 0 {
		return e.CatalogTimeout
	}
	return catalog.DefaultTimeout
}

// backend is Backend, or the file store of Home.
func (e *Env) backend() Backend {
	if e.Backend == nil {
		return FileBackend{Home: e.Home}
	}
	return e.Backend
}

// Locks are the locks of one transaction: target first, then source.
type Locks struct{ held []Unlocker }

// LockPair takes both locks without blocking; a busy lock is ErrLocked.
// They are flocks on the file store, leases on an etcd one.
func (e *Env) LockPair(target, source string) (*Locks, error) {
	l := &Locks{}
	for _, name := range []string{target, source} {
		lk, err := e.backend().TryLock(name)
		if err != nil {
			rerr := l.Release()
			if errors.Is(err, lockfile.ErrLocked) {
				err = fmt.Errorf("%w: %v", ErrLocked, err)
			}
			return nil, errors.Join(err, rerr)
		}
		l.held = append(l.held, lk)
	}
	return l, nil
}

// releaseAfter releases the locks at the end of a transaction. A failure
// is never dropped: it is joined to err, or, when the transaction already
// committed (notes non-nil and err nil), noted on its result.
func releaseAfter(l *Locks, err error, notes *[]string) error {
	rerr := l.Release()
	switch {
	case rerr == nil:
		return err
	case err == nil && notes != nil:
		*notes = append(*notes, fmt.Sprintf("done, but releasing the locks failed: %v", rerr))
		return nil
	}
	return errors.Join(err, fmt.Errorf("txn: releasing the locks: %w", rerr))
}

// Release unlocks in reverse order. Unlock errors are returned joined.
func (l *Locks) Release() error {
	var errs []error
	for k := len(l.held) - 1; k >= 0; k-- {
		errs = append(errs, l.held[k].Unlock())
	}
	l.held = nil
	return errors.Join(errs...)
}

// Built is what the commit writes, computed under the locks by the caller's
// Build function (it rescans the source and checks drift).
type Built struct {
	Tape       *tape.Tape
	SourceScan session.ScanResult // the scan the tape came from: the retire mark goes right after it
	Notes      []string
}

// Request is one commit.
type Request struct {
	PreparedID string
	Source     string
	Target     string
	Build      func() (*Built, error)
	// Owe, for a handoff, is the host session the committed target is
	// owed to: it goes into the record and, with the lineage, into the
	// catalog (journal.Owe, catalog.Owed).
	Owe *journal.Owe
}

// Result is a committed graft.
type Result struct {
	Txn         string
	Source      string
	Target      string
	TapeHash    string
	TapeChars   int
	TapeEvents  int
	Generation  int
	BoundarySeq int64
	Notes       []string
}

// TargetEvents renders the target's log: graft/origin then the tape.
func TargetEvents(txnID, source string, t *tape.Tape, now time.Time) []session.Event {
	ts := now.UTC().Format(time.RFC3339Nano)
	inherit, relies := t.Inherit, t.Relies
	evs := make([]session.Event, 0, len(t.Events)+1)
	evs = append(evs, session.Event{
		Seq: 1, TS: ts, Type: session.TypeGraftOrigin,
		Source: session.Source{Kind: session.KindPlugin, Name: "graft"},
		Txn:    txnID, Parent: source, ParentBoundary: t.BoundarySeq,
		Generation: t.Generation + 1, TapeHash: t.TapeHash, TapeEvents: len(t.Events) + 1,
		Inherit: &inherit, Relies: &relies,
	})
	for k, ev := range t.Events {
		ev.Seq = int64(k + 2)
		ev.TS = ts
		evs = append(evs, ev)
	}
	return evs
}

func encode(evs []session.Event) ([]byte, error) {
	var buf bytes.Buffer
	for k := range evs {
		b, err := session.Encode(&evs[k])
		if err != nil {
			return nil, err
		}
		buf.Write(b)
	}
	return buf.Bytes(), nil
}

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

// Commit runs the graft transaction of doc.go (docs/DESIGN.md §6). On any failure before the
// commit point the source stays active and untouched; the journal record is
// left for recovery only where cleaning up failed too.
func Commit(env *Env, req Request) (*Result, error) {
	// 0. locks, then every check that needs them.
	return underPair(env, req.Target, req.Source, CommitLocked, func(r *Result) *[]string { return &r.Notes }, func() (*Result, error) {
		return commitLocked(env, req)
	})
}

// underPair runs fn under the locks of target and source (LockPair),
// calling the crash point locked once they are held. Releasing them after
// is never dropped: a failure is joined to fn's error, or, when fn
// succeeded, noted on its result (notes).
func underPair[R any](env *Env, target, source string, locked Point, notes func(*R) *[]string, fn func() (*R, error)) (res *R, err error) {
	locks, err := env.LockPair(target, source)
	if err != nil {
		return nil, err
	}
	defer func() {
		var n *[]string
		if res != nil {
			n = notes(res)
		}
		err = releaseAfter(locks, err, n)
	}()
	env.at(locked)
	return fn()
}

// commitLocked is Commit past step 0, under both locks.
func commitLocked(env *Env, req Request) (res *Result, err error) {
	if exists, err := env.Store.Exists(req.Target); err != nil {
		return nil, err
	} else if exists {
		return nil, fmt.Errorf("%w: %s (choose another --target)", ErrTargetExists, req.Target)
	}
	built, err := req.Build()
	if err != nil {
		return nil, err
	}
	t := built.Tape
	now := env.now()
	txnID := journal.NewTxnID(now)
	evs := TargetEvents(txnID, req.Source, t, now)
	data, err := encode(evs)
	if err != nil {
		return nil, err
	}
	rec := journal.Record{
		Version: 1, Txn: txnID, Kind: journal.KindGraft, State: journal.Preparing,
		Source: req.Source, Target: req.Target, PreparedID: req.PreparedID,
		TapeHash: t.TapeHash, TapeEvents: len(evs), TapeDigest: digest(data),
		TargetBytes: int64(len(data)), BoundarySeq: t.BoundarySeq, SourceSeq: built.SourceScan.LastSeq, Generation: t.Generation + 1, Owe: req.Owe,
		// Also the ts of the target's events: recovery knows a torn shell by it (originStart).
		Created: now.UTC().Format(time.RFC3339Nano),
	}

	// 1. journal first.
	if err := env.Journal.Write(rec); err != nil {
		return nil, fmt.Errorf("txn: writing journal record (nothing else was touched): %w", err)
	}
	env.at(CommitJournalPrepared)

	// 2. the target: O_EXCL, tape, fsync file and directory. own says
	// whether the create succeeded, and which file it made: a roll-back
	// touches nothing else.
	own, err := writeTarget(env, req.Target, data)
	if err != nil {
		return nil, rollBack(env, rec, own, fmt.Errorf("txn: writing target %s: %w", req.Target, err))
	}

	// 3. TARGET_FLUSHED.
	rec.State = journal.TargetFlushed
	if err := env.Journal.Write(rec); err != nil {
		return nil, rollBack(env, rec, own, fmt.Errorf("txn: journal TARGET_FLUSHED: %w", err))
	}
	env.at(CommitJournalFlushed)

	// 4. cold read.
	if !env.faults().SkipColdRead {
		if err := ColdVerify(env.FS, env.Store.Path(req.Target), rec); err != nil {
			return nil, rollBack(env, rec, own, err)
		}
	}
	env.at(CommitColdRead)

	// 5. COLD_VERIFIED.
	rec.State = journal.ColdVerified
	if err := env.Journal.Write(rec); err != nil {
		return nil, rollBack(env, rec, own, fmt.Errorf("txn: journal COLD_VERIFIED: %w", err))
	}
	env.at(CommitJournalVerified)

	// 6. the commit point. On an etcd store it is the fenced
	// COMMITTED write, and the graft/retired append follows it (recovery
	// repairs a crash between the two); on the file store it is the append.
	decided, err := env.backend().Decide(rec)
	if err != nil {
		// Refused (the locks were lost: a lease expired) or unknown (no
		// answer): the record says which, and recovery reads it.
		return nil, fmt.Errorf("txn: the commit point on the etcd store was not confirmed (%w); a recovery scan (this worker's next command, or another worker's) resolves the record from the store: committed if the decision landed, rolled back if not", err)
	}
	if decided {
		rec.State = journal.Committed
		env.at(CommitDecided)
	}
	err = Retire(env, rec, built.SourceScan)
	if err != nil && !decided {
		// An fsync failure leaves it unknown whether the mark is durable:
		// the record stays and recovery decides from the log.
		return nil, fmt.Errorf("txn: retiring source %s (the journal record stays; recovery decides from the source's log): %w", req.Source, err)
	}
	res = &Result{
		Txn: txnID, Source: req.Source, Target: req.Target, TapeHash: t.TapeHash,
		TapeChars: t.TapeChars, TapeEvents: len(evs), Generation: t.Generation + 1,
		BoundarySeq: t.BoundarySeq, Notes: built.Notes,
	}
	if err != nil {
		// Decided on the etcd store: committed, and the record
		// (COMMITTED) stays for recovery, which appends the mark.
		res.Notes = append(res.Notes, fmt.Sprintf("committed (decided on the etcd store), but the graft/retired append to %s failed (%v); the next recovery scan appends it", req.Source, err))
		return res, nil
	}
	env.at(CommitSourceRetired)

	// 7. lineage; 8. delete the record. Past the commit point a failure here
	// is not a failed graft: the record stays and recovery rolls forward.
	if err := RecordLineage(env, rec); err != nil {
		res.Notes = append(res.Notes, fmt.Sprintf("committed, but the catalog was not updated (%v); the next recovery scan finishes it", err))
		return res, nil
	}
	env.at(CommitLineage)
	if err := env.Journal.Remove(txnID); err != nil {
		res.Notes = append(res.Notes, fmt.Sprintf("committed, but the journal record was not removed (%v); the next recovery scan removes it", err))
		return res, nil
	}
	env.at(CommitJournalRemoved)
	return res, nil
}

// ownership is what an in-process roll-back knows of the target: whether
// this transaction's O_EXCL create succeeded, and the identity of the file
// it created. The zero value (recovery, after a crash) knows nothing: the
// target is then judged by its content, and the locks keep a file another
// creator is making out of reach (abandonTarget).
type ownership struct {
	known   bool        // the commit's own roll-back: created is known
	created bool        // its O_EXCL create succeeded
	fi      os.FileInfo // the file it created; nil when its stat failed (the file is then this txn's: it was created under the target's lock)
}

// writeTarget creates the target with O_EXCL and writes and fsyncs it. The
// ownership it returns is known even on failure: not created when the
// create failed (a file at the path then is someone else's).
func writeTarget(env *Env, target string, data []byte) (ownership, error) {
	own := ownership{known: true}
	path := env.Store.Path(target)
	f, err := env.FS.Create(path, session.FileMode)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return own, fmt.Errorf("%w: %s", ErrTargetExists, target)
		}
		return own, err
	}
	own.created = true
	fi, err := f.Stat()
	if err != nil {
		return own, vfs.CloseAfter(f, fmt.Errorf("stat of the new target: %w", err))
	}
	own.fi = fi
	env.at(CommitTargetCreated)
	half := len(data) / 2
	if _, err := f.Write(data[:half]); err != nil {
		return own, vfs.CloseAfter(f, err)
	}
	env.at(CommitTargetHalf)
	if _, err := f.Write(data[half:]); err != nil {
		return own, vfs.CloseAfter(f, err)
	}
	env.at(CommitTargetWritten)
	if err := f.Sync(); err != nil {
		return own, vfs.CloseAfter(f, fmt.Errorf("fsync: %w", err))
	}
	if err := f.Close(); err != nil {
		return own, err
	}
	env.at(CommitTargetSynced)
	if !env.faults().SkipTargetDirSync {
		if err := env.FS.SyncDir(env.Store.Dir()); err != nil {
			return own, fmt.Errorf("fsync directory %s: %w", env.Store.Dir(), err)
		}
	}
	env.at(CommitTargetDirSynced)
	return own, nil
}

// ColdVerify re-opens the target from disk with a fresh handle, re-reads and
// re-parses it and compares it with what the journal says must be there:
// byte count, digest, event count, and the graft/origin of this txn.
func ColdVerify(fsys vfs.FS, path string, rec journal.Record) error {
	fail := func(format string, args ...any) error {
		err := fmt.Errorf(format, args...)
		return &ColdVerifyError{Target: rec.Target, Reason: err.Error(), Err: errors.Unwrap(err)}
	}
	f, err := fsys.Open(path)
	if err != nil {
		return fail("reopening: %w", err)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return vfs.CloseAfter(f, fail("reading: %w", err))
	}
	// An I/O error reported at close is an I/O error of the target.
	if err := f.Close(); err != nil {
		return fail("closing after the read: %w", err)
	}
	if int64(len(data)) != rec.TargetBytes {
		return fail("%d bytes on disk, journal says %d", len(data), rec.TargetBytes)
	}
	if d := digest(data); d != rec.TapeDigest {
		return fail("digest %s on disk, journal says %s", d, rec.TapeDigest)
	}
	var origin *session.Event
	res, err := session.Scan(bytes.NewReader(data), path, session.ScanFrom{}, func(ev *session.Event, _ []byte, _ int64) error {
		if ev.Seq == 1 {
			e := *ev
			origin = &e
		}
		return nil
	})
	if err != nil {
		return fail("re-parsing: %v", err)
	}
	if res.Torn != nil {
		return fail("torn last line at offset %d", res.Torn.Offset)
	}
	if res.Events != rec.TapeEvents {
		return fail("%d events on disk, journal says %d", res.Events, rec.TapeEvents)
	}
	if origin == nil || origin.Type != session.TypeGraftOrigin || origin.Txn != rec.Txn || origin.TapeHash != rec.TapeHash || origin.Parent != rec.Source {
		return fail("graft/origin does not name txn %s, source %s and tape %s", rec.Txn, rec.Source, rec.TapeHash)
	}
	return nil
}

// rollBack undoes a commit that failed before its commit point, in-process:
// the target (if any) is made honest, the leftover recorded, the record
// deleted. If cleaning up fails as well (ENOSPC again, say), the record
// stays for the next recovery scan; the target is still not live, because
// liveness is judged from the source. The cause is returned either way.
func rollBack(env *Env, rec journal.Record, own ownership, cause error) error {
	reason := fmt.Sprintf("rolled back in %s: %v", rec.State, cause)
	if _, err := rollBackOwned(env, rec, reason, own); err != nil {
		return fmt.Errorf("%w (cleanup deferred to recovery: %v)", cause, err)
	}
	return cause
}

// RollBack makes a failed graft's target honest and forgets its record:
// a target carrying this txn's graft/origin gets graft/abandoned; an empty
// or torn shell of this txn is removed; a target of another txn is left
// alone. The leftover is recorded for the next review of the source.
// It returns what it did to the target: "" when no target of this txn was
// there, so there is no leftover. The caller holds the record's locks
// (LockPair): a creator of the target's id holds its session lock while it
// writes the log, so a log being created is never mistaken for this txn's
// empty shell.
func RollBack(env *Env, rec journal.Record, reason string) (string, error) {
	return rollBackOwned(env, rec, reason, ownership{})
}

func rollBackOwned(env *Env, rec journal.Record, reason string, own ownership) (string, error) {
	action, err := abandonTarget(env, rec, reason, own)
	if err != nil {
		return "", err
	}
	if action != "" {
		err := env.Cat().With(func(db *catalog.DB) error {
			return db.AddLeftover(catalog.Leftover{
				Source: rec.Source, Target: rec.Target, Txn: rec.Txn, State: string(rec.State),
				Reason: action + ": " + reason, Recorded: env.now().UTC(),
			})
		})
		if err != nil {
			return "", fmt.Errorf("recording leftover: %w", err)
		}
	}
	return action, env.Journal.Remove(rec.Txn)
}

// abandonTarget returns what it did ("" when there was no target of this
// txn). Only what this transaction created is its to touch: in-process
// (own.known) that is the file its O_EXCL create made, checked by device
// and inode, and nothing when the create failed (another creator's file is
// at the path); after a crash, the file at the path when its content
// proves it (empty, a prefix of this txn's graft/origin, or naming this
// txn).
func abandonTarget(env *Env, rec journal.Record, reason string, own ownership) (string, error) {
	if own.known && !own.created {
		return "", nil
	}
	exists, err := env.Store.Exists(rec.Target)
	if err != nil {
		return "", err
	}
	if !exists {
		return "", nil
	}
	proven := false
	if own.known {
		fi, err := env.FS.Lstat(env.Store.Path(rec.Target))
		if err != nil {
			return "", fmt.Errorf("stat of %s: %w", rec.Target, err)
		}
		if !sameFile(own.fi, fi) {
			return "", nil // replaced since our create: not ours to touch
		}
		proven = true
	}
	info, err := env.Store.Info(rec.Target)
	damaged := errors.Is(err, session.ErrCorrupt) || errors.Is(err, session.ErrSeq)
	if err != nil && !damaged {
		return "", err
	}
	if err == nil && info.Origin != nil && info.Origin.Txn != rec.Txn {
		return "", nil // another transaction's target: not ours to touch
	}
	// From here a graft/origin, if any, is this txn's.
	if err == nil && info.Abandoned != nil && (info.Origin != nil || info.Abandoned.Txn == rec.Txn) {
		return "abandoned", nil
	}
	head, err := readHead(env, rec.Target, rec.TargetBytes+1)
	if err != nil {
		return "", err
	}
	start, err := originStart(rec)
	if err != nil {
		return "", err
	}
	ours := proven || len(head) == 0 || bytes.Contains(head, []byte(`"txn":"`+rec.Txn+`"`)) || bytes.HasPrefix(start, head)
	if !ours {
		return "", nil
	}
	if damaged {
		// Damaged bytes of ours (tampered, say): no reader accepts them and
		// the source never named it, so it cannot be resumed; keep it as
		// evidence.
		return "left damaged target as evidence", nil
	}
	if info.Events > 0 {
		// Complete lines of ours (with our graft/origin, or tampered so it
		// is gone): keep the bytes, and make them unresumable.
		_, err := env.Store.AppendMark(rec.Target, session.Event{
			Type: session.TypeGraftAbandoned, Source: session.Source{Kind: session.KindPlugin, Name: "graft"},
			Txn: rec.Txn, Reason: reason,
		})
		if err != nil {
			return "", fmt.Errorf("marking %s abandoned: %w", rec.Target, err)
		}
		return "abandoned", nil
	}
	// No complete line: an empty or torn shell of this txn. Remove it.
	path := env.Store.Path(rec.Target)
	if err := env.FS.Remove(path); err != nil {
		return "", fmt.Errorf("removing shell %s: %w", path, err)
	}
	if err := env.FS.SyncDir(env.Store.Dir()); err != nil {
		return "", err
	}
	return "removed shell", nil
}

// sameFile reports whether now is the file created was: same device and
// inode. Without an identity on either side (a filesystem that gives none)
// it cannot tell them apart and says yes: the file was created under the
// target's lock, which every creator of a session takes.
func sameFile(created, now os.FileInfo) bool {
	if created == nil {
		return true
	}
	d1, i1, ok1 := index.FileIdentity(created)
	d2, i2, ok2 := index.FileIdentity(now)
	if !ok1 || !ok2 {
		return true
	}
	return d1 == d2 && i1 == i2
}

// originStart is how this txn's target begins, up to the txn id: Commit
// stamps the graft/origin with the record's Created time. A torn shell too
// short to hold the txn id is recognised by it.
func originStart(rec journal.Record) ([]byte, error) {
	b, err := session.Encode(&session.Event{Seq: 1, TS: rec.Created, Type: session.TypeGraftOrigin,
		Source: session.Source{Kind: session.KindPlugin, Name: "graft"}, Txn: rec.Txn})
	if err != nil {
		return nil, fmt.Errorf("txn: encoding the start of %s's graft/origin: %w", rec.Txn, err)
	}
	return bytes.TrimSuffix(b, []byte("}\n")), nil
}

func readHead(env *Env, id string, max int64) ([]byte, error) {
	f, err := env.FS.Open(env.Store.Path(id))
	if err != nil {
		return nil, err
	}
	head, err := io.ReadAll(io.LimitReader(f, max))
	if err != nil {
		return nil, vfs.CloseAfter(f, fmt.Errorf("reading %s: %w", f.Name(), err))
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("closing %s: %w", f.Name(), err)
	}
	return head, nil
}

// RecordLineage writes the lineage node of a committed graft and marks its
// prepared review used; for a handoff's graft (rec.Owe) it records the
// export the target is owed in the same catalog write. Idempotent.
func RecordLineage(env *Env, rec journal.Record) error {
	var owed *catalog.Owed
	if o := rec.Owe; o != nil {
		owed = &catalog.Owed{Target: rec.Target, Txn: rec.Txn, Source: rec.Source, Host: o.Host, Cwd: o.Cwd, Root: o.Root, HostSession: o.HostSession, Recorded: env.now().UTC()}
	}
	return env.Cat().With(func(db *catalog.DB) error {
		return db.RecordCommitOwed(catalog.Node{
			Session: rec.Target, Parent: rec.Source, Generation: rec.Generation,
			Boundary: rec.BoundarySeq, Txn: rec.Txn, TapeHash: rec.TapeHash, Committed: env.now().UTC(),
		}, rec.PreparedID, rec.Txn, owed)
	})
}

// IsNoSpace and IsPermission classify OS errors for stable error codes.
func IsNoSpace(err error) bool { return errors.Is(err, syscall.ENOSPC) }
func IsPermission(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)
}
