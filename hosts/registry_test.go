package hosts_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/hosts/adapter"
)

// Every host of the registry is found by its name and does what graft
// needs on each of its hook events; a host not in it is an error wherever
// it is named, never another host's behaviour (issue 25: Follow's mapper
// fell back to Claude Code's for any host that was not Codex).
func TestRegistry(t *testing.T) {
	seen := map[hosts.Host]bool{}
	for _, a := range hosts.Adapters() {
		if seen[a.Name()] {
			t.Errorf("host %s is in the registry twice", a.Name())
		}
		seen[a.Name()] = true
		if h, err := hosts.ParseHost(string(a.Name())); err != nil || h != a.Name() {
			t.Errorf("ParseHost(%s) = %q, %v", a.Name(), h, err)
		}
		does := map[string]bool{}
		for _, e := range a.Hooks().Events {
			does[e.Does] = true
		}
		for _, d := range []string{adapter.SessionStart, adapter.UserPromptSubmit, adapter.Stop, adapter.PreCompact} {
			if !does[d] {
				t.Errorf("%s: no hook event does %s", a.Name(), d)
			}
		}
		if len(a.Hooks().Scopes) == 0 || a.Hooks().Settings == nil {
			t.Errorf("%s: no settings file for graft's hooks", a.Name())
		}
		if a.Growth() != adapter.Appends && a.Growth() != adapter.Rewrites {
			t.Errorf("%s: growth %d is neither Appends nor Rewrites", a.Name(), a.Growth())
		}
	}
	if len(seen) != len(hosts.Hosts) {
		t.Errorf("Hosts %v, adapters %v", hosts.Hosts, seen)
	}

	const unknown = hosts.Host("gemini-unregistered")
	path := filepath.Join(t.TempDir(), "0a4b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d.jsonl")
	for what, err := range map[string]error{
		"ParseHost": func() error { _, err := hosts.ParseHost(string(unknown)); return err }(),
		"Of":        func() error { _, err := hosts.Of(unknown); return err }(),
		"FindTranscript": func() error {
			_, err := hosts.FindTranscript(unknown, "0a4b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d", "")
			return err
		}(),
		"HostSessionIDFromPath": func() error { _, err := hosts.HostSessionIDFromPath(unknown, path); return err }(),
		"ContextTokens":         func() error { _, _, err := hosts.ContextTokens(unknown, path); return err }(),
		"Root":                  func() error { _, err := hosts.Root(unknown); return err }(),
		"Follow":                func() error { _, err := hosts.Follow(hosts.FollowOptions{Host: unknown, Path: path}); return err }(),
		"Export":                func() error { _, err := hosts.Export(hosts.ExportOptions{Host: unknown, Session: "s"}); return err }(),
	} {
		if !errors.Is(err, hosts.ErrUnknownHost) {
			t.Errorf("%s of host %q: %v, want ErrUnknownHost", what, unknown, err)
		}
	}
	if got := hosts.ResumeCommand(unknown, "x"); got != "" {
		t.Errorf("ResumeCommand of host %q = %q, want none", unknown, got)
	}
}

// What an install does beyond a host's settings file is declared by the
// host's adapter, and today these hosts declare it: graft's MCP server in
// one more config file and hook trust for Codex, graft's plugin for Claude
// Code. Shared code asks the adapters, so no other host gets Codex's
// config.toml or Claude Code's plugin by mistake.
func TestRegistryDeclaresInstallExtras(t *testing.T) {
	var mcp, trust, plugin []hosts.Host
	for _, a := range hosts.Adapters() {
		if _, ok := a.(adapter.MCPRegistrar); ok {
			mcp = append(mcp, a.Name())
		}
		if _, ok := a.(adapter.HookTruster); ok {
			trust = append(trust, a.Name())
		}
		if a.Hooks().Plugin {
			plugin = append(plugin, a.Name())
		}
	}
	for what, got := range map[string][]hosts.Host{"MCPRegistrar": mcp, "HookTruster": trust} {
		if len(got) != 1 || got[0] != hosts.Codex {
			t.Errorf("the adapters that are %s: %v, want [%s]", what, got, hosts.Codex)
		}
	}
	if len(plugin) != 1 || plugin[0] != hosts.ClaudeCode {
		t.Errorf("the adapters whose Hooks declare Plugin: %v, want [%s]", plugin, hosts.ClaudeCode)
	}
}
