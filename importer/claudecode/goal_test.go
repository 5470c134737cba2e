package claudecode

import (
	"slices"
	"testing"

	"github.com/graft-project/graft/internal/testfixtures"
	"github.com/graft-project/graft/session"
)

// testdata/goal-2.1.332.jsonl holds the lines the real interactive Claude
// Code 2.1.332 wrote when the person set a goal with /goal (hosts'
// TestClaudeGoalIsInTaskStatus; its request caches and prompt snapshots
// left out, paths shortened): Claude Code checks the goal's condition at
// each stop with a model call and writes the verdict as a goal_status
// attachment: not met (with the check's reason), then met. Each carries
// the goal's status and objective (session.MetaGoalStatus), and the
// check's reason (session.MetaGoalReason); the person's /goal is their
// instruction.
func TestTheGoalsStatusIsImported(t *testing.T) {
	st, home := testfixtures.NewStore(t)
	sum, err := Import(Options{Store: st, Home: home, Path: "testdata/goal-2.1.332.jsonl", ID: "goal"})
	if err != nil {
		t.Fatal(err)
	}
	if sum.WarningCount != 0 {
		t.Errorf("warnings: %q", sum.Warnings)
	}
	var got, humans []string
	for _, ev := range testfixtures.ReadSession(t, st, "goal") {
		if s := ev.Meta[session.MetaGoalStatus]; s != "" {
			got = append(got, s+": "+ev.Meta[session.MetaGoalObjective]+" / "+ev.Meta[session.MetaGoalReason])
		}
		if ev.IsHumanInstruction() {
			humans = append(humans, ev.Text)
		}
	}
	want := []string{"active: The file done.txt exists / ", "active: The file done.txt exists / done.txt is missing", "complete: The file done.txt exists / "}
	if !slices.Equal(got, want) {
		t.Errorf("goal states %q, want %q", got, want)
	}
	if !slices.Contains(humans, "/goal The file done.txt exists") {
		t.Errorf("the person's /goal is not their instruction: %q", humans)
	}
}

// goalStatusOf reads a goal_status attachment: met is complete, failed
// (Claude Code judged the condition impossible) is failed, the sentinel of
// a set goal is active and the one of a /goal clear (met) is cleared (the
// real 2.1.332 wrote it: hosts' TestClaudeClearedGoalIsNone).
func TestGoalStatusOf(t *testing.T) {
	yes, no := true, false
	for _, c := range []struct {
		met, failed, sentinel *bool
		want                  string
	}{
		{&yes, nil, nil, "complete"}, {&no, nil, nil, "active"}, {&no, &yes, nil, "failed"}, {nil, nil, nil, "active"},
		{&no, &no, nil, "active"}, {&no, nil, &yes, "active"}, {&yes, nil, &yes, session.GoalCleared}, {&yes, nil, &no, "complete"},
	} {
		if got := goalStatusOf(c.met, c.failed, c.sentinel); got != c.want {
			t.Errorf("goalStatusOf(%v, %v, %v) = %q, want %q", c.met, c.failed, c.sentinel, got, c.want)
		}
	}
}
