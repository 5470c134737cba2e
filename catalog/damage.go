package catalog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// ErrCorrupt: catalog.db is damaged (truncated, overwritten, not a regular
// file, or bbolt finds its pages inconsistent). Nothing in it can be
// trusted; graft recover --rebuild-catalog moves it aside (MoveAside) and
// derives a new one from the logs.
var ErrCorrupt = errors.New("catalog: damaged")

// DamagedError names the damaged file and what is wrong with it.
type DamagedError struct {
	Path    string
	Problem string
	Err     error // the underlying error, if any
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("catalog: %s is damaged (%s); graft recover --rebuild-catalog moves it aside as evidence and rebuilds the catalog from the session logs", e.Path, e.Problem)
}

func (e *DamagedError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrCorrupt}
	}
	return []error{ErrCorrupt, e.Err}
}

func damaged(path string, err error, format string, args ...any) error {
	return &DamagedError{Path: path, Problem: fmt.Sprintf(format, args...), Err: err}
}

// NotWritable reports whether err is the kernel refusing to let the
// catalog be opened for writing (EACCES, EPERM, EROFS): View then reads it
// through a read-only open.
func NotWritable(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)
}

// openFile opens the catalog's file for bbolt; tests replace it to inject
// the errors of a file the user may not write.
var openFile = os.OpenFile

// InjectOpenFile makes every open of catalog.db by bbolt go through f (a
// test injects EACCES or EROFS with it, where running as another user or
// mounting read-only is not possible) and returns the function that
// restores os.OpenFile. Tests only; not safe while catalogs are opened
// concurrently.
func InjectOpenFile(f func(name string, flag int, perm os.FileMode) (*os.File, error)) (restore func()) {
	old := openFile
	openFile = f
	return func() { openFile = old }
}

// bbolt's meta page (go.etcd.io/bbolt/internal/common.Meta), in the
// machine's byte order after a 16-byte page header: magic, version,
// pageSize, flags (u32 each), the root bucket (pgid, sequence), the
// freelist pgid, pgid (the high-water mark: pages in use), txid, and an
// FNV-64a checksum of everything before it.
const (
	pageHeaderSize = 16
	metaMagic      = 0xED0CDAED
	metaVersion    = 2
	metaSumOffset  = 56 // bytes of meta the checksum covers
	metaSize       = 64
)

type meta struct {
	pageSize uint32
	pgid     uint64
	txid     uint64
}

// readMeta reads the meta at byte off; ok is false when it is not a valid
// one (short, wrong magic or version, checksum mismatch).
func readMeta(f io.ReaderAt, off int64) (meta, bool) {
	var b [pageHeaderSize + metaSize]byte
	if n, err := f.ReadAt(b[:], off); n != len(b) && err != nil {
		return meta{}, false
	}
	m := b[pageHeaderSize:]
	ne := binary.NativeEndian
	h := fnv.New64a()
	h.Write(m[:metaSumOffset])
	if ne.Uint32(m[0:]) != metaMagic || ne.Uint32(m[4:]) != metaVersion || ne.Uint64(m[metaSumOffset:]) != h.Sum64() {
		return meta{}, false
	}
	return meta{pageSize: ne.Uint32(m[8:]), pgid: ne.Uint64(m[40:]), txid: ne.Uint64(m[48:])}, true
}

// checkFile looks at the catalog's bytes before bbolt maps them: the file
// must hold a valid meta page and every page that meta says is in use.
// bbolt trusts the meta and reads pages past the end of a truncated file
// through its memory map, which kills the process with SIGBUS. An empty
// file is a catalog bbolt has not initialised yet.
func checkFile(path string, f *os.File, size int64) error {
	if size == 0 {
		return nil
	}
	m0, ok0 := readMeta(f, 0)
	var m1 meta
	var ok1 bool
	if ok0 {
		m1, ok1 = readMeta(f, int64(m0.pageSize))
	} else {
		// The page size is in the meta: try those bbolt may have used.
		for ps := int64(1024); ps <= 64<<10 && !ok1; ps *= 2 {
			m1, ok1 = readMeta(f, ps)
		}
	}
	var m meta
	switch {
	case ok0 && ok1:
		m = m0
		if m1.txid > m0.txid {
			m = m1
		}
	case ok0:
		m = m0
	case ok1:
		m = m1
	default:
		if size < 2*int64(os.Getpagesize()) {
			return damaged(path, berrors.ErrInvalid, "%d bytes, shorter than its two meta pages, and no valid meta page", size)
		}
		return damaged(path, berrors.ErrInvalid, "no valid meta page: not a bbolt database, or its first pages were overwritten")
	}
	if size < 2*int64(m.pageSize) {
		return damaged(path, nil, "%d bytes, shorter than its two meta pages of %d bytes", size, m.pageSize)
	}
	if want := int64(m.pgid) * int64(m.pageSize); size < want {
		return damaged(path, nil, "truncated: %d bytes, but its meta page (txid %d) uses %d pages of %d bytes (%d bytes)", size, m.txid, m.pgid, m.pageSize, want)
	}
	return nil
}

// guard turns a panic of bbolt on a damaged file (its assertions on page
// types and ids, or a memory fault reading its map) into an error matching
// ErrCorrupt. Any other panic is not the file's doing and goes on. Use as
//
//	defer guard(path, &err)
//	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
func guard(path string, err *error) {
	v := recover()
	if v == nil {
		return
	}
	if fault, ok := v.(interface{ Addr() uintptr }); ok {
		*err = damaged(path, nil, "a memory fault reading its pages: %v (at address %#x)", v, fault.Addr())
		return
	}
	if !panickedInBolt() {
		panic(v)
	}
	*err = damaged(path, nil, "bbolt: %v", v)
}

// panickedInBolt reports whether the panic being recovered was raised in
// bbolt's code: the first frame past the runtime's panic machinery.
func panickedInBolt() bool {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	panicking := false
	for {
		fr, more := frames.Next()
		switch {
		case fr.Function == "runtime.gopanic" || fr.Function == "runtime.sigpanic":
			panicking = true
		case panicking && !strings.HasPrefix(fr.Function, "runtime."):
			return strings.HasPrefix(fr.Function, "go.etcd.io/bbolt")
		}
		if !more {
			return false
		}
	}
}

// boltOpen opens path with bbolt after checkFile, turning a panic of bbolt
// into ErrCorrupt (and closing the file it opened, which releases its lock).
func boltOpen(path string, opts *bolt.Options) (b *bolt.DB, err error) {
	var file *os.File
	opts.OpenFile = func(name string, flag int, perm os.FileMode) (*os.File, error) {
		f, err := openFile(name, flag, perm)
		file = f
		return f, err
	}
	defer func() {
		if err != nil && b == nil && file != nil {
			// bbolt closes the file on the errors it returns; after a
			// panic it has not. Its memory map keeps the open file alive
			// past a close (and is left mapped: bbolt holds its address),
			// so the lock is dropped first, or every later open in this
			// process would wait for it.
			uerr := syscall.Flock(int(file.Fd()), syscall.LOCK_UN)
			if cerr := file.Close(); uerr != nil || (cerr != nil && !errors.Is(cerr, os.ErrClosed)) {
				err = errors.Join(err, fmt.Errorf("catalog: releasing %s after bbolt panicked: %w", path, errors.Join(uerr, cerr)))
			}
		}
	}()
	defer guard(path, &err)
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	return bolt.Open(path, FileMode, opts)
}

// preCheck refuses a path that is not a regular file and checks a
// regular one's bytes (checkFile) under a shared flock, taken on a
// descriptor of its own and waited for up to timeout (then ErrBusy): a
// process creating the catalog writes its first pages under bbolt's
// exclusive lock, and half-written pages are not damage. Writers after the
// check only append pages and rewrite metas; they never make a sound file
// unsound, so the check still holds when bbolt opens the file. missing
// reports a path with nothing.
func preCheck(path string, timeout time.Duration) (missing bool, err error) {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return true, nil
	case err != nil:
		return false, fmt.Errorf("catalog: stat %s: %w", path, err)
	case !fi.Mode().IsRegular():
		return false, damaged(path, nil, "not a regular file (mode %v)", fi.Mode())
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil // removed since the Lstat (moved aside)
	}
	if err != nil {
		return false, fmt.Errorf("catalog: opening %s: %w", path, err)
	}
	defer f.Close()
	if err := flockWait(f, syscall.LOCK_SH, timeout); errors.Is(err, syscall.EWOULDBLOCK) {
		return false, fmt.Errorf("%w: %s is held by another process (waited %v): %w", ErrBusy, path, timeout, berrors.ErrTimeout)
	} else if err != nil {
		return false, fmt.Errorf("catalog: locking %s to check it: %w", path, err)
	}
	fi, err = f.Stat()
	if err != nil {
		return false, fmt.Errorf("catalog: stat %s: %w", path, err)
	}
	return false, checkFile(path, f, fi.Size())
}

// openReadOnly opens the catalog for reading only (bbolt's ReadOnly: a
// shared lock, no writes), for View when the file cannot be opened for
// writing. The buckets and the format mark must be there: a read-only
// open cannot create them.
func openReadOnly(path string, timeout time.Duration) (*DB, error) {
	missing, err := preCheck(path, timeout)
	if missing {
		return nil, fmt.Errorf("catalog: %s does not exist: %w", path, fs.ErrNotExist)
	}
	if err != nil {
		return nil, err
	}
	b, err := boltOpen(path, &bolt.Options{Timeout: timeout, ReadOnly: true})
	if err != nil {
		return nil, openError(path, timeout, err)
	}
	db := &DB{b: &boltBackend{db: b, path: path}, name: path, readOnly: true}
	err = db.view("checking its buckets", func(tx Tx) error {
		if name := missingBucket(tx.(boltTx).tx, laterBuckets...); name != "" {
			return fmt.Errorf("no bucket %q, and a read-only catalog cannot get one", name)
		}
		v, err := tx.Get(bucketMeta, FormatKey)
		if err != nil {
			return err
		}
		return db.checkFormat(v)
	})
	if err != nil {
		return nil, errors.Join(err, db.Close())
	}
	return db, nil
}

// openError words an error of bolt.Open.
func openError(path string, timeout time.Duration, err error) error {
	var de *DamagedError
	switch {
	case errors.As(err, &de):
		return err
	case errors.Is(err, berrors.ErrTimeout):
		return fmt.Errorf("%w: %s is held by another process (waited %v): %w", ErrBusy, path, timeout, err)
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrVersionMismatch), errors.Is(err, berrors.ErrChecksum):
		return damaged(path, err, "bbolt: %v", err)
	case strings.Contains(err.Error(), "file size too small"):
		return damaged(path, err, "bbolt: %v", err)
	}
	return fmt.Errorf("catalog: opening %s: %w", path, err)
}

// View opens the catalog, runs fn and closes it, like With, for functions
// that only read: when the file cannot be opened for writing (NotWritable:
// its mode, its owner, a read-only mount) it is opened read-only instead,
// and fn's writes fail. A damaged or busy catalog is an error as from
// Open: readers that can do without it fall back to the logs.
func View(home string, timeout time.Duration, fn func(*DB) error) (err error) {
	db, err := Open(home, timeout)
	if err != nil && NotWritable(err) {
		var rerr error
		if db, rerr = openReadOnly(filepath.Join(home, FileName), timeout); rerr != nil {
			return errors.Join(err, fmt.Errorf("reading it read-only: %w", rerr))
		}
		err = nil
	}
	if err != nil {
		return err
	}
	defer func() {
		if cerr := db.Close(); cerr != nil {
			err = errors.Join(err, cerr)
		}
	}()
	return fn(db)
}

// Check opens the catalog and has bbolt walk every page (tx.Check): nil
// for a healthy catalog, an error matching ErrCorrupt for a damaged one,
// and Open's other errors (ErrBusy, a permission) as they are. A missing
// catalog is fs.ErrNotExist: Check never creates one.
func Check(home string, timeout time.Duration) error {
	path := filepath.Join(home, FileName)
	if missing, err := preCheck(path, timeout); missing {
		return fmt.Errorf("catalog: %s does not exist: %w", path, fs.ErrNotExist)
	} else if err != nil {
		return err
	}
	return With(home, timeout, func(db *DB) error {
		return db.view("checking every page", func(tx Tx) error {
			var problems []error
			for err := range tx.(boltTx).tx.Check() {
				problems = append(problems, err)
			}
			if len(problems) > 0 {
				return damaged(path, errors.Join(problems...), "bbolt's page check found %d problem(s), first: %v", len(problems), problems[0])
			}
			return nil
		})
	})
}

// MoveAside renames a damaged catalog.db to catalog.db.corrupt-<now, UTC,
// to the nanosecond> in the home (-2, -3 … if taken), never replacing a
// file, and syncs the directory: the file is kept as evidence, and the
// next Open creates a new catalog. It moves only what Check finds damaged:
// a healthy catalog is refused, a missing one is fs.ErrNotExist, one held
// by another process ErrBusy (after timeout). It returns the new name.
func MoveAside(home string, now time.Time, timeout time.Duration) (string, error) {
	path := filepath.Join(home, FileName)
	problem := Check(home, timeout)
	switch {
	case problem == nil:
		return "", fmt.Errorf("catalog: %s is not damaged (bbolt's page check passed); not moved aside", path)
	case !errors.Is(problem, ErrCorrupt):
		return "", problem
	}
	// Hold the lock bbolt takes while moving, so no process is inside the
	// file; the file locked must be the one at the path.
	lock, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("catalog: opening %s to lock it: %w", path, err)
	}
	defer lock.Close()
	if err := flockWait(lock, syscall.LOCK_EX, timeout); errors.Is(err, syscall.EWOULDBLOCK) {
		return "", fmt.Errorf("%w: %s is held by another process (waited %v): %w", ErrBusy, path, timeout, berrors.ErrTimeout)
	} else if err != nil {
		return "", fmt.Errorf("catalog: locking %s: %w", path, err)
	}
	held, err1 := lock.Stat()
	now2, err2 := os.Lstat(path)
	if err := errors.Join(err1, err2); err != nil {
		return "", fmt.Errorf("catalog: %s: %w", path, err)
	}
	if !os.SameFile(held, now2) {
		return "", fmt.Errorf("catalog: %s was replaced while it was being moved aside; run it again", path)
	}
	base := path + ".corrupt-" + now.UTC().Format("20060102T150405.000000000Z")
	for n := 1; n < 1000; n++ {
		aside := base
		if n > 1 {
			aside = fmt.Sprintf("%s-%d", base, n)
		}
		err := renameNoReplace(path, aside)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("catalog: moving %s aside to %s: %w", path, aside, err)
		}
		if err := syncDir(home); err != nil {
			return aside, fmt.Errorf("catalog: moved %s aside to %s, but syncing %s: %w", path, aside, home, err)
		}
		return aside, nil
	}
	return "", fmt.Errorf("catalog: no free name to move %s aside to (%s…)", path, base)
}

// flockWait takes how (LOCK_SH or LOCK_EX) on f, retrying for up to
// timeout as bbolt does.
func flockWait(f *os.File, how int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if err == nil || !errors.Is(err, syscall.EWOULDBLOCK) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	serr := d.Sync()
	return errors.Join(serr, d.Close())
}

// renameIfFree renames from to to unless to exists (checked first).
func renameIfFree(from, to string) error {
	if _, err := os.Lstat(to); err == nil {
		return fs.ErrExist
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return os.Rename(from, to)
}
