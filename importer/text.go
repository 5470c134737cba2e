package importer

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/graft-project/graft/session"
)

// Timestamp turns a source time into the session's form (RFC 3339, UTC).
// ok is false when s is empty or not RFC 3339: the caller keeps the raw
// value in meta and the store stamps the event when it is written.
func Timestamp(s string) (ts string, ok bool) {
	if s == "" {
		return "", false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return "", false
	}
	return t.UTC().Format(time.RFC3339Nano), true
}

// Clip shortens s to at most n runes on one line, marking the cut with "…".
// For the short texts of system events; message texts are never clipped.
func Clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// SetGoal puts on ev what a host says of the goal it keeps for the session
// (session.MetaGoalStatus): its status, its objective and, when the host's
// check said something, the reason; the objective and the reason only when
// given. Each importer of a host with /goal calls it.
func SetGoal(ev *session.Event, status, objective, reason string) {
	ev.Meta[session.MetaGoalStatus] = Clip(status, 40)
	if objective != "" {
		ev.Meta[session.MetaGoalObjective] = Clip(objective, 4000)
	}
	if reason != "" {
		ev.Meta[session.MetaGoalReason] = Clip(reason, 400)
	}
}

// Todo maps a host's todo item to one whose status graft knows (pending,
// in_progress, completed: graft append refuses any other). Another status
// becomes pending, an unfinished item as the tape counts one, and the
// host's word is kept at the end of the content, " [status: <word>]";
// mapped is false then, for the importer to warn. An empty status is
// pending too.
func Todo(id, content, status string) (todo session.Todo, mapped bool) {
	switch status {
	case session.TodoPending, session.TodoInProgress, session.TodoCompleted:
		return session.Todo{ID: id, Content: content, Status: status}, true
	}
	if status != "" {
		content += " [status: " + status + "]"
	}
	return session.Todo{ID: id, Content: content, Status: session.TodoPending}, false
}

// WarnTodo is the warning of a todo that Todo mapped (k is 1-based).
func WarnTodo(out *Output, k int, status string) {
	out.Warn("todo %d status %q is not pending, in_progress or completed: imported as pending", k, status)
}

// TodoList reads the input of a tool call that writes the todo list as
// Claude Code's TodoWrite and Qwen Code's todo_write do: {"todos": [{id,
// content, status}]}. An item's id is its string when not empty, the text
// of another value but null (a number), else its place (1-based); each
// status is mapped by Todo, warned of by WarnTodo. An input with no todos
// list is warned of, naming the tool and its call, and ok is false: no
// todo/write event.
func TodoList(tool, callID string, input json.RawMessage, out *Output) (todos []session.Todo, ok bool) {
	var in struct {
		Todos *[]struct {
			ID      json.RawMessage `json:"id"`
			Content string          `json:"content"`
			Status  string          `json:"status"`
		} `json:"todos"`
	}
	if err := json.Unmarshal(input, &in); err != nil || in.Todos == nil {
		out.Warn("%s %q input has no todos list; no todo/write event", tool, callID)
		return nil, false
	}
	todos = make([]session.Todo, 0, len(*in.Todos))
	for k, t := range *in.Todos {
		id := strconv.Itoa(k + 1)
		var s string
		if json.Unmarshal(t.ID, &s) == nil && s != "" {
			id = s
		} else if len(t.ID) > 0 && t.ID[0] != '"' && string(t.ID) != "null" {
			id = string(t.ID)
		}
		td, known := Todo(id, t.Content, t.Status)
		if !known {
			WarnTodo(out, k+1, t.Status)
		}
		todos = append(todos, td)
	}
	return todos, true
}
