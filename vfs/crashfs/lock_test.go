package crashfs_test

import (
	"errors"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/graft-project/graft/vfs"
	"github.com/graft-project/graft/vfs/crashfs"
)

type fileDescriptor interface{ Fd() uintptr }

func tryLock(t *testing.T, f vfs.File) error {
	t.Helper()
	fd, ok := f.(fileDescriptor)
	if !ok {
		t.Fatalf("%T has no Fd method", f)
	}
	return unix.Flock(int(fd.Fd()), unix.LOCK_EX|unix.LOCK_NB)
}

// Two handles of one file exclude each other through Fd, as two opens of a
// real file do; Close releases; another file is not affected.
func TestFdLocksLikeARealFile(t *testing.T) {
	f := crashfs.New()
	writeNew(t, f, "/a", "a", true, true)
	writeNew(t, f, "/b", "b", true, true)
	first, err := f.OpenAppend("/a")
	must(t, "open first", err)
	second, err := f.OpenAppend("/a")
	must(t, "open second", err)
	other, err := f.Open("/b")
	must(t, "open other", err)
	must(t, "lock first", tryLock(t, first))
	if err := tryLock(t, second); !errors.Is(err, unix.EWOULDBLOCK) {
		t.Fatalf("second handle locked while the first holds the lock: %v", err)
	}
	must(t, "lock another file", tryLock(t, other))
	must(t, "close first", first.Close())
	must(t, "lock second after the first closed", tryLock(t, second))
	must(t, "close second", second.Close())
	must(t, "close other", other.Close())
	// A crash state is a new set of files: its locks are its own.
	clone := f.CrashClone()
	h, err := clone.OpenAppend("/a")
	must(t, "open in clone", err)
	must(t, "lock in clone", tryLock(t, h))
	must(t, "close in clone", h.Close())
}
