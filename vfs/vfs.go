package vfs

import (
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
	// Fd is a descriptor the session store flocks to serialize writers of
	// one log; it is used for nothing else.
	Fd() uintptr
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
	Remove(name string) error
	MkdirAll(dir string, perm os.FileMode) error
	ReadDir(dir string) ([]os.DirEntry, error)
	Lstat(name string) (os.FileInfo, error)
	// SyncDir fsyncs a directory so the entries created, renamed or removed
	// in it survive power loss.
	SyncDir(dir string) error
}
