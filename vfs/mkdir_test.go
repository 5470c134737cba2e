package vfs_test

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/graft-project/graft/vfs"
	"github.com/graft-project/graft/vfs/crashfs"
)

// A directory made durable survives a crash; one made with plain MkdirAll
// does not (the model's parent entry was never synced).
func TestMkdirAllDurableSurvivesCrash(t *testing.T) {
	for _, tc := range []struct {
		name    string
		durable bool
	}{{"plain MkdirAll", false}, {"MkdirAllDurable", true}} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := crashfs.New()
			if err := fsys.MkdirAll("/home", 0o700); err != nil {
				t.Fatal(err)
			}
			fsys.StartRecording()
			dir := "/home/g/sessions"
			var err error
			if tc.durable {
				err = vfs.MkdirAllDurable(fsys, dir, 0o700)
			} else {
				err = fsys.MkdirAll(dir, 0o700)
			}
			if err != nil {
				t.Fatal(err)
			}
			_, err = fsys.CrashClone().Lstat(dir)
			if survived := err == nil; survived != tc.durable {
				t.Fatalf("after a crash %s exists=%v, want %v", dir, survived, tc.durable)
			}
		})
	}
}

func TestMkdirAllDurableOnDisk(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	if err := vfs.MkdirAllDurable(vfs.Default, dir, 0o700); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Fatalf("stat %s: %v %v", dir, fi, err)
	}
	// Existing: a no-op, not an error.
	if err := vfs.MkdirAllDurable(vfs.Default, dir, 0o700); err != nil {
		t.Fatal(err)
	}
}

// A file where the directory (or one of its parents) should be is ENOTDIR,
// never "already there".
func TestMkdirAllDurableRefusesAFile(t *testing.T) {
	base := t.TempDir()
	file := filepath.Join(base, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{file, filepath.Join(file, "sub")} {
		if err := vfs.MkdirAllDurable(vfs.Default, dir, 0o700); !errors.Is(err, syscall.ENOTDIR) {
			t.Errorf("MkdirAllDurable(%s) with a file at %s = %v, want ENOTDIR", dir, file, err)
		}
	}
}
