package gemini_test

// The offline tests of the adapter, then the real Gemini CLI (internal/hosttest:
// pinned by the package-lock, offline against a fake Gemini API on
// 127.0.0.1, throw-away HOME), driven directly and through graft's binary.
// The real-program tests are skipped with -short.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/graft-project/graft/hosts/adapter"
	"github.com/graft-project/graft/hosts/gemini"
	mapper "github.com/graft-project/graft/importer/gemini"
	"github.com/graft-project/graft/internal/formatdoc"
	"github.com/graft-project/graft/internal/hosttest"
	"github.com/graft-project/graft/internal/testfixtures"
	"github.com/graft-project/graft/session"
)

var a gemini.Adapter

// doc.go specifies the export: it must name every field Render writes, and
// every field of a hook's input graft reads.
func TestDocNamesEveryExportField(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	if missing := formatdoc.Missing(string(doc), gemini.HookInput{}); len(missing) > 0 {
		t.Fatalf("doc.go does not name these fields: %q", missing)
	}
	turn := &adapter.Turn{User: []string{"a", "b"}, Ack: "c", At: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	data, err := a.Render(turn, a.ExportID(turn, "s", "t"), "/w", adapter.Made{Graft: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				keys = append(keys, k)
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var v any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatal(err)
		}
		walk(v)
	}
	for _, k := range keys {
		if !strings.Contains(string(doc), `"`+k+`"`) {
			t.Errorf("doc.go does not name the export's field %q", k)
		}
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
// (gemini.Resumable); FindTranscript takes it over a stub with the same id; the
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
	data, err := a.Render(turn, id, cwd, adapter.Made{Graft: "v1.2.3"})
	if err != nil {
		t.Fatal(err)
	}
	again, _ := a.Render(turn, id, cwd, adapter.Made{Graft: "v1.2.3"})
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
	if ok, _, err := gemini.Resumable(stub); err != nil || ok {
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
	if w, ok := a.Writer([]byte(first)); !ok || w != (adapter.Made{Graft: "v1.2.3"}) {
		t.Fatalf("Writer = %+v, %v", w, ok)
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
	p, err := gemini.ProjectOf(root, cwd)
	if err != nil {
		t.Fatal(err)
	}
	if p.Slug != "my-repo-2" || len(p.Claim) != 2 || string(p.Claim[0].Data) != cwd {
		t.Fatalf("claimed %+v", p)
	}
	// A marker naming cwd wins over a new claim.
	write("history/old-slug/.project_root", cwd)
	if p, err = gemini.ProjectOf(root, cwd); err != nil || p.Slug != "old-slug" || len(p.Claim) != 1 {
		t.Fatalf("marked: %+v, %v", p, err)
	}
	// projects.json wins when the slug's markers do not name another path.
	write("projects.json", `{"projects":{"/home/dev/My Repo":"mine"}}`)
	if p, err = gemini.ProjectOf(root, cwd); err != nil || p.Slug != "mine" || p.Chats != filepath.Join(root, "tmp", "mine", "chats") {
		t.Fatalf("registered: %+v, %v", p, err)
	}
	if got := gemini.Slugify("--Ünïcode__Name--"); got != "n-code-name" {
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

// recordEnv, when set to 1, copies the session file TestRealImport
// recorded to testdata/ (the offline tests' fixture).
const recordEnv = "GRAFT_GEMINI_RECORD"

const toolMarker = "graft-tool-out-7f3a"

// newGemini is the pinned Gemini CLI against a fake Gemini API whose model
// runs one shell command when a prompt says RUNTOOL.
func newGemini(t *testing.T) *hosttest.GeminiEnv {
	t.Helper()
	h := hosttest.Install(t)
	srv := hosttest.NewGeminiServer(t)
	srv.SetReplyFunc(func(turn hosttest.GeminiTurn) hosttest.GeminiReply {
		last := turn.Last()
		if last.HasFunctionResponse() {
			return hosttest.GeminiReply{Text: "The command printed its line."}
		}
		if strings.Contains(strings.Join(last.Texts(), " "), "RUNTOOL") {
			return hosttest.GeminiReply{Call: &hosttest.GeminiCall{Name: "run_shell_command", Args: map[string]any{"command": "echo " + toolMarker, "description": "print a line"}}}
		}
		return hosttest.GeminiReply{Text: "ok"}
	})
	return h.NewGemini(t, srv)
}

// noForeign fails the test when the host reached for anything but the
// fake model API.
func noForeign(t *testing.T, e *hosttest.GeminiEnv) {
	t.Helper()
	if o := e.Srv.Others(); len(o) > 0 {
		t.Fatalf("requests besides the model API:\n%s", e.Srv.Describe())
	}
}

func events(t *testing.T, st *session.Store, id string) []session.Event {
	t.Helper()
	evs, _, err := st.ReadAll(id)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// TestRealImport: a session the real Gemini CLI writes (a turn with a shell
// call, then a resumed turn) imports into the expected events, and the
// second import appends only what the resume added.
func TestRealImport(t *testing.T) {
	e := newGemini(t)
	e.Srv.SetInputTokens(4321)
	e.Prompt(t, "Please RUNTOOL and never touch go.sum.", "--approval-mode", "yolo").Ok(t)
	files := e.Sessions(t)
	if len(files) != 1 {
		t.Fatalf("session files after one run: %v", files)
	}
	path := files[0]
	id := a.SessionID(path)
	if id == "" {
		t.Fatalf("no session id in %s", path)
	}
	if !strings.HasSuffix(path, "-"+id[:8]+".jsonl") || filepath.Base(filepath.Dir(filepath.Dir(path))) != gemini.Slugify(filepath.Base(e.Dir)) {
		t.Fatalf("session file %s: want tmp/<slug of the working directory>/chats/session-<minute>-%s.jsonl", path, id[:8])
	}
	p, err := gemini.ProjectOf(e.ConfigDir(), e.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if p.Chats != filepath.Dir(path) || len(p.Claim) != 0 {
		t.Fatalf("ProjectOf = %+v, want the chats folder of %s with nothing to claim", p, path)
	}
	if found, err := a.FindTranscript(e.ConfigDir(), id, e.Dir); err != nil || found != path {
		t.Fatalf("FindTranscript = %q, %v; want %s", found, err, path)
	}
	if h, err := gemini.ReadHeader(path); err != nil || h.ProjectHash != gemini.ProjectHash(e.Dir) {
		t.Fatalf("header %+v, %v: want projectHash %s", h, err, gemini.ProjectHash(e.Dir))
	}

	st, home := testfixtures.NewStore(t)
	sum, err := mapper.Import(mapper.Options{Store: st, Home: home, Path: path, ID: "gem"})
	if err != nil {
		t.Fatal(err)
	}
	if sum.MalformedCount != 0 || sum.WarningCount != 0 {
		t.Fatalf("import of the real file: %s", sum.Text())
	}
	evs := events(t, st, "gem")
	var humans []string
	var call, result *session.Event
	for k := range evs {
		ev := &evs[k]
		switch {
		case ev.IsHumanInstruction():
			humans = append(humans, ev.Text)
		case ev.Type == session.TypeToolCall:
			call = ev
		case ev.Type == session.TypeToolResult:
			result = ev
		}
	}
	if !slices.Equal(humans, []string{"Please RUNTOOL and never touch go.sum."}) {
		t.Fatalf("human instructions %q", humans)
	}
	if call == nil || call.Tool.Name != "run_shell_command" || !strings.Contains(string(call.Tool.Input), "echo "+toolMarker) {
		t.Fatalf("tool call %+v", call)
	}
	if result == nil || result.Tool.CallID != call.Tool.CallID || !strings.Contains(result.Tool.Output, toolMarker) || result.Tool.OK == nil || !*result.Tool.OK {
		t.Fatalf("tool result %+v (call %+v)", result, call)
	}
	if n := countKind(evs, session.TypeUserMessage, "session-context"); n != 1 {
		t.Fatalf("%d session-context messages, want 1", n)
	}
	if n := countKind(evs, session.TypeAssistantMessage, ""); n != 1 || lastOf(evs, session.TypeAssistantMessage).Text != "The command printed its line." {
		t.Fatalf("assistant messages: %d, last %+v", n, lastOf(evs, session.TypeAssistantMessage))
	}
	if n, ok, err := lastTokens(path); err != nil || !ok || n != 4321 {
		t.Fatalf("LineTokens of the last reply = %d, %v, %v; want 4321", n, ok, err)
	}

	// The resume appends to the same file; the follow takes only the new.
	fi0 := stat(t, path)
	e.Resume(t, id, "Second: keep the API stable.").Ok(t)
	if fi := stat(t, path); !os.SameFile(fi0, fi) || fi.Size() <= fi0.Size() {
		t.Fatalf("the resume did not append to %s", path)
	}
	sum2, err := mapper.Import(mapper.Options{Store: st, Home: home, Path: path, ID: "gem"})
	if err != nil {
		t.Fatal(err)
	}
	if sum2.WarningCount != 0 || sum2.MalformedCount != 0 {
		t.Fatalf("second import: %s", sum2.Text())
	}
	// A resume in the minute of the file's name writes the new run's
	// header and first list into the same file (doc.go): system events,
	// beside the turn.
	var evs2 []session.Event
	for _, ev := range events(t, st, "gem")[len(evs):] {
		if ev.Type != session.TypeSystem {
			evs2 = append(evs2, ev)
		}
	}
	var types []string
	for _, ev := range evs2 {
		types = append(types, ev.Type+"/"+ev.Source.Kind+"/"+ev.Source.Name)
	}
	want := []string{"user/message/user/", "assistant/message/assistant/"}
	if !slices.Equal(types, want) || evs2[0].Text != "Second: keep the API stable." {
		t.Fatalf("the resume imported %q, want %q (first %q)\n%s", types, want, evs2[0].Text, sum2.Text())
	}
	noForeign(t, e)

	if os.Getenv(recordEnv) == "1" {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// The throw-away paths stand for a fixed one.
		data = bytes.ReplaceAll(data, []byte(e.Home), []byte("/home/dev"))
		data = bytes.ReplaceAll(data, []byte(e.Dir), []byte("/home/dev/work"))
		if err := os.WriteFile(filepath.Join("..", "..", "importer", "gemini", "testdata", "session-recorded.jsonl"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func countKind(evs []session.Event, typ, name string) int {
	n := 0
	for _, ev := range evs {
		if ev.Type == typ && ev.Source.Name == name {
			n++
		}
	}
	return n
}

func lastOf(evs []session.Event, typ string) *session.Event {
	for k := len(evs) - 1; k >= 0; k-- {
		if evs[k].Type == typ {
			return &evs[k]
		}
	}
	return nil
}

func lastTokens(path string) (int64, bool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false, err
	}
	lines := bytes.Split(data, []byte{'\n'})
	for k := len(lines) - 1; k >= 0; k-- {
		if n, ok := a.LineTokens(lines[k]); ok {
			return n, true, nil
		}
	}
	return 0, false, nil
}

func stat(t *testing.T, path string) os.FileInfo {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

// tapeTurn is a tape as the renderer gets it, made minutes ago: a resume
// now is in another minute than the file's name.
func tapeTurn() *adapter.Turn {
	return &adapter.Turn{
		User: []string{
			"[graft:tape handoff] Handoff from session s gen 1: HANDOFF-7c1e",
			"[graft:tape breakpoint] ## Breakpoint\nBREAKPOINT-2d9a",
			"[graft:tape constraints] ## Hard Constraints\n- never touch go.sum (gen 1 s seq=3) CONSTRAINT-5b40",
		},
		Ack: "Understood: I continue from the tape. ACK-91f2",
		At:  time.Now().Add(-3 * time.Minute).Truncate(time.Millisecond),
	}
}

// export writes t as graft's export would (the markers first, then the
// file), with the file named name (FileName, or a control's).
func export(t *testing.T, e *hosttest.GeminiEnv, turn *adapter.Turn, id string, rename func(string) string) (string, []byte) {
	t.Helper()
	claim, err := a.Claims(e.ConfigDir(), e.Dir)
	if err != nil {
		t.Fatal(err)
	}
	path := a.ExportPath(e.ConfigDir(), e.Dir, id, turn)
	if rename != nil {
		path = filepath.Join(filepath.Dir(path), rename(filepath.Base(path)))
	}
	for _, f := range claim {
		if err := os.MkdirAll(filepath.Dir(f.Path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f.Path, f.Data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	data, err := a.Render(turn, id, e.Dir, adapter.Made{Graft: "v0.0.0-test"})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, data
}

// inRequest fails unless every text reached the turn request.
func inRequest(t *testing.T, e *hosttest.GeminiEnv, texts ...string) {
	t.Helper()
	turns := e.Srv.Turns(t)
	if len(turns) == 0 {
		t.Fatalf("no turn request:\n%s", e.Srv.Describe())
	}
	last := turns[len(turns)-1]
	for _, s := range texts {
		if !last.Contains(s) {
			t.Fatalf("the turn request lacks %q:\n%q", s, last.Strings())
		}
	}
}

// TestRealRetention: Gemini CLI 0.61.0's retention sweep, after a resume in
// another minute than the file's name, deletes every file named
// -<first 8 of the id>.jsonl at the next start of another session: a
// session named as Gemini names its own (the control) is gone, graft's
// export (ExportSuffix) survives two later starts and still resumes.
func TestRealRetention(t *testing.T) {
	e := newGemini(t)
	turn := tapeTurn()
	id := a.ExportID(turn, "s.g2", "txn-1")
	path, _ := export(t, e, turn, id, nil)

	control := &adapter.Turn{User: []string{"[graft:tape handoff] CONTROL-4e21"}, Ack: "ok", At: turn.At}
	cid := a.ExportID(control, "c.g2", "txn-2")
	cpath, _ := export(t, e, control, cid, func(name string) string { return strings.TrimSuffix(name, gemini.ExportSuffix) + ".jsonl" })

	// Each resume leaves a stub named as Gemini names its sessions (the
	// trap this test is about); the next start's sweep takes the stub of
	// the one before.
	stub := func(sid, keep string) {
		t.Helper()
		for _, f := range e.Sessions(t) {
			if f != keep && strings.HasSuffix(f, "-"+sid[:8]+".jsonl") {
				return
			}
		}
		t.Fatalf("no stub of %s after its resume in another minute: %v", sid, e.Sessions(t))
	}
	e.Resume(t, id, "Resume graft's export.").Ok(t)
	stub(id, path)
	e.Resume(t, cid, "Resume the control.").Ok(t)
	stub(cid, cpath)
	for k := range 2 {
		e.Prompt(t, "another session").Ok(t)
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("graft's export after %d later start(s): %v", k+1, err)
		}
	}
	if _, err := os.Stat(cpath); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the control named -<id8>.jsonl survived two later starts (%v): Gemini CLI's sweep changed; revisit ExportSuffix", err)
	}
	e.Srv.Reset()
	e.Resume(t, id, "Still there?").Ok(t)
	inRequest(t, e, append(append([]string{}, turn.User...), "Resume graft's export.", "Still there?")...)
	noForeign(t, e)
}

// TestRealHooks: the hooks graft installs for Gemini CLI ({"matcher":
// "*", …} on each event of Hooks().Events) run with the input hookrun
// reads; a SessionStart answer's context reaches the model as
// <hook_context>; PreCompress cannot block.
func TestRealHooks(t *testing.T) {
	e := newGemini(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "hook.sh")
	answer := `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"HOOKCTX-3f8d"},"systemMessage":"graft: hello"}`
	body := "#!/bin/sh\ncat > \"" + dir + "/in-$1.json\"\nprintf '%s\\n' \"$GEMINI_SESSION_ID\" > \"" + dir + "/env-$1\"\n" +
		"case $1 in\nSessionStart) printf '%s\\n' '" + answer + "';;\n" +
		"PreCompress) echo '{\"decision\":\"block\",\"reason\":\"graft\"}'; exit 2;;\nesac\n"
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	hooks := map[string]any{}
	for _, ev := range a.Hooks().Events {
		hooks[ev.Name] = []any{map[string]any{"matcher": a.Hooks().Matcher, "hooks": []any{map[string]any{"type": "command", "command": script + " " + ev.Name, "timeout": 15000}}}}
	}
	e.Settings["hooks"] = hooks
	res := e.Prompt(t, "hello hooks").Ok(t)
	inRequest(t, e, "<hook_context>HOOKCTX-3f8d</hook_context>", "hello hooks")
	if !strings.Contains(res.Stdout+res.Stderr, "graft: hello") {
		t.Fatalf("the systemMessage was not shown:\n%s", res)
	}
	sid := ""
	for _, ev := range a.Hooks().Events {
		b, err := os.ReadFile(filepath.Join(dir, "in-"+ev.Name+".json"))
		if err != nil {
			t.Fatalf("hook %s did not run: %v\n%s", ev.Name, err, res)
		}
		var in gemini.HookInput
		if err := json.Unmarshal(b, &in); err != nil {
			t.Fatal(err)
		}
		if in.HookEventName != ev.Name || in.SessionID == "" || in.Cwd != e.Dir || !strings.HasPrefix(in.TranscriptPath, e.ConfigDir()) {
			t.Fatalf("hook %s input %+v", ev.Name, in)
		}
		if sid == "" {
			sid = in.SessionID
		}
		envID, err := os.ReadFile(filepath.Join(dir, "env-"+ev.Name))
		if err != nil || strings.TrimSpace(string(envID)) != sid {
			t.Fatalf("hook %s: GEMINI_SESSION_ID %q, want %s (%v)", ev.Name, envID, sid, err)
		}
		switch ev.Name {
		case "SessionStart":
			if in.Source != "startup" {
				t.Fatalf("SessionStart source %q", in.Source)
			}
		case "PreCompress":
			if in.Trigger != "auto" || a.Hooks().Block != nil {
				t.Fatalf("PreCompress trigger %q; Block must stay nil", in.Trigger)
			}
		case "BeforeAgent":
			if !strings.HasSuffix(in.Prompt, "hello hooks") {
				t.Fatalf("BeforeAgent prompt %q", in.Prompt)
			}
		}
	}
	// PreCompress answered block with exit 2, and the turn went on.
	if len(e.Srv.Turns(t)) != 1 {
		t.Fatalf("turns: %s", e.Srv.Describe())
	}
	noForeign(t, e)
}

// graft's own binary, built once per test binary, driving the real Gemini
// CLI through the commands a person runs.
var (
	buildOnce sync.Once
	graftBin  string
	buildErr  error
)

func graftBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "graft-gemini-")
		if err != nil {
			buildErr = err
			return
		}
		graftBin = filepath.Join(dir, "graft")
		cmd := exec.Command("go", "build", "-o", graftBin, "./cmd/graft")
		cmd.Dir = testfixtures.ModuleRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return graftBin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if graftBin != "" {
		if err := os.RemoveAll(filepath.Dir(graftBin)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// graftCLI runs graft with Gemini CLI's environment (the same HOME) in the
// working directory e.Dir.
type graftCLI struct {
	t    *testing.T
	e    *hosttest.GeminiEnv
	home string
}

func newGraft(t *testing.T, e *hosttest.GeminiEnv) graftCLI {
	return graftCLI{t: t, e: e, home: filepath.Join(t.TempDir(), "graft-home")}
}

func (g graftCLI) ok(args ...string) string {
	g.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, graftBinary(g.t), append([]string{"--home", g.home}, args...)...)
	cmd.Env, cmd.Dir = g.e.Environ(), g.e.Dir
	var o, eb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &eb
	if err := cmd.Run(); err != nil {
		g.t.Fatalf("graft %v: %v\nstdout:\n%s\nstderr:\n%s", args, err, o.String(), eb.String())
	}
	return o.String()
}

func (g graftCLI) json(v any, args ...string) {
	g.t.Helper()
	out := g.ok(append(args, "--json")...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		g.t.Fatalf("graft %v --json: %v\n%s", args, err, out)
	}
}

// handoffResult is the part of graft handoff --json the tests read.
type handoffResult struct {
	HostSessionID string `json:"hostSessionId"`
	Path          string `json:"path"`
	ResumeCommand string `json:"resumeCommand"`
	Review        struct {
		Source      string `json:"source"`
		Constraints []struct {
			Text   string `json:"text"`
			Origin struct {
				Generation int    `json:"generation"`
				Session    string `json:"session"`
			} `json:"origin"`
		} `json:"constraints"`
	} `json:"review"`
	Commit struct {
		TargetID   string `json:"targetId"`
		Generation int    `json:"generation"`
	} `json:"commit"`
}

// tapeBlocks are the texts of a target's tape events (graft show --json).
func (g graftCLI) tapeBlocks(target string) []string {
	g.t.Helper()
	var blocks []string
	tapeEvents := 0
	for _, line := range strings.Split(strings.TrimSpace(g.ok("show", target, "--json")), "\n") {
		var ev struct {
			Seq        int64  `json:"seq"`
			Text       string `json:"text"`
			TapeEvents int    `json:"tapeEvents"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			g.t.Fatalf("show %s: %v: %s", target, err, line)
		}
		if ev.Seq == 1 {
			tapeEvents = ev.TapeEvents
		} else if ev.Seq <= int64(tapeEvents) {
			blocks = append(blocks, ev.Text)
		}
	}
	if len(blocks) < 5 {
		g.t.Fatalf("%s: %d tape texts, want the handoff, the recap blocks and the acknowledgement", target, len(blocks))
	}
	return blocks
}

const geminiConstraint = "Never touch go.sum."

// TestRealGraftHandoffAndResume: graft import gemini, then a resume of
// the session, then graft handoff gemini --session-id (the follow, the
// commit, the export) gives a session the real Gemini CLI resumes by id
// with every tape block in its request; a second handoff of the resumed
// export is generation 3 with the constraint still at its origin.
func TestRealGraftHandoffAndResume(t *testing.T) {
	e := newGemini(t)
	g := newGraft(t, e)
	e.Prompt(t, "Please RUNTOOL. "+geminiConstraint, "--approval-mode", "yolo").Ok(t)
	files := e.Sessions(t)
	if len(files) != 1 {
		t.Fatalf("session files: %v", files)
	}
	sid := a.SessionID(files[0])
	var imp struct {
		Session string `json:"session"`
	}
	g.json(&imp, "import", "gemini", files[0])
	if imp.Session == "" {
		t.Fatalf("import: no session")
	}
	e.Resume(t, sid, "Second: keep the API stable.").Ok(t)

	var res handoffResult
	g.json(&res, "handoff", "gemini", "--session-id", sid, "--cwd", e.Dir, "--yes")
	if res.Commit.Generation != 2 || !strings.HasSuffix(res.Path, gemini.ExportSuffix) || res.ResumeCommand != "gemini --resume "+res.HostSessionID {
		t.Fatalf("handoff %+v", res)
	}
	if p, err := a.FindTranscript(e.ConfigDir(), res.HostSessionID, e.Dir); err != nil || p != res.Path {
		t.Fatalf("the export is not where Gemini CLI finds session %s: %q, %v (written to %s)", res.HostSessionID, p, err, res.Path)
	}
	var gen1 string
	for _, c := range res.Review.Constraints {
		if strings.Contains(c.Text, "go.sum") {
			gen1 = c.Origin.Session
		}
	}
	if gen1 == "" {
		t.Fatalf("the review lost the constraint: %+v", res.Review.Constraints)
	}
	blocks := g.tapeBlocks(res.Commit.TargetID)

	e.Srv.Reset()
	e.Resume(t, res.HostSessionID, "Go on with the next step.").Ok(t)
	inRequest(t, e, append(blocks, "Go on with the next step.")...)
	noForeign(t, e)

	var res3 handoffResult
	g.json(&res3, "handoff", "gemini", "--session-id", res.HostSessionID, "--cwd", e.Dir, "--yes")
	if res3.Commit.Generation != 3 || res3.Review.Source != res.Commit.TargetID {
		t.Fatalf("second handoff %+v: want generation 3 from %s", res3.Commit, res.Commit.TargetID)
	}
	kept := false
	for _, c := range res3.Review.Constraints {
		if strings.Contains(c.Text, "go.sum") {
			kept = c.Origin.Generation == 1 && c.Origin.Session == gen1
		}
	}
	if !kept {
		t.Fatalf("generation 3 lost the constraint's generation-1 origin in %s: %+v", gen1, res3.Review.Constraints)
	}
	if out := g.ok("audit", res3.Commit.TargetID); !strings.Contains(out, "audit passed") {
		t.Fatalf("audit: %s", out)
	}
}

// TestRealExportIntoANewDirectory: graft export of a committed target into
// a directory Gemini CLI never ran in writes the two ownership markers
// before the session file; Gemini CLI resumes it there with every tape
// block in its request, and takes the claimed folder. A second export is
// the same file, not a new one.
func TestRealExportIntoANewDirectory(t *testing.T) {
	e := newGemini(t)
	g := newGraft(t, e)
	e.Prompt(t, "Please RUNTOOL. "+geminiConstraint, "--approval-mode", "yolo").Ok(t)
	files := e.Sessions(t)
	g.ok("import", "gemini", files[0], "--id", "gem")
	var rv struct {
		PreparedID string `json:"preparedId"`
		TapeHash   string `json:"tapeHash"`
	}
	g.json(&rv, "prepare", "gem")
	var cm struct {
		TargetID string `json:"targetId"`
	}
	g.json(&cm, "commit", rv.PreparedID, "--hash", rv.TapeHash)

	fresh := filepath.Join(filepath.Dir(e.Dir), "Fresh Project")
	if err := os.Mkdir(fresh, 0o700); err != nil {
		t.Fatal(err)
	}
	claims, err := a.Claims(e.ConfigDir(), fresh)
	if err != nil || len(claims) != 2 {
		t.Fatalf("claims of a new directory: %+v, %v", claims, err)
	}
	var ex struct {
		HostSessionID string `json:"hostSessionId"`
		Path          string `json:"path"`
		Created       bool   `json:"created"`
	}
	g.json(&ex, "export", "gemini", cm.TargetID, "--cwd", fresh)
	if !ex.Created || filepath.Dir(ex.Path) != filepath.Join(filepath.Dir(claims[0].Path), "chats") {
		t.Fatalf("export %+v, claims %+v", ex, claims)
	}
	file := stat(t, ex.Path)
	for _, c := range claims {
		b, err := os.ReadFile(c.Path)
		if err != nil || string(b) != fresh {
			t.Fatalf("marker %s: %q, %v", c.Path, b, err)
		}
		if fi := stat(t, c.Path); fi.ModTime().After(file.ModTime()) {
			t.Fatalf("marker %s was written after the session file", c.Path)
		}
	}
	blocks := g.tapeBlocks(cm.TargetID)

	e.Dir = fresh
	e.Srv.Reset()
	e.Resume(t, ex.HostSessionID, "Continue here.").Ok(t)
	inRequest(t, e, append(blocks, "Continue here.")...)
	if p, err := gemini.ProjectOf(e.ConfigDir(), fresh); err != nil || p.Chats != filepath.Dir(ex.Path) || len(p.Claim) != 0 {
		t.Fatalf("after the resume gemini.ProjectOf = %+v, %v: Gemini CLI took another folder than %s", p, err, filepath.Dir(ex.Path))
	}
	var again struct {
		Path    string `json:"path"`
		Created bool   `json:"created"`
	}
	g.json(&again, "export", "gemini", cm.TargetID, "--cwd", fresh)
	if again.Created || again.Path != ex.Path {
		t.Fatalf("second export %+v, first %+v", again, ex)
	}
	noForeign(t, e)
}

// TestRealHookInstall: graft hook install gemini into the user's settings
// file the person has: the hooks follow the session, offer the handoff
// past autoGraft (the offer reaches the model before the next prompt),
// and the first prompt after Gemini CLI compressed the session carries the
// constraints with their origins, once; graft hook uninstall gives the
// file back byte for byte.
func TestRealHookInstall(t *testing.T) {
	e := newGemini(t)
	g := newGraft(t, e)
	if err := os.MkdirAll(g.home, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(g.home, "config.toml")
	if err := os.WriteFile(cfg, []byte("autoGraft = 100000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(e.ConfigDir(), "settings.json")
	if err := os.MkdirAll(e.ConfigDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	// The person's own file, as they wrote it (what hosttest runs with).
	own, err := json.MarshalIndent(e.Settings, "", "    ")
	if err != nil {
		t.Fatal(err)
	}
	own = append(own, '\n')
	if err := os.WriteFile(settings, own, 0o600); err != nil {
		t.Fatal(err)
	}
	g.ok("--config", cfg, "hook", "install", "gemini", "--gemini-cli-home", e.Home)
	installed, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	var parsed map[string]any
	if err := json.Unmarshal(installed, &parsed); err != nil {
		t.Fatal(err)
	}
	for _, ev := range a.Hooks().Events {
		if !strings.Contains(string(installed), `"`+ev.Name+`"`) {
			t.Fatalf("no %s hook in\n%s", ev.Name, installed)
		}
	}
	if !strings.Contains(string(installed), `"matcher": "*"`) || !strings.Contains(string(installed), `"timeout": 15000`) {
		t.Fatalf("the hooks are not shaped as Gemini CLI's:\n%s", installed)
	}
	e.Settings = parsed // hosttest writes them before each run

	// Turn 1: the model asks for a command and reports a context past
	// autoGraft and past half of the model's window, so Gemini CLI
	// compresses the session before it sends the command's result.
	e.Srv.SetReplyFunc(func(turn hosttest.GeminiTurn) hosttest.GeminiReply {
		last := turn.Last()
		if last.HasFunctionResponse() {
			return hosttest.GeminiReply{Text: "The command printed its line."}
		}
		if strings.Contains(strings.Join(last.Texts(), " "), "RUNTOOL") {
			return hosttest.GeminiReply{Call: &hosttest.GeminiCall{Name: "run_shell_command", Args: map[string]any{"command": "echo " + toolMarker, "description": "print a line"}}, InputTokens: 800000}
		}
		return hosttest.GeminiReply{Text: "ok"}
	})
	e.Prompt(t, "Set up the project. "+geminiConstraint, "--approval-mode", "yolo").Ok(t)
	files := e.Sessions(t)
	sid := a.SessionID(files[0])
	e.Resume(t, sid, "Read the README.", "--approval-mode", "yolo").Ok(t)
	e.Resume(t, sid, "Please RUNTOOL now.", "--approval-mode", "yolo").Ok(t)
	path, err := a.FindTranscript(e.ConfigDir(), sid, e.Dir)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(hosttest.GeminiSnapshot)) {
		t.Fatalf("Gemini CLI did not compress the session:\n%s\n%s", data, e.Srv.Describe())
	}

	// The next prompt carries the constraints after the compression.
	e.Srv.Reset()
	e.Resume(t, sid, "Next step.", "--approval-mode", "yolo").Ok(t)
	turns := e.Srv.Turns(t)
	if len(turns) == 0 {
		t.Fatalf("no turn:\n%s", e.Srv.Describe())
	}
	last := strings.Join(turns[0].Last().Texts(), "\n")
	if !strings.Contains(last, "<hook_context>") || !strings.Contains(last, "Anchor + Hard Constraints") || !strings.Contains(last, "go.sum") {
		t.Fatalf("the first prompt after the compression does not carry the constraints:\n%s", last)
	}
	e.Srv.Reset()
	e.Resume(t, sid, "And the one after.", "--approval-mode", "yolo").Ok(t)
	if last := strings.Join(e.Srv.Turns(t)[0].Last().Texts(), "\n"); strings.Contains(last, "Anchor + Hard Constraints") {
		t.Fatalf("the constraints were carried twice:\n%s", last)
	}

	// Past autoGraft: the offer before the next prompt.
	e.Srv.SetInputTokens(200000)
	e.Resume(t, sid, "Big step.", "--approval-mode", "yolo").Ok(t)
	e.Srv.Reset()
	e.Resume(t, sid, "After the big step.", "--approval-mode", "yolo").Ok(t)
	if last := strings.Join(e.Srv.Turns(t)[0].Last().Texts(), "\n"); !strings.Contains(last, "handoff gemini --session-id "+sid) {
		t.Fatalf("no handoff offered past autoGraft:\n%s", last)
	}
	noForeign(t, e)

	// hosttest wrote the settings again before each run: the file as
	// the install left it goes back first.
	if err := os.WriteFile(settings, installed, 0o600); err != nil {
		t.Fatal(err)
	}
	g.ok("hook", "uninstall", "gemini", "--gemini-cli-home", e.Home)
	back, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back, own) {
		t.Fatalf("uninstall did not give the file back:\n%s\nwant\n%s", back, own)
	}
}
