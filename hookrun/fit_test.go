package hookrun

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/hosts/adapter"
	"github.com/graft-project/graft/internal/testfixtures"
	"github.com/graft-project/graft/tape"
)

// fitConstraints gives the block what the text before it and the
// reserved text leave of the cap, as the host counts; no room, or a
// block that does not fit, is tape.ErrBudget; no cap is no cap.
func TestFitConstraintsGivesTheBlockTheRoomLeft(t *testing.T) {
	units := func(s string) int { return len(utf16.Encode([]rune(s))) }
	var asked int
	block := func(max int, length func(string) int) (string, error) {
		asked = max
		if max != 0 && max < 10 {
			return "", tape.ErrBudget
		}
		return "[block]", nil
	}
	for _, c := range []struct {
		name             string
		reserved, before string
		max              int
		want             string
		room             int
		budget           bool
	}{
		{"no cap", "", "notes\n\n", 0, "notes\n\n[block]", 0, false},
		{"the notes' room", "", "notes😀\n\n", 100, "notes😀\n\n[block]", 100 - 9, false},
		{"the notices' room too", "told\n\n", "notes\n\n", 100, "notes\n\n[block]", 100 - 6 - 7, false},
		{"too little left for the block", "", strings.Repeat("n", 95), 100, "", 5, true},
		{"nothing left", "", strings.Repeat("n", 100), 100, "", -1, true},
	} {
		asked = -1
		got, err := fitConstraints(c.reserved, c.before, c.max, units, block)
		if got != c.want || asked != c.room || errors.Is(err, tape.ErrBudget) != c.budget {
			t.Errorf("%s: %q, block asked for %d, err %v; want %q, %d, ErrBudget %v", c.name, got, asked, err, c.want, c.room, c.budget)
		}
	}
}

// When not even the block's anchor line fits in what the notes leave, the
// notes go alone and stderr says why.
func TestWithConstraintsGivesTheNotesWhenTheBlockDoesNotFit(t *testing.T) {
	data, err := os.ReadFile(testfixtures.Path(t, "claude-code", "short.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", cfg)
	path := filepath.Join(cfg, "projects", "-w", "0f3c9a52-6f0e-4c1b-9a57-1d2e3f4a5b6c.jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	line := `{"type":"user","uuid":"u-extra","parentUuid":null,"timestamp":"2026-11-30T12:00:00.000Z","message":{"role":"user","content":"Never push to main without running the tests."}}` + "\n"
	if err := os.WriteFile(path, append(data, line...), 0o600); err != nil {
		t.Fatal(err)
	}
	svc, err := graft.Open(t.TempDir(), graft.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fr, err := svc.Follow(hosts.ClaudeCode, path, "", "/w", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		max   int
		block bool
	}{{"room for the block", 2000, true}, {"no room for its anchor line", 400, false}} {
		out := &Outcome{}
		h := &handler{host: hosts.ClaudeCode, hooks: adapter.Hooks{Events: adapter.GraftNamed(), ContextMax: c.max}, in: &Input{HookEventName: SessionStart}, svc: svc, out: out}
		note := strings.Repeat("n", 200)
		h.withConstraints(fr.Session, []string{note}, "")
		var o struct {
			HookSpecificOutput struct{ AdditionalContext string }
		}
		if err := json.Unmarshal(out.Stdout, &o); err != nil {
			t.Fatalf("%s: %s: %v", c.name, out.Stdout, err)
		}
		ctx := o.HookSpecificOutput.AdditionalContext
		if c.block {
			if !strings.HasPrefix(ctx, note+"\n\n[graft:tape ") || !strings.Contains(ctx, "Never push to main") || utf8.RuneCountInString(ctx) > c.max || len(out.Stderr) != 0 {
				t.Errorf("%s: the context %q, stderr %q; want the note, then the block within %d", c.name, ctx, out.Stderr, c.max)
			}
			continue
		}
		if ctx != note || len(out.Stderr) != 1 || !strings.Contains(out.Stderr[0], "the constraints of "+fr.Session+" are not given") || !strings.Contains(out.Stderr[0], tape.ErrBudget.Error()) {
			t.Errorf("%s: the context %q, stderr %q; want the note alone and a warning", c.name, ctx, out.Stderr)
		}
	}
}
