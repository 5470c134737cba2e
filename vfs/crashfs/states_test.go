package crashfs_test

import (
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/graft-project/graft/vfs/crashfs"
)

func TestCrashStatesNeedsARecording(t *testing.T) {
	states, err := crashfs.New().CrashStates()
	if !errors.Is(err, crashfs.ErrNotRecording) || states != nil {
		t.Fatalf("CrashStates without StartRecording = %d states, %v; want ErrNotRecording", len(states), err)
	}
}

// TestCrashStatesCountByHand runs a small script whose states were counted
// by hand from the rules in the package doc.
func TestCrashStatesCountByHand(t *testing.T) {
	f := crashfs.New()
	must(t, "mkdirall /h", f.MkdirAll("/h", 0o700))
	f.StartRecording()
	a, err := f.Create("/h/a", 0o600) // op 1
	must(t, "create", err)
	_, err = a.Write([]byte("abcd")) // op 2
	must(t, "write", err)
	must(t, "sync", a.Sync())                   // op 3
	must(t, "syncdir", f.SyncDir("/h"))         // op 4
	_, err = a.Write([]byte("ef"))              // op 5
	must(t, "write", err)                       // (close is not recorded)
	must(t, "close", a.Close())                 //
	must(t, "rename", f.Rename("/h/a", "/h/b")) // op 6
	must(t, "syncdir", f.SyncDir("/h"))         // op 7
	b, err := f.OpenAppend("/h/b")
	must(t, "openappend", err)
	must(t, "sync", b.Sync())                      // op 8
	must(t, "close", b.Close())                    //
	must(t, "mkdirall", f.MkdirAll("/h/t", 0o700)) // op 9
	// ops 10-14: create /h/t/.x1, write 2 bytes, sync, rename to x, syncdir /h/t
	must(t, "writeatomic", f.WriteFileAtomic("/h/t/x", []byte("12"), 0o600))
	if got := f.RecordedOps(); got != 14 {
		t.Fatalf("RecordedOps() = %d, want 14", got)
	}
	// New states, by instant (views: D = durable, L(d) = d live, A = all live):
	//  start: D {/h}                                                   1
	//  op 1:  L(/h) {a=""}                                             1
	//  op 2:  L(/h) + a torn 2/4, 3/4, 4/4 ("ab", "abc", "abcd")       3
	//  op 3:  L(/h) {a="abcd"} = op 2's 4/4                            0
	//  op 4:  D {a="abcd"} = the same                                  0
	//  op 5:  D + a torn 1/2, 2/2 ("abcde", "abcdef")                  2
	//  op 6:  L(/h) {b="abcd"}, + b torn 1/2, 2/2                      3
	//  op 7:  D {b="abcd"} and its tears, all seen                     0
	//  op 8:  D {b="abcdef"}, seen                                     0
	//  op 9:  L(/h) {b, t/}                                            1
	//  op 10: A {b, t/, t/.x1=""} (L(/h/t) alone: t not durable)        1
	//  op 11: A + .x1 torn 1/2, 2/2                                    2
	//  op 12: A {t/.x1="12"} = op 11's 2/2                             0
	//  op 13: A {b, t/, t/x="12"}                                      1
	//  op 14: L(/h) {b, t/, t/x="12"} (only /h unsynced) = op 13's A   0
	//                                                          total  15
	states, err := f.CrashStates()
	must(t, "CrashStates", err)
	names := make([]string, len(states))
	for i, st := range states {
		names[i] = st.Name
	}
	if len(states) != 15 {
		t.Fatalf("%d crash states, want 15:\n%s", len(states), strings.Join(names, "\n"))
	}
	statesByContent(t, states) // fails on duplicates

	wantFirst := []string{
		"at the start of the recording",
		"after op 1 (create /h/a), with the unsynced entries of /h",
		"after op 2 (write 4 bytes to /h/a), with the unsynced entries of /h, torn 2/4 unsynced bytes of /h/a",
		"after op 2 (write 4 bytes to /h/a), with the unsynced entries of /h, torn 3/4 unsynced bytes of /h/a",
		"after op 2 (write 4 bytes to /h/a), with the unsynced entries of /h, torn 4/4 unsynced bytes of /h/a",
		"after op 5 (write 2 bytes to /h/a), torn 1/2 unsynced bytes of /h/a",
		"after op 5 (write 2 bytes to /h/a), torn 2/2 unsynced bytes of /h/a",
		"after op 6 (rename /h/a -> /h/b), with the unsynced entries of /h",
	}
	for i, want := range wantFirst {
		if names[i] != want {
			t.Errorf("state %d = %q, want %q", i, names[i], want)
		}
	}
	last := names[len(names)-1]
	if want := "after op 13 (rename /h/t/.x1 -> /h/t/x), with the unsynced entries of every directory"; last != want {
		t.Errorf("last state = %q, want %q", last, want)
	}
}

// An append without Sync yields the synced bytes and torn prefixes of the
// unsynced ones: none, half, all but one, all.
func TestUnsyncedAppendYieldsTornStates(t *testing.T) {
	f := newHome(t)
	appendTo(t, f, "/h/old", "0123456789", false)
	states, err := f.CrashStates()
	must(t, "CrashStates", err)
	got := map[string]string{}
	for _, st := range states {
		got[tree(t, st.FS)["/h/old"]] = st.Name
	}
	want := map[string]string{
		"old":           "at the start of the recording",
		"old01234":      "after op 1 (write 10 bytes to /h/old), torn 5/10 unsynced bytes of /h/old",
		"old012345678":  "after op 1 (write 10 bytes to /h/old), torn 9/10 unsynced bytes of /h/old",
		"old0123456789": "after op 1 (write 10 bytes to /h/old), torn 10/10 unsynced bytes of /h/old",
	}
	if len(got) != len(want) || len(states) != len(want) {
		t.Fatalf("states of /h/old: %v, want %v", got, want)
	}
	for content, name := range want {
		if got[content] != name {
			t.Errorf("state with /h/old = %q is named %q, want %q", content, got[content], name)
		}
	}
}

// A rename before SyncDir may show the old or the new entry: both appear.
func TestRenameBeforeSyncDirShowsBothEntries(t *testing.T) {
	f := newHome(t)
	must(t, "rename", f.Rename("/h/old", "/h/new"))
	states, err := f.CrashStates()
	must(t, "CrashStates", err)
	var layouts []string
	for _, st := range states {
		layouts = append(layouts, strings.TrimSpace(showTree(tree(t, st.FS))))
	}
	sort.Strings(layouts)
	want := []string{
		`/h = "dir"` + "\n" + `  /h/new = "old"`,
		`/h = "dir"` + "\n" + `  /h/old = "old"`,
	}
	if strings.Join(layouts, "|") != strings.Join(want, "|") {
		t.Errorf("layouts:\n%s\nwant:\n%s", strings.Join(layouts, "\n--\n"), strings.Join(want, "\n--\n"))
	}
}

// WriteFileAtomic: at the final name, every state holds the old or the new
// whole file; both occur, and the steps in between are states of their own.
func TestWriteFileAtomicNeverShowsAPartialFile(t *testing.T) {
	f := newHome(t)
	newData := "the new contents, long enough to tear"
	must(t, "writeatomic", f.WriteFileAtomic("/h/old", []byte(newData), 0o600))
	states, err := f.CrashStates()
	must(t, "CrashStates", err)
	seen := map[string]bool{}
	tornTemp := false
	for _, st := range states {
		files := tree(t, st.FS)
		got, ok := files["/h/old"]
		if !ok || (got != "old" && got != newData) {
			t.Errorf("%s: /h/old = %q (present %v), want the old or the new whole file", st.Name, got, ok)
		}
		seen[got] = true
		for p, content := range files {
			if strings.HasPrefix(p, "/h/.old") && content != "" && content != newData {
				tornTemp = true
			}
		}
	}
	if !seen["old"] || !seen[newData] {
		t.Errorf("states show old=%v new=%v; want both", seen["old"], seen[newData])
	}
	if !tornTemp {
		t.Errorf("no state shows a torn temp file; the steps of WriteFileAtomic were not recorded one by one")
	}
	// create, write, sync, rename, syncdir.
	if got := f.RecordedOps(); got != 5 {
		t.Errorf("WriteFileAtomic recorded %d ops, want 5", got)
	}
}

// A file made visible by a live directory can hold nothing, a torn prefix,
// or all of its unsynced bytes.
func TestNewFileInUnsyncedDirectory(t *testing.T) {
	f := newHome(t)
	writeNew(t, f, "/h/new", "abcdef", false, false)
	states, err := f.CrashStates()
	must(t, "CrashStates", err)
	var got []string
	for _, st := range states {
		content, ok := tree(t, st.FS)["/h/new"]
		if !ok {
			content = "<absent>"
		}
		got = append(got, content)
	}
	want := []string{"<absent>", "", "abc", "abcde", "abcdef"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("states of /h/new = %q, want %q", got, want)
	}
}

// States are fully durable snapshots: a power loss on one changes nothing,
// and writing to one does not touch the recording.
func TestStatesAreDurableAndIndependent(t *testing.T) {
	f := newHome(t)
	appendTo(t, f, "/h/old", "xyz", false)
	states, err := f.CrashStates()
	must(t, "CrashStates", err)
	for _, st := range states {
		before := tree(t, st.FS)
		if after := tree(t, st.FS.CrashClone()); !sameTree(before, after) {
			t.Errorf("%s: not durable: power loss turned\n%sinto\n%s", st.Name, showTree(before), showTree(after))
		}
		appendTo(t, st.FS, "/h/old", "!", true)
	}
	again, err := f.CrashStates()
	must(t, "CrashStates again", err)
	if len(again) != len(states) {
		t.Fatalf("second CrashStates: %d states, first %d", len(again), len(states))
	}
	for i := range again {
		if a, b := tree(t, again[i].FS), tree(t, states[i].FS); a["/h/old"]+"!" != b["/h/old"] {
			t.Errorf("%s: writing to a state changed the recording: %q then %q", again[i].Name, a["/h/old"], b["/h/old"])
		}
	}
}
