package hosts_test

// graft's Gemini CLI extension (plugin/gemini in the repository) in the
// real Gemini CLI, offline, in throw-away homes: installed the way Gemini
// CLI's users install extensions, it runs graft's hooks and serves graft's
// MCP tools; beside graft hook install's hooks its own stand down; without
// a graft binary the session goes on.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/graft-project/graft/hookinstall"
	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/internal/hosttest"
	"github.com/graft-project/graft/internal/testfixtures"
)

// geminiExtension is the repository's Gemini CLI extension directory.
func geminiExtension(t *testing.T) string {
	t.Helper()
	return filepath.Join(testfixtures.ModuleRoot(t), "plugin", "gemini")
}

// geminiExtensionEnv is a Gemini CLI environment with graft on PATH (the
// extension finds it there) and GRAFT_HOME in the throw-away root.
func geminiExtensionEnv(t *testing.T, h hosttest.Hosts, gs *hosttest.GeminiServer) (*hosttest.GeminiEnv, graftRun) {
	t.Helper()
	gm := h.NewGemini(t, gs)
	return gm, graftOnPath(t, gm.Root, &gm.Extra, gm.Environ(), gm.Dir)
}

func TestGeminiExtensionRunsGraftsHooksAndTools(t *testing.T) {
	h := hosttest.Install(t)
	_, crash := binaries(t)
	gs := hosttest.NewGeminiServer(t)
	gm, g := geminiExtensionEnv(t, h, gs)
	gm.Run(t, "extensions", "install", geminiExtension(t), "--consent").Ok(t)
	installed := filepath.Join(gm.ConfigDir(), "extensions", "graft")
	for _, f := range []string{"gemini-extension.json", "hooks/hooks.json", "bin/graft-extension"} {
		if _, err := os.Stat(filepath.Join(installed, f)); err != nil {
			t.Fatalf("the installed extension lacks %s: %v", f, err)
		}
	}
	if at := g.doctorPlugin("gemini"); at != filepath.Join(installed, "gemini-extension.json") {
		t.Errorf("graft doctor says Gemini CLI keeps graft's extension at %q", at)
	}

	// A killed commit is recovered before the first request: Gemini CLI
	// starts the extension's MCP server (whose start-up scan recovers)
	// before its SessionStart hook. The turn's request (a routing request
	// to a lighter model may come first) declares graft's MCP tools (a
	// headless run declares no tool that asks for approval unless told
	// to: --approval-mode yolo); the turn's hooks follow the session.
	killedCommit(t, crash, g.home, "commit/journal-flushed:after")
	gm.Prompt(t, "hello", "--approval-mode", "yolo").Ok(t)
	if left, _ := filepath.Glob(filepath.Join(g.home, ".txn", "*.json")); len(left) != 0 {
		t.Fatalf("the extension left the journal record %v", left)
	}
	var turn *hosttest.Request
	for _, r := range gs.Requests() {
		if strings.Contains(r.Path, ":streamGenerateContent") {
			turn = &r
			break
		}
	}
	if turn == nil {
		t.Fatalf("no turn reached the model:\n%s", gs.Describe())
	}
	var body struct {
		Tools []struct {
			FunctionDeclarations []struct{ Name string } `json:"functionDeclarations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(turn.Body, &body); err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{}
	for _, tl := range body.Tools {
		for _, fd := range tl.FunctionDeclarations {
			declared[fd.Name] = true
		}
	}
	for _, n := range pluginToolNames {
		if !declared["mcp_graft_"+n] { // Gemini CLI 0.61 names a server's tool mcp_<server>_<tool>
			t.Errorf("the turn's request declares no MCP tool mcp_graft_%s of the extension (it declares %v)", n, declared)
		}
	}
	if hs := g.hostSessions(); len(hs) != 1 || hs[0].Host != "gemini" {
		t.Fatalf("the extension's hooks followed %+v, want the one Gemini CLI session", hs)
	}

	// graft hook install's hooks too: the extension's stand down, saying
	// how to keep one.
	installGeminiHooks(t, gm, g)
	gm.Prompt(t, "again").Ok(t)
	if hs := g.hostSessions(); len(hs) != 2 {
		t.Fatalf("the settings hooks did not follow the second session: %+v", hs)
	}
	wantTwiceNotice(t, g.home, "graft hook uninstall gemini", "gemini extensions uninstall graft")

	gm.Run(t, "extensions", "uninstall", "graft").Ok(t)
	if _, err := os.Stat(installed); !os.IsNotExist(err) {
		t.Fatalf("gemini extensions uninstall left %s: %v", installed, err)
	}
	if at := g.doctorPlugin("gemini"); at != "" {
		t.Errorf("graft doctor names the extension after its uninstall: %q", at)
	}
}

// Without a graft binary the extension's hooks let every turn go on, and
// say why at the session's start.
func TestGeminiExtensionWithoutGraftLetsTheSessionGoOn(t *testing.T) {
	h := hosttest.Install(t)
	gs := hosttest.NewGeminiServer(t)
	gm, _ := geminiExtensionEnv(t, h, gs)
	gm.Run(t, "extensions", "link", geminiExtension(t), "--consent").Ok(t)
	gm.Extra = append(gm.Extra, "PATH=/usr/bin:/bin", "GRAFT_BIN=")
	r := gm.Prompt(t, "hello").Ok(t)
	if len(gs.Requests()) == 0 {
		t.Fatalf("no request reached the model:\n%s", r)
	}
	if !strings.Contains(r.Stderr+r.Stdout, "graft extension: graft's hooks did nothing: no graft on PATH") {
		t.Errorf("the run does not say why graft's hooks did nothing:\n%s", r)
	}
}

// The extension hooks what graft hook install gemini hooks: each of the
// adapter's events, matcher "*", the extension's script, the same timeout
// in Gemini CLI's milliseconds; the script is executable.
func TestGeminiExtensionHooksAreGraftHookInstalls(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(geminiExtension(t), "hooks", "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Hooks map[string][]struct {
			Matcher string
			Hooks   []struct {
				Type, Command string
				Timeout       int
			}
		}
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	a, err := hosts.Of("gemini")
	if err != nil {
		t.Fatal(err)
	}
	events := a.Hooks().Events
	if len(f.Hooks) != len(events) {
		t.Errorf("the extension hooks %d events, graft hook install gemini %d", len(f.Hooks), len(events))
	}
	for _, ev := range events {
		gs := f.Hooks[ev.Name]
		if len(gs) != 1 || len(gs[0].Hooks) != 1 || gs[0].Matcher != "*" {
			t.Errorf("%s: %+v, want one group (matcher *) of one hook", ev.Name, gs)
			continue
		}
		hk := gs[0].Hooks[0]
		want := hookinstall.Timeout(ev.Does) * int(time.Second/a.Hooks().TimeoutUnit)
		if hk.Type != "command" || hk.Command != `"${extensionPath}${/}bin${/}graft-extension" hook` || hk.Timeout != want {
			t.Errorf("%s: %+v, want the extension's script with timeout %d", ev.Name, hk, want)
		}
	}
	if fi, err := os.Stat(filepath.Join(geminiExtension(t), "bin", "graft-extension")); err != nil || fi.Mode().Perm()&0o111 == 0 {
		t.Errorf("bin/graft-extension is not executable: %v", err)
	}
}
