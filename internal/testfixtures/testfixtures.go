// Package testfixtures is what the tests of several packages need alike:
// the real host transcripts kept in testdata/fixtures of the repository
// (see testdata/fixtures/README.md for their provenance and licence), and a
// fresh session store to import or write into.
package testfixtures

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/vfs"
)

// ModuleRoot is the directory holding go.mod, found by walking up from the
// test's working directory (its package directory).
func ModuleRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatalf("testfixtures: working directory: %v", err)
	}
	for {
		_, err := os.Stat(filepath.Join(dir, "go.mod"))
		if err == nil {
			return dir
		}
		if !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("testfixtures: looking for go.mod: %v", err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("testfixtures: no go.mod above the test directory")
		}
		dir = parent
	}
}

// Dir is where the fixtures sit, relative to the module root.
const Dir = "testdata/fixtures"

// Path is testdata/fixtures/<parts…> in the module. A fixture that is not
// there fails the test: a missing fixture must not pass as a test with
// nothing to check.
func Path(t testing.TB, parts ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{ModuleRoot(t), filepath.FromSlash(Dir)}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("testfixtures: a fixture is missing from the repository: %v", err)
	}
	return p
}

// NewStore opens a session store in a fresh graft home on the real
// filesystem and returns it with the home.
func NewStore(t testing.TB) (*session.Store, string) {
	t.Helper()
	home := t.TempDir()
	st, err := session.OpenStore(vfs.Default, home)
	if err != nil {
		t.Fatalf("testfixtures: opening a store in %s: %v", home, err)
	}
	return st, home
}

// ReadSession returns every event of session id, failing the test on a
// read error or a torn tail.
func ReadSession(t testing.TB, st *session.Store, id string) []session.Event {
	t.Helper()
	evs, res, err := st.ReadAll(id)
	if err != nil {
		t.Fatalf("reading session %s: %v", id, err)
	}
	if res.Torn != nil {
		t.Fatalf("session %s has a torn tail %+v", id, *res.Torn)
	}
	return evs
}
