package hosts_test

import (
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/graft-project/graft/internal/hosttest"
)

// The agent keeps its todo list in the real Gemini CLI 0.61.0's task
// tracker (settings experimental.taskTracker, which turns write_todos
// off; Gemini 3 models never get write_todos): it creates two tasks and
// closes the first. The host keeps the tracker per session, so the new
// session has none: the tape's Task Status carries the list as the host
// last showed it, and the tracker's calls are no actions of the work.
func TestGeminiTaskTrackerIsTheTapesTodoList(t *testing.T) {
	h := hosttest.Install(t)
	bin, _ := binaries(t)
	gs := hosttest.NewGeminiServer(t)
	gm := h.NewGemini(t, gs)
	gm.Settings["experimental"] = map[string]any{"taskTracker": true}
	created := regexp.MustCompile(`Created task ([0-9a-f]{6}): Write the grammar tests`)
	var mu sync.Mutex
	calls, first := 0, ""
	gs.SetReplyFunc(func(turn hosttest.GeminiTurn) hosttest.GeminiReply {
		mu.Lock()
		defer mu.Unlock()
		if !turn.Contains("Build the parser.") {
			return hosttest.GeminiReply{Text: "ok"}
		}
		if m := created.FindSubmatch(turn.Body); m != nil {
			first = string(m[1])
		}
		calls++
		switch calls {
		case 1:
			return hosttest.GeminiReply{Call: &hosttest.GeminiCall{Name: "tracker_create_task", Args: map[string]any{"title": "Write the grammar tests", "description": "Table tests of the grammar, before any parser code.", "type": "task"}}}
		case 2:
			return hosttest.GeminiReply{Call: &hosttest.GeminiCall{Name: "tracker_create_task", Args: map[string]any{"title": "Generate the parser with goyacc", "description": "From grammar.y.", "type": "task"}}}
		case 3:
			return hosttest.GeminiReply{Call: &hosttest.GeminiCall{Name: "tracker_update_task", Args: map[string]any{"id": first, "status": "closed"}}}
		}
		return hosttest.GeminiReply{Text: "The grammar tests are written; the parser is next."}
	})
	gm.Prompt(t, "Build the parser.", "--approval-mode", "yolo").Ok(t)
	if first == "" {
		t.Fatalf("the tracker created no task:\n%s", gs.Describe())
	}
	session := geminiSessionWith(t, gm, "the tracker's list", `"resultDisplay":{"todos"`)
	g := graftRun{t: t, bin: bin, home: filepath.Join(gm.Root, "graft"), env: gm.Environ(), dir: gm.Dir}
	tape := preparedTape(t, g, "gemini", session, "tracker")
	status := tapeBlock(tape, "Task Status")
	for _, w := range []string{"[completed] task: Write the grammar tests (" + first + ")", "[pending] task: Generate the parser with goyacc ("} {
		if !strings.Contains(status, w) {
			t.Errorf("Task Status lacks %q:\n%s", w, status)
		}
	}
	if a := tapeBlock(tape, "Recent Actions"); strings.Contains(a, "tracker_") {
		t.Errorf("Recent Actions lists the tracker's calls as work:\n%s", a)
	}
}

// The real Gemini CLI 0.61.0 records a shell command that exits non-zero
// as a call that went well (status "success"), its exit only in the
// output it gives its model ("Output: …\nExit Code: 3\nProcess Group
// PGID: N", in <untrusted_context>). The tape says it failed, quoting its
// output without those sections, and the command that worked as ok.
func TestGeminiFailedCommandIsAFailure(t *testing.T) {
	h := hosttest.Install(t)
	bin, _ := binaries(t)
	gs := hosttest.NewGeminiServer(t)
	gm := h.NewGemini(t, gs)
	var mu sync.Mutex
	calls := 0
	gs.SetReplyFunc(func(turn hosttest.GeminiTurn) hosttest.GeminiReply {
		mu.Lock()
		defer mu.Unlock()
		if !turn.Contains("Run the checks.") {
			return hosttest.GeminiReply{Text: "ok"}
		}
		calls++
		switch calls {
		case 1:
			return hosttest.GeminiReply{Call: &hosttest.GeminiCall{Name: "run_shell_command", Args: map[string]any{"command": "echo 'lint: 2 problems in parser.go' >&2; exit 3", "description": "lint"}}}
		case 2:
			return hosttest.GeminiReply{Call: &hosttest.GeminiCall{Name: "run_shell_command", Args: map[string]any{"command": "echo 'build ok'", "description": "build"}}}
		}
		return hosttest.GeminiReply{Text: "The build works; lint fails."}
	})
	gm.Prompt(t, "Run the checks.", "--approval-mode", "yolo").Ok(t)
	session := geminiSessionWith(t, gm, "the commands' results", "Exit Code: 3")
	g := graftRun{t: t, bin: bin, home: filepath.Join(gm.Root, "graft"), env: gm.Environ(), dir: gm.Dir}
	tape := preparedTape(t, g, "gemini", session, "checks")
	if p := tapeBlock(tape, "Pending State"); !strings.Contains(p, "FAILED") || !strings.Contains(p, "lint: 2 problems in parser.go") {
		t.Errorf("Pending State does not hold the failed lint:\n%s", p)
	}
	if a := tapeBlock(tape, "Recent Actions"); !strings.Contains(a, "ok: $ echo 'build ok'") || strings.Contains(a, "ok: $ echo 'lint") {
		t.Errorf("Recent Actions has the outcomes wrong:\n%s", a)
	}
	for _, section := range []string{"Process Group PGID", "Exit Code: 3", "untrusted_context"} {
		if strings.Contains(tape, section) {
			t.Errorf("the tape quotes the shell tool's section %q:\n%s", section, tape)
		}
	}
}
