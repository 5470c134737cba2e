package importer

import (
	"bytes"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/graft-project/graft/lockfile"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/vfs"
	"github.com/graft-project/graft/vfs/crashfs"
	"github.com/graft-project/graft/vfs/errorfs"
)

// lineMapper is a minimal format: "bad" is malformed, "skip" is skipped,
// any other line is one assistant message per "|"-separated part, numbered
// in meta "n" by a counter that lives in the mapper state — so a run that
// did not restore the state would produce different events.
type lineMapper struct {
	n       int
	setting string
	format  string
}

func (m *lineMapper) Format() string {
	if m.format != "" {
		return m.format
	}
	return "test-lines"
}
func (m *lineMapper) Settings() map[string]string { return map[string]string{"s": m.setting} }
func (m *lineMapper) Map(l Line, out *Output) error {
	s := string(l.Bytes)
	switch s {
	case "bad":
		out.Malformed(errors.New("bad line"))
		return nil
	case "skip":
		out.Skip("skip")
		return nil
	case "badtime":
		// A source time the mapper cannot read: kept in meta, ts left to the store.
		out.Emit(session.Event{Type: session.TypeAssistantMessage, Source: session.Source{Kind: session.KindAssistant},
			Text: s, Meta: map[string]string{"timestamp": "noon-ish"}})
		return nil
	}
	m.n++
	out.SourceUUID("u" + strconv.Itoa(l.Num))
	for _, part := range strings.Split(s, "|") {
		out.Emit(session.Event{TS: "2026-01-02T03:04:05Z", Type: session.TypeAssistantMessage,
			Source: session.Source{Kind: session.KindAssistant}, Text: part, Meta: map[string]string{"n": strconv.Itoa(m.n)}})
	}
	return nil
}
func (m *lineMapper) SaveState() (json.RawMessage, error) { return json.Marshal(m.n) }
func (m *lineMapper) LoadState(raw json.RawMessage) error {
	m.n = 0
	if len(raw) == 0 {
		return nil
	}
	return json.Unmarshal(raw, &m.n)
}

type fixture struct {
	t    *testing.T
	home string
	st   *session.Store
	src  string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	home := t.TempDir()
	st, err := session.OpenStore(vfs.Default, home)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, home: home, st: st, src: filepath.Join(t.TempDir(), "transcript.jsonl")}
}

func (f *fixture) write(content string) {
	f.t.Helper()
	if err := os.WriteFile(f.src, []byte(content), 0o600); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) appendSrc(content string) {
	f.t.Helper()
	fh, err := os.OpenFile(f.src, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		f.t.Fatal(err)
	}
	if _, err := fh.WriteString(content); err != nil {
		f.t.Fatal(err)
	}
	if err := fh.Close(); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) run(id string, opts ...func(*Options)) (*Summary, error) {
	o := Options{Store: f.st, Home: f.home, ID: id, Source: f.src}
	for _, fn := range opts {
		fn(&o)
	}
	return Run(o, &lineMapper{})
}

func (f *fixture) mustRun(id string, opts ...func(*Options)) *Summary {
	f.t.Helper()
	sum, err := f.run(id, opts...)
	if err != nil {
		f.t.Fatalf("import into %s: %v", id, err)
	}
	return sum
}

func (f *fixture) events(id string) []session.Event {
	f.t.Helper()
	evs, res, err := f.st.ReadAll(id)
	if err != nil {
		f.t.Fatalf("reading %s: %v", id, err)
	}
	if res.Torn != nil {
		f.t.Fatalf("%s has a torn tail %+v", id, res.Torn)
	}
	return evs
}

func (f *fixture) fileBytes(path string) []byte {
	f.t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		f.t.Fatal(err)
	}
	return b
}

func texts(evs []session.Event) string {
	var parts []string
	for _, ev := range evs {
		parts = append(parts, ev.Meta["line"]+":"+ev.Text+"#"+ev.Meta["n"])
	}
	return strings.Join(parts, " ")
}

func TestIncrementalAppendsOnlyNewLines(t *testing.T) {
	f := newFixture(t)
	f.write("a\nb|c\nskip\n")
	s1 := f.mustRun("s")
	if s1.Appended != 3 || s1.FromLine != 1 || s1.ToLine != 3 || s1.Resumed {
		t.Fatalf("first run: %+v", s1)
	}
	f.appendSrc("bad\nd\ne-is-being-writ")
	s2 := f.mustRun("s")
	if !s2.Resumed || s2.FromLine != 4 || s2.ToLine != 5 || s2.Appended != 1 || s2.FirstSeq != 4 || s2.LastSeq != 4 {
		t.Fatalf("second run: resumed %v lines %d-%d appended %d seq %d..%d", s2.Resumed, s2.FromLine, s2.ToLine, s2.Appended, s2.FirstSeq, s2.LastSeq)
	}
	if s2.MalformedCount != 1 || s2.Malformed[0].Line != 4 || s2.Malformed[0].Offset != int64(len("a\nb|c\nskip\n")) {
		t.Fatalf("malformed = %+v, want line 4 at offset 11", s2.Malformed)
	}
	if s2.PendingTail == nil || s2.PendingTail.Bytes != int64(len("e-is-being-writ")) {
		t.Fatalf("pending tail = %+v", s2.PendingTail)
	}
	f.appendSrc("ten\nf\n")
	s3 := f.mustRun("s")
	if s3.FromLine != 6 || s3.ToLine != 7 || s3.Appended != 2 || s3.PendingTail != nil {
		t.Fatalf("third run: %+v", s3)
	}
	if got, want := texts(f.events("s")), "1:a#1 2:b#2 2:c#2 5:d#3 6:e-is-being-written#4 7:f#5"; got != want {
		t.Fatalf("events:\n got %s\nwant %s", got, want)
	}
	s4 := f.mustRun("s")
	if s4.Appended != 0 || s4.FromLine != 8 || s4.ToLine != 7 || s4.LastSeq != 6 {
		t.Fatalf("a run with nothing new: %+v", s4)
	}

	one := f.mustRun("one")
	if one.Appended != 6 {
		t.Fatalf("one-shot import appended %d", one.Appended)
	}
	if a, b := f.events("s"), f.events("one"); !reflect.DeepEqual(a, b) {
		t.Fatalf("incremental and one-shot imports differ:\n%s\n%s", texts(a), texts(b))
	}
}

func TestCursorRecordsConsumedPrefix(t *testing.T) {
	f := newFixture(t)
	content := "a\nb\ntorn"
	f.write(content)
	f.mustRun("s")
	c, err := LoadCursor(f.st.FS, f.home, "s")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("a\nb\n"))
	fi, err := os.Stat(f.src)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	h := sha256.New()
	h.Write([]byte("a\nb\n"))
	state, err := h.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	want := Cursor{
		Version: cursorVersionInline, Format: "test-lines", Session: "s", Source: f.src,
		Device: uint64(st.Dev), Inode: uint64(st.Ino), Size: int64(len(content)),
		Offset: 4, Lines: 2, LastUUID: "u2", PrefixSHA256: hex.EncodeToString(sum[:]),
		HashState: state, TailSHA256: hex.EncodeToString(sum[:]), VerifiedOffset: 4,
		LastSeq: 2, Settings: map[string]string{"s": ""}, State: json.RawMessage("2"), Updated: c.Updated, Sum: c.Sum,
	}
	if !strings.HasPrefix(c.Sum, "sha256:") || len(c.Sum) != len("sha256:")+64 {
		t.Fatalf("the cursor's checksum %q", c.Sum)
	}
	if !reflect.DeepEqual(*c, want) {
		t.Fatalf("cursor:\n got %+v\nwant %+v", *c, want)
	}
	cfi, err := os.Stat(CursorPath(f.home, "s"))
	if err != nil {
		t.Fatal(err)
	}
	if cfi.Mode().Perm() != session.FileMode {
		t.Fatalf("cursor mode %v, want %v", cfi.Mode().Perm(), session.FileMode)
	}
}

func TestShortenedSourceIsRefused(t *testing.T) {
	f := newFixture(t)
	f.write("a\nb\nc\n")
	f.mustRun("s")
	before := f.fileBytes(f.st.Path("s"))
	cursor := f.fileBytes(CursorPath(f.home, "s"))
	f.write("a\nb\n")
	_, err := f.run("s")
	if !errors.Is(err, ErrSourceShortened) || !strings.Contains(err.Error(), "nothing was appended") {
		t.Fatalf("err = %v, want ErrSourceShortened", err)
	}
	if !bytes.Equal(before, f.fileBytes(f.st.Path("s"))) || !bytes.Equal(cursor, f.fileBytes(CursorPath(f.home, "s"))) {
		t.Fatal("a refused import changed the session or the cursor")
	}
}

func TestRewrittenSourceIsRefused(t *testing.T) {
	for name, rewrite := range map[string]string{
		"same length":    "a\nX\nc\nd\ne\n",
		"longer, edited": "a\nbb\nc\nd\n",
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			f.write("a\nb\nc\n")
			f.mustRun("s")
			before := f.fileBytes(f.st.Path("s"))
			f.write(rewrite)
			_, err := f.run("s")
			if !errors.Is(err, ErrSourceRewritten) {
				t.Fatalf("err = %v, want ErrSourceRewritten", err)
			}
			if !bytes.Equal(before, f.fileBytes(f.st.Path("s"))) {
				t.Fatal("a refused import appended to the session")
			}
		})
	}
}

func TestReplacedSourceWithSamePrefixContinues(t *testing.T) {
	f := newFixture(t)
	f.write("a\nb\n")
	f.mustRun("s")
	// A host that rewrites by rename gives a new inode; the bytes already
	// imported are unchanged, so the import continues and says so.
	tmp := f.src + ".new"
	if err := os.WriteFile(tmp, []byte("a\nb\nc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, f.src); err != nil {
		t.Fatal(err)
	}
	sum := f.mustRun("s")
	if sum.Appended != 1 || sum.WarningCount != 1 || !strings.Contains(sum.Warnings[0], "source identity changed") {
		t.Fatalf("appended %d, warnings %v", sum.Appended, sum.Warnings)
	}
}

// A run that appended but stopped before saving its cursor leaves events
// past the cursor's seq; the next run checks them against the source and
// appends only what is missing.
func TestResumeAfterStopBeforeCursor(t *testing.T) {
	f := newFixture(t)
	f.write("a\nb|c\n")
	f.mustRun("s")
	stale := f.fileBytes(CursorPath(f.home, "s"))
	f.appendSrc("d\ne|f\n")
	f.mustRun("s")

	if err := os.WriteFile(CursorPath(f.home, "s"), stale, 0o600); err != nil {
		t.Fatal(err)
	}
	f.appendSrc("g\n")
	sum := f.mustRun("s")
	if sum.Verified != 3 || sum.Appended != 1 || sum.FirstSeq != 7 {
		t.Fatalf("verified %d appended %d first seq %d; want 3, 1, 7", sum.Verified, sum.Appended, sum.FirstSeq)
	}
	if got, want := texts(f.events("s")), "1:a#1 2:b#2 2:c#2 3:d#3 4:e#4 4:f#4 5:g#5"; got != want {
		t.Fatalf("events:\n got %s\nwant %s", got, want)
	}

	// No cursor at all (a first import stopped before writing it): every
	// event is checked, nothing appended twice.
	if err := os.Remove(CursorPath(f.home, "s")); err != nil {
		t.Fatal(err)
	}
	before := f.fileBytes(f.st.Path("s"))
	sum = f.mustRun("s")
	if sum.Verified != 7 || sum.Appended != 0 || sum.WarningCount != 1 {
		t.Fatalf("verified %d appended %d warnings %v", sum.Verified, sum.Appended, sum.Warnings)
	}
	if !bytes.Equal(before, f.fileBytes(f.st.Path("s"))) {
		t.Fatal("a verifying run changed the session")
	}
	f.mustRun("one")
	if a, b := f.events("s"), f.events("one"); !reflect.DeepEqual(a, b) {
		t.Fatalf("resumed and one-shot imports differ:\n%s\n%s", texts(a), texts(b))
	}
}

func TestForeignEventsAreRefused(t *testing.T) {
	f := newFixture(t)
	f.write("a\nb\n")
	f.mustRun("s")
	if _, err := f.st.Append("s", []session.Event{{Type: session.TypeUserMessage, Source: session.Source{Kind: session.KindUser}, Text: "typed by hand"}}); err != nil {
		t.Fatal(err)
	}
	f.appendSrc("c\n")
	before := f.fileBytes(f.st.Path("s"))
	_, err := f.run("s")
	if !errors.Is(err, ErrSessionDiverged) || !strings.Contains(err.Error(), "seq 3") {
		t.Fatalf("err = %v, want ErrSessionDiverged at seq 3", err)
	}
	if !bytes.Equal(before, f.fileBytes(f.st.Path("s"))) {
		t.Fatal("a refused import appended to the session")
	}

	// The same when the source has nothing new: the extra event is still
	// something the import did not write.
	g := newFixture(t)
	g.write("a\n")
	g.mustRun("s")
	if _, err := g.st.Append("s", []session.Event{{Type: session.TypeAssistantMessage, Source: session.Source{Kind: session.KindAssistant}, Text: "x"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.run("s"); !errors.Is(err, ErrSessionDiverged) {
		t.Fatalf("err = %v, want ErrSessionDiverged", err)
	}
}

// A graft of the imported session appends graft/retired to it: graft's own
// mark, stepped over. New lines are then refused by the store, naming the
// session to continue in; after a revert (graft/unretired) they append.
func TestGraftMarksAreNotForeign(t *testing.T) {
	f := newFixture(t)
	f.write("a\nb\n")
	f.mustRun("s")
	mark := func(typ string) {
		t.Helper()
		if _, err := f.st.AppendMark("s", session.Event{Type: typ, Source: session.Source{Kind: session.KindPlugin}, Txn: "txn-1", Target: "s.g2"}); err != nil {
			t.Fatal(err)
		}
	}
	mark(session.TypeGraftRetired)
	sum := f.mustRun("s")
	if sum.GraftMarks != 1 || sum.Appended != 0 || sum.LastSeq != 3 || !strings.Contains(sum.Text(), "grafted or reverted") {
		t.Fatalf("nothing new after a graft: %+v", sum)
	}
	f.appendSrc("c\n")
	before := f.fileBytes(f.st.Path("s"))
	if _, err := f.run("s"); !errors.Is(err, session.ErrRetired) || !strings.Contains(err.Error(), "s.g2") {
		t.Fatalf("err = %v, want session.ErrRetired naming s.g2", err)
	}
	if !bytes.Equal(before, f.fileBytes(f.st.Path("s"))) {
		t.Fatal("an import appended to a retired session")
	}
	mark(session.TypeGraftUnretired)
	sum = f.mustRun("s")
	if sum.GraftMarks != 1 || sum.Appended != 1 || sum.FirstSeq != 5 {
		t.Fatalf("after the revert: marks %d appended %d first seq %d", sum.GraftMarks, sum.Appended, sum.FirstSeq)
	}
	if got, want := texts(f.events("s")), "1:a#1 2:b#2 :# :# 3:c#3"; got != want {
		t.Fatalf("events:\n got %s\nwant %s", got, want)
	}
}

func TestSessionRemovedOrShortened(t *testing.T) {
	f := newFixture(t)
	f.write("a\nb\n")
	f.mustRun("s")
	if err := os.Remove(f.st.Path("s")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.run("s"); !errors.Is(err, ErrSessionGone) {
		t.Fatalf("err = %v, want ErrSessionGone", err)
	}
	if err := os.WriteFile(f.st.Path("s"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := f.run("s"); !errors.Is(err, ErrSessionShort) {
		t.Fatalf("err = %v, want ErrSessionShort", err)
	}
}

func TestSettingsAndFormatMustMatch(t *testing.T) {
	f := newFixture(t)
	f.write("a\n")
	f.mustRun("s")
	_, err := Run(Options{Store: f.st, Home: f.home, ID: "s", Source: f.src}, &lineMapper{setting: "other"})
	if !errors.Is(err, ErrSettings) {
		t.Fatalf("err = %v, want ErrSettings", err)
	}
	_, err = Run(Options{Store: f.st, Home: f.home, ID: "s", Source: f.src}, &lineMapper{format: "other-format"})
	if !errors.Is(err, ErrFormat) {
		t.Fatalf("err = %v, want ErrFormat", err)
	}
}

func TestConcurrentImportIsRefused(t *testing.T) {
	f := newFixture(t)
	f.write("a\n")
	held, err := lockfile.TryLockImport(f.home, "s")
	if err != nil {
		t.Fatalf("taking the lock: %v", err)
	}
	t.Cleanup(func() {
		if err := held.Unlock(); err != nil {
			t.Errorf("releasing the lock: %v", err)
		}
	})
	if _, err := f.run("s"); !errors.Is(err, ErrBusy) {
		t.Fatalf("err = %v, want ErrBusy", err)
	}
}

// An append waits for the session's lock (held by a commit or revert) and
// gives up with an error, appending nothing, when it stays held.
func TestAppendWaitsForTheSessionLock(t *testing.T) {
	f := newFixture(t)
	f.write("a\n")
	f.mustRun("s")
	f.appendSrc("b\n")
	held, err := lockfile.TryLock(f.home, "s")
	if err != nil {
		t.Fatal(err)
	}
	before := f.fileBytes(f.st.Path("s"))
	_, err = f.run("s", func(o *Options) { o.LockWait = 50 * time.Millisecond })
	if !errors.Is(err, lockfile.ErrLocked) {
		t.Fatalf("err = %v, want lockfile.ErrLocked", err)
	}
	if !bytes.Equal(before, f.fileBytes(f.st.Path("s"))) {
		t.Fatal("an append happened under someone else's session lock")
	}
	if err := held.Unlock(); err != nil {
		t.Fatal(err)
	}
	if sum := f.mustRun("s"); sum.Appended != 1 || sum.FromLine != 2 {
		t.Fatalf("after the lock was released: appended %d from line %d", sum.Appended, sum.FromLine)
	}
}

func TestSmallBatchesGiveTheSameSession(t *testing.T) {
	f := newFixture(t)
	var b strings.Builder
	for i := range 50 {
		b.WriteString("line" + strconv.Itoa(i) + "|x\n")
	}
	f.write("first\n")
	f.mustRun("batched")
	f.appendSrc(b.String())
	// BatchBytes 1: one append (and one cursor save) per line.
	sum := f.mustRun("batched", func(o *Options) { o.BatchBytes = 1 })
	if sum.Appended != 100 || sum.FirstSeq != 2 || sum.LastSeq != 101 {
		t.Fatalf("appended %d as seq %d..%d, want 100 as seq 2..101", sum.Appended, sum.FirstSeq, sum.LastSeq)
	}
	f.mustRun("new", func(o *Options) { o.BatchBytes = 1 })
	if a, b := f.events("batched"), f.events("new"); !reflect.DeepEqual(a, b) || len(a) != 101 {
		t.Fatalf("batched imports differ or are short: %d and %d events", len(a), len(b))
	}
}

func TestProgressReportsTheEnd(t *testing.T) {
	f := newFixture(t)
	f.write("a\nb\n")
	var last, total int64
	f.mustRun("s", func(o *Options) { o.Progress = func(r, n int64) { last, total = r, n } })
	if last != 4 || total != 4 {
		t.Fatalf("progress ended at %d/%d, want 4/4", last, total)
	}
}

func TestDefaultID(t *testing.T) {
	for _, c := range []struct{ path, id string }{
		{"/x/4d5611e5-241a-462a-8d15-5122611a9569.jsonl", "4d5611e5-241a-462a-8d15-5122611a9569"},
		{"rollout-2025-10-05T09-12-44-0199b2c4.jsonl", "rollout-2025-10-05T09-12-44-0199b2c4"},
		{"my session (copy).jsonl", "my-session--copy-"},
		{"._hidden.jsonl", "hidden"},
		{strings.Repeat("a", 140) + ".jsonl", strings.Repeat("a", 100)},
	} {
		got, err := DefaultID(c.path)
		if err != nil || got != c.id {
			t.Errorf("DefaultID(%q) = %q, %v; want %q", c.path, got, err, c.id)
		}
	}
	if id, err := DefaultID("/x/…….jsonl"); err == nil {
		t.Errorf("DefaultID of a name with no usable character = %q, want an error", id)
	}
}

// A source time the mapper could not read is not chosen silently: the
// summary warns once for the line and names the raw value.
func TestUnreadableTimestampIsWarned(t *testing.T) {
	f := newFixture(t)
	f.write("a\nbadtime\nb\n")
	sum := f.mustRun("s")
	if sum.WarningCount != 1 || len(sum.Warnings) != 1 || !strings.Contains(sum.Warnings[0], `line 2: timestamp "noon-ish" is not RFC 3339`) {
		t.Fatalf("warnings %d %q, want one naming line 2 and its timestamp", sum.WarningCount, sum.Warnings)
	}
	evs := f.events("s")
	if len(evs) != 3 || evs[1].Meta["timestamp"] != "noon-ish" || evs[1].TS == "" {
		t.Fatalf("event of line 2: %+v", evs[1])
	}
}

// A session that cannot be read while its events are checked against the
// source is a read error naming the cause, not "events the source does not
// produce".
func TestVerifierReadErrorIsReported(t *testing.T) {
	f := newFixture(t)
	f.write("a\n")
	f.mustRun("s")
	if _, err := f.st.Append("s", []session.Event{{Type: session.TypeAssistantMessage, Source: session.Source{Kind: session.KindAssistant}, Text: "x"}}); err != nil {
		t.Fatal(err)
	}
	// Open 1 of the log folds it (Info); open 2 is the verifier's scan.
	fault := errorfs.OnKind(errorfs.OpOpen, string(filepath.Separator)+"s.jsonl", 2, syscall.EIO)
	st, err := session.OpenStore(errorfs.Wrap(vfs.Default, fault), f.home)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(Options{Store: st, Home: f.home, ID: "s", Source: f.src}, &lineMapper{})
	if _, fired := fault.Fired(); !fired {
		t.Fatalf("the fault was never reached (%s); run: %v", fault, err)
	}
	if !errors.Is(err, syscall.EIO) || errors.Is(err, ErrSessionDiverged) {
		t.Fatalf("err = %v, want the EIO of the verifier's read, not ErrSessionDiverged", err)
	}
}

// A cursor that is not this session's, or that claims negative positions,
// is refused naming the file: resuming from it would skip or repeat lines.
func TestLoadCursorRefuses(t *testing.T) {
	f := newFixture(t)
	f.write("a\n")
	f.mustRun("s")
	good := f.fileBytes(CursorPath(f.home, "s"))
	for _, c := range []struct {
		name string
		edit func(c map[string]any)
		want string
	}{
		{"another session's cursor", func(c map[string]any) { c["session"] = "t" }, `cursor of session "t", not "s"`},
		{"negative offset", func(c map[string]any) { c["offset"] = -1 }, "negative offset"},
		{"negative lines", func(c map[string]any) { c["lines"] = -2 }, "negative offset"},
		{"negative last seq", func(c map[string]any) { c["lastSeq"] = -3 }, "negative offset"},
		{"another version", func(c map[string]any) { c["version"] = 3 }, "version 3"},
		{"a state file in version 1", func(c map[string]any) {
			c["stateFile"] = map[string]any{"name": "s.state", "size": 1, "sha256": "00"}
		}, "state file"},
		{"a state file of another name", func(c map[string]any) {
			c["version"], c["stateFile"], c["state"] = 2, map[string]any{"name": "../s.state", "size": 1, "sha256": "00"}, nil
		}, "state file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var m map[string]any
			if err := json.Unmarshal(good, &m); err != nil {
				t.Fatal(err)
			}
			c.edit(m)
			delete(m, "sum") // a cursor edited by hand: the checks below its checksum
			b, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(CursorPath(f.home, "s"), b, 0o600); err != nil {
				t.Fatal(err)
			}
			_, err = LoadCursor(f.st.FS, f.home, "s")
			if !errors.Is(err, ErrCursor) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), CursorPath(f.home, "s")) {
				t.Fatalf("LoadCursor = %v, want ErrCursor naming the file and %q", err, c.want)
			}
		})
	}
}

// The summary lists the first maxListed warnings and malformed lines and
// counts them all.
func TestSummaryListsAreCapped(t *testing.T) {
	f := newFixture(t)
	f.write(strings.Repeat("bad\nbadtime\n", maxListed+5))
	sum := f.mustRun("s")
	if sum.MalformedCount != maxListed+5 || len(sum.Malformed) != maxListed {
		t.Errorf("malformed: %d counted, %d listed; want %d and %d", sum.MalformedCount, len(sum.Malformed), maxListed+5, maxListed)
	}
	if sum.WarningCount != maxListed+5 || len(sum.Warnings) != maxListed {
		t.Errorf("warnings: %d counted, %d listed; want %d and %d", sum.WarningCount, len(sum.Warnings), maxListed+5, maxListed)
	}
	if text := sum.Text(); !strings.Contains(text, "and 5 more warnings") || !strings.Contains(text, " and 5 more)") {
		t.Errorf("summary text does not count what it does not list:\n%s", text)
	}
}

// A cursor whose file fails to close is an error naming it, not a cursor
// read as good.
func TestLoadCursorReportsCloseError(t *testing.T) {
	f := newFixture(t)
	f.write("a\n")
	f.mustRun("s")
	fault := errorfs.OnKind(errorfs.OpClose, "s.json", 1, syscall.EIO)
	_, err := LoadCursor(errorfs.Wrap(vfs.Default, fault), f.home, "s")
	if !errors.Is(err, syscall.EIO) || !strings.Contains(err.Error(), CursorPath(f.home, "s")) {
		t.Fatalf("LoadCursor with a failing close = %v, want EIO naming the cursor", err)
	}
}

// The cursor survives a power loss once SaveCursor returns: imports/ itself
// is made durable in the home, not only the file in imports/.
func TestSaveCursorIsDurable(t *testing.T) {
	fsys := crashfs.New()
	if err := fsys.MkdirAll("/home", 0o700); err != nil {
		t.Fatal(err)
	}
	fsys.StartRecording()
	if err := SaveCursor(fsys, "/home", &Cursor{Format: "test-lines", Session: "s", LastSeq: 3}); err != nil {
		t.Fatal(err)
	}
	c, err := LoadCursor(fsys.CrashClone(), "/home", "s")
	if err != nil || c.LastSeq != 3 {
		t.Fatalf("after a crash the cursor reads %+v, %v; want last seq 3", c, err)
	}
}

// TestPrefixCheckResumesUntilThePrefixDoubles: above FullCheckBelow a run
// resumes the prefix hash from the cursor (same file, same last 4 KiB) and
// reads the whole prefix again only once it doubled since the last whole
// read; a changed tail is refused at once, an in-place edit of the middle at
// the next whole read.
func TestPrefixCheckResumesUntilThePrefixDoubles(t *testing.T) {
	defer func(v int64) { FullCheckBelow = v }(FullCheckBelow)
	FullCheckBelow = 0
	f := newFixture(t)
	line := func(k int) string { return fmt.Sprintf("line %05d %s\n", k, strings.Repeat("x", 80)) }
	var content strings.Builder
	for k := 0; k < 100; k++ {
		content.WriteString(line(k))
	}
	f.write(content.String())
	if sum := f.mustRun("s"); sum.PrefixCheck != "" {
		t.Fatalf("first import: prefix check %q, want a whole read", sum.PrefixCheck)
	}
	grow := func(n int) {
		var b strings.Builder
		for k := 0; k < n; k++ {
			b.WriteString(line(1000 + k))
		}
		f.appendSrc(b.String())
	}
	grow(10)
	if sum := f.mustRun("s"); sum.PrefixCheck != "resumed" || sum.Appended != 10 {
		t.Fatalf("a grown transcript: prefix check %q, appended %d; want resumed, 10", sum.PrefixCheck, sum.Appended)
	}
	// An in-place edit of the middle, same length, same tail: not seen
	// while the prefix has not doubled since the last whole read...
	data := f.fileBytes(f.src)
	edited := bytes.Replace(data, []byte("line 00050"), []byte("line 0005X"), 1)
	if err := os.WriteFile(f.src, edited, 0o600); err != nil {
		t.Fatal(err)
	}
	grow(10)
	if sum := f.mustRun("s"); sum.PrefixCheck != "resumed" {
		t.Fatalf("prefix check %q, want resumed (the documented blind spot)", sum.PrefixCheck)
	}
	// ... and refused once it has: the next run reads it all.
	grow(200)
	if sum := f.mustRun("s"); sum.PrefixCheck != "resumed" {
		t.Fatalf("prefix check %q before doubling, want resumed", sum.PrefixCheck)
	}
	grow(1)
	if _, err := f.run("s"); !errors.Is(err, ErrSourceRewritten) {
		t.Fatalf("past twice the verified offset: %v, want ErrSourceRewritten", err)
	}
	// A changed tail is refused at once.
	g := newFixture(t)
	g.write(content.String())
	g.mustRun("s")
	tail := []byte(content.String())
	tail[len(tail)-3] = 'y'
	if err := os.WriteFile(g.src, append(tail, line(5000)...), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := g.run("s"); !errors.Is(err, ErrSourceRewritten) {
		t.Fatalf("a changed tail: %v, want ErrSourceRewritten", err)
	}
}

// A run that reads nothing past its cursor writes no cursor: the one on
// disk already says it all (a hook on every turn of an idle session).
func TestNothingNewWritesNoCursor(t *testing.T) {
	f := newFixture(t)
	f.write("a\nb\n")
	f.mustRun("s")
	path := CursorPath(f.home, "s")
	ino := func() uint64 {
		t.Helper()
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Sys().(*syscall.Stat_t).Ino
	}
	before, data := ino(), f.fileBytes(path)
	if s := f.mustRun("s"); s.Appended != 0 || !s.Resumed {
		t.Fatalf("second run: %+v", s)
	}
	if ino() != before || !bytes.Equal(f.fileBytes(path), data) {
		t.Fatal("a run with nothing new rewrote the cursor")
	}
	f.appendSrc("half")
	f.mustRun("s") // a line still being written: nothing consumed
	if ino() != before {
		t.Fatal("a run that consumed nothing rewrote the cursor")
	}
	f.appendSrc(" done\n")
	if s := f.mustRun("s"); s.Appended != 1 {
		t.Fatalf("third run: %+v", s)
	}
	if bytes.Equal(f.fileBytes(path), data) {
		t.Fatal("a run that read a new line left the old cursor")
	}
}

// A cursor damaged on the disk that still decodes (its importer's state a
// digit off) is not trusted: its checksum does not match, the run warns,
// sets it aside and reads the source again from its first line, checking
// the session's events against it. A cursor written before cursors had a
// checksum is read as before.
func TestADamagedCursorIsSetAside(t *testing.T) {
	f := newFixture(t)
	f.write("a\nb\n")
	f.mustRun("s")
	path := CursorPath(f.home, "s")
	good := f.fileBytes(path)
	if !bytes.Contains(good, []byte(`"sum": "sha256:`)) {
		t.Fatalf("the cursor has no checksum:\n%s", good)
	}
	damaged := bytes.Replace(good, []byte(`"state": 2`), []byte(`"state": 7`), 1)
	if bytes.Equal(damaged, good) {
		t.Fatalf("no state 2 in the cursor:\n%s", good)
	}
	if err := os.WriteFile(path, damaged, session.FileMode); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCursor(f.st.FS, f.home, "s"); !errors.Is(err, ErrCursorSum) || !errors.Is(err, ErrCursor) {
		t.Fatalf("LoadCursor of a damaged cursor: %v, want ErrCursorSum (an ErrCursor)", err)
	}
	f.appendSrc("c\n")
	s := f.mustRun("s")
	if s.Resumed || len(s.Warnings) == 0 || !strings.Contains(strings.Join(s.Warnings, "\n"), "checksum") {
		t.Fatalf("a run after the cursor was damaged: resumed %v, warnings %q; want it set aside, saying why", s.Resumed, s.Warnings)
	}
	one := f.mustRun("one")
	if one.Appended != 3 {
		t.Fatalf("one-shot import appended %d", one.Appended)
	}
	if a, b := f.events("s"), f.events("one"); texts(a) != texts(b) {
		t.Fatalf("after a damaged cursor the session differs from a one-shot import:\n%s\n%s", texts(a), texts(b))
	}
	// A cursor that is no JSON at all (cut short, garbage) is damaged the
	// same way: set aside too. One of another version is not: a newer
	// graft's cursor is never overwritten.
	for _, bad := range [][]byte{good[:len(good)/2], []byte("\x00\x00\x00"), {}} {
		if err := os.WriteFile(path, bad, session.FileMode); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadCursor(f.st.FS, f.home, "s"); !errors.Is(err, ErrCursorSum) {
			t.Fatalf("LoadCursor of %q: %v, want ErrCursorSum", bad, err)
		}
		if s := f.mustRun("s"); s.Resumed || !strings.Contains(strings.Join(s.Warnings, "\n"), "set aside") {
			t.Fatalf("a run after the cursor became %q: resumed %v, warnings %q", bad, s.Resumed, s.Warnings)
		}
		if a, b := texts(f.events("s")), texts(f.events("one")); a != b {
			t.Fatalf("after the cursor became %q the session differs from a one-shot import:\n%s\n%s", bad, a, b)
		}
	}
	// A cursor of before the checksum (no "sum") is read as it was.
	old := good[:bytes.LastIndex(good, []byte(",\n  \"sum\": "))]
	old = append(bytes.Clone(old), "\n}\n"...)
	if err := os.WriteFile(path, old, session.FileMode); err != nil {
		t.Fatal(err)
	}
	if c, err := LoadCursor(f.st.FS, f.home, "s"); err != nil || c.Lines != 2 {
		t.Fatalf("a cursor without a checksum: %+v, %v; want it read", c, err)
	}
}
