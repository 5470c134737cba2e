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
	"github.com/graft-project/graft/txn"
)

// withConstraints appends to the Claude Code transcript at path six
// prompts of the person's, 35 constraints each (210 in all, each prompt
// shorter than the 3,000 bytes past which graft takes an instruction as
// pasted): a constraints block of about 14,000 characters, past the
// 10,000 Claude Code keeps. It returns the newest constraint.
func withConstraints(t *testing.T, path string) string {
	t.Helper()
	var lines []string
	k := 0
	for p := 0; p < 6; p++ {
		text := fmt.Sprintf("Part %d of the rules.", p+1)
		if p == 0 {
			text += " Never push to main without running the tests."
		}
		for end := k + 35; k < end; k++ {
			text += fmt.Sprintf(" Never rename the exported symbol Widget%03d in package api.", k)
		}
		line, err := json.Marshal(map[string]any{"type": "user", "uuid": fmt.Sprintf("u-rules-%d", p), "parentUuid": nil, "timestamp": fmt.Sprintf("2026-11-30T12:0%d:00.000Z", p),
			"message": map[string]any{"role": "user", "content": text}})
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(line))
	}
	appendLines(t, path, lines...)
	return "Never rename the exported symbol Widget209 in package api."
}

// sessionStartContext runs a SessionStart of source compact of the Claude
// Code session at path and returns its additionalContext.
func sessionStartContext(t *testing.T, home, path string) (string, hookrun.Outcome) {
	t.Helper()
	in, err := hookrun.Parse(hosts.ClaudeCode, input(hookrun.SessionStart, path, `,"source":"compact"`), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := hookrun.Run(hosts.ClaudeCode, in, opener(home), hookrun.Settings{})
	var o struct {
		HookSpecificOutput struct {
			HookEventName, AdditionalContext string
		}
	}
	if err := json.Unmarshal(out.Stdout, &o); err != nil || o.HookSpecificOutput.HookEventName != "SessionStart" {
		t.Fatalf("SessionStart after compaction: %s (%v) stderr %q", out.Stdout, err, out.Stderr)
	}
	return o.HookSpecificOutput.AdditionalContext, out
}

// checkCutToFit fails unless ctx is within Claude Code's 10,000 UTF-16
// code units, ends with the constraints block's cut line, and holds the
// block's anchor line and oldest constraint but not newest.
func checkCutToFit(t *testing.T, ctx, session, newest string) {
	t.Helper()
	lines := strings.Split(ctx, "\n")
	last := lines[len(lines)-1]
	if n := len(utf16.Encode([]rune(ctx))); n > 10000 || !strings.HasPrefix(last, "[cut: ") || !strings.Contains(last, " constraints; recall seq=") || !strings.HasSuffix(last, "]") {
		t.Fatalf("the context is %d UTF-16 units, its last line %q; want at most 10000 and the cut line:\n%s", n, last, ctx)
	}
	for _, want := range []string{"[Anchor + Hard Constraints]", "[ANCHOR] Core constraints originate from generation 1 session " + session, "- Never push to main without running the tests. (seq ", "Widget000 "} {
		if !strings.Contains(ctx, want) {
			t.Errorf("the context lacks %q:\n%s", want, ctx)
		}
	}
	if strings.Contains(ctx, newest) {
		t.Errorf("the newest constraint was kept, not cut:\n%s", ctx)
	}
}

// Claude Code gives its model a hook's additionalContext past 10,000
// UTF-16 code units only as a file's path and a 2 KB preview: after a
// compaction, a constraints block past them is given within them, its
// newest constraints cut and its cut line, which names them, last and
// whole.
func TestClaudeCodeSessionStartFitsTheConstraintsInClaudesCap(t *testing.T) {
	home, path := t.TempDir(), transcriptOf(t, "4d5611e5-241a-462a-8d15-5122611a9569.jsonl")
	newest := withConstraints(t, path)
	ctx, out := sessionStartContext(t, home, path)
	checkCutToFit(t, ctx, uuid, newest)
	if len(out.Stderr) != 0 {
		t.Errorf("stderr %q", out.Stderr)
	}
}

// The recovery notes SessionStart gives with the block come first: the
// block gets the room they leave.
func TestClaudeCodeSessionStartFitsNotesAndConstraintsInClaudesCap(t *testing.T) {
	// A handoff of another session killed before its export: the
	// SessionStart's recovery scan finishes it and says so.
	home, _, cfg, _, _ := killedHandoff(t, txn.CommitJournalRemoved)
	const other = "7a1e6b0c-3d2f-4e5a-8b9c-0d1e2f3a4b5c"
	data, err := os.ReadFile(filepath.Join(cfg, "projects", "-w", uuid+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(cfg, "projects", "-w", other+".jsonl")
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(string(data), uuid, other)), 0o600); err != nil {
		t.Fatal(err)
	}
	newest := withConstraints(t, path)
	in, err := hookrun.Parse(hosts.ClaudeCode, []byte(`{"session_id":"`+other+`","transcript_path":"`+path+`","cwd":"`+filepath.Dir(path)+`","hook_event_name":"SessionStart","source":"compact"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := hookrun.Run(hosts.ClaudeCode, in, opener(home), hookrun.Settings{})
	var o struct {
		HookSpecificOutput struct{ AdditionalContext string }
	}
	if err := json.Unmarshal(out.Stdout, &o); err != nil {
		t.Fatalf("SessionStart after compaction: %s (%v) stderr %q", out.Stdout, err, out.Stderr)
	}
	ctx := o.HookSpecificOutput.AdditionalContext
	if !strings.HasPrefix(ctx, "graft finished a handoff that was stopped before its export: ") {
		t.Fatalf("the context does not open with the recovery note:\n%s", ctx)
	}
	checkCutToFit(t, ctx, other, newest)
}
