package lockfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/graft-project/graft/internal/helperproc"
)

func mustLock(t *testing.T, home, name string) *Lock {
	t.Helper()
	l, err := TryLock(home, name)
	if err != nil {
		t.Fatalf("TryLock(%s): %v", name, err)
	}
	return l
}

func mustUnlock(t *testing.T, l *Lock) {
	t.Helper()
	if err := l.Unlock(); err != nil {
		t.Fatalf("Unlock(%s): %v", l.Name(), err)
	}
}

func TestTryLockCreatesDirAndFile(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	l := mustLock(t, home, "src-1")
	defer mustUnlock(t, l)
	if l.Name() != "src-1" || l.Path() != filepath.Join(home, "locks", "src-1.lock") || Path(home, "src-1") != l.Path() {
		t.Fatalf("Name %q Path %q", l.Name(), l.Path())
	}
	di, err := os.Stat(filepath.Join(home, "locks"))
	if err != nil {
		t.Fatal(err)
	}
	if di.Mode().Perm() != DirMode {
		t.Fatalf("locks/ mode %v, want %v", di.Mode().Perm(), DirMode)
	}
	fi, err := os.Lstat(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm() != FileMode || fi.Size() != 0 {
		t.Fatalf("lock file mode %v size %d, want an empty regular file %v", fi.Mode(), fi.Size(), FileMode)
	}
}

// flock is per open file description: a second TryLock in the same process
// conflicts too.
func TestSameProcessConflicts(t *testing.T) {
	home := t.TempDir()
	first := mustLock(t, home, "target")
	before, err := os.Lstat(first.Path())
	if err != nil {
		t.Fatal(err)
	}
	second, err := TryLock(home, "target")
	if !errors.Is(err, ErrLocked) || second != nil {
		t.Fatalf("second TryLock = %v, %v; want ErrLocked", second, err)
	}
	if !strings.Contains(err.Error(), "target") || !strings.Contains(err.Error(), first.Path()) {
		t.Fatalf("busy error %q does not name the lock", err)
	}
	other := mustLock(t, home, "other")
	mustUnlock(t, other)

	mustUnlock(t, first)
	after, err := os.Lstat(first.Path())
	if err != nil {
		t.Fatalf("lock file gone after Unlock: %v", err)
	}
	if !os.SameFile(before, after) {
		t.Fatalf("lock file was replaced by Unlock")
	}
	third := mustLock(t, home, "target")
	mustUnlock(t, third)
}

func TestUnlockTwice(t *testing.T) {
	l := mustLock(t, t.TempDir(), "a")
	mustUnlock(t, l)
	if err := l.Unlock(); !errors.Is(err, ErrNotHeld) {
		t.Fatalf("second Unlock = %v, want ErrNotHeld", err)
	}
}

func TestInvalidNameTouchesNothing(t *testing.T) {
	for _, name := range []string{"", "..", ".hidden", "a/b", "../../etc/passwd", "a\x00b", strings.Repeat("x", 129)} {
		home := t.TempDir()
		l, err := TryLock(home, name)
		if !errors.Is(err, ErrInvalidName) || l != nil {
			t.Fatalf("TryLock(%q) = %v, %v; want ErrInvalidName", name, l, err)
		}
		if _, err := os.Lstat(filepath.Join(home, "locks")); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("TryLock(%q) created locks/ before refusing: %v", name, err)
		}
	}
}

func TestSymlinkRefused(t *testing.T) {
	home := t.TempDir()
	if err := os.Mkdir(filepath.Join(home, "locks"), 0o700); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.Symlink(victim, Path(home, "s")); err != nil {
		t.Fatal(err)
	}
	if l, err := TryLock(home, "s"); !errors.Is(err, syscall.ELOOP) || l != nil {
		t.Fatalf("TryLock through a symlink = %v, %v; want ELOOP", l, err)
	}
	if _, err := os.Lstat(victim); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the symlink's target was created: %v", err)
	}
}

func TestReplacedLockFileDetected(t *testing.T) {
	home := t.TempDir()
	l := mustLock(t, home, "r")
	defer mustUnlock(t, l)
	if err := l.sameInode(); err != nil {
		t.Fatalf("fresh lock: %v", err)
	}
	// What a careless cleanup would do: delete the file and let another
	// process create a new inode under the same name.
	if err := os.Remove(l.Path()); err != nil {
		t.Fatal(err)
	}
	if err := l.sameInode(); !errors.Is(err, ErrReplaced) {
		t.Fatalf("deleted lock file: %v, want ErrReplaced", err)
	}
	if err := os.WriteFile(l.Path(), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := l.sameInode(); !errors.Is(err, ErrReplaced) {
		t.Fatalf("replaced lock file: %v, want ErrReplaced", err)
	}
}

const (
	envMode = "GRAFT_LOCKFILE_HELPER"
	envHome = "GRAFT_LOCKFILE_HOME"
	envName = "GRAFT_LOCKFILE_NAME"
)

// TestHelperProcess is not a test: it is the child the cross-process tests
// start. "hold" locks, prints "locked", and keeps the lock until stdin
// closes; "try" prints "locked", "busy" or the error and exits.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(envMode)
	if mode == "" {
		t.Skip("helper child only")
	}
	l, err := TryLock(os.Getenv(envHome), os.Getenv(envName))
	switch {
	case errors.Is(err, ErrLocked):
		fmt.Println("busy")
		os.Exit(0)
	case err != nil:
		fmt.Println("error:", err)
		os.Exit(3)
	}
	fmt.Println("locked")
	if mode == "hold" {
		if _, err := io.Copy(io.Discard, os.Stdin); err != nil {
			fmt.Println("error:", err)
			os.Exit(3)
		}
	}
	if err := l.Unlock(); err != nil {
		fmt.Println("error:", err)
		os.Exit(3)
	}
	os.Exit(0)
}

func startChild(t *testing.T, mode, home, name string) *helperproc.Child {
	t.Helper()
	return helperproc.Start(t, envMode+"="+mode, envHome+"="+home, envName+"="+name)
}

func TestCrossProcessHolderBlocksParent(t *testing.T) {
	home := t.TempDir()
	c := startChild(t, "hold", home, "target")
	if got := c.Line(t); got != "locked" {
		t.Fatalf("helper said %q, want locked", got)
	}
	if l, err := TryLock(home, "target"); !errors.Is(err, ErrLocked) {
		t.Fatalf("TryLock while a child holds it = %v, %v; want ErrLocked", l, err)
	}
	if err := c.Stdin.Close(); err != nil {
		t.Fatal(err)
	}
	c.Wait(t)
	mustUnlock(t, mustLock(t, home, "target"))
}

func TestCrossProcessParentBlocksChild(t *testing.T) {
	home := t.TempDir()
	l := mustLock(t, home, "source")
	c := startChild(t, "try", home, "source")
	if got := c.Line(t); got != "busy" {
		t.Fatalf("child while the parent holds the lock said %q, want busy", got)
	}
	c.Wait(t)
	mustUnlock(t, l)
	c = startChild(t, "try", home, "source")
	if got := c.Line(t); got != "locked" {
		t.Fatalf("child after the parent unlocked said %q, want locked", got)
	}
	c.Wait(t)
}

// The recovery scan relies on this: a crashed owner never keeps its lock.
func TestKilledHolderReleases(t *testing.T) {
	home := t.TempDir()
	c := startChild(t, "hold", home, "target")
	if got := c.Line(t); got != "locked" {
		t.Fatalf("helper said %q, want locked", got)
	}
	if err := c.Cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := c.Cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("helper exit = %v, want killed by SIGKILL", err)
	}
	// The kernel drops the lock when the process dies, before Wait returns.
	mustUnlock(t, mustLock(t, home, "target"))
}

func TestWaitLockWaitsForRelease(t *testing.T) {
	home := t.TempDir()
	held, err := TryLock(home, "s")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WaitLock(home, "s", 50*time.Millisecond, 5*time.Millisecond); !errors.Is(err, ErrLocked) {
		t.Fatalf("WaitLock on a held lock: got %v, want ErrLocked", err)
	}
	go func() {
		time.Sleep(30 * time.Millisecond)
		if err := held.Unlock(); err != nil {
			t.Error(err)
		}
	}()
	l, err := WaitLock(home, "s", 5*time.Second, 5*time.Millisecond)
	if err != nil {
		t.Fatalf("WaitLock after release: %v", err)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
}

// Only a held lock is worth waiting for: any other error (an invalid name,
// a symlink planted at the lock's path) is returned at once, not after the
// whole wait.
func TestWaitLockReturnsOtherErrorsAtOnce(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, DirName), DirMode); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(home, "elsewhere"), Path(home, "planted")); err != nil {
		t.Fatal(err)
	}
	const wait = 10 * time.Second
	for _, name := range []string{"../escape", "planted"} {
		start := time.Now()
		_, err := WaitLock(home, name, wait, time.Millisecond)
		if err == nil || errors.Is(err, ErrLocked) {
			t.Fatalf("WaitLock(%q) = %v, want its own error", name, err)
		}
		if took := time.Since(start); took > wait/2 {
			t.Fatalf("WaitLock(%q) took %v before returning %v: it retried an error that is not ErrLocked", name, took, err)
		}
	}
}

// An import lock is locks/import/<id>.lock: it excludes another import into
// the same session and nothing else, so an import that holds it can take the
// session's own lock (locks/<id>.lock) for each batch; and no session id
// names it.
func TestImportLockIsItsOwn(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	imp, err := TryLockImport(home, "s")
	if err != nil {
		t.Fatalf("TryLockImport: %v", err)
	}
	defer mustUnlock(t, imp)
	if want := filepath.Join(home, "locks", "import", "s.lock"); imp.Path() != want || ImportPath(home, "s") != want {
		t.Fatalf("Path %q, want %s", imp.Path(), want)
	}
	di, err := os.Stat(filepath.Join(home, "locks", "import"))
	if err != nil || di.Mode().Perm() != DirMode {
		t.Fatalf("locks/import/: %v %v, want mode %v", di, err, DirMode)
	}
	if _, err := TryLockImport(home, "s"); !errors.Is(err, ErrLocked) {
		t.Fatalf("second TryLockImport: %v, want ErrLocked", err)
	}
	sess := mustLock(t, home, "s")
	mustUnlock(t, sess)
	named := mustLock(t, home, "import") // a session named import
	mustUnlock(t, named)
	if _, err := TryLockImport(home, "../s"); !errors.Is(err, ErrInvalidName) {
		t.Fatalf("TryLockImport(../s): %v, want ErrInvalidName", err)
	}
}
