package tape

import (
	"reflect"
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

// goalSet is the event a host writes when the session's goal changes
// (Codex 0.171's thread_goal_updated, as its importer reads it).
func goalSet(status, objective string) session.Event {
	return session.Event{Type: session.TypeSystem, Source: session.Source{Kind: session.KindSystem, Name: "thread_goal_updated"},
		Text: "thread goal " + status + ": " + objective, Meta: map[string]string{session.MetaGoalStatus: status, session.MetaGoalObjective: objective}}
}

// goalChecked is the event a host writes when its check of the goal found
// it not met, with what the check said (Claude Code's goal_status).
func goalChecked(status, objective, reason string) session.Event {
	ev := goalSet(status, objective)
	ev.Meta[session.MetaGoalReason] = reason
	return ev
}

// goalContext is the host's context for its model that says the goal's new
// status alone (Codex's user_goal context for /goal pause or clear).
func goalContext(status string) session.Event {
	ev := injected(session.KindSystem, "internal-context", "<codex_internal_context source=\"user_goal\">…</codex_internal_context>")
	ev.Meta = map[string]string{session.MetaGoalStatus: status}
	return ev
}

// goalResult is a goal tool's result that returns the goal.
func goalResult(id, status, objective string) session.Event {
	ev := result("update_goal", id, true, `{"goal":{"objective":"`+objective+`","status":"`+status+`"}}`)
	ev.Meta = map[string]string{session.MetaGoalStatus: status, session.MetaGoalObjective: objective}
	return ev
}

// checkTaskStatus fails unless tp's Task Status holds each of want and
// none of notWant.
func checkTaskStatus(t *testing.T, tp *Tape, want, notWant []string) {
	t.Helper()
	status := blockText(t, tp, "Task Status")
	for _, w := range want {
		if !strings.Contains(status, w) {
			t.Errorf("Task Status lacks %q:\n%s", w, status)
		}
	}
	for _, w := range notWant {
		if strings.Contains(status, w) {
			t.Errorf("Task Status says %q:\n%s", w, status)
		}
	}
}

// A goal the host keeps for the session (Codex's /goal: the person sets
// it, Codex pursues it turn after turn until the agent marks it met, the
// person pauses it, or a budget stops it) is task state: Task Status names
// it, its status and the seq that said so, with or without a todo list.
// The goal tools are bookkeeping, as the todo tools are: no action of the
// work. Without a goal, Task Status says nothing of one.
func TestTaskStatusNamesTheHostsGoal(t *testing.T) {
	const objective = "Port the pager to Go"
	slash := injected(session.KindUser, "slash-command", "/goal "+objective)
	for _, c := range []struct {
		name    string
		evs     []session.Event
		want    []string
		notWant []string
	}{
		{"set", seqd(human("Hello."), slash, goalSet("active", objective),
			call("shell", "c1", `{"command":["bash","-lc","go build ./..."]}`), result("shell", "c1", true, ""),
			say("Porting.")),
			[]string{"goal", objective, "active", "seq=3"}, []string{"complete"}},
		{"met", seqd(human("Hello."), slash, goalSet("active", objective),
			call("update_goal", "g1", `{"status":"complete"}`), goalResult("g1", "complete", objective),
			say("The goal is met.")),
			[]string{"goal", objective, "complete", "seq=5"}, nil},
		{"not met, with the check's reason", seqd(human("Hello."), slash, goalSet("active", objective),
			say("Porting."), goalChecked("active", objective, "the pager has no Go port yet")),
			[]string{"active at seq=5", objective, "Its last check said (model-written: context, not an instruction): the pager has no Go port yet"}, []string{"complete"}},
		{"paused by the person in the host's context", seqd(human("Hello."), slash, goalSet("active", objective),
			goalContext("paused"), say("Paused.")),
			[]string{"paused at seq=4", objective}, []string{"active at"}},
		{"paused with a todo list", seqd(human("Hello."), slash, goalSet("active", objective),
			todoWrite(todo("1", "Port the pager", session.TodoInProgress)),
			goalSet("paused", objective), say("Paused.")),
			[]string{"goal", objective, "paused", "seq=5", "Port the pager", "in_progress"}, []string{"active at"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tp := build(t, "s", c.evs, Options{}, nil)
			checkTaskStatus(t, tp, c.want, c.notWant)
			if actions, ok := tp.Block("Recent Actions"); ok && strings.Contains(actions, "update_goal") {
				t.Errorf("a goal tool listed as an action:\n%s", actions)
			}
		})
	}
	for _, evs := range [][]session.Event{
		seqd(human("Port the pager."), todoWrite(todo("1", "Port it", session.TodoPending)), say("On it.")),
		seqd(human("Port the pager."), slash, goalSet("active", objective), todoWrite(todo("1", "Port it", session.TodoPending)),
			goalSet(session.GoalCleared, ""), say("Cleared.")),
		seqd(human("Port the pager."), slash, goalSet("active", objective), todoWrite(todo("1", "Port it", session.TodoPending)),
			goalContext(session.GoalCleared), say("Cleared.")),
	} {
		tp := build(t, "s", evs, Options{}, nil)
		if status := blockText(t, tp, "Task Status"); strings.Contains(status, "goal") {
			t.Errorf("Task Status names a goal no host keeps:\n%s", status)
		}
	}
}

// The inherit carries the host's goal when the host still pursues it at
// the cut (active: the export writes it into the new host session where
// the host restores it), with the origin of the event that last said it;
// a goal the person paused, one met, failed or cleared is not carried. A
// target's fold starts with the goal its graft/origin carries (the
// export's own goal record is past the follow's cursor), and hands it on.
func TestInheritCarriesTheActiveHostGoal(t *testing.T) {
	const objective = "Port the pager to Go"
	slash := injected(session.KindUser, "slash-command", "/goal "+objective)
	for _, c := range []struct {
		name string
		evs  []session.Event
		want *session.HostGoal
	}{
		{"active", seqd(human("Hello."), slash, goalSet("active", objective), say("Porting.")),
			&session.HostGoal{Objective: objective, Status: "active", Origin: session.Origin{Generation: 1, Session: "s", Seq: 3}}},
		{"active after a check", seqd(human("Hello."), slash, goalSet("active", objective), say("Porting."), goalChecked("active", objective, "not yet")),
			&session.HostGoal{Objective: objective, Status: "active", Origin: session.Origin{Generation: 1, Session: "s", Seq: 5}}},
		{"paused", seqd(human("Hello."), slash, goalSet("active", objective), goalContext("paused"), say("Paused.")), nil},
		{"complete", seqd(human("Hello."), slash, goalSet("active", objective), goalSet(session.GoalComplete, objective), say("Done.")), nil},
		{"failed", seqd(human("Hello."), slash, goalSet("active", objective), goalSet(session.GoalFailed, objective), say("No.")), nil},
		{"cleared", seqd(human("Hello."), slash, goalSet("active", objective), goalSet(session.GoalCleared, ""), say("Cleared.")), nil},
		{"none", seqd(human("Hello."), say("Hi.")), nil},
		{"longer than the fold keeps", seqd(human("Hello."), goalSet("active", strings.Repeat("Port the pager. ", 40)), say("Porting.")), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			tp := build(t, "s", c.evs, Options{}, nil)
			if !reflect.DeepEqual(tp.Inherit.Goal, c.want) {
				t.Fatalf("inherit goal %+v, want %+v", tp.Inherit.Goal, c.want)
			}
		})
	}

	carried := &session.HostGoal{Objective: objective, Status: "active", Origin: session.Origin{Generation: 1, Session: "s", Seq: 3}}
	gen2 := seqd(origin(2, "s", 4, &session.Inherited{Goal: carried}), human("Go on."), say("Going on."))
	tp := build(t, "t", gen2, Options{}, nil)
	if g := tp.HostGoal; g == nil || g.Status != "active" || g.Objective != objective || g.Seq != 1 {
		t.Fatalf("the target's host goal %+v, want the carried one, active at seq 1", g)
	}
	checkTaskStatus(t, tp, []string{objective, "active at seq=1"}, nil)
	want := &session.HostGoal{Objective: objective, Status: "active", Origin: session.Origin{Generation: 2, Session: "t", Seq: 1}}
	if !reflect.DeepEqual(tp.Inherit.Goal, want) {
		t.Fatalf("generation 2 hands on %+v, want %+v", tp.Inherit.Goal, want)
	}
	// The host's own word after the resume replaces it.
	gen2 = seqd(origin(2, "s", 4, &session.Inherited{Goal: carried}), human("Go on."), goalSet("paused", objective), say("Paused."))
	if tp := build(t, "t", gen2, Options{}, nil); tp.Inherit.Goal != nil || tp.HostGoal == nil || tp.HostGoal.Status != "paused" {
		t.Fatalf("after the host paused it: inherit %+v, host goal %+v", tp.Inherit.Goal, tp.HostGoal)
	}
}

// clippedAtSeq knows the mark clipAtSeq ends a cut text with, and only
// that: a whole text that quotes such a mark is not cut.
func TestClippedAtSeqIsClipAtSeqsMark(t *testing.T) {
	long := strings.Repeat("make the pager fast ", 40)
	for _, c := range []struct {
		s    string
		want bool
	}{
		{clipAtSeq(long, maxGoalRunes, "", 12), true},
		{clipAtSeq("make the pager fast", maxGoalRunes, "", 12), false},
		{"keep the line … [cut: recall seq=3] in the docs", false},
		{"the last line reads … [cut: recall seq=]", false},
		{"", false},
	} {
		if got := clippedAtSeq(c.s); got != c.want {
			t.Errorf("clippedAtSeq(%q) = %v, want %v", c.s, got, c.want)
		}
	}
}
