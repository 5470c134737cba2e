package hosttest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// codexExecOutputRE is the function_call_output text Codex 0.171.0 writes
// for its unified-exec tools (exec_command, write_stdin): a header, then
// the command's output after "Output:\n". The third line is "Process
// exited with code N" once the process ended, "Process running with
// session ID N" while it still runs.
var codexExecOutputRE = regexp.MustCompile(`^Chunk ID: [0-9a-f]+\nWall time: \d+\.\d{4} seconds\n(Process exited with code (-?\d+)|Process running with session ID (\d+))\nOriginal token count: \d+\nOutput:\n((?s).*)$`)

// TestCodexExecCommandOutput makes the real Codex run shell commands
// through its exec_command tool (a fake model's function_call items) and
// records the exact text of each function_call_output in the rollout:
// a command that prints two lines and exits 3, one that exits 0, one
// still running when exec_command returns, and the write_stdin that
// collects its exit (importer/codex reads the exit code from that header).
func TestCodexExecCommandOutput(t *testing.T) {
	h := Install(t)
	srv := NewModelServer(t)
	e := h.NewCodex(t, srv)

	var mu sync.Mutex
	var tools []string
	var replyErr []string
	calls := []func(outs map[string]json.RawMessage) *FunctionCall{
		func(map[string]json.RawMessage) *FunctionCall {
			return &FunctionCall{Name: "exec_command", CallID: "call_fail", Arguments: `{"cmd":"printf 'FIRST-LINE\\nSECOND-LINE\\n'; exit 3"}`}
		},
		func(map[string]json.RawMessage) *FunctionCall {
			return &FunctionCall{Name: "exec_command", CallID: "call_ok", Arguments: `{"cmd":"echo ALL-FINE"}`}
		},
		func(map[string]json.RawMessage) *FunctionCall {
			return &FunctionCall{Name: "exec_command", CallID: "call_slow", Arguments: `{"cmd":"sleep 3; echo LATE-LINE; exit 5","yield_time_ms":500}`}
		},
		func(outs map[string]json.RawMessage) *FunctionCall {
			var s string
			if err := json.Unmarshal(outs["call_slow"], &s); err != nil {
				mu.Lock()
				replyErr = append(replyErr, fmt.Sprintf("call_slow's output %s: %v", outs["call_slow"], err))
				mu.Unlock()
				return nil
			}
			m := regexp.MustCompile(`Process running with session ID (\d+)`).FindStringSubmatch(s)
			if m == nil {
				mu.Lock()
				replyErr = append(replyErr, "call_slow's output has no session ID: "+s)
				mu.Unlock()
				return nil
			}
			return &FunctionCall{Name: "write_stdin", CallID: "call_poll", Arguments: `{"session_id":` + m[1] + `,"chars":"","yield_time_ms":10000}`}
		},
	}
	srv.SetReplyFunc(func(r Request) Reply {
		outs := r.CodexFunctionOutputs()
		mu.Lock()
		if tools == nil {
			tools = r.CodexTools()
		}
		mu.Unlock()
		if n := len(outs); n < len(calls) {
			if c := calls[n](outs); c != nil {
				return Reply{Call: c, InputTokens: DefaultInputTokens}
			}
		}
		return Reply{Text: "DONE-AFTER-COMMANDS", InputTokens: DefaultInputTokens}
	})
	res := e.Exec(t, "run the commands", "--sandbox", "danger-full-access")
	t.Logf("codex exec: %s", res)
	res.Ok(t)
	for _, s := range replyErr {
		t.Error(s)
	}
	t.Logf("tools offered: %v", tools)
	for _, want := range []string{"exec_command", "write_stdin"} {
		if !slices.Contains(tools, want) {
			t.Errorf("the request's tools %v do not offer %s", tools, want)
		}
	}

	files := e.Rollouts(t)
	if len(files) != 1 {
		t.Fatalf("rollouts: %v, want one", files)
	}
	outputs := map[string]string{}
	for _, l := range readJSONL(t, files[0]) {
		p, _ := l["payload"].(map[string]any)
		if l["type"] != "response_item" || p["type"] != "function_call_output" {
			if l["type"] == "response_item" && p["type"] == "function_call" {
				t.Logf("rollout function_call: %v", p)
			}
			continue
		}
		b, _ := json.Marshal(p)
		t.Logf("rollout function_call_output: %s", b)
		id, _ := p["call_id"].(string)
		s, ok := p["output"].(string)
		if !ok {
			t.Errorf("call %s: output %T %v, want a string", id, p["output"], p["output"])
		}
		outputs[id] = s
	}
	for _, c := range []struct {
		id, status, code, out string
	}{
		{"call_fail", "exited", "3", "FIRST-LINE\nSECOND-LINE\n"},
		{"call_ok", "exited", "0", "ALL-FINE\n"},
		{"call_slow", "running", "", ""},
		{"call_poll", "exited", "5", "LATE-LINE\n"},
	} {
		s, found := outputs[c.id]
		if !found {
			t.Errorf("no function_call_output for %s in the rollout", c.id)
			continue
		}
		m := codexExecOutputRE.FindStringSubmatch(s)
		if m == nil {
			t.Errorf("%s: output %q does not match %s", c.id, s, codexExecOutputRE)
			continue
		}
		switch c.status {
		case "exited":
			if m[2] != c.code || m[4] != c.out {
				t.Errorf("%s: exit %q output %q, want exit %s output %q (whole text %q)", c.id, m[2], m[4], c.code, c.out, s)
			}
		case "running":
			if m[3] == "" || strings.Contains(s, "Process exited") {
				t.Errorf("%s: %q, want a running session", c.id, s)
			}
		}
	}
}
