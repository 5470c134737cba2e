package gemini

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/graft-project/graft/hosts/adapter"
	mapper "github.com/graft-project/graft/importer/gemini"
	"github.com/graft-project/graft/internal/formatdoc"
	"github.com/graft-project/graft/internal/testfixtures"
	"github.com/graft-project/graft/session"
)

var a Adapter

// doc.go specifies the export: it must name every field Render writes.
func TestDocNamesEveryExportField(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	if missing := formatdoc.Missing(string(doc), exportHeader{}, exportMessage{}, textPart{}, HookInput{}); len(missing) > 0 {
		t.Fatalf("doc.go does not name these fields: %q", missing)
	}
}

func importFile(t *testing.T, path string) ([]session.Event, int) {
	t.Helper()
	st, home := testfixtures.NewStore(t)
	sum, err := mapper.Import(mapper.Options{Store: st, Home: home, Path: path, ID: "g"})
	if err != nil {
		t.Fatal(err)
	}
	evs, _, err := st.ReadAll("g")
	if err != nil {
		t.Fatal(err)
	}
	return evs, sum.Counts.HumanInstructions
}

// TestRenderFind: an export is a session Gemini CLI lists and resumes
// (Resumable); FindTranscript takes it over a stub with the same id; the
// bytes depend on the turn only.
func TestRenderFind(t *testing.T) {
	root := filepath.Join(t.TempDir(), ".gemini")
	cwd := t.TempDir()
	turn := &adapter.Turn{User: []string{"[graft:tape handoff] a", "[graft:tape goal] b"}, Ack: "ack", At: time.Date(2026, 11, 30, 9, 5, 7, 0, time.UTC)}
	id := a.ExportID(turn, "s.g2", "txn")
	if err := adapter.ValidSessionID(id); err != nil {
		t.Fatal(err)
	}
	path := a.ExportPath(root, cwd, id, turn)
	claim, err := a.Claims(root, cwd)
	if err != nil {
		t.Fatal(err)
	}
	if want := "session-2026-11-30T09-05-" + id[:8] + "-graft.jsonl"; filepath.Base(path) != want {
		t.Fatalf("export name %s, want %s", filepath.Base(path), want)
	}
	if len(claim) != 2 {
		t.Fatalf("claim %+v: a new project gets a marker under tmp/ and history/", claim)
	}
	data, err := a.Render(turn, id, cwd, "v1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	again, _ := a.Render(turn, id, cwd, "v1.2.3")
	if string(again) != string(data) {
		t.Fatal("Render is not deterministic")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	stub := filepath.Join(filepath.Dir(path), "session-2026-12-01T08-00-"+id[:8]+".jsonl")
	stubData := `{"sessionId":"` + id + `","projectHash":"x","startTime":"2026-12-01T08:00:00.000Z","lastUpdated":"2026-12-01T08:00:00.000Z","kind":"main"}
{"$set":{"messages":[{"id":"ctx","timestamp":"2026-12-01T08:00:00.000Z","type":"user","content":[{"text":"<session_context>env</session_context>"}]}]}}
`
	if err := os.WriteFile(stub, []byte(stubData), 0o600); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := Resumable(stub); err != nil || ok {
		t.Fatalf("the stub is resumable: %v %v", ok, err)
	}
	if found, err := a.FindTranscript(root, id, ""); err != nil || found != path {
		t.Fatalf("FindTranscript = %q, %v; want %s", found, err, path)
	}
	if _, err := a.FindTranscript(root, "0a1b2c3d-0000-4000-8000-000000000009", cwd); err == nil {
		t.Fatal("FindTranscript found a session that does not exist")
	}
	evs, humans := importFile(t, path)
	if len(evs) != 3 || humans != 0 || evs[1].Text != "[graft:tape handoff] a\n[graft:tape goal] b" || evs[2].Type != session.TypeAssistantMessage || evs[2].Text != "ack" {
		t.Fatalf("an export imports as %d events, %d human: %+v", len(evs), humans, evs)
	}
	first, _, _ := strings.Cut(string(data), "\n")
	if w, ok := a.Writer([]byte(first)); !ok || w != "v1.2.3" {
		t.Fatalf("Writer = %q, %v", w, ok)
	}
}

// TestProjectOf: the project folder as Gemini CLI picks it.
func TestProjectOf(t *testing.T) {
	root := t.TempDir()
	cwd := "/home/dev/My Repo"
	write := func(rel, s string) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// my-repo is taken in projects.json, my-repo-1 by another path's marker.
	write("projects.json", `{"projects":{"/elsewhere/my-repo":"my-repo"}}`)
	write("tmp/my-repo-1/.project_root", "/elsewhere/other")
	p, err := ProjectOf(root, cwd)
	if err != nil {
		t.Fatal(err)
	}
	if p.Slug != "my-repo-2" || len(p.Claim) != 2 || string(p.Claim[0].Data) != cwd {
		t.Fatalf("claimed %+v", p)
	}
	// A marker naming cwd wins over a new claim.
	write("history/old-slug/.project_root", cwd)
	if p, err = ProjectOf(root, cwd); err != nil || p.Slug != "old-slug" || len(p.Claim) != 1 {
		t.Fatalf("marked: %+v, %v", p, err)
	}
	// projects.json wins when the slug's markers do not name another path.
	write("projects.json", `{"projects":{"/home/dev/My Repo":"mine"}}`)
	if p, err = ProjectOf(root, cwd); err != nil || p.Slug != "mine" || p.Chats != filepath.Join(root, "tmp", "mine", "chats") {
		t.Fatalf("registered: %+v, %v", p, err)
	}
	if got := Slugify("--Ünïcode__Name--"); got != "n-code-name" {
		t.Fatalf("Slugify = %q", got)
	}
}

func TestLineTokens(t *testing.T) {
	for _, c := range []struct {
		line  string
		n     int64
		found bool
	}{
		{`{"id":"a","type":"gemini","content":"x","tokens":{"input":77,"output":1,"cached":5,"total":78}}`, 77, true},
		{`{"id":"a","type":"gemini","content":"x","tokens":null}`, 0, false},
		{`{"id":"a","type":"user","content":"tokens"}`, 0, false},
		{`{"$set":{"messages":[{"id":"a","type":"gemini","tokens":{"input":9}}]}}`, 0, false},
	} {
		n, found := a.LineTokens([]byte(c.line))
		if n != c.n || found != c.found {
			t.Errorf("LineTokens(%s) = %d, %v; want %d, %v", c.line, n, found, c.n, c.found)
		}
	}
}
