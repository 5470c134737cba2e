package gemini_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/importer/gemini"
	"github.com/graft-project/graft/internal/testfixtures"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/vfs"
)

var stateFiles = []string{recorded, "testdata/shapes.jsonl", "testdata/synthetic.jsonl"}

// encoded is every event of session id, each as its log line.
func encoded(t *testing.T, st *session.Store, id string) []string {
	t.Helper()
	var out []string
	for _, ev := range testfixtures.ReadSession(t, st, id) {
		b, err := session.Encode(&ev)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

// follower imports a Gemini CLI file as the host appends it: importTo
// writes the file's first lines and follows it.
type follower struct {
	t     *testing.T
	st    *session.Store
	home  string
	path  string
	lines [][]byte
}

func newFollower(t *testing.T, file string) *follower {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	st, home := testfixtures.NewStore(t)
	// Events of a line without a time are stamped with the store's.
	st.Now = func() time.Time { return time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC) }
	return &follower{t: t, st: st, home: home, path: filepath.Join(t.TempDir(), "session-2026-12-02T05-12-3271f952.jsonl"),
		lines: bytes.SplitAfter(data, []byte("\n"))}
}

func (f *follower) importTo(n int) *importer.Summary {
	f.t.Helper()
	if err := os.WriteFile(f.path, bytes.Join(f.lines[:n], nil), 0o600); err != nil {
		f.t.Fatal(err)
	}
	sum, err := gemini.Import(gemini.Options{Store: f.st, Home: f.home, Path: f.path, ID: "g"})
	if err != nil {
		f.t.Fatalf("import of %d lines: %v", n, err)
	}
	return sum
}

func (f *follower) cursor() *importer.Cursor {
	f.t.Helper()
	c, err := importer.LoadCursor(vfs.Default, f.home, "g")
	if err != nil {
		f.t.Fatal(err)
	}
	return c
}

// wholeImport is file imported at once: its log's lines.
func wholeImport(t *testing.T, file string) []string {
	f := newFollower(t, file)
	f.importTo(len(f.lines))
	return encoded(t, f.st, "g")
}

// TestFollowsGiveTheWholeImport: a file followed in steps of every size
// (a run per line, per two lines, …) gives a log byte for byte the one of
// a single import, with the state in the cursor's state file, which each
// cursor names with its size and digest.
func TestFollowsGiveTheWholeImport(t *testing.T) {
	for _, file := range stateFiles {
		whole := wholeImport(t, file)
		for _, step := range []int{1, 2, 3, 7} {
			f := newFollower(t, file)
			for n := step; ; n += step {
				f.importTo(min(n, len(f.lines)))
				c := f.cursor()
				if c.Version != importer.CursorVersion || c.StateFile == nil || c.StateFile.Name != "g.state" || len(c.State) != 0 {
					t.Fatalf("%s after %d lines: cursor version %d, state file %+v, %d bytes of state in it", file, n, c.Version, c.StateFile, len(c.State))
				}
				if fi, err := os.Stat(importer.StatePath(f.home, "g")); err != nil || fi.Size() != c.StateFile.Size {
					t.Fatalf("%s after %d lines: state file %v, %v; the cursor says %d bytes", file, n, fi, err, c.StateFile.Size)
				}
				if n >= len(f.lines) {
					break
				}
			}
			if got := encoded(t, f.st, "g"); !slices.Equal(got, whole) {
				t.Fatalf("%s in steps of %d lines: log\n%s\nwant\n%s", file, step, strings.Join(got, "\n"), strings.Join(whole, "\n"))
			}
		}
	}
}

// TestOlderCursorsGoOn: a cursor of version 1, with the state in it in
// the second form (StateVersion 2) or the first (the ids themselves,
// testdata/state-v1.json-lines), is read, the import goes on to the same
// log as a single import, and the cursor it writes names a state file.
func TestOlderCursorsGoOn(t *testing.T) {
	type old struct {
		file  string
		lines int
		state json.RawMessage // nil: the second form, made here
	}
	var olds []old
	for _, file := range stateFiles {
		n := len(bytes.Split(mustRead(t, file), []byte("\n")))
		olds = append(olds, old{file, n / 3, nil}, old{file, 2 * n / 3, nil})
	}
	for _, c := range firstFormStates(t) {
		olds = append(olds, old{c.File, c.Lines, c.State})
	}
	for _, o := range olds {
		f := newFollower(t, o.file)
		f.importTo(o.lines)
		c := f.cursor()
		state := o.state
		if state == nil {
			m := gemini.NewMapper(gemini.Config{})
			if err := c.RestoreState(vfs.Default, f.home, m); err != nil {
				t.Fatal(err)
			}
			var err error
			if state, err = m.SaveState(); err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(state, []byte(`{"v":2`)) {
				t.Fatalf("the second form is %s", state)
			}
		}
		// The cursor as graft wrote it before the state file.
		c.StateFile, c.State = nil, state
		if err := importer.SaveCursor(vfs.Default, f.home, c); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(importer.StatePath(f.home, "g")); err != nil {
			t.Fatal(err)
		}
		if c := f.cursor(); c.Version != 1 || c.StateFile != nil {
			t.Fatalf("the old cursor: version %d, state file %+v", c.Version, c.StateFile)
		}
		sum := f.importTo(len(f.lines))
		if slices.ContainsFunc(sum.Warnings, func(w string) bool { return strings.Contains(w, "cursor") }) || !sum.Resumed {
			t.Fatalf("%s from a version 1 cursor after %d lines: warnings %q", o.file, o.lines, sum.Warnings)
		}
		if got, want := encoded(t, f.st, "g"), wholeImport(t, o.file); !slices.Equal(got, want) {
			t.Fatalf("%s from a version 1 cursor after %d lines: log\n%s\nwant\n%s", o.file, o.lines, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if c := f.cursor(); c.Version != importer.CursorVersion || c.StateFile == nil {
			t.Fatalf("the cursor written after a version 1 one: version %d, state file %+v", c.Version, c.StateFile)
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestStateFileMismatch: a state file that is not the one its cursor
// names (missing, cut, changed, an older one: what a crash between the
// two writes leaves) is said in a warning, the cursor is set aside, the
// file is read again from its first line with the session's events
// checked against it, and the import ends where a single one does. A
// state file that matches its cursor but does not decode is refused
// (ErrCursor), as a cursor that does not decode is.
func TestStateFileMismatch(t *testing.T) {
	file := "testdata/synthetic.jsonl"
	whole := wholeImport(t, file)
	damages := map[string]func(t *testing.T, path string, older []byte){
		"missing": func(t *testing.T, path string, _ []byte) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		},
		"cut": func(t *testing.T, path string, _ []byte) {
			if err := os.Truncate(path, 100); err != nil {
				t.Fatal(err)
			}
		},
		"changed": func(t *testing.T, path string, _ []byte) {
			b := mustRead(t, path)
			b[len(b)/2] ^= 1
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
		},
		"older": func(t *testing.T, path string, older []byte) {
			if err := os.WriteFile(path, older, 0o600); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, damage := range damages {
		f := newFollower(t, file)
		f.importTo(40)
		older := mustRead(t, importer.StatePath(f.home, "g"))
		f.importTo(90)
		damage(t, importer.StatePath(f.home, "g"), older)
		sum := f.importTo(len(f.lines))
		told := false
		for _, w := range sum.Warnings {
			told = told || strings.Contains(w, "state file") && strings.Contains(w, "read again from its first line")
		}
		if !told || sum.Verified == 0 {
			t.Fatalf("%s state file: warnings %q, %d events verified; want the mismatch told and the session checked", name, sum.Warnings, sum.Verified)
		}
		if got := encoded(t, f.st, "g"); !slices.Equal(got, whole) {
			t.Fatalf("%s state file: log\n%s\nwant\n%s", name, strings.Join(got, "\n"), strings.Join(whole, "\n"))
		}
		if _, err := importer.LoadCursor(vfs.Default, f.home, "g"); err != nil {
			t.Fatal(err)
		}
		if sum := f.importTo(len(f.lines)); sum.WarningCount != 0 {
			t.Fatalf("%s state file: the run after the one that read it all warns %q", name, sum.Warnings)
		}
	}

	// A state file of the right size and digest that does not decode.
	f := newFollower(t, file)
	f.importTo(40)
	c := f.cursor()
	bad := []byte("graft gemini-cli state 3\nnot a state")
	if err := os.WriteFile(importer.StatePath(f.home, "g"), bad, 0o600); err != nil {
		t.Fatal(err)
	}
	c.State = nil
	if err := importer.SaveCursor(vfs.Default, f.home, c); err != nil { // drops the state file's name
		t.Fatal(err)
	}
	raw := mustRead(t, importer.CursorPath(f.home, "g"))
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	m["version"] = importer.CursorVersion
	m["stateFile"] = map[string]any{"name": "g.state", "size": len(bad), "sha256": sha256Hex(bad)}
	delete(m, "sum") // edited by hand: no checksum, as a cursor of before
	var err error
	if raw, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(importer.CursorPath(f.home, "g"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = gemini.Import(gemini.Options{Store: f.st, Home: f.home, Path: f.path, ID: "g"})
	if !errors.Is(err, importer.ErrCursor) || !strings.Contains(err.Error(), "g.state") {
		t.Fatalf("a state file that does not decode: %v, want ErrCursor naming it", err)
	}
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
