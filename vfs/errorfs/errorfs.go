package errorfs

import (
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/graft-project/graft/vfs"
)

// OpKind names an operation of vfs.FS or vfs.File.
type OpKind string

// The operation kinds, one per method (Read and ReadAt are both OpRead).
const (
	OpOpen        OpKind = "open"
	OpCreate      OpKind = "create"
	OpOpenAppend  OpKind = "openappend"
	OpWrite       OpKind = "write"
	OpSync        OpKind = "sync"
	OpTruncate    OpKind = "truncate"
	OpClose       OpKind = "close"
	OpWriteAtomic OpKind = "writeatomic"
	OpRename      OpKind = "rename"
	OpLink        OpKind = "link"
	OpRemove      OpKind = "remove"
	OpMkdirAll    OpKind = "mkdirall"
	OpReadDir     OpKind = "readdir"
	OpLstat       OpKind = "lstat"
	OpSyncDir     OpKind = "syncdir"
	OpRead        OpKind = "read"
	OpStat        OpKind = "stat"
)

var kinds = map[OpKind]bool{
	OpOpen: true, OpCreate: true, OpOpenAppend: true, OpWrite: true, OpSync: true,
	OpTruncate: true, OpClose: true, OpWriteAtomic: true, OpRename: true, OpLink: true, OpRemove: true,
	OpMkdirAll: true, OpReadDir: true, OpLstat: true, OpSyncDir: true, OpRead: true, OpStat: true,
}

// Op is one operation as the wrapper saw it.
type Op struct {
	Kind OpKind
	// Path is the name passed to the FS method, or the name the file was
	// opened with for a File method; for a rename, the old name.
	Path string
	// NewPath is the new name of a rename; empty otherwise.
	NewPath string
	// Index is the 1-based count of operations so far, this one included.
	Index int
}

// String reads "op 7: sync sessions/x.jsonl".
func (op Op) String() string {
	if op.NewPath != "" {
		return fmt.Sprintf("op %d: %s %s -> %s", op.Index, op.Kind, op.Path, op.NewPath)
	}
	return fmt.Sprintf("op %d: %s %s", op.Index, op.Kind, op.Path)
}

// Injector decides, before each operation runs, whether it fails. A non-nil
// error is returned to the caller instead of running the operation; return
// an *InjectedError with Torn set to tear a write. MaybeError runs under
// the FS's lock, so it must not call the FS.
type Injector interface {
	MaybeError(op Op) error
}

// LogLimit is how many of the latest operations FS.Log keeps.
const LogLimit = 256

// FS is a vfs.FS that numbers every operation and consults an Injector
// before running it on the wrapped FS.
type FS struct {
	fs  vfs.FS
	inj Injector

	mu  sync.Mutex
	ops int
	log []Op // ring of the last LogLimit ops; log[ops%LogLimit] is the oldest once full
}

var _ vfs.FS = (*FS)(nil)

// Wrap returns fs with errors injected by inj. A nil inj injects nothing:
// the wrapper then only counts, which sizes a "fail op N" loop.
func Wrap(fs vfs.FS, inj Injector) *FS {
	return &FS{fs: fs, inj: inj}
}

// Ops is the number of operations so far.
func (f *FS) Ops() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ops
}

// Log returns the last (up to LogLimit) operations, oldest first.
func (f *FS) Log() []Op {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.log) < LogLimit {
		return append([]Op(nil), f.log...)
	}
	start := f.ops % LogLimit
	return append(append([]Op(nil), f.log[start:]...), f.log[:start]...)
}

// begin numbers an operation and asks the injector about it. The lock is
// held across MaybeError so that injectors with their own counters see
// operations in index order even when callers race.
func (f *FS) begin(kind OpKind, path, newPath string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ops++
	op := Op{Kind: kind, Path: path, NewPath: newPath, Index: f.ops}
	if len(f.log) < LogLimit {
		f.log = append(f.log, op)
	} else {
		f.log[(f.ops-1)%LogLimit] = op
	}
	if f.inj == nil {
		return nil
	}
	return f.inj.MaybeError(op)
}

func (f *FS) wrapFile(name string, file vfs.File, err error) (vfs.File, error) {
	if err != nil {
		return nil, err
	}
	return &errorFile{fs: f, file: file, path: name}, nil
}

// Lock forwards to the wrapped file. It is not counted as an operation and
// no error is injected into it: the fault plans number the data operations,
// and a lock neither writes nor makes anything durable.
func (e *errorFile) Lock() error { return e.file.Lock() }

// Open implements vfs.FS.
func (f *FS) Open(name string) (vfs.File, error) {
	if err := f.begin(OpOpen, name, ""); err != nil {
		return nil, err
	}
	file, err := f.fs.Open(name)
	return f.wrapFile(name, file, err)
}

// Create implements vfs.FS.
func (f *FS) Create(name string, perm os.FileMode) (vfs.File, error) {
	if err := f.begin(OpCreate, name, ""); err != nil {
		return nil, err
	}
	file, err := f.fs.Create(name, perm)
	return f.wrapFile(name, file, err)
}

// OpenAppend implements vfs.FS.
func (f *FS) OpenAppend(name string) (vfs.File, error) {
	if err := f.begin(OpOpenAppend, name, ""); err != nil {
		return nil, err
	}
	file, err := f.fs.OpenAppend(name)
	return f.wrapFile(name, file, err)
}

// WriteFileAtomic implements vfs.FS; it is one operation.
func (f *FS) WriteFileAtomic(name string, data []byte, perm os.FileMode) error {
	if err := f.begin(OpWriteAtomic, name, ""); err != nil {
		return err
	}
	return f.fs.WriteFileAtomic(name, data, perm)
}

// Rename implements vfs.FS.
func (f *FS) Rename(oldname, newname string) error {
	if err := f.begin(OpRename, oldname, newname); err != nil {
		return err
	}
	return f.fs.Rename(oldname, newname)
}

// Link implements vfs.FS.
func (f *FS) Link(oldname, newname string) error {
	if err := f.begin(OpLink, oldname, newname); err != nil {
		return err
	}
	return f.fs.Link(oldname, newname)
}

// Remove implements vfs.FS.
func (f *FS) Remove(name string) error {
	if err := f.begin(OpRemove, name, ""); err != nil {
		return err
	}
	return f.fs.Remove(name)
}

// MkdirAll implements vfs.FS.
func (f *FS) MkdirAll(dir string, perm os.FileMode) error {
	if err := f.begin(OpMkdirAll, dir, ""); err != nil {
		return err
	}
	return f.fs.MkdirAll(dir, perm)
}

// ReadDir implements vfs.FS.
func (f *FS) ReadDir(dir string) ([]os.DirEntry, error) {
	if err := f.begin(OpReadDir, dir, ""); err != nil {
		return nil, err
	}
	return f.fs.ReadDir(dir)
}

// Lstat implements vfs.FS.
func (f *FS) Lstat(name string) (os.FileInfo, error) {
	if err := f.begin(OpLstat, name, ""); err != nil {
		return nil, err
	}
	return f.fs.Lstat(name)
}

// SyncDir implements vfs.FS.
func (f *FS) SyncDir(dir string) error {
	if err := f.begin(OpSyncDir, dir, ""); err != nil {
		return err
	}
	return f.fs.SyncDir(dir)
}

// errorFile counts and fails the operations of one open file.
type errorFile struct {
	fs   *FS
	file vfs.File
	path string
}

func (e *errorFile) Read(p []byte) (int, error) {
	if err := e.fs.begin(OpRead, e.path, ""); err != nil {
		return 0, err
	}
	return e.file.Read(p)
}

func (e *errorFile) ReadAt(p []byte, off int64) (int, error) {
	if err := e.fs.begin(OpRead, e.path, ""); err != nil {
		return 0, err
	}
	return e.file.ReadAt(p, off)
}

func (e *errorFile) Write(p []byte) (int, error) {
	err := e.fs.begin(OpWrite, e.path, "")
	if err == nil {
		return e.file.Write(p)
	}
	var injected *InjectedError
	if !errors.As(err, &injected) || !injected.Torn {
		return 0, err
	}
	// A torn write: the first half (or the first injected.after bytes)
	// reaches the file, as when the disk fills or fails part-way through a
	// write(2).
	keep := len(p) / 2
	if injected.exact {
		keep = min(injected.after, len(p))
	}
	n, werr := e.file.Write(p[:keep])
	torn := *injected
	torn.Written, torn.Of = n, len(p)
	if werr != nil {
		return n, errors.Join(&torn, fmt.Errorf("errorfs: writing the torn prefix of %s: %w", e.path, werr))
	}
	return n, &torn
}

func (e *errorFile) Close() error {
	err := e.fs.begin(OpClose, e.path, "")
	// The descriptor is released even when close reports an error.
	cerr := e.file.Close()
	if err != nil {
		if cerr != nil {
			return errors.Join(err, fmt.Errorf("errorfs: closing %s: %w", e.path, cerr))
		}
		return err
	}
	return cerr
}

func (e *errorFile) Sync() error {
	if err := e.fs.begin(OpSync, e.path, ""); err != nil {
		return err
	}
	return e.file.Sync()
}

func (e *errorFile) Stat() (os.FileInfo, error) {
	if err := e.fs.begin(OpStat, e.path, ""); err != nil {
		return nil, err
	}
	return e.file.Stat()
}

func (e *errorFile) Truncate(size int64) error {
	if err := e.fs.begin(OpTruncate, e.path, ""); err != nil {
		return err
	}
	return e.file.Truncate(size)
}

// Name is not an operation: it cannot fail, so it is not counted.
func (e *errorFile) Name() string { return e.file.Name() }
