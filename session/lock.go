package session

import (
	"fmt"

	"github.com/graft-project/graft/vfs"
)

// lockFile takes an exclusive lock on f (vfs.File.Lock: flock(2) on disk),
// blocking until it is free. The log is never renamed, so a lock on its
// inode serializes every writer of the session across processes; closing f
// releases it.
func lockFile(f vfs.File) error {
	if err := f.Lock(); err != nil {
		return fmt.Errorf("session: locking %s: %w", f.Name(), err)
	}
	return nil
}

// lockNew locks a file this process just created with O_EXCL and checks it
// is still empty: between the create and the lock another process may have
// appended to it, and writing at offset 0 would overwrite those events.
func lockNew(f vfs.File) error {
	if err := lockFile(f); err != nil {
		return err
	}
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("session: stat %s: %w", f.Name(), err)
	}
	if fi.Size() != 0 {
		return fmt.Errorf("%w: %s was appended to by another writer before it was locked (%d bytes)", ErrExists, f.Name(), fi.Size())
	}
	return nil
}

// openLocked opens the existing log at path for appending, refuses anything
// but a regular file, and takes the append lock.
func (s *Store) openLocked(path string) (vfs.File, error) {
	if err := s.regularPath(path); err != nil {
		return nil, err
	}
	f, err := s.FS.OpenAppend(path)
	if err != nil {
		return nil, translate(path, err)
	}
	if err := regular(f); err != nil {
		return nil, vfs.CloseAfter(f, err)
	}
	if err := lockFile(f); err != nil {
		return nil, vfs.CloseAfter(f, err)
	}
	return f, nil
}
