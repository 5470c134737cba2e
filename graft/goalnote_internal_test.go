package graft

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/tape"
)

// A goal the person paused, or one whose objective the fold cut, is not
// carried into the export: the note still asks to set it again, even for
// a host that restores a goal from its session file.
func TestGoalNoteOfAGoalNotCarried(t *testing.T) {
	for _, g := range []*tape.HostGoal{
		{Status: "paused", Objective: "Port the pager", Seq: 7},
		{Status: "active", Objective: "Port the pager … [cut: recall seq=7]", Seq: 7},
	} {
		for _, to := range []hosts.Host{hosts.ClaudeCode, hosts.Host("qwen")} {
			n, err := goalNote(g, to, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(n, "set it again in the new one with /goal "+g.Objective) || strings.Contains(n, "goes on in the new session") {
				t.Errorf("goal %+v to %s: note %q", g, to, n)
			}
		}
	}
}

// An active goal carried into a Claude Code export goes on there unless
// the person's settings restrict Claude Code's hooks, which run the goal:
// then the note says it does not, names the file and the setting, and
// gives the command that sets it again. Qwen Code has no such setting.
func TestGoalNoteNamesTheSettingThatHoldsTheGoalBack(t *testing.T) {
	config, dir := t.TempDir(), t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", config)
	g := &tape.HostGoal{Status: "active", Objective: "Port the pager", Seq: 7}
	note := func(to hosts.Host) string {
		t.Helper()
		n, err := goalNote(g, to, dir)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := note(hosts.ClaudeCode); !strings.Contains(n, "goes on in the new session") {
		t.Errorf("hooks allowed: %q", n)
	}
	settings := filepath.Join(dir, ".claude", "settings.local.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte(`{"disableAllHooks": true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	n := note(hosts.ClaudeCode)
	for _, want := range []string{"does not go on in the new session", settings, `"disableAllHooks": true`, "set it again there with /goal Port the pager"} {
		if !strings.Contains(n, want) {
			t.Errorf("hooks off: the note lacks %q: %q", want, n)
		}
	}
	if strings.Contains(n, "goes on in the new session") {
		t.Errorf("hooks off: the note says the goal goes on: %q", n)
	}
	if n := note(hosts.Host("qwen")); !strings.Contains(n, "goes on in the new session") {
		t.Errorf("Qwen Code: %q", n)
	}
	if err := os.WriteFile(settings, []byte(`{`), 0o644); err != nil {
		t.Fatal(err)
	}
	if n := note(hosts.ClaudeCode); !strings.Contains(n, "could not be checked") || !strings.Contains(n, settings) || !strings.Contains(n, "/goal Port the pager") {
		t.Errorf("a settings file that is not JSON: %q", n)
	}
}
