package hosts_test

import (
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
	tm := hostTerminal(t, q.Environ(), q.Dir, "Hello.", q.Bin, "--resume", id)
	const objective = "Port the pager to Go"
	tm.Type("/goal " + objective)
	if screen, ok := tm.WaitFor(60*time.Second, "Goal paused"); !ok {
		t.Fatalf("Qwen Code did not pause the goal:\n%s", screen)
	}
	waitForFile(t, src, "Qwen Code's paused goal", `"status":"paused"`)
	tm.Quit("/quit")
	checkGoalCarried(t, preparedTape(t, g, "qwen", src, "goal"), "paused", objective)
}
