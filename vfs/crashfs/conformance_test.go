package crashfs_test

import (
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
	"github.com/graft-project/graft/vfs/crashfs"
)

// env is a prepared tree under base:
//
//	dir/file = "hello", dir/link -> file, dir/sub/ (empty), dirlink -> dir
type env struct {
	fs   vfs.FS
	base string
}

func (e env) p(rel string) string { return filepath.Join(e.base, rel) }

func prepare(t *testing.T, fsys vfs.FS, base string, symlink func(target, name string) error) env {
	t.Helper()
	e := env{fs: fsys, base: base}
	must(t, "mkdirall", fsys.MkdirAll(e.p("dir/sub"), 0o700))
	writeNew(t, fsys, e.p("dir/file"), "hello", true, true)
	must(t, "symlink link", symlink("file", e.p("dir/link")))
	must(t, "symlink dirlink", symlink("dir", e.p("dirlink")))
	return e
}

// conformanceCases run the same call on the real filesystem and on crashfs;
// each returns the error of the call under test and, for a successful
// call, a result to compare.
var conformanceCases = []struct {
	name string
	want error // nil, or the errno both must match
	run  func(e env) (string, error)
}{
	{"open a file", nil, func(e env) (string, error) { return readAll(e.fs, e.p("dir/file")) }},
	{"open through a symlinked directory", nil, func(e env) (string, error) { return readAll(e.fs, e.p("dirlink/file")) }},
	{"open a symlink", syscall.ELOOP, func(e env) (string, error) { return readAll(e.fs, e.p("dir/link")) }},
	{"open a missing file", syscall.ENOENT, func(e env) (string, error) { return readAll(e.fs, e.p("dir/nope")) }},
	{"open in a missing directory", syscall.ENOENT, func(e env) (string, error) { return readAll(e.fs, e.p("nope/file")) }},
	{"open below a file", syscall.ENOTDIR, func(e env) (string, error) { return readAll(e.fs, e.p("dir/file/x")) }},
	{"read a directory", syscall.EISDIR, func(e env) (string, error) { return readAll(e.fs, e.p("dir")) }},
	{"create an existing file", syscall.EEXIST, func(e env) (string, error) { return "", created(e.fs.Create(e.p("dir/file"), 0o600)) }},
	{"create over a symlink", syscall.EEXIST, func(e env) (string, error) { return "", created(e.fs.Create(e.p("dir/link"), 0o600)) }},
	{"create over a dangling symlink", syscall.EEXIST, func(e env) (string, error) {
		if err := e.fs.Remove(e.p("dir/file")); err != nil {
			return "", fmt.Errorf("setup: %w", err)
		}
		return "", created(e.fs.Create(e.p("dir/link"), 0o600))
	}},
	{"create in a missing directory", syscall.ENOENT, func(e env) (string, error) { return "", created(e.fs.Create(e.p("nope/x"), 0o600)) }},
	{"create below a file", syscall.ENOTDIR, func(e env) (string, error) { return "", created(e.fs.Create(e.p("dir/file/x"), 0o600)) }},
	{"openappend a symlink", syscall.ELOOP, func(e env) (string, error) { return "", created(e.fs.OpenAppend(e.p("dir/link"))) }},
	{"openappend a directory", syscall.EISDIR, func(e env) (string, error) { return "", created(e.fs.OpenAppend(e.p("dir"))) }},
	{"openappend a missing file", syscall.ENOENT, func(e env) (string, error) { return "", created(e.fs.OpenAppend(e.p("dir/nope"))) }},
	{"append then read", nil, func(e env) (string, error) {
		f, err := e.fs.OpenAppend(e.p("dir/file"))
		if err != nil {
			return "", err
		}
		if _, err := f.Write([]byte(" world")); err != nil {
			return "", errors.Join(err, f.Close())
		}
		if err := f.Close(); err != nil {
			return "", err
		}
		return readAll(e.fs, e.p("dir/file"))
	}},
	{"write on a read-only file", syscall.EBADF, func(e env) (string, error) {
		return onOpen(e.fs.Open(e.p("dir/file")))(func(f vfs.File) error { _, err := f.Write([]byte("x")); return err })
	}},
	{"read on a write-only file", syscall.EBADF, func(e env) (string, error) {
		return onOpen(e.fs.OpenAppend(e.p("dir/file")))(func(f vfs.File) error { _, err := f.Read(make([]byte, 1)); return err })
	}},
	{"truncate a read-only file", syscall.EINVAL, func(e env) (string, error) {
		return onOpen(e.fs.Open(e.p("dir/file")))(func(f vfs.File) error { return f.Truncate(1) })
	}},
	{"truncate longer pads with zeros", nil, func(e env) (string, error) {
		if _, err := onOpen(e.fs.OpenAppend(e.p("dir/file")))(func(f vfs.File) error { return f.Truncate(7) }); err != nil {
			return "", err
		}
		return readAll(e.fs, e.p("dir/file"))
	}},
	{"readat past the end", io.EOF, func(e env) (string, error) {
		return onOpen(e.fs.Open(e.p("dir/file")))(func(f vfs.File) error { _, err := f.ReadAt(make([]byte, 4), 3); return err })
	}},
	{"write after close", os.ErrClosed, func(e env) (string, error) {
		f, err := e.fs.OpenAppend(e.p("dir/file"))
		if err != nil {
			return "", err
		}
		if err := f.Close(); err != nil {
			return "", err
		}
		_, err = f.Write([]byte("x"))
		return "", err
	}},
	{"stat an open file", nil, func(e env) (string, error) {
		var out string
		_, err := onOpen(e.fs.Open(e.p("dir/file")))(func(f vfs.File) error {
			fi, err := f.Stat()
			if err == nil {
				out = fmt.Sprintf("%s %d %v", fi.Name(), fi.Size(), fi.Mode().IsRegular())
			}
			return err
		})
		return out, err
	}},
	{"remove a non-empty directory", syscall.ENOTEMPTY, func(e env) (string, error) { return "", e.fs.Remove(e.p("dir")) }},
	{"remove a missing file", syscall.ENOENT, func(e env) (string, error) { return "", e.fs.Remove(e.p("dir/nope")) }},
	{"remove a symlink, not its target", nil, func(e env) (string, error) {
		if err := e.fs.Remove(e.p("dir/link")); err != nil {
			return "", err
		}
		return readAll(e.fs, e.p("dir/file"))
	}},
	{"remove an empty directory", nil, func(e env) (string, error) { return "", e.fs.Remove(e.p("dir/sub")) }},
	{"rename a file over a directory", syscall.EEXIST, func(e env) (string, error) { return "", e.fs.Rename(e.p("dir/file"), e.p("dir/sub")) }},
	{"rename a directory over a file", syscall.ENOTDIR, func(e env) (string, error) { return "", e.fs.Rename(e.p("dir/sub"), e.p("dir/file")) }},
	{"rename a directory over an empty directory", syscall.EEXIST, func(e env) (string, error) {
		if err := e.fs.MkdirAll(e.p("empty"), 0o700); err != nil {
			return "", fmt.Errorf("setup: %w", err)
		}
		return "", e.fs.Rename(e.p("dir/sub"), e.p("empty"))
	}},
	{"rename a directory into itself", syscall.EINVAL, func(e env) (string, error) { return "", e.fs.Rename(e.p("dir"), e.p("dir/sub/x")) }},
	{"rename a missing file", syscall.ENOENT, func(e env) (string, error) { return "", e.fs.Rename(e.p("dir/nope"), e.p("dir/x")) }},
	{"rename a file over a file", nil, func(e env) (string, error) {
		if err := e.fs.WriteFileAtomic(e.p("dir/other"), []byte("other"), 0o600); err != nil {
			return "", err
		}
		if err := e.fs.Rename(e.p("dir/other"), e.p("dir/file")); err != nil {
			return "", err
		}
		return listDir(e.fs, e.p("dir"))
	}},
	{"mkdirall over a file", syscall.ENOTDIR, func(e env) (string, error) { return "", e.fs.MkdirAll(e.p("dir/file"), 0o700) }},
	{"mkdirall below a file", syscall.ENOTDIR, func(e env) (string, error) { return "", e.fs.MkdirAll(e.p("dir/file/x"), 0o700) }},
	{"mkdirall through a symlinked directory", nil, func(e env) (string, error) {
		if err := e.fs.MkdirAll(e.p("dirlink/new/deeper"), 0o700); err != nil {
			return "", err
		}
		return listDir(e.fs, e.p("dir"))
	}},
	{"mkdirall over a dangling symlink", syscall.EEXIST, func(e env) (string, error) {
		if err := e.fs.Remove(e.p("dir/file")); err != nil {
			return "", fmt.Errorf("setup: %w", err)
		}
		return "", e.fs.MkdirAll(e.p("dir/link"), 0o700)
	}},
	{"mkdirall an existing directory", nil, func(e env) (string, error) { return "", e.fs.MkdirAll(e.p("dir/sub"), 0o700) }},
	{"readdir a file", syscall.ENOTDIR, func(e env) (string, error) { return listDir(e.fs, e.p("dir/file")) }},
	{"readdir a missing directory", syscall.ENOENT, func(e env) (string, error) { return listDir(e.fs, e.p("nope")) }},
	{"readdir, sorted, through a symlink", nil, func(e env) (string, error) { return listDir(e.fs, e.p("dirlink")) }},
	{"lstat a symlink", nil, func(e env) (string, error) {
		fi, err := e.fs.Lstat(e.p("dir/link"))
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%s symlink=%v", fi.Name(), fi.Mode()&fs.ModeSymlink != 0), nil
	}},
	{"lstat a missing file", syscall.ENOENT, func(e env) (string, error) { _, err := e.fs.Lstat(e.p("dir/nope")); return "", err }},
	{"syncdir a missing directory", syscall.ENOENT, func(e env) (string, error) { return "", e.fs.SyncDir(e.p("nope")) }},
	{"writeatomic into a missing directory", syscall.ENOENT, func(e env) (string, error) {
		return "", e.fs.WriteFileAtomic(e.p("nope/x"), []byte("x"), 0o600)
	}},
	{"writeatomic replaces and leaves no temp file", nil, func(e env) (string, error) {
		if err := e.fs.WriteFileAtomic(e.p("dir/file"), []byte("replaced"), 0o600); err != nil {
			return "", err
		}
		got, err := readAll(e.fs, e.p("dir/file"))
		if err != nil {
			return "", err
		}
		list, err := listDir(e.fs, e.p("dir"))
		return got + " " + list, err
	}},
}

// TestConformsToTheRealFilesystem runs every case on the OS filesystem and
// on crashfs: both must give the expected errno, or the same result.
func TestConformsToTheRealFilesystem(t *testing.T) {
	for _, tc := range conformanceCases {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			real := prepare(t, vfs.Default, base, os.Symlink)
			mem := crashfs.New()
			memEnv := prepare(t, mem, base, mem.Symlink)
			realOut, realErr := tc.run(real)
			memOut, memErr := tc.run(memEnv)
			for _, r := range []struct {
				fs  string
				out string
				err error
			}{{"os", realOut, realErr}, {"crashfs", memOut, memErr}} {
				if tc.want == nil && r.err != nil {
					t.Errorf("%s: unexpected error %v", r.fs, r.err)
				}
				if tc.want != nil && !errors.Is(r.err, tc.want) {
					t.Errorf("%s: error %v, want %v", r.fs, r.err, tc.want)
				}
			}
			if realOut != memOut {
				t.Errorf("results differ:\n  os:      %q\n  crashfs: %q", realOut, memOut)
			}
		})
	}
}

func readAll(fsys vfs.FS, name string) (string, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return "", err
	}
	data, err := io.ReadAll(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return string(data), err
}

func created(f vfs.File, err error) error {
	if err != nil {
		return err
	}
	return f.Close()
}

// onOpen runs fn on an opened file and closes it; the error is fn's, or the
// close's when fn succeeded.
func onOpen(f vfs.File, err error) func(fn func(vfs.File) error) (string, error) {
	return func(fn func(vfs.File) error) (string, error) {
		if err != nil {
			return "", err
		}
		ferr := fn(f)
		cerr := f.Close()
		if ferr != nil {
			return "", ferr
		}
		return "", cerr
	}
}

func listDir(fsys vfs.FS, dir string) (string, error) {
	ents, err := fsys.ReadDir(dir)
	if err != nil {
		return "", err
	}
	var names []string
	for _, e := range ents {
		kind := "f"
		switch {
		case e.IsDir():
			kind = "d"
		case e.Type()&fs.ModeSymlink != 0:
			kind = "l"
		}
		names = append(names, e.Name()+":"+kind)
	}
	return strings.Join(names, ","), nil
}

func TestModesAreKept(t *testing.T) {
	f := crashfs.New()
	must(t, "mkdirall", f.MkdirAll("/a/b", 0o750))
	writeNew(t, f, "/a/b/x", "x", true, true)
	h, err := f.Create("/a/b/y", 0o640)
	must(t, "create y", err)
	must(t, "close y", h.Close())
	must(t, "writeatomic z", f.WriteFileAtomic("/a/b/z", []byte("z"), 0o604))
	for name, want := range map[string]fs.FileMode{
		"/a": fs.ModeDir | 0o750, "/a/b": fs.ModeDir | 0o750,
		"/a/b/x": 0o600, "/a/b/y": 0o640, "/a/b/z": 0o604,
	} {
		fi, err := f.Lstat(name)
		must(t, "lstat "+name, err)
		if fi.Mode() != want {
			t.Errorf("%s: mode %v, want %v", name, fi.Mode(), want)
		}
	}
}

func TestRelativeNamesAreFromTheRoot(t *testing.T) {
	f := crashfs.New()
	must(t, "mkdirall", f.MkdirAll("home/graft", 0o700))
	writeNew(t, f, "home/graft/x", "rel", true, true)
	got, err := f.ReadFile("/home/graft/x")
	if err != nil || string(got) != "rel" {
		t.Fatalf("ReadFile(/home/graft/x) = %q, %v; want the file written as home/graft/x", got, err)
	}
	got, err = f.ReadFile("/home/./graft/../graft/x")
	if err != nil || string(got) != "rel" {
		t.Fatalf("ReadFile of an uncleaned name = %q, %v", got, err)
	}
}

func TestSymlinkLoopIsELOOP(t *testing.T) {
	f := crashfs.New()
	must(t, "symlink a", f.Symlink("/b", "/a"))
	must(t, "symlink b", f.Symlink("/a", "/b"))
	if _, err := f.ReadDir("/a"); !errors.Is(err, syscall.ELOOP) {
		t.Fatalf("ReadDir through a symlink loop = %v, want ELOOP", err)
	}
}
