package crashfs_test

import (
	"testing"
	"time"

	"github.com/graft-project/graft/vfs"
	"github.com/graft-project/graft/vfs/crashfs"
)

// lockAsync calls f.Lock in a goroutine; the channel gets its result.
func lockAsync(f vfs.File) <-chan error {
	done := make(chan error, 1)
	go func() { done <- f.Lock() }()
	return done
}

// waitLocked is the result of a Lock that must return; blocked, if it has
// not returned after wait.
func waitLocked(t *testing.T, done <-chan error, wait time.Duration) (err error, blocked bool) {
	t.Helper()
	select {
	case err := <-done:
		return err, false
	case <-time.After(wait):
		return nil, true
	}
}

// Two handles of one file exclude each other through Lock, as two opens of
// a real file do; Close releases and wakes the waiter; the holder locking
// again does not block; another file is not affected.
func TestLockLikeARealFile(t *testing.T) {
	f := crashfs.New()
	writeNew(t, f, "/a", "a", true, true)
	writeNew(t, f, "/b", "b", true, true)
	first, err := f.OpenAppend("/a")
	must(t, "open first", err)
	second, err := f.OpenAppend("/a")
	must(t, "open second", err)
	other, err := f.Open("/b")
	must(t, "open other", err)
	must(t, "lock first", first.Lock())
	must(t, "lock first again", first.Lock())
	waiting := lockAsync(second)
	if err, blocked := waitLocked(t, waiting, 50*time.Millisecond); !blocked {
		t.Fatalf("second handle locked while the first holds the lock: %v", err)
	}
	must(t, "lock another file", other.Lock())
	must(t, "close first", first.Close())
	err, blocked := waitLocked(t, waiting, 5*time.Second)
	if blocked {
		t.Fatal("second handle still waiting after the first closed")
	}
	must(t, "lock second after the first closed", err)
	must(t, "close second", second.Close())
	must(t, "close other", other.Close())
	if err := second.Lock(); err == nil {
		t.Fatal("Lock of a closed handle succeeded")
	}
	// A crash state is a new set of files: its locks are its own.
	held, err := f.OpenAppend("/a")
	must(t, "open in original", err)
	must(t, "lock in original", held.Lock())
	clone := f.CrashClone()
	h, err := clone.OpenAppend("/a")
	must(t, "open in clone", err)
	if err, blocked := waitLocked(t, lockAsync(h), 5*time.Second); blocked || err != nil {
		t.Fatalf("lock in clone: blocked %v, %v", blocked, err)
	}
	must(t, "close in clone", h.Close())
	must(t, "close in original", held.Close())
}
