package tape

import (
	"strconv"
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

// A call that only read and failed (cat of a file that is not there, ls
// of a path, a Read tool's missing file) changed nothing and leaves
// nothing to redo: what it found is its output, which Recent Actions
// shows. Pending State's failures not fixed since are the calls that
// acted and failed (a test run, a build, a push); the open turn ending on
// a look-up is no failure to handle first.
func TestAFailedLookUpIsNoPendingFailure(t *testing.T) {
	tp := build(t, "s", seqd(human("Scaffold the app from the plan."),
		call("shell", "c1", `{"command":["bash","-lc","cat .codex/prompts/implement.md"]}`),
		result("shell", "c1", false, "cat: .codex/prompts/implement.md: No such file or directory"),
		call("shell", "c2", `{"command":["bash","-lc","pnpm test"]}`),
		result("shell", "c2", false, "ERR_PNPM_NO_IMPORTER_MANIFEST_FOUND No package.json was found in /work/app"),
		call("Read", "r1", `{"file_path":"/work/app/tsconfig.json"}`),
		result("Read", "r1", false, "File does not exist."),
		say("There is no project scaffold yet: no package.json."),
		call("shell", "c3", `{"command":["bash","-lc","ls package.json"]}`),
		result("shell", "c3", false, "ls: package.json: No such file or directory")), Options{}, nil)
	pending := blockText(t, tp, "Pending State")
	if !strings.Contains(pending, "pnpm test") || !strings.Contains(pending, "ERR_PNPM_NO_IMPORTER_MANIFEST_FOUND") {
		t.Errorf("Pending State lacks the test run that failed:\n%s", pending)
	}
	for _, lookUp := range []string{"cat .codex/prompts/implement.md", "tsconfig.json", "ls package.json"} {
		if strings.Contains(pending, lookUp) {
			t.Errorf("Pending State lists the failed look-up %q:\n%s", lookUp, pending)
		}
	}
	actions := blockText(t, tp, "Recent Actions")
	for _, want := range []string{"ls package.json", "ls: package.json: No such file or directory", "cat: .codex/prompts/implement.md: No such file or directory"} {
		if !strings.Contains(actions, want) {
			t.Errorf("Recent Actions lacks %q of a failed look-up:\n%s", want, actions)
		}
	}
}

// A todo list whose items are all completed carries no staleness stamp:
// "an item may already be complete: verify before re-running" says
// nothing of a list with nothing left to run. One item left, it does.
func TestAFinishedTodoListIsNotStale(t *testing.T) {
	for _, c := range []struct {
		last  string
		stale bool
	}{{session.TodoCompleted, false}, {session.TodoPending, true}} {
		evs := []session.Event{human("Do both."), todoWrite(session.Todo{ID: "1", Content: "Write the parser", Status: session.TodoCompleted}, session.Todo{ID: "2", Content: "Wire it in", Status: c.last})}
		for k := 0; k < staleAfter+2; k++ {
			id := "b" + strconv.Itoa(k)
			evs = append(evs, call("Bash", id, `{"command":"go test ./..."}`), result("Bash", id, true, "ok  \tex/parser\t0.1s"))
		}
		tp := build(t, "s", seqd(append(evs, say("Done."))...), Options{}, nil)
		if got := strings.Contains(blockText(t, tp, "Task Status"), "Stale:"); got != c.stale {
			t.Errorf("last item %s: stale stamp %v, want %v:\n%s", c.last, got, c.stale, blockText(t, tp, "Task Status"))
		}
	}
}

// Claude Code 2.1's task tools write the todo list (the importer makes
// their calls a todo/write), as Gemini CLI's write_todos and its task
// tracker's tools do: like TodoWrite, they are no action of the work, no
// step since the list was written and no call in flight. TaskOutput and
// TaskStop are background commands', and stay actions.
func TestTaskToolsAreTodoTools(t *testing.T) {
	for _, name := range []string{"TaskCreate", "TaskUpdate", "TaskList", "TaskGet", "TodoWrite", "update_plan", "update_goal", "propose_goal", "Update_Goal",
		"write_todos", "tracker_create_task", "tracker_update_task", "tracker_list_tasks", "tracker_get_task", "tracker_add_dependency", "tracker_visualize"} {
		if !isTodoTool(name) {
			t.Errorf("%s is no todo tool", name)
		}
	}
	for _, name := range []string{"Task", "TaskOutput", "TaskStop", "Bash", "Agent", "tracker", "tracker_", "run_shell_command"} {
		if isTodoTool(name) {
			t.Errorf("%s is a todo tool", name)
		}
	}
	evs := []session.Event{human("Do it."), todoWrite(session.Todo{ID: "1", Content: "Write the parser", Status: session.TodoPending})}
	for k := 0; k < staleAfter+2; k++ {
		id := "t" + strconv.Itoa(k)
		evs = append(evs, call("TaskUpdate", id, `{"taskId":"1","status":"in_progress"}`), result("TaskUpdate", id, true, "Updated task #1 status"))
	}
	tp := build(t, "s", seqd(append(evs, say("On it."))...), Options{}, nil)
	if status := blockText(t, tp, "Task Status"); strings.Contains(status, "Stale:") {
		t.Errorf("task tools counted as work since the list:\n%s", status)
	}
	if _, ok := tp.Block("Recent Actions"); ok {
		t.Errorf("task tools listed as actions:\n%s", tp.Text)
	}
}
