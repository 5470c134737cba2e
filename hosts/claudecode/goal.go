package claudecode

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"

	"github.com/graft-project/graft/hosts/adapter"
)

// GoalGoesOn implements adapter.GoalCarrier: Claude Code restores the goal
// on --resume and checks it when a turn ends; it starts none on its own.
func (Adapter) GoalGoesOn() string {
	return "Claude Code restores it on resume and checks it when your first turn there ends"
}

// GoalHeldBy implements adapter.GoalHolder: Claude Code 2.1.332 runs a
// goal as a session Stop hook, and while hooks are restricted
// ("disableAllHooks" or "allowManagedHooksOnly" true in any settings
// file it reads: the project's local and shared ones in dir, the user's,
// the machine's managed-settings.json and managed-settings.d/*.json) it
// restores none on resume: /goal says "No goal set" and no check reaches
// the model (TestClaudeRestoresNoGoalWithHooksOff, on the real program).
// A policy Claude Code reads from MDM, the registry or a server is not
// seen. It names the file and the setting, "" when no file restricts
// hooks; a file that is not JSON is an error naming it.
func (Adapter) GoalHeldBy(dir string) (string, error) {
	var files []string
	for _, sc := range []adapter.Scope{adapter.ScopeLocal, adapter.ScopeProject, adapter.ScopeUser} {
		in := dir
		if sc == adapter.ScopeUser {
			in = "" // the user's, in the configuration directory
		}
		p, err := settingsPath(sc, in)
		if err != nil {
			return "", err
		}
		files = append(files, p)
	}
	files = append(files, filepath.Join(managedDir, "managed-settings.json"))
	dropIns, err := filepath.Glob(filepath.Join(managedDir, "managed-settings.d", "*.json"))
	if err != nil {
		return "", err
	}
	sort.Strings(dropIns)
	files = append(files, dropIns...)
	for _, p := range files {
		b, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		var s map[string]json.RawMessage
		if err := json.Unmarshal(b, &s); err != nil {
			return "", fmt.Errorf("%s: not a JSON object: %w", p, err)
		}
		for _, key := range []string{"disableAllHooks", "allowManagedHooksOnly"} {
			if v, ok := s[key]; ok && string(v) == "true" {
				return fmt.Sprintf(`%s sets "%s": true, and Claude Code restores no goal while its hooks are restricted`, p, key), nil
			}
		}
	}
	return "", nil
}

// managedDir is the folder of the machine's managed settings, as Claude
// Code 2.1.332 names it for each system (a variable for the tests).
var managedDir = managedFolder(runtime.GOOS)

func managedFolder(goos string) string {
	switch goos {
	case "darwin":
		return "/Library/Application Support/ClaudeCode"
	case "windows":
		return `C:\Program Files\ClaudeCode`
	}
	return "/etc/claude-code"
}
