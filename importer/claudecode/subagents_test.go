package claudecode

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/internal/testfixtures"
	"github.com/graft-project/graft/session"
)

// Issue 19, finding 9 b-d.

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// (b) A transcript whose name has no extension: its sub-agent directory
// would be inside the transcript itself, so it has none (the import used
// to fail on "subagents: not a directory").
func TestTranscriptWithoutExtension(t *testing.T) {
	st, home := testfixtures.NewStore(t)
	path := filepath.Join(t.TempDir(), "transcript")
	copyFile(t, filepath.Join(testfixtures.Path(t, "claude-code"), "short.jsonl"), path)
	sum, err := Import(Options{Store: st, Home: home, Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Session != "transcript" || sum.Appended == 0 || len(sum.SubSessions) != 0 {
		t.Fatalf("session %q, %d events, %d sub-sessions; want transcript, some events, none", sum.Session, sum.Appended, len(sum.SubSessions))
	}
}

// (c) Sub-agent file names: agent-x.jsonl and x.jsonl are two sessions; a
// name with a space or too long for an id gets a valid id of its own; the
// agent-<name> convention keeps its id.
func TestSubAgentIDsAreDistinctAndValid(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "main.jsonl")
	fixture := testfixtures.Path(t, "claude-code")
	copyFile(t, filepath.Join(fixture, "short.jsonl"), path)
	agent := filepath.Join(fixture, "8463c716-a2ea-4c14-9efa-87158ebd9f20", "subagents", "agent-acompact-f46190.jsonl")
	long := strings.Repeat("n", 140)
	names := []string{"agent-x.jsonl", "x.jsonl", "agent-a b.jsonl", "agent-a-b.jsonl", "agent-" + long + ".jsonl"}
	for _, n := range names {
		copyFile(t, agent, filepath.Join(dir, "main", "subagents", n))
	}
	subs, err := SubAgents(path, "main")
	if err != nil {
		t.Fatal(err)
	}
	if len(subs) != len(names) {
		t.Fatalf("%d sub-agents, want %d: %+v", len(subs), len(names), subs)
	}
	seen := map[string]string{}
	byFile := map[string]SubAgent{}
	for _, s := range subs {
		if err := session.ValidID(s.Session); err != nil {
			t.Errorf("%s: session %q: %v", s.Path, s.Session, err)
		}
		if other, dup := seen[s.Session]; dup {
			t.Errorf("%s and %s share the session %s", other, s.Path, s.Session)
		}
		seen[s.Session] = s.Path
		byFile[filepath.Base(s.Path)] = s
	}
	if s := byFile["agent-x.jsonl"]; s.Session != "main.agent-x" || s.Name != "x" {
		t.Errorf("agent-x.jsonl: %+v, want session main.agent-x, name x", s)
	}
	if s := byFile["x.jsonl"]; s.Session != "main.subagent-x" || s.Name != "x" {
		t.Errorf("x.jsonl: %+v, want session main.subagent-x", s)
	}
	if s := byFile["agent-a b.jsonl"]; !strings.HasPrefix(s.Session, "main.agent-a-b-") || s.Name != "a b" {
		t.Errorf("agent-a b.jsonl: %+v, want main.agent-a-b-<hash>", s)
	}
	st, home := testfixtures.NewStore(t)
	sum, err := Import(Options{Store: st, Home: home, Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.SubSessions) != len(names) {
		t.Fatalf("%d sub-sessions imported, want %d", len(sum.SubSessions), len(names))
	}
}

// (c) An --id so long that no sub-agent id fits: the transcript is still
// imported; each sub-agent is left out with a warning that says why.
func TestSubAgentThatCannotBeNamedDoesNotBlockTheImport(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "main.jsonl")
	fixture := testfixtures.Path(t, "claude-code")
	copyFile(t, filepath.Join(fixture, "short.jsonl"), path)
	copyFile(t, filepath.Join(fixture, "8463c716-a2ea-4c14-9efa-87158ebd9f20", "subagents", "agent-acompact-f46190.jsonl"), filepath.Join(dir, "main", "subagents", "agent-x.jsonl"))
	id := strings.Repeat("i", 125)
	st, home := testfixtures.NewStore(t)
	sum, err := Import(Options{Store: st, Home: home, Path: path, ID: id})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Appended == 0 || len(sum.SubSessions) != 0 {
		t.Fatalf("%d events, %d sub-sessions; want the transcript and no sub-session", sum.Appended, len(sum.SubSessions))
	}
	if sum.WarningCount != 1 || !strings.Contains(sum.Warnings[0], "agent-x.jsonl") || !strings.Contains(sum.Warnings[0], "shorter --id") {
		t.Fatalf("warnings %q: want one naming agent-x.jsonl and a shorter --id", sum.Warnings)
	}
}

// (d) A FIFO is refused without being opened for a blocking read: the
// import used to wait forever for a writer.
func TestFIFOIsRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "t.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	t.Cleanup(func() {
		// Release a reader stuck in open, if the import did open it.
		if f, err := os.OpenFile(fifo, os.O_RDWR, 0); err == nil {
			f.Close()
		}
	})
	st, home := testfixtures.NewStore(t)
	done := make(chan error, 1)
	go func() {
		_, err := Import(Options{Store: st, Home: home, Path: fifo})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, importer.ErrNotRegular) || !strings.Contains(err.Error(), fifo) {
			t.Fatalf("Import of a FIFO = %v, want ErrNotRegular naming it", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Import of a FIFO still blocked after 10 s")
	}
}

// Issue 19, finding 10: a TodoWrite status outside pending, in_progress
// and completed is imported as pending, the host's word kept in the
// content, with a warning (graft append refuses such a status).
func TestUnknownTodoStatusIsMapped(t *testing.T) {
	line := `{"type":"assistant","uuid":"a1","timestamp":"2026-11-30T10:00:00.000Z","sessionId":"s","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"TodoWrite","input":{"todos":[{"content":"x","status":"in_progress"},{"content":"y","status":"cancelled"}]}}]}}`
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, []byte(line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	st, home := testfixtures.NewStore(t)
	sum, err := Import(Options{Store: st, Home: home, Path: path})
	if err != nil {
		t.Fatal(err)
	}
	var todos []session.Todo
	for _, ev := range testfixtures.ReadSession(t, st, "t") {
		if ev.Type == session.TypeTodoWrite {
			todos = ev.Todos
		}
	}
	if len(todos) != 2 || todos[0].Status != session.TodoInProgress || todos[1].Status != session.TodoPending || todos[1].Content != "y [status: cancelled]" {
		t.Fatalf("todos %+v", todos)
	}
	if sum.WarningCount != 1 || !strings.Contains(sum.Warnings[0], `line 1: todo 2 status "cancelled" is not pending, in_progress or completed: imported as pending`) {
		t.Fatalf("warnings %q", sum.Warnings)
	}
}
