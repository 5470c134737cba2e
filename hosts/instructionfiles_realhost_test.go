package hosts_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/internal/hosttest"
)

// Each host's InstructionFiles are the instruction files it reads from the
// project directory on its own, seen on the real program: a project holds
// AGENTS.md, CLAUDE.md, GEMINI.md and QWEN.md, each with its own marker,
// and a headless turn's model requests show which markers reached the
// model (Claude Code CLAUDE.md, Codex AGENTS.md, Gemini CLI GEMINI.md,
// Qwen Code QWEN.md and AGENTS.md). A handoff to another host names the
// files the target does not read (graft's handoff notes).
func TestInstructionFilesAreWhatTheHostsRead(t *testing.T) {
	h := hosttest.Install(t)
	markers := map[string]string{"AGENTS.md": "AGENTS-MARKER-41", "CLAUDE.md": "CLAUDE-MARKER-42", "GEMINI.md": "GEMINI-MARKER-43", "QWEN.md": "QWEN-MARKER-44"}
	write := func(dir string) {
		for name, marker := range markers {
			if err := os.WriteFile(filepath.Join(dir, name), []byte("# Rules\n\n"+marker+": run make lint before any commit.\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	check := func(host hosts.Host, reqs []hosttest.Request) {
		t.Helper()
		if len(reqs) == 0 {
			t.Errorf("%s: no model request", host)
			return
		}
		var b strings.Builder
		for _, r := range reqs {
			b.Write(r.Body)
		}
		var read []string
		for name, marker := range markers {
			if strings.Contains(b.String(), marker) {
				read = append(read, name)
			}
		}
		a, err := hosts.Of(host)
		if err != nil {
			t.Fatal(err)
		}
		want := slices.Clone(a.InstructionFiles())
		slices.Sort(read)
		slices.Sort(want)
		if !slices.Equal(read, want) {
			t.Errorf("%s read %v from the project directory; its adapter's InstructionFiles say %v", host, read, want)
		}
	}

	srv := hosttest.NewModelServer(t)
	c := h.NewClaude(t, srv)
	write(c.Dir)
	c.Print(t, "hello").Ok(t)
	check(hosts.ClaudeCode, srv.ModelRequests())

	srv = hosttest.NewModelServer(t)
	x := h.NewCodex(t, srv)
	write(x.Dir)
	x.Exec(t, "hello").Ok(t)
	check(hosts.Codex, srv.ModelRequests())

	gs := hosttest.NewGeminiServer(t)
	g := h.NewGemini(t, gs)
	write(g.Dir)
	g.Prompt(t, "hello").Ok(t)
	check("gemini", gs.Requests())

	qs := hosttest.NewQwenServer(t)
	q := h.NewQwen(t, qs)
	write(q.Dir)
	q.WriteSettings(t)
	q.Print(t, "hello").Ok(t)
	check("qwen", qs.Requests())
}

// Each host's UserInstructionFiles are the person's own instruction files
// in the host's folder that it reads into every session, seen on the real
// programs: each folder holds AGENTS.md, AGENTS.override.md, CLAUDE.md,
// GEMINI.md and QWEN.md with their own markers (Claude Code reads
// CLAUDE.md, Codex AGENTS.override.md over AGENTS.md, Gemini CLI
// GEMINI.md, Qwen Code QWEN.md and AGENTS.md); without the override, Codex
// reads AGENTS.md. A handoff to another host names them: the other host
// never reads the first host's folder.
func TestUserInstructionFilesAreWhatTheHostsRead(t *testing.T) {
	h := hosttest.Install(t)
	names := []string{"AGENTS.md", "AGENTS.override.md", "CLAUDE.md", "GEMINI.md", "QWEN.md"}
	write := func(dir string, names ...string) {
		t.Helper()
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			if err := os.WriteFile(filepath.Join(dir, n), []byte("# My rules\n\nUSER-"+n+"-MARKER: answer tersely.\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	check := func(host hosts.Host, env map[string]string, reqs []hosttest.Request) {
		t.Helper()
		var b strings.Builder
		for _, r := range reqs {
			b.Write(r.Body)
		}
		var read []string
		for _, n := range names {
			if strings.Contains(b.String(), "USER-"+n+"-MARKER") {
				read = append(read, n)
			}
		}
		for k, v := range env { // where the adapter looks, as the host did
			t.Setenv(k, v)
		}
		a, err := hosts.Of(host)
		if err != nil {
			t.Fatal(err)
		}
		files, err := a.UserInstructionFiles()
		if err != nil {
			t.Fatalf("%s: UserInstructionFiles: %v", host, err)
		}
		var want []string
		for _, f := range files {
			want = append(want, filepath.Base(f))
		}
		slices.Sort(read)
		slices.Sort(want)
		if len(reqs) == 0 || !slices.Equal(read, want) {
			t.Errorf("%s read %v from its folder (%d requests); its adapter's UserInstructionFiles say %v", host, read, len(reqs), want)
		}
	}

	srv := hosttest.NewModelServer(t)
	c := h.NewClaude(t, srv)
	write(c.ConfigDir, names...)
	c.Print(t, "hello").Ok(t)
	check(hosts.ClaudeCode, map[string]string{"CLAUDE_CONFIG_DIR": c.ConfigDir}, srv.ModelRequests())

	for _, only := range [][]string{names, {"AGENTS.md"}} {
		srv = hosttest.NewModelServer(t)
		x := h.NewCodex(t, srv)
		write(x.CodexHome, only...)
		x.Exec(t, "hello").Ok(t)
		check(hosts.Codex, map[string]string{"CODEX_HOME": x.CodexHome}, srv.ModelRequests())
	}

	gs := hosttest.NewGeminiServer(t)
	g := h.NewGemini(t, gs)
	write(g.ConfigDir(), names...)
	g.Prompt(t, "hello").Ok(t)
	check("gemini", map[string]string{"GEMINI_CLI_HOME": g.Home}, gs.Requests())

	qs := hosttest.NewQwenServer(t)
	q := h.NewQwen(t, qs)
	write(q.QwenDir, names...)
	q.WriteSettings(t)
	q.Print(t, "hello").Ok(t)
	check("qwen", map[string]string{"QWEN_HOME": q.QwenDir, "QWEN_RUNTIME_DIR": ""}, qs.Requests())
}
