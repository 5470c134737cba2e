package hosts_test

import (
	"sync"
	"testing"
	"time"

	"github.com/graft-project/graft/internal/hosttest"
)

// The person declines a shell command at the real interactive Qwen Code's
// confirmation prompt ("No, suggest changes (esc)"): Qwen Code 0.24.4
// records the call cancelled, "[Operation Cancelled] Reason: User did not
// allow tool call" (its bundle holds the reason). graft imports it as
// declined: no failure, named apart in the tape's Pending State.
func TestQwenDeclinedCommandIsNoFailure(t *testing.T) {
	q, srv, g := newQwenGraft(t)
	var mu sync.Mutex
	calls := 0
	srv.SetReplyFunc(func(r hosttest.QwenRequest) hosttest.QwenReply {
		mu.Lock()
		defer mu.Unlock()
		if !r.Contains("Add left-pad.") {
			return hosttest.QwenReply{Text: "ok"}
		}
		if calls++; calls == 1 {
			return hosttest.QwenReply{ToolCalls: []hosttest.QwenToolCall{{ID: "call_lp", Name: "run_shell_command", Arguments: `{"command":"npm install left-pad","description":"Install left-pad"}`}}}
		}
		return hosttest.QwenReply{Text: "ok"}
	})
	q.Print(t, "Hello.").Ok(t)
	id, src := qwenSession(t, q)
	tm := hostTerminal(t, q.Environ(), q.Dir, "Hello.", q.Bin, "--resume", id)
	tm.Type("Add left-pad.")
	if screen, ok := tm.WaitFor(30*time.Second, "Allow execution"); !ok {
		t.Fatalf("no confirmation prompt:\n%s", screen)
	}
	tm.Keys("Escape") // "No, suggest changes (esc)"
	waitForFile(t, src, "Qwen Code's words for a declined call", "[Operation Cancelled] Reason: User did not allow tool call")
	tm.Quit("/quit")
	checkTurnedDownApart(t, preparedTape(t, g, "qwen", src, "dec"), "declined", "npm install left-pad")
}
