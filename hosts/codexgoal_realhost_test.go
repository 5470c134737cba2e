package hosts_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/graft-project/graft/internal/hosttest"
)

// The person sets a goal in the real interactive Codex (/goal, 0.171):
// Codex writes it as its own context for the model ("<codex_internal_context
// source=\"user_goal\">User set the goal: \"…\""), a thread_goal_updated
// event and a goal_objective output with no call before it, then pursues
// the goal turn after turn. graft imports the person's goal as their
// instruction, "/goal <objective>", the way it imports a Claude Code slash
// command, and the goal_objective output as the host's context, with no
// warning; the tape quotes the goal as the latest instruction, and its Task
// Status says the goal is complete once the model marked it met.
func TestCodexGoalIsThePersonsInstruction(t *testing.T) {
	h := hosttest.Install(t)
	bin, _ := binaries(t)
	srv := hosttest.NewModelServer(t)
	const objective = `Port the "pager" to Go`
	var mu sync.Mutex
	completed := false // the model marked the goal complete
	srv.SetReplyFunc(func(r hosttest.Request) hosttest.Reply {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case !r.IsCodexModel() || r.IsCodexCompaction():
			return hosttest.Reply{Text: "ok"}
		case completed:
			return hosttest.Reply{Text: "The goal is met."}
		case r.Contains("Continue working toward the active thread goal"):
			completed = true
			return hosttest.Reply{Call: &hosttest.FunctionCall{Name: "update_goal", Arguments: `{"status":"complete"}`}}
		}
		return hosttest.Reply{Text: "On it."}
	})
	x := h.NewCodex(t, srv)
	x.Exec(t, "Hello.").Ok(t)
	rollout := x.Rollouts(t)[0]
	tm := hostTerminal(t, x.Environ(), x.Dir, "Hello.", x.Bin, "resume", hosttest.RolloutID(rollout))
	tm.Type("/goal " + objective)
	if screen, ok := tm.WaitFor(60*time.Second, "The goal is met."); !ok {
		t.Fatalf("the goal was not pursued to its end:\n%s", screen)
	}
	tm.Quit("/quit")
	// A goal runs in Codex's app-server daemon, which outlives the
	// terminal.
	x.StopAppServer(t)

	g := graftRun{t: t, bin: bin, home: filepath.Join(x.Root, "graft"), env: x.Environ(), dir: x.Dir}
	out := g.ok("import", "codex", rollout, "--id", "goal", "--json")
	var sum struct {
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("graft import --json: %v\n%s", err, out)
	}
	if len(sum.Warnings) > 0 {
		t.Errorf("the import warned: %q", sum.Warnings)
	}
	shown := g.ok("show", "goal")
	if !strings.Contains(shown, "user      /goal "+objective) {
		t.Errorf("graft show lacks the person's goal as their instruction:\n%s", shown)
	}
	var rv struct {
		Goal []struct {
			Text string `json:"text"`
		} `json:"goal"`
		Tape string `json:"tape"`
	}
	prep := g.ok("prepare", "goal", "--json")
	if err := json.Unmarshal([]byte(prep), &rv); err != nil {
		t.Fatalf("graft prepare --json: %v\n%s", err, prep)
	}
	if n := len(rv.Goal); n == 0 || rv.Goal[n-1].Text != "/goal "+objective {
		t.Errorf("the review's latest instruction is not the goal: %+v", rv.Goal)
	}
	// The model marked the goal met with update_goal (Codex writes no
	// thread_goal_updated for it: the tool's output says so): Task Status
	// names the goal complete, and the goal tool is no action of the work.
	checkGoalCarried(t, rv.Tape, "complete", objective)
	if strings.Contains(rv.Tape, "update_goal ok") {
		t.Errorf("the tape lists update_goal as an action:\n%s", rv.Tape)
	}
}

// The person clears a goal in the real interactive Codex 0.171 (/goal
// clear): Codex says so only in its context for the model ("User cleared
// the goal."), with no thread_goal_updated. The tape's Task Status names no
// goal; the person's /goal stays their instruction.
func TestCodexClearedGoalIsNone(t *testing.T) {
	h := hosttest.Install(t)
	bin, _ := binaries(t)
	srv := hosttest.NewModelServer(t)
	srv.SetReplyFunc(func(hosttest.Request) hosttest.Reply { return hosttest.Reply{Text: "On it."} })
	x := h.NewCodex(t, srv)
	x.Exec(t, "Hello.").Ok(t)
	rollout := x.Rollouts(t)[0]
	tm := hostTerminal(t, x.Environ(), x.Dir, "Hello.", x.Bin, "resume", hosttest.RolloutID(rollout))
	tm.Type("/goal Port the pager to Go")
	waitForFile(t, rollout, "the goal Codex pursues", `"type":"thread_goal_updated"`)
	tm.Type("/goal clear")
	waitForFile(t, rollout, "the cleared goal", `User cleared the goal.`)
	tm.Quit("/quit")
	x.StopAppServer(t)
	g := graftRun{t: t, bin: bin, home: filepath.Join(x.Root, "graft"), env: x.Environ(), dir: x.Dir}
	tape := preparedTape(t, g, "codex", rollout, "cleared")
	if s := tapeBlock(tape, "Task Status"); strings.Contains(s, "goal") {
		t.Errorf("Task Status names a goal the person cleared:\n%s", s)
	}
	if g := tapeBlock(tape, "Goal"); !strings.Contains(g, "/goal Port the pager to Go") {
		t.Errorf("the Goal lacks the person's /goal:\n%s", g)
	}
}
