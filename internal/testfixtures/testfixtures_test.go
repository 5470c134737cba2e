package testfixtures

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

func TestModuleRootHoldsGoMod(t *testing.T) {
	root := ModuleRoot(t)
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("ModuleRoot = %s: %v", root, err)
	}
	if wd, err := os.Getwd(); err != nil || filepath.Join(root, "internal", "testfixtures") != wd {
		t.Fatalf("ModuleRoot = %s from %s (%v), want two levels up", root, wd, err)
	}
}

func TestPathNamesAFixtureInsideTheModule(t *testing.T) {
	p := Path(t, "claude-code")
	if want := filepath.Join(ModuleRoot(t), "testdata", "fixtures", "claude-code"); p != want {
		t.Fatalf("Path = %s, want %s", p, want)
	}
}

func TestStoreRoundTrip(t *testing.T) {
	st, home := NewStore(t)
	if st.Dir() != filepath.Join(home, "sessions") {
		t.Fatalf("store in %s, want home %s/sessions", st.Dir(), home)
	}
	if _, err := st.Append("s", []session.Event{{Type: session.TypeAssistantMessage, Source: session.Source{Kind: session.KindAssistant}, Text: "hi"}}); err != nil {
		t.Fatal(err)
	}
	if evs := ReadSession(t, st, "s"); len(evs) != 1 || evs[0].Text != "hi" {
		t.Fatalf("ReadSession = %+v", evs)
	}
}

// fatalTB records a Fatal and stops the function under test, as testing's
// does (by a panic the caller recovers, not runtime.Goexit).
type fatalTB struct {
	testing.TB
	msg string
}

type stopped struct{}

func (f *fatalTB) Helper() {}
func (f *fatalTB) Fatal(args ...any) {
	f.msg = fmt.Sprint(args...)
	panic(stopped{})
}
func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic(stopped{})
}

// failure runs fn against a fatalTB and returns what it failed with ("":
// it passed).
func failure(fn func(tb testing.TB)) (msg string) {
	f := &fatalTB{}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(stopped); !ok {
				panic(r)
			}
			msg = f.msg
		}
	}()
	fn(f)
	return ""
}

// EveryByteChanged fails a read that takes a changed byte for another
// value, a refusal of the wrong kind, and a check that refuses nothing; it
// passes a read that refuses every change or reads the same value.
func TestEveryByteChanged(t *testing.T) {
	raw := []byte("ab")
	errBad := errors.New("bad")
	isBad := func(err error) bool { return errors.Is(err, errBad) }
	checked := func(b []byte) (string, error) {
		if string(b) != "ab" {
			return "", errBad
		}
		return "ab", nil
	}
	if msg := failure(func(tb testing.TB) { EveryByteChanged(tb, raw, []byte{1}, "ab", checked, isBad) }); msg != "" {
		t.Errorf("a read that refuses every change failed: %s", msg)
	}
	trusting := func(b []byte) (string, error) { return string(b), nil }
	if msg := failure(func(tb testing.TB) { EveryByteChanged(tb, raw, []byte{1}, "ab", trusting, isBad) }); !strings.Contains(msg, "read as another value") {
		t.Errorf("a read that takes a change for another value: %q", msg)
	}
	other := func([]byte) (string, error) { return "", errors.New("io") }
	if msg := failure(func(tb testing.TB) { EveryByteChanged(tb, raw, []byte{1}, "ab", other, isBad) }); !strings.Contains(msg, "not the refusal wanted") {
		t.Errorf("a refusal of the wrong kind: %q", msg)
	}
	same := func([]byte) (string, error) { return "ab", nil }
	if msg := failure(func(tb testing.TB) { EveryByteChanged(tb, raw, []byte{1}, "ab", same, isBad) }); !strings.Contains(msg, "no changed byte was refused") {
		t.Errorf("a check that refuses nothing: %q", msg)
	}
}
