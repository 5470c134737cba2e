package codex

import (
	"slices"
	"testing"

	"github.com/graft-project/graft/internal/testfixtures"
	"github.com/graft-project/graft/session"
)

// testdata/goal-0.171.jsonl is the rollout the real interactive Codex
// 0.171 wrote (internal/hosttest's TestExploreCodexGoalCommand; its base
// instructions and paths shortened): "Hello.", then the person's "/goal
// Port the pager to Go", which Codex writes as its own context for the
// model, a thread_goal_updated event and a goal_objective output no call
// asked for, then a turn that pursues the goal. The person's goal is
// their instruction, "/goal …" as a slash command of theirs; the rest is
// the host's context; nothing is warned of.
func TestTheGoalThePersonSetIsTheirInstruction(t *testing.T) {
	st, home := testfixtures.NewStore(t)
	sum, err := Import(Options{Store: st, Home: home, Path: "testdata/goal-0.171.jsonl", ID: "goal"})
	if err != nil {
		t.Fatal(err)
	}
	if sum.WarningCount != 0 {
		t.Errorf("warnings: %q", sum.Warnings)
	}
	evs := testfixtures.ReadSession(t, st, "goal")
	var humans []string
	sources := map[string]bool{}
	for _, ev := range evs {
		if ev.IsHumanInstruction() {
			humans = append(humans, ev.Text)
			if ev.Text == "/goal Port the pager to Go" && ev.Source != (session.Source{Kind: session.KindUser, Name: "slash-command"}) {
				t.Errorf("the goal's source is %+v, want the user's slash command", ev.Source)
			}
		}
		if ev.Type == session.TypeUserMessage && ev.Source.Kind == session.KindSystem {
			sources[ev.Source.Name] = true
		}
		if ev.Type == session.TypeToolResult && ev.Tool.Name == "unknown" {
			t.Errorf("an output imported as an unknown tool's: %q", ev.Tool.Output)
		}
	}
	if want := []string{"Hello.", "/goal Port the pager to Go"}; !slices.Equal(humans, want) {
		t.Errorf("human instructions %q, want %q", humans, want)
	}
	for _, src := range []string{"additional-context:goal_objective", "internal-context"} {
		if !sources[src] {
			t.Errorf("no injected message of source %q; sources: %v", src, sources)
		}
	}
}

// userGoal reads the objective as Codex writes it, a Rust debug string.
func TestUserGoal(t *testing.T) {
	for _, c := range []struct {
		text, goal string
		ok         bool
	}{
		{"<codex_internal_context source=\"user_goal\">\nUser set the goal: \"Port the pager to Go\"\nUser set goal status: \"active\".\n</codex_internal_context>", "Port the pager to Go", true},
		{"<codex_internal_context source=\"user_goal\">\nUser set the goal: \"Port the \\\"pager\\\" to Go\\nthen test it\"\n</codex_internal_context>", "Port the \"pager\" to Go\nthen test it", true},
		{"<codex_internal_context source=\"user_goal\">\nUser set goal status: \"paused\".\n</codex_internal_context>", "", false},
		{"<codex_internal_context source=\"goal\">\nContinue working toward the active thread goal.\n</codex_internal_context>", "", false},
		{"User set the goal: \"x\"", "", false},
	} {
		if goal, ok := userGoal(c.text); goal != c.goal || ok != c.ok {
			t.Errorf("userGoal(%q) = %q, %v; want %q, %v", c.text, goal, ok, c.goal, c.ok)
		}
	}
}

// testdata/goal-complete-0.171.jsonl is the rollout the real interactive
// Codex 0.171 wrote for hosts' TestCodexGoalIsThePersonsInstruction (its
// base instructions and paths shortened): the person sets a goal with
// /goal, Codex writes thread_goal_updated (active), and the model marks it
// met with update_goal, whose output is the goal (complete); Codex writes
// no thread_goal_updated for that. Both say the goal's status: the
// importer puts it and the objective on the event, for the tape's Task
// Status.
func TestTheGoalsStatusIsImported(t *testing.T) {
	st, home := testfixtures.NewStore(t)
	sum, err := Import(Options{Store: st, Home: home, Path: "testdata/goal-complete-0.171.jsonl", ID: "goal"})
	if err != nil {
		t.Fatal(err)
	}
	if sum.WarningCount != 0 {
		t.Errorf("warnings: %q", sum.Warnings)
	}
	type goal struct{ typ, status, objective string }
	var got []goal
	for _, ev := range testfixtures.ReadSession(t, st, "goal") {
		if s := ev.Meta[session.MetaGoalStatus]; s != "" {
			got = append(got, goal{ev.Type, s, ev.Meta[session.MetaGoalObjective]})
		}
	}
	const objective = `Port the "pager" to Go`
	want := []goal{{session.TypeSystem, "active", objective}, {session.TypeToolResult, "complete", objective}}
	if !slices.Equal(got, want) {
		t.Errorf("goal states %+v, want %+v", got, want)
	}
}

// goalOf reads a goal as Codex gives it, in thread_goal_updated and in its
// goal tools' outputs; anything else is no goal.
func TestGoalOf(t *testing.T) {
	for _, c := range []struct {
		in                string
		status, objective string
	}{
		{`{"goal":{"objective":"Port it","status":"paused","tokensUsed":3}}`, "paused", "Port it"},
		{`{"type":"thread_goal_updated","threadId":"t","goal":{"objective":"x","status":"active"}}`, "active", "x"},
		{`{"goal":null}`, "", ""},
		{`{"goal":{"objective":"x"}}`, "", ""},
		{`not json`, "", ""},
		{`{"status":"complete"}`, "", ""},
	} {
		if s, o := goalOf([]byte(c.in)); s != c.status || o != c.objective {
			t.Errorf("goalOf(%s) = %q, %q; want %q, %q", c.in, s, o, c.status, c.objective)
		}
	}
}

// The person's /goal pause, resume and clear reach the rollout only as
// Codex's context for its model (0.171 writes no thread_goal_updated for a
// clear, seen on the real program): its status is the goal's. The context
// that sets the goal is the person's /goal, with no status of its own.
func TestUserGoalStatus(t *testing.T) {
	for _, c := range []struct{ text, status string }{
		{"<codex_internal_context source=\"user_goal\">\nUser cleared the goal.\n</codex_internal_context>", session.GoalCleared},
		{"<codex_internal_context source=\"user_goal\">\nUser set goal status: \"paused\".\n</codex_internal_context>", "paused"},
		{"<codex_internal_context source=\"user_goal\">\nUser set the goal: \"Port it\"\nUser set goal status: \"active\".\n</codex_internal_context>", ""},
		{"<codex_internal_context source=\"goal\">\nContinue working toward the active thread goal.\n</codex_internal_context>", ""},
		{"User cleared the goal.", ""},
	} {
		if got := userGoalStatus(c.text); got != c.status {
			t.Errorf("userGoalStatus(%q) = %q, want %q", c.text, got, c.status)
		}
	}
}
