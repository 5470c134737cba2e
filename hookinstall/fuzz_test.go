package hookinstall

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The person's files are sacred: a settings file graft installs into and
// then uninstalls from comes back byte for byte, and one graft refuses is
// not touched. These fuzzers check that on files nobody wrote by hand
// (make fuzz runs them at length; make test runs their seeds).

// settingsSeeds are settings files of the shapes people and hosts write.
var settingsSeeds = []string{
	"",
	"\n",
	"{}",
	"{}\n",
	`{"hooks":{}}`,
	"{\n  \"hooks\": {\n    \"Stop\": []\n  }\n}\n",
	"{\n    \"model\":   \"opus\",\n\t\"permissions\": {\"allow\": [\"Bash(git status)\"] },\n    \"env\": {\"A\": \"1\"}\n}",
	"{\"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"echo hi\"}]}],\n \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"notify-send done\", \"timeout\": 5}]}]}}\n",
	"{\"hooks\": {\"SessionStart\": [{\"matcher\": \"*\", \"hooks\": [{\"command\": \"graft hook claude-code && backup\"}]}, {\"hooks\": []}]}, \"x\": 1e3}",
	"{\"disableAllHooks\": true, \"s\": \"\\u00e9\\n\"}",
	"{\n\t\"hooks\": {\n\t\t\"BeforeAgent\": [\n\t\t\t{\"matcher\": \"*\", \"hooks\": [{\"type\": \"command\", \"command\": \"x\", \"timeout\": 1000}]}\n\t\t]\n\t}\n}\n",
	"{\"a\": [1, 2, {\"b\": null}], \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"/usr/local/bin/graft hook claude-code\"}]}]}}",
	"[]",
	"{\"hooks\": []}",
	"{\"a\": 1, \"a\": 2}",
	"{\"a\": \"\xff\"}",
	"{ \"a\" : 1 } trailing",
}

// fuzzHost picks one of the hosts graft installs hooks for.
func fuzzHost(n uint8) Host { return Hosts[int(n)%len(Hosts)] }

// unchanged fails unless the file at path holds want and its directory no
// backup: what a refused edit must leave.
func unchanged(t *testing.T, path string, want []byte, what string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s changed the file it refused:\n%q\nwas\n%q", what, got, want)
	}
	bk, err := filepath.Glob(path + BackupSuffix + "*")
	if err != nil {
		t.Fatal(err)
	}
	if len(bk) > 0 {
		t.Fatalf("%s refused the file but left a backup: %v", what, bk)
	}
}

func FuzzInstallUninstallRoundTrip(f *testing.F) {
	for i, s := range settingsSeeds {
		f.Add([]byte(s), uint8(i))
	}
	f.Fuzz(func(t *testing.T, data []byte, n uint8) {
		host := fuzzHost(n)
		command := Command(host, "/usr/local/bin/graft")
		path := filepath.Join(t.TempDir(), "settings.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		had, findErr := Find(host, path, "")
		r, err := Install(host, path, command)
		if err != nil {
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("install refused the file with %T, not a FileError naming where: %v", err, err)
			}
			if findErr == nil {
				t.Fatalf("install refused a file Find read: %v", err)
			}
			unchanged(t, path, data, "install")
			return
		}
		if findErr != nil {
			t.Fatalf("install took a file Find refused (%v)", findErr)
		}
		out, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(out) {
			t.Fatalf("install wrote a file that is not JSON:\n%q\nfrom\n%q", out, data)
		}
		if got, err := Find(host, path, command); err != nil || len(got) != len(hostEvents(host)) {
			t.Fatalf("after install Find says %v, %v; want every event of %s\n%s", got, err, host, out)
		}
		again, err := Install(host, path, command)
		if err != nil || again.Changed || len(again.Present) != len(hostEvents(host)) {
			t.Fatalf("a second install: %+v, %v; want nothing changed\n%s", again, err, out)
		}
		if len(had) == 0 && !r.Changed {
			t.Fatalf("install into a file without graft's hooks changed nothing: %+v", r)
		}
		u, err := Uninstall(host, path, "")
		if err != nil {
			t.Fatalf("uninstall of what install wrote: %v\n%s", err, out)
		}
		if got, err := Find(host, path, ""); err != nil || len(got) != 0 {
			t.Fatalf("after uninstall Find says %v, %v", got, err)
		}
		back, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(had) == 0 && !bytes.Equal(back, data) {
			t.Fatalf("install then uninstall (%s) did not give the file back byte for byte:\n%q\nwas\n%q\n(%+v)", host, back, data, u)
		}
		if !json.Valid(back) && strings.TrimSpace(string(back)) != "" {
			t.Fatalf("uninstall left a file that is not JSON:\n%q", back)
		}
	})
}

// configSeeds are Codex config.toml files.
var configSeeds = []string{
	"",
	"\n",
	"model = \"o3\"",
	"model = \"o3\"\n",
	"model = \"o3\"\n\n\n",
	"[mcp_servers.other]\ncommand = \"x\"\n",
	"# comment\n[projects.\"/tmp/x\"]\ntrust_level = \"trusted\"\n",
	"[mcp_servers.graft]\ncommand = \"mine\"\n",
	"# graft's MCP server, added by \"graft hook install codex\"; \"graft hook uninstall codex\" removes this table\n[mcp_servers.graft]\ncommand = \"/old/graft\"\nargs = [\"mcp\"]\n\n[x]\ny = 1\n",
	"a = [\n  1,\n  2,\n]\n",
	"a = \"\"\"\nmulti\n\"\"\"",
	"not toml = = 1",
	"[a]\n[a]\n",
}

func FuzzMCPInstallUninstallRoundTrip(f *testing.F) {
	for _, s := range configSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "config.toml")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		args := []string{"--home", "/h", "mcp"}
		marked := bytes.Contains(data, []byte("graft's MCP server, added by"))
		if _, err := InstallMCP(Codex, path, "/usr/local/bin/graft", args); err != nil {
			if !strings.Contains(err.Error(), "nothing written") {
				t.Fatalf("install refused config.toml without saying nothing was written: %v", err)
			}
			unchanged(t, path, data, "the MCP install")
			return
		}
		out, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		again, err := InstallMCP(Codex, path, "/usr/local/bin/graft", args)
		if err != nil || again.Changed {
			t.Fatalf("a second MCP install: %+v, %v; want nothing changed\n%s", again, err, out)
		}
		if _, err := UninstallMCP(Codex, path); err != nil {
			t.Fatalf("uninstall of what install wrote: %v\n%s", err, out)
		}
		back, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !marked && !bytes.Equal(back, data) {
			t.Fatalf("MCP install then uninstall did not give config.toml back byte for byte:\n%q\nwas\n%q\ninstalled\n%q", back, data, out)
		}
	})
}

func FuzzPluginInstallUninstallRoundTrip(f *testing.F) {
	for _, s := range settingsSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"enabledPlugins": {"x@y": true}, "extraKnownMarketplaces": {}}`))
	f.Add([]byte(`{"extraKnownMarketplaces": {"graft": {"source": {"source": "github", "repo": "me/graft"}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		market := filepath.Join(dir, "market")
		if err := os.MkdirAll(filepath.Join(market, ".claude-plugin"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(market, ".claude-plugin", "marketplace.json"), []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "settings.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		// Graft's own members already there make the file not the person's alone.
		ours := bytes.Contains(data, []byte("graft"))
		if _, err := InstallPlugin(path, market); err != nil {
			unchanged(t, path, data, "the plugin install")
			return
		}
		out, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(out) {
			t.Fatalf("the plugin install wrote a file that is not JSON:\n%q", out)
		}
		if _, err := UninstallPlugin(path); err != nil {
			t.Fatalf("uninstall of what install wrote: %v\n%s", err, out)
		}
		back, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !ours && !bytes.Equal(back, data) {
			t.Fatalf("plugin install then uninstall did not give settings.json back byte for byte:\n%q\nwas\n%q\ninstalled\n%q", back, data, out)
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		if slices.ContainsFunc(entries, func(e os.DirEntry) bool { return strings.HasPrefix(e.Name(), ".settings.json") }) {
			t.Fatalf("a temp file was left beside settings.json: %v", entries)
		}
	})
}
