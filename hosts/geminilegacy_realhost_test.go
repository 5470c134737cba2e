package hosts_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/graft-project/graft/internal/hosttest"
)

// Gemini CLI's earlier session files are one JSON document
// (session-<time>-<id8>.json). The real Gemini CLI 0.61.0 lists one
// among the project's sessions and, resuming it, writes it again beside
// it as session-….jsonl, the format graft reads: graft refuses the
// document with that way on, and imports the file Gemini CLI wrote.
func TestGeminiEarlierSessionDocumentGoesOnAsJSONL(t *testing.T) {
	h := hosttest.Install(t)
	bin, _ := binaries(t)
	gs := hosttest.NewGeminiServer(t)
	gm := h.NewGemini(t, gs)
	gm.Prompt(t, "Hello.").Ok(t)
	current := gm.Sessions(t)
	if len(current) != 1 {
		t.Fatalf("sessions after one run: %q", current)
	}
	var head struct {
		ProjectHash string `json:"projectHash"`
	}
	first, err := os.ReadFile(current[0])
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(string(first), "\n")
	if err := json.Unmarshal([]byte(line), &head); err != nil || head.ProjectHash == "" {
		t.Fatalf("no project hash in %s: %v", line, err)
	}
	// Recent: Gemini CLI deletes sessions past its retention at start-up.
	at := time.Now().UTC().Add(-time.Hour).Format("2006-01-02T15:04:05.000Z")
	const id = "b1fc1c13-d1f3-4d40-92ba-e9d43c08ccf5"
	doc := fmt.Sprintf(`{
  "sessionId": %q,
  "projectHash": %q,
  "startTime": %q,
  "lastUpdated": %q,
  "messages": [
    {
      "id": "c0db946a-77b6-4229-950d-7b259c95eb13",
      "timestamp": %q,
      "type": "user",
      "content": "Where is the history of our chats saved?"
    },
    {
      "id": "3ff12fb4-54a3-4cd3-9919-6c421141c529",
      "timestamp": %q,
      "type": "gemini",
      "content": "Under ~/.gemini/tmp, one folder per project."
    }
  ]
}
`, id, head.ProjectHash, at, at, at, at)
	legacy := filepath.Join(filepath.Dir(current[0]), "session-2026-01-01T06-42-b1fc1c13.json")
	if err := os.WriteFile(legacy, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	g := graftRun{t: t, bin: bin, home: filepath.Join(gm.Root, "graft"), env: gm.Environ(), dir: gm.Dir}
	_, stderr, code := g.run("import", "gemini", legacy, "--id", "old")
	if code == 0 || !strings.Contains(stderr, "gemini --resume "+id) {
		t.Fatalf("graft import of the document: exit %d, stderr %q; want a refusal with the way on", code, stderr)
	}
	gm.Resume(t, id, "Go on.").Ok(t)
	jsonl := strings.TrimSuffix(legacy, ".json") + ".jsonl"
	if _, err := os.Stat(jsonl); err != nil {
		t.Fatalf("Gemini CLI resumed the document but wrote no %s: %v", filepath.Base(jsonl), err)
	}
	g.ok("import", "gemini", jsonl, "--id", "old")
	if out := g.ok("show", "old"); !strings.Contains(out, "Where is the history of our chats saved?") || !strings.Contains(out, "Go on.") {
		t.Errorf("the imported session lacks the document's words or the resumed turn:\n%s", out)
	}
}
