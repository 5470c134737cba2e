package session_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/graft-project/graft/lockfile"
	"github.com/graft-project/graft/session"
)

// homeOf is the graft home of a store: the parent of sessions/.
func homeOf(st *session.Store) string { return filepath.Dir(st.Dir()) }

// TestCreatorsTakeTheSessionLock (issue 19, finding 1): Create and
// CreateWriter take the session's lock (locks/<id>.lock), the lock a graft
// transaction holds on its target, and wait for it: a log is never created
// under a commit into the same id.
func TestCreatorsTakeTheSessionLock(t *testing.T) {
	creators := map[string]func(st *session.Store, id string) error{
		"Create": func(st *session.Store, id string) error { return st.Create(id, []session.Event{human("go")}) },
		"CreateWriter": func(st *session.Store, id string) error {
			w, err := st.CreateWriter(id)
			if err != nil {
				return err
			}
			ev := human("go")
			if err := w.Write(&ev); err != nil {
				return errors.Join(err, w.Close())
			}
			return w.Close()
		},
	}
	for name, create := range creators {
		t.Run(name, func(t *testing.T) {
			st := newStore(t)
			held, err := lockfile.TryLock(homeOf(st), "u")
			if err != nil {
				t.Fatal(err)
			}
			st.LockWait = 50 * time.Millisecond
			if err := create(st, "u"); !errors.Is(err, lockfile.ErrLocked) {
				t.Fatalf("%s under a held session lock = %v, want lockfile.ErrLocked", name, err)
			}
			if _, err := os.Lstat(st.Path("u")); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("%s created the log under a held session lock (%v)", name, err)
			}

			st.LockWait = 10 * time.Second
			done := make(chan error, 1)
			go func() { done <- create(st, "u") }()
			select {
			case err := <-done:
				t.Fatalf("%s returned (%v) while the session lock was held", name, err)
			case <-time.After(150 * time.Millisecond):
			}
			if _, err := os.Lstat(st.Path("u")); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("%s created the log while waiting for the session lock (%v)", name, err)
			}
			if err := held.Unlock(); err != nil {
				t.Fatal(err)
			}
			if err := <-done; err != nil {
				t.Fatalf("%s after the lock was released: %v", name, err)
			}
			checkLog(t, st, "u", 1)
			// Released once the log is written.
			l, err := lockfile.TryLock(homeOf(st), "u")
			if err != nil {
				t.Fatalf("the session lock is still held after %s: %v", name, err)
			}
			if err := l.Unlock(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestWriterHoldsTheSessionLockUntilClose: a log streamed by a Writer is
// being created until Close; a commit into its id (or the recovery scan of
// a record naming it) finds the lock held all that time.
func TestWriterHoldsTheSessionLockUntilClose(t *testing.T) {
	for _, end := range []string{"Close", "Abort"} {
		t.Run(end, func(t *testing.T) {
			st := newStore(t)
			w, err := st.CreateWriter("w")
			if err != nil {
				t.Fatal(err)
			}
			ev := human("go")
			if err := w.Write(&ev); err != nil {
				t.Fatal(err)
			}
			if l, err := lockfile.TryLock(homeOf(st), "w"); !errors.Is(err, lockfile.ErrLocked) {
				t.Fatalf("TryLock while the Writer is open = %v, %v; want ErrLocked", l, err)
			}
			if end == "Close" {
				err = w.Close()
			} else {
				err = w.Abort()
			}
			if err != nil {
				t.Fatalf("%s: %v", end, err)
			}
			l, err := lockfile.TryLock(homeOf(st), "w")
			if err != nil {
				t.Fatalf("TryLock after %s: %v", end, err)
			}
			if err := l.Unlock(); err != nil {
				t.Fatal(err)
			}
			_, statErr := os.Lstat(st.Path("w"))
			if end == "Close" {
				checkLog(t, st, "w", 1)
			} else if !errors.Is(statErr, fs.ErrNotExist) {
				t.Fatalf("Abort left the log (%v): it keeps nothing of a failed run", statErr)
			}
		})
	}
}
