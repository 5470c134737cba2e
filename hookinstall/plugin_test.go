package hookinstall

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// marketplace makes a directory that looks like graft's plugin marketplace.
func marketplace(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "plugin")
	if err := os.MkdirAll(filepath.Join(dir, ".claude-plugin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".claude-plugin", "marketplace.json"), []byte(`{"name":"graft"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Issue 26, item 1: graft's own install of its Claude Code plugin adds two
// keys' members to the user's settings, and its uninstall gives the file
// back byte for byte: a hand-formatted file with the person's own plugins,
// and a file that did not exist (it goes again).
func TestPluginInstallThenUninstallIsByteExact(t *testing.T) {
	mk := marketplace(t)
	person := "{\n    \"model\": \"opus\",\n    \"enabledPlugins\": { \"mine@theirs\": true },\n\n    \"env\": {\"A\": \"1\"}\n}\n"
	empty := "{\n  \"theme\": \"dark\",\n  \"enabledPlugins\": {}\n}\n"
	// An empty file is taken as {} and comes back empty (found by
	// FuzzPluginInstallUninstallRoundTrip).
	blank := "\n"
	for name, before := range map[string]*string{"hand-formatted, with the person's plugin": &person, "the person's empty enabledPlugins": &empty, "no file": nil, "an empty file": &blank} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "settings.json")
			if before != nil {
				if err := os.WriteFile(path, []byte(*before), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			r, err := InstallPlugin(path, mk)
			if err != nil || !r.Changed || r.Created != (before == nil) {
				t.Fatalf("install: %+v, %v", r, err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Model       string                                  `json:"model"`
				Enabled     map[string]bool                         `json:"enabledPlugins"`
				Marketplace map[string]map[string]map[string]string `json:"extraKnownMarketplaces"`
			}
			if err := json.Unmarshal(data, &got); err != nil {
				t.Fatal(err)
			}
			if !got.Enabled[PluginID] || got.Marketplace["graft"]["source"]["source"] != "directory" || got.Marketplace["graft"]["source"]["path"] != mk {
				t.Fatalf("installed settings:\n%s", data)
			}
			if before == &person && (!got.Enabled["mine@theirs"] || got.Model != "opus") {
				t.Fatalf("the person's settings are gone:\n%s", data)
			}
			if r, err := InstallPlugin(path, mk); err != nil || r.Changed {
				t.Fatalf("a second install changed the file: %+v, %v", r, err)
			}
			u, err := UninstallPlugin(path)
			if err != nil || !u.Changed {
				t.Fatalf("uninstall: %+v, %v", u, err)
			}
			after, err := os.ReadFile(path)
			switch {
			case before == nil:
				if !os.IsNotExist(err) || !u.Deleted {
					t.Fatalf("the file graft created is still there (%v, %+v):\n%s", err, u, after)
				}
			case err != nil:
				t.Fatal(err)
			case string(after) != *before:
				t.Fatalf("after uninstall:\n%q\nwant:\n%q", after, *before)
			}
		})
	}
}

// A marketplace named graft that is no directory source is the person's:
// uninstall leaves it; a non-object value is refused, nothing written.
func TestPluginUninstallKeepsWhatIsNotGrafts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	theirs := `{"extraKnownMarketplaces":{"graft":{"source":{"source":"github","repo":"someone/graft"}}}}` + "\n"
	if err := os.WriteFile(path, []byte(theirs), 0o600); err != nil {
		t.Fatal(err)
	}
	if r, err := UninstallPlugin(path); err != nil || r.Changed {
		t.Fatalf("uninstall of a marketplace graft did not add: %+v, %v", r, err)
	}
	bad := `{"enabledPlugins": ["graft@graft"]}`
	if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := InstallPlugin(path, marketplace(t)); err == nil || !strings.Contains(err.Error(), "enabledPlugins") {
		t.Fatalf("install into a non-object enabledPlugins: %v, want an error naming it", err)
	}
	if data, _ := os.ReadFile(path); string(data) != bad {
		t.Fatalf("a refused install wrote:\n%s", data)
	}
}

// The plugin's id the adapters use is its name at its marketplace, as the
// marketplace in plugin/ names them.
func TestPluginIDIsNameAtMarketplace(t *testing.T) {
	if PluginID != PluginName+"@"+PluginMarketplace {
		t.Fatalf("PluginID %q, want %q", PluginID, PluginName+"@"+PluginMarketplace)
	}
}
