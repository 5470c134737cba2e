package claudecode

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graft-project/graft/internal/testfixtures"
	"github.com/graft-project/graft/session"
)

// A message the person typed while the agent worked is a queue-operation
// enqueue. Delivered the ordinary way (dequeue) it comes back as a user
// line; removed from the queue (delivered inside the running turn, or
// taken back) it exists only in the enqueue record: the human's words all
// the same, imported at the remove with source.name "queued" (issue 23).
func TestQueuedMessages(t *testing.T) {
	lines := []string{
		`{"type":"user","uuid":"u1","timestamp":"2026-02-12T20:00:00.000Z","message":{"role":"user","content":"Work on bead spotter-dov."}}`,
		`{"type":"assistant","uuid":"a1","timestamp":"2026-02-12T20:00:01.000Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"bd ready"}}]}}`,
		`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-02-12T20:00:02.000Z","content":"new beads were added, tackle them too"}`,
		`{"type":"user","uuid":"u2","timestamp":"2026-02-12T20:00:03.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"3 ready"}]}}`,
		`{"type":"queue-operation","operation":"remove","timestamp":"2026-02-12T20:00:04.000Z"}`,
		// Host-made and command enqueues are not instructions.
		`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-02-12T20:00:05.000Z","content":"<task-notification>\n<task-id>b1</task-id>\n</task-notification>"}`,
		`{"type":"queue-operation","operation":"remove","timestamp":"2026-02-12T20:00:06.000Z"}`,
		`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-02-12T20:00:07.000Z","content":"/mcp"}`,
		`{"type":"queue-operation","operation":"remove","timestamp":"2026-02-12T20:00:08.000Z"}`,
		// Dequeued: the user line that follows is the human's, once.
		`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-02-12T20:00:09.000Z","content":"and run the tests"}`,
		`{"type":"queue-operation","operation":"dequeue","timestamp":"2026-02-12T20:00:10.000Z"}`,
		`{"type":"user","uuid":"u3","timestamp":"2026-02-12T20:00:11.000Z","message":{"role":"user","content":"and run the tests"}}`,
	}
	var got []string
	for _, ev := range importLines(t, "queued", lines) {
		if ev.IsHumanInstruction() {
			got = append(got, ev.Meta["line"]+" "+ev.Source.Name+" "+ev.Text)
		}
	}
	want := []string{"1  Work on bead spotter-dov.", "5 queued new beads were added, tackle them too", "12  and run the tests"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("human instructions:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// An enqueue still waiting when the import stops is held in the cursor and
// imported when the next run reads its remove.
func TestQueuedMessageAcrossRuns(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "q2.jsonl")
	first := `{"type":"user","uuid":"u1","timestamp":"2026-02-12T20:00:00.000Z","message":{"role":"user","content":"start"}}` + "\n" +
		`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-02-12T20:00:02.000Z","content":"don't touch the migrations"}` + "\n"
	if err := os.WriteFile(path, []byte(first), 0o600); err != nil {
		t.Fatal(err)
	}
	st, home := testfixtures.NewStore(t)
	if _, err := Import(Options{Store: st, Home: home, Path: path}); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"type":"queue-operation","operation":"remove","timestamp":"2026-02-12T20:00:04.000Z"}` + "\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Import(Options{Store: st, Home: home, Path: path}); err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, ev := range testfixtures.ReadSession(t, st, "q2") {
		if ev.IsHumanInstruction() {
			texts = append(texts, ev.Text)
		}
	}
	if len(texts) != 2 || texts[1] != "don't touch the migrations" {
		t.Fatalf("human instructions %q: want the queued one second", texts)
	}
	_ = session.TypeUserMessage
}

// A message still in the queue has reached no model yet: the enqueue is
// also imported as a system/event "queued-input" with its text, so that a
// handoff made before it is delivered carries it. Claude Code's popAll
// takes queued messages back into the prompt to be edited: a
// system/event "queue-popped" with the text, and the message leaves the
// queue (a later remove gives up another, not it).
func TestQueuedInputIsImportedAndPoppedTakesItBack(t *testing.T) {
	lines := []string{
		`{"type":"user","uuid":"u1","timestamp":"2026-01-22T19:30:00.000Z","message":{"role":"user","content":"Spawn sub-agents to write poems."}}`,
		`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-01-22T19:51:28.994Z","content":"is the 3rd tool still running?"}`,
		`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-01-22T19:51:49.343Z","content":"??"}`,
		`{"type":"queue-operation","operation":"popAll","timestamp":"2026-01-22T21:11:33.715Z","content":"is the 3rd tool still running?"}`,
		`{"type":"queue-operation","operation":"popAll","timestamp":"2026-01-22T21:11:33.717Z","content":"??"}`,
		`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-01-22T21:17:32.736Z","content":"are they still being written?"}`,
		`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-01-22T21:17:40.000Z","content":"<task-notification>\n<task-id>b1</task-id>\n</task-notification>"}`,
		// A background task's notice, as JSON: the host's, not the person's.
		`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-01-22T21:17:41.000Z","content":"{\"task_id\":\"b9f9f4e\",\"description\":\"Install Chakra UI\",\"task_type\":\"local_bash\"}"}`,
	}
	var got []string
	for _, ev := range importLines(t, "queued-input", lines) {
		switch {
		case ev.IsHumanInstruction():
			got = append(got, "human "+ev.Text)
		case ev.Type == session.TypeSystem && (ev.Source.Name == "queued-input" || ev.Source.Name == "queue-popped"):
			got = append(got, ev.Meta["line"]+" "+ev.Source.Name+" "+ev.Text)
		}
	}
	want := []string{
		"human Spawn sub-agents to write poems.",
		"2 queued-input is the 3rd tool still running?",
		"3 queued-input ??",
		"4 queue-popped is the 3rd tool still running?",
		"5 queue-popped ??",
		"6 queued-input are they still being written?",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The popped messages left the queue: a remove now gives up the one
	// still waiting, not the first popped.
	lines = append(lines, `{"type":"queue-operation","operation":"remove","timestamp":"2026-01-22T21:18:00.000Z"}`)
	var humans []string
	for _, ev := range importLines(t, "queued-input2", lines) {
		if ev.IsHumanInstruction() {
			humans = append(humans, ev.Text)
		}
	}
	if len(humans) != 2 || humans[1] != "are they still being written?" {
		t.Fatalf("human instructions %q: want the message still queued given up by the remove", humans)
	}
}
