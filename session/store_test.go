package session_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/vfs"
)

func TestModes(t *testing.T) {
	st := newStore(t)
	mustAppend(t, st, "s", assistant("one"))
	writeRaw(t, st, "torn", line(t, 1, assistant("a"))+`{"seq":2,"ty`)
	mustAppend(t, st, "torn", assistant("b")) // makes torn.jsonl.broken

	for _, c := range []struct {
		path string
		want os.FileMode
	}{
		{filepath.Dir(st.Dir()), session.DirMode},
		{st.Dir(), session.DirMode},
		{st.Path("s"), session.FileMode},
		{st.Path("torn") + ".broken", session.FileMode},
	} {
		fi, err := os.Lstat(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != c.want {
			t.Errorf("%s: mode %v, want %v", filepath.Base(c.path), got, c.want)
		}
	}
	if session.FileMode != 0o600 || session.DirMode != 0o700 {
		t.Fatalf("FileMode %v, DirMode %v; want 0600 and 0700", session.FileMode, session.DirMode)
	}
}

func TestCreateIsExclusive(t *testing.T) {
	st := newStore(t)
	if err := st.Create("s", []session.Event{assistant("first")}); err != nil {
		t.Fatal(err)
	}
	before := readRaw(t, st.Path("s"))
	err := st.Create("s", []session.Event{assistant("second")})
	if !errors.Is(err, session.ErrExists) {
		t.Fatalf("second Create: %v, want ErrExists", err)
	}
	if after := readRaw(t, st.Path("s")); after != before {
		t.Fatalf("second Create changed the log:\n%s\nwas\n%s", after, before)
	}
	if _, err := st.CreateWriter("s"); !errors.Is(err, session.ErrExists) {
		t.Fatalf("CreateWriter on an existing log: %v, want ErrExists", err)
	}
	checkLog(t, st, "s", 1)
}

// Create stamps and validates like Append: it never writes a log that
// cannot be read back.
func TestCreateStampsAndValidates(t *testing.T) {
	st := newStore(t)
	if err := st.Create("ok", []session.Event{assistant("a"), assistant("b")}); err != nil {
		t.Fatal(err)
	}
	evs := checkLog(t, st, "ok", 2)
	if evs[0].TS != pinnedTS {
		t.Fatalf("ts %q, want %q", evs[0].TS, pinnedTS)
	}
	bad := assistant("b")
	bad.Seq = 5
	if err := st.Create("gap", []session.Event{assistant("a"), bad}); !errors.Is(err, session.ErrSeq) {
		t.Fatalf("Create with seq 5 second: %v, want ErrSeq", err)
	}
	if err := st.Create("bad", []session.Event{{Type: "nonsense", Source: session.Source{Kind: "x"}}}); !errors.Is(err, session.ErrBadEvent) {
		t.Fatalf("Create with an unknown type: %v, want ErrBadEvent", err)
	}
	for _, id := range []string{"gap", "bad"} {
		if _, err := os.Lstat(st.Path(id)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s: a refused Create left a file (%v)", id, err)
		}
	}
}

func TestCreateSyncsFileAndDirectory(t *testing.T) {
	rec := newRecordingFS()
	st := newStoreFS(t, rec)
	rec.take()
	if err := st.Create("s", []session.Event{assistant("a")}); err != nil {
		t.Fatal(err)
	}
	ops := rec.take()
	handles := syncedWrites(t, ops, "s.jsonl")
	if len(handles) != 1 {
		t.Fatalf("written handles %q, want one", handles)
	}
	mustEqualOps(t, "Create", only(ops, "create", "write", "sync", "close"), []string{
		"create " + handles[0], "write " + handles[0], "sync " + handles[0], "close " + handles[0], "syncdir sessions",
	})
	checkLog(t, st, "s", 1)
}

func TestAppendSyncs(t *testing.T) {
	t.Run("new session: file and directory", func(t *testing.T) {
		rec := newRecordingFS()
		st := newStoreFS(t, rec)
		rec.take()
		mustAppend(t, st, "s", assistant("a"))
		ops := rec.take()
		handles := syncedWrites(t, ops, "s.jsonl")
		if len(handles) != 1 || index(ops, "create "+handles[0]) < 0 {
			t.Fatalf("want one created, written handle; got %q in %q", handles, ops)
		}
		if index(ops, "syncdir sessions") < index(ops, "close "+handles[0]) {
			t.Fatalf("the directory was not synced after the new log was closed: %q", ops)
		}
	})
	t.Run("existing session: file", func(t *testing.T) {
		rec := newRecordingFS()
		st := newStoreFS(t, rec)
		mustAppend(t, st, "s", assistant("a"))
		rec.take()
		mustAppend(t, st, "s", assistant("b"), assistant("c"))
		ops := rec.take()
		handles := syncedWrites(t, ops, "s.jsonl")
		if len(handles) != 1 || index(ops, "openappend "+handles[0]) < 0 {
			t.Fatalf("want one appending handle that wrote; got %q in %q", handles, ops)
		}
		if n := len(only(ops, "create")); n != 0 {
			t.Fatalf("an append created files: %q", ops)
		}
		checkLog(t, st, "s", 3)
	})
	t.Run("mark", func(t *testing.T) {
		rec := newRecordingFS()
		st := newStoreFS(t, rec)
		mustAppend(t, st, "s", assistant("a"))
		rec.take()
		mustMark(t, st, "s", graftMark(session.TypeGraftRetired, "t1", "s2"))
		if handles := syncedWrites(t, rec.take(), "s.jsonl"); len(handles) != 1 {
			t.Fatalf("AppendMark: written handles %q, want one", handles)
		}
	})
	t.Run("writer", func(t *testing.T) {
		rec := newRecordingFS()
		st := newStoreFS(t, rec)
		rec.take()
		w, err := st.CreateWriter("w")
		if err != nil {
			t.Fatal(err)
		}
		for k := 0; k < 3; k++ {
			ev := assistant("x")
			if err := w.Write(&ev); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		ops := rec.take()
		handles := syncedWrites(t, ops, "w.jsonl")
		if len(handles) != 1 || index(ops, "syncdir sessions") < index(ops, "close "+handles[0]) {
			t.Fatalf("Writer: want one synced handle, then the directory synced; got %q", ops)
		}
		checkLog(t, st, "w", 3)
	})
}

func TestAppendSeqAndTS(t *testing.T) {
	withSeq := func(ev session.Event, seq int64) session.Event { ev.Seq = seq; return ev }
	withTS := func(ev session.Event, ts string) session.Event { ev.TS = ts; return ev }
	cases := []struct {
		name     string
		evs      []session.Event
		wantSeqs []int64
		wantTS   []string
		// wantSeqErr is the (want, got) pair a refused batch reports.
		wantSeqErr [2]int64
	}{
		{name: "assigned", evs: []session.Event{assistant("a"), assistant("b")}, wantSeqs: []int64{3, 4}, wantTS: []string{pinnedTS, pinnedTS}},
		{name: "given next", evs: []session.Event{withSeq(assistant("a"), 3), assistant("b")}, wantSeqs: []int64{3, 4}, wantTS: []string{pinnedTS, pinnedTS}},
		{name: "given ts kept", evs: []session.Event{withTS(assistant("a"), "2001-01-01T00:00:00Z")}, wantSeqs: []int64{3}, wantTS: []string{"2001-01-01T00:00:00Z"}},
		{name: "gap", evs: []session.Event{withSeq(assistant("a"), 5)}, wantSeqErr: [2]int64{3, 5}},
		{name: "repeat", evs: []session.Event{withSeq(assistant("a"), 2)}, wantSeqErr: [2]int64{3, 2}},
		{name: "gap inside the batch", evs: []session.Event{assistant("a"), withSeq(assistant("b"), 9)}, wantSeqErr: [2]int64{4, 9}},
		{name: "negative", evs: []session.Event{withSeq(assistant("a"), -1)}, wantSeqErr: [2]int64{3, -1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := newStore(t)
			mustAppend(t, st, "s", assistant("1"), assistant("2"))
			before := readRaw(t, st.Path("s"))
			out, err := st.Append("s", c.evs)
			if c.wantSeqErr != [2]int64{} {
				var se *session.SeqError
				if !errors.As(err, &se) || !errors.Is(err, session.ErrSeq) {
					t.Fatalf("Append: %v, want *SeqError", err)
				}
				if se.Want != c.wantSeqErr[0] || se.Got != c.wantSeqErr[1] {
					t.Fatalf("SeqError want %d got %d; expected want %d got %d", se.Want, se.Got, c.wantSeqErr[0], c.wantSeqErr[1])
				}
				if after := readRaw(t, st.Path("s")); after != before {
					t.Fatalf("a refused batch changed the log")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			evs := checkLog(t, st, "s", 2+len(c.evs))
			for k := range out {
				if out[k].Seq != c.wantSeqs[k] || out[k].TS != c.wantTS[k] {
					t.Fatalf("returned event %d: seq %d ts %q, want %d %q", k, out[k].Seq, out[k].TS, c.wantSeqs[k], c.wantTS[k])
				}
				if !reflect.DeepEqual(evs[2+k], out[k]) {
					t.Fatalf("event %d on disk %+v, returned %+v", k, evs[2+k], out[k])
				}
			}
		})
	}
}

func TestAppendValidates(t *testing.T) {
	cases := map[string]session.Event{
		"unknown type":         {Type: "user/shout", Source: session.Source{Kind: session.KindUser}},
		"no source kind":       {Type: session.TypeUserMessage, Text: "hi"},
		"tool call, no tool":   {Type: session.TypeToolCall, Source: session.Source{Kind: session.KindAssistant}},
		"tool result, no name": {Type: session.TypeToolResult, Source: session.Source{Kind: session.KindTool}, Tool: &session.Tool{CallID: "c"}},
	}
	for name, bad := range cases {
		t.Run(name, func(t *testing.T) {
			st := newStore(t)
			mustAppend(t, st, "s", assistant("1"))
			before := readRaw(t, st.Path("s"))
			_, err := st.Append("s", []session.Event{assistant("fine"), bad})
			if !errors.Is(err, session.ErrBadEvent) {
				t.Fatalf("Append: %v, want ErrBadEvent", err)
			}
			if !strings.Contains(err.Error(), "seq 3") {
				t.Fatalf("error %q does not name the seq of the bad event", err)
			}
			if readRaw(t, st.Path("s")) != before {
				t.Fatal("the good event of a refused batch was written")
			}
			if _, err := st.Append("new", []session.Event{bad}); !errors.Is(err, session.ErrBadEvent) {
				t.Fatalf("Append creating a session: %v, want ErrBadEvent", err)
			}
			if _, err := os.Lstat(st.Path("new")); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("a refused first batch created the log (%v)", err)
			}
		})
	}
}

func TestAppendRefusesGraftEvents(t *testing.T) {
	st := newStore(t)
	mustAppend(t, st, "s", assistant("1"))
	for _, typ := range []string{session.TypeGraftOrigin, session.TypeGraftRetired, session.TypeGraftUnretired, session.TypeGraftAbandoned} {
		_, err := st.Append("s", []session.Event{assistant("ok"), graftMark(typ, "t1", "s2")})
		if !errors.Is(err, session.ErrBadEvent) || !strings.Contains(err.Error(), typ) {
			t.Fatalf("Append(%s): %v, want ErrBadEvent naming the type", typ, err)
		}
		if _, err := st.Append("fresh", []session.Event{graftMark(typ, "t1", "s2")}); !errors.Is(err, session.ErrBadEvent) {
			t.Fatalf("Append(%s) to a new session: %v, want ErrBadEvent", typ, err)
		}
	}
	checkLog(t, st, "s", 1)
	if _, err := os.Lstat(st.Path("fresh")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("refused graft events created a log (%v)", err)
	}
}

func TestAppendMarkTakesOnlyGraftEvents(t *testing.T) {
	st := newStore(t)
	mustAppend(t, st, "s", assistant("1"))
	for _, ev := range []session.Event{assistant("x"), human("x"), call("c"), result("c")} {
		if _, err := st.AppendMark("s", ev); !errors.Is(err, session.ErrBadEvent) {
			t.Fatalf("AppendMark(%s): %v, want ErrBadEvent", ev.Type, err)
		}
		if _, err := st.AppendMarkAfter("s", ev, session.ScanResult{Events: 1, LastSeq: 1}); !errors.Is(err, session.ErrBadEvent) {
			t.Fatalf("AppendMarkAfter(%s): %v, want ErrBadEvent", ev.Type, err)
		}
	}
	if _, err := st.AppendMark("s", graftMark(session.TypeGraftRetired, "", "s2")); !errors.Is(err, session.ErrBadEvent) {
		t.Fatalf("AppendMark without txn: %v, want ErrBadEvent", err)
	}
	if _, err := st.AppendMark("missing", graftMark(session.TypeGraftAbandoned, "t1", "")); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("AppendMark to a missing session: %v, want ErrNotFound", err)
	}
	if _, err := os.Lstat(st.Path("missing")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("AppendMark created a log (%v)", err)
	}
	out, err := st.AppendMark("s", graftMark(session.TypeGraftRetired, "t1", "s2"))
	if err != nil || out.Seq != 2 || out.TS != pinnedTS {
		t.Fatalf("AppendMark: %+v, %v; want seq 2 stamped", out, err)
	}
	checkLog(t, st, "s", 2)
}

func TestAppendMarkAfter(t *testing.T) {
	st := newStore(t)
	mustAppend(t, st, "s", assistant("1"), assistant("2"))
	info, err := st.Info("s")
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, st, "s", assistant("3"))
	before := readRaw(t, st.Path("s"))
	_, err = st.AppendMarkAfter("s", graftMark(session.TypeGraftRetired, "t1", "s2"), info.ScanResult)
	if !errors.Is(err, session.ErrChanged) || !strings.Contains(err.Error(), "seq 3") || !strings.Contains(err.Error(), "seq 2") {
		t.Fatalf("AppendMarkAfter on a grown log: %v, want ErrChanged naming seq 3 and seq 2", err)
	}
	if readRaw(t, st.Path("s")) != before {
		t.Fatal("a refused AppendMarkAfter wrote")
	}
	info, err = st.Info("s")
	if err != nil {
		t.Fatal(err)
	}
	ev, err := st.AppendMarkAfter("s", graftMark(session.TypeGraftRetired, "t1", "s2"), info.ScanResult)
	if err != nil || ev.Seq != 4 {
		t.Fatalf("AppendMarkAfter on an unchanged log: seq %d, %v", ev.Seq, err)
	}
	checkLog(t, st, "s", 4)

	// A torn tail does not move the end: the mark goes right after it.
	writeRaw(t, st, "torn", line(t, 1, assistant("a"))+`{"seq":2`)
	info, err = st.Info("torn")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.AppendMarkAfter("torn", graftMark(session.TypeGraftRetired, "t1", "s2"), info.ScanResult); err != nil {
		t.Fatalf("AppendMarkAfter over a torn tail: %v", err)
	}
	checkLog(t, st, "torn", 2)

	// Rewritten to the same last seq with other bytes: the end offset moved,
	// so what the caller decided from is gone too.
	writeRaw(t, st, "rewritten", line(t, 1, assistant("a"))+line(t, 2, assistant("b")))
	info, err = st.Info("rewritten")
	if err != nil {
		t.Fatal(err)
	}
	writeRaw(t, st, "rewritten", line(t, 1, assistant("a"))+line(t, 2, assistant("b, said otherwise")))
	before = readRaw(t, st.Path("rewritten"))
	_, err = st.AppendMarkAfter("rewritten", graftMark(session.TypeGraftRetired, "t1", "s2"), info.ScanResult)
	if !errors.Is(err, session.ErrChanged) || !strings.Contains(err.Error(), fmt.Sprintf("byte %d", info.End)) {
		t.Fatalf("AppendMarkAfter on a log rewritten to the same seq: %v, want ErrChanged naming byte %d", err, info.End)
	}
	if readRaw(t, st.Path("rewritten")) != before {
		t.Fatal("a refused AppendMarkAfter wrote")
	}
}

// appendOnCreateFS plays another writer that appends to a log between the
// store's O_EXCL create and its lock.
type appendOnCreateFS struct {
	vfs.FS
	other string
}

func (f *appendOnCreateFS) Create(name string, perm os.FileMode) (vfs.File, error) {
	file, err := f.FS.Create(name, perm)
	if err != nil {
		return nil, err
	}
	o, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, errors.Join(err, file.Close())
	}
	_, err = o.WriteString(f.other)
	if err = errors.Join(err, o.Close()); err != nil {
		return nil, errors.Join(err, file.Close())
	}
	return file, nil
}

// A create that lost the race to another writer refuses the file instead of
// writing over that writer's events at offset 0.
func TestCreateRefusesALogAppendedBeforeItsLock(t *testing.T) {
	for _, tc := range []struct {
		name   string
		create func(st *session.Store) error
	}{
		{"Create", func(st *session.Store) error { return st.Create("s", []session.Event{assistant("mine")}) }},
		{"CreateWriter", func(st *session.Store) error {
			w, err := st.CreateWriter("s")
			if err != nil {
				return err
			}
			return errors.Join(errors.New("CreateWriter returned a writer"), w.Close())
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			theirs := line(t, 1, assistant("theirs"))
			st := newStoreFS(t, &appendOnCreateFS{FS: vfs.Default, other: theirs})
			err := tc.create(st)
			if !errors.Is(err, session.ErrExists) || !strings.Contains(err.Error(), "appended to by another writer") {
				t.Fatalf("%s over a log another writer appended to: %v, want ErrExists", tc.name, err)
			}
			if got := readRaw(t, st.Path("s")); got != theirs {
				t.Fatalf("the other writer's log became %q, want %q", got, theirs)
			}
		})
	}
}

// Concurrent appenders must never both take the next seq: a repeat would
// make the log unreadable for good.
func TestConcurrentAppends(t *testing.T) {
	const writers, each = 8, 15
	for _, existing := range []bool{true, false} {
		st := newStore(t)
		if existing {
			mustAppend(t, st, "s", assistant("0"))
		}
		var wg sync.WaitGroup
		errs := make(chan error, writers)
		for w := 0; w < writers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := 0; k < each; k++ {
					if _, err := st.Append("s", []session.Event{assistant("x")}); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("existing=%v: concurrent Append: %v", existing, err)
		}
		want := writers * each
		if existing {
			want++
		}
		checkLog(t, st, "s", want)
	}
}

// A Writer holds the append lock until Close: an Append meanwhile waits
// instead of taking the unflushed log for empty and writing seq 1 under it.
func TestWriterHoldsLock(t *testing.T) {
	st := newStore(t)
	w, err := st.CreateWriter("s")
	if err != nil {
		t.Fatal(err)
	}
	ev := assistant("from the writer")
	if err := w.Write(&ev); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := st.Append("s", []session.Event{assistant("from append")})
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("Append finished while the Writer was open: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Append after the Writer closed: %v", err)
	}
	evs := checkLog(t, st, "s", 2)
	if evs[0].Text != "from the writer" || evs[1].Text != "from append" {
		t.Fatalf("texts %q, %q", evs[0].Text, evs[1].Text)
	}
}

func TestWriter(t *testing.T) {
	st := newStore(t)
	w, err := st.CreateWriter("w")
	if err != nil {
		t.Fatal(err)
	}
	a, b := assistant("a"), assistant("b")
	b.Seq = 2
	if err := w.Write(&a); err != nil || a.Seq != 1 || a.TS != pinnedTS {
		t.Fatalf("Write: %v; seq %d ts %q", err, a.Seq, a.TS)
	}
	if err := w.Write(&b); err != nil {
		t.Fatal(err)
	}
	c := assistant("c")
	c.Seq = 7
	var se *session.SeqError
	if err := w.Write(&c); !errors.As(err, &se) || se.Want != 3 || se.Got != 7 {
		t.Fatalf("Write seq 7 third: %v, want SeqError want 3 got 7", err)
	}
	d := assistant("d")
	if err := w.Write(&d); !errors.As(err, &se) {
		t.Fatalf("Write after an error: %v, want the first error again", err)
	}
	if err := w.Close(); !errors.As(err, &se) {
		t.Fatalf("Close after an error: %v, want the first error", err)
	}
	if w.Events() != 2 {
		t.Fatalf("Events() = %d, want 2", w.Events())
	}
}

func TestExistsAndList(t *testing.T) {
	st := newStore(t)
	mustAppend(t, st, "b", assistant("x"))
	mustAppend(t, st, "a", assistant("x"))
	writeRaw(t, st, "torn", `{"seq":1`)
	mustAppend(t, st, "torn", assistant("x"))
	for _, name := range []string{".hidden.jsonl", "notes.txt", "-bad.jsonl"} {
		if err := os.WriteFile(filepath.Join(st.Dir(), name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ids, err := st.List()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "b", "torn"}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("List = %q, want %q (no .broken, hidden, invalid or foreign files)", ids, want)
	}
	for id, want := range map[string]bool{"a": true, "zz": false} {
		got, err := st.Exists(id)
		if err != nil || got != want {
			t.Fatalf("Exists(%s) = %v, %v; want %v", id, got, err, want)
		}
	}
}

func TestOpenStoreError(t *testing.T) {
	home := t.TempDir()
	// A file where the sessions directory belongs.
	if err := os.WriteFile(filepath.Join(home, "sessions"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := session.OpenStore(newRecordingFS(), home)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(home, "sessions")) {
		t.Fatalf("OpenStore over a file: %v, %v; want an error naming the path", st, err)
	}
}
