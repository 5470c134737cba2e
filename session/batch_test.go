package session_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/vfs"
	"github.com/graft-project/graft/vfs/errorfs"
)

// batchOf is n events of different sizes, none with a seq.
func batchOf(n int) []session.Event {
	evs := make([]session.Event, n)
	for k := range evs {
		evs[k] = assistant(fmt.Sprintf("event %d of the batch %s", k, strings.Repeat("x", k%7*9)))
	}
	return evs
}

// batchBytes is what Append writes for evs after seq last: the lines it
// would add.
func batchBytes(t *testing.T, evs []session.Event, last int64) int {
	t.Helper()
	n := 0
	for k, ev := range evs {
		n += len(line(t, last+int64(k)+1, ev))
	}
	return n
}

// memDir is a directory in /dev/shm when there is one (a tmpfs: the
// thousands of fsyncs of a fail-at-every-offset loop cost nothing), else
// t.TempDir(). Removed at the end of the test.
func memDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/dev/shm", "graft-session-test-")
	if err != nil {
		return t.TempDir()
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil {
			t.Errorf("removing %s: %v", dir, err)
		}
	})
	return dir
}

// TestFailedAppendKeepsNoPartOfItsBatch (issue 19, finding 2): a disk that
// fills at any byte of a batch, or an fsync that fails after it, leaves the
// log exactly as it was before the batch: no event of it is read back, and
// the retry appends the whole batch once, at the next seqs.
func TestFailedAppendKeepsNoPartOfItsBatch(t *testing.T) {
	const prior = 3
	batch := batchOf(12)
	var head string
	for k := range prior {
		head += line(t, int64(k+1), human(fmt.Sprintf("before %d", k)))
	}
	size := batchBytes(t, batch, prior)
	dir := memDir(t)

	check := func(t *testing.T, what string, fault *errorfs.Fault, want error) {
		t.Helper()
		st, err := session.OpenStore(errorfs.Wrap(vfs.Default, fault), dir)
		if err != nil {
			t.Fatal(err)
		}
		st.Now = func() time.Time { return pinnedNow }
		writeRaw(t, st, "s", head)
		_, err = st.Append("s", batch)
		if _, fired := fault.Fired(); !fired {
			t.Fatalf("%s: the fault never fired: %s", what, fault)
		}
		if !errors.Is(err, want) {
			t.Fatalf("%s: Append = %v, want %v", what, err, want)
		}
		if got := readRaw(t, st.Path("s")); got != head {
			t.Fatalf("%s: the failed batch left %d byte(s) in the log:\n%q", what, len(got)-len(head), got[min(len(head), len(got)):])
		}
		checkLog(t, st, "s", prior)
		out := mustAppend(t, st, "s", batch...)
		if out[0].Seq != prior+1 {
			t.Fatalf("%s: the retry starts at seq %d, want %d", what, out[0].Seq, prior+1)
		}
		checkLog(t, st, "s", prior+len(batch))
	}
	for k := 0; k < size; k++ {
		check(t, fmt.Sprintf("ENOSPC after %d of %d bytes", k, size),
			errorfs.OnKind(errorfs.OpWrite, "s.jsonl", 1, syscall.ENOSPC).TornWriteAfter(k), syscall.ENOSPC)
	}
	check(t, "ENOSPC on the fsync", errorfs.OnKind(errorfs.OpSync, "s.jsonl", 1, syscall.ENOSPC), syscall.ENOSPC)
	check(t, "EIO on the fsync", errorfs.OnKind(errorfs.OpSync, "s.jsonl", 1, syscall.EIO), syscall.EIO)
}

// TestFailedAppendThatCreatesLeavesNoLog: the first append of a session
// creates its log; a disk that fills at any byte of it, or an fsync of the
// file or of the directory that fails, leaves no log: no session appears
// with part of the batch, and the retry creates it whole.
func TestFailedAppendThatCreatesLeavesNoLog(t *testing.T) {
	batch := batchOf(12)
	size := batchBytes(t, batch, 0)
	dir := memDir(t)
	check := func(t *testing.T, what string, fault *errorfs.Fault, want error) {
		t.Helper()
		st, err := session.OpenStore(errorfs.Wrap(vfs.Default, fault), dir)
		if err != nil {
			t.Fatal(err)
		}
		st.Now = func() time.Time { return pinnedNow }
		if err := os.Remove(st.Path("s")); err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		_, err = st.Append("s", batch)
		if _, fired := fault.Fired(); !fired {
			t.Fatalf("%s: the fault never fired: %s", what, fault)
		}
		if !errors.Is(err, want) {
			t.Fatalf("%s: Append = %v, want %v", what, err, want)
		}
		if _, err := os.Lstat(st.Path("s")); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("%s: the failed first batch left a log (%v): %q", what, err, readRaw(t, st.Path("s")))
		}
		mustAppend(t, st, "s", batch...)
		checkLog(t, st, "s", len(batch))
	}
	for k := 0; k < size; k++ {
		check(t, fmt.Sprintf("ENOSPC after %d of %d bytes", k, size),
			errorfs.OnKind(errorfs.OpWrite, "s.jsonl", 1, syscall.ENOSPC).TornWriteAfter(k), syscall.ENOSPC)
	}
	check(t, "EIO on the fsync", errorfs.OnKind(errorfs.OpSync, "s.jsonl", 1, syscall.EIO), syscall.EIO)
	check(t, "EIO on the directory fsync", errorfs.OnKind(errorfs.OpSyncDir, "sessions", 1, syscall.EIO), syscall.EIO)
}

// TestRealENOSPCKeepsNoPartOfTheBatch: the same on a real full disk, a
// size-limited tmpfs (root only; CI runs as root). 200 events are appended
// with 0, 1, 2, … pages free until they fit: every append that fails
// leaves the log as it was.
func TestRealENOSPCKeepsNoPartOfTheBatch(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a real ENOSPC needs root to mount a tmpfs; the injected variant (TestFailedAppendKeepsNoPartOfItsBatch) ran")
	}
	const size = 1 << 20
	mnt := t.TempDir()
	if err := unix.Mount("tmpfs", mnt, "tmpfs", 0, fmt.Sprintf("size=%d,mode=0700", size)); err != nil {
		t.Skipf("mount -t tmpfs is not permitted here (%v); the injected variant ran", err)
	}
	t.Cleanup(func() {
		if err := unix.Unmount(mnt, unix.MNT_DETACH); err != nil {
			t.Errorf("umount %s: %v", mnt, err)
		}
	})
	st, err := session.OpenStore(vfs.Default, filepath.Join(mnt, "home"))
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, st, "s", human("before the disk filled"), assistant("ok"), assistant("ok"))
	head := readRaw(t, st.Path("s"))
	batch := batchOf(200)
	filler, err := os.OpenFile(filepath.Join(mnt, "filler"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer filler.Close()
	zeros := make([]byte, 4096)
	for {
		if _, err := filler.Write(zeros); errors.Is(err, syscall.ENOSPC) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	full, err := filler.Stat()
	if err != nil {
		t.Fatal(err)
	}
	page := int64(os.Getpagesize())
	failures := 0
	for free := int64(0); ; free++ {
		if free > 64 {
			t.Fatalf("200 events never fit in 64 free pages")
		}
		if err := filler.Truncate(max(full.Size()-free*page, 0)); err != nil {
			t.Fatal(err)
		}
		_, err := st.Append("s", batch)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("%d free pages: Append = %v, want ENOSPC", free, err)
		}
		failures++
		if got := readRaw(t, st.Path("s")); got != head {
			info, ierr := st.Info("s")
			t.Fatalf("%d free pages: the failed append of 200 events left %d byte(s) in the log (%d events read back, %v)", free, len(got)-len(head), info.Events, ierr)
		}
	}
	if failures < 2 {
		t.Fatalf("only %d fill level(s) failed: the disk never filled in the middle of the batch", failures)
	}
	checkLog(t, st, "s", 3+len(batch))
}
