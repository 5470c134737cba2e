package session_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

var badIDs = map[string]string{
	"dot dot":          "..",
	"dot":              ".",
	"slash":            "a/b",
	"escape":           "../x",
	"empty":            "",
	"129 chars":        strings.Repeat("a", 129),
	"NUL":              "a\x00b",
	"leading dash":     "-x",
	"leading dot":      ".x",
	"leading under":    "_x",
	"space":            "a b",
	"newline":          "a\n",
	"backslash":        `a\b`,
	"non-ASCII letter": "sessión",
}

var goodIDs = map[string]string{
	"one char":  "a",
	"digit":     "7",
	"128 chars": strings.Repeat("a", 128),
	"128 mixed": "A9" + strings.Repeat("._-z", 31) + "xy",
	"dots":      "a..b",
	"uuid":      "3f2c9e0a-1b2c-4d5e-8f90-123456789abc",
}

func TestValidID(t *testing.T) {
	if n := len(goodIDs["128 mixed"]); n != 128 {
		t.Fatalf("the 128-mixed id has %d chars", n)
	}
	for name, id := range badIDs {
		err := session.ValidID(id)
		if !errors.Is(err, session.ErrInvalidID) {
			t.Errorf("%s: ValidID(%q) = %v, want ErrInvalidID", name, id, err)
		}
	}
	for name, id := range goodIDs {
		if err := session.ValidID(id); err != nil {
			t.Errorf("%s: ValidID(%q) = %v", name, id, err)
		}
	}
}

// Every store operation refuses a bad id before it touches any file: the
// recording filesystem sees no operation at all and the disk is unchanged.
func TestBadIDTouchesNothing(t *testing.T) {
	rec := newRecordingFS()
	st := newStoreFS(t, rec)
	mustAppend(t, st, "a", assistant("x"))
	home := filepath.Dir(filepath.Dir(st.Dir())) // the temp dir around home
	before := snapshot(t, home)
	ops := map[string]func(id string) error{
		"Append": func(id string) error { _, err := st.Append(id, []session.Event{assistant("x")}); return err },
		"AppendMark": func(id string) error {
			_, err := st.AppendMark(id, graftMark(session.TypeGraftAbandoned, "t1", ""))
			return err
		},
		"AppendMarkAfter": func(id string) error {
			_, err := st.AppendMarkAfter(id, graftMark(session.TypeGraftAbandoned, "t1", ""), session.ScanResult{})
			return err
		},
		"Create":       func(id string) error { return st.Create(id, []session.Event{assistant("x")}) },
		"CreateWriter": func(id string) error { _, err := st.CreateWriter(id); return err },
		"Scan":         func(id string) error { _, err := st.Scan(id, session.ScanFrom{}, nil); return err },
		"Info":         func(id string) error { _, err := st.Info(id); return err },
		"ReadAll":      func(id string) error { _, _, err := st.ReadAll(id); return err },
		"Exists":       func(id string) error { _, err := st.Exists(id); return err },
		"RepairTail":   func(id string) error { return st.RepairTail(id, &session.Info{ID: id}) },
	}
	for name, id := range badIDs {
		for opName, op := range ops {
			rec.take()
			err := op(id)
			if !errors.Is(err, session.ErrInvalidID) {
				t.Errorf("%s(%s %q) = %v, want ErrInvalidID", opName, name, id, err)
			}
			if touched := rec.take(); len(touched) != 0 {
				t.Errorf("%s(%s %q) touched the filesystem: %q", opName, name, id, touched)
			}
		}
	}
	if after := snapshot(t, home); after != before {
		t.Fatalf("bad ids changed the disk:\n%s\nwas\n%s", after, before)
	}
}

func TestGoodIDsAccepted(t *testing.T) {
	st := newStore(t)
	for name, id := range goodIDs {
		out := mustAppend(t, st, id, assistant(name))
		if out[0].Seq != 1 {
			t.Fatalf("%s: seq %d", name, out[0].Seq)
		}
		evs := checkLog(t, st, id, 1)
		if evs[0].Text != name {
			t.Fatalf("%s: read back %q", name, evs[0].Text)
		}
		if filepath.Dir(st.Path(id)) != st.Dir() {
			t.Fatalf("%s: path %s is outside %s", name, st.Path(id), st.Dir())
		}
	}
}
