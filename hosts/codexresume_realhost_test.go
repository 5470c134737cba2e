package hosts_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/graft-project/graft/internal/hosttest"
)

// The resume command graft gives for Codex is the interactive "codex
// resume <id>". Codex 0.171 ties a session to the model provider named in
// its session_meta and, in its terminal, refuses one that names none:
// "Model provider unavailable … This chat uses model provider “”, which
// is no longer configured", offering a new chat that only points at the
// file. An export names the provider the person's Codex is configured
// with, and the terminal resumes it with the tape.
func TestCodexResumesTheExportInItsTerminal(t *testing.T) {
	h := hosttest.Install(t)
	bin, _ := binaries(t)
	srv := hosttest.NewModelServer(t)
	x := h.NewCodex(t, srv)
	g := graftRun{t: t, bin: bin, home: filepath.Join(x.Root, "graft"), env: x.Environ(), dir: x.Dir}
	goal := "Port the pager to Go. " + constraint
	x.Exec(t, goal).Ok(t)
	res := g.handoff("codex", x.Rollouts(t)[0], x.Dir)
	srv.Reset()

	// The terminal shows the head of the tape's first message.
	tm := hostTerminal(t, x.Environ(), x.Dir, "[Handoff]", x.Bin, "resume", res.HostSessionID)
	// The interactive Codex's app-server daemon outlives the terminal.
	t.Cleanup(func() { x.StopAppServer(t) })
	if screen, _ := tm.WaitFor(time.Second, "Model provider unavailable"); strings.Contains(screen, "Model provider unavailable") {
		t.Fatalf("the interactive Codex refused the export:\n%s", screen)
	}
	tm.Type("continue")
	screen, ok := tm.WaitFor(60*time.Second, "Worked for")
	tm.Quit("/quit")
	if !ok {
		t.Fatalf("the resumed session did not answer:\n%s", screen)
	}
	// The turn's request carries the tape as history (the interactive
	// Codex sends requests of its own after it, without it).
	blocks := g.tapeBlocks(res.Commit.TargetID)
	for _, r := range srv.ModelRequests() {
		if r.Contains("continue") && r.Contains(blocks[0]) {
			checkCarriesTape(t, r, blocks, goal)
			return
		}
	}
	t.Fatalf("no model request carries the person's turn with the tape (%d requests)", len(srv.ModelRequests()))
}
