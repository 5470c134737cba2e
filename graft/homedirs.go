package graft

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/vfs"
)

// homeDirs are the directories graft keeps in its home (docs/DESIGN.md §3).
var homeDirs = []string{"sessions", "locks", ".txn", "imports", "index", "hosts"}

// checkHome refuses a home in which one of graft's directories, or
// catalog.db, is a symlink (or a directory is not one): graft never
// follows a symlink inside its home, whichever package would write there,
// so that a planted link cannot send a log, a lock or a journal record
// elsewhere. The home itself may be a symlink. The error matches
// session.ErrSymlink (exit 33, symlink_refused) and names the path.
func checkHome(fsys vfs.FS, home string) error {
	for _, name := range append(append([]string(nil), homeDirs...), catalog.FileName) {
		p := filepath.Join(home, name)
		fi, err := fsys.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("graft: checking %s: %w", p, err)
		}
		what := "directory"
		if name == catalog.FileName {
			what = "file"
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			return &homeEntryError{path: p, problem: fmt.Sprintf("is a symlink: graft refuses a symlink in place of a %s of its home; put the %s itself there", what, what)}
		case name != catalog.FileName && !fi.IsDir():
			return &homeEntryError{path: p, problem: fmt.Sprintf("is not a directory (mode %v)", fi.Mode())}
		}
	}
	return nil
}

// homeEntryError is a path of the home that checkHome refuses.
type homeEntryError struct{ path, problem string }

func (e *homeEntryError) Error() string { return e.path + " " + e.problem }
func (e *homeEntryError) Unwrap() error { return session.ErrSymlink }
