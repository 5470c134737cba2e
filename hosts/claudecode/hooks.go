package claudecode

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/graft-project/graft/hosts/adapter"
)

// Hooks: settings.json hooks on SessionStart, UserPromptSubmit, Stop and
// PreCompact, in the project's, the project's local or the user's file; a
// PreCompact hook blocks the compaction with {"decision": "block"}.
func (a Adapter) Hooks() adapter.Hooks {
	return adapter.Hooks{
		Events: []adapter.HookEvent{
			{Name: "SessionStart", Does: adapter.SessionStart},
			{Name: "UserPromptSubmit", Does: adapter.UserPromptSubmit},
			{Name: "Stop", Does: adapter.Stop},
			{Name: "PreCompact", Does: adapter.PreCompact},
		},
		Scopes:   []adapter.Scope{adapter.ScopeProject, adapter.ScopeLocal, adapter.ScopeUser},
		Settings: settingsPath,
		Block: func(reason string) map[string]any {
			return map[string]any{"decision": "block", "reason": reason}
		},
		Notes: func(f adapter.SettingsFacts) []string {
			if v, ok := f.Setting("disableAllHooks"); f.Install && ok && strings.TrimSpace(v) == "true" {
				return []string{fmt.Sprintf(`%s sets "disableAllHooks": true, so Claude Code runs none of its hooks, graft's included`, f.File)}
			}
			return nil
		},
	}
}

// settingsPath is <dir>/.claude/settings.json (project),
// <dir>/.claude/settings.local.json (local) or <config>/settings.json
// (user).
func settingsPath(scope adapter.Scope, dir string) (string, error) {
	var p string
	switch scope {
	case adapter.ScopeProject, adapter.ScopeLocal:
		if dir == "" {
			dir = "."
		}
		name := "settings.json"
		if scope == adapter.ScopeLocal {
			name = "settings.local.json"
		}
		p = filepath.Join(dir, ".claude", name)
	case adapter.ScopeUser:
		if dir == "" {
			dir = os.Getenv("CLAUDE_CONFIG_DIR")
		}
		if dir == "" {
			h, err := os.UserHomeDir()
			if err != nil {
				return "", fmt.Errorf("no Claude Code configuration directory: $CLAUDE_CONFIG_DIR is not set and %w", err)
			}
			dir = filepath.Join(h, ".claude")
		}
		p = filepath.Join(dir, "settings.json")
	default:
		return "", fmt.Errorf("unknown host %q or scope %q", Name, scope)
	}
	return filepath.Abs(p)
}
