package hosts_test

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/graft-project/graft/internal/hosttest"
)

// The person turns a command down at the real interactive Codex's approval
// prompt (0.171, --ask-for-approval on-request; the model asks to run the
// command outside the sandbox). 0.171's only "No" is "No, and tell Codex
// what to do differently (esc)": it stops the turn, and Codex gives the
// call "Wall time: … seconds\naborted by user", its words for any call the
// person stopped, at its prompt or while it ran. graft had imported that as
// a call that went well ("npm install left-pad ok"); it is stopped: not ok,
// no failure to fix, named in Pending State as stopped by the person.
func TestCodexStoppedCommandIsNoSuccess(t *testing.T) {
	h := hosttest.Install(t)
	bin, _ := binaries(t)
	srv := hosttest.NewModelServer(t)
	var mu sync.Mutex
	calls := 0
	srv.SetReplyFunc(func(r hosttest.Request) hosttest.Reply {
		mu.Lock()
		defer mu.Unlock()
		if !r.IsCodexModel() || r.IsCodexCompaction() || !r.Contains("Add left-pad.") {
			return hosttest.Reply{Text: "ok"}
		}
		if calls++; calls == 1 {
			return hosttest.Reply{Call: &hosttest.FunctionCall{Name: "exec_command", Arguments: `{"cmd":"npm install left-pad","sandbox_permissions":"require_escalated","justification":"Install left-pad?"}`}}
		}
		return hosttest.Reply{Text: "ok"}
	})
	x := h.NewCodex(t, srv)
	x.Exec(t, "Hello.").Ok(t)
	rollout := x.Rollouts(t)[0]
	tm := hostTerminal(t, x.Environ(), x.Dir, "Hello.", x.Bin, "--ask-for-approval", "on-request", "resume", hosttest.RolloutID(rollout))
	tm.Type("Add left-pad.")
	if screen, ok := tm.WaitFor(30*time.Second, "Would you like to run"); !ok {
		t.Fatalf("no approval prompt:\n%s", screen)
	}
	time.Sleep(time.Second)
	tm.Keys("Escape")
	if screen, ok := tm.WaitFor(30*time.Second, "Conversation interrupted"); !ok {
		t.Fatalf("the turn did not stop:\n%s", screen)
	}
	b := waitForFile(t, rollout, "the stopped turn", "turn_aborted")
	tm.Quit("/quit")
	// The interactive Codex's app-server daemon outlives the terminal.
	x.StopAppServer(t)
	if !strings.Contains(string(b), `aborted by user"`) {
		t.Fatalf("the rollout lacks Codex's words for a stopped command:\n%s", b)
	}

	g := graftRun{t: t, bin: bin, home: filepath.Join(x.Root, "graft"), env: x.Environ(), dir: x.Dir}
	checkTurnedDownApart(t, preparedTape(t, g, "codex", rollout, "dec"), "stopped", "npm install left-pad")
}
