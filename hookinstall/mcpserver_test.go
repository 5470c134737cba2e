package hookinstall

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	toml "github.com/pelletier/go-toml/v2"
)

// Codex's config.toml comes back byte for byte after graft's MCP server
// was registered and removed, whatever its formatting (issue 26, item 1).
func TestCodexMCPInstallUninstallIsByteExact(t *testing.T) {
	cases := map[string]*string{
		"no file":         nil,
		"empty":           ptr(""),
		"newline at end":  ptr("model = \"o3\"\n\n[features]\nplugins   =  false # mine\n"),
		"no newline":      ptr("model = 'o3'\n[mcp_servers.other]\ncommand = \"x\""),
		"blank lines end": ptr("# just a comment\n\n\n"),
		"crlf":            ptr("model = \"o3\"\r\n[history]\r\npersistence = \"none\"\r\n"),
		// A file of blanks gets graft's table alone (found by
		// FuzzMCPInstallUninstallRoundTrip).
		"blanks only": ptr(" \t\n "),
	}
	for name, orig := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.toml")
			if orig != nil {
				if err := os.WriteFile(path, []byte(*orig), 0o640); err != nil {
					t.Fatal(err)
				}
			}
			r, err := InstallMCP(Codex, path, "/opt/my graft/graft", []string{"--home", `/h "q"`, "mcp"})
			if err != nil || !r.Changed {
				t.Fatalf("install: %+v %v", r, err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var v struct {
				MCPServers map[string]struct {
					Command string
					Args    []string
				} `toml:"mcp_servers"`
			}
			if err := toml.Unmarshal(data, &v); err != nil {
				t.Fatalf("installed config.toml is not TOML: %v\n%s", err, data)
			}
			if g := v.MCPServers["graft"]; g.Command != "/opt/my graft/graft" || strings.Join(g.Args, "|") != `--home|/h "q"|mcp` {
				t.Fatalf("graft's table reads %+v\n%s", g, data)
			}
			if orig != nil && strings.TrimSpace(*orig) != "" && !bytes.HasPrefix(data, []byte(*orig)) {
				t.Fatalf("install changed the person's bytes:\n%q", data)
			}
			if r, err := InstallMCP(Codex, path, "/opt/my graft/graft", []string{"--home", `/h "q"`, "mcp"}); err != nil || r.Changed || !r.Present {
				t.Fatalf("second install: %+v %v", r, err)
			}
			if r, err := UninstallMCP(Codex, path); err != nil || !r.Changed {
				t.Fatalf("uninstall: %+v %v", r, err)
			}
			got, err := os.ReadFile(path)
			if orig == nil {
				if !errors.Is(err, fs.ErrNotExist) {
					t.Fatalf("uninstall left %q (%v), want no file as before", got, err)
				}
				return
			}
			if err != nil || string(got) != *orig {
				t.Fatalf("after uninstall %q (%v), want %q", got, err, *orig)
			}
			if r, err := UninstallMCP(Codex, path); err != nil || r.Changed {
				t.Fatalf("second uninstall: %+v %v", r, err)
			}
		})
	}
}

// Codex writes into config.toml too (hook trust): graft's table goes, the
// rest stays; a table of the person's own is never graft's.
func TestCodexMCPKeepsWhatOthersWrote(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	orig := "model = \"o3\"\n"
	if err := os.WriteFile(path, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := InstallMCP(Codex, path, "/bin/graft", []string{"mcp"}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	trust := "\n[hooks.state.\"/c/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:00\"\n"
	if err := os.WriteFile(path, append(data, trust...), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := UninstallMCP(Codex, path); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != orig+trust {
		t.Fatalf("after uninstall %q, want %q", got, orig+trust)
	}

	own := "[mcp_servers.graft]\ncommand = \"graft\"\nargs = [\"mcp\"]\n"
	if err := os.WriteFile(path, []byte(own), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := InstallMCP(Codex, path, "/bin/graft", []string{"mcp"})
	if err != nil || r.Changed || len(r.Notes) != 1 {
		t.Fatalf("install over the person's table: %+v %v", r, err)
	}
	if r, err := UninstallMCP(Codex, path); err != nil || r.Changed {
		t.Fatalf("uninstall removed the person's table: %+v %v", r, err)
	}
	if got, _ := os.ReadFile(path); string(got) != own {
		t.Fatalf("the person's table changed: %q", got)
	}
	// Not TOML: refused, nothing written.
	if err := os.WriteFile(path, []byte("model = \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := InstallMCP(Codex, path, "/bin/graft", []string{"mcp"}); err == nil || !strings.Contains(err.Error(), "not valid TOML") {
		t.Fatalf("install into invalid TOML: %v", err)
	}
}

func ptr(s string) *string { return &s }

// Only a host whose adapter is an adapter.MCPRegistrar has a config file
// for graft's MCP server: Codex's is config.toml beside its hooks.json.
func TestMCPConfigPathIsTheAdapters(t *testing.T) {
	dir := t.TempDir()
	p, ok, err := MCPConfigPath(Codex, dir)
	if err != nil || !ok || p != filepath.Join(dir, "config.toml") {
		t.Fatalf("MCPConfigPath(codex) = %q, %v, %v", p, ok, err)
	}
	if p, ok, err := MCPConfigPath(ClaudeCode, dir); ok || err != nil || p != "" {
		t.Fatalf("MCPConfigPath(claude-code) = %q, %v, %v; want none", p, ok, err)
	}
	path := filepath.Join(dir, "settings.toml")
	if _, err := InstallMCP(ClaudeCode, path, "/bin/graft", []string{"mcp"}); err == nil {
		t.Fatal("InstallMCP(claude-code) registered graft's MCP server")
	}
	if _, err := UninstallMCP(ClaudeCode, path); err == nil {
		t.Fatal("UninstallMCP(claude-code) did not refuse")
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a refused edit wrote %s: %v", path, err)
	}
}
