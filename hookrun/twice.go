package hookrun

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/graft-project/graft/hookinstall"
	"github.com/graft-project/graft/hosts"
)

// pluginTwice is, for a run from graft's plugin or extension (a host
// whose adapter's Hooks name PluginRemove: the Claude Code plugin in
// Claude Code, Codex and Qwen Code, the Gemini CLI extension), why it
// stands down: graft hook install put graft's
// hook for the same event into one of the host's settings files (the
// user's, the project's, the project's local one, those the host has),
// which the host runs as well. "" when none does. Of the two, the settings
// hook runs: it carries the --home and --config the person installed it
// with.
func pluginTwice(host hosts.Host, in *Input, set Settings) string {
	a, err := hosts.Of(host)
	if err != nil || a.Hooks().PluginRemove == "" {
		return ""
	}
	scopes := a.Hooks().Scopes
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
	if len(scopes) == 1 {
		// The host's one settings file: graft hook uninstall needs no
		// flag for it.
		places = []place{{scopes[0], "", ""}}
	}
	for _, p := range places {
		if !slices.Contains(scopes, p.scope) {
			continue
		}
		path, err := hookinstall.SettingsPath(host, p.scope, p.dir)
		if err != nil {
			continue
		}
		events, err := hookinstall.Find(host, path, "")
		if err != nil || !slices.Contains(events, in.HookEventName) {
			continue
		}
		uninstall := strings.TrimSpace("graft hook uninstall " + string(host) + " " + p.flag)
		return fmt.Sprintf("graft's hooks are installed twice: by the graft plugin and by graft hook install in %s (%s); the plugin's hooks stand down so that graft runs once per event. Keep one: %s, or %s (graft doctor checks this).",
			path, strings.Join(events, ", "), uninstall, a.Hooks().PluginRemove)
	}
	return ""
}
