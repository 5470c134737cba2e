package hosts_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/graft-project/graft/internal/hosttest"
)

// A graft killed mid-commit is rolled back by Gemini CLI's SessionStart
// hook before the CLI's first request, which is told of it.
func TestGeminiSessionStartRecovers(t *testing.T) {
	h := hosttest.Install(t)
	bin, crash := binaries(t)
	gs := hosttest.NewGeminiServer(t)
	gm := h.NewGemini(t, gs)
	g := graftRun{t: t, bin: bin, home: filepath.Join(gm.Root, "graft"), env: gm.Environ(), dir: gm.Dir}
	killedCommit(t, crash, g.home, "commit/journal-flushed:after")
	if left, _ := filepath.Glob(filepath.Join(g.home, ".txn", "*.json")); len(left) != 1 {
		t.Fatalf("journal records after the killed commit: %v, want one", left)
	}
	installGeminiHooks(t, gm, g)
	gm.Prompt(t, "hello").Ok(t)
	if left, _ := filepath.Glob(filepath.Join(g.home, ".txn", "*.json")); len(left) != 0 {
		t.Fatalf("the SessionStart hook left the journal record %v", left)
	}
	reqs := gs.Requests()
	if len(reqs) == 0 || !reqs[0].Contains("graft's start-up recovery scan found 1 interrupted graft(s): 1 rolled back") {
		t.Fatalf("the first request does not tell of the recovery:\n%s", gs.Describe())
	}
	if others := gs.Others(); len(others) != 0 {
		t.Fatalf("requests for another host: %v", others)
	}
}

// installGeminiHooks puts graft's hooks into the person's settings file
// (API-key auth, what GeminiEnv runs with) with graft hook install;
// GeminiEnv writes its Settings before each run, so they become the file
// the install wrote.
func installGeminiHooks(t *testing.T, gm *hosttest.GeminiEnv, g graftRun) {
	t.Helper()
	settings := filepath.Join(gm.ConfigDir(), "settings.json")
	own, err := json.MarshalIndent(gm.Settings, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(gm.ConfigDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, own, 0o600); err != nil {
		t.Fatal(err)
	}
	installHooks(t, g, "gemini", "", "--gemini-cli-home", gm.Home)
	installed, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	gm.Settings = map[string]any{}
	if err := json.Unmarshal(installed, &gm.Settings); err != nil {
		t.Fatal(err)
	}
}
