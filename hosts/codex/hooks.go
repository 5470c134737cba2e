package codex

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/graft-project/graft/hosts/adapter"
)

// TrustNote is said by every install: Codex runs only hooks the user has
// trusted and skips the others without a word.
const TrustNote = "Codex runs only trusted hooks and skips the others silently: start codex once and approve graft's hooks when it asks (or run codex with --dangerously-bypass-hook-trust, which trusts every hook)"

// Hooks: $CODEX_HOME/hooks.json on SessionStart, UserPromptSubmit, Stop and
// PreCompact, and the notify program's argument as a Stop. No hook answer
// vetoes a compaction ("block" is reported as a failed hook and the
// compaction runs): {"continue": false} stops the run before its model
// request, which keeps the old session uncompacted. codex exec shows no
// hook text, so notices go to the model too. A hook's additionalContext
// past 10,000 bytes reaches the model cut in its middle.
func (a Adapter) Hooks() adapter.Hooks {
	return adapter.Hooks{
		Events:   adapter.GraftNamed(),
		Scopes:   []adapter.Scope{adapter.ScopeUser},
		Settings: settingsPath,
		Block: func(reason string) map[string]any {
			return map[string]any{"continue": false, "stopReason": reason, "systemMessage": reason}
		},
		NoticesToModel: true,
		// A hook's additionalContext past 10,000 bytes reaches the
		// model as its head and end with a note and a file (doc.go).
		ContextMax: maxInlineContext,
		ContextLen: func(s string) int { return len(s) },
		Notify:     notify,
		Notes: func(f adapter.SettingsFacts) []string {
			var notes []string
			if f.Install {
				notes = append(notes, TrustNote)
			}
			if len(f.Moved) > 0 {
				notes = append(notes, fmt.Sprintf("Codex records hook trust by position: other hooks of %s moved, so Codex will ask to approve them again", strings.Join(f.Moved, ", ")))
			}
			return notes
		},
		// graft's Claude Code plugin, which Codex installs from its
		// marketplace (codex plugin marketplace add, codex plugin add
		// graft@graft) and runs the hooks of.
		PluginRemove: "codex plugin remove " + adapter.PluginID,
		PluginAt:     pluginAt,
	}
}

// pluginAt is $CODEX_HOME/config.toml and whether it enables graft's
// plugin ([plugins."graft@graft"] enabled = true: what codex plugin add
// writes).
func pluginAt() (string, bool, error) {
	home, err := Adapter{}.Root()
	if err != nil {
		return "", false, err
	}
	path := filepath.Join(home, "config.toml")
	var cfg struct {
		Plugins map[string]struct {
			Enabled bool `toml:"enabled"`
		} `toml:"plugins"`
	}
	if err := readConfig(home, &cfg); err != nil {
		return path, false, fmt.Errorf("codex: %w", err)
	}
	return path, cfg.Plugins[adapter.PluginID].Enabled, nil
}

// maxInlineContext is how many bytes (UTF-8) of a hook's
// additionalContext Codex gives its model as they are.
const maxInlineContext = 10000

// notify reads the notify program's JSON argument: an agent-turn-complete
// of a thread.
func notify(arg string) (sessionID, cwd string, err error) {
	var n struct {
		Type     string `json:"type"`
		ThreadID string `json:"thread-id"`
		Cwd      string `json:"cwd"`
	}
	if err := json.Unmarshal([]byte(arg), &n); err != nil {
		return "", "", fmt.Errorf("the notify argument is not JSON: %v", err)
	}
	if n.Type != "agent-turn-complete" || n.ThreadID == "" {
		return "", "", fmt.Errorf("notify %q for thread %q: graft acts on agent-turn-complete only", n.Type, n.ThreadID)
	}
	return n.ThreadID, n.Cwd, nil
}

// settingsPath is <codex home>/hooks.json, Codex's only hooks file.
func settingsPath(scope adapter.Scope, dir string) (string, error) {
	if scope != adapter.ScopeUser && scope != "" {
		return "", fmt.Errorf("codex has no %s hooks file (only the user's $CODEX_HOME/hooks.json)", scope)
	}
	if dir == "" {
		var err error
		if dir, err = (Adapter{}).Root(); err != nil {
			return "", fmt.Errorf("no Codex home: $CODEX_HOME is not set and %w", err)
		}
	}
	return filepath.Abs(filepath.Join(dir, "hooks.json"))
}

// Help is what graft's commands say of Codex.
func (Adapter) Help() adapter.Help {
	return adapter.Help{
		Transcript:   "rollout.jsonl",
		Import:       "Import a Codex rollout (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl)",
		ExportPath:   "$CODEX_HOME (else ~/.codex)/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl",
		ResumeMore:   `   (or codex exec resume <uuid> "…")`,
		FindByID:     "Codex's sessions/ tree",
		Hooks:        "Codex's hooks: $CODEX_HOME/hooks.json (default ~/.codex/hooks.json)",
		Folder:       "Codex's home directory (default $CODEX_HOME, else ~/.codex)",
		UserSettings: "$CODEX_HOME/hooks.json or ~/.codex/hooks.json",
		HooksLong: `Codex's hooks file: DIR/hooks.json for --codex-home DIR, else
$CODEX_HOME/hooks.json, else ~/.codex/hooks.json.

` + TrustNote + ".",
	}
}
