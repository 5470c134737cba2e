package hookrun

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/graft-project/graft/hookinstall"
	"github.com/graft-project/graft/hosts"
)

// pluginTwice is, for a run from graft's plugin (a host whose adapter's
// Hooks declare Plugin: Claude Code), why it stands down: graft hook
// install put graft's hook for the same event into one of the host's
// settings files (the user's, the project's, the project's local one),
// which the host runs as well. "" when none does. Of the two, the settings
// hook runs: it carries the --home and --config the person installed it
// with.
func pluginTwice(host hosts.Host, in *Input, set Settings) string {
	a, err := hosts.Of(host)
	if err != nil || !a.Hooks().Plugin {
		return ""
	}
	project := set.ProjectDir
	if project == "" {
		project = os.Getenv("CLAUDE_PROJECT_DIR")
	}
	if project == "" {
		project = in.Cwd
	}
	type place struct {
		scope hookinstall.Scope
		dir   string
		flag  string
	}
	places := []place{{hookinstall.ScopeUser, "", "--user"}}
	if project != "" {
		places = append(places, place{hookinstall.ScopeProject, project, "--project " + shellQuote(project)},
			place{hookinstall.ScopeLocal, project, "--local --project " + shellQuote(project)})
	}
	for _, p := range places {
		path, err := hookinstall.SettingsPath(host, p.scope, p.dir)
		if err != nil {
			continue
		}
		events, err := hookinstall.Find(host, path, "")
		if err != nil || !slices.Contains(events, in.HookEventName) {
			continue
		}
		return fmt.Sprintf("graft's hooks are installed twice: by the graft plugin and by graft hook install in %s (%s); the plugin's hooks stand down so that graft runs once per event. Keep one: graft hook uninstall %s %s, or %s plugin uninstall %s (graft doctor checks this).",
			path, strings.Join(events, ", "), host, p.flag, a.Program(), hookinstall.PluginID)
	}
	return ""
}
