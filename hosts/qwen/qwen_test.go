package qwen_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/graft-project/graft/hosts/adapter"
	"github.com/graft-project/graft/hosts/qwen"
)

const id = "0d1b2c3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d"

var a qwen.Adapter

func TestRender(t *testing.T) {
	turn := &adapter.Turn{User: []string{"[graft:tape] Handoff", "## Goal\nfix it"}, Ack: "Understood.", At: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)}
	sid := a.ExportID(turn, "target", "txn")
	if err := adapter.ValidSessionID(sid); err != nil || sid != a.ExportID(turn, "target", "txn") || sid == a.ExportID(turn, "target", "txn2") {
		t.Fatalf("ExportID %q: %v", sid, err)
	}
	data, err := a.Render(turn, sid, "/p", adapter.Made{Graft: "v1.2.3"})
	if err != nil {
		t.Fatal(err)
	}
	again, err := a.Render(turn, sid, "/p", adapter.Made{Graft: "v1.2.3"})
	if err != nil || !bytes.Equal(data, again) {
		t.Fatalf("Render is not deterministic: %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d records, want 2", len(lines))
	}
	var recs [2]struct {
		UUID       string  `json:"uuid"`
		ParentUUID *string `json:"parentUuid"`
		SessionID  string  `json:"sessionId"`
		Timestamp  string  `json:"timestamp"`
		Type       string  `json:"type"`
		Cwd        string  `json:"cwd"`
		Version    string  `json:"version"`
		Provenance *string `json:"provenance"`
		Message    struct {
			Role    string            `json:"role"`
			Parts   []json.RawMessage `json:"parts"`
			Content json.RawMessage   `json:"content"`
		} `json:"message"`
	}
	for k, l := range lines {
		if err := json.Unmarshal([]byte(l), &recs[k]); err != nil {
			t.Fatal(err)
		}
		r := recs[k]
		if r.UUID == "" || r.SessionID != sid || r.Cwd != "/p" || r.Version != qwen.TestedVersion || r.Message.Content != nil || r.Provenance != nil {
			t.Errorf("record %d: %s", k+1, l)
		}
	}
	if recs[0].ParentUUID != nil || recs[1].ParentUUID == nil || *recs[1].ParentUUID != recs[0].UUID {
		t.Errorf("parentUuid chain broken: %s", data)
	}
	if recs[0].Type != "user" || recs[0].Message.Role != "user" || len(recs[0].Message.Parts) != 2 ||
		recs[1].Type != "assistant" || recs[1].Message.Role != "model" || len(recs[1].Message.Parts) != 1 {
		t.Errorf("roles and parts: %s", data)
	}
	if recs[1].Timestamp != "2026-12-01T10:00:00.001Z" {
		t.Errorf("timestamp %q", recs[1].Timestamp)
	}
	if w, ok := a.Writer([]byte(lines[0])); !ok || w != (adapter.Made{Graft: "v1.2.3", Host: qwen.TestedVersion}) {
		t.Errorf("Writer = %+v, %v", w, ok)
	}
	host := `{"uuid":"u","parentUuid":null,"sessionId":"s","type":"user","cwd":"/p","version":"0.24.4","message":{"role":"user","parts":[{"text":"hi"}]}}`
	if _, ok := a.Writer([]byte(host)); ok {
		t.Error("Writer took a host record for graft's")
	}
	if want := filepath.Join("/r", "projects", "-p", "chats", sid+".jsonl"); a.ExportPath("/r", "/p", sid, turn) != want {
		t.Errorf("ExportPath = %s, want %s", a.ExportPath("/r", "/p", sid, turn), want)
	}
}

// The project folder, finding a session by id (the cwd's folder first,
// else the one file of that name), the id from a file name.
func TestPaths(t *testing.T) {
	for in, want := range map[string]string{
		"/tmp/p/a_b.c": "-tmp-p-a-b-c",
		"/home/ü/x y":  "-home---x-y",
		"/home/😀/proj": "-home----proj",
	} {
		if got := qwen.ProjectDirName(in); got != want {
			t.Errorf("ProjectDirName(%q) = %q, want %q", in, got, want)
		}
	}
	root, cwd := t.TempDir(), t.TempDir()
	real, err := filepath.EvalSymlinks(cwd)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.FindTranscript(root, id, cwd); !errors.Is(err, adapter.ErrNoTranscript) {
		t.Errorf("FindTranscript in an empty folder: %v", err)
	}
	other := filepath.Join(a.TranscriptRoot(root), "-elsewhere", "chats", id+".jsonl")
	mine := a.ExportPath(root, real, id, nil)
	for k, p := range []string{other, mine} {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if k == 0 {
			if got, err := a.FindTranscript(root, id, cwd); err != nil || got != other {
				t.Errorf("FindTranscript across projects = %q, %v; want %s", got, err, other)
			}
		}
	}
	if got, err := a.FindTranscript(root, id, cwd); err != nil || got != mine {
		t.Errorf("FindTranscript in cwd = %q, %v; want %s", got, err, mine)
	}
	if _, err := a.FindTranscript(root, id, ""); !errors.Is(err, adapter.ErrNoTranscript) {
		t.Errorf("FindTranscript with two files and no cwd: %v", err)
	}
	for p, want := range map[string]string{mine: id, strings.ToUpper(id) + ".jsonl": id, "x" + id + ".jsonl": "", id + ".json": ""} {
		if got := a.SessionID(p); got != want {
			t.Errorf("SessionID(%s) = %q, want %q", p, got, want)
		}
	}
	if c := a.ResumeCommand(id); c != "qwen --resume "+id {
		t.Errorf("ResumeCommand = %q", c)
	}
}

// $QWEN_RUNTIME_DIR moves the sessions, $QWEN_HOME the settings (and the
// sessions when the runtime dir is not set).
func TestFolders(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(qwen.EnvHome, filepath.Join(dir, "qh"))
	t.Setenv(qwen.EnvRuntimeDir, "")
	if r, err := a.Root(); err != nil || r != filepath.Join(dir, "qh") {
		t.Errorf("Root = %q, %v", r, err)
	}
	if p, err := a.Hooks().Settings(adapter.ScopeUser, ""); err != nil || p != filepath.Join(dir, "qh", "settings.json") {
		t.Errorf("user settings = %q, %v", p, err)
	}
	t.Setenv(qwen.EnvRuntimeDir, filepath.Join(dir, "rt"))
	if r, err := a.Root(); err != nil || r != filepath.Join(dir, "rt") {
		t.Errorf("Root with QWEN_RUNTIME_DIR = %q, %v", r, err)
	}
	if p, err := a.Hooks().Settings(adapter.ScopeUser, ""); err != nil || p != filepath.Join(dir, "qh", "settings.json") {
		t.Errorf("user settings with QWEN_RUNTIME_DIR = %q, %v", p, err)
	}
	if p, err := a.Hooks().Settings(adapter.ScopeUser, filepath.Join(dir, "x")); err != nil || p != filepath.Join(dir, "x", "settings.json") {
		t.Errorf("user settings of a folder = %q, %v", p, err)
	}
	if _, err := a.Hooks().Settings(adapter.ScopeProject, dir); err == nil {
		t.Error("a project settings file: no error")
	}
}

// The context size is the last reply's promptTokenCount; no answer stops
// a compression, and PreCompact's context reaches its summary.
func TestTokensAndHooks(t *testing.T) {
	for line, want := range map[string]int64{
		`{"type":"assistant","message":{"role":"model","parts":[{"text":"x"}]},"usageMetadata":{"promptTokenCount":4321,"candidatesTokenCount":9},"contextWindowSize":262144}`: 4321,
		`{"type":"assistant","usageMetadata":{"candidatesTokenCount":9}}`: -1,
		`{"type":"user","usageMetadata":{"promptTokenCount":5}}`:          -1,
		`{"type":"assistant","message":{}}`:                               -1,
	} {
		got, ok := a.LineTokens([]byte(line))
		if want < 0 && ok || want >= 0 && (!ok || got != want) {
			t.Errorf("LineTokens(%s) = %d, %v; want %d", line, got, ok, want)
		}
	}
	h := a.Hooks()
	if h.Block != nil || !h.CompactContext || h.Notify != nil || len(h.Scopes) != 1 || h.Scopes[0] != adapter.ScopeUser {
		t.Errorf("Hooks = %+v", h)
	}
	for _, e := range []string{adapter.SessionStart, adapter.UserPromptSubmit, adapter.Stop, adapter.PreCompact} {
		if ev, ok := h.Event(e); !ok || ev.Does != e {
			t.Errorf("event %s: %+v, %v", e, ev, ok)
		}
	}
	// PreCompact's context: '<' and '>' escaped (&lt; &gt;), then cut to
	// its first 4,000 UTF-16 code units.
	if h.CompactContextMax != 4000 || h.CompactContextLen == nil {
		t.Fatalf("CompactContextMax %d, CompactContextLen set %v; want 4000 counted as Qwen Code counts", h.CompactContextMax, h.CompactContextLen != nil)
	}
	for s, want := range map[string]int{"": 0, "seq 12": 6, "<b>": 9, "é": 1, "必须": 2, "😀": 2, "a<😀>\n": 12} {
		if got := h.CompactContextLen(s); got != want {
			t.Errorf("CompactContextLen(%q) = %d, want %d", s, got, want)
		}
	}
}
