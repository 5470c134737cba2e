package hosts_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/graft-project/graft/internal/hosttest"
)

// handoffNotes runs graft handoff of transcript to host and returns its
// result and the notes it gives the person.
func (g graftRun) handoffNotes(host, transcript, cwd string) (handoffResult, []string) {
	g.t.Helper()
	out := g.ok("handoff", host, "--transcript", transcript, "--cwd", cwd, "--yes", "--json")
	var res handoffResult
	var notes struct {
		Notes []string `json:"notes"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || json.Unmarshal([]byte(out), &notes) != nil {
		g.t.Fatalf("handoff --json: %v\n%s", err, out)
	}
	if res.HostSessionID == "" || res.Commit.TargetID == "" || !strings.Contains(res.ResumeCommand, res.HostSessionID) {
		g.t.Fatalf("handoff result %+v", res)
	}
	return res, notes.Notes
}

// checkGoalNote fails unless a note says the goal goes on in the new
// session, and none asks the person to set it again.
func checkGoalNote(t *testing.T, notes []string, objective string) {
	t.Helper()
	var said bool
	for _, n := range notes {
		if strings.Contains(n, "set it again") {
			t.Errorf("a note asks to set the goal again: %s", n)
		}
		said = said || strings.Contains(n, "goes on in the new session") && strings.Contains(n, objective)
	}
	if !said {
		t.Errorf("no note says the goal goes on in the new session: %q", notes)
	}
}

// The person leaves a goal active in the real interactive Claude Code
// 2.1.332 (/goal <condition>, its check not met, the loop stopped) and
// hands the session off to Claude Code: the export ends with the goal's
// goal_status attachment, and the resumed export has the goal active (the
// footer and /goal say so); when the person's first turn there ends,
// Claude Code sends the goal's check to the model. Without the record the
// resumed session has no goal.
func TestClaudeHandoffCarriesTheActiveGoal(t *testing.T) {
	h := hosttest.Install(t)
	bin, _ := binaries(t)
	srv := hosttest.NewModelServer(t)
	const condition = "The file done.txt exists"
	var mu sync.Mutex
	phase := "original"
	srv.SetReplyFunc(func(r hosttest.Request) hosttest.Reply {
		switch {
		case !r.IsClaudeModel():
			return hosttest.Reply{Text: "ok"}
		case len(r.ClaudeTools()) > 0:
			return hosttest.Reply{Text: "Working on it."}
		}
		mu.Lock()
		p := phase
		mu.Unlock()
		if p == "original" {
			time.Sleep(2 * time.Second) // the person stops the loop meanwhile
			return hosttest.Reply{Text: `{"ok": false, "reason": "done.txt is missing"}`}
		}
		return hosttest.Reply{Text: `{"ok": true}`}
	})
	c := h.NewClaude(t, srv)
	c.TrustProject(t)
	tm := hostTerminal(t, c.Environ(), c.Dir, "auto mode on", c.Bin)
	tm.Type("/goal " + condition)
	if screen, ok := tm.WaitFor(40*time.Second, "Goal not yet met"); !ok {
		t.Fatalf("the goal was not checked:\n%s", screen)
	}
	tm.Keys("Escape")
	time.Sleep(time.Second)
	tm.Quit("/exit")
	transcripts := c.Transcripts(t)
	if len(transcripts) != 1 {
		t.Fatalf("transcripts: %q", transcripts)
	}
	waitForFile(t, transcripts[0], "the goal's check", `"reason":"done.txt is missing"`)

	g := graftRun{t: t, bin: bin, home: filepath.Join(c.Root, "graft"), env: c.Environ(), dir: c.Dir}
	res, notes := g.handoffNotes("claude-code", transcripts[0], c.Dir)
	checkGoalNote(t, notes, condition)

	mu.Lock()
	phase = "resumed"
	mu.Unlock()
	before := len(srv.ModelRequests())
	tm2 := hostTerminal(t, c.Environ(), c.Dir, "auto mode on", c.Bin, "--resume", res.HostSessionID)
	tm2.Type("/goal")
	if screen, ok := tm2.WaitFor(15*time.Second, "Goal active"); !ok {
		t.Fatalf("the resumed export has no goal active:\n%s", lastLines(screen, 14))
	}
	tm2.Keys("Escape")
	time.Sleep(time.Second)
	tm2.Type("Go on.")
	if screen, ok := tm2.WaitFor(40*time.Second, "Goal achieved"); !ok {
		t.Fatalf("the goal was not checked after the person's turn:\n%s", lastLines(screen, 14))
	}
	var checked bool
	for _, r := range srv.ModelRequests()[before:] {
		checked = checked || r.IsClaudeModel() && len(r.ClaudeTools()) == 0 && r.Contains(condition)
	}
	if !checked {
		t.Fatalf("no check of %q reached the model after the resume", condition)
	}
}

// Claude Code 2.1.332 runs a goal as a session Stop hook: with the
// person's hooks disabled ("disableAllHooks": true in their settings) the
// resumed export has no goal, the goal record at its end notwithstanding
// (/goal says "No goal set"). graft's note says so, naming the file and
// the setting, instead of saying the goal goes on. The source is the
// real program's session of importer/claudecode/testdata up to its goal's
// first unmet check.
func TestClaudeRestoresNoGoalWithHooksOff(t *testing.T) {
	h := hosttest.Install(t)
	bin, _ := binaries(t)
	srv := hosttest.NewModelServer(t)
	srv.SetReplyFunc(func(r hosttest.Request) hosttest.Reply {
		if r.IsClaudeModel() && len(r.ClaudeTools()) == 0 {
			return hosttest.Reply{Text: `{"ok": true}`}
		}
		return hosttest.Reply{Text: "ok"}
	})
	c := h.NewClaude(t, srv)
	c.TrustProject(t)
	c.WriteUserSettings(t, map[string]any{"disableAllHooks": true})
	res, notes := handOffClaudeActiveGoal(t, bin, c)
	var said bool
	for _, n := range notes {
		if strings.Contains(n, "goes on in the new session") {
			t.Errorf("a note says the goal goes on: %s", n)
		}
		said = said || strings.Contains(n, "does not go on in the new session") && strings.Contains(n, `"disableAllHooks": true`) &&
			strings.Contains(n, filepath.Join(c.ConfigDir, "settings.json")) && strings.Contains(n, "/goal The file done.txt exists")
	}
	if !said {
		t.Errorf("no note says the goal does not go on, and why: %q", notes)
	}
	tm := hostTerminal(t, c.Environ(), c.Dir, "auto mode on", c.Bin, "--resume", res.HostSessionID)
	tm.Type("/goal")
	if screen, ok := tm.WaitFor(15*time.Second, "No goal set"); !ok {
		t.Fatalf("the resumed export has a goal with hooks disabled: the note is wrong:\n%s", lastLines(screen, 14))
	}
}

// handOffClaudeActiveGoal hands off to Claude Code, in c, the real
// Claude Code 2.1.332 session of importer/claudecode/testdata up to its
// goal's first unmet check (the goal active), written as a transcript of
// its own, and returns the result and the notes.
func handOffClaudeActiveGoal(t *testing.T, bin string, c *hosttest.ClaudeEnv) (handoffResult, []string) {
	t.Helper()
	fixture, err := os.ReadFile(filepath.Join("..", "importer", "claudecode", "testdata", "goal-2.1.332.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(fixture), "\n")
	if len(lines) < 17 || !strings.Contains(lines[13], `"reason":"done.txt is missing"`) {
		t.Fatalf("the fixture changed: %d lines", len(lines))
	}
	src := filepath.Join(t.TempDir(), "efaf955c-586a-48ac-affe-f6cc523fe179.jsonl")
	if err := os.WriteFile(src, []byte(strings.Join(lines[:17], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	g := graftRun{t: t, bin: bin, home: filepath.Join(c.Root, "graft"), env: c.Environ(), dir: c.Dir}
	return g.handoffNotes("claude-code", src, c.Dir)
}

// /goal refuses a workspace the person has not trusted, but a resume in
// one asks for that trust first, and once it is given the carried goal
// is active: the note's "it goes on" holds there too.
func TestClaudeRestoresTheGoalOnceTheWorkspaceIsTrusted(t *testing.T) {
	h := hosttest.Install(t)
	bin, _ := binaries(t)
	srv := hosttest.NewModelServer(t)
	c := h.NewClaude(t, srv)
	c.Onboard(t) // the folder not yet trusted
	res, notes := handOffClaudeActiveGoal(t, bin, c)
	checkGoalNote(t, notes, "The file done.txt exists")
	tm := hostTerminal(t, c.Environ(), c.Dir, "Yes, I trust this folder", c.Bin, "--resume", res.HostSessionID)
	tm.Keys("Down")
	time.Sleep(500 * time.Millisecond)
	tm.Keys("Enter")
	if screen, ok := tm.WaitFor(40*time.Second, "auto mode on"); !ok {
		t.Fatalf("the trusted resume did not open:\n%s", lastLines(screen, 14))
	}
	tm.Type("/goal")
	if screen, ok := tm.WaitFor(15*time.Second, "Goal active"); !ok {
		t.Fatalf("the resumed export has no goal active once trusted:\n%s", lastLines(screen, 14))
	}
}

// The person leaves a goal active in the real interactive Qwen Code
// 0.24.4 (/goal, its turn still running: stopped, Qwen Code would pause
// it) and hands the session off to
// Qwen Code: the export ends with the goal's goal_state record, and Qwen
// Code, resuming it, goes on working at the goal at once: its
// continuation requests ("Continue working on the active Goal", naming
// the objective) reach the model before the person types anything.
// Without the record the resumed session has no goal and sends none.
func TestQwenHandoffCarriesTheActiveGoal(t *testing.T) {
	q, srv, g := newQwenGraft(t)
	const objective = "Port the pager to Go"
	const cont = "Continue working on the active Goal"
	var mu sync.Mutex
	phase, conts := "original", 0
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	srv.SetReplyFunc(func(r hosttest.QwenRequest) hosttest.QwenReply {
		mu.Lock()
		p := phase
		if p == "resumed" && strings.Contains(r.LastUser(), cont) && strings.Contains(r.LastUser(), objective) {
			conts++
		}
		mu.Unlock()
		if p == "original" && strings.Contains(r.LastUser()+r.System(), objective) {
			select { // the goal's turn hangs: the goal stays active
			case <-release:
			case <-time.After(90 * time.Second):
			}
		}
		return hosttest.QwenReply{Text: "On it."}
	})
	q.Print(t, "Hello.").Ok(t)
	id, src := qwenSession(t, q)
	tm := hostTerminal(t, q.Environ(), q.Dir, "Hello.", q.Bin, "--resume", id)
	tm.Type("/goal " + objective)
	waitForFile(t, src, "Qwen Code's active goal", `"subtype":"goal_state"`, `"status":"active"`)
	time.Sleep(2 * time.Second)
	// Handed off while the goal's turn runs (stopping it would pause the
	// goal, which is not carried).
	res, notes := g.handoffNotes("qwen", src, q.Dir)
	checkGoalNote(t, notes, objective)

	mu.Lock()
	phase = "resumed"
	mu.Unlock()
	tm2 := hostTerminal(t, q.Environ(), q.Dir, "Understood", q.Bin, "--resume", res.HostSessionID)
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		mu.Lock()
		n := conts
		mu.Unlock()
		if n > 0 {
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatalf("no goal continuation reached the model within 20 s of the resume, untouched:\n%s", lastLines(tm2.Screen(), 14))
}

// lastLines are the last n non-blank lines of a screen.
func lastLines(s string, n int) string {
	var kept []string
	for _, l := range strings.Split(strings.TrimRight(s, "\n "), "\n") {
		if strings.TrimSpace(l) != "" {
			kept = append(kept, l)
		}
	}
	if len(kept) > n {
		kept = kept[len(kept)-n:]
	}
	return strings.Join(kept, "\n")
}
