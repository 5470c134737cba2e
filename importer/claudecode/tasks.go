package claudecode

import (
	"encoding/json"
	"regexp"
	"slices"

	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/session"
)

// Claude Code's task tools (2.1.x): the list is the sum of its calls.
const (
	toolTaskCreate = "TaskCreate"
	toolTaskUpdate = "TaskUpdate"
)

// taskCreatedLine is how a TaskCreate result names the task it made, the
// pattern Claude Code reads it back with: "Task #3 created successfully:
// <subject>".
var taskCreatedLine = regexp.MustCompile(`^Task #(\S+) created successfully`)

// taskCreate remembers a TaskCreate's subject until its result gives the
// task's id (taskCreated). An input without a subject adds nothing, and
// says so.
func (m *Mapper) taskCreate(b block, out *importer.Output) {
	var in struct {
		Subject *string `json:"subject"`
	}
	if json.Unmarshal(b.Input, &in) != nil || in.Subject == nil {
		out.Warn("TaskCreate %q input has no subject; the task list is left as it was", b.ID)
		return
	}
	if m.creates == nil {
		m.creates = map[string]string{}
	}
	m.creates[b.ID] = *in.Subject
}

// taskCreated adds the task of a successful TaskCreate, pending, and
// emits the list; a failed one adds nothing.
func (m *Mapper) taskCreated(ln *line, callID string, ok bool, output string, out *importer.Output) {
	subject, waiting := m.creates[callID]
	if !waiting {
		return
	}
	delete(m.creates, callID)
	if !ok {
		return
	}
	mm := taskCreatedLine.FindStringSubmatch(output)
	if mm == nil {
		out.Warn("TaskCreate %q result does not name the task it created; the task list is left as it was", callID)
		return
	}
	m.setTask(mm[1], func(td *session.Todo) { td.Content, td.Status = subject, session.TodoPending })
	m.emitTasks(ln, callID, out)
}

// taskUpdate applies a TaskUpdate as Claude Code does, when the call is
// made: the status and the subject it names, "deleted" taking the task
// out; a task it does not know is added under its id. An input Claude
// Code would refuse changes nothing, and is warned of.
func (m *Mapper) taskUpdate(ln *line, b block, out *importer.Output) {
	var in struct {
		TaskID  *string `json:"taskId"`
		Status  *string `json:"status"`
		Subject *string `json:"subject"`
	}
	err := json.Unmarshal(b.Input, &in)
	if err != nil || in.TaskID == nil || in.Status != nil && !slices.Contains([]string{session.TodoPending, session.TodoInProgress, session.TodoCompleted, "deleted"}, *in.Status) {
		out.Warn("TaskUpdate %q input is not one Claude Code takes (a taskId, a status of pending, in_progress, completed or deleted); the task list is left as it was", b.ID)
		return
	}
	id := *in.TaskID
	if in.Status != nil && *in.Status == "deleted" {
		k := slices.IndexFunc(m.tasks, func(td session.Todo) bool { return td.ID == id })
		if k < 0 {
			return
		}
		m.tasks = slices.Delete(m.tasks, k, k+1)
	} else {
		m.setTask(id, func(td *session.Todo) {
			if in.Subject != nil {
				td.Content = *in.Subject
			}
			if in.Status != nil {
				td.Status = *in.Status
			}
		})
	}
	m.emitTasks(ln, b.ID, out)
}

// setTask changes the task id with f, adding it at the end (its content
// its id, pending) when the list has none.
func (m *Mapper) setTask(id string, f func(*session.Todo)) {
	k := slices.IndexFunc(m.tasks, func(td session.Todo) bool { return td.ID == id })
	if k < 0 {
		m.tasks = append(m.tasks, session.Todo{ID: id, Content: id, Status: session.TodoPending})
		k = len(m.tasks) - 1
	}
	f(&m.tasks[k])
}

// emitTasks emits the whole task list as a todo/write, as a TodoWrite's.
func (m *Mapper) emitTasks(ln *line, callID string, out *importer.Output) {
	ev := m.event(ln, session.TypeTodoWrite, session.Source{Kind: session.KindAssistant})
	ev.Todos = append([]session.Todo{}, m.tasks...) // an empty list too: every task was deleted
	ev.Meta["callId"] = callID
	out.Emit(ev)
}
