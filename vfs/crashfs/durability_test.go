package crashfs_test

import (
	"strings"
	"testing"

	"github.com/graft-project/graft/vfs/crashfs"
)

// newHome returns an FS holding /h/old = "old", all durable.
func newHome(t *testing.T) *crashfs.FS {
	t.Helper()
	f := crashfs.New()
	must(t, "mkdirall /h", f.MkdirAll("/h", 0o700))
	writeNew(t, f, "/h/old", "old", false, false)
	f.StartRecording()
	return f
}

// TestCrashCloneKeepsOnlyWhatWasSynced is the durability rules, one row each.
func TestCrashCloneKeepsOnlyWhatWasSynced(t *testing.T) {
	home := map[string]string{"/h": "dir", "/h/old": "old"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range home {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == "<gone>" {
				delete(m, kv[i])
			} else {
				m[kv[i]] = kv[i+1]
			}
		}
		return m
	}
	tests := []struct {
		name   string
		script fsScript
		want   map[string]string
	}{
		{
			"create without SyncDir: gone",
			func(t *testing.T, f *crashfs.FS) { writeNew(t, f, "/h/new", "data", false, false) },
			with(),
		},
		{
			"create and file Sync without SyncDir: gone",
			func(t *testing.T, f *crashfs.FS) { writeNew(t, f, "/h/new", "data", true, false) },
			with(),
		},
		{
			"SyncDir without file Sync: present, empty",
			func(t *testing.T, f *crashfs.FS) { writeNew(t, f, "/h/new", "data", false, true) },
			with("/h/new", ""),
		},
		{
			"file Sync and SyncDir: present, whole",
			func(t *testing.T, f *crashfs.FS) { writeNew(t, f, "/h/new", "data", true, true) },
			with("/h/new", "data"),
		},
		{
			"append without Sync: old data",
			func(t *testing.T, f *crashfs.FS) { appendTo(t, f, "/h/old", "+more", false) },
			with(),
		},
		{
			"append and Sync: new data",
			func(t *testing.T, f *crashfs.FS) { appendTo(t, f, "/h/old", "+more", true) },
			with("/h/old", "old+more"),
		},
		{
			"synced append, then an unsynced one: the synced prefix",
			func(t *testing.T, f *crashfs.FS) {
				appendTo(t, f, "/h/old", "+1", true)
				appendTo(t, f, "/h/old", "+2", false)
			},
			with("/h/old", "old+1"),
		},
		{
			"truncate without Sync: old data",
			func(t *testing.T, f *crashfs.FS) { truncate(t, f, "/h/old", 1, false) },
			with(),
		},
		{
			"truncate and Sync: truncated",
			func(t *testing.T, f *crashfs.FS) { truncate(t, f, "/h/old", 1, true) },
			with("/h/old", "o"),
		},
		{
			"rename without SyncDir: undone",
			func(t *testing.T, f *crashfs.FS) { must(t, "rename", f.Rename("/h/old", "/h/moved")) },
			with(),
		},
		{
			"rename and SyncDir: done",
			func(t *testing.T, f *crashfs.FS) {
				must(t, "rename", f.Rename("/h/old", "/h/moved"))
				must(t, "syncdir", f.SyncDir("/h"))
			},
			with("/h/old", "<gone>", "/h/moved", "old"),
		},
		{
			"rename over an existing file without SyncDir: the old file",
			func(t *testing.T, f *crashfs.FS) {
				writeNew(t, f, "/h/tmp", "new", true, false)
				must(t, "rename", f.Rename("/h/tmp", "/h/old"))
			},
			with(),
		},
		{
			"remove without SyncDir: comes back",
			func(t *testing.T, f *crashfs.FS) { must(t, "remove", f.Remove("/h/old")) },
			with(),
		},
		{
			"remove and SyncDir: gone",
			func(t *testing.T, f *crashfs.FS) {
				must(t, "remove", f.Remove("/h/old"))
				must(t, "syncdir", f.SyncDir("/h"))
			},
			with("/h/old", "<gone>"),
		},
		{
			"new directory synced inside but not in its parent: gone with its files",
			func(t *testing.T, f *crashfs.FS) {
				must(t, "mkdirall", f.MkdirAll("/h/d/e", 0o700))
				writeNew(t, f, "/h/d/e/x", "x", true, true)
				must(t, "syncdir /h/d", f.SyncDir("/h/d"))
			},
			with(),
		},
		{
			"new directories synced all the way up: present",
			func(t *testing.T, f *crashfs.FS) {
				must(t, "mkdirall", f.MkdirAll("/h/d/e", 0o700))
				writeNew(t, f, "/h/d/e/x", "x", true, true)
				must(t, "syncdir /h/d", f.SyncDir("/h/d"))
				must(t, "syncdir /h", f.SyncDir("/h"))
			},
			with("/h/d", "dir", "/h/d/e", "dir", "/h/d/e/x", "x"),
		},
		{
			"WriteFileAtomic: the new file, no temp file",
			func(t *testing.T, f *crashfs.FS) {
				must(t, "writeatomic", f.WriteFileAtomic("/h/old", []byte("new"), 0o600))
			},
			with("/h/old", "new"),
		},
		{
			"symlink without SyncDir: gone",
			func(t *testing.T, f *crashfs.FS) { must(t, "symlink", f.Symlink("old", "/h/link")) },
			with(),
		},
		{
			"symlink and SyncDir: present",
			func(t *testing.T, f *crashfs.FS) {
				must(t, "symlink", f.Symlink("old", "/h/link"))
				must(t, "syncdir", f.SyncDir("/h"))
			},
			with("/h/link", "-> symlink"),
		},
		{
			"SyncDir on a file syncs its data, as open+fsync does",
			func(t *testing.T, f *crashfs.FS) {
				appendTo(t, f, "/h/old", "+more", false)
				must(t, "syncdir on a file", f.SyncDir("/h/old"))
			},
			with("/h/old", "old+more"),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newHome(t)
			tc.script(t, f)
			clone := f.CrashClone()
			if got := tree(t, clone); !sameTree(got, tc.want) {
				t.Errorf("after power loss:\n%swant:\n%slive tree:\n%s", showTree(got), showTree(tc.want), f)
			}
		})
	}
}

func truncate(t *testing.T, f *crashfs.FS, name string, size int64, syncFile bool) {
	t.Helper()
	h, err := f.OpenAppend(name)
	must(t, "openappend "+name, err)
	must(t, "truncate "+name, h.Truncate(size))
	if syncFile {
		must(t, "sync "+name, h.Sync())
	}
	must(t, "close "+name, h.Close())
}

// A CrashClone is fully durable itself, and independent of the original.
func TestCrashCloneIsDurableAndIndependent(t *testing.T) {
	f := newHome(t)
	clone := f.CrashClone()
	appendTo(t, clone, "/h/old", "+clone", false)
	appendTo(t, f, "/h/old", "+orig", true)
	if got := tree(t, clone.CrashClone()); got["/h/old"] != "old" {
		t.Errorf("the clone's unsynced append survived its own power loss: %q", got["/h/old"])
	}
	if got, err := f.ReadFile("/h/old"); err != nil || string(got) != "old+orig" {
		t.Errorf("original = %q, %v; want old+orig (the clone's write leaked?)", got, err)
	}
	if got, err := clone.ReadFile("/h/old"); err != nil || string(got) != "old+clone" {
		t.Errorf("clone = %q, %v; want old+clone", got, err)
	}
}

// Copy-on-write: bytes kept by a sync or by a recorded state never change
// when the live file is truncated and rewritten in place.
func TestSyncedBytesSurviveRewrites(t *testing.T) {
	f := newHome(t)
	h, err := f.OpenAppend("/h/old")
	must(t, "openappend", err)
	_, err = h.Write([]byte("AAAA")) // op 1
	must(t, "write", err)
	must(t, "sync", h.Sync())          // op 2
	must(t, "truncate", h.Truncate(1)) // op 3
	_, err = h.Write([]byte("zz"))     // op 4: rewrites bytes the sync kept
	must(t, "write", err)
	_, err = h.Write([]byte("BBB")) // op 5: unsynced, recorded
	must(t, "write", err)
	must(t, "truncate", h.Truncate(3)) // op 6
	_, err = h.Write([]byte("yy"))     // op 7: rewrites bytes op 5's state kept
	must(t, "write", err)
	must(t, "close", h.Close())
	if got := tree(t, f.CrashClone())["/h/old"]; got != "oldAAAA" {
		t.Fatalf("synced bytes = %q after a truncate and rewrite, want oldAAAA", got)
	}
	states, err := f.CrashStates()
	must(t, "CrashStates", err)
	var contents []string
	for _, st := range states {
		contents = append(contents, tree(t, st.FS)["/h/old"])
	}
	want := []string{"old", "oldAA", "oldAAA", "oldAAAA", "o", "ozz", "ozzBBB", "ozzyy"}
	if strings.Join(contents, "|") != strings.Join(want, "|") {
		t.Errorf("states of /h/old = %q, want %q", contents, want)
	}
}
