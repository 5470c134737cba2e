package graft_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/hosts"
)

// Issue 25, item 3: a Claude Code session handed off --to Codex becomes a
// Codex session (its rollout under CODEX_HOME, Codex's resume command),
// and handed off from there back to Claude Code it is generation 3 with
// the lineage and the constraints' origins kept.
func TestHandoffToAnotherHostAndBack(t *testing.T) {
	work, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	path, cfg := transcriptIn(t, work)
	const rule = "Never push to main without asking."
	line := `{"type":"user","uuid":"graft-test-rule","parentUuid":null,"timestamp":"2026-11-30T12:00:00.000Z","cwd":"` + work + `","message":{"role":"user","content":"` + rule + `"}}` + "\n"
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(line); err != nil {
		t.Fatal(errors.Join(err, f.Close()))
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	codexHome := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", cfg)
	t.Setenv("CODEX_HOME", codexHome)
	svc, err := graft.Open(t.TempDir(), graft.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	res, err := svc.Handoff(ctx, graft.HandoffOptions{Host: hosts.ClaudeCode, To: hosts.Codex, Transcript: path, Cwd: work})
	if err != nil {
		t.Fatal(err)
	}
	if res.Host != hosts.ClaudeCode || res.To != hosts.Codex || res.Export == nil || res.Export.Host != hosts.Codex {
		t.Fatalf("handoff to codex: host %s, to %s, export %+v", res.Host, res.To, res.Export)
	}
	if !strings.HasPrefix(res.Path, filepath.Join(codexHome, "sessions")+string(filepath.Separator)) {
		t.Fatalf("exported to %s, want a rollout under %s/sessions", res.Path, codexHome)
	}
	if want := hosts.ResumeCommand(hosts.Codex, res.HostSessionID); res.ResumeCommand != want {
		t.Fatalf("resume command %q, want %q", res.ResumeCommand, want)
	}
	gen1 := res.Review.Source
	if res.Commit.Generation != 2 {
		t.Fatalf("generation %d, want 2", res.Commit.Generation)
	}
	all, err := svc.Bindings().List()
	if err != nil {
		t.Fatal(err)
	}
	exported := false
	for _, b := range hosts.OfSession(all, res.Commit.TargetID) {
		exported = exported || (b.Role == hosts.RoleExported && b.Host == hosts.Codex && b.HostSessionID == res.HostSessionID)
	}
	if !exported {
		t.Fatalf("no codex binding of %s in %+v", res.Commit.TargetID, all)
	}

	// Back to Claude Code from the Codex rollout: the graft target goes on.
	back, err := svc.Handoff(ctx, graft.HandoffOptions{Host: hosts.Codex, To: hosts.ClaudeCode, Transcript: res.Path, Cwd: work})
	if err != nil {
		t.Fatal(err)
	}
	if back.Review.Source != res.Commit.TargetID || back.Commit.Generation != 3 {
		t.Fatalf("back to claude-code prepared %s at generation %d, want %s at 3", back.Review.Source, back.Commit.Generation, res.Commit.TargetID)
	}
	if filepath.Dir(back.Path) != filepath.Join(cfg, "projects", hosts.ClaudeProjectDirName(work)) {
		t.Fatalf("exported to %s, want Claude Code's folder of %s", back.Path, work)
	}
	if _, err := os.Stat(back.Path); err != nil {
		t.Fatal(err)
	}
	if len(back.Review.Constraints) == 0 {
		t.Fatal("the generation-3 review carries no constraint: the test needs one to check its origin")
	}
	found := false
	for _, c := range back.Review.Constraints {
		if c.Origin.Generation != 1 || c.Origin.Session != gen1 {
			t.Errorf("constraint %q cites %+v, want its generation-1 origin in %s", c.Text, c.Origin, gen1)
		}
		found = found || c.Text == rule
	}
	if !found {
		t.Errorf("the generation-3 review lost %q: %+v", rule, back.Review.Constraints)
	}
	if rep, err := svc.Audit(back.Commit.TargetID); err != nil || rep.Err() != nil {
		t.Fatalf("audit of the generation-3 target: %v, %v", err, rep.Err())
	}
}

// A handoff to another host tells the person which instruction file of the
// project the source host read and the target does not (each host's own,
// hosts' InstructionFiles: Claude Code CLAUDE.md, Codex AGENTS.md, Gemini
// CLI GEMINI.md, Qwen Code QWEN.md and AGENTS.md): the new session's model
// would not see its rules, and nothing said so. A file the target reads
// too, or one the project lacks, gives no note; neither does a handoff to
// the same host.
func TestHandoffToAnotherHostNamesTheInstructionFileItLeaves(t *testing.T) {
	work, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	path, cfg := transcriptIn(t, work)
	for _, name := range []string{"CLAUDE.md", "AGENTS.md"} {
		if err := os.WriteFile(filepath.Join(work, name), []byte("# Rules\n\nRun make lint before any commit.\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("CLAUDE_CONFIG_DIR", cfg)
	t.Setenv("CODEX_HOME", t.TempDir())
	svc, err := graft.Open(t.TempDir(), graft.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, err := svc.Handoff(ctx, graft.HandoffOptions{Host: hosts.ClaudeCode, To: hosts.Codex, Transcript: path, Cwd: work})
	if err != nil {
		t.Fatal(err)
	}
	n := notesOn(res.Notes, "CLAUDE.md")
	if len(n) != 1 || !strings.Contains(n[0], "Codex does not read") || !strings.Contains(n[0], filepath.Join(work, "CLAUDE.md")) {
		t.Errorf("claude-code → codex, notes %q: want one naming %s, which Codex does not read", res.Notes, filepath.Join(work, "CLAUDE.md"))
	}
	if n := notesOn(res.Notes, filepath.Join(work, "AGENTS.md")); len(n) != 0 {
		t.Errorf("claude-code → codex: a note on AGENTS.md, which Claude Code never read: %q", n)
	}
	// The agent is told too: the tape's Handoff block names the file to
	// read first, so that the new window carries on without asking.
	handoff := func(rv *graft.Review) string {
		_, h, _ := strings.Cut(rv.Tape, "] [Handoff]\n")
		h, _, _ = strings.Cut(h, "\n\n")
		return h
	}
	if h := handoff(res.Review); !strings.Contains(h, "Codex does not read CLAUDE.md, which Claude Code read into its model's context: read it before you go on") {
		t.Errorf("claude-code → codex: the tape's Handoff block does not tell the agent to read CLAUDE.md:\n%s", h)
	}

	back, err := svc.Handoff(ctx, graft.HandoffOptions{Host: hosts.Codex, To: hosts.ClaudeCode, Transcript: res.Path, Cwd: work})
	if err != nil {
		t.Fatal(err)
	}
	if n := notesOn(back.Notes, filepath.Join(work, "AGENTS.md")); len(n) != 1 || !strings.Contains(n[0], "Claude Code does not read") || !strings.Contains(n[0], "copy them into CLAUDE.md") {
		t.Errorf("codex → claude-code, notes %q: want one on AGENTS.md", back.Notes)
	}
	if h := handoff(back.Review); !strings.Contains(h, "Claude Code does not read AGENTS.md, which Codex read into its model's context") || strings.Contains(h, "CLAUDE.md") {
		t.Errorf("codex → claude-code: the tape's Handoff block does not name AGENTS.md alone:\n%s", h)
	}

	if err := os.Remove(filepath.Join(work, "CLAUDE.md")); err != nil {
		t.Fatal(err)
	}
	same, err := svc.Handoff(ctx, graft.HandoffOptions{Host: hosts.ClaudeCode, Transcript: back.Path, Cwd: work})
	if err != nil {
		t.Fatal(err)
	}
	if n := notesOn(same.Notes, ".md"); len(n) != 0 {
		t.Errorf("a handoff to the same host noted instruction files: %q", n)
	}
	if h := handoff(same.Review); strings.Contains(h, ".md") {
		t.Errorf("a handoff to the same host names instruction files in the tape:\n%s", h)
	}
}

// The person's own instruction file in the first host's folder (Claude
// Code's <config>/CLAUDE.md) is read into every session there and never by
// another host: a handoff to one names it in a note and in the tape, for
// the agent to read; a handoff to the same host does not.
func TestHandoffToAnotherHostNamesThePersonsOwnRulesItLeaves(t *testing.T) {
	work, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	path, cfg := transcriptIn(t, work)
	own := filepath.Join(cfg, "CLAUDE.md")
	if err := os.WriteFile(own, []byte("# My rules\n\nAnswer tersely.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	res := claudeHandoffTo(t, hosts.Codex, path, cfg, work)
	notes := notesOn(res.Notes, own)
	if len(notes) != 1 || !strings.Contains(notes[0], "Codex does not read it") {
		t.Errorf("notes %q: want one on %s", res.Notes, own)
	}
	_, h, _ := strings.Cut(res.Review.Tape, "] [Handoff]\n")
	h, _, _ = strings.Cut(h, "\n\n")
	if !strings.Contains(h, "It goes on in Codex: Codex does not read "+own+", which Claude Code read into its model's context: read it before you go on.") {
		t.Errorf("the tape's Handoff block does not name %s:\n%s", own, h)
	}
	other, err := graft.Open(t.TempDir(), graft.Options{}) // the same transcript, not handed off yet
	if err != nil {
		t.Fatal(err)
	}
	same, err := other.Handoff(context.Background(), graft.HandoffOptions{Host: hosts.ClaudeCode, Transcript: path, Cwd: work})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.Join(same.Notes, "\n"), own) || strings.Contains(same.Review.Tape, own) {
		t.Errorf("a handoff to the same host names %s: %q", own, same.Notes)
	}
}

// notesOn are the notes that name s.
func notesOn(notes []string, s string) []string {
	var out []string
	for _, n := range notes {
		if strings.Contains(n, s) {
			out = append(out, n)
		}
	}
	return out
}

// claudeHandoffTo hands the Claude Code transcript at path (in config dir
// cfg, its session worked in work) off to host to, from a fresh home, with
// every other host's folder a throw-away one.
func claudeHandoffTo(t *testing.T, to hosts.Host, path, cfg, work string) *graft.HandoffResult {
	t.Helper()
	t.Setenv("CLAUDE_CONFIG_DIR", cfg)
	t.Setenv("CODEX_HOME", t.TempDir())
	t.Setenv("GEMINI_CLI_HOME", t.TempDir())
	t.Setenv("QWEN_HOME", t.TempDir())
	svc, err := graft.Open(t.TempDir(), graft.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := svc.Handoff(context.Background(), graft.HandoffOptions{Host: hosts.ClaudeCode, To: to, Transcript: path, Cwd: work})
	if err != nil {
		t.Fatal(err)
	}
	return res
}
