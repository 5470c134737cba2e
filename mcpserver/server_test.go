package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/txn"
)

func TestToolsAndAnnotations(t *testing.T) {
	f := newFixture(t, Options{}, graft.Options{})
	res, err := f.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	type hints struct{ readOnly, destructive, idempotent bool }
	want := map[string]hints{
		ToolPrepare: {readOnly: false, destructive: false, idempotent: false},
		ToolCommit:  {readOnly: false, destructive: true, idempotent: false},
		ToolRecall:  {readOnly: true, destructive: false, idempotent: true},
		ToolFind:    {readOnly: true, destructive: false, idempotent: true},
		ToolStatus:  {readOnly: true, destructive: false, idempotent: true},
		ToolRevert:  {readOnly: false, destructive: true, idempotent: false},
	}
	if len(res.Tools) != len(want) {
		t.Errorf("got %d tools, want %d", len(res.Tools), len(want))
	}
	for _, tool := range res.Tools {
		w, known := want[tool.Name]
		if !known {
			t.Errorf("unexpected tool %s", tool.Name)
			continue
		}
		delete(want, tool.Name)
		a := tool.Annotations
		if a == nil {
			t.Errorf("%s: no annotations", tool.Name)
			continue
		}
		if a.ReadOnlyHint != w.readOnly || a.IdempotentHint != w.idempotent {
			t.Errorf("%s: readOnly %v idempotent %v, want %v %v", tool.Name, a.ReadOnlyHint, a.IdempotentHint, w.readOnly, w.idempotent)
		}
		// The destructive hint defaults to true when absent, so a tool that
		// is neither read-only nor destructive must say false explicitly.
		if !w.readOnly && (a.DestructiveHint == nil || *a.DestructiveHint != w.destructive) {
			t.Errorf("%s: destructiveHint %s, want %v", tool.Name, hint(a.DestructiveHint), w.destructive)
		}
		if a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: openWorldHint %s, want false", tool.Name, hint(a.OpenWorldHint))
		}
		if !strings.Contains(tool.Description, "Next:") && !strings.Contains(tool.Description, "nextOffset") {
			t.Errorf("%s: the description does not say what comes next: %q", tool.Name, tool.Description)
		}
		for _, which := range []struct {
			name   string
			schema any
		}{{"input", tool.InputSchema}, {"output", tool.OutputSchema}} {
			if which.schema == nil {
				t.Errorf("%s: no %s schema", tool.Name, which.name)
				continue
			}
			for _, missing := range undescribed(which.schema, "") {
				t.Errorf("%s: %s field %s has no description", tool.Name, which.name, missing)
			}
		}
	}
	for name := range want {
		t.Errorf("tool %s is missing", name)
	}
	mustContain(t, "prepare description", toolDesc(res.Tools, ToolPrepare), "graft_commit", "preparedId", "tapeHash", "show the review to the user")
	mustContain(t, "recall description", toolDesc(res.Tools, ToolRecall), "recall seq=N")
}

func hint(b *bool) string {
	if b == nil {
		return "absent"
	}
	return fmt.Sprint(*b)
}

func toolDesc(tools []*mcp.Tool, name string) string {
	for _, tl := range tools {
		if tl.Name == name {
			return tl.Description
		}
	}
	return ""
}

// undescribed walks a JSON schema (as the client decodes it) and returns
// the paths of properties without a description.
func undescribed(schema any, path string) []string {
	m, ok := schema.(map[string]any)
	if !ok {
		return nil
	}
	var out []string
	if props, ok := m["properties"].(map[string]any); ok {
		for name, p := range props {
			pm, _ := p.(map[string]any)
			if d, _ := pm["description"].(string); d == "" {
				out = append(out, path+"."+name)
			}
			out = append(out, undescribed(p, path+"."+name)...)
		}
	}
	if items, ok := m["items"]; ok {
		out = append(out, undescribed(items, path+"[]")...)
	}
	if defs, ok := m["$defs"].(map[string]any); ok {
		for name, d := range defs {
			out = append(out, undescribed(d, "$defs."+name)...)
		}
	}
	return out
}

func TestFlowPrepareCommitRecallStatusRevert(t *testing.T) {
	f := newFixture(t, Options{}, graft.Options{})
	rv := f.prepare(nil)
	if rv.Source != "s" || rv.BoundarySeq != boundarySeq || rv.LastSeq != 7 || rv.Generation != 1 {
		t.Fatalf("review: %s", describe(rv))
	}
	if rv.TapeHash == "" || rv.PreparedID == "" || rv.PrefixHash == "" {
		t.Fatalf("review has no tapeHash: %s", describe(rv))
	}
	if rv.NextOffset != 0 || rv.TapeOffset != 0 || utf8.RuneCountInString(rv.Tape) != rv.TapeChars {
		t.Fatalf("a %d-char tape under the chunk size must come whole: got %d chars, nextOffset %d", rv.TapeChars, utf8.RuneCountInString(rv.Tape), rv.NextOffset)
	}
	if len(rv.Goal) == 0 || rv.Goal[0].Text != firstGoal || rv.Goal[0].Origin != (Origin{Generation: 1, Session: "s", Seq: 1}) {
		t.Fatalf("goal: %s", describe(rv.Goal))
	}
	if len(rv.Constraints) == 0 || rv.Constraints[0].Origin.Seq != 1 {
		t.Fatalf("constraints: %s", describe(rv.Constraints))
	}
	mustContain(t, "next", rv.Next, "graft_commit", rv.PreparedID, rv.TapeHash, "show this review to the user")
	stored, err := f.svc.PreparedReview(rv.PreparedID)
	if err != nil {
		t.Fatal(err)
	}
	if stored.Tape != rv.Tape || stored.TapeHash != rv.TapeHash {
		t.Fatalf("the tool's review differs from the stored one")
	}

	c := f.commit(rv)
	if c.Source != "s" || c.TargetID != "s.g2" || c.Generation != 2 || c.TapeHash != rv.TapeHash || len(c.Notes) != 0 || c.DriftCheck != "sealed" {
		t.Fatalf("commit: %s", describe(c))
	}
	mustContain(t, "commit next", c.Next, "s.g2", "graft_revert")

	// The retired source stays readable.
	ev := ok[RecallOutput](f, ToolRecall, map[string]any{"session": "s", "seq": 1})
	if ev.Type != session.TypeUserMessage || !ev.HumanInstruction || ev.Content != firstGoal || ev.ContentField != "text" || ev.NextOffset != 0 {
		t.Fatalf("recall s 1: %s", describe(ev))
	}
	// The target starts with its origin, which hands the constraints down.
	origin := ok[RecallOutput](f, ToolRecall, map[string]any{"session": "s.g2", "seq": 1})
	if origin.Type != session.TypeGraftOrigin || origin.Parent != "s" || origin.Generation != 2 || origin.TapeHash != rv.TapeHash || origin.ParentBoundary != boundarySeq {
		t.Fatalf("recall s.g2 1: %s", describe(origin))
	}
	if len(origin.InheritedConstraints) == 0 || origin.InheritedConstraints[0].Origin.Session != "s" {
		t.Fatalf("origin hands down no constraints: %s", describe(origin.InheritedConstraints))
	}
	// and the person's other instructions (inherit.said).
	if len(origin.InheritedSaid) != 1 || origin.InheritedSaid[0].Text != secondOrder || origin.InheritedSaid[0].Origin != (Origin{Generation: 1, Session: "s", Seq: boundarySeq}) {
		t.Fatalf("origin hands down %s, want the second instruction with its origin", describe(origin.InheritedSaid))
	}
	// and the assistant's newest messages, not the step that announced a call (inherit.messages).
	if m := origin.InheritedMessages; len(m) != 1 || m[0].Text != "Working on the CSV export now." || m[0].Origin != (Origin{Generation: 1, Session: "s", Seq: 7}) {
		t.Fatalf("origin hands down the messages %s, want the last one with its origin", describe(m))
	}

	st := ok[StatusOutput](f, ToolStatus, map[string]any{})
	if src := row(t, st, "s"); src.State != "retired" || src.Target != "s.g2" || src.Head != "s.g2" {
		t.Fatalf("status of s: %s", describe(src))
	}
	if tgt := row(t, st, "s.g2"); tgt.State != "active" || tgt.Parent != "s" || tgt.Generation != 2 {
		t.Fatalf("status of s.g2: %s", describe(tgt))
	}
	if len(st.Pending) != 0 || st.StartupRecovery == nil || st.StartupRecovery.Scanned != 0 {
		t.Fatalf("status: pending %v, startup %v", st.Pending, st.StartupRecovery)
	}

	r := ok[RevertOutput](f, ToolRevert, map[string]any{"target": "s.g2"})
	if r.Source != "s" || r.Target != "s.g2" || r.Reverts != origin.Txn || r.TxnID == "" || r.ExtraEvents != 0 {
		t.Fatalf("revert (graft txn %s): %s", origin.Txn, describe(r))
	}
	st = ok[StatusOutput](f, ToolStatus, map[string]any{})
	if src := row(t, st, "s"); src.State != "active" || src.Head != "s" {
		t.Fatalf("status of s after revert: %s", describe(src))
	}
	if tgt := row(t, st, "s.g2"); tgt.State != "abandoned" || tgt.Head != "s" {
		t.Fatalf("status of s.g2 after revert: %s", describe(tgt))
	}
}

func TestPrepareTapeCursor(t *testing.T) {
	const chunkChars = 700
	f := newFixture(t, Options{ChunkChars: chunkChars}, graft.Options{})
	rv := f.prepare(nil)
	if rv.TapeChars <= 2*chunkChars {
		t.Fatalf("the tape (%d chars) is too short to test paging by %d", rv.TapeChars, chunkChars)
	}
	if utf8.RuneCountInString(rv.Tape) != chunkChars || rv.NextOffset != chunkChars {
		t.Fatalf("first chunk: %d chars, nextOffset %d; want %d, %d", utf8.RuneCountInString(rv.Tape), rv.NextOffset, chunkChars, chunkChars)
	}
	mustContain(t, "next of a cut tape", rv.Next, fmt.Sprintf("offset=%d", chunkChars), rv.PreparedID, "graft_commit")
	whole := rv.Tape
	for off, pages := rv.NextOffset, 1; off != 0; pages++ {
		if pages > rv.TapeChars/chunkChars+1 {
			t.Fatalf("paging does not end after %d pages", pages)
		}
		page := f.prepare(map[string]any{"preparedId": rv.PreparedID, "offset": off})
		if page.TapeOffset != off || page.PreparedID != rv.PreparedID || page.TapeHash != rv.TapeHash {
			t.Fatalf("page at %d: %s", off, describe(page))
		}
		whole += page.Tape
		off = page.NextOffset
	}
	stored, err := f.svc.PreparedReview(rv.PreparedID)
	if err != nil {
		t.Fatal(err)
	}
	if whole != stored.Tape {
		t.Fatalf("the pages do not add up to the tape: %d chars vs %d", utf8.RuneCountInString(whole), utf8.RuneCountInString(stored.Tape))
	}
	// Paging reads the stored review: no new review, and still committable.
	if c := f.commit(rv); c.TapeHash != rv.TapeHash {
		t.Fatalf("commit after paging: %s", describe(c))
	}

	f.fails(ToolPrepare, map[string]any{"preparedId": rv.PreparedID, "offset": rv.TapeChars}, "invalid_input")
	f.fails(ToolPrepare, map[string]any{"source": "s", "offset": 5}, "invalid_input")
	// A stored review's options are fixed: any option beside preparedId is refused.
	for _, opt := range []map[string]any{{"tier": "B"}, {"recentTurns": 2}, {"autoTier": true}, {"budget": 8000}, {"allowReslice": true}} {
		opt["preparedId"] = rv.PreparedID
		f.fails(ToolPrepare, opt, "invalid_input")
	}
	f.fails(ToolPrepare, map[string]any{"preparedId": rv.PreparedID, "source": "other"}, "invalid_input")
	f.fails(ToolPrepare, map[string]any{}, "invalid_input")
}

func TestRecallCursor(t *testing.T) {
	f := newFixture(t, Options{}, graft.Options{})
	first := ok[RecallOutput](f, ToolRecall, map[string]any{"session": "s", "seq": bigSeq})
	total := utf8.RuneCountInString(bigOutput)
	if first.ContentField != "tool.output" || first.ToolName != "Read" || first.ToolCallID != "c1" || first.ToolFailed {
		t.Fatalf("recall of the tool result: %s", describe(first))
	}
	if first.ContentChars != total || utf8.RuneCountInString(first.Content) != DefaultChunkChars || first.NextOffset != DefaultChunkChars {
		t.Fatalf("first chunk: %d of %d chars, nextOffset %d", utf8.RuneCountInString(first.Content), first.ContentChars, first.NextOffset)
	}
	whole, pages := first.Content, 1
	for off := first.NextOffset; off != 0; pages++ {
		page := ok[RecallOutput](f, ToolRecall, map[string]any{"session": "s", "seq": bigSeq, "offset": off})
		if page.Offset != off || !utf8.ValidString(page.Content) {
			t.Fatalf("page at %d: offset %d, valid UTF-8 %v", off, page.Offset, utf8.ValidString(page.Content))
		}
		whole += page.Content
		off = page.NextOffset
	}
	if whole != bigOutput {
		t.Fatalf("the chunks do not add up to the output (%d vs %d chars)", utf8.RuneCountInString(whole), total)
	}
	if want := (total + DefaultChunkChars - 1) / DefaultChunkChars; pages != want {
		t.Fatalf("%d pages, want %d", pages, want)
	}
	call := ok[RecallOutput](f, ToolRecall, map[string]any{"session": "s", "seq": 3})
	if call.ContentField != "tool.input" || call.Content != `{"path":"report.go"}` {
		t.Fatalf("recall of the tool call: %s", describe(call))
	}
	todo := ok[RecallOutput](f, ToolRecall, map[string]any{"session": "s", "seq": 5})
	if len(todo.Todos) != 2 || todo.Todos[1].Status != session.TodoPending || todo.ContentField != "" || todo.Content != "" {
		t.Fatalf("recall of the todo list: %s", describe(todo))
	}
	f.fails(ToolRecall, map[string]any{"session": "s", "seq": bigSeq, "offset": total}, "invalid_input")
}

func TestErrors(t *testing.T) {
	t.Run("unknown preparedId", func(t *testing.T) {
		f := newFixture(t, Options{}, graft.Options{})
		msg := f.fails(ToolCommit, map[string]any{"preparedId": "prep-nope", "tapeHash": "x"}, "unknown_prepared")
		mustContain(t, "error", msg, "graft_prepare")
		f.fails(ToolPrepare, map[string]any{"preparedId": "prep-nope"}, "unknown_prepared")
	})
	t.Run("expired", func(t *testing.T) {
		f := newFixture(t, Options{}, graft.Options{})
		rv := f.prepare(nil)
		f.clock.Add(graft.DefaultTTL + time.Minute)
		msg := f.fails(ToolCommit, map[string]any{"preparedId": rv.PreparedID, "tapeHash": rv.TapeHash}, "expired_prepared")
		mustContain(t, "error", msg, "call graft_prepare again")
	})
	t.Run("host", func(t *testing.T) {
		// Issue 25, item 3: host names the host the work goes on in; an
		// unknown one is the caller's mistake, and a source that lives in
		// no host session has none to hand off (nothing is committed).
		f := newFixture(t, Options{}, graft.Options{})
		rv := f.prepare(nil)
		f.fails(ToolCommit, map[string]any{"preparedId": rv.PreparedID, "tapeHash": rv.TapeHash, "host": "emacs"}, "invalid_input")
		msg := f.fails(ToolCommit, map[string]any{"preparedId": rv.PreparedID, "tapeHash": rv.TapeHash, "host": "codex"}, "invalid_options")
		mustContain(t, "error", msg, "lives in no host session", "graft export codex")
		f.commit(rv) // the review was not used up
	})
	t.Run("used", func(t *testing.T) {
		f := newFixture(t, Options{}, graft.Options{})
		rv := f.prepare(nil)
		f.commit(rv)
		f.fails(ToolCommit, map[string]any{"preparedId": rv.PreparedID, "tapeHash": rv.TapeHash}, "used_prepared")
	})
	t.Run("hash mismatch", func(t *testing.T) {
		f := newFixture(t, Options{}, graft.Options{})
		rv := f.prepare(nil)
		msg := f.fails(ToolCommit, map[string]any{"preparedId": rv.PreparedID, "tapeHash": rv.TapeHash + "0"}, "hash_mismatch")
		mustContain(t, "error", msg, "tapeHash exactly as graft_prepare returned it")
		// Nothing was written: the same review still commits.
		f.commit(rv)
	})
	t.Run("missing arguments", func(t *testing.T) {
		f := newFixture(t, Options{}, graft.Options{})
		f.fails(ToolCommit, map[string]any{"preparedId": "prep-x", "tapeHash": ""}, "invalid_input")
		f.fails(ToolRecall, map[string]any{"session": "", "seq": 1}, "invalid_input")
		f.fails(ToolRevert, map[string]any{"target": ""}, "invalid_input")
	})
	t.Run("boundary drift after a human message", func(t *testing.T) {
		f := newFixture(t, Options{}, graft.Options{})
		rv := f.prepare(nil)
		f.appendEvents("s", human("Stop, do the PDF export first."))
		msg := f.fails(ToolCommit, map[string]any{"preparedId": rv.PreparedID, "tapeHash": rv.TapeHash}, "boundary_drift")
		mustContain(t, "drift", msg, "new user message arrived at seq 8", "call graft_prepare again")
		st := ok[StatusOutput](f, ToolStatus, map[string]any{"session": "s"})
		if r := row(t, st, "s"); r.State != "active" || r.Target != "" {
			t.Fatalf("a refused commit changed the source: %s", describe(r))
		}
		// A new review commits.
		again := f.prepare(nil)
		if again.BoundarySeq != 8 {
			t.Fatalf("new review's boundary %d, want 8", again.BoundarySeq)
		}
		f.commit(again)
	})
	t.Run("open turn grew: commit with a note", func(t *testing.T) {
		f := newFixture(t, Options{}, graft.Options{})
		rv := f.prepare(nil)
		f.appendEvents("s", assistant("The CSV writer is done; now the tests."))
		c := f.commit(rv)
		if len(c.Notes) != 1 || !strings.Contains(c.Notes[0], "open-turn-carryover changed") || c.TapeHash == rv.TapeHash {
			t.Fatalf("commit after growth: %s", describe(c))
		}
		mustContain(t, "next", c.Next, "tell the user the notes")
	})
	t.Run("target exists", func(t *testing.T) {
		f := newFixture(t, Options{}, graft.Options{})
		f.appendEvents("other", human("another session"))
		rv := f.prepare(nil)
		msg := f.fails(ToolCommit, map[string]any{"preparedId": rv.PreparedID, "tapeHash": rv.TapeHash, "target": "other"}, "target_exists")
		mustContain(t, "error", msg, "pass another target")
	})
	t.Run("already grafted", func(t *testing.T) {
		f := newFixture(t, Options{}, graft.Options{})
		f.commit(f.prepare(nil))
		f.fails(ToolPrepare, map[string]any{"source": "s"}, "already_grafted")
		re := f.prepare(map[string]any{"source": "s", "allowReslice": true})
		if !re.AllowReslice || len(re.Warnings) == 0 {
			t.Fatalf("re-slice review: %s", describe(re))
		}
	})
	t.Run("bad options and ids", func(t *testing.T) {
		f := newFixture(t, Options{}, graft.Options{})
		f.fails(ToolPrepare, map[string]any{"source": "s", "tier": "Z"}, "invalid_options")
		f.fails(ToolPrepare, map[string]any{"source": "s", "budget": 10}, "invalid_options")
		f.fails(ToolPrepare, map[string]any{"source": "../etc"}, "invalid_id")
		f.fails(ToolPrepare, map[string]any{"source": "nobody"}, "not_found")
		f.fails(ToolStatus, map[string]any{"session": "nobody"}, "not_found")
		f.fails(ToolStatus, map[string]any{"session": "a/b"}, "invalid_id")
	})
	t.Run("revert of a non-graft", func(t *testing.T) {
		f := newFixture(t, Options{}, graft.Options{})
		msg := f.fails(ToolRevert, map[string]any{"target": "s"}, "not_live")
		mustContain(t, "error", msg, "not made by a graft")
		f.fails(ToolRevert, map[string]any{"target": "nobody"}, "not_found")
	})
	t.Run("revert with new events needs force", func(t *testing.T) {
		f := newFixture(t, Options{}, graft.Options{})
		c := f.commit(f.prepare(nil))
		f.appendEvents(c.TargetID, human("continue in the new session"))
		msg := f.fails(ToolRevert, map[string]any{"target": c.TargetID}, "has_new_events")
		mustContain(t, "error", msg, "force=true", "ask the user")
		r := ok[RevertOutput](f, ToolRevert, map[string]any{"target": c.TargetID, "force": true})
		if r.ExtraEvents != 1 {
			t.Fatalf("forced revert: %s", describe(r))
		}
		f.fails(ToolRevert, map[string]any{"target": c.TargetID}, "not_live")
	})
	t.Run("recall of a missing seq", func(t *testing.T) {
		f := newFixture(t, Options{}, graft.Options{})
		msg := f.fails(ToolRecall, map[string]any{"session": "s", "seq": 99}, "no_such_seq")
		mustContain(t, "error", msg, "1..7")
		f.fails(ToolRecall, map[string]any{"session": "s", "seq": 0}, "no_such_seq")
		f.fails(ToolRecall, map[string]any{"session": "nobody", "seq": 1}, "not_found")
	})
	t.Run("unknown tool is a protocol error", func(t *testing.T) {
		f := newFixture(t, Options{}, graft.Options{})
		_, err := f.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "graft_nope", Arguments: map[string]any{}})
		if err == nil || !strings.Contains(err.Error(), "graft_nope") {
			t.Fatalf("unknown tool: err %v, want a protocol error naming it", err)
		}
	})
	t.Run("mistyped arguments are a tool error", func(t *testing.T) {
		f := newFixture(t, Options{}, graft.Options{})
		res := f.call(ToolRecall, map[string]any{"session": "s", "seq": "one"})
		if !res.IsError || !strings.Contains(text(res), "seq") {
			t.Fatalf("seq as a string: IsError %v, %q", res.IsError, text(res))
		}
	})
}

// errHookPanic is what the test hook panics with, to find it in the message.
var errHookPanic = errors.New("hook panic for the test")

func TestPanicBecomesToolError(t *testing.T) {
	armed := true
	f := newFixture(t, Options{}, graft.Options{Hook: func(p txn.Point) {
		if armed && p == txn.CommitJournalPrepared {
			panic(errHookPanic)
		}
	}})
	rv := f.prepare(nil)
	msg := f.fails(ToolCommit, map[string]any{"preparedId": rv.PreparedID, "tapeHash": rv.TapeHash}, "internal_error")
	mustContain(t, "panic", msg, "graft_commit panicked", errHookPanic.Error(), "graft_status")
	// The server is alive, and the cut-short transaction is visible.
	st := ok[StatusOutput](f, ToolStatus, map[string]any{})
	if len(st.Pending) != 1 || st.Pending[0].Source != "s" || st.Pending[0].Kind != "graft" {
		t.Fatalf("pending after the panic: %s", describe(st.Pending))
	}
	if r := row(t, st, "s"); r.State != "active" {
		t.Fatalf("source after the panic: %s", describe(r))
	}
	// Recovery resolves it; then the same review commits.
	armed = false
	rep, err := f.svc.Recover(context.Background())
	if err != nil || rep.RolledBack != 1 {
		t.Fatalf("recover: %+v, %v", rep, err)
	}
	if c := f.commit(rv); c.TargetID == "" {
		t.Fatalf("commit after recovery: %s", describe(c))
	}
}

// A crashed commit in another process is rolled back by the scan the
// server's service ran at start-up, and graft_status shows that scan.
func TestStartupRecoveryInStatus(t *testing.T) {
	home := t.TempDir()
	clk := newClock()
	crashing, err := graft.Open(home, graft.Options{Now: clk.Now, Hook: func(p txn.Point) {
		if p == txn.CommitTargetWritten {
			panic(errHookPanic)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := crashing.Append("s", seedEvents()); err != nil {
		t.Fatal(err)
	}
	rv, err := crashing.Prepare(context.Background(), "s", graft.PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if v := recover(); v != errHookPanic {
				t.Fatalf("the crashing commit did not stop at the hook: %v", v)
			}
		}()
		res, err := crashing.Commit(context.Background(), rv.PreparedID, rv.TapeHash, "")
		t.Fatalf("commit ran past the hook: %v, %v", res, err)
	}()

	svc, err := graft.Open(home, graft.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, svc, Options{})
	st := okOn[StatusOutput](t, cs, ToolStatus, map[string]any{})
	sr := st.StartupRecovery
	if sr == nil || sr.Scanned != 1 || sr.RolledBack != 1 || len(sr.Leftovers) != 1 || sr.Leftovers[0] != "s.g2" || sr.Error != "" {
		t.Fatalf("startup recovery: %s", describe(sr))
	}
	if st.LastRecovery == nil || st.LastRecovery.RolledBack != 1 || st.LastRecovery.At == "" {
		t.Fatalf("last recovery: %s", describe(st.LastRecovery))
	}
	if len(st.Pending) != 0 || len(st.Leftovers) != 1 || st.Leftovers[0].Target != "s.g2" {
		t.Fatalf("status after recovery: pending %v leftovers %v", st.Pending, st.Leftovers)
	}
	if r := row(t, st, "s.g2"); r.State != "abandoned" && r.State != "uncommitted" {
		t.Fatalf("the leftover target: %s", describe(r))
	}
	// The next review of the source names the leftover.
	again := okOn[PrepareOutput](t, cs, ToolPrepare, map[string]any{"source": "s"})
	if len(again.Leftovers) != 1 || again.Leftovers[0].Target != "s.g2" {
		t.Fatalf("review after recovery: leftovers %s", describe(again.Leftovers))
	}
}

func TestStatusPaging(t *testing.T) {
	f := newFixture(t, Options{PageSessions: 2}, graft.Options{})
	f.appendEvents("a", human("a"))
	f.appendEvents("b", human("b"))
	p1 := ok[StatusOutput](f, ToolStatus, map[string]any{})
	if p1.SessionsTotal != 3 || len(p1.Sessions) != 2 || p1.NextOffset != 2 {
		t.Fatalf("page 1: total %d, %d rows, next %d", p1.SessionsTotal, len(p1.Sessions), p1.NextOffset)
	}
	p2 := ok[StatusOutput](f, ToolStatus, map[string]any{"offset": p1.NextOffset})
	if len(p2.Sessions) != 1 || p2.NextOffset != 0 || p2.Offset != 2 {
		t.Fatalf("page 2: %d rows, next %d", len(p2.Sessions), p2.NextOffset)
	}
	seen := map[string]bool{}
	for _, r := range append(p1.Sessions, p2.Sessions...) {
		seen[r.ID] = true
	}
	if !seen["a"] || !seen["b"] || !seen["s"] {
		t.Fatalf("pages list %v", seen)
	}
	one := ok[StatusOutput](f, ToolStatus, map[string]any{"session": "b"})
	if len(one.Sessions) != 1 || one.Sessions[0].ID != "b" || one.SessionsTotal != 1 {
		t.Fatalf("filtered: %s", describe(one.Sessions))
	}
	f.fails(ToolStatus, map[string]any{"offset": 3}, "invalid_input")
}

// Long goal texts are cut, citing the seq that holds the whole message.
func TestReviewClipsLongQuotes(t *testing.T) {
	f := newFixture(t, Options{}, graft.Options{})
	long := "Goal: " + strings.Repeat("очень длинная задача ", 400)
	f.appendEvents("long", human(long), assistant("ok"))
	rv := f.prepare(map[string]any{"source": "long"})
	if len(rv.Goal) == 0 {
		t.Fatal("no goal")
	}
	g := rv.Goal[0].Text
	// The head and the end are kept (a long message is mostly pasted
	// context; what the person asks stands at its end).
	r := []rune(long)
	head, end := string(r[:quoteChars*2/5]), strings.TrimSpace(string(r[len(r)-quoteChars/2:]))
	if utf8.RuneCountInString(g) >= utf8.RuneCountInString(long) || !strings.HasPrefix(g, head) || !strings.HasSuffix(g, end) {
		t.Fatalf("goal not cut to its head and end at %d chars: %d chars: %q … %q", quoteChars, utf8.RuneCountInString(g), string([]rune(g)[:60]), string([]rune(g)[utf8.RuneCountInString(g)-60:]))
	}
	// The tape cut it, naming the seq to recall; the quote's origin names
	// the session.
	mustContain(t, "cut goal", g, "[cut: recall seq=1]")
	if o := rv.Goal[0].Origin; o.Session != "long" || o.Seq != 1 {
		t.Fatalf("goal origin %+v, want session long seq 1", o)
	}
}

func TestChunk(t *testing.T) {
	s := "aж行b" // 1, 2, 3, 1 bytes
	for _, tc := range []struct {
		offset, limit int
		text          string
		next          int
	}{
		{0, 2, "aж", 2},
		{2, 2, "行b", 0},
		{1, 10, "ж行b", 0},
		{3, 1, "b", 0},
	} {
		c, err := pageOf(s, tc.offset, tc.limit)
		if err != nil || c.Text != tc.text || c.Next != tc.next || c.Total != 4 {
			t.Errorf("pageOf(%q, %d, %d) = %+v, %v; want %q next %d", s, tc.offset, tc.limit, c, err, tc.text, tc.next)
		}
	}
	for _, off := range []int{-1, 4, 5} {
		if _, err := pageOf(s, off, 2); !errors.Is(err, errInvalidInput) {
			t.Errorf("pageOf at %d: %v, want invalid input", off, err)
		}
	}
	if c, err := pageOf("", 0, 5); err != nil || c.Text != "" || c.Next != 0 {
		t.Errorf("empty text: %+v, %v", c, err)
	}
	if got := clip("abcdef", 3, "read more"); got != "abc … [cut: 3 more characters; read more]" {
		t.Errorf("clip: %q", got)
	}
	if got := clip("abc", 3, "x"); got != "abc" {
		t.Errorf("clip of a short text: %q", got)
	}
}

// The text of a tool error is exactly code, message, next step.
func TestToolErrorText(t *testing.T) {
	err := asToolError(ToolCommit, &txn.DriftError{Source: "s", PreparedBoundary: 6, Boundary: 812})
	got := err.Error()
	if !strings.HasPrefix(got, "boundary_drift: boundary drifted: a new user message arrived at seq 812") || !strings.HasSuffix(got, "; next: call graft_prepare again and show the new review to the user before committing") {
		t.Fatalf("drift error text: %q", got)
	}
	if !errors.Is(err, txn.ErrBoundaryDrift) {
		t.Fatal("the tool error does not wrap the drift error")
	}
}

// Every code a tool can return comes with its own next step, in tool terms:
// a code graft adds later fails here until it gets one. The codes only the
// CLI's audit, import and recall --origin return are left out.
func TestEveryCodeHasItsOwnNextStep(t *testing.T) {
	cliOnly := map[graft.Code]bool{"audit_failed": true, "source_rewritten": true, "source_shortened": true,
		"session_diverged": true, "import_busy": true, "no_origin": true}
	generic := nextStep(ToolStatus, "a code nobody has")
	codes := []graft.Code{CodeInvalidInput, CodeNoSuchSeq}
	for _, c := range graft.ExitCodes() {
		codes = append(codes, c.Code)
	}
	checked := 0
	for _, code := range codes {
		if cliOnly[code] || code == "error" || code == "usage" {
			continue
		}
		checked++
		next := nextStep(ToolPrepare, code)
		if next == generic {
			t.Errorf("code %s has no next step of its own (it gets %q)", code, next)
		}
		if strings.Contains(next, "--") {
			t.Errorf("code %s: next step %q names a CLI flag; agents call tools", code, next)
		}
	}
	if checked < 25 {
		t.Fatalf("only %d codes checked: graft.ExitCodes lists fewer codes than expected", checked)
	}
}

// Recall of a graft/origin shows the person's answers handed down as
// answers, with the option a short one picks, and where the work was
// done.
func TestRecallOriginMarksAnAnswerAndNamesThePlace(t *testing.T) {
	f := newFixture(t, Options{}, graft.Options{})
	first := human("Install the integration.")
	first.Meta = map[string]string{"cwd": "/repo", "gitBranch": "hotfix", "gitCommit": "2ac98e0c1d2e3f405162738495a6b7c8d9e0f1a2"}
	f.appendEvents("q", first,
		session.Event{Type: session.TypeToolCall, Source: session.Source{Kind: session.KindAssistant}, Tool: &session.Tool{Name: "AskUserQuestion", CallID: "a1", Input: json.RawMessage(`{"questions":[]}`)}},
		session.Event{Type: session.TypeToolResult, Source: session.Source{Kind: session.KindTool}, Tool: &session.Tool{Name: "AskUserQuestion", CallID: "a1", OK: okPtr(true), Output: `User has answered your questions: "Hooks?"="Leave them alone".`}},
		assistant("Leaving the hooks alone. Next?\n\n1. Add the tests\n2. Ship it"),
		human("2"),
		assistant("Shipping."))
	f.commit(f.prepare(map[string]any{"source": "q"}))
	origin := ok[RecallOutput](f, ToolRecall, map[string]any{"session": "q.g2", "seq": 1})
	if s := origin.InheritedSaid; len(s) != 2 || !s[0].Answer || !strings.Contains(s[0].Text, "Leave them alone") || s[0].Origin.Seq != 3 {
		t.Errorf("origin hands down %s, want the answer at seq 3 marked as one", describe(s))
	} else if p := s[1].Picks; s[1].Text != "2" || p == nil || p.From != 4 || len(p.Lines) != 1 || p.Lines[0] != "2. Ship it" {
		t.Errorf("origin hands down %s, want the answer 2 of seq 5 with the option it picks in the message of seq 4", describe(s[1]))
	}
	if p := origin.InheritedPlace; p == nil || p.Cwd != "/repo" || p.GitBranch != "hotfix" || p.GitCommit != "2ac98e0c1d2e3f405162738495a6b7c8d9e0f1a2" {
		t.Errorf("origin names the place %s, want /repo on hotfix from 2ac98e0c1d2e", describe(p))
	}
}

// Recall of a graft/origin shows what the work left as the next
// generation got it: the command's text its first instruction ran, the
// plan the person approved in plan mode, the todo list left, the
// failed calls not fixed and those worked around, and the commit made.
func TestRecallOriginShowsThePlanTheTodosAndTheFailuresLeft(t *testing.T) {
	f := newFixture(t, Options{}, graft.Options{})
	f.appendEvents("q", human("/opsx:explore the exporter"),
		session.Event{Type: session.TypeUserMessage, Source: session.Source{Kind: session.KindSkill, Name: "skill"}, Text: "Autonomous research mode.\n\nYou must NEVER write code in explore mode."},
		session.Event{Type: session.TypeToolCall, Source: session.Source{Kind: session.KindAssistant}, Tool: &session.Tool{Name: "ExitPlanMode", CallID: "p1", Input: json.RawMessage(`{"plan":"# Plan: the CSV exporter\n\n- Add export.go."}`)}},
		session.Event{Type: session.TypeToolResult, Source: session.Source{Kind: session.KindTool}, Tool: &session.Tool{Name: "ExitPlanMode", CallID: "p1", OK: okPtr(true), Output: "User has approved your plan. You can now start coding."}},
		session.Event{Type: session.TypeTodoWrite, Source: session.Source{Kind: session.KindAssistant}, Todos: []session.Todo{{ID: "1", Content: "Add export.go", Status: "completed"}, {ID: "2", Content: "Test the exporter", Status: "in_progress"}}},
		session.Event{Type: session.TypeToolCall, Source: session.Source{Kind: session.KindAssistant}, Tool: &session.Tool{Name: "Bash", CallID: "b1", Input: json.RawMessage(`{"command":"npm run build"}`)}},
		session.Event{Type: session.TypeToolResult, Source: session.Source{Kind: session.KindTool}, Tool: &session.Tool{Name: "Bash", CallID: "b1", OK: okPtr(false), Output: "TypeError: marked.parse is not a function"}},
		session.Event{Type: session.TypeToolCall, Source: session.Source{Kind: session.KindAssistant}, Tool: &session.Tool{Name: "Bash", CallID: "c1", Input: json.RawMessage(`{"command":"git commit -m wip"}`)}},
		session.Event{Type: session.TypeToolResult, Source: session.Source{Kind: session.KindTool}, Tool: &session.Tool{Name: "Bash", CallID: "c1", OK: okPtr(false), Output: "error: gpg failed to sign the data:"}},
		session.Event{Type: session.TypeToolCall, Source: session.Source{Kind: session.KindAssistant}, Tool: &session.Tool{Name: "Bash", CallID: "c2", Input: json.RawMessage(`{"command":"git commit --no-gpg-sign -m wip"}`)}},
		session.Event{Type: session.TypeToolResult, Source: session.Source{Kind: session.KindTool}, Tool: &session.Tool{Name: "Bash", CallID: "c2", OK: okPtr(true), Output: "[main 1a2b3c4] wip"}},
		assistant("The build fails; testing the exporter next."))
	f.commit(f.prepare(map[string]any{"source": "q"}))
	origin := ok[RecallOutput](f, ToolRecall, map[string]any{"session": "q.g2", "seq": 1})
	if g := origin.InheritedGoal; g == nil || g.Command == nil || g.Command.At != 2 || g.Command.First != "Autonomous research mode." || !strings.Contains(g.Command.Rule, "NEVER write code") {
		t.Errorf("origin hands down the first goal %s, want it with its command's text of seq 2", describe(g))
	}
	if p := origin.InheritedApprovedPlan; p == nil || !strings.Contains(p.Text, "the CSV exporter") || p.Origin.Seq != 3 || p.Origin.Session != "q" {
		t.Errorf("origin hands down the plan %s, want the one proposed at seq 3", describe(p))
	}
	if l := origin.InheritedTodos; l == nil || len(l.Items) != 2 || l.Items[1].Status != "in_progress" || l.Origin.Seq != 5 {
		t.Errorf("origin hands down the todos %s, want the list of seq 5", describe(l))
	}
	if fs := origin.InheritedFailures; len(fs) != 1 || fs[0].What != "npm run build" || fs[0].Origin.Seq != 7 || !strings.Contains(fs[0].Text, "marked.parse is not a function") {
		t.Errorf("origin hands down the failures %s, want the build's of seq 7", describe(fs))
	}
	if ws := origin.InheritedWorkarounds; len(ws) != 1 || ws[0].Origin.Seq != 9 || !strings.Contains(ws[0].Text, "fixed by seq=11: git commit --no-gpg-sign -m wip") {
		t.Errorf("origin hands down the workarounds %s, want the commit's of seq 9", describe(ws))
	}
	if ms := origin.InheritedMilestones; len(ms) != 1 || ms[0].Origin.Seq != 11 || ms[0].What != "git commit --no-gpg-sign -m wip" || !strings.Contains(ms[0].Text, "[main 1a2b3c4] wip") {
		t.Errorf("origin hands down the milestones %s, want the commit of seq 11", describe(ms))
	}
}

// A graft/origin's inherited texts are handed on at up to 6,000
// characters each; recall shows each by its head and end within
// maxInheritedRunes, the cut naming where the whole text is, so that one
// recall of seq 1 stays a bounded answer.
func TestRecallOriginBoundsTheTextsHandedDown(t *testing.T) {
	f := newFixture(t, Options{}, graft.Options{})
	long := "Migrate the tables. " + strings.Repeat("Keep every column name as it is. ", 150) + "Then run the tests."
	f.appendEvents("q", human("Write the exporter."), assistant("Written."), human(long), assistant("Migrating."))
	f.commit(f.prepare(map[string]any{"source": "q"}))
	origin := ok[RecallOutput](f, ToolRecall, map[string]any{"session": "q.g2", "seq": 1})
	if len(origin.InheritedSaid) != 1 {
		t.Fatalf("origin hands down %s, want the long instruction", describe(origin.InheritedSaid))
	}
	text := origin.InheritedSaid[0].Text
	if n := utf8.RuneCountInString(text); n > maxInheritedRunes+200 || !strings.HasPrefix(text, "Migrate the tables.") || !strings.HasSuffix(text, "Then run the tests.") || !strings.Contains(text, "graft_recall session q seq 3") {
		t.Errorf("the inherited instruction is shown in %d runes: %.200q … %.200q", n, text, text[max(0, len(text)-200):])
	}
}
