package hookrun_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/graft-project/graft/hookrun"
	"github.com/graft-project/graft/hosts"
)

// qwenSession writes a Qwen Code session where it keeps them
// ($QWEN_HOME/projects/<folder>/chats/<uuid>.jsonl, QWEN_HOME set for the
// test): the person's prompt with a constraint and a reply that reports
// no usage, then each of more, a prompt and its reply.
func qwenSession(t *testing.T, more ...string) string {
	t.Helper()
	root := t.TempDir()
	t.Setenv("QWEN_HOME", root)
	t.Setenv("QWEN_RUNTIME_DIR", "")
	chats := filepath.Join(root, "projects", "-w", "chats")
	if err := os.MkdirAll(chats, 0o700); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	parent := "null"
	record := func(typ, role, text string) {
		id := fmt.Sprintf("u%d", strings.Count(b.String(), "\n")+1)
		rec := map[string]any{"uuid": id, "sessionId": uuid, "timestamp": "2026-12-01T10:00:00.000Z", "type": typ, "cwd": "/w", "version": "0.24.4",
			"message": map[string]any{"role": role, "parts": []map[string]string{{"text": text}}}}
		if role == "user" {
			rec["provenance"] = "real_user"
		} else {
			rec["model"] = "qwen"
		}
		line, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		// parentUuid first, as Qwen Code writes it; null for the first.
		b.WriteString(`{"parentUuid":` + parent + `,` + string(line[1:]) + "\n")
		parent = `"` + id + `"`
	}
	prompts := append([]string{"Port the pager to Go. Never push to main without running the tests."}, more...)
	for _, p := range prompts {
		record("user", "user", p)
		record("assistant", "model", "On it.")
	}
	p := filepath.Join(chats, uuid+".jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
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

// Qwen Code keeps the first 4,000 characters of PreCompact's context: a
// constraints block past them is given within them, its newest
// constraints cut and its cut line, which names them, last and whole.
func TestQwenPreCompactFitsTheConstraintsInQwensCap(t *testing.T) {
	var more []string
	for k := 0; k < 60; k++ {
		more = append(more, fmt.Sprintf("Step %d. Never rename the exported symbol Widget%03d in package api.", k, k))
	}
	home, path := t.TempDir(), qwenSession(t, more...)
	in, err := hookrun.Parse("qwen", input(hookrun.PreCompact, path, `,"trigger":"manual"`), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := hookrun.Run("qwen", in, opener(home), hookrun.Settings{})
	var o struct {
		HookSpecificOutput struct {
			HookEventName, AdditionalContext string
		}
	}
	if err := json.Unmarshal(out.Stdout, &o); err != nil || o.HookSpecificOutput.HookEventName != "PreCompact" {
		t.Fatalf("PreCompact: %s (%v) stderr %q", out.Stdout, err, out.Stderr)
	}
	ctx := o.HookSpecificOutput.AdditionalContext
	lines := strings.Split(ctx, "\n")
	last := lines[len(lines)-1]
	if n := len(utf16.Encode([]rune(ctx))); n > 4000 || !strings.HasPrefix(last, "[cut: ") || !strings.Contains(last, " constraints; recall seq=") || !strings.HasSuffix(last, "]") {
		t.Fatalf("the context is %d UTF-16 units, its last line %q; want at most 4000 and the cut line:\n%s", n, last, ctx)
	}
	for _, want := range []string{"[Anchor + Hard Constraints]", "[ANCHOR] Core constraints originate from generation 1 session " + uuid, "- Never push to main without running the tests. (seq 1)", "Widget000 "} {
		if !strings.Contains(ctx, want) {
			t.Errorf("the context lacks %q:\n%s", want, ctx)
		}
	}
	if strings.Contains(ctx, "Widget059 ") {
		t.Errorf("the newest constraint was kept, not cut:\n%s", ctx)
	}
	if len(out.Stderr) != 0 {
		t.Errorf("stderr %q", out.Stderr)
	}
}
