package qwen

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/graft-project/graft/hosts/adapter"
)

// Hooks: Claude Code-shaped command hooks in the user's settings.json on
// SessionStart, UserPromptSubmit, Stop and PreCompact. No hook answer stops
// a compression (Block nil); a PreCompact hook's additionalContext goes
// into the summary request, and a SessionStart hook's (source "compact")
// into the system prompt of the turns after it (doc.go).
func (Adapter) Hooks() adapter.Hooks {
	return adapter.Hooks{
		Events:         adapter.GraftNamed(),
		Scopes:         []adapter.Scope{adapter.ScopeUser},
		Settings:       settingsPath,
		CompactContext: true,
		// Qwen Code escapes the context's '<' and '>' (&lt; &gt;), trims
		// it and keeps its first MAX_HOOK_INSTRUCTIONS_CHARS = 4000 UTF-16
		// code units (doc.go).
		CompactContextMax: maxHookInstructionsChars,
		CompactContextLen: contextChars,
		// graft's Claude Code plugin, which Qwen Code installs as an
		// extension (qwen extensions install <marketplace>:graft).
		PluginRemove: "qwen extensions uninstall graft",
		PluginAt: func() (string, bool, error) {
			home, err := Home()
			if err != nil {
				return "", false, err
			}
			return adapter.ExtensionAt(filepath.Join(home, "extensions"), "graft", "qwen-extension.json")
		},
	}
}

// maxHookInstructionsChars is how much of a PreCompact hook's context
// Qwen Code puts into the summary request (MAX_HOOK_INSTRUCTIONS_CHARS).
const maxHookInstructionsChars = 4000

// contextChars is the length Qwen Code gives a PreCompact hook's context
// before it cuts it: JavaScript's, in UTF-16 code units, of the context
// with '<' and '>' escaped as "&lt;" and "&gt;" (getAdditionalContext).
func contextChars(s string) int {
	return adapter.UTF16Len(s) + 3*(strings.Count(s, "<")+strings.Count(s, ">"))
}

// settingsPath is <dir>/settings.json, dir defaulting to Home: the user's
// settings file, the one graft's hooks go in.
func settingsPath(scope adapter.Scope, dir string) (string, error) {
	if scope != adapter.ScopeUser && scope != "" {
		return "", fmt.Errorf("graft installs Qwen Code's hooks only in the user's settings.json, not a %s file", scope)
	}
	if dir == "" {
		var err error
		if dir, err = Home(); err != nil {
			return "", fmt.Errorf("no Qwen Code folder: $QWEN_HOME is not set and %w", err)
		}
	}
	return filepath.Abs(filepath.Join(dir, "settings.json"))
}

// Help is what graft's commands say of Qwen Code.
func (Adapter) Help() adapter.Help {
	return adapter.Help{
		Transcript:   "session.jsonl",
		Import:       "Import a Qwen Code session (~/.qwen/projects/<dir>/chats/<uuid>.jsonl)",
		ExportPath:   "$QWEN_RUNTIME_DIR (else $QWEN_HOME, else ~/.qwen)/projects/<cwd folder>/chats/<uuid>.jsonl",
		FindByID:     "Qwen Code's project folder of --cwd (else any project folder)",
		Hooks:        "Qwen Code's settings: $QWEN_HOME/settings.json (default ~/.qwen/settings.json)",
		Folder:       "Qwen Code's folder (default $QWEN_HOME, else ~/.qwen)",
		UserSettings: "$QWEN_HOME/settings.json or ~/.qwen/settings.json",
		HooksLong: `Qwen Code's user settings: DIR/settings.json for --qwen-home DIR, else
$QWEN_HOME/settings.json, else ~/.qwen/settings.json. Qwen Code cannot stop
its compression from a hook: graft's PreCompact hook puts the session's
constraints, with their origins, into the request that writes its summary,
and its SessionStart hook puts them into the turns after it. Sessions
started from now on run the hooks.`,
	}
}
