package errorfs_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/graft-project/graft/vfs"
	"github.com/graft-project/graft/vfs/errorfs"
)

// scriptOps is what runScript does, one entry per counted operation.
var scriptOps = []errorfs.OpKind{
	"mkdirall", "create", "write", "sync", "close", "syncdir",
	"openappend", "write", "truncate", "stat", "close",
	"open", "read", "read", "close",
	"lstat", "readdir", "rename", "writeatomic", "remove",
}

// runScript touches every kind of operation once or more, in a fixed order,
// and stops at the first error, naming the step.
func runScript(fsys vfs.FS, dir string) error {
	d := filepath.Join(dir, "d")
	a := filepath.Join(d, "a")
	if err := fsys.MkdirAll(d, 0o700); err != nil {
		return fmt.Errorf("mkdirall: %w", err)
	}
	f, err := fsys.Create(a, 0o600)
	if err != nil {
		return fmt.Errorf("create: %w", err)
	}
	_ = f.Name() // not an operation
	if _, err := f.Write([]byte("hello\n")); err != nil {
		return errors.Join(fmt.Errorf("write: %w", err), f.Close())
	}
	if err := f.Sync(); err != nil {
		return errors.Join(fmt.Errorf("sync: %w", err), f.Close())
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close: %w", err)
	}
	if err := fsys.SyncDir(d); err != nil {
		return fmt.Errorf("syncdir: %w", err)
	}
	af, err := fsys.OpenAppend(a)
	if err != nil {
		return fmt.Errorf("openappend: %w", err)
	}
	if _, err := af.Write([]byte("world\n")); err != nil {
		return errors.Join(fmt.Errorf("append: %w", err), af.Close())
	}
	if err := af.Truncate(8); err != nil {
		return errors.Join(fmt.Errorf("truncate: %w", err), af.Close())
	}
	if _, err := af.Stat(); err != nil {
		return errors.Join(fmt.Errorf("stat: %w", err), af.Close())
	}
	if err := af.Close(); err != nil {
		return fmt.Errorf("close append: %w", err)
	}
	rf, err := fsys.Open(a)
	if err != nil {
		return fmt.Errorf("open: %w", err)
	}
	buf := make([]byte, 3)
	if _, err := rf.Read(buf); err != nil {
		return errors.Join(fmt.Errorf("read: %w", err), rf.Close())
	}
	if _, err := rf.ReadAt(buf, 2); err != nil {
		return errors.Join(fmt.Errorf("readat: %w", err), rf.Close())
	}
	if err := rf.Close(); err != nil {
		return fmt.Errorf("close read: %w", err)
	}
	if _, err := fsys.Lstat(a); err != nil {
		return fmt.Errorf("lstat: %w", err)
	}
	if _, err := fsys.ReadDir(d); err != nil {
		return fmt.Errorf("readdir: %w", err)
	}
	b := filepath.Join(d, "b")
	if err := fsys.Rename(a, b); err != nil {
		return fmt.Errorf("rename: %w", err)
	}
	if err := fsys.WriteFileAtomic(filepath.Join(d, "c"), []byte("atomic"), 0o600); err != nil {
		return fmt.Errorf("writeatomic: %w", err)
	}
	if err := fsys.Remove(b); err != nil {
		return fmt.Errorf("remove: %w", err)
	}
	return nil
}

func TestCountsEveryOperationInOrder(t *testing.T) {
	dir := t.TempDir()
	efs := errorfs.Wrap(vfs.Default, nil)
	if err := runScript(efs, dir); err != nil {
		t.Fatalf("clean run: %v", err)
	}
	if got := efs.Ops(); got != len(scriptOps) {
		t.Fatalf("Ops() = %d, want %d", got, len(scriptOps))
	}
	log := efs.Log()
	if len(log) != len(scriptOps) {
		t.Fatalf("Log() has %d ops, want %d", len(log), len(scriptOps))
	}
	for i, op := range log {
		if op.Index != i+1 || op.Kind != scriptOps[i] {
			t.Errorf("log[%d] = %s, want op %d: %s", i, op, i+1, scriptOps[i])
		}
	}
	rename := log[17]
	if rename.Path != filepath.Join(dir, "d", "a") || rename.NewPath != filepath.Join(dir, "d", "b") {
		t.Errorf("rename op = %+v, want both paths", rename)
	}
}

// TestFailEveryIndex is the loop the crash suite runs: fail op N for
// N = 1, 2, … until the fault is never reached.
func TestFailEveryIndex(t *testing.T) {
	for n := 1; ; n++ {
		dir := t.TempDir()
		fault := errorfs.OnIndex(n, syscall.EIO)
		efs := errorfs.Wrap(vfs.Default, fault)
		err := runScript(efs, dir)
		op, fired := fault.Fired()
		if !fired {
			if err != nil {
				t.Fatalf("n=%d: fault not reached but the run failed: %v", n, err)
			}
			if n != len(scriptOps)+1 {
				t.Fatalf("the run completed untouched at n=%d, want n=%d", n, len(scriptOps)+1)
			}
			if !strings.Contains(fault.String(), "not reached") {
				t.Errorf("String() of an unreached fault = %q", fault.String())
			}
			return
		}
		if err == nil {
			t.Fatalf("n=%d: %s fired but the run succeeded", n, fault)
		}
		if !errors.Is(err, errorfs.ErrInjected) || !errors.Is(err, syscall.EIO) {
			t.Fatalf("n=%d: error %v does not match ErrInjected and EIO", n, err)
		}
		if op.Index != n || op.Kind != scriptOps[n-1] {
			t.Fatalf("n=%d: fired on %s, want kind %s", n, op, scriptOps[n-1])
		}
		want := fmt.Sprintf("EIO on op %d: %s ", n, scriptOps[n-1])
		if !strings.HasPrefix(fault.String(), want) {
			t.Errorf("n=%d: String() = %q, want prefix %q", n, fault.String(), want)
		}
		if !strings.Contains(err.Error(), fmt.Sprintf("injected EIO on op %d", n)) {
			t.Errorf("n=%d: error %q does not name the op", n, err)
		}
		for _, later := range efs.Log()[n:] {
			if later.Kind != errorfs.OpClose {
				t.Errorf("n=%d: the run went on after the failure: %s", n, later)
			}
		}
	}
}

func TestFailedOperationDoesNotReachTheFS(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "x")
	efs := errorfs.Wrap(vfs.Default, errorfs.OnKind(errorfs.OpCreate, "x", 1, syscall.EACCES))
	_, err := efs.Create(name, 0o600)
	if !errors.Is(err, syscall.EACCES) || !errors.Is(err, fs.ErrPermission) {
		t.Fatalf("Create error = %v, want EACCES matching fs.ErrPermission", err)
	}
	if _, err := os.Lstat(name); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the failed create reached the disk: Lstat = %v", err)
	}
}

func TestOnKindCountsMatchingOpsOnly(t *testing.T) {
	dir := t.TempDir()
	fault := errorfs.OnKind(errorfs.OpWrite, "target", 2, syscall.ENOSPC)
	efs := errorfs.Wrap(vfs.Default, fault)
	other, err := efs.Create(filepath.Join(dir, "other"), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	closeAtEnd(t, other)
	target, err := efs.Create(filepath.Join(dir, "target"), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	closeAtEnd(t, target)
	steps := []struct {
		f       vfs.File
		wantErr bool
	}{
		{other, false}, {target, false}, {other, false}, {target, true}, {target, false},
	}
	for i, s := range steps {
		_, err := s.f.Write([]byte("x"))
		if (err != nil) != s.wantErr {
			t.Fatalf("step %d (%s): error %v, want error %v", i, s.f.Name(), err, s.wantErr)
		}
		if err != nil && !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("step %d: %v is not ENOSPC", i, err)
		}
	}
	op, fired := fault.Fired()
	if !fired || op.Index != 6 || op.Kind != errorfs.OpWrite || !strings.HasSuffix(op.Path, "target") {
		t.Fatalf("Fired() = %s, %v; want op 6: write …/target", op, fired)
	}
	if !strings.HasPrefix(fault.String(), "ENOSPC on op 6: write ") {
		t.Errorf("String() = %q", fault.String())
	}
}

func TestTornWriteWritesHalf(t *testing.T) {
	tests := []struct {
		data string
		keep string
	}{
		{"0123456789", "01234"},
		{"abc", "a"},
		{"z", ""},
	}
	for _, tc := range tests {
		dir := t.TempDir()
		name := filepath.Join(dir, "log")
		fault := errorfs.OnKind(errorfs.OpWrite, "", 1, syscall.EIO).TornWrite()
		efs := errorfs.Wrap(vfs.Default, fault)
		f, err := efs.Create(name, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		n, err := f.Write([]byte(tc.data))
		if cerr := f.Close(); cerr != nil {
			t.Fatal(cerr)
		}
		if !errors.Is(err, syscall.EIO) {
			t.Fatalf("%q: torn write error = %v, want EIO", tc.data, err)
		}
		var injected *errorfs.InjectedError
		if !errors.As(err, &injected) || injected.Written != len(tc.keep) || injected.Of != len(tc.data) {
			t.Fatalf("%q: error %v does not report %d of %d bytes written", tc.data, err, len(tc.keep), len(tc.data))
		}
		if n != len(tc.keep) {
			t.Errorf("%q: Write returned n=%d, want %d", tc.data, n, len(tc.keep))
		}
		want := fmt.Sprintf("(torn: %d of %d bytes written)", len(tc.keep), len(tc.data))
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %q lacks %q", tc.data, err, want)
		}
		got, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tc.keep {
			t.Errorf("%q: file holds %q, want %q", tc.data, got, tc.keep)
		}
	}
}

// TestTornWriteAfterKeepsExactlyN: a disk with n bytes free. The first n
// bytes of the failed write reach the file (all of them when the write is
// shorter), then the error.
func TestTornWriteAfterKeepsExactlyN(t *testing.T) {
	const data = "0123456789"
	for n := 0; n <= len(data)+2; n++ {
		name := filepath.Join(t.TempDir(), "log")
		fault := errorfs.OnKind(errorfs.OpWrite, "", 1, syscall.ENOSPC).TornWriteAfter(n)
		efs := errorfs.Wrap(vfs.Default, fault)
		f, err := efs.Create(name, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		got, err := f.Write([]byte(data))
		if cerr := f.Close(); cerr != nil {
			t.Fatal(cerr)
		}
		keep := min(n, len(data))
		var injected *errorfs.InjectedError
		if !errors.Is(err, syscall.ENOSPC) || !errors.As(err, &injected) || injected.Written != keep || injected.Of != len(data) || got != keep {
			t.Fatalf("n=%d: Write = %d, %v; want %d and ENOSPC reporting %d of %d bytes", n, got, err, keep, keep, len(data))
		}
		if b, err := os.ReadFile(name); err != nil || string(b) != data[:keep] {
			t.Fatalf("n=%d: file holds %q (%v), want %q", n, b, err, data[:keep])
		}
		if want := fmt.Sprintf("(torn after %d bytes: %d of %d bytes written)", n, keep, len(data)); !strings.Contains(err.Error(), want) || !strings.Contains(fault.String(), fmt.Sprintf("torn after %d bytes", n)) {
			t.Errorf("n=%d: error %q / fault %q lacks %q", n, err, fault, want)
		}
	}
}

func TestTornWriteOnOtherKindJustFails(t *testing.T) {
	dir := t.TempDir()
	fault := errorfs.OnKind(errorfs.OpMkdirAll, "", 1, syscall.EIO).TornWrite()
	efs := errorfs.Wrap(vfs.Default, fault)
	err := efs.MkdirAll(filepath.Join(dir, "d"), 0o700)
	if !errors.Is(err, syscall.EIO) {
		t.Fatalf("MkdirAll error = %v, want EIO", err)
	}
	if strings.Contains(err.Error(), "torn") || strings.Contains(fault.String(), "torn") {
		t.Errorf("a failed mkdirall is reported as torn: %q / %q", err, fault)
	}
	if _, err := os.Lstat(filepath.Join(dir, "d")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the failed mkdirall reached the disk: %v", err)
	}
}

func TestInjectedCloseStillClosesTheFile(t *testing.T) {
	dir := t.TempDir()
	fault := errorfs.OnKind(errorfs.OpClose, "", 1, syscall.EIO)
	efs := errorfs.Wrap(vfs.Default, fault)
	f, err := efs.Create(filepath.Join(dir, "x"), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); !errors.Is(err, syscall.EIO) {
		t.Fatalf("Close error = %v, want EIO", err)
	}
	// The underlying file is closed: a second close reaches it and fails.
	if err := f.Close(); !errors.Is(err, os.ErrClosed) {
		t.Fatalf("second Close = %v, want os.ErrClosed from the wrapped file", err)
	}
}

func TestReadErrorsAndEOFPassThrough(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "x")
	if err := os.WriteFile(name, []byte("abc"), 0o600); err != nil {
		t.Fatal(err)
	}
	efs := errorfs.Wrap(vfs.Default, errorfs.OnKind(errorfs.OpRead, "", 2, syscall.EIO))
	f, err := efs.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	closeAtEnd(t, f)
	got, err := io.ReadAll(f)
	if !errors.Is(err, syscall.EIO) {
		t.Fatalf("ReadAll error = %v, want EIO on the second read", err)
	}
	if !bytes.Equal(got, []byte("abc")) {
		t.Errorf("ReadAll got %q before the failure, want %q", got, "abc")
	}
}

func TestLogKeepsTheLatestOps(t *testing.T) {
	dir := t.TempDir()
	efs := errorfs.Wrap(vfs.Default, nil)
	total := errorfs.LogLimit + 17
	for i := 0; i < total; i++ {
		if _, err := efs.Lstat(filepath.Join(dir, fmt.Sprint(i))); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("Lstat %d: %v", i, err)
		}
	}
	log := efs.Log()
	if len(log) != errorfs.LogLimit {
		t.Fatalf("Log() has %d ops, want %d", len(log), errorfs.LogLimit)
	}
	for i, op := range log {
		wantIndex := total - errorfs.LogLimit + i + 1
		if op.Index != wantIndex || op.Path != filepath.Join(dir, fmt.Sprint(wantIndex-1)) {
			t.Fatalf("log[%d] = %s, want op %d on %d", i, op, wantIndex, wantIndex-1)
		}
	}
}

func TestConstructorsRefuseFaultsThatCannotFire(t *testing.T) {
	cases := map[string]func(){
		"index 0":      func() { errorfs.OnIndex(0, syscall.EIO) },
		"nil error":    func() { errorfs.OnIndex(1, nil) },
		"nth 0":        func() { errorfs.OnKind(errorfs.OpSync, "", 0, syscall.EIO) },
		"unknown kind": func() { errorfs.OnKind("fsync", "", 1, syscall.EIO) },
	}
	for name, fn := range cases {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("no panic")
				}
			}()
			fn()
		})
	}
}

// closeAtEnd closes f when the test ends and reports a failed close.
func closeAtEnd(t *testing.T, f vfs.File) {
	t.Helper()
	t.Cleanup(func() {
		if err := f.Close(); err != nil {
			t.Errorf("closing %s: %v", f.Name(), err)
		}
	})
}

// Lock is forwarded to the wrapped file (a real flock: a second open of
// the file cannot take it) and is not counted as an operation.
func TestLockIsForwarded(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "x")
	if err := os.WriteFile(name, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	efs := errorfs.Wrap(vfs.Default, nil)
	f, err := efs.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	closeAtEnd(t, f)
	if err := f.Lock(); err != nil {
		t.Fatalf("Lock: %v", err)
	}
	other, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := syscall.Flock(int(other.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); !errors.Is(err, syscall.EWOULDBLOCK) {
		t.Fatalf("another open of the file locked it while the wrapped file holds the lock: %v", err)
	}
	if efs.Ops() != 1 {
		t.Errorf("Lock was counted as an operation: %d ops, want 1 (the open)", efs.Ops())
	}
}
