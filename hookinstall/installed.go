package hookinstall

import (
	"encoding/json"

	"github.com/graft-project/graft/hosts/adapter"
)

// Hook is one of graft's hooks in a settings file, where it stands: what
// graft doctor reads, and what a host that trusts hooks one by one keys
// its trust by (adapter.HookTruster).
type Hook = adapter.InstalledHook

// Installed lists graft's hooks for host in the settings file at path
// (recognised as Uninstall does, with no extra command), in the order of
// Events. A missing file has none.
func Installed(host Host, path string) ([]Hook, error) {
	s, err := readSettings(host, path)
	if err != nil {
		return nil, err
	}
	hooks := []Hook{}
	if s.hooks == nil {
		return hooks, nil
	}
	for _, he := range hostEvents(host) {
		ev := he.Name
		groups := s.eventGroups(ev)
		for _, f := range graftHooks(host, groups, "") {
			h := Hook{Event: ev, Group: f.group, Index: f.hook, Command: f.command}
			g, _ := parseObject(groups[f.group].val, groups[f.group].off, "group") // parsed by graftHooks
			if i := g.index("matcher"); i >= 0 {
				_ = json.Unmarshal(g[i].val, &h.Matcher) // not a string: no matcher
			}
			hs, _ := groupHooks(groups[f.group])
			if o, err := parseObject(hs[f.hook].val, hs[f.hook].off, "hook"); err == nil {
				if i := o.index("timeout"); i >= 0 {
					_ = json.Unmarshal(o[i].val, &h.Timeout) // not a number: none
				}
			}
			hooks = append(hooks, h)
		}
	}
	return hooks, nil
}

// Program is the program a hook command runs: its first word after any
// NAME=value assignments, split as IsGraftCommand splits it ("" when the
// command does not split).
func Program(command string) string {
	words, ok := shellWords(command)
	if !ok {
		return ""
	}
	for len(words) > 0 && isAssignment(words[0]) {
		words = words[1:]
	}
	if len(words) == 0 {
		return ""
	}
	return words[0]
}
