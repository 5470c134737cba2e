package graft_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/journal"
	"github.com/graft-project/graft/session"
)

// flowHome is one graft home with its service, for the commit, revert and
// drift tests of this package.
type flowHome struct {
	t    *testing.T
	home string
	svc  *graft.Service
}

// openFlowHome opens a service on a fresh home; o.FS and the rest stay as
// given (zero: the real filesystem, time.Now).
func openFlowHome(t *testing.T, o graft.Options) *flowHome {
	t.Helper()
	home := filepath.Join(t.TempDir(), "home")
	svc, err := graft.Open(home, o)
	if err != nil {
		t.Fatalf("graft.Open(%s): %v", home, err)
	}
	if svc.StartupErr != nil {
		t.Fatalf("start-up recovery of a fresh home: %v", svc.StartupErr)
	}
	return &flowHome{t: t, home: home, svc: svc}
}

func (h *flowHome) sessionPath(id string) string { return h.svc.Store().Path(id) }

// create writes a new session log with the given events.
func (h *flowHome) create(id string, evs ...session.Event) {
	h.t.Helper()
	if err := h.svc.Store().Create(id, evs); err != nil {
		h.t.Fatalf("creating session %s: %v", id, err)
	}
}

// appendEvents appends through the service, as a host does.
func (h *flowHome) appendEvents(id string, evs ...session.Event) []session.Event {
	h.t.Helper()
	out, err := h.svc.Append(id, evs)
	if err != nil {
		h.t.Fatalf("appending %d event(s) to %s: %v", len(evs), id, err)
	}
	return out
}

// bytesOf returns a session's log bytes; nil when it does not exist.
func (h *flowHome) bytesOf(id string) []byte {
	h.t.Helper()
	b, err := os.ReadFile(h.sessionPath(id))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		h.t.Fatalf("reading %s: %v", id, err)
	}
	return b
}

func (h *flowHome) exists(id string) bool {
	h.t.Helper()
	ok, err := h.svc.Store().Exists(id)
	if err != nil {
		h.t.Fatalf("Exists(%s): %v", id, err)
	}
	return ok
}

func (h *flowHome) info(id string) *session.Info {
	h.t.Helper()
	info, err := h.svc.Store().Info(id)
	if err != nil {
		h.t.Fatalf("Info(%s): %v", id, err)
	}
	return info
}

func (h *flowHome) prepare(source string, o graft.PrepareOptions) *graft.Review {
	h.t.Helper()
	rv, err := h.svc.Prepare(context.Background(), source, o)
	if err != nil {
		h.t.Fatalf("Prepare(%s): %v", source, err)
	}
	return rv
}

func (h *flowHome) commit(rv *graft.Review, target string) *graft.CommitResult {
	h.t.Helper()
	res, err := h.svc.Commit(context.Background(), rv.PreparedID, rv.TapeHash, target)
	if err != nil {
		h.t.Fatalf("Commit(%s): %v", rv.PreparedID, err)
	}
	return res
}

// records lists the journal; a corrupt record fails the test.
func (h *flowHome) records() []journal.Record {
	h.t.Helper()
	scan, err := h.svc.Journal().Scan()
	if err != nil {
		h.t.Fatalf("scanning the journal: %v", err)
	}
	if len(scan.Corrupt) > 0 {
		h.t.Fatalf("corrupt journal records: %v", scan.Corrupt)
	}
	return scan.Records
}

// node reads the lineage node of id from the catalog.
func (h *flowHome) node(id string) (catalog.Node, bool) {
	h.t.Helper()
	var n catalog.Node
	var ok bool
	err := catalog.With(h.home, catalog.DefaultTimeout, func(db *catalog.DB) error {
		var err error
		n, ok, err = db.GetNode(id)
		return err
	})
	if err != nil {
		h.t.Fatalf("reading lineage node %s: %v", id, err)
	}
	return n, ok
}

func (h *flowHome) prepared(id string) catalog.Prepared {
	h.t.Helper()
	var p catalog.Prepared
	err := catalog.With(h.home, catalog.DefaultTimeout, func(db *catalog.DB) error {
		var err error
		p, err = db.PeekPrepared(id)
		return err
	})
	if err != nil {
		h.t.Fatalf("reading prepared %s: %v", id, err)
	}
	return p
}

// wantCode checks that err maps to the stable code and exit code.
func wantCode(t *testing.T, err error, code graft.Code, exit int) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want code %s", code)
	}
	gotCode, gotExit := graft.CodeOf(err)
	if gotCode != code || gotExit != exit {
		t.Fatalf("CodeOf(%v) = %s, %d; want %s, %d", err, gotCode, gotExit, code, exit)
	}
}

// decodeLines parses complete JSONL lines; the bytes must end in '\n'.
func decodeLines(t *testing.T, b []byte) []session.Event {
	t.Helper()
	if len(b) > 0 && b[len(b)-1] != '\n' {
		t.Fatalf("%d bytes do not end in a newline: %q", len(b), tail(b))
	}
	var evs []session.Event
	for _, line := range bytes.SplitAfter(b, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var ev session.Event
		if err := json.Unmarshal(line, &ev); err != nil {
			t.Fatalf("decoding %q: %v", line, err)
		}
		evs = append(evs, ev)
	}
	return evs
}

func tail(b []byte) []byte {
	if len(b) > 80 {
		return b[len(b)-80:]
	}
	return b
}

// Events of the test sessions.

func humanMsg(text string) session.Event {
	return session.Event{Type: session.TypeUserMessage, Source: session.Source{Kind: session.KindUser}, Text: text}
}

func assistantMsg(text string) session.Event {
	return session.Event{Type: session.TypeAssistantMessage, Source: session.Source{Kind: session.KindAssistant}, Text: text}
}

func toolCall(name, id, input string) session.Event {
	return session.Event{Type: session.TypeToolCall, Source: session.Source{Kind: session.KindAssistant},
		Tool: &session.Tool{Name: name, CallID: id, Input: json.RawMessage(input)}}
}

func toolResult(name, id, output string) session.Event {
	return session.Event{Type: session.TypeToolResult, Source: session.Source{Kind: session.KindTool},
		Tool: &session.Tool{Name: name, CallID: id, Output: output}}
}

// workSession is a small two-turn session: the open turn starts at seq 7
// (the boundary) and ends with an assistant message at seq 11.
func workSession() []session.Event {
	return []session.Event{
		humanMsg("Goal: add a recovery test to the store. Never delete a session log; retire it instead."),
		assistantMsg("I'll start by reading store.go."),
		toolCall("Read", "call-read-1", `{"file_path":"store.go"}`),
		toolResult("Read", "call-read-1", "package store"),
		{Type: session.TypeTodoWrite, Source: session.Source{Kind: session.KindAssistant}, Todos: []session.Todo{
			{ID: "1", Content: "write the recovery test", Status: session.TodoInProgress},
			{ID: "2", Content: "run the suite", Status: session.TodoPending},
		}},
		assistantMsg("Read store.go.\n\nNext I will write the test."),
		humanMsg("Now write store_test.go and run it."),
		assistantMsg("Writing store_test.go."),
		toolCall("Write", "call-write-1", `{"file_path":"store_test.go","content":"package store"}`),
		toolResult("Write", "call-write-1", "written"),
		assistantMsg("The test file is written.\n\nRunning it next."),
	}
}

const workBoundary = 7

// fixedClock is a settable clock for expiry tests.
type fixedClock struct{ now time.Time }

func (c *fixedClock) Now() time.Time { return c.now }
