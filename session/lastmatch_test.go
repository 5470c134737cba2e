package session_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	graftindex "github.com/graft-project/graft/index"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/vfs"
)

// readCounter counts the bytes read from files whose name ends in suffix.
type readCounter struct {
	vfs.FS
	suffix string
	mu     sync.Mutex
	n      int64
}

func (r *readCounter) Open(name string) (vfs.File, error) {
	f, err := r.FS.Open(name)
	if err != nil || !strings.HasSuffix(name, r.suffix) {
		return f, err
	}
	return &countedFile{File: f, r: r}, nil
}

func (r *readCounter) take() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.n
	r.n = 0
	return n
}

type countedFile struct {
	vfs.File
	r *readCounter
}

func (f *countedFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	f.r.mu.Lock()
	f.r.n += int64(n)
	f.r.mu.Unlock()
	return n, err
}

func (f *countedFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.File.ReadAt(p, off)
	f.r.mu.Lock()
	f.r.n += int64(n)
	f.r.mu.Unlock()
	return n, err
}

// The newest "needle keep" event, as LastMatch and as ScanBack find it.
var lastNeedles = [][]byte{[]byte("needle")}

func keepNeedle(ev *session.Event) bool { return strings.HasPrefix(ev.Text, "needle keep") }

func lastByScanBack(t *testing.T, st *session.Store, id string) string {
	t.Helper()
	got := "<none>"
	if err := st.ScanBack(id, lastNeedles, func(ev *session.Event) (bool, error) {
		if keepNeedle(ev) {
			got = ev.Text
			return false, nil
		}
		return true, nil
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

func lastByMatch(t *testing.T, st *session.Store, id, key string) string {
	t.Helper()
	ev, memoErr, err := st.LastMatch(id, key, lastNeedles, keepNeedle)
	if err != nil || memoErr != nil {
		t.Fatal(err, memoErr)
	}
	if ev == nil {
		return "<none>"
	}
	return ev.Text
}

// A look for an event that is not there, repeated after each append (a
// hook on every prompt of a session never compacted), reads what was
// appended since the look before, not the log: LastMatch keeps where it
// got to in index/<id>.last. Its answers are ScanBack's.
func TestLastMatchReadsWhatWasAppended(t *testing.T) {
	rc := &readCounter{FS: vfs.Default, suffix: ".jsonl"}
	st := newStoreFS(t, rc)
	var evs []session.Event
	for k := range 8000 {
		text := fmt.Sprintf("plain %d %s", k, strings.Repeat("x", 700))
		if k%1000 == 3 {
			text = fmt.Sprintf("needle skip %d", k) // holds the needle, not kept
		}
		evs = append(evs, assistant(text))
	}
	mustAppend(t, st, "s", evs...)
	fi, err := os.Stat(st.Path("s"))
	if err != nil {
		t.Fatal(err)
	}
	if got := lastByMatch(t, st, "s", "q"); got != "<none>" {
		t.Fatalf("first look: got %s", got)
	}
	if n := rc.take(); n < fi.Size() {
		t.Fatalf("the first look read %d of the log's %d bytes: it has nothing to start from", n, fi.Size())
	}
	for k := range 5 {
		mustAppend(t, st, "s", assistant(fmt.Sprintf("turn %d %s", k, strings.Repeat("y", 8000))), assistant(fmt.Sprintf("needle skip turn %d", k)))
		rc.take()
		if got, want := lastByMatch(t, st, "s", "q"), lastByScanBack(t, st, "s"); got != want {
			t.Fatalf("turn %d: LastMatch %s, ScanBack %s", k, got, want)
		}
		// LastMatch's reads, then ScanBack's whole log: only the former
		// is bounded.
		n := rc.take()
		fi, err := os.Stat(st.Path("s"))
		if err != nil {
			t.Fatal(err)
		}
		if lm := n - fi.Size(); lm > 64<<10 {
			t.Fatalf("turn %d: LastMatch read %d bytes of a %d-byte log after an append of about 8 KiB; want at most 64 KiB", k, lm, fi.Size())
		}
	}
	// A kept event: found in what was appended, then from the memo after
	// more than LastMatchEvery bytes on top of it.
	mustAppend(t, st, "s", assistant("needle keep 1"))
	if got := lastByMatch(t, st, "s", "q"); got != "needle keep 1" {
		t.Fatalf("after the kept event: got %s", got)
	}
	var more []session.Event
	for k := range 2000 {
		more = append(more, assistant(fmt.Sprintf("later %d %s", k, strings.Repeat("z", 700))))
	}
	mustAppend(t, st, "s", more...)
	for range 2 {
		if got, want := lastByMatch(t, st, "s", "q"), lastByScanBack(t, st, "s"); got != want || got != "needle keep 1" {
			t.Fatalf("past the kept event: LastMatch %s, ScanBack %s", got, want)
		}
	}
	mustAppend(t, st, "s", assistant("needle keep 2"), assistant("needle skip last"))
	if got := lastByMatch(t, st, "s", "q"); got != "needle keep 2" {
		t.Fatalf("a newer kept event: got %s", got)
	}
}

// The memo is a hint: another query's, or one whose log changed under
// it, is passed over and the log read.
func TestLastMatchMemoMustFitTheLog(t *testing.T) {
	st := newStore(t)
	var evs []session.Event
	evs = append(evs, assistant("needle keep old"))
	for k := range 3000 {
		evs = append(evs, assistant(fmt.Sprintf("plain %d %s", k, strings.Repeat("x", 700))))
	}
	mustAppend(t, st, "s", evs...)
	if got := lastByMatch(t, st, "s", "q"); got != "needle keep old" {
		t.Fatalf("got %s", got)
	}
	if _, err := os.Stat(graftindex.LastPath(filepath.Dir(filepath.Dir(st.Path("s"))), "s")); err != nil {
		t.Fatalf("no memo after reading %d events: %v", len(evs), err)
	}
	// Another query does not take this one's answer.
	ev, memoErr, err := st.LastMatch("s", "other", lastNeedles, func(ev *session.Event) bool { return ev.Text == "needle keep new" })
	if err != nil || memoErr != nil || ev != nil {
		t.Fatalf("another query: %v, %v, %v", ev, memoErr, err)
	}
	// The log rewritten in place (same file, other bytes before the
	// memo's offset): the memo does not fit.
	raw := readRaw(t, st.Path("s"))
	writeRaw(t, st, "s", strings.Replace(raw, "needle keep old", "needle keep new", 1))
	if got := lastByMatch(t, st, "s", "q"); got != "needle keep new" {
		t.Fatalf("after the log changed: got %s", got)
	}
	// A memo damaged on the disk, still JSON, is passed over: its
	// checksum does not match.
	memo := graftindex.LastPath(filepath.Dir(filepath.Dir(st.Path("s"))), "s")
	good, err := os.ReadFile(memo)
	if err != nil {
		t.Fatal(err)
	}
	damaged := strings.Replace(string(good), "needle keep new", "needle keep NEW", 1)
	if damaged == string(good) {
		t.Fatalf("the memo %s does not hold the event", good)
	}
	if err := os.WriteFile(memo, []byte(damaged), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := lastByMatch(t, st, "s", "q"); got != "needle keep new" {
		t.Fatalf("with a damaged memo: got %s", got)
	}
	// A memo that does not decode is passed over too.
	if err := os.WriteFile(graftindex.LastPath(filepath.Dir(filepath.Dir(st.Path("s"))), "s"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := lastByMatch(t, st, "s", "q"); got != "needle keep new" {
		t.Fatalf("with a broken memo: got %s", got)
	}
}

// renameFails fails the rename that publishes a last-match memo.
type renameFails struct{ vfs.FS }

func (r renameFails) Rename(oldname, newname string) error {
	if strings.HasSuffix(newname, ".last") {
		return fmt.Errorf("injected: rename %s", newname)
	}
	return r.FS.Rename(oldname, newname)
}

// A memo that cannot be written is told beside the answer, which stands.
func TestLastMatchTellsAFailedMemo(t *testing.T) {
	st := newStoreFS(t, renameFails{vfs.Default})
	evs := []session.Event{assistant("needle keep one")}
	for k := range 3000 {
		evs = append(evs, assistant(fmt.Sprintf("plain %d %s", k, strings.Repeat("x", 700))))
	}
	mustAppend(t, st, "s", evs...)
	ev, memoErr, err := st.LastMatch("s", "q", lastNeedles, keepNeedle)
	if err != nil || ev == nil || ev.Text != "needle keep one" {
		t.Fatalf("the answer: %v, %v", ev, err)
	}
	if memoErr == nil || !strings.Contains(memoErr.Error(), "injected: rename") {
		t.Fatalf("the failed memo write: got %v", memoErr)
	}
}
