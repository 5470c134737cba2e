package codex_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/importer/claudecode"
	"github.com/graft-project/graft/importer/codex"
	"github.com/graft-project/graft/importer/gemini"
	"github.com/graft-project/graft/importer/qwen"
	"github.com/graft-project/graft/internal/testfixtures"
	"github.com/graft-project/graft/session"
)

// others are the other hosts' mappers, as package hosts hands them on.
func otherHosts() []importer.Other {
	return []importer.Other{
		{Name: "claude-code", Mapper: claudecode.NewMapper(claudecode.Config{})},
		{Name: "gemini", Mapper: gemini.NewMapper(gemini.Config{})},
		{Name: "qwen", Mapper: qwen.NewMapper(qwen.Config{})},
	}
}

func firstImport(t *testing.T, path string) (*session.Store, string, *importer.Summary, error) {
	t.Helper()
	st, home := testfixtures.NewStore(t)
	sum, err := codex.Import(codex.Options{Store: st, Home: home, Path: path, ID: "s", Others: otherHosts()})
	return st, home, sum, err
}

// nothingWritten: no session, no cursor, no state file.
func nothingWritten(t *testing.T, st *session.Store, home string) {
	t.Helper()
	if ok, err := st.Exists("s"); err != nil || ok {
		t.Errorf("session s exists after a refusal (%v, %v)", ok, err)
	}
	if _, err := importer.LoadCursor(st.FS, home, "s"); !errors.Is(err, importer.ErrNoCursor) {
		t.Errorf("a cursor was written after a refusal: %v", err)
	}
	ents, err := os.ReadDir(importer.ImportsDir(home))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	for _, e := range ents {
		t.Errorf("imports/%s written after a refusal", e.Name())
	}
}

func writeTranscript(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "transcript.jsonl")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFirstImportRefusesAnotherHostsFile(t *testing.T) {
	for _, tc := range []struct {
		name, path, lines, looks, command string
	}{
		{"claude-code", testfixtures.Path(t, "claude-code", "short.jsonl"), "in its 15 lines", "it reads as a Claude Code transcript", "graft import claude-code "},
		{"claude-code 2.1.328", testfixtures.Path(t, "hosts", "claude-code-2.1.328.jsonl"), "in its 22 lines", "it reads as a Claude Code transcript", "graft import claude-code "},
		{"claude-code, long", testfixtures.Path(t, "claude-code", "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"), "in its first 64 lines", "it reads as a Claude Code transcript", "graft import claude-code "},
		{"qwen", "../qwen/testdata/session.jsonl", "in its 20 lines", "it reads as a Qwen Code session file", "graft import qwen "},
		{"gemini", "../gemini/testdata/session-recorded.jsonl", "in its 19 lines", "it reads as a Gemini CLI session file", "graft import gemini "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, home, _, err := firstImport(t, tc.path)
			if !errors.Is(err, importer.ErrNotTranscript) {
				t.Fatalf("err = %v, want ErrNotTranscript", err)
			}
			abs, _ := filepath.Abs(tc.path)
			msg := err.Error()
			for _, want := range []string{abs + " holds no Codex record " + tc.lines, tc.looks, tc.command + abs} {
				if !strings.Contains(msg, want) {
					t.Errorf("message %q lacks %q", msg, want)
				}
			}
			nothingWritten(t, st, home)
		})
	}
}

func TestFirstImportRefusesText(t *testing.T) {
	p := writeTranscript(t, "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\nbin:x:2:2:bin:/bin:/usr/sbin/nologin\n")
	st, home, _, err := firstImport(t, p)
	if !errors.Is(err, importer.ErrNotTranscript) {
		t.Fatalf("err = %v, want ErrNotTranscript", err)
	}
	if msg := err.Error(); !strings.Contains(msg, p+" holds no Codex record in its 3 lines") || strings.Contains(msg, "reads as") {
		t.Errorf("message %q", msg)
	}
	nothingWritten(t, st, home)
}

// The first 64 lines are looked at, not more: a big transcript of another
// host says so.
func TestFirstImportLooksAtTheFirstLines(t *testing.T) {
	// A file whose 65th line is the first Codex record.
	var b strings.Builder
	for range 64 {
		b.WriteString("not a record\n")
	}
	b.WriteString(`{"timestamp":"2025-10-05T09:12:44.000Z","type":"session_meta","payload":{"id":"abc","cwd":"/repo","cli_version":"0.46.0"}}` + "\n")
	st, home, _, err := firstImport(t, writeTranscript(t, b.String()))
	if !errors.Is(err, importer.ErrNotTranscript) || !strings.Contains(err.Error(), "in its first 64 lines") {
		t.Fatalf("err = %v, want ErrNotTranscript naming the first 64 lines", err)
	}
	nothingWritten(t, st, home)
}

// Nothing to import yet is no refusal: a hook sees a file the host has
// only begun.
func TestFirstImportOfAnUnfinishedFileIsNoRefusal(t *testing.T) {
	for name, content := range map[string]string{
		"empty":         "",
		"half a record": `{"timestamp":"2026-03-01T10:00:01.000Z","type":"response_item","pay`,
		"half a text":   "root:x:0:0:ro",
	} {
		t.Run(name, func(t *testing.T) {
			_, _, sum, err := firstImport(t, writeTranscript(t, content))
			if err != nil {
				t.Fatal(err)
			}
			if sum.Appended != 0 {
				t.Errorf("appended %d", sum.Appended)
			}
			if content != "" && sum.PendingTail == nil {
				t.Errorf("no pending tail: %+v", sum)
			}
		})
	}
}

// A record type newer than the importer is still a Codex record: it
// is imported as a system event with its warning, as before.
func TestFirstImportOfANewRecordType(t *testing.T) {
	p := writeTranscript(t, `{"timestamp":"2026-03-01T10:00:01.000Z","type":"hologram","payload":{"beam":1}}`+"\n")
	st, _, sum, err := firstImport(t, p)
	if err != nil {
		t.Fatal(err)
	}
	evs := testfixtures.ReadSession(t, st, "s")
	if len(evs) != 1 || evs[0].Type != session.TypeSystem || evs[0].Source.Name != "unknown" {
		t.Fatalf("events %+v", evs)
	}
	if len(sum.Warnings) != 1 || !strings.Contains(sum.Warnings[0], `"hologram"`) {
		t.Errorf("warnings %q", sum.Warnings)
	}
}
