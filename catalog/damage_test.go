package catalog

import (
	"bytes"
	"crypto/rand"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// filledHome is a home whose catalog holds a little of everything, closed.
func filledHome(t *testing.T) (string, []byte) {
	t.Helper()
	home := t.TempDir()
	db := open(t, home)
	if err := db.AddLeftover(Leftover{Source: "s", Target: "s.g2", Txn: "t1", State: "PREPARING", Reason: "test", Recorded: t0}); err != nil {
		t.Fatal(err)
	}
	if err := db.PutMeta("last-recovery", bytes.Repeat([]byte("r"), 3000)); err != nil {
		t.Fatal(err)
	}
	for k := range 40 {
		if err := db.PutNode(Node{Session: "s.g" + string(rune('2'+k%8)) + strings.Repeat("x", k), Parent: "s", Generation: 2, Txn: "t", TapeHash: "h"}); err != nil {
			t.Fatal(err)
		}
	}
	closeDB(t, db)
	good, err := os.ReadFile(filepath.Join(home, FileName))
	if err != nil {
		t.Fatal(err)
	}
	return home, good
}

// damages are the ways catalog.db is found broken: each turns the good
// bytes of a catalog into the damaged file (or directory).
var damages = []struct {
	name   string
	damage func(t *testing.T, path string, good []byte)
	says   string
}{
	{"truncated below its meta pages", func(t *testing.T, path string, good []byte) { write(t, path, good[:5000]) }, "meta"},
	{"truncated to half", func(t *testing.T, path string, good []byte) { write(t, path, good[:len(good)/2]) }, "truncated"},
	{"truncated by one page of those in use", func(t *testing.T, path string, good []byte) {
		m, ok := readMeta(bytes.NewReader(good), 0)
		if !ok {
			t.Fatal("the good catalog has no valid first meta page")
		}
		write(t, path, good[:int(m.pgid-1)*int(m.pageSize)])
	}, "truncated"},
	{"truncated to two pages", func(t *testing.T, path string, good []byte) { write(t, path, good[:2*os.Getpagesize()]) }, "truncated"},
	{"garbage", func(t *testing.T, path string, good []byte) { write(t, path, random(t, len(good))) }, "meta"},
	{"text", func(t *testing.T, path string, good []byte) {
		write(t, path, bytes.Repeat([]byte("not a database\n"), 1000))
	}, "meta"},
	{"pages after the metas overwritten", func(t *testing.T, path string, good []byte) {
		write(t, path, append(bytes.Clone(good[:2*os.Getpagesize()]), random(t, len(good)-2*os.Getpagesize())...))
	}, "damaged"},
	{"a directory", func(t *testing.T, path string, good []byte) {
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(path, 0o700); err != nil {
			t.Fatal(err)
		}
	}, "not a regular file"},
}

func write(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, FileMode); err != nil {
		t.Fatal(err)
	}
}

func random(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDamagedCatalogIsAnError: every kind of damage is an error matching
// ErrCorrupt that names the file and says how to repair it, from Open, from
// View and from every read; never a panic or a SIGBUS that kills the
// process (a file truncated under its meta's high-water mark used to
// crash bbolt's freelist read with a bus error).
func TestDamagedCatalogIsAnError(t *testing.T) {
	for _, d := range damages {
		t.Run(d.name, func(t *testing.T) {
			home, good := filledHome(t)
			path := filepath.Join(home, FileName)
			d.damage(t, path, good)
			check := func(what string, err error) {
				t.Helper()
				if !errors.Is(err, ErrCorrupt) {
					t.Fatalf("%s of a catalog %s: %v, want ErrCorrupt", what, d.name, err)
				}
				msg := err.Error()
				if !strings.Contains(msg, path) || !strings.Contains(msg, "graft recover --rebuild-catalog") || !strings.Contains(msg, d.says) {
					t.Fatalf("%s of a catalog %s: %q, want the file, %q and the way to repair it", what, d.name, msg, d.says)
				}
			}
			db, err := Open(home, time.Second)
			if err == nil {
				// The damage may lie where Open does not look: every read
				// must then say so.
				_, lerr := db.AllLeftovers()
				_, _, merr := db.GetMeta("last-recovery")
				_, nerr := db.Nodes()
				werr := db.PutMeta("x", []byte("y"))
				closeDB(t, db)
				for _, e := range []error{lerr, merr, nerr, werr} {
					if e != nil {
						check("a read", e)
						return
					}
				}
				t.Fatalf("Open and every read of a catalog %s succeeded", d.name)
			}
			check("Open", err)
			check("View", View(home, time.Second, func(*DB) error { return nil }))
			// A damaged file is left as it was.
			if fi, err := os.Lstat(path); err != nil || (fi.Mode().IsRegular() && fi.Size() == 0) {
				t.Fatalf("the damaged catalog was changed: %v, %v", fi, err)
			}
		})
	}
}

// TestMoveAside keeps a damaged catalog as evidence under a new name and
// leaves the way free for a new one.
func TestMoveAside(t *testing.T) {
	for _, d := range damages {
		t.Run(d.name, func(t *testing.T) {
			home, good := filledHome(t)
			path := filepath.Join(home, FileName)
			d.damage(t, path, good)
			var before []byte
			if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() {
				before, _ = os.ReadFile(path)
			}
			moved, err := MoveAside(home, t0, time.Second)
			if err != nil {
				t.Fatalf("MoveAside: %v", err)
			}
			if want := filepath.Join(home, "catalog.db.corrupt-20260304T050607.000000000Z"); moved != want {
				t.Fatalf("moved to %s, want %s", moved, want)
			}
			if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("catalog.db still there after MoveAside: %v", err)
			}
			if before != nil {
				after, err := os.ReadFile(moved)
				if err != nil || !bytes.Equal(after, before) {
					t.Fatalf("the evidence differs from the damaged file (%v)", err)
				}
			}
			// A new catalog opens; a second move aside at the same instant
			// never replaces the first evidence.
			closeDB(t, open(t, home))
			d.damage(t, path, good)
			moved2, err := MoveAside(home, t0, time.Second)
			if err != nil || moved2 == moved {
				t.Fatalf("second MoveAside at the same time: %s, %v (first %s)", moved2, err, moved)
			}
			if _, err := os.Lstat(moved); err != nil {
				t.Fatalf("the first evidence is gone: %v", err)
			}
		})
	}
}

// TestMoveAsideRefusesAHealthyOrMissingCatalog: only a damaged file is
// moved; a healthy one, a busy one or none at all is left alone.
func TestMoveAsideRefusesAHealthyOrMissingCatalog(t *testing.T) {
	home, _ := filledHome(t)
	if _, err := MoveAside(home, t0, time.Second); err == nil || !strings.Contains(err.Error(), "not damaged") {
		t.Fatalf("MoveAside of a healthy catalog: %v, want a refusal", err)
	}
	db := open(t, home)
	if _, err := MoveAside(home, t0, 100*time.Millisecond); !errors.Is(err, ErrBusy) {
		t.Fatalf("MoveAside of a catalog held open: %v, want ErrBusy", err)
	}
	closeDB(t, db)
	if _, err := MoveAside(t.TempDir(), t0, time.Second); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("MoveAside without a catalog: %v, want ErrNotExist", err)
	}
}

// A catalog that cannot be opened for writing (EACCES: its mode to a user
// who is not root, or an injected fault; EROFS: a read-only mount) is read
// by View through a read-only open; Open and writes still fail, saying why.
func TestViewReadsACatalogItCannotWrite(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.EACCES, syscall.EROFS} {
		t.Run(errno.Error(), func(t *testing.T) {
			home, _ := filledHome(t)
			injectOpenError(t, errno)
			if _, err := Open(home, time.Second); !errors.Is(err, errno) {
				t.Fatalf("Open with %v on a read-write open: %v", errno, err)
			}
			err := View(home, time.Second, func(db *DB) error {
				ls, err := db.AllLeftovers()
				if err != nil || len(ls) != 1 || ls[0].Target != "s.g2" {
					t.Fatalf("leftovers read-only: %v, %v", ls, err)
				}
				if err := db.PutMeta("x", []byte("y")); err == nil || !strings.Contains(err.Error(), "read-only") {
					t.Fatalf("a write through a read-only View: %v, want it refused", err)
				}
				return nil
			})
			if err != nil {
				t.Fatalf("View with %v on a read-write open: %v", errno, err)
			}
		})
	}
	t.Run("no catalog at all", func(t *testing.T) {
		injectOpenError(t, syscall.EROFS)
		err := View(t.TempDir(), time.Second, func(*DB) error { t.Fatal("fn ran without a catalog"); return nil })
		if !errors.Is(err, syscall.EROFS) {
			t.Fatalf("View of a missing catalog that cannot be created: %v", err)
		}
	})
}

// injectOpenError makes every read-write open of a catalog fail with errno,
// as the kernel does for a file the user may not write or a read-only mount.
func injectOpenError(t *testing.T, errno syscall.Errno) {
	t.Helper()
	old := openFile
	t.Cleanup(func() { openFile = old })
	openFile = func(name string, flag int, perm os.FileMode) (*os.File, error) {
		if flag&(os.O_RDWR|os.O_WRONLY) != 0 {
			return nil, &fs.PathError{Op: "open", Path: name, Err: errno}
		}
		return old(name, flag, perm)
	}
}

// A catalog another process is still creating (bbolt writes its first
// pages under its exclusive lock) is busy, not damaged: the bytes are
// checked under a shared lock, once that process is done with them.
func TestCatalogBeingCreatedIsBusyNotDamaged(t *testing.T) {
	home, good := filledHome(t)
	path := filepath.Join(home, FileName)
	write(t, path, good[:os.Getpagesize()]) // half-written: one meta page of two
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(home, 200*time.Millisecond); !errors.Is(err, ErrBusy) {
		t.Fatalf("Open of a catalog held while it is written: %v, want ErrBusy", err)
	}
	done := make(chan error, 1)
	go func() {
		db, err := Open(home, 5*time.Second)
		if err == nil {
			err = db.Close()
		}
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	write(t, path, good)
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_UN); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Open after the creator finished: %v", err)
	}
}
