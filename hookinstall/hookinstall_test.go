package hookinstall

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/graft-project/graft/internal/formatdoc"
	"github.com/graft-project/graft/vfs"
)

const cmdA = "/usr/local/bin/graft hook claude-code"

func write(t *testing.T, path, data string, perm os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// entry is graft's group for one event, as Install writes it at the given
// indent depth (2-space unit).
func entry(depth int, command string, timeout string) string {
	p := strings.Repeat("  ", depth)
	return p + "{\n" +
		p + "  \"hooks\": [\n" +
		p + "    {\n" +
		p + "      \"type\": \"command\",\n" +
		p + "      \"command\": \"" + command + "\",\n" +
		p + "      \"timeout\": " + timeout + "\n" +
		p + "    }\n" +
		p + "  ]\n" +
		p + "}"
}

func fourEvents(command string) string {
	return `{
  "hooks": {
    "SessionStart": [
` + entry(3, command, "15") + `
    ],
    "UserPromptSubmit": [
` + entry(3, command, "15") + `
    ],
    "Stop": [
` + entry(3, command, "15") + `
    ],
    "PreCompact": [
` + entry(3, command, "60") + `
    ]
  }
}
`
}

func TestInstallCreatesFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".claude", "settings.json")
	r, err := Install(ClaudeCode, path, cmdA)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := read(t, path), fourEvents(cmdA); got != want {
		t.Fatalf("new file:\n%s\nwant:\n%s", got, want)
	}
	if !r.Created || !r.Changed || r.Backup != "" || !slices.Equal(r.Added, Events) || len(r.Present)+len(r.Updated)+len(r.Removed) != 0 {
		t.Fatalf("result %+v", r)
	}
	if r.File != path {
		t.Fatalf("file %q, want %q", r.File, path)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("new file mode %v, want 0600", fi.Mode().Perm())
	}
	if fi, _ := os.Stat(filepath.Dir(path)); fi.Mode().Perm() != 0o700 {
		t.Fatalf("new .claude mode %v, want 0700", fi.Mode().Perm())
	}
	if len(r.Notes) != 0 {
		t.Fatalf("claude-code notes %q", r.Notes)
	}
}

// existing is a settings file with unrelated settings before and after
// "hooks", in no sorted order, with escapes and number spellings a
// map round trip would change, and hooks of its own on graft's events and
// others.
const existing = `{
  "model": "opus",
  "env": {
    "ZED": "1",
    "ALPHA": "caf\u00e9 <&> \"q\"",
    "N": 1.50
  },
  "\u00e9t\u00e9": "x",
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "guard.sh && echo ok"
          }
        ]
      }
    ],
    "SessionStart": [
      {
        "matcher": "startup",
        "hooks": [
          {
            "type": "command",
            "command": "echo hi",
            "timeout": 5
          }
        ]
      }
    ]
  },
  "permissions": {
    "allow": [
      "Read",
      "Bash(ls:*)"
    ],
    "deny": []
  },
  "alwaysThinkingEnabled": true
}
`

// existingInstalled is existing after Install(cmdA).
var existingInstalled = `{
  "model": "opus",
  "env": {
    "ZED": "1",
    "ALPHA": "caf\u00e9 <&> \"q\"",
    "N": 1.50
  },
  "\u00e9t\u00e9": "x",
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "guard.sh && echo ok"
          }
        ]
      }
    ],
    "SessionStart": [
      {
        "matcher": "startup",
        "hooks": [
          {
            "type": "command",
            "command": "echo hi",
            "timeout": 5
          }
        ]
      },
` + entry(3, cmdA, "15") + `
    ],
    "UserPromptSubmit": [
` + entry(3, cmdA, "15") + `
    ],
    "Stop": [
` + entry(3, cmdA, "15") + `
    ],
    "PreCompact": [
` + entry(3, cmdA, "60") + `
    ]
  },
  "permissions": {
    "allow": [
      "Read",
      "Bash(ls:*)"
    ],
    "deny": []
  },
  "alwaysThinkingEnabled": true
}
`

func TestInstallMergesAndUninstallRestores(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	write(t, path, existing, 0o640)

	r, err := Install(ClaudeCode, path, cmdA)
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, path); got != existingInstalled {
		t.Fatalf("merged:\n%s\nwant:\n%s", got, existingInstalled)
	}
	if r.Created || !r.Changed || !slices.Equal(r.Added, Events) {
		t.Fatalf("result %+v", r)
	}
	if r.Backup != path+".graft-backup" || read(t, r.Backup) != existing {
		t.Fatalf("backup %q does not hold the original", r.Backup)
	}
	for _, p := range []string{path, r.Backup} {
		if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o640 {
			t.Fatalf("%s mode %v, want the original 0640", p, fi.Mode().Perm())
		}
	}

	u, err := Uninstall(ClaudeCode, path, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, path); got != existing {
		t.Fatalf("after uninstall:\n%s\nwant the original:\n%s", got, existing)
	}
	if !u.Changed || !slices.Equal(u.Removed, Events) || u.Backup != path+".graft-backup.1" {
		t.Fatalf("uninstall result %+v", u)
	}
	if read(t, path+".graft-backup") != existing || read(t, u.Backup) != existingInstalled {
		t.Fatal("the backups do not hold the file as it was before each change")
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v after uninstall, want 0640", fi.Mode().Perm())
	}
}

func TestInstallTwiceChangesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	write(t, path, existing, 0o600)
	if _, err := Install(ClaudeCode, path, cmdA); err != nil {
		t.Fatal(err)
	}
	before := read(t, path)
	fi1, _ := os.Stat(path)
	r, err := Install(ClaudeCode, path, cmdA)
	if err != nil {
		t.Fatal(err)
	}
	if r.Changed || r.Backup != "" || !slices.Equal(r.Present, Events) || len(r.Added)+len(r.Updated) != 0 {
		t.Fatalf("second install %+v", r)
	}
	fi2, _ := os.Stat(path)
	if read(t, path) != before || !os.SameFile(fi1, fi2) {
		t.Fatal("the second install rewrote the file")
	}
	if _, err := os.Stat(path + ".graft-backup.1"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the second install made a backup: %v", err)
	}
}

func TestInstallReplacesOldGraftInPlace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	// graft's old entry sits between two of the user's groups, shares a
	// group with a user hook on Stop, and is there twice on PreCompact.
	write(t, path, `{
  "hooks": {
    "SessionStart": [
      {"hooks": [{"type": "command", "command": "first"}]},
      {"hooks": [{"type": "command", "command": "/old/bin/graft --home /h hook claude-code", "timeout": 15}]},
      {"hooks": [{"type": "command", "command": "last"}]}
    ],
    "Stop": [
      {"matcher": "", "hooks": [{"type": "command", "command": "mine"}, {"type": "command", "command": "'/old dir/graft' hook claude-code"}]}
    ],
    "PreCompact": [
      {"hooks": [{"type": "command", "command": "graft hook claude-code"}]},
      {"hooks": [{"type": "command", "command": "/x/graft hook claude-code"}]}
    ]
  }
}
`, 0o600)
	r, err := Install(ClaudeCode, path, cmdA)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Updated, []string{"SessionStart", "Stop", "PreCompact"}) || !slices.Equal(r.Added, []string{"UserPromptSubmit"}) {
		t.Fatalf("result %+v", r)
	}
	want := `{
  "hooks": {
    "SessionStart": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "first"
          }
        ]
      },
` + entry(3, cmdA, "15") + `,
      {
        "hooks": [
          {
            "type": "command",
            "command": "last"
          }
        ]
      }
    ],
    "Stop": [
      {
        "matcher": "",
        "hooks": [
          {
            "type": "command",
            "command": "mine"
          },
          {
            "type": "command",
            "command": "` + cmdA + `",
            "timeout": 15
          }
        ]
      }
    ],
    "PreCompact": [
` + entry(3, cmdA, "60") + `
    ],
    "UserPromptSubmit": [
` + entry(3, cmdA, "15") + `
    ]
  }
}
`
	if got := read(t, path); got != want {
		t.Fatalf("replaced:\n%s\nwant:\n%s", got, want)
	}
}

func TestInstallKeepsSameCommandAsUserLeftIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	// The user raised a timeout and added a key: an install of the same
	// command leaves the entry alone.
	in := strings.Replace(fourEvents(cmdA), `"timeout": 60`, `"timeout": 300, "statusMessage": "graft"`, 1)
	write(t, path, in, 0o600)
	r, err := Install(ClaudeCode, path, cmdA)
	if err != nil {
		t.Fatal(err)
	}
	if r.Changed || !slices.Equal(r.Present, Events) || read(t, path) != in {
		t.Fatalf("result %+v; file changed: %v", r, read(t, path) != in)
	}
}

func TestUninstallRemovesExactlyGraftsHooks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	in := `{
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "mine"
          },
          {
            "type": "command",
            "command": "GRAFT_X=1 /opt/graft hook claude-code"
          },
          {
            "type": "command",
            "command": "graft hook codex"
          },
          {
            "type": "command",
            "command": "graft-helper hook claude-code"
          },
          {
            "type": "command",
            "command": "echo graft hook claude-code"
          },
          {
            "type": "prompt",
            "command": "graft hook claude-code"
          }
        ]
      }
    ],
    "PreCompact": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "/usr/bin/graft hook claude-code",
            "timeout": 60
          }
        ]
      }
    ],
    "Notification": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "graft hook claude-code"
          }
        ]
      }
    ]
  }
}`
	write(t, path, in, 0o600)
	r, err := Uninstall(ClaudeCode, path, "")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Removed, []string{"Stop", "PreCompact"}) {
		t.Fatalf("removed %q", r.Removed)
	}
	// Only the /opt/graft hook of Stop and the PreCompact event go: the
	// codex hook, look-alikes, a prompt hook and events graft does not
	// hook stay. The file had no final newline and gets none.
	want := strings.Replace(in, `
          {
            "type": "command",
            "command": "GRAFT_X=1 /opt/graft hook claude-code"
          },`, "", 1)
	want = strings.Replace(want, `
    "PreCompact": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "/usr/bin/graft hook claude-code",
            "timeout": 60
          }
        ]
      }
    ],`, "", 1)
	if got := read(t, path); got != want {
		t.Fatalf("after uninstall:\n%s\nwant:\n%s", got, want)
	}
}

func TestUninstallDropsWhatItEmptied(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	write(t, path, "{\n  \"model\": \"x\"\n}\n", 0o600)
	if _, err := Install(ClaudeCode, path, cmdA); err != nil {
		t.Fatal(err)
	}
	if _, err := Uninstall(ClaudeCode, path, ""); err != nil {
		t.Fatal(err)
	}
	if got := read(t, path); got != "{\n  \"model\": \"x\"\n}\n" {
		t.Fatalf("after install and uninstall: %q", got)
	}
}

func TestUninstallRecognisesTheGivenCommand(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	const odd = "/tmp/go-build1/b001/exe/main hook claude-code"
	if _, err := Install(ClaudeCode, path, odd); err != nil {
		t.Fatal(err)
	}
	r, err := Uninstall(ClaudeCode, path, "")
	if err != nil || r.Changed {
		t.Fatalf("uninstall without the command removed a hook graft cannot recognise: %+v %v", r, err)
	}
	if r, err = Uninstall(ClaudeCode, path, odd); err != nil || !slices.Equal(r.Removed, Events) {
		t.Fatalf("uninstall with the command: %+v %v", r, err)
	}
	if got := read(t, path); got != "{}\n" {
		t.Fatalf("left %q", got)
	}
}

func TestUninstallNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "nope", "settings.json")
	r, err := Uninstall(ClaudeCode, path, "")
	if err != nil || r.Changed || len(r.Removed) != 0 {
		t.Fatalf("%+v %v", r, err)
	}
	if _, err := os.Stat(filepath.Dir(path)); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("uninstall created the directory")
	}
	path = filepath.Join(dir, "settings.json")
	write(t, path, existing, 0o600)
	fi1, _ := os.Stat(path)
	r, err = Uninstall(ClaudeCode, path, "")
	if err != nil || r.Changed || r.Backup != "" {
		t.Fatalf("%+v %v", r, err)
	}
	fi2, _ := os.Stat(path)
	if !os.SameFile(fi1, fi2) || read(t, path) != existing {
		t.Fatal("file touched")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("files left: %v", entries)
	}
}

func TestBackupsAreNeverOverwritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	write(t, path, existing, 0o600)
	write(t, path+".graft-backup", "precious", 0o600)
	write(t, path+".graft-backup.1", "precious too", 0o600)
	r, err := Install(ClaudeCode, path, cmdA)
	if err != nil {
		t.Fatal(err)
	}
	if r.Backup != path+".graft-backup.2" || read(t, r.Backup) != existing {
		t.Fatalf("backup %q", r.Backup)
	}
	if read(t, path+".graft-backup") != "precious" || read(t, path+".graft-backup.1") != "precious too" {
		t.Fatal("an older backup was overwritten")
	}
	r, err = Install(ClaudeCode, path, "/elsewhere/graft hook claude-code")
	if err != nil {
		t.Fatal(err)
	}
	if r.Backup != path+".graft-backup.3" || read(t, r.Backup) != existingInstalled {
		t.Fatalf("backup %q", r.Backup)
	}
}

func TestMalformedFilesAreRefused(t *testing.T) {
	cases := []struct {
		name, data, want string
		line, col        int
	}{
		{"syntax", "{\n  \"model\": \"x\",\n  \"hooks\": {,}\n}\n", "not valid JSON", 3, 13},
		{"truncated", "{\n  \"hooks\": {\n", "not valid JSON", 3, 1},
		{"top array", "[]\n", "the settings is an array, not an object", 1, 1},
		{"hooks array", "{\n  \"hooks\": []\n}\n", `"hooks" is an array, not an object`, 2, 12},
		{"hooks null", "{\"hooks\": null}", `"hooks" is null, not an object`, 1, 11},
		{"event object", "{\"hooks\": {\n  \"Stop\": {\"hooks\": []}}}", "hooks.Stop is an object, not an array", 2, 11},
		{"duplicate hooks", "{\"hooks\": {}, \"hooks\": {}}", `has the key "hooks" twice`, 1, 15},
		{"duplicate event", "{\"hooks\": {\"Stop\": [], \"Stop\": []}}", `has the key "Stop" twice`, 1, 24},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "settings.json")
			write(t, path, c.data, 0o600)
			for _, op := range []func(Host, string, string) (Result, error){Install, Uninstall} {
				_, err := op(ClaudeCode, path, cmdA)
				var fe *FileError
				if !errors.As(err, &fe) {
					t.Fatalf("error %v, want a FileError", err)
				}
				if fe.File != path || !strings.Contains(fe.Msg, c.want) || fe.Line != c.line || fe.Column != c.col {
					t.Fatalf("error %+v, want %q at line %d column %d", fe, c.want, c.line, c.col)
				}
				if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "nothing written") {
					t.Fatalf("message %q does not name the file", err)
				}
				if read(t, path) != c.data {
					t.Fatal("the file changed")
				}
				if entries, _ := os.ReadDir(dir); len(entries) != 1 {
					t.Fatalf("files written: %v", entries)
				}
			}
		})
	}
}

func TestKeepsIndentAndNewline(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hooks.json")
	in := "{\n    \"a\": [\n        1\n    ]\n}"
	write(t, path, in, 0o600)
	if _, err := Install(Codex, path, "graft hook codex"); err != nil {
		t.Fatal(err)
	}
	got := read(t, path)
	if !strings.HasPrefix(got, "{\n    \"a\": [\n        1\n    ],\n    \"hooks\": {\n        \"SessionStart\": [\n            {\n") || strings.HasSuffix(got, "\n") {
		t.Fatalf("indent or final newline not kept:\n%s", got)
	}
	if _, err := Uninstall(Codex, path, ""); err != nil {
		t.Fatal(err)
	}
	if got := read(t, path); got != in {
		t.Fatalf("round trip %q, want %q", got, in)
	}
}

func TestEmptyFileIsEmptySettings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	write(t, path, "\n", 0o600)
	r, err := Install(ClaudeCode, path, cmdA)
	if err != nil {
		t.Fatal(err)
	}
	if read(t, path) != fourEvents(cmdA) || r.Created || read(t, r.Backup) != "\n" {
		t.Fatalf("%+v\n%s", r, read(t, path))
	}
}

func TestCodex(t *testing.T) {
	path := filepath.Join(t.TempDir(), "codex", "hooks.json")
	const cmdC = "/usr/local/bin/graft hook codex"
	r, err := Install(Codex, path, cmdC)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := read(t, path), fourEvents(cmdC); got != want {
		t.Fatalf("codex hooks.json:\n%s\nwant:\n%s", got, want)
	}
	if !slices.Contains(r.Notes, CodexTrustNote) {
		t.Fatalf("no trust note: %q", r.Notes)
	}
	// Claude Code's entries are not Codex's.
	if r, err := Uninstall(ClaudeCode, path, ""); err != nil || r.Changed {
		t.Fatalf("claude-code uninstall touched codex hooks: %+v %v", r, err)
	}
	if r, err := Uninstall(Codex, path, ""); err != nil || !slices.Equal(r.Removed, Events) {
		t.Fatalf("%+v %v", r, err)
	}
}

func TestDisableAllHooksNote(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	write(t, path, `{"disableAllHooks": true}`, 0o600)
	r, err := Install(ClaudeCode, path, cmdA)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "disableAllHooks") {
		t.Fatalf("notes %q", r.Notes)
	}
}

func TestSymlinkedSettingsAreEditedAtTheirTarget(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "dotfiles", "settings.json")
	write(t, target, "{}\n", 0o600)
	link := filepath.Join(dir, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(link), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	r, err := Install(ClaudeCode, link, cmdA)
	if err != nil {
		t.Fatal(err)
	}
	if r.File != target || read(t, target) != fourEvents(cmdA) || r.Backup != target+".graft-backup" {
		t.Fatalf("%+v", r)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the symlink was replaced")
	}
}

func TestSettingsPath(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", filepath.Join(dir, "home"))
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("CODEX_HOME", "")
	cases := []struct {
		host  Host
		scope Scope
		dir   string
		want  string
	}{
		{ClaudeCode, ScopeProject, "/p", "/p/.claude/settings.json"},
		{ClaudeCode, ScopeLocal, "/p", "/p/.claude/settings.local.json"},
		{ClaudeCode, ScopeUser, "", filepath.Join(dir, "home", ".claude", "settings.json")},
		{ClaudeCode, ScopeUser, "/c", "/c/settings.json"},
		{Codex, ScopeUser, "", filepath.Join(dir, "home", ".codex", "hooks.json")},
		{Codex, "", "/x", "/x/hooks.json"},
	}
	for _, c := range cases {
		got, err := SettingsPath(c.host, c.scope, c.dir)
		if err != nil || got != c.want {
			t.Errorf("SettingsPath(%s, %s, %q) = %q, %v; want %q", c.host, c.scope, c.dir, got, err, c.want)
		}
	}
	t.Setenv("CLAUDE_CONFIG_DIR", "/cc")
	t.Setenv("CODEX_HOME", "/ch")
	if got, _ := SettingsPath(ClaudeCode, ScopeUser, ""); got != "/cc/settings.json" {
		t.Errorf("with CLAUDE_CONFIG_DIR: %q", got)
	}
	if got, _ := SettingsPath(Codex, ScopeUser, ""); got != "/ch/hooks.json" {
		t.Errorf("with CODEX_HOME: %q", got)
	}
	if _, err := SettingsPath(Codex, ScopeProject, "/p"); err == nil {
		t.Error("codex project scope accepted")
	}
}

func TestIsGraftCommand(t *testing.T) {
	cases := []struct {
		host    Host
		command string
		want    bool
	}{
		{ClaudeCode, "graft hook claude-code", true},
		{ClaudeCode, "/usr/local/bin/graft --home /h hook claude-code", true},
		{ClaudeCode, "'/my dir/graft' --home '/a b' hook claude-code", true},
		{ClaudeCode, `"/my dir/graft" hook claude-code`, true},
		{ClaudeCode, "graft --config /c/g.toml --home=/h hook claude-code", true},
		// Issue 24, item 3: only the command graft writes is graft's; a
		// user's own hook that merely runs graft is the user's.
		{ClaudeCode, `"/my dir/graft" hook claude-code --verbose`, false},
		{ClaudeCode, "graft hook claude-code && /usr/local/bin/backup-my-work", false},
		{ClaudeCode, "graft hook claude-code | tee -a /tmp/hook.log", false},
		{ClaudeCode, "graft hook claude-code; notify-send done", false},
		{ClaudeCode, "graft --verbose hook claude-code", false},
		{ClaudeCode, `/my\ dir/graft hook claude-code`, true},
		{ClaudeCode, "GRAFT_HOME=/h graft hook claude-code", true},
		{ClaudeCode, "graft hook codex", false},
		{Codex, "graft hook codex", true},
		{ClaudeCode, "graft hook", false},
		{ClaudeCode, "graft-dev hook claude-code", false},
		{ClaudeCode, "echo graft hook claude-code", false},
		{ClaudeCode, "graft hook claude-code2", false},
		{ClaudeCode, "'graft hook claude-code", false},
		{ClaudeCode, "", false},
	}
	for _, c := range cases {
		if got := IsGraftCommand(c.host, c.command, ""); got != c.want {
			t.Errorf("IsGraftCommand(%s, %q) = %v, want %v", c.host, c.command, got, c.want)
		}
	}
	if !IsGraftCommand(ClaudeCode, "/tmp/x/main hook claude-code", "/tmp/x/main hook claude-code") {
		t.Error("the command being installed is not recognised")
	}
}

func TestCommandQuotes(t *testing.T) {
	cases := []struct{ program, home, want string }{
		{"/usr/bin/graft", "", "/usr/bin/graft hook claude-code"},
		{"/usr/bin/graft", "/h/g", "/usr/bin/graft --home /h/g hook claude-code"},
		{"/Users/me/My Tools/graft", "/data/it's", `'/Users/me/My Tools/graft' --home '/data/it'\''s' hook claude-code`},
	}
	for _, c := range cases {
		var flags []string
		if c.home != "" {
			flags = []string{"--home", c.home}
		}
		got := Command(ClaudeCode, c.program, flags...)
		if got != c.want {
			t.Errorf("Command(%q, %q) = %q, want %q", c.program, c.home, got, c.want)
		}
		if !IsGraftCommand(ClaudeCode, got, "") {
			t.Errorf("%q is not recognised as graft's", got)
		}
		words, ok := shellWords(got)
		if !ok || words[0] != c.program || (c.home != "" && words[2] != c.home) {
			t.Errorf("%q splits into %q", got, words)
		}
	}
}

// doc.go specifies the Result: it must name every field.
func TestDocNamesEveryResultField(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	if missing := formatdoc.Missing(string(doc), Result{}); len(missing) > 0 {
		t.Fatalf("doc.go does not name these Result fields: %q", missing)
	}
}

// racingFS lets the host save the settings file while graft writes its
// backup.
type racingFS struct {
	vfs.FS
	file string
}

func (r racingFS) Create(name string, perm os.FileMode) (vfs.File, error) {
	f, err := r.FS.Create(name, perm)
	if err == nil {
		err = os.WriteFile(r.file, []byte(`{"model": "saved by the host"}`), 0o600)
	}
	return f, err
}

func TestAChangeMeanwhileIsNotOverwritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	write(t, path, existing, 0o600)
	fsys = racingFS{vfs.Default, path}
	defer func() { fsys = vfs.Default }()
	_, err := Install(ClaudeCode, path, cmdA)
	if err == nil || !strings.Contains(err.Error(), "changed while graft was editing it") {
		t.Fatalf("error %v", err)
	}
	if got := read(t, path); got != `{"model": "saved by the host"}` {
		t.Fatalf("the host's change was lost: %s", got)
	}
}

func TestFind(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	if ev, err := Find(ClaudeCode, path, ""); err != nil || len(ev) != 0 {
		t.Fatalf("missing file: %q %v", ev, err)
	}
	write(t, path, existingInstalled, 0o600)
	if ev, err := Find(ClaudeCode, path, ""); err != nil || !slices.Equal(ev, Events) {
		t.Fatalf("%q %v", ev, err)
	}
	if ev, err := Find(Codex, path, ""); err != nil || len(ev) != 0 {
		t.Fatalf("codex in claude settings: %q %v", ev, err)
	}
	if read(t, path) != existingInstalled {
		t.Fatal("Find wrote")
	}
}

func TestUninstallReportsMovedHooks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hooks.json")
	// Stop: graft's group comes before the user's, which moves from group 1
	// to 0. PreCompact: graft's hook precedes the user's in one group.
	// SessionStart: graft's group is last, nothing moves.
	write(t, path, `{"hooks": {
  "SessionStart": [{"hooks": [{"type": "command", "command": "mine"}]}, {"hooks": [{"type": "command", "command": "graft hook codex"}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "graft hook codex"}]}, {"hooks": [{"type": "command", "command": "mine"}]}],
  "PreCompact": [{"hooks": [{"type": "command", "command": "graft hook codex"}, {"type": "command", "command": "mine"}]}]
}}`, 0o600)
	r, err := Uninstall(Codex, path, "")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Removed, []string{"SessionStart", "Stop", "PreCompact"}) || !slices.Equal(r.Moved, []string{"Stop", "PreCompact"}) {
		t.Fatalf("removed %q, moved %q", r.Removed, r.Moved)
	}
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "other hooks of Stop, PreCompact moved") {
		t.Fatalf("notes %q", r.Notes)
	}
	if got := read(t, path); strings.Count(got, `"mine"`) != 3 || strings.Contains(got, "graft") {
		t.Fatalf("left:\n%s", got)
	}
	// Claude Code keys nothing by position: no note.
	write(t, path, `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "graft hook claude-code"}]}, {"hooks": [{"type": "command", "command": "mine"}]}]}}`, 0o600)
	if r, err = Uninstall(ClaudeCode, path, ""); err != nil || !slices.Equal(r.Moved, []string{"Stop"}) || len(r.Notes) != 0 {
		t.Fatalf("%+v %v", r, err)
	}
}

// Issue 24, item 3: a user's own hook that merely runs graft is the
// user's: install adds graft's beside it, uninstall takes only graft's,
// and the file comes back as it was.
func TestAUsersHookThatRunsGraftIsTheUsers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	mine := `{
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "graft hook claude-code && /usr/local/bin/backup-my-work"
          }
        ]
      }
    ]
  }
}
`
	write(t, path, mine, 0o600)
	r, err := Install(ClaudeCode, path, cmdA)
	if err != nil {
		t.Fatal(err)
	}
	got := read(t, path)
	if !strings.Contains(got, "graft hook claude-code && /usr/local/bin/backup-my-work") || !slices.Equal(r.Added, Events) {
		t.Fatalf("install replaced the user's hook or did not add graft's (added %v):\n%s", r.Added, got)
	}
	if _, err := Uninstall(ClaudeCode, path, ""); err != nil {
		t.Fatal(err)
	}
	if got := read(t, path); got != mine {
		t.Fatalf("after uninstall:\n%s\nwant the user's file as it was:\n%s", got, mine)
	}
}

// Issue 24, item 3: a read-only settings file (0444) is the person's
// choice: refused, not replaced (a rename would replace it whatever its
// mode), nothing written, no backup.
func TestAReadOnlySettingsFileIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	write(t, path, existing, 0o444)
	if _, err := Install(ClaudeCode, path, cmdA); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("install into a 0444 file: %v, want a refusal naming it read-only", err)
	}
	if got := read(t, path); got != existing {
		t.Fatalf("the read-only file changed:\n%s", got)
	}
	if _, err := os.Stat(path + ".graft-backup"); !os.IsNotExist(err) {
		t.Fatalf("a backup was written for a refused install: %v", err)
	}
}

// Issue 24, item 3: eight installs at once leave one backup, not seven:
// an install holds the settings file's directory while it reads, backs up
// and writes.
func TestConcurrentInstallsLeaveOneBackup(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	write(t, path, existing, 0o600)
	errs := make(chan error, 8)
	for k := 0; k < 8; k++ {
		go func() {
			_, err := Install(ClaudeCode, path, cmdA)
			errs <- err
		}()
	}
	for k := 0; k < 8; k++ {
		if err := <-errs; err != nil {
			t.Errorf("install %d: %v", k, err)
		}
	}
	backups, err := filepath.Glob(path + ".graft-backup*")
	if err != nil {
		t.Fatal(err)
	}
	if len(backups) != 1 || read(t, backups[0]) != existing {
		t.Fatalf("backups %v: want one, holding the original", backups)
	}
	if got := read(t, path); got != existingInstalled {
		t.Fatalf("after 8 installs:\n%s", got)
	}
}

// Issue 24, item 3: install then uninstall gives a hand-formatted file
// back byte for byte (graft re-indents what it writes; the file it took
// graft's hooks out of is the one its backup holds, so that is written).
func TestInstallThenUninstallIsByteExact(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	mine := "{\n    \"model\":   \"opus\",\n\t\"permissions\": {\"allow\": [\"Bash(git status)\"] },\n    \"env\": {\"A\": \"1\"}\n}"
	write(t, path, mine, 0o600)
	if _, err := Install(ClaudeCode, path, cmdA); err != nil {
		t.Fatal(err)
	}
	if _, err := Uninstall(ClaudeCode, path, ""); err != nil {
		t.Fatal(err)
	}
	if got := read(t, path); got != mine {
		t.Fatalf("after install and uninstall:\n%q\nwant the file as it was:\n%q", got, mine)
	}
	// A setting the person changed meanwhile is kept (then graft's own
	// rendering stands).
	if _, err := Install(ClaudeCode, path, cmdA); err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(read(t, path), `"opus"`, `"sonnet"`, 1)
	write(t, path, changed, 0o600)
	if _, err := Uninstall(ClaudeCode, path, ""); err != nil {
		t.Fatal(err)
	}
	if got := read(t, path); !strings.Contains(got, `"sonnet"`) || strings.Contains(got, "hook claude-code") {
		t.Fatalf("uninstall after a change of the person's lost it or kept graft's hooks:\n%s", got)
	}
}

// A file graft installs into and uninstalls from comes back byte for byte
// when the person had an empty file, an empty "hooks" object or an event
// with no groups: graft's uninstall drops only the containers its install
// created (found by FuzzInstallUninstallRoundTrip).
func TestEmptyContainersOfThePersonComeBack(t *testing.T) {
	for _, mine := range []string{
		"",
		"\n",
		"  \n",
		`{"hooks":{}}`,
		"{\n  \"hooks\": {\n    \"Stop\": []\n  }\n}\n",
		"{\"hooks\": {\"Stop\": [], \"SessionStart\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"echo hi\"}]}], \"PreCompact\": []}}",
	} {
		for _, host := range Hosts {
			path := filepath.Join(t.TempDir(), "settings.json")
			write(t, path, mine, 0o600)
			if _, err := Install(host, path, Command(host, "/usr/local/bin/graft")); err != nil {
				t.Fatal(err)
			}
			if _, err := Uninstall(host, path, ""); err != nil {
				t.Fatal(err)
			}
			if got := read(t, path); got != mine {
				t.Errorf("%s: after install and uninstall:\n%q\nwant the file as it was:\n%q", host, got, mine)
			}
		}
	}
	// Containers graft's install created go with its hooks.
	path := filepath.Join(t.TempDir(), "settings.json")
	write(t, path, `{"model": "opus"}`, 0o600)
	if _, err := Install(ClaudeCode, path, cmdA); err != nil {
		t.Fatal(err)
	}
	write(t, path, strings.Replace(read(t, path), "opus", "sonnet", 1), 0o600)
	if _, err := Uninstall(ClaudeCode, path, ""); err != nil {
		t.Fatal(err)
	}
	if got := read(t, path); got != "{\n  \"model\": \"sonnet\"\n}" {
		t.Errorf("uninstall after the person's change kept what graft's install created:\n%q", got)
	}
}
