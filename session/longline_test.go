package session_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/graft-project/graft/session"
)

// A log line built from a template: SEQ is its seq.
func short(seq int) string {
	return fmt.Sprintf(`{"seq":%d,"ts":"2025-01-01T00:00:00Z","type":"assistant/message","source":{"kind":"assistant"},"text":"hi %d"}`, seq, seq) + "\n"
}

// toolResultLine is a tool/result line whose tool object's fields are fields
// (in that order); output is the raw JSON string body of "output".
func toolResultLine(seq int, fields string) string {
	return fmt.Sprintf(`{"seq":%d,"ts":"2025-01-01T00:00:00Z","type":"tool/result","source":{"kind":"tool"},"tool":{%s}}`, seq, fields) + "\n"
}

// logLines are log-line outputs of random-ish lengths: an escape (\n)
// every 20-140 bytes, n bytes in all or a little more.
func logLines(n int, salt int) string {
	var b strings.Builder
	for k := 0; b.Len() < n; k++ {
		fmt.Fprintf(&b, `2025-11-15T21:16:35.025Z INFO  line %d %s\n`, k, strings.Repeat("x", (k*37+salt)%120))
	}
	return b.String()
}

// foldCall is what ScanFoldSums hands fn, in the terms of Scan's raw line.
type foldCall struct {
	ev   session.Event
	size int
	sum  session.LineSum
	off  int64
}

// scanWant is what ScanFoldSums must report for data: Scan's events
// (as ScanFold promises them), sizes, sums and offsets, result and error.
func scanWant(t *testing.T, data []byte, from session.ScanFrom) ([]foldCall, session.ScanResult, string) {
	t.Helper()
	var calls []foldCall
	res, err := session.Scan(bytes.NewReader(data), "x.jsonl", from, func(ev *session.Event, raw []byte, off int64) error {
		calls = append(calls, foldCall{foldView(*ev), len(raw), session.SumLine(raw), off})
		return nil
	})
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	return calls, res, msg
}

func scanSums(r io.Reader, from session.ScanFrom) ([]foldCall, session.ScanResult, string) {
	var calls []foldCall
	res, err := session.ScanFoldSums(r, "x.jsonl", from, func(ev *session.Event, size int, sum session.LineSum, off int64) error {
		calls = append(calls, foldCall{*ev, size, sum, off})
		return nil
	})
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	return calls, res, msg
}

// shortReads gives at most max bytes a read, keeping ReadAt and Seek.
type shortReads struct {
	*bytes.Reader
	max int
}

func (s *shortReads) Read(p []byte) (int, error) { return s.Reader.Read(p[:min(len(p), s.max)]) }

// onlyReader hides a reader's ReadAt and Seek: ScanFoldSums then reads
// long lines whole.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

func sameScan(t *testing.T, name string, got, want []foldCall, gotRes, wantRes session.ScanResult, gotErr, wantErr string) {
	t.Helper()
	if gotErr != wantErr || !reflect.DeepEqual(gotRes, wantRes) {
		t.Fatalf("%s: %+v %q\nScan: %+v %q", name, gotRes, gotErr, wantRes, wantErr)
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d calls, Scan made %d", name, len(got), len(want))
	}
	for k := range got {
		if !reflect.DeepEqual(got[k], want[k]) {
			g, w := got[k], want[k]
			t.Fatalf("%s: call %d (seq %d) differs:\n got size %d off %d sum %x tool %+v\nwant size %d off %d sum %x tool %+v", name, k, w.ev.Seq, g.size, g.off, g.sum, g.ev.Tool, w.size, w.off, w.sum, w.ev.Tool)
		}
	}
}

// TestScanFoldSumsLongLines: a line longer than a batch is decoded as it
// is read (its output's body dropped as it is validated) or, when it
// cannot be, read again whole; either way ScanFoldSums hands fn exactly
// what Scan reads (the fold's view of the event, the line's length, its
// XXH3, its offset) and ends with Scan's result and error. Each case says
// which way its long lines must go, so that a case cannot pass by taking
// the whole-line path it was not written for.
func TestScanFoldSumsLongLines(t *testing.T) {
	big := logLines(1<<20, 0)
	// Escapes of every length, shifted so that reads end inside each.
	var escapes []string
	for pad := range 13 {
		escapes = append(escapes, strings.Repeat("a", pad)+strings.Repeat(`\u00e9\ud83d\ude00\\\"\n\t\/é`, 16000))
	}
	head := `   \n  \t\n  first words of the failure\nsecond line\n`
	cases := []struct {
		name  string
		lines func(seq int) string // the long line at seq
		whole bool                 // read again whole, not decoded as read
	}{
		{"success, ok before output", func(s int) string {
			return toolResultLine(s, `"name":"Bash","callId":"c","ok":true,"output":"`+big+`"`)
		}, false},
		{"success, ok after output", func(s int) string {
			return toolResultLine(s, `"name":"Bash","callId":"c","output":"`+big+`","ok":true`)
		}, false},
		{"failure, ok before output", func(s int) string {
			return toolResultLine(s, `"name":"Bash","ok":false,"output":"`+head+big+`"`)
		}, false},
		{"failure, ok after output", func(s int) string {
			return toolResultLine(s, `"name":"Bash","output":"`+head+big+`","ok":false`)
		}, false},
		{"no ok at all", func(s int) string {
			return toolResultLine(s, `"name":"Bash","output":"`+head+big+`"`)
		}, false},
		{"failure whose first line is MiBs", func(s int) string {
			return toolResultLine(s, `"ok":false,"output":"`+strings.Repeat("z", 1<<20)+`\nrest"`)
		}, false},
		{"failure with no line of text", func(s int) string {
			return toolResultLine(s, `"ok":false,"output":"`+strings.Repeat(`  \n`, 300000)+`"`)
		}, false},
		{"long text (built)", func(s int) string {
			return fmt.Sprintf(`{"seq":%d,"type":"assistant/message","text":"%s"}`, s, big) + "\n"
		}, false},
		{"long input (kept raw)", func(s int) string {
			return toolResultLine(s, `"name":"Write","input":{"file_path":"/a","content":"`+big+`"},"ok":true,"output":"done"`)
		}, false},
		{"long output then a field after it", func(s int) string {
			return toolResultLine(s, `"ok":true,"output":"`+big+`","name":"Bash","callId":"c"`)
		}, false},
		{"escapes cut by every read edge", func(s int) string {
			return toolResultLine(s, `"ok":true,"output":"`+escapes[s%len(escapes)]+`"`)
		}, false},
		{"escapes cut by every read edge, failed", func(s int) string {
			return toolResultLine(s, `"ok":false,"output":"`+escapes[s%len(escapes)]+`"`)
		}, false},
		{"bad escape deep in the output", func(s int) string {
			return toolResultLine(s, `"ok":true,"output":"`+big+`\x"`)
		}, true},
		{"control byte deep in the output", func(s int) string {
			return toolResultLine(s, `"ok":true,"output":"`+big+"\x01"+`"`)
		}, true},
		{"lone surrogate deep in the output", func(s int) string {
			return toolResultLine(s, `"ok":true,"output":"`+big+`\ud800"`)
		}, true},
		{"unterminated output", func(s int) string {
			return toolResultLine(s, `"ok":true,"output":"`+big)
		}, true},
		{"trailing garbage", func(s int) string {
			return strings.TrimSuffix(toolResultLine(s, `"ok":true,"output":"`+big+`"`), "\n") + "x\n"
		}, true},
		{"unknown key after the output (encoding/json ignores it)", func(s int) string {
			return toolResultLine(s, `"ok":true,"output":"`+big+`","extra":1`)
		}, true},
		{"repeated output", func(s int) string {
			return toolResultLine(s, `"ok":true,"output":"`+big+`","output":"x"`)
		}, true},
		{"invalid UTF-8 in a failure's head", func(s int) string {
			return toolResultLine(s, `"ok":false,"output":"bad \xff byte\n`+big+`"`)
		}, true},
		{"invalid UTF-8 in a success's body (not read)", func(s int) string {
			return toolResultLine(s, `"ok":true,"output":"`+big+"\xff\xfe"+`"`)
		}, false},
		{"less than longAhead of spaces after the output", func(s int) string {
			// The output ends at every place in a read, so that what
			// follows it must be read on.
			return toolResultLine(s, `"ok":true,"output":"`+big+strings.Repeat("x", s*9973%(64<<10))+`"`+strings.Repeat(" ", 60<<10))
		}, false},
		{"more than longAhead of spaces after the output", func(s int) string {
			return toolResultLine(s, `"ok":true,"output":"`+big+`"`+strings.Repeat(" ", 200<<10))
		}, true},
		{"no type", func(s int) string {
			return fmt.Sprintf(`{"seq":%d,"tool":{"ok":true,"output":"%s"}}`, s, big) + "\n"
		}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The long line first, among short ones, twice in a row, and
			// last: then whole, without its '\n', and cut in its middle.
			var data []byte
			seq := 1
			add := func(l string) { data = append(data, l...); seq++ }
			add(tc.lines(seq))
			for range 3 {
				add(short(seq))
			}
			add(tc.lines(seq))
			add(tc.lines(seq))
			add(short(seq))
			longs := 3
			if strings.HasPrefix(tc.name, "escapes") {
				// Enough long lines for every shift of the escapes.
				for range 10 {
					add(tc.lines(seq))
					longs++
				}
			}
			last := tc.lines(seq)
			variants := map[string][]byte{
				"whole":                   append(append([]byte(nil), data...), last...),
				"last line without '\\n'": append(append([]byte(nil), data...), last[:len(last)-1]...),
				"torn inside the last":    append(append([]byte(nil), data...), last[:len(last)/2]...),
			}
			for vname, v := range variants {
				want, wantRes, wantErr := scanWant(t, v, session.ScanFrom{})
				s0, r0 := session.LongLines()
				got, gotRes, gotErr := scanSums(bytes.NewReader(v), session.ScanFrom{})
				s1, r1 := session.LongLines()
				sameScan(t, vname, got, want, gotRes, wantRes, gotErr, wantErr)
				// A torn line is not decoded; after a bad one the reader
				// may have read some lines ahead.
				n := int64(longs)
				if vname == "whole" {
					n++
				}
				streamed, reread := s1-s0, r1-r0
				switch {
				case wantErr != "":
					if streamed != 0 || reread < 1 {
						t.Fatalf("%s: %d long lines decoded as read, %d read again; want 0 and some", vname, streamed, reread)
					}
				case tc.whole && (streamed != 0 || reread != n), !tc.whole && (streamed != n || reread != 0):
					t.Fatalf("%s: %d long lines decoded as read, %d read again; want all %d read again: %v", vname, streamed, reread, n, tc.whole)
				}
				// Reads that stop short, at odd sizes: the same.
				got, gotRes, gotErr = scanSums(&shortReads{bytes.NewReader(v), 4093}, session.ScanFrom{})
				sameScan(t, vname+", short reads", got, want, gotRes, wantRes, gotErr, wantErr)
				// Without ReadAt every long line is read whole: the same.
				got, gotRes, gotErr = scanSums(onlyReader{bytes.NewReader(v)}, session.ScanFrom{})
				sameScan(t, vname+", read whole", got, want, gotRes, wantRes, gotErr, wantErr)
			}
		})
	}
}

// From an offset: a long line read again whole is read at its own offset,
// whether the reader's origin is the log's start (a file at its position)
// or the scan's start (a section of it).
func TestScanFoldSumsLongLinesFromAnOffset(t *testing.T) {
	var data []byte
	for s := 1; s <= 5; s++ {
		data = append(data, short(s)...)
	}
	at := int64(len(data))
	data = append(data, toolResultLine(6, `"ok":true,"output":"`+logLines(1<<20, 1)+`","extra":1`)...)
	data = append(data, short(7)...)
	data = append(data, toolResultLine(8, `"ok":true,"output":"`+logLines(1<<20, 2)+`"`)...)
	from := session.ScanFrom{Offset: at, Line: 6, NextSeq: 6}
	want, wantRes, wantErr := scanWant(t, data[at:], from)
	if len(want) != 3 || wantErr != "" {
		t.Fatalf("Scan: %d events, %q", len(want), wantErr)
	}
	file := bytes.NewReader(data)
	if _, err := file.Seek(at, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]io.Reader{
		"file at the offset": file,
		"section":            io.NewSectionReader(bytes.NewReader(data), at, int64(len(data))-at),
	} {
		s0, r0 := session.LongLines()
		got, gotRes, gotErr := scanSums(r, from)
		s1, r1 := session.LongLines()
		sameScan(t, name, got, want, gotRes, wantRes, gotErr, wantErr)
		if s1-s0 != 1 || r1-r0 != 1 {
			t.Fatalf("%s: %d decoded as read, %d read again; want 1 and 1", name, s1-s0, r1-r0)
		}
	}
}

// failingAt reads like a bytes.Reader until n bytes, then fails; its
// ReadAt may also give other bytes than Read did.
type failingAt struct {
	*bytes.Reader
	n      int64
	read   int64
	other  []byte // what ReadAt reads, when set
	failAt error
}

func (f *failingAt) Read(p []byte) (int, error) {
	if f.read >= f.n {
		return 0, f.failAt
	}
	p = p[:min(int64(len(p)), f.n-f.read)]
	n, err := f.Reader.Read(p)
	f.read += int64(n)
	return n, err
}

func (f *failingAt) ReadAt(p []byte, off int64) (int, error) {
	if f.other != nil {
		return bytes.NewReader(f.other).ReadAt(p, off)
	}
	return f.Reader.ReadAt(p, off)
}

// A read error inside a long line is reported at the line's offset after
// the lines before it, as Scan reports it; a line that reads differently
// the second time is an error, not a wrong event.
func TestScanFoldSumsLongLineReadErrors(t *testing.T) {
	data := []byte(short(1) + toolResultLine(2, `"ok":true,"output":"`+logLines(2<<20, 3)+`"`) + short(3))
	boom := errors.New("disk on fire")
	for _, n := range []int64{int64(len(short(1))) + 500<<10, int64(len(data)) - 1000} {
		// Scan through a reader failing at the same byte is the oracle.
		var want []foldCall
		wantRes, err := session.Scan(io.MultiReader(bytes.NewReader(data[:n]), iotest.ErrReader(boom)), "x.jsonl", session.ScanFrom{}, func(ev *session.Event, raw []byte, off int64) error {
			want = append(want, foldCall{foldView(*ev), len(raw), session.SumLine(raw), off})
			return nil
		})
		if err == nil || len(want) != 1 {
			t.Fatalf("Scan failing at %d: %v after %d calls", n, err, len(want))
		}
		r := &failingAt{Reader: bytes.NewReader(data), n: n, failAt: boom}
		got, gotRes, gotErr := scanSums(r, session.ScanFrom{})
		sameScan(t, fmt.Sprintf("failing at %d", n), got, want, gotRes, wantRes, gotErr, err.Error())
	}
	// A line the fast path declines is read again; if those bytes differ
	// from the ones read first, the scan fails rather than fold them.
	bad := []byte(short(1) + toolResultLine(2, `"ok":true,"output":"`+logLines(2<<20, 4)+`","extra":1`) + short(3))
	other := bytes.Clone(bad)
	other[len(short(1))+1000] ^= 1
	r := &failingAt{Reader: bytes.NewReader(bad), n: int64(len(bad)) + 1, other: other, failAt: io.EOF}
	got, _, gotErr := scanSums(r, session.ScanFrom{})
	if !strings.Contains(gotErr, "changed while it was read") || len(got) != 1 {
		t.Fatalf("a line that changed: %q after %d calls", gotErr, len(got))
	}
}

// FuzzScanFoldSumsLongLine repeats the fuzzer's bytes into the output of
// long tool results (a success and a failure, shifted so that reads end
// everywhere in the piece) among short lines: ScanFoldSums must hand fn
// what Scan reads and end with Scan's result and error, whatever the
// bytes (quotes, escapes cut by a read, control bytes, invalid UTF-8).
func FuzzScanFoldSumsLongLine(f *testing.F) {
	for _, seed := range []string{`ab\ncd`, `\u00e9\"\\`, "x\x01", `\ud83d\ude00`, `\`, `"`, "\xff", `\n\n  text\n`} {
		f.Add([]byte(seed), uint16(0))
	}
	f.Fuzz(func(t *testing.T, piece []byte, shift uint16) {
		if len(piece) == 0 {
			return
		}
		body := string(bytes.Repeat(piece, (400<<10)/len(piece)+1))
		pad := strings.Repeat("a", int(shift%4096))
		data := []byte(short(1) + toolResultLine(2, `"ok":true,"output":"`+pad+body+`"`) + short(3) +
			toolResultLine(4, `"ok":false,"output":"`+pad+body+`"`) + short(5))
		want, wantRes, wantErr := scanWant(t, data, session.ScanFrom{})
		got, gotRes, gotErr := scanSums(bytes.NewReader(data), session.ScanFrom{})
		sameScan(t, "fuzzed", got, want, gotRes, wantRes, gotErr, wantErr)
	})
}
