package gemini_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/graft-project/graft/hosts/gemini"
	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/internal/hosttest"
	"github.com/graft-project/graft/internal/testfixtures"
	"github.com/graft-project/graft/session"
)

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
	id, err := gemini.SessionID(path)
	if err != nil {
		t.Fatal(err)
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
	if found, err := gemini.FindTranscript(e.ConfigDir(), id, e.Dir); err != nil || found != path {
		t.Fatalf("FindTranscript = %q, %v; want %s", found, err, path)
	}
	if h, err := gemini.ReadHeader(path); err != nil || h.ProjectHash != gemini.ProjectHash(e.Dir) {
		t.Fatalf("header %+v, %v: want projectHash %s", h, err, gemini.ProjectHash(e.Dir))
	}

	st, home := testfixtures.NewStore(t)
	sum, err := gemini.Import(gemini.Options{Store: st, Home: home, Path: path, ID: "gem"})
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
	sum2, err := gemini.Import(gemini.Options{Store: st, Home: home, Path: path, ID: "gem"})
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
		if err := os.WriteFile(filepath.Join("testdata", "session-recorded.jsonl"), data, 0o644); err != nil {
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
		if n, ok := gemini.LineTokens(lines[k]); ok {
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
func tapeTurn() *gemini.Turn {
	return &gemini.Turn{
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
func export(t *testing.T, e *hosttest.GeminiEnv, turn *gemini.Turn, id string, rename func(string) string) (string, []byte) {
	t.Helper()
	path, claim, err := gemini.ExportPath(e.ConfigDir(), e.Dir, id, turn)
	if err != nil {
		t.Fatal(err)
	}
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
	data, err := gemini.Render(turn, id, e.Dir, "v0.0.0-test")
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

// TestRealResumeExport: a session file graft renders, in a project Gemini
// CLI has never run in, resumes by id in the real program with every tape
// text in the request; the resume appends to it, and a follow seeded with
// graft's bytes imports only what the host wrote.
func TestRealResumeExport(t *testing.T) {
	e := newGemini(t)
	turn := tapeTurn()
	id := gemini.ExportID(turn, "s.g2", "txn-1")
	path, data := export(t, e, turn, id, nil)
	if !gemini.IsExportName(filepath.Base(path)) {
		t.Fatalf("export name %s", path)
	}
	e.Resume(t, id, "Go on with the next step.").Ok(t)
	inRequest(t, e, append(append([]string{}, turn.User...), turn.Ack, "Go on with the next step.")...)
	if p, err := gemini.ProjectOf(e.ConfigDir(), e.Dir); err != nil || p.Chats != filepath.Dir(path) || len(p.Claim) != 0 {
		t.Fatalf("after the resume ProjectOf = %+v, %v: Gemini CLI took another folder than the claimed %s", p, err, filepath.Dir(path))
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(got, data) || len(got) == len(data) {
		t.Fatalf("the resume did not append to graft's bytes")
	}
	if w, ok := gemini.Writer(data[:bytes.IndexByte(data, '\n')+1]); !ok || w != "v0.0.0-test" {
		t.Fatalf("Writer = %q, %v", w, ok)
	}

	// A follow seeded as an export seeds it.
	st, home := testfixtures.NewStore(t)
	var sys syscall.Stat_t
	if err := syscall.Stat(path, &sys); err != nil {
		t.Fatal(err)
	}
	if err := importer.Seed(st, home, "tgt", path, uint64(sys.Dev), sys.Ino, data, 0, gemini.NewMapper(gemini.Config{})); err != nil {
		t.Fatal(err)
	}
	sum, err := gemini.Import(gemini.Options{Store: st, Home: home, Path: path, ID: "tgt"})
	if err != nil {
		t.Fatal(err)
	}
	var humans []string
	for _, ev := range events(t, st, "tgt") {
		if strings.Contains(ev.Text, "graft:tape") || strings.Contains(ev.Text, "ACK-91f2") {
			t.Fatalf("the follow imported graft's own lines again: %+v", ev)
		}
		if ev.IsHumanInstruction() {
			humans = append(humans, ev.Text)
		}
	}
	if !slices.Equal(humans, []string{"Go on with the next step."}) || sum.WarningCount != 0 {
		t.Fatalf("the follow's human instructions %q\n%s", humans, sum.Text())
	}
	noForeign(t, e)
}

// TestRealRetention: Gemini CLI 0.61.0's retention sweep, after a resume in
// another minute than the file's name, deletes every file named
// -<first 8 of the id>.jsonl at the next start of another session: a
// session named as Gemini names its own (the control) is gone, graft's
// export (ExportSuffix) survives two later starts and still resumes.
func TestRealRetention(t *testing.T) {
	e := newGemini(t)
	turn := tapeTurn()
	id := gemini.ExportID(turn, "s.g2", "txn-1")
	path, _ := export(t, e, turn, id, nil)

	control := &gemini.Turn{User: []string{"[graft:tape handoff] CONTROL-4e21"}, Ack: "ok", At: turn.At}
	cid := gemini.ExportID(control, "c.g2", "txn-2")
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

// TestRealHooks: the hooks settings HookSettings writes run on every event
// graft hooks, with the input HookInput reads; a SessionStart answer's
// context reaches the model as <hook_context>; PreCompress cannot block.
func TestRealHooks(t *testing.T) {
	e := newGemini(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "hook.sh")
	answer, err := gemini.ContextAnswer("SessionStart", "HOOKCTX-3f8d", "graft: hello")
	if err != nil {
		t.Fatal(err)
	}
	body := "#!/bin/sh\ncat > \"" + dir + "/in-$1.json\"\nprintf '%s\\n' \"$GEMINI_SESSION_ID\" > \"" + dir + "/env-$1\"\n" +
		"case $1 in\nSessionStart) printf '%s\\n' '" + string(answer) + "';;\n" +
		"PreCompress) echo '{\"decision\":\"block\",\"reason\":\"graft\"}'; exit 2;;\nesac\n"
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	e.Settings["hooks"] = gemini.HookSettings(func(event string) string { return script + " " + event })
	res := e.Prompt(t, "hello hooks").Ok(t)
	inRequest(t, e, "<hook_context>HOOKCTX-3f8d</hook_context>", "hello hooks")
	if !strings.Contains(res.Stdout+res.Stderr, "graft: hello") {
		t.Fatalf("the systemMessage was not shown:\n%s", res)
	}
	sid := ""
	for _, ev := range gemini.HookEvents {
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
			if in.Trigger != "auto" || ev.CanBlock {
				t.Fatalf("PreCompress trigger %q, CanBlock %v", in.Trigger, ev.CanBlock)
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
