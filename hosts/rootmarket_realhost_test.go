package hosts_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/graft-project/graft/internal/hosttest"
	"github.com/graft-project/graft/internal/testfixtures"
)

// checkoutCopy is a copy of the checkout as a marketplace holds it: the
// root's .claude-plugin/marketplace.json and the plugin it names,
// plugin/graft (a host may write into the folder it installs from).
func checkoutCopy(t *testing.T) string {
	t.Helper()
	root := testfixtures.ModuleRoot(t)
	dir := filepath.Join(t.TempDir(), "graft")
	if err := os.MkdirAll(filepath.Join(dir, "plugin"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{".claude-plugin", filepath.Join("plugin", "graft")} {
		if out, err := exec.Command("cp", "-R", filepath.Join(root, p), filepath.Join(dir, p)).CombinedOutput(); err != nil {
			t.Fatalf("copying %s: %v\n%s", p, err, out)
		}
	}
	return dir
}

// The checkout's root is a marketplace too (.claude-plugin/marketplace.json
// naming ./plugin/graft), as a host wants a repository it adds by its
// GitHub name: the real Claude Code, Codex 0.171 and Qwen Code 0.24.4 add
// it, install graft@graft from it, run its hooks (the session followed)
// and list graft's MCP tools to the model.
func TestTheCheckoutIsAMarketplace(t *testing.T) {
	h := hosttest.Install(t)

	t.Run("claude-code", func(t *testing.T) {
		srv := hosttest.NewModelServer(t)
		c, g := pluginEnv(t, h, srv)
		market := checkoutCopy(t)
		c.Run(t, "plugin", "marketplace", "add", market).Ok(t)
		c.Run(t, "plugin", "install", "graft@graft").Ok(t)
		c.Print(t, "hello").Ok(t)
		followed(t, g, sessionOf(t, c))
		checkDeferredTools(t, lastModelRequest(t, srv))
	})

	t.Run("codex", func(t *testing.T) {
		srv := hosttest.NewModelServer(t)
		x := h.NewCodex(t, srv)
		g := graftOnPath(t, x.Root, &x.Extra, x.Environ(), x.Dir)
		market := checkoutCopy(t)
		plugins := []string{"--enable", "plugins"}
		x.Run(t, append([]string{"plugin", "marketplace", "add", market}, plugins...)...).Ok(t)
		x.Run(t, append([]string{"plugin", "add", "graft@graft"}, plugins...)...).Ok(t)
		x.Exec(t, "hello", append([]string{"--dangerously-bypass-hook-trust"}, plugins...)...).Ok(t)
		if hs := g.hostSessions(); len(hs) != 1 || hs[0].Host != "codex" {
			t.Fatalf("the plugin's hooks followed %+v, want the one Codex session", hs)
		}
		checkCodexPluginTools(t, srv.Requests())
	})

	t.Run("qwen", func(t *testing.T) {
		qs := hosttest.NewQwenServer(t)
		q := h.NewQwen(t, qs)
		g := graftOnPath(t, q.Root, &q.Extra, q.Environ(), q.Dir)
		market := checkoutCopy(t)
		q.Run(t, "extensions", "install", market+":graft", "--consent").Ok(t)
		q.Print(t, "hello", "--approval-mode", "yolo").Ok(t)
		if hs := g.hostSessions(); len(hs) != 1 || hs[0].Host != "qwen" {
			t.Fatalf("the plugin's hooks followed %+v, want the one Qwen Code session", hs)
		}
		checkQwenPluginTools(t, qs.Requests())
		// What Qwen Code leaves in the folder it installed from, which
		// the checkout's .gitignore keeps out of git.
		left, _ := filepath.Glob(filepath.Join(market, "plugin*"))
		if len(left) != 2 {
			t.Errorf("the checkout holds %v after the install, want plugin/ and the one plugin<sha256> folder Qwen Code leaves (README says it does)", left)
		}
		for _, l := range left {
			if b := filepath.Base(l); b != "plugin" {
				if out, err := exec.Command("git", "-C", testfixtures.ModuleRoot(t), "check-ignore", "-q", b+"/").CombinedOutput(); err != nil {
					t.Errorf("Qwen Code left %s in the checkout, which .gitignore does not keep out: %v %s", b, err, out)
				}
			}
		}
	})
}
