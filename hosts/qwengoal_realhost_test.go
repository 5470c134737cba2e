package hosts_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/graft-project/graft/internal/hosttest"
)

// The person sets a goal in the real interactive Qwen Code 0.24.4 (/goal):
// Qwen Code works at it turn after turn and records its state as system
// goal_state records; a model that makes no progress (the fake one only
// says "On it.") has the goal paused by Qwen Code itself after three goal
// turns. graft imports the person's /goal as their instruction and the
// goal's state as the host's; the tape's Task Status names the goal
// paused, which a new session of the work does not carry (Qwen Code
// restores a goal from the session's own file).
func TestQwenGoalIsInTaskStatus(t *testing.T) {
	q, srv, g := newQwenGraft(t)
	srv.SetReplyFunc(func(hosttest.QwenRequest) hosttest.QwenReply { return hosttest.QwenReply{Text: "On it."} })
	q.Print(t, "Hello.").Ok(t)
	id, src := qwenSession(t, q)
	tm, err := hosttest.NewTerminal(t, q.Environ(), q.Dir, 200, 50, q.Bin, "--resume", id)
	if errors.Is(err, hosttest.ErrNoTmux) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if screen, ok := tm.WaitFor(60*time.Second, "Hello."); !ok {
		t.Fatalf("the interactive Qwen Code did not show the resumed session:\n%s", screen)
	}
	time.Sleep(2 * time.Second)
	const objective = "Port the pager to Go"
	tm.Type("/goal " + objective)
	if screen, ok := tm.WaitFor(60*time.Second, "Goal paused"); !ok {
		t.Fatalf("Qwen Code did not pause the goal:\n%s", screen)
	}
	waitForFile(t, src, "Qwen Code's paused goal", `"status":"paused"`)
	tm.Type("/quit")
	tape := preparedTape(t, g, "qwen", src, "goal")
	_, status, _ := strings.Cut(tape, "] [Task Status]\n")
	status, _, _ = strings.Cut(status, "\n\n")
	if !strings.Contains(status, "paused at seq=") || !strings.Contains(status, objective) {
		t.Errorf("Task Status does not name the goal paused:\n%s", status)
	}
	_, goal, _ := strings.Cut(tape, "] [Goal]\n")
	goal, _, _ = strings.Cut(goal, "\n\n")
	if !strings.Contains(goal, "/goal "+objective) {
		t.Errorf("the Goal lacks the person's /goal:\n%s", goal)
	}
}
