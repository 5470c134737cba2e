package hookrun_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graft-project/graft/hookrun"
	"github.com/graft-project/graft/hosts"
)

// qwenSession writes a Qwen Code session where it keeps them
// ($QWEN_HOME/projects/<folder>/chats/<uuid>.jsonl, QWEN_HOME set for the
// test): the person's prompt with a constraint and a reply that reports
// no usage.
func qwenSession(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	t.Setenv("QWEN_HOME", root)
	t.Setenv("QWEN_RUNTIME_DIR", "")
	chats := filepath.Join(root, "projects", "-w", "chats")
	if err := os.MkdirAll(chats, 0o700); err != nil {
		t.Fatal(err)
	}
	lines := `{"uuid":"u1","parentUuid":null,"sessionId":"` + uuid + `","timestamp":"2026-12-01T10:00:00.000Z","type":"user","cwd":"/w","version":"0.24.4","provenance":"real_user","message":{"role":"user","parts":[{"text":"Port the pager to Go. Never push to main without running the tests."}]}}
{"uuid":"u2","parentUuid":"u1","sessionId":"` + uuid + `","timestamp":"2026-12-01T10:00:01.000Z","type":"assistant","cwd":"/w","version":"0.24.4","model":"qwen","message":{"role":"model","parts":[{"text":"On it."}]}}
`
	p := filepath.Join(chats, uuid+".jsonl")
	if err := os.WriteFile(p, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Qwen Code's compression cannot be stopped: PreCompact follows and gives
// the constraints block, with its origin, as additionalContext (which
// Qwen Code puts into the summary request), interception on or off.
func TestQwenPreCompactGivesTheConstraints(t *testing.T) {
	home, path := t.TempDir(), qwenSession(t)
	in, err := hookrun.Parse("qwen", input(hookrun.PreCompact, path, `,"trigger":"auto"`), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, intercept := range []bool{false, true} {
		out := hookrun.Run("qwen", in, opener(home), hookrun.Settings{InterceptCompaction: intercept})
		var o struct {
			Decision           string
			HookSpecificOutput struct {
				HookEventName, AdditionalContext string
			}
		}
		if err := json.Unmarshal(out.Stdout, &o); err != nil || o.Decision != "" || o.HookSpecificOutput.HookEventName != "PreCompact" ||
			!strings.Contains(o.HookSpecificOutput.AdditionalContext, "[Anchor + Hard Constraints]") ||
			!strings.Contains(o.HookSpecificOutput.AdditionalContext, "[ANCHOR] Core constraints originate from generation 1 session "+uuid) ||
			!strings.Contains(o.HookSpecificOutput.AdditionalContext, "Never push to main without running the tests.") {
			t.Fatalf("intercept %v: PreCompact: %s (%v) stderr %q, want the constraints block and no decision", intercept, out.Stdout, err, out.Stderr)
		}
		if out.Session != uuid {
			t.Fatalf("PreCompact followed %q, want %s", out.Session, uuid)
		}
	}
	bs, err := hosts.List(sessionsOf(t, mustOpen(t, home)).FS, home)
	if err != nil || len(bs) != 1 {
		t.Fatalf("bindings %+v %v, want the followed session only (no handoff)", bs, err)
	}
}

// A Stop that reports input_tokens is measured by them: the transcript's
// last reply reports none.
func TestQwenStopMeasuresInputTokens(t *testing.T) {
	home, path := t.TempDir(), qwenSession(t)
	set := hookrun.Settings{AutoGraft: 100000}
	in, err := hookrun.Parse("qwen", input(hookrun.Stop, path, ""), nil)
	if err != nil {
		t.Fatal(err)
	}
	if out := hookrun.Run("qwen", in, opener(home), set); len(out.Stdout) != 0 {
		t.Fatalf("a Stop without input_tokens, of a transcript without usage, said %s", out.Stdout)
	}
	for tokens, fires := range map[string]bool{"99999": false, "150000": true} {
		in, err := hookrun.Parse("qwen", input(hookrun.Stop, path, `,"input_tokens":`+tokens+`,"context_limit":262144`), nil)
		if err != nil {
			t.Fatal(err)
		}
		out := hookrun.Run("qwen", in, opener(home), set)
		var msg struct {
			SystemMessage string `json:"systemMessage"`
		}
		if !fires {
			if len(out.Stdout) != 0 {
				t.Fatalf("input_tokens %s, below autoGraft: %s", tokens, out.Stdout)
			}
			continue
		}
		if err := json.Unmarshal(out.Stdout, &msg); err != nil || !strings.Contains(msg.SystemMessage, "context is at 150000 tokens (autoGraft 100000)") || !strings.Contains(msg.SystemMessage, "handoff qwen --session-id "+uuid) {
			t.Fatalf("input_tokens %s: %s (%v), want the handoff offered", tokens, out.Stdout, err)
		}
	}
}
