package lockfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"syscall"
	"time"

	"github.com/gofrs/flock"
)

var (
	// ErrLocked: another open file description (another process, or another
	// TryLock in this one) holds the lock.
	ErrLocked = errors.New("lockfile: locked by another process")
	// ErrNotHeld: Unlock of a lock already released.
	ErrNotHeld = errors.New("lockfile: lock not held")
	// ErrReplaced: the lock file was deleted or replaced while being locked.
	ErrReplaced = errors.New("lockfile: lock file replaced")
	// ErrInvalidName: a lock name that is not a valid session id.
	ErrInvalidName = errors.New("lockfile: invalid lock name")
)

// namePattern is the session id rule (session.ValidID): package session
// takes these locks, so this package cannot import it; a test checks that
// the two rules agree.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// ValidName refuses every name that is not a valid session id, before any
// file is touched.
func ValidName(name string) error {
	if !namePattern.MatchString(name) {
		return fmt.Errorf("%w %q: want a session id, 1-128 characters of [A-Za-z0-9._-] starting with a letter or digit", ErrInvalidName, name)
	}
	return nil
}

const (
	// DirName is the lock directory inside a graft home.
	DirName = "locks"
	// Ext is the extension of a lock file.
	Ext = ".lock"
	// ImportDirName is the subdirectory of DirName that holds the
	// importer's locks, one per target session; a name there cannot collide
	// with a session's lock in DirName.
	ImportDirName = "import"
	// DirMode and FileMode are the permissions of the directory and files.
	DirMode  os.FileMode = 0o700
	FileMode os.FileMode = 0o600
)

// Lock is one held lock.
type Lock struct {
	name string
	fl   *flock.Flock
}

// Path is the lock file of name in home; name must be a valid session id.
func Path(home, name string) string {
	return filepath.Join(home, DirName, name+Ext)
}

// TryLock takes the exclusive lock home/locks/<name>.lock without blocking,
// creating the directory and the file if missing. A lock held elsewhere is
// an error wrapping ErrLocked that names the lock.
func TryLock(home, name string) (*Lock, error) {
	return tryLock(filepath.Join(home, DirName), name)
}

// ImportPath is the import lock of session id in home:
// home/locks/import/<id>.lock.
func ImportPath(home, id string) string {
	return filepath.Join(home, DirName, ImportDirName, id+Ext)
}

// TryLockImport takes the exclusive lock home/locks/import/<id>.lock without
// blocking, as TryLock does: the lock an import into session id holds for
// its whole run. It is not the session's lock (locks/<id>.lock), which the
// import takes per batch while holding this one.
func TryLockImport(home, id string) (*Lock, error) {
	return tryLock(filepath.Join(home, DirName, ImportDirName), id)
}

// tryLock takes dir/<name>.lock, creating dir (and its parents) if missing.
func tryLock(dir, name string) (*Lock, error) {
	if err := ValidName(name); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, DirMode); err != nil {
		return nil, fmt.Errorf("lockfile: creating %s: %w", dir, err)
	}
	path := filepath.Join(dir, name+Ext)
	fl := flock.New(path,
		flock.SetFlag(os.O_CREATE|os.O_RDONLY|syscall.O_NOFOLLOW),
		flock.SetPermissions(FileMode))
	ok, err := fl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lockfile: locking %s: %w", path, err)
	}
	if !ok {
		return nil, fmt.Errorf("%w: %s (%s)", ErrLocked, name, path)
	}
	l := &Lock{name: name, fl: fl}
	if err := l.sameInode(); err != nil {
		if uerr := fl.Unlock(); uerr != nil {
			return nil, errors.Join(err, fmt.Errorf("lockfile: releasing %s: %w", path, uerr))
		}
		return nil, err
	}
	return l, nil
}

// sameInode checks that the locked descriptor is still the file at the
// path: a deleted or replaced lock file would let a second owner in.
func (l *Lock) sameInode() error {
	path := l.fl.Path()
	held, err := l.fl.Stat()
	if err != nil {
		return fmt.Errorf("lockfile: stat of locked %s: %w", path, err)
	}
	atPath, err := os.Lstat(path)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrReplaced, path, err)
	}
	if !os.SameFile(held, atPath) {
		return fmt.Errorf("%w: %s no longer names the file that was locked", ErrReplaced, path)
	}
	return nil
}

// Unlock releases the lock and closes the file; the file stays. Unlocking
// twice is an error wrapping ErrNotHeld.
func (l *Lock) Unlock() error {
	if !l.fl.Locked() {
		return fmt.Errorf("%w: %s", ErrNotHeld, l.fl.Path())
	}
	if err := l.fl.Unlock(); err != nil {
		return fmt.Errorf("lockfile: unlocking %s: %w", l.fl.Path(), err)
	}
	return nil
}

// Name is the lock's name (a session id).
func (l *Lock) Name() string { return l.name }

// Path is the lock's file.
func (l *Lock) Path() string { return l.fl.Path() }

// WaitLock is TryLock retried every poll until it succeeds or wait passes;
// then the error wraps ErrLocked. For short critical sections such as an
// append that must not interleave with a commit.
func WaitLock(home, name string, wait, poll time.Duration) (*Lock, error) {
	deadline := time.Now().Add(wait)
	for {
		l, err := TryLock(home, name)
		if err == nil || !errors.Is(err, ErrLocked) || time.Now().After(deadline) {
			return l, err
		}
		time.Sleep(poll)
	}
}
