package hookrun_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/hookrun"
	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/internal/testfixtures"
)

// FuzzHookOnAnyTranscript runs graft's Claude Code hook on transcripts
// made of the fuzzer's bytes: a follow (Stop), then the event it picks,
// with autoGraft and the compaction's interception on or off. Whatever
// the transcript holds, a hook must let the host go on: no panic (Run
// turns one into a warning, which this fuzzer fails on), on stdout nothing
// or one JSON object the host reads, and a graft home the next hook opens.
// make fuzz runs it at length; make test runs its seeds.
func FuzzHookOnAnyTranscript(f *testing.F) {
	for _, name := range []string{"short.jsonl", "tool_heavy.jsonl"} {
		data, err := os.ReadFile(testfixtures.Path(f, "claude-code", name))
		if err != nil {
			f.Fatal(err)
		}
		lines := bytes.SplitAfter(data, []byte("\n"))
		for i, n := range []int{len(lines), 12, 3} {
			if n > len(lines) {
				n = len(lines)
			}
			f.Add(bytes.Join(lines[:n], nil), uint8(i), uint8(3))
		}
		// A last line still being written.
		cut := bytes.Join(lines[:6], nil)
		f.Add(cut[:len(cut)-40], uint8(2), uint8(1))
	}
	f.Add([]byte(""), uint8(0), uint8(3))
	f.Add([]byte("not a transcript\n"), uint8(1), uint8(3))
	f.Add([]byte(`{"type":"user","uuid":"u1","parentUuid":null,"timestamp":"2026-11-30T12:00:00.000Z","message":{"role":"user","content":"Never push to main."}}`+"\n"), uint8(0), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, event, flags uint8) {
		cfg := t.TempDir()
		t.Setenv("CLAUDE_CONFIG_DIR", cfg)
		proj := filepath.Join(cfg, "projects", "-w")
		if err := os.MkdirAll(proj, 0o700); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(proj, uuid+".jsonl")
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
		for i, ev := range events {
			in, err := hookrun.Parse(hosts.ClaudeCode, input(ev, path, extra[i]), nil)
			if err != nil {
				t.Fatal(err)
			}
			out := hookrun.Run(hosts.ClaudeCode, in, open, set)
			for _, line := range out.Stderr {
				if strings.Contains(line, "panic") {
					t.Fatalf("%s on this transcript panicked: %s", ev, line)
				}
			}
			if len(out.Stdout) > 0 {
				var v map[string]any
				if err := json.Unmarshal(out.Stdout, &v); err != nil {
					t.Fatalf("%s printed what the host cannot read as its JSON (%v):\n%s", ev, err, out.Stdout)
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
