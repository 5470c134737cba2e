package vfs

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"

	"github.com/google/renameio/v2"
	"golang.org/x/sys/unix"
)

// Default is the real filesystem.
var Default FS = osFS{}

type osFS struct{}

func (osFS) Open(name string) (File, error) {
	return openOS(name, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
}

func (osFS) Create(name string, perm os.FileMode) (File, error) {
	return openOS(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, perm)
}

func (osFS) OpenAppend(name string) (File, error) {
	return openOS(name, os.O_WRONLY|os.O_APPEND|syscall.O_NOFOLLOW, 0)
}

// osFile is an *os.File with Lock: flock(2) on its descriptor.
type osFile struct{ *os.File }

func openOS(name string, flag int, perm os.FileMode) (File, error) {
	f, err := os.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return osFile{f}, nil
}

// Lock takes an exclusive flock(2) on f's open file description, retrying
// after EINTR. The kernel releases it on Close or when the process dies.
func (f osFile) Lock() error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var lerr error
	if err := rc.Control(func(fd uintptr) {
		for {
			lerr = unix.Flock(int(fd), unix.LOCK_EX)
			if !errors.Is(lerr, unix.EINTR) {
				return
			}
		}
	}); err != nil {
		return err
	}
	if lerr != nil {
		return &os.PathError{Op: "flock", Path: f.Name(), Err: lerr}
	}
	return nil
}

func (fs osFS) WriteFileAtomic(name string, data []byte, perm os.FileMode) error {
	// renameio fsyncs the temp file and renames it; it does not fsync the
	// directory, so the new entry could vanish on power loss without this.
	dir := filepath.Dir(name)
	if err := renameio.WriteFile(name, data, perm, renameio.WithTempDir(dir), renameio.WithStaticPermissions(perm)); err != nil {
		return err
	}
	return fs.SyncDir(dir)
}

func (osFS) Rename(oldname, newname string) error        { return os.Rename(oldname, newname) }
func (osFS) Link(oldname, newname string) error          { return os.Link(oldname, newname) }
func (osFS) Remove(name string) error                    { return os.Remove(name) }
func (osFS) MkdirAll(dir string, perm os.FileMode) error { return os.MkdirAll(dir, perm) }
func (osFS) ReadDir(dir string) ([]os.DirEntry, error)   { return os.ReadDir(dir) }
func (osFS) Lstat(name string) (os.FileInfo, error)      { return os.Lstat(name) }

func (osFS) SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	if err := d.Sync(); err != nil {
		return errors.Join(err, d.Close())
	}
	return d.Close()
}
