package claudecode

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/graft-project/graft/hosts/adapter"
)

const id = "0a4b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d"

// A transcript's name is <uuid>.jsonl, and nothing else holds an id.
func TestSessionIDFromTheName(t *testing.T) {
	for _, c := range []struct{ path, want string }{
		{"/c/projects/-w/" + id + ".jsonl", id},
		{"/c/projects/-w/0A4B1C2D-3E4F-4A5B-8C6D-7E8F9A0B1C2D.jsonl", id},
		{"/c/projects/-w/x" + id + ".jsonl", ""},
		{"/c/projects/-w/" + id + ".json", ""},
		{"/c/projects/-w/agent-1.jsonl", ""},
	} {
		if got := (Adapter{}).SessionID(c.path); got != c.want {
			t.Errorf("SessionID(%s) = %q, want %q", c.path, got, c.want)
		}
	}
}

// A session is found in the working directory's folder first, else as the
// one file of its name in any folder; two are an error naming both.
func TestFindTranscript(t *testing.T) {
	root, cwd := t.TempDir(), t.TempDir()
	real, err := filepath.EvalSymlinks(cwd)
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(root, "projects", "-elsewhere", id+".jsonl")
	mine := filepath.Join(root, "projects", ProjectDirName(real), id+".jsonl")
	for _, p := range []string{other, mine} {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := (Adapter{}).FindTranscript(root, id, cwd); err != nil || got != mine {
		t.Errorf("FindTranscript in cwd = %q, %v; want %s", got, err, mine)
	}
	if _, err := (Adapter{}).FindTranscript(root, id, ""); err == nil {
		t.Errorf("FindTranscript with two files and no cwd: no error")
	}
}

// The PreCompact answer that stops a compaction is a block decision.
func TestBlockAnswer(t *testing.T) {
	got := (Adapter{}).Hooks().Block("why")
	if len(got) != 2 || got["decision"] != "block" || got["reason"] != "why" {
		t.Errorf("Block = %v, want {decision: block, reason: why}", got)
	}
	if _, err := (Adapter{}).Hooks().Settings(adapter.Scope("team"), ""); err == nil {
		t.Errorf("a settings file of scope team: no error")
	}
}
