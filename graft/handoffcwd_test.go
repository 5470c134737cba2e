package graft_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/internal/testfixtures"
)

// transcriptIn copies a real Claude Code transcript under a throw-away
// CLAUDE_CONFIG_DIR with its working directory rewritten to workdir.
func transcriptIn(t *testing.T, workdir string) (path, cfg string) {
	t.Helper()
	data, err := os.ReadFile(testfixtures.Path(t, "claude-code", "tool_heavy.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.ReplaceAll(data, []byte(`"cwd":"/home/marco/projects/spotter"`), []byte(`"cwd":"`+workdir+`"`))
	cfg = t.TempDir()
	proj := filepath.Join(cfg, "projects", hosts.ClaudeProjectDirName(workdir))
	if err := os.MkdirAll(proj, 0o700); err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(proj, "0a4b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d.jsonl")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, cfg
}

// handoffIn hands off a transcript whose session worked in workdir, from a
// fresh home, with the working directory cwd given ("": none); cfg is the
// throw-away Claude Code config dir it lives in.
func handoffIn(t *testing.T, workdir, cwd string) (res *graft.HandoffResult, cfg string) {
	t.Helper()
	path, cfg := transcriptIn(t, workdir)
	svc, err := graft.Open(t.TempDir(), graft.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("CLAUDE_CONFIG_DIR", cfg)
	res, err = svc.Handoff(context.Background(), graft.HandoffOptions{Host: hosts.ClaudeCode, Transcript: path, Cwd: cwd})
	if err != nil {
		t.Fatal(err)
	}
	return res, cfg
}

// Issue 24, item 11: a handoff run outside the project the session worked
// in exports the new host session into that project (claude --resume
// finds a session by the folder of the directory it runs in), and says
// so; when that directory is gone, it exports into the current one and
// says that.
func TestHandoffExportsWhereTheSessionWorked(t *testing.T) {
	work, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	here, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	res, cfg := handoffIn(t, work, "")
	if res.Export == nil || res.Export.Cwd != work || filepath.Dir(res.Export.Path) != filepath.Join(cfg, "projects", hosts.ClaudeProjectDirName(work)) {
		t.Fatalf("export %+v: want it in %s, where the session worked (not %s)", res.Export, work, here)
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], work) || !strings.Contains(res.Notes[0], here) {
		t.Fatalf("notes %q: want one naming %s and %s", res.Notes, work, here)
	}

	// The session's directory gone: the current one, said.
	gone := filepath.Join(t.TempDir(), "moved-away")
	res, _ = handoffIn(t, gone, "")
	if res.Export == nil || res.Export.Cwd != here {
		t.Fatalf("export %+v: the session's directory is gone, want the current one %s", res.Export, here)
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], gone) || !strings.Contains(res.Notes[0], "gone") {
		t.Fatalf("notes %q: want one saying %s is gone", res.Notes, gone)
	}

	// Given a directory, the handoff goes where it is told, saying nothing.
	other, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	res, _ = handoffIn(t, work, other)
	if res.Export == nil || res.Export.Cwd != other || len(res.Notes) != 0 {
		t.Fatalf("export %+v, notes %q: want it in %s, no note", res.Export, res.Notes, other)
	}
}

// Issue 26, item 6: a handoff given the host session id (no --transcript)
// reports its progress under the transcript it found, not "" (which the
// CLI's label printed as ".").
func TestHandoffProgressNamesTheTranscriptItFound(t *testing.T) {
	work, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	path, cfg := transcriptIn(t, work)
	svc, err := graft.Open(t.TempDir(), graft.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	t.Setenv("CLAUDE_CONFIG_DIR", cfg)
	_, err = svc.Handoff(context.Background(), graft.HandoffOptions{
		Host: hosts.ClaudeCode, HostSessionID: "0a4b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d", Cwd: work,
		Progress: func(p string, read, total int64) { paths = append(paths, p) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no progress reported")
	}
	for _, p := range paths {
		if p != path {
			t.Fatalf("progress reported for %q, want the transcript %s", p, path)
		}
	}
}

// A Gemini CLI session names the directory it ran in only in the session
// context it writes first (its workspace directories): a handoff run
// elsewhere still exports the new session into that directory's project,
// where gemini --resume finds it, and says so.
func TestGeminiHandoffExportsWhereTheSessionWorked(t *testing.T) {
	work, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(testfixtures.ModuleRoot(t), "importer", "gemini", "testdata", "session-recorded.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.ReplaceAll(data, []byte("/home/dev/work"), []byte(work))
	home := t.TempDir()
	t.Setenv("GEMINI_CLI_HOME", home)
	chats := filepath.Join(home, ".gemini", "tmp", "work", "chats")
	if err := os.MkdirAll(chats, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(chats, "session-2026-12-02T05-12-3271f952.jsonl")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	svc, err := graft.Open(t.TempDir(), graft.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := svc.Handoff(context.Background(), graft.HandoffOptions{Host: hosts.Host("gemini"), Transcript: path})
	if err != nil {
		t.Fatal(err)
	}
	if res.Export == nil || res.Export.Cwd != work {
		t.Fatalf("export %+v: want it in %s, where the session worked", res.Export, work)
	}
	if len(notesOn(res.Notes, work)) != 1 {
		t.Errorf("notes %q: want one naming %s", res.Notes, work)
	}
}
