package hosts_test

// graft's Claude Code plugin (plugin/ in the repository: a directory
// marketplace "graft" holding the plugin "graft") in the real Claude Code,
// offline, in throw-away profiles. Skipped with -short.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graft-project/graft/hookinstall"
	"github.com/graft-project/graft/internal/hosttest"
	"github.com/graft-project/graft/internal/testfixtures"
)

// pluginMarket is the repository's plugin marketplace directory.
func pluginMarket(t *testing.T) string {
	t.Helper()
	return filepath.Join(testfixtures.ModuleRoot(t), "plugin")
}

// pluginEnv is a Claude Code environment with graft on PATH (the plugin
// finds it there) and GRAFT_HOME in the throw-away root.
func pluginEnv(t *testing.T, h hosttest.Hosts, srv *hosttest.ModelServer) (*hosttest.ClaudeEnv, graftRun) {
	t.Helper()
	bin, _ := binaries(t)
	c := h.NewClaude(t, srv)
	home := filepath.Join(c.Root, "graft")
	c.Extra = append(c.Extra, "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"), "GRAFT_HOME="+home,
		"XDG_STATE_HOME="+filepath.Join(c.Root, "state"))
	return c, graftRun{t: t, bin: bin, home: home, env: c.Environ(), dir: c.Dir}
}

// pluginToolNames are the plugin's MCP tools as Claude Code names them.
var pluginToolNames = []string{"graft_prepare", "graft_commit", "graft_recall", "graft_find", "graft_status", "graft_revert"}

// checkDeferredTools fails unless req lists every graft MCP tool of the
// plugin among the deferred tools (loaded through ToolSearch).
func checkDeferredTools(t *testing.T, req hosttest.Request) {
	t.Helper()
	if !req.Contains("deferred tools are now available via ToolSearch") {
		t.Fatalf("the request lists no deferred tools; its strings:\n%q", req.Strings())
	}
	for _, n := range pluginToolNames {
		if !req.Contains("mcp__plugin_graft_graft__" + n) {
			t.Errorf("the request does not list the plugin's MCP tool mcp__plugin_graft_graft__%s", n)
		}
	}
}

// followed fails unless graft's hooks followed the host session id.
func followed(t *testing.T, g graftRun, id string) string {
	t.Helper()
	for _, b := range g.hostSessions() {
		if b.HostSessionID == id {
			return b.Session
		}
	}
	t.Fatalf("graft's hooks did not follow Claude Code session %s: %+v", id, g.hostSessions())
	return ""
}

// Issue 26, item 1: the plugin installed from the repository's directory
// marketplace (user scope) runs graft's hooks on claude -p turns and a
// /compact, and serves graft's MCP tools.
func TestClaudeCodePluginFromTheMarketplace(t *testing.T) {
	h := hosttest.Install(t)
	srv := hosttest.NewModelServer(t)
	c, g := pluginEnv(t, h, srv)
	c.Run(t, "plugin", "marketplace", "add", pluginMarket(t)).Ok(t)
	c.Run(t, "plugin", "install", "graft@graft").Ok(t)
	// Where Claude Code 2.1.328 records it.
	for file, want := range map[string]string{
		"settings.json":                   `"graft@graft": true`,
		"plugins/installed_plugins.json":  `"graft@graft"`,
		"plugins/known_marketplaces.json": `"path": "` + pluginMarket(t) + `"`,
	} {
		b, err := os.ReadFile(filepath.Join(c.ConfigDir, filepath.FromSlash(file)))
		if err != nil || !bytes.Contains(b, []byte(want)) {
			t.Errorf("%s after the install: %v, want it to hold %s:\n%s", file, err, want, b)
		}
	}

	c.Print(t, "Port the pager to Go. "+constraint).Ok(t)
	id := sessionOf(t, c)
	session := followed(t, g, id)
	if ev := g.ok("show", session); !strings.Contains(ev, constraint) {
		t.Fatalf("the followed session lacks the human's words:\n%s", ev)
	}
	checkDeferredTools(t, lastModelRequest(t, srv))

	// /compact: the host compacts (interceptCompaction is off), and the
	// plugin's SessionStart puts the constraints back after it.
	srv.SetSummary("The user wants the pager ported.")
	c.Resume(t, id, "/compact").Ok(t)
	if len(srv.Compactions()) == 0 {
		t.Fatal("/compact sent no compaction request")
	}
	srv.Reset()
	c.Resume(t, id, "next step").Ok(t)
	req := lastModelRequest(t, srv)
	if !req.Contains("[Anchor + Hard Constraints]") || !req.Contains(constraint) {
		t.Fatalf("after the compaction the request lacks the constraints block the plugin's hook injects; its strings:\n%q", req.Strings())
	}
}

// claude --plugin-dir loads the plugin with no install, and its MCP server
// runs $GRAFT_BIN when no graft is on PATH; with the project scope, the
// install is recorded in the project's .claude/settings.json.
func TestClaudeCodePluginDirAndProjectScope(t *testing.T) {
	h := hosttest.Install(t)
	srv := hosttest.NewModelServer(t)
	c, g := pluginEnv(t, h, srv)
	c.Run(t, "--plugin-dir", filepath.Join(pluginMarket(t), "graft"), "-p", "hello").Ok(t)
	followed(t, g, sessionOf(t, c))
	checkDeferredTools(t, lastModelRequest(t, srv))

	// No graft on PATH: the plugin's MCP server is $GRAFT_BIN.
	bin, _ := binaries(t)
	for _, d := range []string{"/usr/bin", "/bin"} {
		if _, err := os.Stat(filepath.Join(d, "graft")); err == nil {
			t.Fatalf("%s holds a graft: the run without graft on PATH would find it", d)
		}
	}
	c.Extra = append(c.Extra, "PATH=/usr/bin:/bin", "GRAFT_BIN="+bin)
	srv.Reset()
	c.Run(t, "--plugin-dir", filepath.Join(pluginMarket(t), "graft"), "-p", "hello").Ok(t)
	checkDeferredTools(t, lastModelRequest(t, srv))

	p, gp := pluginEnv(t, h, srv)
	p.Run(t, "plugin", "marketplace", "add", pluginMarket(t)).Ok(t)
	p.Run(t, "plugin", "install", "--scope", "project", "graft@graft").Ok(t)
	b, err := os.ReadFile(filepath.Join(p.Dir, ".claude", "settings.json"))
	if err != nil || !bytes.Contains(b, []byte(`"graft@graft": true`)) {
		t.Fatalf("project settings after a project-scope install: %v\n%s", err, b)
	}
	srv.Reset()
	p.Print(t, "hello").Ok(t)
	followed(t, gp, sessionOf(t, p))
	checkDeferredTools(t, lastModelRequest(t, srv))
}

// hookResponses are the hook_response events of a stream-json run, by
// hook name ("SessionStart:startup"), each the hook's stdout.
func hookResponses(t *testing.T, r hosttest.Result) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, line := range strings.Split(r.Stdout, "\n") {
		var raw map[string]any
		if json.Unmarshal([]byte(line), &raw) != nil || raw["subtype"] != "hook_response" {
			continue
		}
		name, _ := raw["hook_name"].(string)
		stdout, _ := raw["stdout"].(string)
		out[name] = append(out[name], stdout)
	}
	return out
}

// Issue 26, items 1 and 5: with graft hook install's hooks in the project
// too, the plugin's hooks stand down and say so once; without a graft
// binary the plugin says so once and the turn goes on.
func TestClaudeCodePluginTellsWhatItCannotDo(t *testing.T) {
	h := hosttest.Install(t)
	srv := hosttest.NewModelServer(t)
	c, g := pluginEnv(t, h, srv)
	installHooks(t, g, "claude-code", "", "--project", c.Dir)
	plugin := filepath.Join(pluginMarket(t), "graft")
	run := func() map[string][]string {
		return hookResponses(t, c.Run(t, "--plugin-dir", plugin, "-p", "hello", "--output-format", "stream-json", "--verbose").Ok(t))
	}
	first := run()
	starts := strings.Join(first["SessionStart:startup"], "\n")
	if !strings.Contains(starts, "installed twice") || !strings.Contains(starts, "graft doctor") {
		t.Fatalf("the first SessionStart does not say graft's hooks are installed twice: %q", first)
	}
	followed(t, g, sessionOf(t, c)) // the settings hooks did the work
	if again := run(); strings.Contains(fmt.Sprint(again), "installed twice") {
		t.Fatalf("the second run told it again: %q", again)
	}

	// No graft binary: the plugin's own script says so, once; exit 0.
	x, _ := pluginEnv(t, h, srv)
	x.Extra = append(x.Extra, "PATH=/usr/bin:/bin")
	runX := func() (hosttest.Result, map[string][]string) {
		r := x.Run(t, "--plugin-dir", plugin, "-p", "hello", "--output-format", "stream-json", "--verbose").Ok(t)
		return r, hookResponses(t, r)
	}
	r, hooks := runX()
	if s := strings.Join(hooks["SessionStart:startup"], ""); !strings.Contains(s, `"systemMessage":"graft plugin: graft's hooks did nothing: no graft on PATH`) || !strings.Contains(s, "graft doctor") {
		t.Fatalf("without a graft binary the SessionStart says nothing: %q\n%s", hooks, r)
	}
	if _, hooks := runX(); strings.Contains(fmt.Sprint(hooks), "systemMessage") {
		t.Fatalf("the missing binary was told again: %q", hooks)
	}
}

// Issue 26, item 1: one reversible command gives Codex graft's hooks and
// its MCP server; uninstall gives config.toml back byte for byte.
func TestCodexHookInstallRegistersTheMCPServer(t *testing.T) {
	h := hosttest.Install(t)
	bin, _ := binaries(t)
	srv := hosttest.NewModelServer(t)
	x := h.NewCodex(t, srv)
	g := graftRun{t: t, bin: bin, home: filepath.Join(x.Root, "graft"), env: x.Environ(), dir: x.Dir}
	before, err := os.ReadFile(x.ConfigPath())
	if err != nil {
		t.Fatal(err)
	}
	installHooks(t, g, "codex", "", "--codex-home", x.CodexHome)

	x.Exec(t, "Port the pager to Go.", "--dangerously-bypass-hook-trust").Ok(t)
	req := lastModelRequest(t, srv)
	for _, n := range pluginToolNames {
		if !req.Contains(n) {
			t.Errorf("Codex's request does not offer graft's MCP tool %s", n)
		}
	}
	if bs := g.hostSessions(); len(bs) != 1 {
		t.Errorf("graft's hooks did not follow the Codex session: %+v", bs)
	}

	cfg := filepath.Join(g.home, "config.toml")
	g.ok("--config", cfg, "hook", "uninstall", "codex", "--codex-home", x.CodexHome)
	after, err := os.ReadFile(x.ConfigPath())
	if err != nil || !bytes.Equal(after, before) {
		t.Fatalf("config.toml after uninstall (%v):\n%s\nwant, as before:\n%s", err, after, before)
	}
	srv.Reset()
	x.Exec(t, "again", "--dangerously-bypass-hook-trust").Ok(t)
	if req := lastModelRequest(t, srv); req.Contains("graft_status") {
		t.Error("after uninstall Codex still offers graft's MCP tools")
	}
}

// The plugin hooks the events graft hook install does, with its timeouts,
// through its script (no real host needed).
func TestPluginHooksAreGraftHookInstalls(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(pluginMarket(t), "graft", "hooks", "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Type, Command string
				Timeout       int
			}
		}
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Hooks) != len(hookinstall.Events) {
		t.Errorf("the plugin hooks %d events, graft hook install %d", len(f.Hooks), len(hookinstall.Events))
	}
	for _, ev := range hookinstall.Events {
		gs := f.Hooks[ev]
		if len(gs) != 1 || len(gs[0].Hooks) != 1 {
			t.Errorf("%s: %+v, want one group of one hook", ev, gs)
			continue
		}
		hk := gs[0].Hooks[0]
		if hk.Type != "command" || hk.Command != `"${CLAUDE_PLUGIN_ROOT}/bin/graft-plugin" hook` || hk.Timeout != hookinstall.Timeout(ev) {
			t.Errorf("%s: %+v, want the plugin's script with timeout %d", ev, hk, hookinstall.Timeout(ev))
		}
	}
	if fi, err := os.Stat(filepath.Join(pluginMarket(t), "graft", "bin", "graft-plugin")); err != nil || fi.Mode().Perm()&0o111 == 0 {
		t.Errorf("bin/graft-plugin is not executable: %v", err)
	}
}

// Issue 26, item 1, its last condition: graft plugin install enables the
// plugin with two keys of the user's settings, the real Claude Code loads
// it from them (its hooks follow a turn, its MCP tools are listed), and
// graft plugin uninstall gives the settings file back byte for byte.
func TestGraftPluginInstallLoadsAndUninstallRestores(t *testing.T) {
	h := hosttest.Install(t)
	srv := hosttest.NewModelServer(t)
	c, g := pluginEnv(t, h, srv)
	settings := filepath.Join(c.ConfigDir, "settings.json")
	before := []byte("{\n  \"theme\": \"dark\",\n  \"enabledPlugins\": {}\n}\n")
	if err := os.WriteFile(settings, before, 0o600); err != nil {
		t.Fatal(err)
	}
	g.ok("plugin", "install", "--marketplace", pluginMarket(t))
	c.Print(t, "Port the pager to Go. "+constraint).Ok(t)
	followed(t, g, sessionOf(t, c))
	checkDeferredTools(t, lastModelRequest(t, srv))

	g.ok("plugin", "uninstall")
	after, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(after, before) {
		t.Fatalf("settings.json after graft plugin uninstall:\n%q\nwant:\n%q", after, before)
	}
}

// wantTwiceNotice fails unless the graft home holds one notice of graft's
// hooks installed twice, naming both ways to keep one: uninstall (graft
// hook uninstall …, with no scope flag for a host of one settings file)
// and remove (the host's own command for the plugin or extension).
func wantTwiceNotice(t *testing.T, home, uninstall, remove string) {
	t.Helper()
	twice, _ := filepath.Glob(filepath.Join(home, "hook-notices", "twice-*.json"))
	if len(twice) != 1 {
		t.Fatalf("notices of graft's hooks installed twice: %v, want one", twice)
	}
	note, err := os.ReadFile(twice[0])
	if err != nil {
		t.Fatal(err)
	}
	if s := string(note); !strings.Contains(s, uninstall) || !strings.Contains(s, remove) || strings.Contains(s, "--user") {
		t.Errorf("the notice does not say how to keep one (%s, or %s): %s", uninstall, remove, s)
	}
}

// marketCopy is a copy of the repository's plugin marketplace in a
// temporary folder: a host may write into the folder it installs from.
func marketCopy(t *testing.T) string {
	t.Helper()
	market := filepath.Join(t.TempDir(), "plugin")
	if out, err := exec.Command("cp", "-R", pluginMarket(t), market).CombinedOutput(); err != nil {
		t.Fatalf("copying the marketplace: %v\n%s", err, out)
	}
	return market
}

// graftOnPath puts the graft under test on the PATH of a host environment
// (its Extra entries, extra) with GRAFT_HOME under root, as a person's
// plugin or extension finds it, and returns graft as that environment
// runs it.
func graftOnPath(t *testing.T, root string, extra *[]string, environ []string, dir string) graftRun {
	t.Helper()
	bin, _ := binaries(t)
	home := filepath.Join(root, "graft")
	*extra = append(*extra, "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"), "GRAFT_HOME="+home)
	return graftRun{t: t, bin: bin, home: home, env: append(environ, *extra...), dir: dir}
}
