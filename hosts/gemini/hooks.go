package gemini

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/graft-project/graft/hosts/adapter"
)

// Hooks: settings.json hooks on SessionStart, BeforeAgent (graft's
// UserPromptSubmit), AfterAgent (Stop) and PreCompress (PreCompact), in
// the user's settings file. Each group is {"matcher": "*",
// "hooks": [{"type": "command", "command", "timeout" in milliseconds}]}.
// No hook answer stops a compression (Block nil): graft carries the
// constraints into the first turn after one instead (hookrun).
func (Adapter) Hooks() adapter.Hooks {
	return adapter.Hooks{
		Events: []adapter.HookEvent{
			{Name: "SessionStart", Does: adapter.SessionStart},
			{Name: "BeforeAgent", Does: adapter.UserPromptSubmit},
			{Name: "AfterAgent", Does: adapter.Stop},
			{Name: "PreCompress", Does: adapter.PreCompact},
		},
		Scopes:                 []adapter.Scope{adapter.ScopeUser},
		Settings:               settingsPath,
		Matcher:                "*",
		TimeoutUnit:            time.Millisecond,
		CompactionInTranscript: true,
		// graft's extension (plugin/gemini), installed with Gemini CLI's
		// own "gemini extensions install".
		PluginRemove: "gemini extensions uninstall graft",
		PluginAt: func() (string, bool, error) {
			root, err := Adapter{}.Root()
			if err != nil {
				return "", false, err
			}
			return adapter.ExtensionAt(filepath.Join(root, "extensions"), "graft", "gemini-extension.json")
		},
		Notes: func(f adapter.SettingsFacts) []string {
			var notes []string
			if v, ok := f.Setting("hooksConfig"); f.Install && ok {
				var hc struct {
					Enabled *bool `json:"enabled"`
				}
				if json.Unmarshal([]byte(v), &hc) == nil && hc.Enabled != nil && !*hc.Enabled {
					notes = append(notes, fmt.Sprintf(`%s sets "hooksConfig": {"enabled": false}, so Gemini CLI runs none of its hooks, graft's included`, f.File))
				}
			}
			return notes
		},
	}
}

// HookInput is what Gemini CLI hands a hook on stdin (the fields graft
// reads are hookrun.Input's). It also sets GEMINI_PROJECT_DIR and
// GEMINI_SESSION_ID in the hook's environment.
type HookInput struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	Timestamp      string `json:"timestamp"`
	// Source is SessionStart's "startup" or "resume"; Trigger
	// PreCompress's "manual" or "auto"; Prompt BeforeAgent's and
	// AfterAgent's.
	Source  string `json:"source,omitempty"`
	Trigger string `json:"trigger,omitempty"`
	Prompt  string `json:"prompt,omitempty"`
}

// settingsPath is the user's settings file, <root>/settings.json, graft's
// only one for Gemini CLI: dir, when given, is the home Gemini CLI keeps
// .gemini in (what $GEMINI_CLI_HOME names, the flag graft hook install
// gemini takes), so the file is dir/.gemini/settings.json.
func settingsPath(scope adapter.Scope, dir string) (string, error) {
	if scope != adapter.ScopeUser && scope != "" {
		return "", fmt.Errorf("gemini: graft's hooks go only in the user's settings ($GEMINI_CLI_HOME/.gemini/settings.json, else ~/.gemini/settings.json), not the %s's", scope)
	}
	root := filepath.Join(dir, ".gemini")
	if dir == "" {
		var err error
		if root, err = (Adapter{}).Root(); err != nil {
			return "", fmt.Errorf("no Gemini CLI folder: %w", err)
		}
	}
	return filepath.Abs(filepath.Join(root, "settings.json"))
}

// Help is what graft's commands say of Gemini CLI.
func (Adapter) Help() adapter.Help {
	return adapter.Help{
		Transcript:   "session.jsonl",
		Import:       "Import a Gemini CLI session file (~/.gemini/tmp/<project>/chats/session-*.jsonl)",
		ExportPath:   "$GEMINI_CLI_HOME (else ~)/.gemini/tmp/<project>/chats/session-<time>-<id8>-graft.jsonl",
		FindByID:     "Gemini CLI's project folder of --cwd (else any), by the id in each file's first line",
		Hooks:        "Gemini CLI's settings: $GEMINI_CLI_HOME/.gemini/settings.json (default ~/.gemini/settings.json)",
		Folder:       "the home Gemini CLI keeps .gemini in (default $GEMINI_CLI_HOME, else ~)",
		UserSettings: "$GEMINI_CLI_HOME/.gemini/settings.json or ~/.gemini/settings.json",
		HooksLong: `Gemini CLI's settings file: DIR/.gemini/settings.json for --gemini-cli-home
DIR, else $GEMINI_CLI_HOME/.gemini/settings.json, else ~/.gemini/settings.json.
Each event gets {"matcher": "*", "hooks": [{"type": "command", "command": …,
"timeout": MS}]}, the timeout in milliseconds (Gemini CLI's unit).
Gemini CLI cannot be stopped from compressing a session: graft carries the
constraints, with their origins, into the first prompt after a compression.
Sessions started from now on run the hooks.`,
	}
}
