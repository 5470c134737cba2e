package hosts_test

import (
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/graft-project/graft/internal/hosttest"
)

// The person declines a shell command at the real interactive Gemini CLI's
// confirmation prompt ("No, suggest changes (esc)"), which cancels the
// request: Gemini CLI 0.61.0 records the call as cancelled with
// "[Operation Cancelled] Reason: User denied execution." (its bundle holds
// the reason). graft imports it as declined: no failure, named apart in
// the tape's Pending State.
func TestGeminiDeclinedCommandIsNoFailure(t *testing.T) {
	h := hosttest.Install(t)
	bin, _ := binaries(t)
	gs := hosttest.NewGeminiServer(t)
	var mu sync.Mutex
	calls := 0
	gs.SetReplyFunc(func(turn hosttest.GeminiTurn) hosttest.GeminiReply {
		mu.Lock()
		defer mu.Unlock()
		if !turn.Contains("Add left-pad.") {
			return hosttest.GeminiReply{Text: "ok"}
		}
		if calls++; calls == 1 {
			return hosttest.GeminiReply{Call: &hosttest.GeminiCall{Name: "run_shell_command", Args: map[string]any{"command": "npm install left-pad", "description": "Install left-pad"}}}
		}
		return hosttest.GeminiReply{Text: "ok"}
	})
	gm := h.NewGemini(t, gs)
	gm.Prompt(t, "Hello.").Ok(t)
	tm := hostTerminal(t, gm.Environ(), gm.Dir, "Hello.", gm.Bin, gm.Entry, "--resume", "latest")
	tm.Type("Add left-pad.")
	if screen, ok := tm.WaitFor(30*time.Second, "Allow execution"); !ok {
		t.Fatalf("no confirmation prompt:\n%s", screen)
	}
	tm.Keys("Escape") // "No, suggest changes (esc)"
	if screen, ok := tm.WaitFor(30*time.Second, "Request cancelled."); !ok {
		t.Fatalf("the request was not cancelled:\n%s", screen)
	}
	session := geminiSessionWith(t, gm, "Gemini CLI's words for a declined call", "[Operation Cancelled] Reason: User denied execution.")
	tm.Quit("/quit")
	g := graftRun{t: t, bin: bin, home: filepath.Join(gm.Root, "graft"), env: gm.Environ(), dir: gm.Dir}
	checkTurnedDownApart(t, preparedTape(t, g, "gemini", session, "dec"), "declined", "npm install left-pad")
}
