package claudecode

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/graft-project/graft/hosts/adapter"
)

// Hooks: settings.json hooks on SessionStart, UserPromptSubmit, Stop and
// PreCompact, in the project's, the project's local or the user's file; a
// PreCompact hook blocks the compaction with {"decision": "block"}. A
// hook's additionalContext past 10,000 UTF-16 code units reaches the
// model only as a file's path and a preview (doc.go).
// graft's plugin (plugin/ in graft's repository) is a Claude Code plugin.
func (a Adapter) Hooks() adapter.Hooks {
	return adapter.Hooks{
		Events:   adapter.GraftNamed(),
		Scopes:   []adapter.Scope{adapter.ScopeProject, adapter.ScopeLocal, adapter.ScopeUser},
		Settings: settingsPath,
		Block: func(reason string) map[string]any {
			return map[string]any{"decision": "block", "reason": reason}
		},
		ContextMax: maxInlineContext,
		ContextLen: adapter.UTF16Len, // JavaScript's length
		Notes: func(f adapter.SettingsFacts) []string {
			if v, ok := f.Setting("disableAllHooks"); f.Install && ok && strings.TrimSpace(v) == "true" {
				return []string{fmt.Sprintf(`%s sets "disableAllHooks": true, so Claude Code runs none of its hooks, graft's included`, f.File)}
			}
			return nil
		},
		Plugin:       true,
		PluginRemove: "claude plugin uninstall " + adapter.PluginID,
		PluginAt:     pluginAt,
	}
}

// pluginAt is the user's settings.json and whether it enables graft's
// plugin (enabledPlugins["graft@graft"] true: what claude plugin install
// and graft plugin install write).
func pluginAt() (string, bool, error) {
	root, err := Adapter{}.Root()
	if err != nil {
		return "", false, err
	}
	path := filepath.Join(root, "settings.json")
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return path, false, nil
	}
	if err != nil {
		return path, false, fmt.Errorf("claudecode: %w", err)
	}
	var st struct {
		EnabledPlugins map[string]any `json:"enabledPlugins"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return path, false, fmt.Errorf("claudecode: %s: %w", path, err)
	}
	on, _ := st.EnabledPlugins[adapter.PluginID].(bool)
	return path, on, nil
}

// maxInlineContext is how long a hook's additionalContext Claude Code
// gives its model as it is (its default persist threshold, 1e4): a longer
// one is written to a file and the model gets its path and a 2 KB
// preview.
const maxInlineContext = 10000

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
			var err error
			if dir, err = (Adapter{}).Root(); err != nil {
				return "", fmt.Errorf("no Claude Code configuration directory: $CLAUDE_CONFIG_DIR is not set and %w", err)
			}
		}
		p = filepath.Join(dir, "settings.json")
	default:
		return "", fmt.Errorf("unknown host %q or scope %q", Name, scope)
	}
	return filepath.Abs(p)
}

// Help is what graft's commands say of Claude Code.
func (Adapter) Help() adapter.Help {
	return adapter.Help{
		Transcript: "transcript.jsonl",
		Import:     "Import a Claude Code transcript (~/.claude/projects/<dir>/<uuid>.jsonl)",
		ImportLong: `Imports a Claude Code transcript, and each sub-agent transcript under
<uuid>/subagents/ beside it as a session of its own (agent-<name>.jsonl into
<id>.agent-<name>, another <name>.jsonl into <id>.subagent-<name>), linked
from the parent's sub-agent report.`,
		ExportPath:   "$CLAUDE_CONFIG_DIR (else ~/.claude)/projects/<cwd folder>/<uuid>.jsonl",
		FindByID:     "Claude Code's project folder of --cwd (else any project folder)",
		Hooks:        "Claude Code's settings: <DIR>/.claude/settings.json (default DIR: .)",
		Folder:       "Claude Code's configuration directory (default $CLAUDE_CONFIG_DIR, else ~/.claude)",
		UserSettings: "$CLAUDE_CONFIG_DIR/settings.json or ~/.claude/settings.json",
		HooksLong: `Claude Code's settings files:
  --project DIR  DIR/.claude/settings.json (the default, DIR "."; shared with
                 the project when committed)
  --local        DIR/.claude/settings.local.json (this machine only)
  --user         $CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json
Claude Code runs the hooks of every one of these files, so keep graft's in
one of them. Sessions started from now on run them.`,
	}
}
