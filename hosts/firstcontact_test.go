package hosts_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/internal/testfixtures"
)

// A hook's or a handoff's first follow of a file that is not the host's
// (here a Codex rollout named as a Claude Code transcript) is refused
// before anything is written: no binding, no session, no cursor. A file
// the host has only begun is followed (nothing to import yet).
func TestFirstFollowOfAnotherHostsFileIsRefused(t *testing.T) {
	st, home := testfixtures.NewStore(t)
	const hid = "0f3c9a52-6f0e-4c1b-9a57-1d2e3f4a5b6c"
	dir := t.TempDir()
	p := filepath.Join(dir, hid+".jsonl")
	data, err := os.ReadFile(testfixtures.Path(t, "hosts", "codex-0.169.0.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = hosts.Follow(hosts.FollowOptions{Store: st, Home: home, Host: hosts.ClaudeCode, Path: p})
	if !errors.Is(err, importer.ErrNotTranscript) || !strings.Contains(err.Error(), "it reads as a Codex rollout: graft import codex "+p) {
		t.Fatalf("follow: %v, want ErrNotTranscript naming Codex", err)
	}
	if _, err := hosts.Files(st.FS, home).Load(hosts.ClaudeCode, hid); !errors.Is(err, hosts.ErrNoBinding) {
		t.Errorf("a binding was written: %v", err)
	}
	if ok, err := st.Exists(hid); err != nil || ok {
		t.Errorf("session %s exists (%v, %v)", hid, ok, err)
	}
	if _, err := importer.LoadCursor(st.FS, home, hid); !errors.Is(err, importer.ErrNoCursor) {
		t.Errorf("a cursor was written: %v", err)
	}

	// Begun by the host: a half-written first line.
	if err := os.WriteFile(p, []byte(`{"type":"user","message":{"role":"us`), 0o600); err != nil {
		t.Fatal(err)
	}
	fr, err := hosts.Follow(hosts.FollowOptions{Store: st, Home: home, Host: hosts.ClaudeCode, Path: p})
	if err != nil || fr.Import == nil || fr.Import.PendingTail == nil {
		t.Fatalf("follow of a begun file: %+v, %v", fr, err)
	}
}
