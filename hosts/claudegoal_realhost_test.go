package hosts_test

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/graft-project/graft/internal/hosttest"
)

// The person sets a goal in the real interactive Claude Code 2.1.332
// (/goal <condition>): at each stop Claude Code asks a model whether the
// condition holds (a request with no tools, answered with {"ok": …}) and
// writes the verdict as a goal_status attachment; the first check here
// finds it not met, so the agent goes on, the second finds it met. graft
// imports the person's /goal as their instruction and the verdicts as the
// host's; the tape's Task Status names the goal complete.
func TestClaudeGoalIsInTaskStatus(t *testing.T) {
	h := hosttest.Install(t)
	bin, _ := binaries(t)
	srv := hosttest.NewModelServer(t)
	var mu sync.Mutex
	checks := 0
	srv.SetReplyFunc(func(r hosttest.Request) hosttest.Reply {
		if !r.IsClaudeModel() {
			return hosttest.Reply{Text: "ok"}
		}
		if len(r.ClaudeTools()) > 0 {
			return hosttest.Reply{Text: "Working on it."}
		}
		mu.Lock()
		defer mu.Unlock()
		if checks++; checks == 1 {
			return hosttest.Reply{Text: `{"ok": false, "reason": "done.txt is missing"}`}
		}
		return hosttest.Reply{Text: `{"ok": true}`}
	})
	c := h.NewClaude(t, srv)
	c.TrustProject(t)
	tm := hostTerminal(t, c.Environ(), c.Dir, "auto mode on", c.Bin)
	const condition = "The file done.txt exists"
	tm.Type("/goal " + condition)
	if screen, ok := tm.WaitFor(40*time.Second, "Goal achieved"); !ok {
		t.Fatalf("the goal was not checked to its end:\n%s", screen)
	}
	transcripts := c.Transcripts(t)
	if len(transcripts) != 1 {
		t.Fatalf("transcripts: %q", transcripts)
	}
	waitForFile(t, transcripts[0], "the goal's checks", `"reason":"done.txt is missing"`, `"met":true`)
	g := graftRun{t: t, bin: bin, home: filepath.Join(c.Root, "graft"), env: c.Environ(), dir: c.Dir}
	checkGoalCarried(t, preparedTape(t, g, "claude-code", transcripts[0], "goal"), "complete", condition)
}

// The person clears a goal in the real interactive Claude Code 2.1.332
// (/goal clear) while its check still finds it not met: Claude Code writes
// a goal_status sentinel with met true ("Goal cleared: …" on the screen).
// That is no goal met: the tape's Task Status names no goal.
func TestClaudeClearedGoalIsNone(t *testing.T) {
	h := hosttest.Install(t)
	bin, _ := binaries(t)
	srv := hosttest.NewModelServer(t)
	srv.SetReplyFunc(func(r hosttest.Request) hosttest.Reply {
		switch {
		case !r.IsClaudeModel():
			return hosttest.Reply{Text: "ok"}
		case len(r.ClaudeTools()) > 0:
			return hosttest.Reply{Text: "Working on it."}
		}
		time.Sleep(2 * time.Second) // the check takes a while: the person clears the goal
		return hosttest.Reply{Text: `{"ok": false, "reason": "done.txt is missing"}`}
	})
	c := h.NewClaude(t, srv)
	c.TrustProject(t)
	tm := hostTerminal(t, c.Environ(), c.Dir, "auto mode on", c.Bin)
	const condition = "The file done.txt exists"
	tm.Type("/goal " + condition)
	if screen, ok := tm.WaitFor(30*time.Second, "Goal not yet met"); !ok {
		t.Fatalf("the goal was not checked:\n%s", screen)
	}
	tm.Keys("Escape")
	time.Sleep(time.Second)
	tm.Type("/goal clear")
	if screen, ok := tm.WaitFor(30*time.Second, "Goal cleared"); !ok {
		t.Fatalf("the goal was not cleared:\n%s", screen)
	}
	transcripts := c.Transcripts(t)
	if len(transcripts) != 1 {
		t.Fatalf("transcripts: %q", transcripts)
	}
	waitForFile(t, transcripts[0], "the cleared goal's sentinel", `"met":true,"sentinel":true`)
	g := graftRun{t: t, bin: bin, home: filepath.Join(c.Root, "graft"), env: c.Environ(), dir: c.Dir}
	tape := preparedTape(t, g, "claude-code", transcripts[0], "cleared")
	if s := tapeBlock(tape, "Task Status"); strings.Contains(s, "goal") {
		t.Errorf("Task Status names a goal the person cleared:\n%s", s)
	}
}
