package hosts_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/graft-project/graft/internal/hosttest"
)

// plansDir finds the plans folder Gemini CLI names in its plan-mode
// instructions to the model (<home>/.gemini/tmp/<project>/<session>/plans).
func plansDir(home string) *regexp.Regexp {
	return regexp.MustCompile(regexp.QuoteMeta(home) + `/\.gemini/tmp/[^\s"\x60/]+/[^\s"\x60/]+/plans`)
}

// The person plans with the real interactive Gemini CLI 0.61.0 in plan
// mode (--approval-mode plan): the agent writes its plan into the plans
// folder and asks for approval with exit_plan_mode {plan_filename}; the
// person turns the first plan down with words ("Type your feedback..."),
// which Gemini CLI gives the model only inside the call's result ("Plan
// rejected. User feedback: …", its bundle holds the text); the second they
// approve ("Plan approved. …"). graft imports the feedback as the person's
// instruction and the turned-down call as declined; the tape's Task Status
// carries the approved plan, whole, and Pending State names no plan exit.
func TestGeminiPlanModeIsTheTapesPlan(t *testing.T) {
	h := hosttest.Install(t)
	bin, _ := binaries(t)
	gs := hosttest.NewGeminiServer(t)
	const feedback = "Use goyacc, and write the grammar tests first."
	gm := h.NewGemini(t, gs)
	home := ""
	for _, kv := range gm.Environ() {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	plans := plansDir(home)
	var mu sync.Mutex
	calls := 0
	dir := ""
	gs.SetReplyFunc(func(turn hosttest.GeminiTurn) hosttest.GeminiReply {
		mu.Lock()
		defer mu.Unlock()
		if !turn.Contains("Plan the parser.") {
			return hosttest.GeminiReply{Text: "ok"}
		}
		if m := plans.Find(turn.Body); m != nil && dir == "" {
			dir = string(m)
		}
		calls++
		switch calls {
		case 1:
			return hosttest.GeminiReply{Call: &hosttest.GeminiCall{Name: "write_file", Args: map[string]any{"file_path": dir + "/parser.md", "content": "# Parser plan\n\n1. Tokenise with a hand-written lexer.\n2. Recursive descent, no generator.\n"}}}
		case 2, 4:
			return hosttest.GeminiReply{Call: &hosttest.GeminiCall{Name: "exit_plan_mode", Args: map[string]any{"plan_filename": "parser.md"}}}
		case 3:
			return hosttest.GeminiReply{Call: &hosttest.GeminiCall{Name: "write_file", Args: map[string]any{"file_path": dir + "/parser.md", "content": "# Parser plan\n\n1. Write the grammar tests first.\n2. Generate the parser with goyacc.\n"}}}
		}
		return hosttest.GeminiReply{Text: "Noted."}
	})
	gm.Prompt(t, "Hello.").Ok(t)
	tm := hostTerminal(t, gm.Environ(), gm.Dir, "Hello.", gm.Bin, gm.Entry, "--resume", "latest", "--approval-mode", "plan")
	tm.Type("Plan the parser.")
	if screen, ok := tm.WaitFor(30*time.Second, "Ready to start implementation?", "hand-written lexer"); !ok {
		t.Fatalf("no plan approval for the first plan:\n%s", screen)
	}
	time.Sleep(time.Second)
	tm.Keys("Down", "Down", "Enter") // "Type your feedback..."
	time.Sleep(time.Second)
	tm.Type(feedback)
	if screen, ok := tm.WaitFor(30*time.Second, "Ready to start implementation?", "goyacc"); !ok {
		t.Fatalf("no plan approval for the second plan:\n%s", screen)
	}
	time.Sleep(time.Second) // the dialog takes keys once drawn
	tm.Keys("Enter")        // "Yes, automatically accept edits"
	if screen, ok := tm.WaitFor(30*time.Second, "Noted."); !ok {
		t.Fatalf("the turn did not end:\n%s", screen)
	}
	session := geminiSessionWith(t, gm, "Gemini CLI's approval", "Plan approved.")
	tm.Quit("/quit")
	g := graftRun{t: t, bin: bin, home: filepath.Join(gm.Root, "graft"), env: gm.Environ(), dir: gm.Dir}
	checkPlanCarried(t, g, "gemini", session, "goyacc", "hand-written lexer", feedback)
}

// The person plans with the real interactive Qwen Code 0.24.4 in plan mode:
// the agent asks for approval with exit_plan_mode {plan}; the person
// approves ("User approved. …"). The tape's Task Status carries the plan
// as approved.
func TestQwenPlanModeIsTheTapesPlan(t *testing.T) {
	q, srv, g := newQwenGraft(t)
	var mu sync.Mutex
	calls := 0
	srv.SetReplyFunc(func(r hosttest.QwenRequest) hosttest.QwenReply {
		mu.Lock()
		defer mu.Unlock()
		if !r.Contains("Plan the parser.") {
			return hosttest.QwenReply{Text: "ok"}
		}
		if calls++; calls == 1 {
			return hosttest.QwenReply{ToolCalls: []hosttest.QwenToolCall{{ID: "call_plan", Name: "exit_plan_mode", Arguments: `{"plan":"# Parser plan\n\n1. Write the grammar tests first.\n2. Generate the parser with goyacc."}`}}}
		}
		return hosttest.QwenReply{Text: "Noted."}
	})
	q.Print(t, "Hello.").Ok(t)
	id, src := qwenSession(t, q)
	tm := hostTerminal(t, q.Environ(), q.Dir, "Hello.", q.Bin, "--resume", id, "--approval-mode", "plan")
	tm.Type("Plan the parser.")
	if screen, ok := tm.WaitFor(30*time.Second, "Would you like to proceed?", "goyacc"); !ok {
		t.Fatalf("no plan approval:\n%s", screen)
	}
	time.Sleep(time.Second)
	tm.Keys("Enter") // "Yes, restore previous mode"
	waitForFile(t, src, "Qwen Code's approval", "User approved.")
	tm.Quit("/quit")
	checkPlanCarried(t, g, "qwen", src, "goyacc", "", "")
}

// checkPlanCarried fails unless the tape of transcript carries the plan
// holding want as approved in its Task Status (and not the plan holding
// gone), said names the person's words among the Goal's instructions, and
// Pending State names no plan exit.
func checkPlanCarried(t *testing.T, g graftRun, host, transcript, want, gone, said string) {
	t.Helper()
	tape := preparedTape(t, g, host, transcript, "plan")
	status := tapeBlock(tape, "Task Status")
	if !strings.Contains(status, "approved by the user") || strings.Contains(status, "not approved") || !strings.Contains(status, want) {
		t.Errorf("Task Status does not carry the approved plan (%q):\n%s", want, status)
	}
	if gone != "" && strings.Contains(status, gone) {
		t.Errorf("Task Status carries the plan turned down (%q):\n%s", gone, status)
	}
	if g := tapeBlock(tape, "Goal"); said != "" && !strings.Contains(g, said) {
		t.Errorf("the Goal lacks the person's feedback %q:\n%s", said, g)
	}
	if p := tapeBlock(tape, "Pending State"); strings.Contains(p, "exit_plan_mode") {
		t.Errorf("Pending State names a plan exit:\n%s", p)
	}
}

// The person plans with the real interactive Codex 0.171 in Plan mode
// (/plan): the model ends its turn with the plan in a <proposed_plan>
// block, Codex asks "Implement this plan?", and the person's yes ("Yes,
// implement this plan": Switch to Default and start coding) leaves Plan
// mode and sends "Implement the plan.". The tape's Task Status carries
// the plan as the one the person approved, quoted once: the message it
// stood in keeps a pointer to it.
func TestCodexPlanModeIsTheTapesPlan(t *testing.T) {
	h := hosttest.Install(t)
	bin, _ := binaries(t)
	srv := hosttest.NewModelServer(t)
	const plan = "# Parser plan\n\n1. Write the grammar tests first.\n2. Generate the parser with goyacc."
	srv.SetReplyFunc(func(r hosttest.Request) hosttest.Reply {
		switch {
		case !r.IsCodexModel() || r.IsCodexCompaction():
			return hosttest.Reply{Text: "ok"}
		case r.Contains("Implement the plan."):
			return hosttest.Reply{Text: "Implementing the parser."}
		case r.Contains("Plan the parser."):
			return hosttest.Reply{Text: "Here is the plan.\n\n<proposed_plan>\n" + plan + "\n</proposed_plan>"}
		}
		return hosttest.Reply{Text: "On it."}
	})
	x := h.NewCodex(t, srv)
	x.Exec(t, "Hello.").Ok(t)
	rollout := x.Rollouts(t)[0]
	tm := hostTerminal(t, x.Environ(), x.Dir, "Hello.", x.Bin, "resume", hosttest.RolloutID(rollout))
	tm.Type("/plan")
	time.Sleep(time.Second)
	tm.Type("Plan the parser.")
	if screen, ok := tm.WaitFor(60*time.Second, "Implement this plan?"); !ok {
		t.Fatalf("Codex did not ask to implement the plan:\n%s", screen)
	}
	time.Sleep(time.Second)
	tm.Keys("Enter") // "Yes, implement this plan"
	if screen, ok := tm.WaitFor(60*time.Second, "Implementing the parser."); !ok {
		t.Fatalf("the plan was not implemented:\n%s", screen)
	}
	tm.Quit("/quit")
	x.StopAppServer(t)
	if data, err := os.ReadFile(rollout); err != nil || !strings.Contains(string(data), "Implement the plan.") {
		t.Fatalf("Codex's yes did not send \"Implement the plan.\" (%v):\n%s", err, data)
	}
	g := graftRun{t: t, bin: bin, home: filepath.Join(x.Root, "graft"), env: x.Environ(), dir: x.Dir}
	tape := preparedTape(t, g, "codex", rollout, "plan")
	status := tapeBlock(tape, "Task Status")
	if !strings.Contains(status, "approved by the user") || !strings.Contains(status, "goyacc") {
		t.Errorf("Task Status does not carry the approved plan:\n%s", status)
	}
	if n := strings.Count(tape, "Write the grammar tests first."); n != 1 {
		t.Errorf("the tape quotes the plan %d times:\n%s", n, tape)
	}
}
