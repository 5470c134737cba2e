package hosts_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/graft-project/graft/internal/hosttest"
)

// A handoff from Claude Code to the real Codex, in a project with a
// CLAUDE.md: Codex does not read it, so the tape Codex's model gets tells
// its agent to read CLAUDE.md before going on (and the person's note says
// so); the file's rules themselves do not reach the model by any other way.
func TestCrossHostTapeTellsTheAgentToReadTheRulesLeftBehind(t *testing.T) {
	h := hosttest.Install(t)
	bin, _ := binaries(t)
	srv := hosttest.NewModelServer(t)
	c := h.NewClaude(t, srv)
	x := h.NewCodex(t, srv)
	const marker = "CLAUDE-RULES-MARKER-77"
	if err := os.WriteFile(filepath.Join(x.Dir, "CLAUDE.md"), []byte("# Rules\n\n"+marker+": run make lint before any commit.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := append(c.Environ(), "CODEX_HOME="+x.CodexHome)
	g := graftRun{t: t, bin: bin, home: filepath.Join(c.Root, "graft"), env: env, dir: c.Dir}
	out := g.ok("handoff", "claude-code", "--transcript", withConstraint(t, t.TempDir()), "--cwd", x.Dir, "--to", "codex", "--yes", "--json")
	var res struct {
		handoffResult
		Notes []string `json:"notes"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("handoff --json: %v\n%s", err, out)
	}
	const tell = "It goes on in Codex: Codex does not read CLAUDE.md, which Claude Code read into its model's context: read it before you go on."
	x.ExecResume(t, res.HostSessionID, "go on").Ok(t)
	reqs := srv.ModelRequests()
	if len(reqs) == 0 {
		t.Fatal("Codex made no model request")
	}
	last := reqs[len(reqs)-1]
	if !last.Contains(tell) {
		t.Errorf("Codex's model request does not tell the agent to read CLAUDE.md:\n%.3000s", last.Body)
	}
	if last.Contains(marker) {
		t.Errorf("Codex read CLAUDE.md itself: the tape's line would not be needed")
	}
	if len(res.Notes) == 0 {
		t.Errorf("the person got no note on CLAUDE.md: %s", out)
	}
}
