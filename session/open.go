package session

import (
	"fmt"
	"io/fs"

	"github.com/graft-project/graft/vfs"
)

// OpenLog opens the log of id read-only under the store's rules (a
// regular file, checked before the open so a planted FIFO cannot block and
// after it; never a symlink), for a reader that must check an index
// against the very file it reads: the scan index of a fold, a review's
// seal, recall's seq marks. fi is the open file's. The caller closes f.
func (s *Store) OpenLog(id string) (f vfs.File, fi fs.FileInfo, err error) {
	if err := ValidID(id); err != nil {
		return nil, nil, err
	}
	path := s.Path(id)
	if err := s.regularPath(path); err != nil {
		return nil, nil, err
	}
	if f, err = s.FS.Open(path); err != nil {
		return nil, nil, translate(path, err)
	}
	if fi, err = f.Stat(); err != nil {
		return nil, nil, vfs.CloseAfter(f, fmt.Errorf("session: stat %s: %w", path, err))
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, vfs.CloseAfter(f, fmt.Errorf("%w: %s", ErrSymlink, path))
	}
	return f, fi, nil
}
