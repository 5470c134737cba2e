package vfs

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// File is an open file of an FS.
type File interface {
	io.Reader
	io.ReaderAt
	io.Writer
	io.Closer
	Sync() error
	Stat() (os.FileInfo, error)
	Truncate(size int64) error
	Name() string
	// Lock takes an exclusive advisory lock on the file, blocking until no
	// other open file holds it (another process, or another Open of the
	// same file in this one: the lock belongs to the open file, as flock(2)
	// does). Close releases it; so does the holder's death. The session
	// store takes it to serialize the writers of one log.
	Lock() error
}

// FS is every file operation graft performs on its data. Implementations
// must not follow a symlink in the last path element.
type FS interface {
	// Open opens name read-only.
	Open(name string) (File, error)
	// Create creates name exclusively (O_EXCL) for writing.
	Create(name string, perm os.FileMode) (File, error)
	// OpenAppend opens an existing file for appending.
	OpenAppend(name string) (File, error)
	// WriteFileAtomic replaces name with data: temp file, fsync, rename,
	// fsync of the directory. Readers see the old or the new bytes.
	WriteFileAtomic(name string, data []byte, perm os.FileMode) error
	Rename(oldname, newname string) error
	// Link gives the file oldname a second name newname, never replacing
	// anything there (EEXIST, as link(2)): how a file is published whole
	// under a name another program may already use.
	Link(oldname, newname string) error
	Remove(name string) error
	MkdirAll(dir string, perm os.FileMode) error
	ReadDir(dir string) ([]os.DirEntry, error)
	Lstat(name string) (os.FileInfo, error)
	// SyncDir fsyncs a directory so the entries created, renamed or removed
	// in it survive power loss.
	SyncDir(dir string) error
}

// CloseAfter closes f after the work that gave err, keeping both errors
// when the close fails too. f is a File or an *os.File.
func CloseAfter(f interface {
	Close() error
	Name() string
}, err error) error {
	if cerr := f.Close(); cerr != nil {
		return errors.Join(err, fmt.Errorf("closing %s: %w", f.Name(), cerr))
	}
	return err
}
