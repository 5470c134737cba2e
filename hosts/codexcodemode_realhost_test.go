package hosts_test

import (
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/graft-project/graft/internal/hosttest"
)

// Codex's code mode (0.171, features.code_mode; Codex's desktop app uses
// it): the model's calls are JavaScript for the custom tool exec, which
// calls the other tools as tools.<name>, and its output is the script's
// ("Script completed|failed|running with cell ID N", a wall time,
// "Output:", then what it printed); a script still running when exec
// yields is waited on with the function wait {"cell_id"}. graft had
// imported every call as "exec" with its script for a command: the tape
// showed JavaScript, no command, no failure and no file. A script that is
// one call is the call it makes; a command's exit comes from Codex's
// CommandExecution event; a wait is named by the command it waits on.
func TestCodexCodeModeCallsAreTheCallsTheirScriptsMake(t *testing.T) {
	h := hosttest.Install(t)
	bin, _ := binaries(t)
	srv := hosttest.NewModelServer(t)
	scripts := []string{
		`const r = await tools.exec_command({cmd:"printf 'FIRST-LINE\\nCODEMODE-FAIL-LINE\\n'; exit 3","yield_time_ms":10000}); text(r.output);` + "\n",
		`const r = await tools.exec_command({cmd:"echo CODEMODE-OK"}); text(r.output);` + "\n",
		`// @exec: {"yield_time_ms": 300}` + "\n" + `const r = await tools.exec_command({cmd:"sleep 2; echo CODEMODE-LATE; exit 4","yield_time_ms":10000}); text(r.output);` + "\n",
	}
	cellRE := regexp.MustCompile(`running with cell ID (\w+)`)
	var mu sync.Mutex
	var replyErr []string
	srv.SetReplyFunc(func(r hosttest.Request) hosttest.Reply {
		if !r.IsCodexModel() || r.IsCodexCompaction() {
			return hosttest.Reply{Text: "ok"}
		}
		outs := r.CodexFunctionOutputs()
		if _, waited := outs["call_wait"]; !waited {
			for _, o := range outs {
				if m := cellRE.FindStringSubmatch(string(o)); m != nil {
					return hosttest.Reply{Call: &hosttest.FunctionCall{Name: "wait", CallID: "call_wait", Arguments: `{"cell_id":"` + m[1] + `","yield_time_ms":10000}`}}
				}
			}
		}
		n := len(outs)
		if _, waited := outs["call_wait"]; waited {
			n--
		}
		if n < len(scripts) {
			return hosttest.Reply{Call: &hosttest.FunctionCall{Name: "exec", Custom: true, Arguments: scripts[n]}}
		}
		if n == len(scripts) && outs["call_wait"] == nil {
			mu.Lock()
			replyErr = append(replyErr, "no script ran in a cell left running: the wait was never asked for")
			mu.Unlock()
		}
		return hosttest.Reply{Text: "CODEMODE-DONE"}
	})
	x := h.NewCodex(t, srv)
	res := x.Exec(t, "Run the checks.", "--sandbox", "danger-full-access", "-c", "features.code_mode=true")
	res.Ok(t)
	for _, e := range replyErr {
		t.Error(e)
	}
	rollout := x.Rollouts(t)[0]
	g := graftRun{t: t, bin: bin, home: filepath.Join(x.Root, "graft"), env: x.Environ(), dir: x.Dir}
	tape := preparedTape(t, g, "codex", rollout, "cm")
	actions, pending := tapeBlock(tape, "Recent Actions"), tapeBlock(tape, "Pending State")
	for _, want := range []string{
		"ok: $ echo CODEMODE-OK",
		"FAILED: $ printf 'FIRST-LINE\\nCODEMODE-FAIL-LINE\\n'; exit 3",
		"wait FAILED: sleep 2; echo CODEMODE-LATE; exit 4",
	} {
		if !strings.Contains(actions, want) {
			t.Errorf("Recent Actions lacks %q:\n%s", want, actions)
		}
	}
	for _, want := range []string{"CODEMODE-FAIL-LINE", "CODEMODE-LATE"} {
		if !strings.Contains(pending, want) {
			t.Errorf("Pending State lacks the failure's %q:\n%s", want, pending)
		}
	}
	for _, never := range []string{"tools.exec_command", "Script completed", "Script running"} {
		if strings.Contains(tape, never) {
			t.Errorf("the tape shows the script's %q, not the call it made:\n%s", never, tape)
		}
	}
}
