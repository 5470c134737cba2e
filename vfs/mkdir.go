package vfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// MkdirAllDurable creates dir and any missing parents, and fsyncs the parent
// of every directory it created, so the new entries survive power loss
// (MkdirAll alone leaves them in the page cache).
func MkdirAllDurable(fsys FS, dir string, perm os.FileMode) error {
	dir = filepath.Clean(dir)
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := fsys.Lstat(d)
		if err == nil {
			// A symlink is left to the caller's own type check, as MkdirAll
			// (which follows it) would.
			if !fi.IsDir() && fi.Mode()&fs.ModeSymlink == 0 {
				return &fs.PathError{Op: "mkdir", Path: d, Err: syscall.ENOTDIR}
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if err := fsys.MkdirAll(dir, perm); err != nil {
		return err
	}
	for k := len(missing) - 1; k >= 0; k-- {
		parent := filepath.Dir(missing[k])
		if err := fsys.SyncDir(parent); err != nil {
			return fmt.Errorf("fsync directory %s after creating %s: %w", parent, missing[k], err)
		}
	}
	return nil
}
