package hosts_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/graft-project/graft/internal/hosttest"
)

// The resume command graft gives for Gemini CLI is the interactive
// "gemini --resume <id>" (the other tests resume with a prompt, -p). The
// real Gemini CLI 0.61 opens the export in its terminal and the person's
// next turn carries the tape as the conversation's history (Codex's
// terminal refused graft's exports while its exec resume took them:
// TestCodexResumesTheExportInItsTerminal).
func TestGeminiResumesTheExportInItsTerminal(t *testing.T) {
	h := hosttest.Install(t)
	bin, _ := binaries(t)
	gs := hosttest.NewGeminiServer(t)
	gm := h.NewGemini(t, gs)
	gm.Prompt(t, "Port the pager to Go. "+constraint).Ok(t)
	sessions := gm.Sessions(t)
	if len(sessions) != 1 {
		t.Fatalf("sessions after one run: %q", sessions)
	}
	g := graftRun{t: t, bin: bin, home: filepath.Join(gm.Root, "graft"), env: gm.Environ(), dir: gm.Dir}
	res := g.handoff("gemini", sessions[0], gm.Dir)

	tm := hostTerminal(t, gm.Environ(), gm.Dir, "Handoff acknowledged", gm.Bin, gm.Entry, "--resume", res.HostSessionID)
	const turn = "go on from the handoff"
	tm.Type(turn)
	blocks := g.tapeBlocks(res.Commit.TargetID)
	var carried *hosttest.Request
	for end := time.Now().Add(60 * time.Second); carried == nil && time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		for _, r := range gs.Requests() {
			if r.Contains(turn) && r.Contains(blocks[0]) {
				carried = &r
				break
			}
		}
	}
	screen := tm.Screen()
	// Gemini CLI outlives the terminal's end unless it is quit; Quit types
	// /quit again if the turn still running kept it from taking it.
	tm.Quit("/quit")
	if carried == nil {
		t.Fatalf("no request carries the person's turn with the tape (%d requests):\n%s", len(gs.Requests()), screen)
	}
	checkCarriesTape(t, *carried, blocks, "Port the pager to Go. "+constraint)
}
