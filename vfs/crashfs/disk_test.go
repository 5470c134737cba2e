package crashfs_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/graft-project/graft/vfs/crashfs"
	"github.com/graft-project/graft/vfs/errorfs"
)

// WriteTo then LoadDir gives back the same tree, modes and symlinks included.
func TestWriteToAndLoadDirRoundTrip(t *testing.T) {
	f := crashfs.New()
	must(t, "mkdirall", f.MkdirAll("/home/graft/sessions", 0o700))
	must(t, "mkdirall ro", f.MkdirAll("/home/graft/ro", 0o500))
	writeNew(t, f, "/home/graft/sessions/a.jsonl", "{\"seq\":1}\n", true, true)
	writeNew(t, f, "/home/graft/empty", "", true, true)
	must(t, "writeatomic catalog", f.WriteFileAtomic("/home/graft/catalog", []byte("cat"), 0o640))
	must(t, "symlink", f.Symlink("sessions/a.jsonl", "/home/graft/link"))

	dir := filepath.Join(t.TempDir(), "state")
	must(t, "WriteTo", f.WriteTo(dir))
	t.Cleanup(func() {
		// A 0500 directory is left by the copy; let TempDir remove it.
		if err := os.Chmod(filepath.Join(dir, "home/graft/ro"), 0o700); err != nil {
			t.Errorf("restoring a writable mode for cleanup: %v", err)
		}
	})
	for name, want := range map[string]fs.FileMode{
		"home/graft/sessions":         fs.ModeDir | 0o700,
		"home/graft/ro":               fs.ModeDir | 0o500,
		"home/graft/sessions/a.jsonl": 0o600,
		"home/graft/catalog":          0o640,
	} {
		fi, err := os.Lstat(filepath.Join(dir, name))
		must(t, "lstat "+name, err)
		if fi.Mode() != want {
			t.Errorf("on disk %s: mode %v, want %v", name, fi.Mode(), want)
		}
	}
	if target, err := os.Readlink(filepath.Join(dir, "home/graft/link")); err != nil || target != "sessions/a.jsonl" {
		t.Errorf("on disk link -> %q, %v", target, err)
	}

	loaded, err := crashfs.LoadDir(dir)
	must(t, "LoadDir", err)
	if a, b := tree(t, f), tree(t, loaded); !sameTree(a, b) {
		t.Errorf("loaded tree:\n%swant:\n%s", showTree(b), showTree(a))
	}
	if a, b := f.String(), loaded.String(); a != b {
		t.Errorf("modes differ after the round trip:\n%s\nwant:\n%s", b, a)
	}
	// Loaded means durable: a power loss keeps all of it.
	if a, b := tree(t, loaded), tree(t, loaded.CrashClone()); !sameTree(a, b) {
		t.Errorf("a loaded tree is not durable:\n%sbecame\n%s", showTree(a), showTree(b))
	}
}

func TestWriteToRefusesToMerge(t *testing.T) {
	f := crashfs.New()
	writeNew(t, f, "/x", "mem", true, true)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x"), []byte("disk"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := f.WriteTo(dir)
	if !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), "/x") {
		t.Fatalf("WriteTo over an existing file = %v, want EEXIST naming /x", err)
	}
}

func TestLoadDirRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		// crashfs is Linux-only, where a temp dir always takes a fifo: a
		// skip here would hide the refusal going untested.
		t.Fatalf("making a fifo: %v", err)
	}
	_, err := crashfs.LoadDir(dir)
	if err == nil || !strings.Contains(err.Error(), "fifo") {
		t.Fatalf("LoadDir with a fifo = %v, want an error naming it", err)
	}
}

// errorfs over crashfs: a torn write injected by errorfs leaves its half on
// the live file, and the crash states of the run include it.
func TestTornWriteThroughErrorfsShowsInCrashStates(t *testing.T) {
	mem := newHome(t)
	fault := errorfs.OnKind(errorfs.OpWrite, "old", 1, syscall.ENOSPC).TornWrite()
	efs := errorfs.Wrap(mem, fault)
	h, err := efs.OpenAppend("/h/old")
	must(t, "openappend", err)
	_, err = h.Write([]byte("12345678"))
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("write = %v, want the injected ENOSPC", err)
	}
	must(t, "close", h.Close())
	if got, err := mem.ReadFile("/h/old"); err != nil || string(got) != "old1234" {
		t.Fatalf("live file = %q, %v; want old1234", got, err)
	}
	states, err := mem.CrashStates()
	must(t, "CrashStates", err)
	var contents []string
	for _, st := range states {
		contents = append(contents, tree(t, st.FS)["/h/old"])
	}
	want := []string{"old", "old12", "old123", "old1234"}
	if strings.Join(contents, "|") != strings.Join(want, "|") {
		t.Errorf("states of /h/old = %q, want %q", contents, want)
	}
}
