package hosts_test

// graft's Claude Code plugin (plugin/ in the repository) in the real Qwen
// Code, offline, in throw-away homes: Qwen Code installs a Claude Code
// plugin from its marketplace as an extension, runs its hooks with
// QWEN_PROJECT_DIR set (the plugin's script then runs graft's Qwen Code
// hook) and lists its MCP tools.

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/graft-project/graft/internal/hosttest"
)

func TestQwenCodeRunsGraftsPlugin(t *testing.T) {
	h := hosttest.Install(t)
	_, crash := binaries(t)
	qs := hosttest.NewQwenServer(t)
	q := h.NewQwen(t, qs)
	g := graftOnPath(t, q.Root, &q.Extra, q.Environ(), q.Dir)
	home := g.home
	// Qwen Code writes a copy of the plugin into the marketplace folder it
	// installs from (plugin<sha256>/): it installs from a copy, not from
	// the repository.
	market := marketCopy(t)
	q.Run(t, "extensions", "install", market+":graft", "--consent").Ok(t)
	if left, _ := filepath.Glob(filepath.Join(market, "plugin*")); len(left) != 1 {
		t.Errorf("Qwen Code left %v in the marketplace folder, not one plugin<sha256> folder (README says it does)", left)
	}
	installed := filepath.Join(q.QwenDir, "extensions", "graft")
	if _, err := os.Stat(filepath.Join(installed, "hooks", "hooks.json")); err != nil {
		t.Fatalf("the installed extension has no hooks: %v", err)
	}
	if at := g.doctorPlugin("qwen"); at != filepath.Join(installed, "qwen-extension.json") {
		t.Errorf("graft doctor says Qwen Code keeps graft's plugin at %q", at)
	}

	// A killed commit is recovered before the turn; the turn's hooks
	// follow the Qwen Code session (before the plugin's script knew Qwen
	// Code, they ran graft's Claude Code hook, which refused the
	// transcript); the request lists graft's MCP tools (as deferred ones).
	killedCommit(t, crash, home, "commit/journal-flushed:after")
	q.Print(t, "hello", "--approval-mode", "yolo").Ok(t)
	if left, _ := filepath.Glob(filepath.Join(home, ".txn", "*.json")); len(left) != 0 {
		t.Fatalf("the plugin left the journal record %v", left)
	}
	if hs := g.hostSessions(); len(hs) != 1 || hs[0].Host != "qwen" {
		t.Fatalf("the plugin's hooks followed %+v, want the one Qwen Code session", hs)
	}
	checkQwenPluginTools(t, qs.Requests())

	// graft hook install's hooks too: the plugin's stand down, saying how
	// to keep one.
	installHooks(t, g, "qwen", "", "--qwen-home", q.QwenDir)
	q.Print(t, "again").Ok(t)
	if hs := g.hostSessions(); len(hs) != 2 {
		t.Fatalf("the settings hooks did not follow the second session: %+v", hs)
	}
	wantTwiceNotice(t, home, "graft hook uninstall qwen", "qwen extensions uninstall graft")

	q.Run(t, "extensions", "uninstall", "graft").Ok(t)
	if _, err := os.Stat(installed); !os.IsNotExist(err) {
		t.Fatalf("qwen extensions uninstall left %s: %v", installed, err)
	}
}

// checkQwenPluginTools fails unless the first of reqs lists each of
// graft's MCP tools as Qwen Code 0.24.4 names a server's tool,
// mcp__<server>__<tool>.
func checkQwenPluginTools(t *testing.T, reqs []hosttest.Request) {
	t.Helper()
	if len(reqs) == 0 {
		t.Fatal("no request reached the model")
	}
	for _, n := range pluginToolNames {
		if !reqs[0].Contains(`"mcp__graft__` + n + `"`) {
			t.Errorf("the request lists no MCP tool mcp__graft__%s of the plugin", n)
		}
	}
}
