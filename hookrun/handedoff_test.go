package hookrun_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/graft-project/graft/hookrun"
	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/importer"
)

// A prompt typed into a host session that was handed off is told where the
// work went on, even when what the host wrote since cannot be measured (the
// import cursor the stray count starts from is unreadable): the follow's
// failure is warned, and the note still goes to the model.
func TestAHandedOffSessionIsToldWhenItsNewLinesCannotBeRead(t *testing.T) {
	home, path := t.TempDir(), transcript(t)
	t.Setenv("CLAUDE_CONFIG_DIR", configOf(path))
	pre, err := hookrun.Parse(hosts.ClaudeCode, input(hookrun.PreCompact, path, `,"trigger":"manual"`), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := hookrun.Run(hosts.ClaudeCode, pre, opener(home), hookrun.Settings{InterceptCompaction: true})
	var d struct{ Decision string }
	if err := json.Unmarshal(out.Stdout, &d); err != nil || d.Decision != "block" {
		t.Fatalf("PreCompact: %s (%v) stderr %q, want the handoff's block", out.Stdout, err, out.Stderr)
	}
	// The person types into the old session anyway.
	appendLines(t, path, `{"type":"user","uuid":"u-stray","parentUuid":null,"timestamp":"2026-11-30T12:00:00.000Z","message":{"role":"user","content":"And now the docs, please."}}`)
	prompt, err := hookrun.Parse(hosts.ClaudeCode, input(hookrun.UserPromptSubmit, path, `,"prompt":"And now the docs, please."`), nil)
	if err != nil {
		t.Fatal(err)
	}
	contextOf := func(out hookrun.Outcome) string {
		t.Helper()
		var o struct {
			HookSpecificOutput struct{ AdditionalContext string }
		}
		if err := json.Unmarshal(out.Stdout, &o); err != nil {
			t.Fatalf("stdout %s: %v (stderr %q)", out.Stdout, err, out.Stderr)
		}
		return o.HookSpecificOutput.AdditionalContext
	}
	out = hookrun.Run(hosts.ClaudeCode, prompt, opener(home), hookrun.Settings{})
	if c := contextOf(out); !strings.Contains(c, "was handed off") || !strings.Contains(c, "claude --resume ") {
		t.Fatalf("a prompt in the handed-off session: context %q, want the note with the resume command", c)
	}
	// Now the cursor the stray count reads from is damaged.
	if err := os.WriteFile(importer.CursorPath(home, uuid), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	out = hookrun.Run(hosts.ClaudeCode, prompt, opener(home), hookrun.Settings{})
	if c := contextOf(out); !strings.Contains(c, "was handed off") || !strings.Contains(c, "claude --resume ") {
		t.Fatalf("with its cursor damaged: context %q, want the note all the same", c)
	}
	warned := false
	for _, l := range out.Stderr {
		warned = warned || strings.Contains(l, "following") && strings.Contains(l, importer.CursorPath(home, uuid))
	}
	if !warned {
		t.Fatalf("with its cursor damaged: stderr %q, want the follow's failure naming the cursor", out.Stderr)
	}
}
