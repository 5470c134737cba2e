package hosts_test

// graft's Claude Code plugin (plugin/ in the repository) in the real
// Codex, offline, in a throw-away CODEX_HOME: Codex adds a Claude Code
// marketplace and installs its plugins, and runs a plugin's hooks with
// PLUGIN_ROOT set and no CLAUDE_PROJECT_DIR (the plugin's script then runs
// graft's Codex hook).

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/graft-project/graft/internal/hosttest"
)

func TestCodexRunsGraftsPlugin(t *testing.T) {
	h := hosttest.Install(t)
	_, crash := binaries(t)
	srv := hosttest.NewModelServer(t)
	x := h.NewCodex(t, srv)
	g := graftOnPath(t, x.Root, &x.Extra, x.Environ(), x.Dir)
	home := g.home
	market := marketCopy(t)
	// The harness's config.toml turns Codex's plugins off; --enable turns
	// them on for each run, as a person's default config has them.
	plugins := []string{"--enable", "plugins"}
	x.Run(t, append([]string{"plugin", "marketplace", "add", market}, plugins...)...).Ok(t)
	x.Run(t, append([]string{"plugin", "add", "graft@graft"}, plugins...)...).Ok(t)
	if at := g.doctorPlugin("codex"); at != x.ConfigPath() {
		t.Errorf("graft doctor says Codex keeps graft's plugin at %q, want %s", at, x.ConfigPath())
	}

	// A killed commit is recovered before the turn, and the turn's hooks
	// follow the Codex session (before the plugin's script knew Codex,
	// they ran graft's Claude Code hook, which refused the rollout).
	killedCommit(t, crash, home, "commit/journal-flushed:after")
	trust := append([]string{"--dangerously-bypass-hook-trust"}, plugins...)
	x.Exec(t, "hello", trust...).Ok(t)
	if left, _ := filepath.Glob(filepath.Join(home, ".txn", "*.json")); len(left) != 0 {
		t.Fatalf("the plugin's SessionStart hook left the journal record %v", left)
	}
	if hs := g.hostSessions(); len(hs) != 1 || hs[0].Host != "codex" {
		t.Fatalf("the plugin's hooks followed %+v, want the one Codex session", hs)
	}
	// Codex starts the plugin's MCP server (sh runs $GRAFT_BIN, else graft
	// on PATH: Codex expands no ${CLAUDE_PLUGIN_ROOT} and resolves no path
	// of the plugin's own) and lists its tools to the model.
	checkCodexPluginTools(t, srv.Requests())
	// Codex run by an agent inside a Claude Code session inherits its
	// CLAUDE_PROJECT_DIR: the rollout the hook input names still says
	// Codex.
	inner := append(x.Extra[:len(x.Extra):len(x.Extra)], "CLAUDE_PROJECT_DIR="+x.Dir)
	x.Extra, inner = inner, x.Extra
	x.Exec(t, "from claude", trust...).Ok(t)
	x.Extra = inner
	if hs := g.hostSessions(); len(hs) != 2 || hs[0].Host != "codex" || hs[1].Host != "codex" {
		t.Fatalf("with CLAUDE_PROJECT_DIR set, the plugin's hooks followed %+v, want a second Codex session", hs)
	}

	// graft hook install's hooks too: the plugin's stand down, saying how
	// to keep one.
	installHooks(t, g, "codex", "", "--codex-home", x.CodexHome)
	x.Exec(t, "again", trust...).Ok(t)
	if hs := g.hostSessions(); len(hs) != 3 {
		t.Fatalf("the settings hooks did not follow the third session: %+v", hs)
	}
	wantTwiceNotice(t, home, "graft hook uninstall codex", "codex plugin remove graft@graft")

	// With no graft on PATH, $GRAFT_BIN is the server's graft.
	for _, d := range []string{"/usr/bin", "/bin"} {
		if _, err := os.Stat(filepath.Join(d, "graft")); err == nil {
			t.Fatalf("%s holds a graft: the run without graft on PATH would find it", d)
		}
	}
	bin, _ := binaries(t)
	seen := len(srv.Requests())
	bare := append(x.Extra[:len(x.Extra):len(x.Extra)], "PATH=/usr/bin:/bin", "GRAFT_BIN="+bin)
	x.Extra, bare = bare, x.Extra
	x.Exec(t, "graft by GRAFT_BIN", trust...).Ok(t)
	x.Extra = bare
	checkCodexPluginTools(t, srv.Requests()[seen:])

	x.Run(t, append([]string{"plugin", "remove", "graft@graft"}, plugins...)...).Ok(t)
	if at := g.doctorPlugin("codex"); at != "" {
		t.Errorf("graft doctor names the plugin after codex plugin remove: %q", at)
	}
}

// checkCodexPluginTools fails unless a model request of reqs lists each of
// graft's MCP tools.
func checkCodexPluginTools(t *testing.T, reqs []hosttest.Request) {
	t.Helper()
	for _, n := range pluginToolNames {
		found := false
		for _, r := range reqs {
			if r.Contains(n) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("no request of the turn lists graft's MCP tool %s: Codex did not start the plugin's server", n)
		}
	}
}
