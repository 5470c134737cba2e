package session_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

// ScanBack hands the events whose lines hold a needle to fn newest first,
// across the chunks it reads the log in, and stops when fn says so.
func TestScanBackNewestFirst(t *testing.T) {
	st := newStore(t)
	var evs []session.Event
	for k := range 3000 {
		text := fmt.Sprintf("plain %d %s", k, strings.Repeat("x", 700)) // lines across many 1 MiB chunks
		if k%1000 == 7 {
			text = fmt.Sprintf("needle %d", k)
		}
		evs = append(evs, assistant(text))
	}
	mustAppend(t, st, "s", evs...)
	var got []string
	if err := st.ScanBack("s", [][]byte{[]byte("needle")}, func(ev *session.Event) (bool, error) {
		got = append(got, ev.Text)
		return true, nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := "[needle 2007 needle 1007 needle 7]"; fmt.Sprint(got) != want {
		t.Fatalf("got %v, want %s", got, want)
	}
	got = nil
	if err := st.ScanBack("s", [][]byte{[]byte("needle")}, func(ev *session.Event) (bool, error) {
		got = append(got, ev.Text)
		return false, nil
	}); err != nil || fmt.Sprint(got) != "[needle 2007]" {
		t.Fatalf("stopping after the first: got %v, %v", got, err)
	}
	boom := errors.New("boom")
	if err := st.ScanBack("s", [][]byte{[]byte("needle")}, func(*session.Event) (bool, error) { return true, boom }); !errors.Is(err, boom) {
		t.Fatalf("fn's error: got %v", err)
	}
	if err := st.ScanBack("nope", [][]byte{[]byte("x")}, func(*session.Event) (bool, error) { return true, nil }); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("a missing session: got %v", err)
	}
}

// A line that holds a needle but is not an event is an error, not skipped.
func TestScanBackDamagedLine(t *testing.T) {
	st := newStore(t)
	mustAppend(t, st, "s", assistant("needle one"))
	writeRaw(t, st, "s", readRaw(t, st.Path("s"))+"{\"needle\": broken\n")
	err := st.ScanBack("s", [][]byte{[]byte("needle")}, func(*session.Event) (bool, error) { return true, nil })
	if err == nil || !strings.Contains(err.Error(), "the line at byte") {
		t.Fatalf("a damaged line with a needle: got %v", err)
	}
	// A last line still being written is not an event yet: not read.
	st2 := newStore(t)
	mustAppend(t, st2, "s", assistant("needle one"))
	writeRaw(t, st2, "s", readRaw(t, st2.Path("s"))+`{"needle": half`)
	var got []string
	if err := st2.ScanBack("s", [][]byte{[]byte("needle")}, func(ev *session.Event) (bool, error) { got = append(got, ev.Text); return true, nil }); err != nil || fmt.Sprint(got) != "[needle one]" {
		t.Fatalf("a half-written last line: got %v, %v", got, err)
	}
}

// A last line still being written that is longer than the chunk ScanBack
// reads the log in (1 MiB) is not an event either: neither its end nor its
// start, read in different chunks, is handed on, and the events before it
// are.
func TestScanBackLongUnfinishedLastLine(t *testing.T) {
	st := newStore(t)
	mustAppend(t, st, "s", assistant("needle one"), assistant("needle two"))
	half := `{"seq":3,"type":"assistant/message","text":"needle ` + strings.Repeat("w", 3<<20) + ` needle`
	writeRaw(t, st, "s", readRaw(t, st.Path("s"))+half)
	var got []string
	err := st.ScanBack("s", [][]byte{[]byte("needle")}, func(ev *session.Event) (bool, error) {
		got = append(got, ev.Text)
		return true, nil
	})
	if err != nil || fmt.Sprint(got) != "[needle two needle one]" {
		t.Fatalf("a half-written last line of 3 MiB: got %.80v, %v", got, err)
	}
}
