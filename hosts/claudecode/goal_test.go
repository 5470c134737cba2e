package claudecode

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A resumed session's goal is held back by any settings file Claude Code
// reads that restricts its hooks: the note names the file and the key.
func TestGoalHeldByRestrictedHooks(t *testing.T) {
	config, dir, managed := t.TempDir(), t.TempDir(), t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", config)
	old := managedDir
	managedDir = managed
	t.Cleanup(func() { managedDir = old })
	write := func(p, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	held := func() string {
		t.Helper()
		why, err := Adapter{}.GoalHeldBy(dir)
		if err != nil {
			t.Fatal(err)
		}
		return why
	}
	if why := held(); why != "" {
		t.Fatalf("no settings: held by %q", why)
	}
	user := filepath.Join(config, "settings.json")
	write(user, `{"disableAllHooks": false, "model": "opus"}`)
	if why := held(); why != "" {
		t.Fatalf("hooks allowed: held by %q", why)
	}
	for _, c := range []struct{ file, key string }{
		{user, "disableAllHooks"},
		{filepath.Join(dir, ".claude", "settings.json"), "allowManagedHooksOnly"},
		{filepath.Join(dir, ".claude", "settings.local.json"), "disableAllHooks"},
		{filepath.Join(managed, "managed-settings.json"), "disableAllHooks"},
		{filepath.Join(managed, "managed-settings.d", "10-policy.json"), "allowManagedHooksOnly"},
	} {
		write(c.file, `{"`+c.key+`": true}`)
		why := held()
		if !strings.Contains(why, c.file) || !strings.Contains(why, `"`+c.key+`": true`) {
			t.Errorf("%s setting %s: held by %q", c.file, c.key, why)
		}
		if err := os.Remove(c.file); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, ".claude", "settings.json"), `{"disableAllHooks": tru`)
	if _, err := (Adapter{}).GoalHeldBy(dir); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, ".claude", "settings.json")) {
		t.Errorf("a settings file that is not JSON: err %v", err)
	}
}

// Each system's folder of managed settings, as the pinned Claude Code
// names it.
func TestManagedFolder(t *testing.T) {
	for goos, want := range map[string]string{"linux": "/etc/claude-code", "darwin": "/Library/Application Support/ClaudeCode", "windows": `C:\Program Files\ClaudeCode`} {
		if got := managedFolder(goos); got != want {
			t.Errorf("%s: %q, want %q", goos, got, want)
		}
	}
}
