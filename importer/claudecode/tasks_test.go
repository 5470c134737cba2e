package claudecode

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/graft-project/graft/internal/testfixtures"
	"github.com/graft-project/graft/session"
)

// Claude Code 2.1.x tracks the work with TaskCreate and TaskUpdate
// instead of TodoWrite (the five truth-set transcripts of 2.1.39 to
// 2.1.45 that track tasks do): each call changes one task, and the list
// is the sum of them. The importer keeps that list as Claude Code itself
// rebuilds it from a transcript (the pinned 2.1.332 does so on resume): a
// TaskCreate adds its subject as pending once its result says "Task #N
// created successfully" (a failed one adds nothing); a TaskUpdate sets the
// status and subject it names, and "deleted" takes the task out. Each
// change is a todo/write of the whole list, as a TodoWrite is, so the tape
// shows the last list and what is unfinished. testdata/tasks.jsonl has the
// lines of those transcripts' shape.
func TestTaskToolsAreATodoList(t *testing.T) {
	st, home := testfixtures.NewStore(t)
	if _, err := Import(Options{Store: st, Home: home, Path: "testdata/tasks.jsonl", ID: "tasks"}); err != nil {
		t.Fatal(err)
	}
	got := todoLists(testfixtures.ReadSession(t, st, "tasks"))
	want := []todoList{
		{"3", []session.Todo{{ID: "1", Content: "Write the parser", Status: "pending"}}},
		{"5", []session.Todo{{ID: "1", Content: "Write the parser", Status: "pending"}, {ID: "2", Content: "Wire it into main", Status: "pending"}}},
		{"8", []session.Todo{{ID: "1", Content: "Write the parser", Status: "in_progress"}, {ID: "2", Content: "Wire it into main", Status: "pending"}}},
		{"11", []session.Todo{{ID: "1", Content: "Write the parser", Status: "in_progress"}, {ID: "2", Content: "Wire it into main", Status: "pending"}, {ID: "3", Content: "Document the format", Status: "pending"}}},
		{"12", []session.Todo{{ID: "1", Content: "Write the parser", Status: "in_progress"}, {ID: "2", Content: "Wire it into main", Status: "pending"}}},
		{"14", []session.Todo{{ID: "1", Content: "Write the TOML parser", Status: "completed"}, {ID: "2", Content: "Wire it into main", Status: "pending"}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("todo lists:\n got %+v\nwant %+v", got, want)
	}

	// Imported in two runs, cut between a create and its result, the list
	// is the same: the mapper's state carries the list and the create.
	data, err := os.ReadFile("testdata/tasks.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "live.jsonl")
	cut := 0
	for k := 0; k < 10; k++ { // through line 10: task #3's create, its result in the next run
		cut += indexNL(data[cut:]) + 1
	}
	if err := os.WriteFile(src, data[:cut], 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Import(Options{Store: st, Home: home, Path: src, ID: "live"}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Import(Options{Store: st, Home: home, Path: src, ID: "live"}); err != nil {
		t.Fatal(err)
	}
	if two := todoLists(testfixtures.ReadSession(t, st, "live")); !reflect.DeepEqual(two, want) {
		t.Errorf("todo lists of a two-run import:\n got %+v\nwant %+v", two, want)
	}
}

type todoList struct {
	line  string
	todos []session.Todo
}

func todoLists(evs []session.Event) []todoList {
	var out []todoList
	for _, ev := range evs {
		if ev.Type == session.TypeTodoWrite {
			out = append(out, todoList{ev.Meta["line"], ev.Todos})
		}
	}
	return out
}

func indexNL(b []byte) int {
	for k, c := range b {
		if c == '\n' {
			return k
		}
	}
	return len(b)
}
