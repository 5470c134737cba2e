package session_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

// docs/DESIGN.md §3.1: no fixed line-length limit. One event of 16 MiB goes in and
// comes back equal, through the store and through Scan of the bytes.
func TestRoundTrip16MiBEvent(t *testing.T) {
	st := newStore(t)
	mustAppend(t, st, "s", human("read the big file"))
	big := make([]byte, 16<<20)
	for k := range big {
		big[k] = "abcdefghijklmnopqrstuvwxyz0123456789 \n\"\\é"[k%42]
	}
	ok := true
	ev := session.Event{Type: session.TypeToolResult, Source: session.Source{Kind: session.KindTool},
		Tool: &session.Tool{Name: "Read", CallID: "c1", OK: &ok, Output: string(big)}}
	out := mustAppend(t, st, "s", ev, assistant("after"))
	evs := checkLog(t, st, "s", 3)
	if !reflect.DeepEqual(evs[1], out[0]) {
		t.Fatalf("16 MiB event read back differs (output %d bytes, want %d)", len(evs[1].Tool.Output), len(big))
	}
	if evs[1].Tool.Output != string(big) {
		t.Fatal("16 MiB output changed on the way")
	}
	if evs[2].Text != "after" {
		t.Fatalf("the event after the big one reads %q", evs[2].Text)
	}
	raw := readRaw(t, st.Path("s"))
	lines := strings.SplitAfter(raw, "\n")
	if len(lines[1]) < 16<<20 {
		t.Fatalf("the big line is %d bytes, want at least 16 MiB", len(lines[1]))
	}
	// The raw bytes handed to fn are the line itself.
	var gotRaw []byte
	if _, err := st.Scan("s", session.ScanFrom{}, func(ev *session.Event, raw []byte, off int64) error {
		if ev.Seq == 2 {
			gotRaw = append([]byte(nil), raw...)
			if off != int64(len(lines[0])) {
				return fmt.Errorf("seq 2 at offset %d, want %d", off, len(lines[0]))
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if string(gotRaw)+"\n" != lines[1] {
		t.Fatalf("raw line of seq 2: %d bytes, want %d", len(gotRaw)+1, len(lines[1]))
	}
}

func TestTornTailReported(t *testing.T) {
	full := line(t, 1, human("go")) + line(t, 2, assistant("ok"))
	cases := []struct {
		name, data string
		events     int
		torn       *session.Torn
	}{
		{"no tail", full, 2, nil},
		{"half an event", full + `{"seq":3,"type":"assist`, 2, &session.Torn{Offset: int64(len(full)), Bytes: 23}},
		{"a whole event without newline", full + strings.TrimSuffix(line(t, 3, assistant("x")), "\n"), 2,
			&session.Torn{Offset: int64(len(full)), Bytes: int64(len(line(t, 3, assistant("x"))) - 1)}},
		{"one byte", full + "{", 2, &session.Torn{Offset: int64(len(full)), Bytes: 1}},
		{"garbage and NUL", full + "\x00\xff\xfe", 2, &session.Torn{Offset: int64(len(full)), Bytes: 3}},
		{"only a torn line", `{"seq":1`, 0, &session.Torn{Offset: 0, Bytes: 8}},
		{"empty file", "", 0, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := newStore(t)
			writeRaw(t, st, "s", c.data)
			var seen int
			res, err := st.Scan("s", session.ScanFrom{}, func(*session.Event, []byte, int64) error { seen++; return nil })
			if err != nil {
				t.Fatalf("a torn tail is never fatal: %v", err)
			}
			if res.Events != c.events || seen != c.events {
				t.Fatalf("events %d (fn saw %d), want %d", res.Events, seen, c.events)
			}
			if !reflect.DeepEqual(res.Torn, c.torn) {
				t.Fatalf("torn %+v, want %+v", res.Torn, c.torn)
			}
			wantEnd := int64(len(c.data))
			if c.torn != nil {
				wantEnd = c.torn.Offset
			}
			if res.End != wantEnd {
				t.Fatalf("end %d, want %d", res.End, wantEnd)
			}
			info, err := st.Info("s")
			if err != nil || !reflect.DeepEqual(info.Torn, c.torn) {
				t.Fatalf("Info: torn %+v, %v", info, err)
			}
		})
	}
}

func TestTornTailRepairedOnAppend(t *testing.T) {
	st := newStore(t)
	full := line(t, 1, human("go")) + line(t, 2, assistant("ok"))
	tail := `{"seq":3,"type":"assistant/mess`
	writeRaw(t, st, "s", full+tail)

	out := mustAppend(t, st, "s", assistant("after the crash"))
	if out[0].Seq != 3 {
		t.Fatalf("the append after a torn tail got seq %d, want 3 (the torn line is no event)", out[0].Seq)
	}
	if got := readRaw(t, st.Path("s")+".broken"); got != tail {
		t.Fatalf(".broken holds %q, want the cut bytes %q", got, tail)
	}
	evs := checkLog(t, st, "s", 3)
	if evs[2].Text != "after the crash" {
		t.Fatalf("seq 3 reads %q", evs[2].Text)
	}
	if raw := readRaw(t, st.Path("s")); !strings.HasPrefix(raw, full) {
		t.Fatal("the repair changed the complete lines before the tail")
	}

	// A second tear keeps the first .broken and takes the next name.
	tail2 := `{"seq":4,"ty`
	f, err := os.OpenFile(st.Path("s"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(tail2); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := st.AppendMark("s", graftMark(session.TypeGraftRetired, "t1", "s2")); err != nil {
		t.Fatal(err)
	}
	if got := readRaw(t, st.Path("s")+".broken"); got != tail {
		t.Fatalf("the first .broken was overwritten: %q", got)
	}
	if got := readRaw(t, st.Path("s")+".broken.1"); got != tail2 {
		t.Fatalf(".broken.1 holds %q, want %q", got, tail2)
	}
	checkLog(t, st, "s", 4)
}

func TestRepairTail(t *testing.T) {
	st := newStore(t)
	full := line(t, 1, human("go"))
	writeRaw(t, st, "s", full+"torn")
	info, err := st.Info("s")
	if err != nil || info.Torn == nil {
		t.Fatalf("Info: %+v, %v; want a torn tail", info, err)
	}
	if err := st.RepairTail("s", info); err != nil {
		t.Fatal(err)
	}
	if info.Torn != nil {
		t.Fatal("RepairTail left info.Torn set")
	}
	if readRaw(t, st.Path("s")) != full || readRaw(t, st.Path("s")+".broken") != "torn" {
		t.Fatal("RepairTail did not cut the tail into .broken")
	}
	// Nothing to repair: nothing is written.
	if err := st.RepairTail("s", info); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(st.Path("s") + ".broken.1"); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a repair of a clean log made a .broken file")
	}

	// A stale info (the tail was completed since) never cuts a good line:
	// RepairTail folds again under the lock.
	writeRaw(t, st, "t", full+"torn")
	stale, err := st.Info("t")
	if err != nil {
		t.Fatal(err)
	}
	good := full + line(t, 2, assistant("completed"))
	writeRaw(t, st, "t", good)
	if err := st.RepairTail("t", stale); err != nil {
		t.Fatal(err)
	}
	if readRaw(t, st.Path("t")) != good {
		t.Fatal("RepairTail with a stale info cut a complete line")
	}
	if _, err := os.Lstat(st.Path("t") + ".broken"); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("RepairTail with a stale info made a .broken file")
	}
}

// The .broken copy is durable before the bytes it keeps are cut.
func TestRepairSyncOrder(t *testing.T) {
	rec := newRecordingFS()
	st := newStoreFS(t, rec)
	writeRaw(t, st, "s", line(t, 1, human("go"))+"torn")
	rec.take()
	mustAppend(t, st, "s", assistant("x"))
	ops := rec.take()
	broken := syncedWrites(t, ops, "s.jsonl.broken")
	if len(broken) != 1 {
		t.Fatalf(".broken handles %q in %q", broken, ops)
	}
	truncate := -1
	for k, op := range ops {
		if strings.HasPrefix(op, "truncate s.jsonl#") {
			truncate = k
		}
	}
	syncDir := index(ops, "syncdir sessions")
	closeBroken := index(ops, "close "+broken[0])
	if truncate < 0 || syncDir < closeBroken || truncate < syncDir {
		t.Fatalf("want .broken synced and closed, then sessions/ synced, then the log truncated; got %q", ops)
	}
	syncedWrites(t, ops, "s.jsonl") // the truncating and the appending handles are synced
}

func TestCorruptLine(t *testing.T) {
	l1 := line(t, 1, human("go"))
	l2 := line(t, 2, assistant("ok"))
	l3 := line(t, 3, assistant("more"))
	cases := []struct {
		name, data string
		line       int
		offset     int64
	}{
		{"bad JSON in the middle", l1 + "{not json}\n" + l3, 2, int64(len(l1))},
		{"empty line", l1 + "\n" + l2, 2, int64(len(l1))},
		{"blank line", l1 + l2 + " \t\n" + l3, 3, int64(len(l1 + l2))},
		{"missing type", l1 + `{"seq":2,"source":{"kind":"user"}}` + "\n" + l3, 2, int64(len(l1))},
		{"NUL bytes", l1 + l2 + "\x00\x00\x00\n" + l3, 3, int64(len(l1 + l2))},
		{"first line", "[1,2]\n" + l1, 1, 0},
		{"JSON null", l1 + "null\n", 2, int64(len(l1))},
		{"bad last full line before a torn tail", l1 + "}\n" + "{torn", 2, int64(len(l1))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := newStore(t)
			writeRaw(t, st, "s", c.data)
			_, err := st.Info("s")
			var ce *session.CorruptError
			if !errors.As(err, &ce) || !errors.Is(err, session.ErrCorrupt) {
				t.Fatalf("Info: %v, want *CorruptError", err)
			}
			if ce.Path != st.Path("s") || ce.Line != c.line || ce.Offset != c.offset {
				t.Fatalf("CorruptError names %s line %d offset %d; want %s line %d offset %d", ce.Path, ce.Line, ce.Offset, st.Path("s"), c.line, c.offset)
			}
			msg := err.Error()
			for _, want := range []string{st.Path("s"), fmt.Sprintf("line %d", c.line), fmt.Sprintf("byte offset %d", c.offset)} {
				if !strings.Contains(msg, want) {
					t.Fatalf("message %q lacks %q", msg, want)
				}
			}
			// Nothing is guessed: an append is refused and writes nothing.
			if _, err := st.Append("s", []session.Event{assistant("x")}); !errors.As(err, &ce) {
				t.Fatalf("Append to a corrupt log: %v, want *CorruptError", err)
			}
			if readRaw(t, st.Path("s")) != c.data {
				t.Fatal("an append to a corrupt log changed it")
			}
			if _, err := os.Lstat(st.Path("s") + ".broken"); !errors.Is(err, os.ErrNotExist) {
				t.Fatal("an append to a corrupt log made a .broken file")
			}
		})
	}
}

func TestSeqChain(t *testing.T) {
	l := func(seq int64) string { return line(t, seq, assistant("x")) }
	cases := []struct {
		name      string
		data      string
		want, got int64
		line      int
		offset    int64
	}{
		{"gap", l(1) + l(2) + l(4), 3, 4, 3, int64(len(l(1) + l(2)))},
		{"repeat", l(1) + l(2) + l(2), 3, 2, 3, int64(len(l(1) + l(2)))},
		{"starts at 2", l(2), 1, 2, 1, 0},
		{"seq 0", l(0), 1, 0, 1, 0},
		{"goes back", l(1) + l(2) + l(3) + l(1), 4, 1, 4, int64(len(l(1) + l(2) + l(3)))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := newStore(t)
			writeRaw(t, st, "s", c.data)
			_, err := st.Info("s")
			var se *session.SeqError
			if !errors.As(err, &se) || !errors.Is(err, session.ErrSeq) {
				t.Fatalf("Info: %v, want *SeqError", err)
			}
			if se.Want != c.want || se.Got != c.got || se.Line != c.line || se.Offset != c.offset || se.Path != st.Path("s") {
				t.Fatalf("SeqError %+v; want want=%d got=%d line=%d offset=%d", *se, c.want, c.got, c.line, c.offset)
			}
			msg := err.Error()
			for _, want := range []string{fmt.Sprintf("seq %d follows seq %d", c.got, c.want-1), fmt.Sprintf("line %d", c.line)} {
				if !strings.Contains(msg, want) {
					t.Fatalf("message %q lacks %q (both seqs)", msg, want)
				}
			}
		})
	}
}

// Scan can start mid-file at a line boundary; lines, offsets and seqs go
// on from there.
func TestScanFrom(t *testing.T) {
	st := newStore(t)
	mustAppend(t, st, "s", human("1"), assistant("2"), assistant("3"), assistant("4"))
	full, res, err := st.ReadAll("s")
	if err != nil {
		t.Fatal(err)
	}
	var offs []int64
	if _, err := st.Scan("s", session.ScanFrom{}, func(_ *session.Event, _ []byte, off int64) error {
		offs = append(offs, off)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var got []session.Event
	var gotOffs []int64
	tail, err := st.Scan("s", session.ScanFrom{Offset: offs[2], Line: 3, NextSeq: 3}, func(ev *session.Event, _ []byte, off int64) error {
		got = append(got, *ev)
		gotOffs = append(gotOffs, off)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, full[2:]) || !reflect.DeepEqual(gotOffs, offs[2:]) {
		t.Fatalf("scan from seq 3: %+v at %v, want %+v at %v", got, gotOffs, full[2:], offs[2:])
	}
	if tail.Events != 2 || tail.LastSeq != 4 || tail.End != res.End {
		t.Fatalf("scan from seq 3: %+v, want 2 events, last seq 4, end %d", tail, res.End)
	}
	// A wrong NextSeq is a seq error at the right line.
	_, err = st.Scan("s", session.ScanFrom{Offset: offs[2], Line: 3, NextSeq: 7}, nil)
	var se *session.SeqError
	if !errors.As(err, &se) || se.Line != 3 || se.Want != 7 || se.Got != 3 || se.Offset != offs[2] {
		t.Fatalf("scan from seq 3 expecting 7: %v", err)
	}
	// From the end: nothing, no error.
	end, err := st.Scan("s", session.ScanFrom{Offset: res.End, Line: 5, NextSeq: 5}, nil)
	if err != nil || end.Events != 0 || end.LastSeq != 4 || end.End != res.End {
		t.Fatalf("scan from the end: %+v, %v", end, err)
	}
}

func TestScanStopsOnCallbackError(t *testing.T) {
	st := newStore(t)
	mustAppend(t, st, "s", human("1"), assistant("2"), assistant("3"))
	stop := errors.New("stop here")
	var n int
	res, err := st.Scan("s", session.ScanFrom{}, func(*session.Event, []byte, int64) error {
		n++
		if n == 2 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 2 || res.Events != 2 {
		t.Fatalf("Scan: %v after %d calls, %d events; want the callback's error after 2", err, n, res.Events)
	}
}

// LineReader returns lines across its 64 KiB buffer and reports what is
// left after the last '\n' as a torn tail.
func TestLineReader(t *testing.T) {
	long := strings.Repeat("x", 200_000)
	data := "a\n" + long + "\n\nb\r\n" + long[:70_000]
	lr := session.NewLineReader(strings.NewReader(data), 100, 7)
	want := []struct {
		line string
		off  int64
		num  int
	}{
		{"a", 100, 7},
		{long, 102, 8},
		{"", 200_103, 9},
		{"b\r", 200_104, 10},
	}
	for _, w := range want {
		line, off, num, err := lr.Next()
		if err != nil || string(line) != w.line || off != w.off || num != w.num {
			t.Fatalf("Next: %d bytes at %d line %d, %v; want %d bytes at %d line %d", len(line), off, num, err, len(w.line), w.off, w.num)
		}
	}
	line, off, _, err := lr.Next()
	var torn *session.TornTailError
	if !errors.As(err, &torn) || torn.Torn.Offset != 200_107 || torn.Torn.Bytes != 70_000 || off != 200_107 || len(line) != 70_000 {
		t.Fatalf("last Next: %d bytes at %d, %v; want a torn tail of 70000 bytes at 200107", len(line), off, err)
	}
	if lr.Offset() != 200_107 {
		t.Fatalf("Offset() = %d after the torn tail, want 200107", lr.Offset())
	}
	lr = session.NewLineReader(bytes.NewReader([]byte("x\n")), 0, 1)
	if _, _, _, err := lr.Next(); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := lr.Next(); err != io.EOF {
		t.Fatalf("Next at a clean end: %v, want io.EOF", err)
	}
}

// A read error is reported with the path and offset, never taken for the
// end of the log.
func TestScanReadError(t *testing.T) {
	boom := errors.New("disk on fire")
	r := io.MultiReader(strings.NewReader(line(t, 1, human("go"))), errReader{boom})
	res, err := session.Scan(r, "the/path.jsonl", session.ScanFrom{}, nil)
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "the/path.jsonl") || res.Torn != nil {
		t.Fatalf("Scan over a failing reader: %+v, %v", res, err)
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }
