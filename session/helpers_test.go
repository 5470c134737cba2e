package session_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/vfs"
)

// pinnedNow is the clock of every test store: ts values are predictable.
var pinnedNow = time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)

const pinnedTS = "2025-03-04T05:06:07Z"

// newStore opens a store in a fresh home on the real filesystem.
func newStore(t *testing.T) *session.Store {
	t.Helper()
	return newStoreFS(t, vfs.Default)
}

func newStoreFS(t *testing.T, fsys vfs.FS) *session.Store {
	t.Helper()
	st, err := session.OpenStore(fsys, filepath.Join(t.TempDir(), "home"))
	if err != nil {
		t.Fatalf("OpenStore: %v", err)
	}
	st.Now = func() time.Time { return pinnedNow }
	return st
}

func assistant(text string) session.Event {
	return session.Event{Type: session.TypeAssistantMessage, Source: session.Source{Kind: session.KindAssistant}, Text: text}
}

func human(text string) session.Event {
	return session.Event{Type: session.TypeUserMessage, Source: session.Source{Kind: session.KindUser}, Text: text}
}

func call(id string) session.Event {
	return session.Event{Type: session.TypeToolCall, Source: session.Source{Kind: session.KindAssistant},
		Tool: &session.Tool{Name: "Bash", CallID: id, Input: []byte(`{"command":"ls"}`)}}
}

func result(id string) session.Event {
	return session.Event{Type: session.TypeToolResult, Source: session.Source{Kind: session.KindTool},
		Tool: &session.Tool{Name: "Bash", CallID: id, Output: "ok"}}
}

func graftMark(typ, txn, target string) session.Event {
	return session.Event{Type: typ, Source: session.Source{Kind: session.KindPlugin, Name: "graft"}, Txn: txn, Target: target}
}

func origin(txn, parent string) session.Event {
	return session.Event{Type: session.TypeGraftOrigin, Source: session.Source{Kind: session.KindPlugin, Name: "graft"},
		Txn: txn, Parent: parent, ParentBoundary: 1, Generation: 2, TapeHash: "sha256:00"}
}

// line renders an event with the given seq as a log line ('\n' included).
func line(t *testing.T, seq int64, ev session.Event) string {
	t.Helper()
	ev.Seq = seq
	if ev.TS == "" {
		ev.TS = pinnedTS
	}
	b, err := session.Encode(&ev)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	return string(b)
}

// mustAppend appends and fails the test on error.
func mustAppend(t *testing.T, st *session.Store, id string, evs ...session.Event) []session.Event {
	t.Helper()
	out, err := st.Append(id, evs)
	if err != nil {
		t.Fatalf("Append(%s): %v", id, err)
	}
	return out
}

func mustMark(t *testing.T, st *session.Store, id string, ev session.Event) {
	t.Helper()
	if _, err := st.AppendMark(id, ev); err != nil {
		t.Fatalf("AppendMark(%s, %s): %v", id, ev.Type, err)
	}
}

// writeRaw plants a log file with exactly these bytes, as a crash or a
// hand edit would leave it.
func writeRaw(t *testing.T, st *session.Store, id, data string) {
	t.Helper()
	if err := os.WriteFile(st.Path(id), []byte(data), session.FileMode); err != nil {
		t.Fatal(err)
	}
}

func readRaw(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// snapshot lists every entry under root with its mode and content, to prove
// an operation touched nothing.
func snapshot(t *testing.T, root string) string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		entry := fmt.Sprintf("%s %v", rel, fi.Mode())
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			entry += " " + string(b)
		}
		out = append(out, entry)
		return nil
	})
	if err != nil {
		t.Fatalf("snapshot %s: %v", root, err)
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// checkLog is the consistency check: the log reads back without error,
// without a torn tail, ends on '\n' and carries seqs 1..want.
func checkLog(t *testing.T, st *session.Store, id string, want int) []session.Event {
	t.Helper()
	evs, res, err := st.ReadAll(id)
	if err != nil {
		t.Fatalf("ReadAll(%s): %v", id, err)
	}
	if res.Torn != nil {
		t.Fatalf("%s: unexpected torn tail %+v", id, *res.Torn)
	}
	if len(evs) != want || res.Events != want || res.LastSeq != int64(want) {
		t.Fatalf("%s: %d events (result %d, last seq %d), want %d", id, len(evs), res.Events, res.LastSeq, want)
	}
	for k, ev := range evs {
		if ev.Seq != int64(k+1) {
			t.Fatalf("%s: event %d has seq %d", id, k, ev.Seq)
		}
	}
	raw := readRaw(t, st.Path(id))
	if int64(len(raw)) != res.End {
		t.Fatalf("%s: file is %d bytes, scan ended at %d", id, len(raw), res.End)
	}
	if raw != "" && !strings.HasSuffix(raw, "\n") {
		t.Fatalf("%s: log does not end on a full line", id)
	}
	return evs
}

// recordingFS wraps vfs.Default and logs every operation, so a test can
// prove which writes were fsynced and which directories were synced.
type recordingFS struct {
	vfs.FS
	mu      sync.Mutex
	ops     []string
	handles int
}

func newRecordingFS() *recordingFS { return &recordingFS{FS: vfs.Default} }

func (r *recordingFS) log(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ops = append(r.ops, fmt.Sprintf(format, args...))
}

// take returns the operations logged so far and forgets them.
func (r *recordingFS) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	ops := r.ops
	r.ops = nil
	return ops
}

// open logs op with a label "<base>#<n>" unique to the handle, so the
// writes, syncs and closes of two handles on one file can be told apart.
func (r *recordingFS) open(op, name string, f vfs.File, err error) (vfs.File, error) {
	if err != nil {
		r.log("%s %s failed", op, filepath.Base(name))
		return nil, err
	}
	r.mu.Lock()
	r.handles++
	label := fmt.Sprintf("%s#%d", filepath.Base(name), r.handles)
	r.mu.Unlock()
	r.log("%s %s", op, label)
	return &recordingFile{File: f, fs: r, label: label}, nil
}

func (r *recordingFS) Open(name string) (vfs.File, error) {
	f, err := r.FS.Open(name)
	return r.open("open", name, f, err)
}

func (r *recordingFS) Create(name string, perm os.FileMode) (vfs.File, error) {
	f, err := r.FS.Create(name, perm)
	return r.open("create", name, f, err)
}

func (r *recordingFS) OpenAppend(name string) (vfs.File, error) {
	f, err := r.FS.OpenAppend(name)
	return r.open("openappend", name, f, err)
}

func (r *recordingFS) WriteFileAtomic(name string, data []byte, perm os.FileMode) error {
	r.log("writeatomic %s", filepath.Base(name))
	return r.FS.WriteFileAtomic(name, data, perm)
}

func (r *recordingFS) Rename(o, n string) error {
	r.log("rename %s %s", filepath.Base(o), filepath.Base(n))
	return r.FS.Rename(o, n)
}

func (r *recordingFS) Remove(name string) error {
	r.log("remove %s", filepath.Base(name))
	return r.FS.Remove(name)
}

func (r *recordingFS) MkdirAll(dir string, perm os.FileMode) error {
	r.log("mkdirall %s", filepath.Base(dir))
	return r.FS.MkdirAll(dir, perm)
}

func (r *recordingFS) ReadDir(dir string) ([]os.DirEntry, error) {
	r.log("readdir %s", filepath.Base(dir))
	return r.FS.ReadDir(dir)
}

func (r *recordingFS) Lstat(name string) (os.FileInfo, error) {
	r.log("lstat %s", filepath.Base(name))
	return r.FS.Lstat(name)
}

func (r *recordingFS) SyncDir(dir string) error {
	r.log("syncdir %s", filepath.Base(dir))
	return r.FS.SyncDir(dir)
}

type recordingFile struct {
	vfs.File
	fs    *recordingFS
	label string
}

func (f *recordingFile) Write(p []byte) (int, error) {
	f.fs.log("write %s", f.label)
	return f.File.Write(p)
}

func (f *recordingFile) Sync() error {
	f.fs.log("sync %s", f.label)
	return f.File.Sync()
}

func (f *recordingFile) Truncate(n int64) error {
	f.fs.log("truncate %s %d", f.label, n)
	return f.File.Truncate(n)
}

func (f *recordingFile) Close() error {
	f.fs.log("close %s", f.label)
	return f.File.Close()
}

// Lock forwards the store's append lock, unrecorded.
func (f *recordingFile) Lock() error { return f.File.Lock() }

// only keeps the operations whose text starts with one of the prefixes.
func only(ops []string, prefixes ...string) []string {
	var out []string
	for _, op := range ops {
		for _, p := range prefixes {
			if strings.HasPrefix(op, p) {
				out = append(out, op)
				break
			}
		}
	}
	return out
}

func equalOps(a, b []string) bool {
	return strings.Join(a, "\n") == strings.Join(b, "\n")
}

func mustEqualOps(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !equalOps(got, want) {
		t.Fatalf("%s: operations\n  got  %q\n  want %q", what, got, want)
	}
}

// syncedWrites checks that every handle on file base that wrote was fsynced
// after its last write and before it was closed, and returns the labels of
// those handles in the order they were opened.
func syncedWrites(t *testing.T, ops []string, base string) []string {
	t.Helper()
	type handle struct {
		wrote, dirty, closed bool
	}
	hs := map[string]*handle{}
	var order []string
	for _, op := range ops {
		verb, label, _ := strings.Cut(op, " ")
		label, _, _ = strings.Cut(label, " ")
		if !strings.HasPrefix(label, base+"#") {
			continue
		}
		h := hs[label]
		if h == nil {
			h = &handle{}
			hs[label] = h
			order = append(order, label)
		}
		switch verb {
		case "write", "truncate":
			h.wrote, h.dirty = true, true
		case "sync":
			h.dirty = false
		case "close":
			if h.dirty {
				t.Fatalf("%s closed with unsynced writes; operations: %q", label, ops)
			}
			h.closed = true
		}
	}
	var wrote []string
	for _, label := range order {
		h := hs[label]
		if !h.wrote {
			continue
		}
		if !h.closed || h.dirty {
			t.Fatalf("%s: written but not synced and closed; operations: %q", label, ops)
		}
		wrote = append(wrote, label)
	}
	return wrote
}

// index is the position of the first op equal to want, or -1.
func index(ops []string, want string) int {
	for k, op := range ops {
		if op == want {
			return k
		}
	}
	return -1
}
