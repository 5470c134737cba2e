package hookrun_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/hookrun"
	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/hosts/adapter"
	"github.com/graft-project/graft/hosts/qwen"
	"github.com/graft-project/graft/internal/testfixtures"
)

// fuzzHosts are the hosts FuzzHookOnAnyTranscript runs the hook of, each
// with transcripts of its own to seed it (Gemini CLI reads a session's id
// from its file's header, which random bytes rarely keep).
var fuzzHosts = []struct {
	host  hosts.Host
	seeds []string // from the module root
}{
	{hosts.ClaudeCode, []string{"testdata/fixtures/claude-code/short.jsonl", "testdata/fixtures/claude-code/tool_heavy.jsonl"}},
	{hosts.Codex, []string{"testdata/fixtures/hosts/codex-0.169.0.jsonl", "testdata/fixtures/hosts/codex-0.169.0-compacted.jsonl"}},
	{qwen.Name, []string{"importer/qwen/testdata/session.jsonl", "importer/qwen/testdata/goal-0.24.jsonl"}},
}

// FuzzHookOnAnyTranscript runs graft's hook of Claude Code, Codex or Qwen
// Code on transcripts made of the fuzzer's bytes: a follow (Stop), then
// the events it picks, with autoGraft and the compaction's interception on
// or off. Whatever the transcript holds, a hook must let the host go on: no
// panic (Run turns one into a warning, which this fuzzer fails on), on
// stdout nothing or one JSON object the host reads, and a graft home the
// next hook opens. make fuzz runs it at length; make test runs its seeds.
func FuzzHookOnAnyTranscript(f *testing.F) {
	for h, fh := range fuzzHosts {
		for _, name := range fh.seeds {
			data, err := os.ReadFile(filepath.Join(testfixtures.ModuleRoot(f), name))
			if err != nil {
				f.Fatal(err)
			}
			lines := bytes.SplitAfter(data, []byte("\n"))
			for i, n := range []int{len(lines), 12, 3} {
				f.Add(bytes.Join(lines[:min(n, len(lines))], nil), uint8(i), uint8(3|h<<2))
			}
			// A last line still being written.
			cut := bytes.Join(lines[:min(6, len(lines))], nil)
			f.Add(cut[:len(cut)-min(40, len(cut))], uint8(2), uint8(1|h<<2))
		}
	}
	f.Add([]byte(""), uint8(0), uint8(3))
	f.Add([]byte("not a transcript\n"), uint8(1), uint8(3|1<<2))
	f.Add([]byte(`{"type":"user","uuid":"u1","parentUuid":null,"timestamp":"2026-11-30T12:00:00.000Z","message":{"role":"user","content":"Never push to main."}}`+"\n"), uint8(0), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, event, flags uint8) {
		fh := fuzzHosts[int(flags>>2)%len(fuzzHosts)]
		a, err := hosts.Of(fh.host)
		if err != nil {
			t.Fatal(err)
		}
		cfg, cwd := t.TempDir(), t.TempDir()
		t.Setenv(a.RootVar(), cfg)
		t.Setenv("QWEN_RUNTIME_DIR", "") // Qwen Code's sessions under QWEN_HOME
		root, err := a.Root()
		if err != nil {
			t.Fatal(err)
		}
		path := a.ExportPath(root, cwd, uuid, &adapter.Turn{At: time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)})
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		home := filepath.Join(t.TempDir(), "home")
		set := hookrun.Settings{InterceptCompaction: flags&2 != 0}
		if flags&1 != 0 {
			set.AutoGraft = 1
		}
		var opened []*graft.Service
		open := func() (*graft.Service, error) {
			svc, err := graft.Open(home, graft.Options{})
			if err == nil {
				opened = append(opened, svc)
			}
			return svc, err
		}
		defer func() {
			for _, svc := range opened {
				if err := svc.Close(); err != nil {
					t.Errorf("closing the service: %v", err)
				}
			}
		}()
		events := []string{hookrun.Stop}
		extra := []string{""}
		switch event % 4 {
		case 0:
			events, extra = append(events, hookrun.SessionStart), append(extra, `,"source":"compact"`)
		case 1:
			events, extra = append(events, hookrun.PreCompact), append(extra, `,"trigger":"auto"`)
		case 2:
			events, extra = append(events, hookrun.UserPromptSubmit), append(extra, `,"prompt":"go on"`)
		case 3:
			events, extra = append(events, hookrun.PreCompact, hookrun.SessionStart), append(extra, `,"trigger":"manual"`, `,"source":"compact"`)
		}
		for i, does := range events {
			name := ""
			for _, he := range a.Hooks().Events {
				if he.Does == does {
					name = he.Name
				}
			}
			if name == "" {
				continue // the host has no such event
			}
			in, err := hookrun.Parse(fh.host, input(name, path, extra[i]), nil)
			if err != nil {
				t.Fatal(err)
			}
			out := hookrun.Run(fh.host, in, open, set)
			for _, line := range out.Stderr {
				if strings.Contains(line, "panic") {
					t.Fatalf("%s %s on this transcript panicked: %s", fh.host, name, line)
				}
			}
			if len(out.Stdout) > 0 {
				var v map[string]any
				if err := json.Unmarshal(out.Stdout, &v); err != nil {
					t.Fatalf("%s %s printed what the host cannot read as its JSON (%v):\n%s", fh.host, name, err, out.Stdout)
				}
			}
		}
		svc, err := graft.Open(home, graft.Options{})
		if err != nil {
			t.Fatalf("after the hooks, the graft home does not open: %v", err)
		}
		opened = append(opened, svc)
	})
}
