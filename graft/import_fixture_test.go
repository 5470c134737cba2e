package graft_test

import (
	"context"
	"github.com/graft-project/graft/internal/testfixtures"
	"strings"
	"testing"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/importer/claudecode"
	"github.com/graft-project/graft/session"
)

// Issue 8: the real 4d5611e5 transcript imported, prepared and committed.
// The goal quotes the human's first instruction, and no goal line or
// constraint comes from the compaction summary, the task notification or a
// tool result: every origin is re-read and must be a human instruction.
func TestRealTranscriptImportPrepareCommit(t *testing.T) {
	home := t.TempDir()
	svc, err := graft.Open(home, graft.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const id = "cc4d"
	if _, err := claudecode.Import(claudecode.Options{Store: svc.Store(), Home: home, Path: testfixtures.Path(t, "claude-code", "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"), ID: id}); err != nil {
		t.Fatalf("import: %v", err)
	}
	rv, err := svc.Prepare(context.Background(), id, graft.PrepareOptions{})
	if err != nil {
		t.Fatalf("prepare: %v", err)
	}
	const first = "Work on bead spotter-dov. Run bd show spotter-dov to see the issue details and bd ready to find available subtasks. Start with the first ready task."
	if len(rv.Goal) == 0 || !strings.HasPrefix(rv.Goal[0].Text, first) {
		t.Fatalf("goal[0] = %+v, want the first human instruction %q", rv.Goal, first)
	}
	if rv.TapeChars > 16000 {
		t.Errorf("tapeChars %d > 16000", rv.TapeChars)
	}
	origins := map[string]session.Origin{}
	for _, g := range rv.Goal {
		origins["goal "+g.Text] = g.Origin
	}
	for _, c := range rv.Constraints {
		origins["constraint "+c.Text] = c.Origin
		for _, o := range c.Also {
			origins["constraint (again) "+c.Text] = o
		}
	}
	for what, o := range origins {
		ev, err := svc.Recall(o.Session, o.Seq)
		if err != nil {
			t.Fatalf("%s: recall %v: %v", what, o, err)
		}
		if !ev.IsHumanInstruction() {
			t.Errorf("%s cites seq %d, a %s from %q, not a human instruction", what, o.Seq, ev.Type, ev.Source.Kind)
		}
		for _, bad := range []string{"<task-notification>", "This session is being continued from a previous conversation"} {
			if strings.Contains(ev.Text, bad) {
				t.Errorf("%s cites seq %d whose text holds %q", what, o.Seq, bad)
			}
		}
	}
	// The transcript does contain what must not leak: check the fixture has
	// them as non-human events, or the test above proves nothing.
	evs, _, err := svc.Store().ReadAll(id)
	if err != nil {
		t.Fatal(err)
	}
	var summary, notification, results int
	for _, ev := range evs {
		switch {
		case ev.Type == session.TypeToolResult:
			results++
		case ev.Type == session.TypeUserMessage && strings.Contains(ev.Text, "<task-notification>"):
			notification++
			if ev.IsHumanInstruction() {
				t.Errorf("seq %d: a task notification imported as human", ev.Seq)
			}
		case ev.Type == session.TypeUserMessage && ev.Source.Name == "compact-summary":
			summary++
			if ev.IsHumanInstruction() {
				t.Errorf("seq %d: the compaction summary imported as human", ev.Seq)
			}
		}
	}
	if summary == 0 || notification == 0 || results == 0 {
		t.Fatalf("fixture lost its traps: %d compaction summaries, %d task notifications, %d tool results", summary, notification, results)
	}

	res, err := svc.Commit(context.Background(), rv.PreparedID, rv.TapeHash, "")
	if err != nil {
		t.Fatalf("commit: %v", err)
	}
	st := svc.SessionState(res.TargetID)
	if st.State != string(session.StateActive) || st.Generation != 2 || st.Parent != id {
		t.Fatalf("target %s after commit: %+v", res.TargetID, st)
	}
	if src := svc.SessionState(id); src.State != string(session.StateRetired) || src.Target != res.TargetID {
		t.Fatalf("source after commit: %+v", src)
	}
	t.Logf("imported %d events; goal %d quotes, %d constraints; tape %d chars; committed into %s", len(evs), len(rv.Goal), len(rv.Constraints), rv.TapeChars, res.TargetID)
}
