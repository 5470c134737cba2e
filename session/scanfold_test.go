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
	"time"

	"github.com/graft-project/graft/gen"
	"github.com/graft-project/graft/session"
)

type seen struct {
	ev  session.Event
	raw string
	off int64
}

// runScan runs scan over data and returns what fn saw, the result and the
// error text.
func runScan(scan func(io.Reader, string, session.ScanFrom, func(*session.Event, []byte, int64) error) (session.ScanResult, error), r io.Reader, from session.ScanFrom, stopAt int64) ([]seen, session.ScanResult, string) {
	var out []seen
	res, err := scan(r, "x.jsonl", from, func(ev *session.Event, raw []byte, off int64) error {
		out = append(out, seen{foldView(*ev), string(raw), off})
		if ev.Seq == stopAt {
			return errors.New("stop here")
		}
		return nil
	})
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	return out, res, msg
}

func generatedLog(t *testing.T, opts gen.Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	err := gen.Generate(opts, func(ev *session.Event) error {
		b, err := session.Encode(ev)
		buf.Write(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestScanFoldIsScan: over whole logs and damaged ones, ScanFold calls fn
// with the same events (outputs of successful calls aside), raw bytes and
// offsets as Scan, and ends with the same result and error.
func TestScanFoldIsScan(t *testing.T) {
	log := generatedLog(t, gen.Options{Turns: 6, Events: 2500, Seed: 21})
	lines := strings.SplitAfter(string(log), "\n")
	lines = lines[:len(lines)-1]
	mid := len(lines) / 2
	join := func(ls []string) []byte { return []byte(strings.Join(ls, "")) }
	withLine := func(k int, l string) []byte {
		c := append([]string(nil), lines...)
		c[k] = l
		return join(c)
	}
	// A huge line, bigger than the whole read-ahead.
	huge := strings.Replace(lines[0], `"text":"`, `"text":"`+strings.Repeat("y", 20<<20), 1)
	cases := map[string]struct {
		data   []byte
		from   session.ScanFrom
		stopAt int64
	}{
		"whole log":               {data: log},
		"empty":                   {data: nil},
		"torn tail":               {data: append(append([]byte(nil), log...), lines[0][:30]...)},
		"corrupt middle line":     {data: withLine(mid, "{not json}\n")},
		"seq gap":                 {data: withLine(mid, lines[mid+1])},
		"empty line":              {data: withLine(mid, "\n")},
		"fn stops the scan":       {data: log, stopAt: int64(mid)},
		"from an offset":          {data: join(lines[mid:]), from: session.ScanFrom{Offset: int64(len(join(lines[:mid]))), Line: mid + 1, NextSeq: int64(mid + 1)}},
		"huge line":               {data: []byte(huge + lines[1])},
		"huge line, then torn":    {data: []byte(huge + lines[1][:10])},
		"torn inside a huge line": {data: []byte(lines[0] + huge[:len(huge)/2])},
		"lines around huge ones":  {data: []byte(huge + strings.Join(lines[1:40], "") + strings.Replace(huge, `"seq":1,`, `"seq":41,`, 1) + lines[41])},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			wantSeen, wantRes, wantErr := runScan(session.Scan, bytes.NewReader(tc.data), tc.from, tc.stopAt)
			gotSeen, gotRes, gotErr := runScan(session.ScanFold, bytes.NewReader(tc.data), tc.from, tc.stopAt)
			if gotErr != wantErr || !reflect.DeepEqual(gotRes, wantRes) {
				t.Fatalf("ScanFold: %+v %q\nScan:     %+v %q", gotRes, gotErr, wantRes, wantErr)
			}
			if len(gotSeen) != len(wantSeen) {
				t.Fatalf("ScanFold called fn %d times, Scan %d", len(gotSeen), len(wantSeen))
			}
			for k := range gotSeen {
				if !reflect.DeepEqual(gotSeen[k], wantSeen[k]) {
					t.Fatalf("call %d differs:\n got %+v\nwant %+v", k, gotSeen[k].ev, wantSeen[k].ev)
				}
			}
		})
	}
}

// A read error in the middle is reported with its offset, after the lines
// before it, in a short line and in a line longer than a batch.
func TestScanFoldReportsReadErrors(t *testing.T) {
	log := generatedLog(t, gen.Options{Turns: 2, Events: 300, Seed: 22})
	first := strings.SplitAfter(string(log), "\n")[0]
	huge := []byte(first + strings.Replace(first, `"text":"`, `"text":"`+strings.Repeat("z", 3<<20), 1))
	boom := fmt.Errorf("disk on fire")
	for name, data := range map[string][]byte{"short line": log[:len(log)/2], "long line": huge[:len(huge)-1000]} {
		t.Run(name, func(t *testing.T) {
			r := io.MultiReader(bytes.NewReader(data), iotest.ErrReader(boom))
			wantSeen, wantRes, wantErr := runScan(session.Scan, r, session.ScanFrom{}, 0)
			r = io.MultiReader(bytes.NewReader(data), iotest.ErrReader(boom))
			gotSeen, gotRes, gotErr := runScan(session.ScanFold, r, session.ScanFrom{}, 0)
			if !strings.Contains(gotErr, "disk on fire") || gotErr != wantErr || !reflect.DeepEqual(gotRes, wantRes) || len(gotSeen) != len(wantSeen) {
				t.Fatalf("ScanFold %+v %q (%d calls), Scan %+v %q (%d calls)", gotRes, gotErr, len(gotSeen), wantRes, wantErr, len(wantSeen))
			}
		})
	}
}

// The case of long lines among short ones must read every line: a check
// that the test data is what it claims.
func TestScanFoldReadsLongLinesAmongShortOnes(t *testing.T) {
	log := generatedLog(t, gen.Options{Turns: 2, Events: 60, Seed: 23})
	lines := strings.SplitAfter(string(log), "\n")
	long := func(k int) string {
		return strings.Replace(lines[k], `"ts":"`, `"meta":{"pad":"`+strings.Repeat("p", 1<<20+k)+`"},"ts":"`, 1)
	}
	data := long(0) + strings.Join(lines[1:30], "") + long(30) + long(31) + strings.Join(lines[32:60], "")
	var seqs []int64
	res, err := session.ScanFold(strings.NewReader(data), "x", session.ScanFrom{}, func(ev *session.Event, raw []byte, off int64) error {
		seqs = append(seqs, ev.Seq)
		if len(ev.Meta["pad"]) > 0 && len(ev.Meta["pad"]) < 1<<20 {
			t.Fatalf("seq %d: pad of %d bytes", ev.Seq, len(ev.Meta["pad"]))
		}
		if string(raw)+"\n" != map[bool]string{true: long(int(ev.Seq) - 1), false: lines[ev.Seq-1]}[ev.Seq == 1 || ev.Seq == 31 || ev.Seq == 32] {
			t.Fatalf("seq %d: raw bytes differ from the line", ev.Seq)
		}
		return nil
	})
	if err != nil || res.Events != 60 || len(seqs) != 60 || res.End != int64(len(data)) {
		t.Fatalf("%+v %v, %d events seen", res, err, len(seqs))
	}
}

// ScanFoldSums hands fn what ScanFold does, plus each line's LineSum, which
// must be SumLine of the raw line (short lines, lines longer than a batch,
// lines longer than the read-ahead), and SumLine is XXH3-128 big-endian.
func TestScanFoldSumsAreTheLinesXXH3(t *testing.T) {
	log := generatedLog(t, gen.Options{Turns: 3, Events: 400, Seed: 24})
	lines := strings.SplitAfter(string(log), "\n")
	long := strings.Replace(lines[0], `"text":"`, `"text":"`+strings.Repeat("q", 6<<20), 1)
	data := long + strings.Join(lines[1:len(lines)-1], "")
	var want []seen
	if _, err := session.ScanFold(strings.NewReader(data), "x", session.ScanFrom{}, func(ev *session.Event, raw []byte, off int64) error {
		want = append(want, seen{*ev, string(raw), off})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	k := 0
	res, err := session.ScanFoldSums(strings.NewReader(data), "x", session.ScanFrom{}, func(ev *session.Event, size int, sum session.LineSum, off int64) error {
		if k >= len(want) || !reflect.DeepEqual(seen{*ev, want[k].raw, off}, want[k]) || size != len(want[k].raw) {
			t.Fatalf("call %d differs from ScanFold's", k)
		}
		if raw := []byte(want[k].raw); sum != session.SumLine(raw) {
			t.Fatalf("seq %d: sum %x, SumLine %x", ev.Seq, sum, session.SumLine(raw))
		}
		k++
		return nil
	})
	if err != nil || k != len(want) || res.Events != len(want) || k != 400 {
		t.Fatalf("%+v %v: %d calls, ScanFold made %d", res, err, k, len(want))
	}
	// The XXH3-128 test vector of the empty input (xxHash's own tests).
	if got := fmt.Sprintf("%x", session.SumLine(nil)); got != "99aa06d3014798d86001c324468d497f" {
		t.Fatalf("SumLine(empty) = %s", got)
	}
}

// A scan that stops early (fn fails, a bad line) must return: a batch the
// reader had queued for the caller but not yet for the decoders was once
// waited on forever. Many early stops at every point of a small log make
// that interleaving likely; the deadline turns a hang into a failure.
func TestScanFoldStopsEarlyWithoutHanging(t *testing.T) {
	log := generatedLog(t, gen.Options{Turns: 4, Events: 3000, Seed: 25})
	done := make(chan error, 1)
	go func() {
		for round := range 1000 {
			stopAt := int64(round%200 + 1) // while the reader is still reading
			_, err := session.ScanFold(bytes.NewReader(log), "x", session.ScanFrom{}, func(ev *session.Event, _ []byte, _ int64) error {
				if ev.Seq == stopAt {
					return errors.New("stop")
				}
				return nil
			})
			if err == nil || err.Error() != "stop" {
				done <- fmt.Errorf("round %d: %v, want the stop", round, err)
				return
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("ScanFold did not return after fn stopped it (1000 early stops in 60 s)")
	}
}
