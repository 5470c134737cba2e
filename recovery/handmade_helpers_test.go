package recovery_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/journal"
	"github.com/graft-project/graft/recovery"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/tape"
	"github.com/graft-project/graft/txn"
	"github.com/graft-project/graft/vfs"
)

// crashHome is a graft home in which a test lays out, by hand, what a
// crashed transaction leaves on disk: a journal record, a target in some
// state, a source with or without its commit point.
type crashHome struct {
	t    *testing.T
	home string
	fs   vfs.FS
	svc  *graft.Service
	st   *session.Store   // the home's sessions, as the service's transactions see them
	jrnl *journal.Journal // its .txn/
}

// newCrashHome opens a service without the start-up scan: the test runs
// the scan itself, after laying out the crash.
func newCrashHome(t *testing.T, fsys vfs.FS) *crashHome {
	t.Helper()
	home := filepath.Join(t.TempDir(), "home")
	svc, err := graft.Open(home, graft.Options{FS: fsys, SkipRecovery: true})
	if err != nil {
		t.Fatalf("graft.Open(%s): %v", home, err)
	}
	st, err := session.OpenStore(fsys, home)
	if err != nil {
		t.Fatal(err)
	}
	j, err := journal.Open(fsys, home)
	if err != nil {
		t.Fatal(err)
	}
	return &crashHome{t: t, home: home, fs: fsys, svc: svc, st: st, jrnl: j}
}

func (c *crashHome) store() *session.Store { return c.st }

// env is a transaction environment of the home's file store, as the
// service's.
func (c *crashHome) env() *txn.Env {
	return &txn.Env{Home: c.home, FS: c.fs, Store: c.st, Journal: c.jrnl, Now: time.Now}
}

func (c *crashHome) path(id string) string { return c.store().Path(id) }

// bytesOf returns a session's bytes, nil when the file does not exist.
func (c *crashHome) bytesOf(id string) []byte {
	c.t.Helper()
	b, err := os.ReadFile(c.path(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		c.t.Fatalf("reading %s: %v", id, err)
	}
	return b
}

func (c *crashHome) writeFile(id string, data []byte) {
	c.t.Helper()
	if err := os.WriteFile(c.path(id), data, session.FileMode); err != nil {
		c.t.Fatalf("writing %s: %v", id, err)
	}
}

// createSource writes the source session of every case.
func (c *crashHome) createSource(id string) {
	c.t.Helper()
	evs := []session.Event{
		{Type: session.TypeUserMessage, Source: session.Source{Kind: session.KindUser}, Text: "Goal: make the importer resumable. Never delete a session log; retire it instead."},
		{Type: session.TypeAssistantMessage, Source: session.Source{Kind: session.KindAssistant}, Text: "Reading importer.go first."},
		{Type: session.TypeToolCall, Source: session.Source{Kind: session.KindAssistant}, Tool: &session.Tool{Name: "Read", CallID: "c1", Input: json.RawMessage(`{"file_path":"importer.go"}`)}},
		{Type: session.TypeToolResult, Source: session.Source{Kind: session.KindTool}, Tool: &session.Tool{Name: "Read", CallID: "c1", Output: "package importer"}},
		{Type: session.TypeUserMessage, Source: session.Source{Kind: session.KindUser}, Text: "Now add a cursor file and test it."},
		{Type: session.TypeAssistantMessage, Source: session.Source{Kind: session.KindAssistant}, Text: "Adding cursor.go.\n\nThe cursor is written after every batch."},
	}
	if err := c.store().Create(id, evs); err != nil {
		c.t.Fatalf("creating source %s: %v", id, err)
	}
}

// plannedGraft is what a commit of source into target would write: the
// record (in PREPARING) and the target's bytes, computed the way txn.Commit
// computes them. Nothing is written.
func (c *crashHome) plannedGraft(source, target, preparedID string) (journal.Record, []byte) {
	c.t.Helper()
	b := tape.NewBuilder(source)
	if _, err := c.store().Scan(source, session.ScanFrom{}, func(ev *session.Event, raw []byte, _ int64) error {
		return b.Add(ev, raw)
	}); err != nil {
		c.t.Fatalf("scanning %s: %v", source, err)
	}
	tp, err := b.Build(tape.Options{}, nil)
	if err != nil {
		c.t.Fatalf("building the tape of %s: %v", source, err)
	}
	now := time.Now()
	id := journal.NewTxnID(now)
	evs := txn.TargetEvents(id, source, tp, now)
	var data []byte
	for k := range evs {
		line, err := session.Encode(&evs[k])
		if err != nil {
			c.t.Fatalf("encoding target event %d: %v", k+1, err)
		}
		data = append(data, line...)
	}
	sum := sha256.Sum256(data)
	rec := journal.Record{
		Version: journal.RecordVersion, Txn: id, Kind: journal.KindGraft, State: journal.Preparing,
		Source: source, Target: target, PreparedID: preparedID,
		TapeHash: tp.TapeHash, TapeEvents: len(evs), TapeDigest: "sha256:" + hex.EncodeToString(sum[:]),
		TargetBytes: int64(len(data)), BoundarySeq: tp.BoundarySeq, Generation: tp.Generation + 1,
		Created: now.UTC().Format(time.RFC3339Nano),
	}
	return rec, data
}

func (c *crashHome) writeRecord(rec journal.Record) {
	c.t.Helper()
	if err := c.jrnl.Write(rec); err != nil {
		c.t.Fatalf("writing record %s: %v", rec.Txn, err)
	}
}

// mark appends a graft/* event, as the transaction would have.
func (c *crashHome) mark(id, typ, txnID, target, reason string) {
	c.t.Helper()
	if _, err := c.store().AppendMark(id, session.Event{
		Type: typ, Source: session.Source{Kind: session.KindPlugin, Name: "graft"}, Txn: txnID, Target: target, Reason: reason,
	}); err != nil {
		c.t.Fatalf("appending %s to %s: %v", typ, id, err)
	}
}

func (c *crashHome) recordExists(txnID string) bool {
	c.t.Helper()
	_, err := c.jrnl.Read(txnID)
	if errors.Is(err, journal.ErrNotFound) {
		return false
	}
	if err != nil {
		c.t.Fatalf("reading record %s: %v", txnID, err)
	}
	return true
}

func (c *crashHome) leftovers(source string) []catalog.Leftover {
	c.t.Helper()
	var out []catalog.Leftover
	err := catalog.With(c.home, catalog.DefaultTimeout, func(db *catalog.DB) error {
		var err error
		out, err = db.Leftovers(source)
		return err
	})
	if err != nil {
		c.t.Fatalf("reading leftovers of %s: %v", source, err)
	}
	return out
}

func (c *crashHome) node(id string) (catalog.Node, bool) {
	c.t.Helper()
	var n catalog.Node
	var ok bool
	err := catalog.With(c.home, catalog.DefaultTimeout, func(db *catalog.DB) error {
		var err error
		n, ok, err = db.GetNode(id)
		return err
	})
	if err != nil {
		c.t.Fatalf("reading lineage node %s: %v", id, err)
	}
	return n, ok
}

// run is one recovery scan that must resolve everything.
func (c *crashHome) run() *recovery.Report {
	c.t.Helper()
	rep, err := recovery.Run(c.env())
	if err != nil {
		c.t.Fatalf("recovery: %v (report %+v)", err, rep)
	}
	return rep
}

// hashHome maps every file and directory under the home, except
// catalog.db (the scan stamps its report there) and locks/ (lock files are
// created on use), to its content hash.
func (c *crashHome) hashHome() map[string]string {
	c.t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(c.home, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(c.home, path)
		if err != nil {
			return err
		}
		switch {
		case rel == catalog.FileName:
			return nil
		case rel == "locks":
			return filepath.SkipDir
		case d.IsDir():
			out[rel] = "dir"
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		out[rel] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		c.t.Fatalf("hashing %s: %v", c.home, err)
	}
	return out
}

// secondRunIsANoOp runs the scan again: it must find nothing (scanned=0,
// nothing done) and change no byte under the home.
func (c *crashHome) secondRunIsANoOp() {
	c.t.Helper()
	before := c.hashHome()
	rep := c.run()
	if rep.Scanned != 0 || rep.RolledForward != 0 || rep.RolledBack != 0 || rep.Busy != 0 || rep.Corrupt != 0 || len(rep.Leftovers) != 0 || len(rep.Errors) != 0 {
		c.t.Errorf("second scan reported %+v, want scanned=0 and nothing done", rep)
	}
	if after := c.hashHome(); !maps.Equal(before, after) {
		c.t.Errorf("second scan changed the home:\nbefore %v\nafter  %v", sortedKeys(before), diffKeys(before, after))
	}
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }

func diffKeys(a, b map[string]string) []string {
	var out []string
	for k, v := range a {
		if b[k] != v {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k+" (new)")
		}
	}
	slices.Sort(out)
	return out
}

// lastEvent decodes the last line of b.
func lastEvent(t *testing.T, b []byte) session.Event {
	t.Helper()
	lines := bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
	var ev session.Event
	if err := json.Unmarshal(lines[len(lines)-1], &ev); err != nil {
		t.Fatalf("decoding the last line %q: %v", lines[len(lines)-1], err)
	}
	return ev
}

func firstLineLen(t *testing.T, data []byte) int {
	t.Helper()
	i := bytes.IndexByte(data, '\n')
	if i < 0 {
		t.Fatalf("no newline in %d bytes", len(data))
	}
	return i + 1
}
