package session_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

// FuzzScan feeds arbitrary bytes to Scan. It must never panic, and either
// fail with a typed error at a line boundary, or account for every byte:
// each '\n'-terminated line is one event, End is just past the last '\n',
// and whatever follows it is exactly the torn tail.
func FuzzScan(f *testing.F) {
	ev := func(seq string) string {
		return `{"seq":` + seq + `,"ts":"2025-01-01T00:00:00Z","type":"assistant/message","source":{"kind":"assistant"},"text":"hi"}` + "\n"
	}
	two := ev("1") + ev("2")
	seeds := []string{
		"",
		"\n",
		two,
		two + `{"seq":3,"type":"assi`,           // torn tail
		two + strings.TrimSuffix(ev("3"), "\n"), // a whole event, torn by its newline
		`{"seq":1`,                              // nothing but a torn tail
		ev("1") + "\n" + ev("2"),                // empty line in the middle
		ev("1") + "\n\n\n",                      // empty lines at the end
		strings.ReplaceAll(two, "\n", "\r\n"),   // CRLF
		ev("1") + "\r\n\r",                      // CRLF then a lone CR
		ev("1") + "\x00\x00\n",                  // NUL line
		strings.Replace(two, "hi", "h\x00i", 1), // NUL inside a string
		strings.Replace(two, "hi", "\xff\xfe\xc3", 1), // invalid UTF-8 inside a string
		ev("1") + "\xff\xfe\xfd",                      // invalid UTF-8 torn tail
		ev("1") + ev("3"),                             // seq gap
		ev("1") + ev("1"),                             // seq repeat
		ev("0"),                                       // seq 0
		ev("1") + "{not json}\n" + ev("3"),            // corrupt middle
		`{"seq":1,"type":""}` + "\n",                  // empty type
		`{"seq":1e400,"type":"x"}` + "\n",             // number out of range
		`{"seq":1,"type":"x","tool":{"input":[[[[[[]]]]]]}}` + "\n", // nested input
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	// A huge line (no fixed line-length limit), generated here rather than
	// kept as a file.
	huge := strings.Replace(ev("1"), "hi", strings.Repeat("x", 1<<20), 1)
	f.Add([]byte(huge + ev("2")))
	f.Add([]byte(huge + huge[:len(huge)/2]))

	f.Fuzz(func(t *testing.T, data []byte) {
		type call struct {
			seq int64
			off int64
			raw []byte
		}
		var calls []call
		res, err := session.Scan(bytes.NewReader(data), "fuzz.jsonl", session.ScanFrom{}, func(ev *session.Event, raw []byte, off int64) error {
			calls = append(calls, call{ev.Seq, off, append([]byte(nil), raw...)})
			return nil
		})
		// Every event handed out is the line at its offset, in seq order.
		for k, c := range calls {
			if c.seq != int64(k+1) {
				t.Fatalf("call %d has seq %d", k, c.seq)
			}
			if c.off > int64(len(data)) || !bytes.HasPrefix(data[c.off:], append(c.raw, '\n')) {
				t.Fatalf("call %d: raw line is not the bytes at offset %d", k, c.off)
			}
			if c.off > 0 && data[c.off-1] != '\n' {
				t.Fatalf("call %d: offset %d is not a line start", k, c.off)
			}
		}
		if len(calls) != res.Events {
			t.Fatalf("fn called %d times for %d events", len(calls), res.Events)
		}
		if err != nil {
			var ce *session.CorruptError
			var se *session.SeqError
			var off int64
			var num int
			switch {
			case errors.As(err, &ce):
				off, num = ce.Offset, ce.Line
			case errors.As(err, &se):
				off, num = se.Offset, se.Line
			default:
				t.Fatalf("untyped error from bytes: %v", err)
			}
			if off < 0 || off >= int64(len(data)) || (off > 0 && data[off-1] != '\n') {
				t.Fatalf("error at offset %d, not a line start of %d bytes: %v", off, len(data), err)
			}
			if want := bytes.Count(data[:off], []byte("\n")) + 1; num != want {
				t.Fatalf("error names line %d, the offset %d is line %d", num, off, want)
			}
			if bytes.IndexByte(data[off:], '\n') < 0 {
				t.Fatalf("error on the torn tail at %d: a torn tail is never an error", off)
			}
			if res.Events != num-1 {
				t.Fatalf("%d events before an error on line %d", res.Events, num)
			}
			return
		}
		end := int64(bytes.LastIndexByte(data, '\n') + 1)
		if res.End != end {
			t.Fatalf("End %d, want %d (just past the last newline)", res.End, end)
		}
		if lines := bytes.Count(data[:end], []byte("\n")); res.Events != lines {
			t.Fatalf("%d events, %d newline-terminated lines before End", res.Events, lines)
		}
		if res.LastSeq != int64(res.Events) {
			t.Fatalf("last seq %d after %d events", res.LastSeq, res.Events)
		}
		if end == int64(len(data)) {
			if res.Torn != nil {
				t.Fatalf("torn tail %+v reported for data ending on a newline", *res.Torn)
			}
			return
		}
		if res.Torn == nil || res.Torn.Offset != end || res.Torn.Bytes != int64(len(data))-end {
			t.Fatalf("torn %+v, want the %d bytes after offset %d", res.Torn, int64(len(data))-end, end)
		}
	})
}
