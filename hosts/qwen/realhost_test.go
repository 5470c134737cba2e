package qwen_test

// The real Qwen Code (internal/hosttest: pinned by the package-lock, run
// offline against a fake chat-completions server on 127.0.0.1 that records
// every request, in a throw-away HOME): a session it writes imports
// through the mapper; a session graft renders from a committed tape
// resumes by id with every tape block in the request; a PreCompact hook's
// additionalContext reaches the compression's summary request. Skipped
// with -short, and when node or npm is missing.

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/hosts/adapter"
	"github.com/graft-project/graft/hosts/qwen"
	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/internal/hosttest"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/vfs"
)

// realTimeout bounds each qwen run; a test runs at most six.
const realTimeout = 45 * time.Second

// Texts of the recorded session.
const (
	firstPrompt   = hosttest.QwenFirstPrompt
	secondPrompt  = hosttest.QwenSecondPrompt
	afterCompress = hosttest.QwenAfterCompress
	readReply     = "The file has two lines."
	preCompactCtx = "GRAFT-CONSTRAINT: never change the public API of pager.go (generation 1, seq 2)."
	startCtx      = "GRAFT-START: constraints with their origins."
	toolReadFile  = "read_file"
)

// hookEvents are the events Qwen Code 0.24.4 runs hooks on that the
// recorded session meets.
var hookEvents = []string{"SessionStart", "UserPromptSubmit", "Stop", "PreCompact", "PostCompact"}

// hookSettings is the "hooks" object of a settings.json that runs command
// for each event: one matcher group each, Claude Code's shape, the
// timeout in seconds.
func hookSettings(commands map[string]string, timeout int) map[string]any {
	hooks := map[string]any{}
	for event, cmd := range commands {
		hooks[event] = []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd, "timeout": timeout}}}}
	}
	return hooks
}

// contextAnswer is a hook's stdout that gives the model text.
func contextAnswer(t *testing.T, event, text string) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": event, "additionalContext": text}})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func newQwen(t *testing.T) (*hosttest.QwenEnv, *hosttest.QwenServer) {
	t.Helper()
	h := hosttest.Install(t)
	srv := hosttest.NewQwenServer(t)
	q := h.NewQwen(t, srv)
	q.Timeout = realTimeout
	return q, srv
}

// sessionID is the id of the one session file q holds.
func sessionFile(t *testing.T, q *hosttest.QwenEnv) (id, path string) {
	t.Helper()
	ss := q.Sessions(t)
	if len(ss) != 1 {
		t.Fatalf("want one session file, have %v", ss)
	}
	return strings.TrimSuffix(filepath.Base(ss[0]), ".jsonl"), ss[0]
}

// recordSession drives the real qwen through a turn with a read_file call,
// a resumed second turn, /compress with a PreCompact and a SessionStart
// hook, and a turn after it. It returns the session id and file.
func recordSession(t *testing.T, q *hosttest.QwenEnv, srv *hosttest.QwenServer) (id, path string, log *hosttest.HookLog) {
	t.Helper()
	log = hosttest.NewHookLog(t)
	pre := contextAnswer(t, "PreCompact", preCompactCtx)
	start := contextAnswer(t, "SessionStart", startCtx)
	cmds := map[string]string{}
	for _, ev := range hookEvents {
		cmds[ev] = log.Command("")
	}
	cmds["PreCompact"] = log.Command("printf '%s' " + shellQuote(pre))
	cmds["SessionStart"] = log.Command("printf '%s' " + shellQuote(start))
	q.Settings["hooks"] = hookSettings(cmds, 10)
	q.WriteSettings(t)
	if err := os.WriteFile(filepath.Join(q.Dir, "notes.txt"), []byte("line one\nline two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(q.RealDir(t), "notes.txt")
	turns := 0
	srv.SetReplyFunc(func(r hosttest.QwenRequest) hosttest.QwenReply {
		switch {
		case r.IsMemory():
			return hosttest.QwenReply{Text: "nothing to remember"}
		case r.IsCompress():
			return hosttest.QwenReply{Text: "<state_snapshot>\n<overall_goal>Read notes.txt.</overall_goal>\n</state_snapshot>"}
		}
		turns++
		if turns == 1 {
			return hosttest.QwenReply{ToolCalls: []hosttest.QwenToolCall{{Name: toolReadFile, Arguments: `{"file_path":"` + notes + `"}`}}}
		}
		return hosttest.QwenReply{Text: readReply, PromptTokens: 4321}
	})
	q.Print(t, firstPrompt).Ok(t)
	id, path = sessionFile(t, q)
	q.Resume(t, id, secondPrompt).Ok(t)
	srv.Reset()
	res := q.Resume(t, id, "/compress").Ok(t)
	comp := srv.Compressions(t)
	if len(comp) != 1 {
		t.Fatalf("/compress made %d compression requests, want 1: %s\n%s", len(comp), res, srv.Describe())
	}
	// The PreCompact hook cannot stop the compression, but its context is
	// in the summary request, after "Additional Instructions:".
	if !comp[0].Contains("Additional Instructions:\n" + preCompactCtx) {
		t.Errorf("the compression request lacks the PreCompact hook's additionalContext:\n%s", srv.Describe())
	}
	srv.Reset()
	q.Resume(t, id, afterCompress).Ok(t)
	// The first turn after the compression: the SessionStart hook's
	// context is in its system prompt.
	after := srv.Turns(t)
	if len(after) == 0 || !strings.Contains(after[0].System(), startCtx) || !after[0].Contains(afterCompress) {
		t.Errorf("the first turn after the compression lacks the SessionStart context or the prompt:\n%s", srv.Describe())
	}
	if f := srv.Foreign(); len(f) > 0 {
		t.Errorf("qwen tried to reach %d other hosts: %s", len(f), srv.Describe())
	}
	return id, path, log
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func TestRealQwenSessionImports(t *testing.T) {
	q, srv := newQwen(t)
	id, path, log := recordSession(t, q, srv)

	// The hooks, as doc.go says: SessionStart startup, resume, compact;
	// Stop with the token counts; PreCompact manual; PostCompact.
	names := log.Names(t)
	for _, want := range []string{"SessionStart:startup", "SessionStart:resume", "SessionStart:compact", "UserPromptSubmit", "Stop", "PreCompact:manual", "PostCompact:manual"} {
		if !slices.Contains(names, want) {
			t.Errorf("hook %s did not fire; fired: %v", want, names)
		}
	}
	for _, e := range log.Events(t) {
		if e["hook_event_name"] != "Stop" {
			continue
		}
		if e["input_tokens"] != float64(4321) || e["context_limit"] == nil || e["context_usage"] == nil {
			t.Errorf("Stop hook input lacks the usage: %v", e)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var tokens int64 = -1
	for _, l := range bytes.Split(data, []byte("\n")) {
		if n, ok := a.LineTokens(l); ok {
			tokens = n
		}
	}
	if tokens != 4321 {
		t.Errorf("LineTokens of the last reply = %d, want 4321", tokens)
	}
	found, err := a.FindTranscript(q.QwenDir, id, q.RealDir(t))
	if err != nil || found != path || a.SessionID(found) != id {
		t.Errorf("FindTranscript = %q, %v; want %s", found, err, path)
	}

	if dir := os.Getenv("QWEN_RECORD_TESTDATA"); dir != "" {
		recordTestdata(t, path, q.Root, dir)
	}

	st, home := newStore(t)
	sum, err := a.Import(adapter.ImportOptions{Store: st, Home: home, ID: "q", Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Warnings) > 0 {
		t.Errorf("import warnings: %v", sum.Warnings)
	}
	evs, _, err := st.ReadAll("q")
	if err != nil {
		t.Fatal(err)
	}
	hosttest.CheckQwenRecorded(t, evs, q.RealDir(t))
}

// recordTestdata copies the session into dir/session.jsonl (importer/qwen's
// testdata) with the test's
// temporary root replaced by /home/user (QWEN_RECORD_TESTDATA=dir; how
// testdata/session.jsonl was made).
func recordTestdata(t *testing.T, path, root, dir string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.ReplaceAll(string(b), real, "/home/user")
	s = strings.ReplaceAll(s, qwen.ProjectDirName(real), qwen.ProjectDirName("/home/user"))
	if err := os.WriteFile(filepath.Join(dir, "session.jsonl"), []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func newStore(t *testing.T) (*session.Store, string) {
	t.Helper()
	home := t.TempDir()
	st, err := session.OpenStore(vfs.Default, home)
	if err != nil {
		t.Fatal(err)
	}
	return st, home
}

func TestRealQwenResumesExport(t *testing.T) {
	q, srv := newQwen(t)
	// Run from a symlink to the project: qwen names the folder after the
	// real path (doc.go), and so does ExportPath.
	cwd := q.RealDir(t)
	link := filepath.Join(q.Root, "link")
	if err := os.Symlink(q.Dir, link); err != nil {
		t.Fatal(err)
	}
	q.Dir = link
	q.Print(t, firstPrompt).Ok(t)
	id, path := sessionFile(t, q)
	if want := a.ExportPath(q.QwenDir, cwd, id, nil); path != want {
		t.Fatalf("qwen wrote %s, ExportPath says %s", path, want)
	}

	// graft: import the session, prepare and commit a graft: the target's
	// tape is what the export carries.
	home := t.TempDir()
	svc, err := graft.Open(home, graft.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	st, err := session.OpenStore(svc.FS, home)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Import(adapter.ImportOptions{Store: st, Home: home, ID: "src", Path: path}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rev, err := svc.Prepare(ctx, "src", graft.PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := svc.Commit(ctx, rev.PreparedID, rev.TapeHash, "")
	if err != nil {
		t.Fatal(err)
	}
	turn := tapeTurn(t, st, res.TargetID, res.TapeEvents)
	if !strings.Contains(strings.Join(turn.User, "\n"), firstPrompt) {
		t.Fatalf("the tape does not quote the person's prompt %q", firstPrompt)
	}

	sid := a.ExportID(turn, res.TargetID, res.TxnID)
	data, err := a.Render(turn, sid, cwd, adapter.Made{Graft: "test"})
	if err != nil {
		t.Fatal(err)
	}
	out := a.ExportPath(q.QwenDir, cwd, sid, turn)
	if err := os.WriteFile(out, data, 0o600); err != nil {
		t.Fatal(err)
	}

	srv.Reset()
	srv.SetReply("resumed")
	// The resume command, as graft prints it, with -p for one turn.
	args := strings.Fields(a.ResumeCommand(sid))
	if args[0] != "qwen" {
		t.Fatalf("ResumeCommand = %q", a.ResumeCommand(sid))
	}
	run := q.Run(t, append(args[1:], "-p", "continue")...).Ok(t)
	if !strings.Contains(run.Stdout, "resumed") {
		t.Errorf("qwen --resume printed %q", run.Stdout)
	}
	turns := srv.Turns(t)
	if len(turns) != 1 {
		t.Fatalf("want one turn request, have:\n%s", srv.Describe())
	}
	req := turns[0]
	// Every block, in order, then the acknowledgement as the model's,
	// then the new prompt.
	var texts []string
	var roles []string
	for _, m := range req.Messages {
		texts = append(texts, m.Text())
		roles = append(roles, m.Role)
	}
	all := strings.Join(texts, "\n\u0000\n")
	at := 0
	for k, block := range turn.User {
		i := strings.Index(all[at:], block)
		if i < 0 {
			t.Fatalf("tape block %d of %d (%q…) is not in the resumed request after offset %d", k+1, len(turn.User), clip(block), at)
		}
		at += i + len(block)
	}
	ack := -1
	for k, m := range req.Messages {
		if m.Role == "assistant" && strings.Contains(m.Text(), turn.Ack) {
			ack = k
		}
	}
	if ack < 0 || !strings.Contains(req.LastUser(), "continue") {
		t.Errorf("the acknowledgement is not the model's (roles %v), or the prompt is not last", roles)
	}

	// The file is still graft's, and the host appended to it: mapped, the
	// tape is graft's and the new prompt the person's.
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), string(data)) || len(b) == len(data) {
		t.Fatalf("qwen did not append to the export (%d bytes, export %d)", len(b), len(data))
	}
	var human []string
	plugin := 0
	if _, _, err := importer.MapLines(b, 1, a.Mapper(), true, func(ev *session.Event) {
		if ev.IsHumanInstruction() {
			human = append(human, ev.Text)
		}
		if ev.Source.Kind == session.KindPlugin {
			plugin++
		}
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(human, []string{"continue"}) || plugin != 1 {
		t.Errorf("mapped back: human %q, %d plugin messages; want [continue] and the tape", human, plugin)
	}
	if w, ok := a.Writer(b[:strings.IndexByte(string(b), '\n')+1]); !ok || w.Graft != "test" {
		t.Errorf("Writer = %+v, %v", w, ok)
	}
}

// tapeTurn reads the tape of target: seq 2 .. tapeEvents, graft's user
// messages and its acknowledgement.
func tapeTurn(t *testing.T, st *session.Store, target string, tapeEvents int) *adapter.Turn {
	t.Helper()
	evs, _, err := st.ReadAll(target)
	if err != nil {
		t.Fatal(err)
	}
	turn := &adapter.Turn{}
	for _, ev := range evs {
		if ev.Seq == 1 {
			at, err := time.Parse(time.RFC3339Nano, ev.TS)
			if err != nil {
				t.Fatal(err)
			}
			turn.At = at
		}
		if ev.Seq < 2 || ev.Seq > int64(tapeEvents) {
			continue
		}
		switch ev.Type {
		case session.TypeUserMessage:
			turn.User = append(turn.User, ev.Text)
		case session.TypeAssistantMessage:
			turn.Ack = ev.Text
		}
	}
	if len(turn.User) < 2 || turn.Ack == "" {
		t.Fatalf("target %s: tape of %d user messages, ack %q", target, len(turn.User), turn.Ack)
	}
	return turn
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80]
	}
	return s
}

// TestRealQwenHandWrittenRules: what Qwen Code 0.24.4 does with a
// hand-written session that breaks doc.go's rules, and with hooks that
// answer a block.
func TestRealQwenHandWrittenRules(t *testing.T) {
	q, srv := newQwen(t)
	cwd := q.RealDir(t)
	write := func(name string, edit func(string) string) string {
		t.Helper()
		turn := &adapter.Turn{User: []string{"MARK-USER"}, Ack: "MARK-ACK", At: time.Now()}
		sid := a.ExportID(turn, "rules", name)
		data, err := a.Render(turn, sid, cwd, adapter.Made{})
		if err != nil {
			t.Fatal(err)
		}
		p := a.ExportPath(q.QwenDir, cwd, sid, turn)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(edit(string(data))), 0o600); err != nil {
			t.Fatal(err)
		}
		return sid
	}

	// An "assistant" role: qwen stops before any request.
	sid := write("assistant-role", func(s string) string { return strings.Replace(s, `"role":"model"`, `"role":"assistant"`, 1) })
	srv.Reset()
	r := q.Resume(t, sid, "continue")
	if r.ExitCode == 0 || !strings.Contains(r.Stderr, "Role must be user or model") || len(srv.Completions(t)) > 0 {
		t.Errorf("an assistant role: %s\n%s", r, srv.Describe())
	}

	// A "content" string instead of parts: the text is lost.
	sid = write("content-string", func(s string) string {
		return strings.Replace(s, `"parts":[{"text":"MARK-USER"}]`, `"content":"MARK-USER"`, 1)
	})
	srv.Reset()
	q.Resume(t, sid, "continue").Ok(t)
	turns := srv.Turns(t)
	if len(turns) != 1 || turns[0].Contains("MARK-USER") || !turns[0].Contains("MARK-ACK") {
		t.Errorf("a content string: want the ack without the user text:\n%s", srv.Describe())
	}

	// A UserPromptSubmit hook that blocks: no model request.
	q.Settings["hooks"] = hookSettings(map[string]string{
		"UserPromptSubmit": `printf '%s' '{"decision":"block","reason":"blocked by the test"}'`,
		// A PreCompact hook that asks to block, both ways Claude Code takes.
		"PreCompact": `printf '%s' '{"decision":"block","reason":"no"}'; exit 2`,
	}, 10)
	q.WriteSettings(t)
	srv.Reset()
	r = q.Print(t, "hello")
	if r.TimedOut || len(srv.Completions(t)) > 0 {
		t.Errorf("a blocked prompt reached the model: %s\n%s", r, srv.Describe())
	}

	// PreCompact cannot block: the compression's summary request is sent.
	// (Its outcome does not matter here: with the 10 tokens the fake
	// reports, qwen finds the summary "not beneficial" and exits 1.)
	srv.Reset()
	r = q.Resume(t, sid, "/compress")
	if len(srv.Compressions(t)) != 1 {
		t.Errorf("a PreCompact hook that blocks: want the compression request anyway: %s\n%s", r, srv.Describe())
	}
}
