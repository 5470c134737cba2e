package hosttest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// The exploratory checks (field-by-field variants of hand-written files,
// auto-compaction, Codex's hook hash against its app-server) run only with
// HOSTTEST_EXPLORE=1; each is a few seconds, together too many for every
// run of go test ./....
func explore(t *testing.T) {
	t.Helper()
	if os.Getenv("HOSTTEST_EXPLORE") == "" {
		t.Skip("exploratory check of the real hosts; set HOSTTEST_EXPLORE=1 to run it")
	}
}

func TestClaudeProjectDirNameRule(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"/tmp/p/a_b.c", "-tmp-p-a-b-c"},
		{"/x/é", "-x--"},
		{"/x/😀", "-x---"}, // two UTF-16 units
	} {
		if got := ClaudeProjectDirName(c.in); got != c.want {
			t.Errorf("ClaudeProjectDirName(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	long := "/" + strings.Repeat("abcdefghij/", 25)
	got := ClaudeProjectDirName(long)
	if !strings.HasPrefix(got, ClaudeProjectDirName(long[:200])+"-") || len(got) <= 201 {
		t.Errorf("a %d-character path gives %q: want its first 200 characters encoded, '-' and a hash", len(long), got)
	}
}

func TestInstalledVersions(t *testing.T) {
	h := Install(t)
	srv := NewModelServer(t)
	if os.Getenv(NodeDirEnv) == "" && (h.ClaudeVersion != ClaudeVersion || h.CodexVersion != CodexVersion) {
		t.Errorf("the pinned lock installs Claude Code %s and Codex %s, want %s and %s", h.ClaudeVersion, h.CodexVersion, ClaudeVersion, CodexVersion)
	}
	c := h.NewClaude(t, srv).Run(t, "--version").Ok(t)
	if !strings.Contains(c.Stdout, h.ClaudeVersion) {
		t.Errorf("claude --version: %q, want %s", c.Stdout, h.ClaudeVersion)
	}
	x := h.NewCodex(t, srv).Run(t, "--version").Ok(t)
	if !strings.Contains(x.Stdout, h.CodexVersion) {
		t.Errorf("codex --version: %q, want %s", x.Stdout, h.CodexVersion)
	}
	if len(srv.Requests()) != 0 {
		t.Errorf("--version sent requests:\n%s", srv.Describe())
	}
}

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

func TestClaudeOneTurn(t *testing.T) {
	h := Install(t)
	srv := NewModelServer(t)
	srv.SetReply("REPLY-FROM-FAKE")
	e := h.NewClaude(t, srv)
	res := e.Print(t, "hello").Ok(t)
	if !strings.Contains(res.Stdout, "REPLY-FROM-FAKE") {
		t.Errorf("stdout %q does not hold the fake's reply", res.Stdout)
	}
	reqs := srv.ModelRequests()
	if len(reqs) != 1 || len(srv.Requests()) != 1 {
		t.Fatalf("want exactly one request, a model request; got:\n%s", srv.Describe())
	}
	r := reqs[0]
	if !r.IsClaudeModel() || r.RawQuery != "beta=true" || !r.Contains("hello") || r.IsCompaction() {
		t.Errorf("the request: %s %s?%s, contains hello %v, compaction %v", r.Method, r.Path, r.RawQuery, r.Contains("hello"), r.IsCompaction())
	}
	if got := r.Header.Get("x-api-key"); got != "sk-hosttest" {
		t.Errorf("x-api-key %q: the throw-away key did not reach the server", got)
	}
	files := e.Transcripts(t)
	if len(files) != 1 {
		t.Fatalf("transcripts under %s: %v, want one", e.ProjectsDir(), files)
	}
	id := TranscriptID(files[0])
	if filepath.Dir(files[0]) != e.ProjectDir(t) || !uuidRE.MatchString(id) {
		t.Errorf("transcript %s: want <lower-case uuid>.jsonl in %s", files[0], e.ProjectDir(t))
	}
	if got := r.Header.Get("X-Claude-Code-Session-Id"); got != id {
		t.Errorf("X-Claude-Code-Session-Id %q, transcript id %q", got, id)
	}
}

func TestCodexOneTurn(t *testing.T) {
	h := Install(t)
	srv := NewModelServer(t)
	srv.SetReply("REPLY-FROM-FAKE")
	e := h.NewCodex(t, srv)
	res := e.Exec(t, "hello").Ok(t)
	if !strings.Contains(res.Stdout, "REPLY-FROM-FAKE") {
		t.Errorf("stdout %q does not hold the fake's reply", res.Stdout)
	}
	reqs := srv.ModelRequests()
	if len(reqs) != 1 || len(srv.Requests()) != 1 {
		t.Fatalf("want exactly one request, a model request; got:\n%s", srv.Describe())
	}
	r := reqs[0]
	if !r.IsCodexModel() || !r.Contains("hello") || r.IsCompaction() || r.CodexTurnMetadata()["request_kind"] != "turn" {
		t.Errorf("the request: %s %s, contains hello %v, metadata %v", r.Method, r.Path, r.Contains("hello"), r.CodexTurnMetadata())
	}
	files := e.Rollouts(t)
	if len(files) != 1 {
		t.Fatalf("rollouts under %s: %v, want one", e.SessionsDir(), files)
	}
	rel, err := filepath.Rel(e.SessionsDir(), files[0])
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^\d{4}/\d{2}/\d{2}/rollout-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-[0-9a-f-]{36}\.jsonl$`).MatchString(filepath.ToSlash(rel)) {
		t.Errorf("rollout %s: want YYYY/MM/DD/rollout-<YYYY-MM-DDThh-mm-ss>-<uuid>.jsonl", rel)
	}
	if id := RolloutID(files[0]); r.Header.Get("session-id") != id || !uuidRE.MatchString(id) {
		t.Errorf("rollout id %q, session-id header %q", id, r.Header.Get("session-id"))
	}
	first := readJSONL(t, files[0])[0]
	if first["type"] != "session_meta" {
		t.Errorf("first rollout line: %v", first)
	}
}

// --- Claude Code: a transcript another program wrote ---------------------

func newUUID(t testing.TB) string {
	t.Helper()
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// claudeLine is one hand-written transcript record: the fields a program
// writing a Claude Code session needs, and optional extras.
func claudeLine(typ, id string, parent any, ts time.Time, content any, extra map[string]any) map[string]any {
	m := map[string]any{
		"type":       typ,
		"uuid":       id,
		"parentUuid": parent,
		"timestamp":  ts.UTC().Format("2006-01-02T15:04:05.000Z"),
		"message":    map[string]any{"role": typ, "content": content},
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// writeClaudeTranscript writes turns as a chain of compact JSON lines into
// the project folder of e.Dir and returns the new session id. A user turn's
// text is a plain string when plainUser, else a text block; an assistant's
// is always a text block.
func writeClaudeTranscript(t *testing.T, e *ClaudeEnv, turns [][2]string, plainUser bool, extra func(id string) map[string]any) string {
	t.Helper()
	id := newUUID(t)
	var buf bytes.Buffer
	var parent any
	ts := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	for i, turn := range turns {
		var content any = []any{map[string]any{"type": "text", "text": turn[1]}}
		if turn[0] == "user" && plainUser {
			content = turn[1]
		}
		u := newUUID(t)
		var ex map[string]any
		if extra != nil {
			ex = extra(id)
		}
		b, err := json.Marshal(claudeLine(turn[0], u, parent, ts.Add(time.Duration(i)*time.Second), content, ex))
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
		parent = u
	}
	dir := e.ProjectDir(t)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return id
}

// messageTexts are the texts of each message (Claude: messages[i]; Codex:
// input[i]) of a model request, each message's strings joined.
func messageTexts(t *testing.T, r Request) []string {
	t.Helper()
	var body struct {
		Messages []json.RawMessage `json:"messages"`
		Input    []json.RawMessage `json:"input"`
	}
	if err := r.JSON(&body); err != nil {
		t.Fatalf("request body: %v", err)
	}
	var out []string
	for _, m := range append(body.Messages, body.Input...) {
		out = append(out, strings.Join(jsonStrings(m), "\n"))
	}
	return out
}

// inOrder checks that each of texts appears in a message of r, each in a
// later message than the one before.
func inOrder(t *testing.T, r Request, texts ...string) {
	t.Helper()
	msgs := messageTexts(t, r)
	at := -1
	for _, s := range texts {
		i := slices.IndexFunc(msgs[at+1:], func(m string) bool { return strings.Contains(m, s) })
		if i < 0 {
			t.Errorf("%q is not in a message after #%d of the request; messages:\n%s", s, at, describeMessages(msgs))
			return
		}
		at += 1 + i
	}
}

func describeMessages(msgs []string) string {
	var b strings.Builder
	for i, m := range msgs {
		if len(m) > 100 {
			m = m[:100] + "…"
		}
		fmt.Fprintf(&b, "  #%d %q\n", i, m)
	}
	return b.String()
}

func TestClaudeResumesHandWrittenTranscript(t *testing.T) {
	h := Install(t)
	both := [][2]string{
		{"user", "ALPHA first question"},
		{"assistant", "BRAVO first answer"},
		{"user", "CHARLIE injected note"},
		{"assistant", "DELTA second answer"},
	}
	cases := []struct {
		name      string
		turns     [][2]string
		plainUser bool
		extra     func(id string) map[string]any
	}{
		// type, uuid, parentUuid, timestamp, message{role, content} only.
		{name: "minimal fields", turns: both},
		{name: "minimal fields, user content a plain string", turns: both, plainUser: true},
		// user, assistant, then another user line (an injected message):
		// Claude adds a synthetic assistant "No response requested." and
		// then the new prompt.
		{name: "ends with an injected user line", turns: both[:3], plainUser: true},
		{name: "ends with an injected isMeta user line", turns: both[:3], extra: nil},
		{name: "with the session fields Claude writes", turns: both, extra: func(id string) map[string]any {
			return map[string]any{"sessionId": id, "cwd": "/nonexistent/elsewhere", "version": ClaudeVersion, "userType": "external", "isSidechain": false}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := NewModelServer(t)
			e := h.NewClaude(t, srv)
			id := writeClaudeTranscript(t, e, c.turns, c.plainUser, c.extra)
			if c.name == "ends with an injected isMeta user line" {
				markLastLine(t, filepath.Join(e.ProjectDir(t), id+".jsonl"), "isMeta", true)
			}
			e.Resume(t, id, "continue").Ok(t)
			reqs := srv.ModelRequests()
			if len(reqs) != 1 {
				t.Fatalf("want one model request:\n%s", srv.Describe())
			}
			var texts []string
			for _, turn := range c.turns {
				texts = append(texts, turn[1])
			}
			inOrder(t, reqs[0], append(texts, "continue")...)
			// Claude appends the new turn to the same file, chained on.
			var found bool
			for _, m := range readJSONL(t, filepath.Join(e.ProjectDir(t), id+".jsonl"))[len(c.turns):] {
				if m["type"] == "user" && strings.Contains(fmt.Sprint(m["message"]), "continue") {
					found = true
				}
			}
			if !found || len(e.Transcripts(t)) != 1 {
				t.Errorf("the resumed turn is not in the hand-written file; transcripts %v", e.Transcripts(t))
			}
		})
	}
}

func markLastLine(t *testing.T, path, key string, value any) {
	t.Helper()
	lines := readJSONL(t, path)
	lines[len(lines)-1][key] = value
	var buf bytes.Buffer
	for _, l := range lines {
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(append(b, '\n'))
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}

func readJSONL(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 256<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%s: line %q: %v", path, sc.Bytes(), err)
		}
		out = append(out, m)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// --- Codex: a rollout another program wrote -------------------------------

func codexLine(ts time.Time, typ string, payload map[string]any) map[string]any {
	return map[string]any{"timestamp": ts.UTC().Format("2006-01-02T15:04:05.000Z"), "type": typ, "payload": payload}
}

func codexMessage(role, text string) map[string]any {
	kind := "input_text"
	if role == "assistant" {
		kind = "output_text"
	}
	return map[string]any{"type": "message", "role": role, "content": []any{map[string]any{"type": kind, "text": text}}}
}

// writeCodexRollout writes a rollout for e: session_meta with meta (id,
// timestamp, cwd, originator, cli_version unless meta overrides them), then
// lines, under sessions/2026/11/01/rollout-2026-11-01T10-00-00-<id>.jsonl.
func writeCodexRollout(t *testing.T, e *CodexEnv, meta map[string]any, lines []map[string]any) (id, path string) {
	t.Helper()
	id = newUUID(t)
	ts := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	m := map[string]any{"id": id, "timestamp": ts.Format("2006-01-02T15:04:05.000Z"), "cwd": e.Dir, "originator": "graft-hosttest", "cli_version": CodexVersion}
	for k, v := range meta {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	var buf bytes.Buffer
	for _, l := range append([]map[string]any{codexLine(ts, "session_meta", m)}, lines...) {
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(append(b, '\n'))
	}
	dir := filepath.Join(e.SessionsDir(), "2026", "11", "01")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(dir, "rollout-2026-11-01T10-00-00-"+id+".jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return id, path
}

func TestCodexResumesHandWrittenRollout(t *testing.T) {
	h := Install(t)
	ts := time.Date(2026, 11, 1, 10, 0, 1, 0, time.UTC)
	items := []map[string]any{
		codexLine(ts, "response_item", codexMessage("user", "ALPHA first question")),
		codexLine(ts, "response_item", codexMessage("assistant", "BRAVO first answer")),
		codexLine(ts, "response_item", codexMessage("user", "CHARLIE injected note")),
	}
	withEvent := slices.Insert(slices.Clone(items), 1, codexLine(ts, "event_msg", map[string]any{"type": "user_message", "message": "ALPHA first question", "images": []any{}}))
	for _, c := range []struct {
		name  string
		meta  map[string]any
		lines []map[string]any
	}{
		{name: "minimal session_meta, response items only", lines: items},
		{name: "with a user_message event", lines: withEvent},
		{name: "with source and model_provider", meta: map[string]any{"source": "cli", "model_provider": "mock"}, lines: withEvent},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := NewModelServer(t)
			e := h.NewCodex(t, srv)
			id, path := writeCodexRollout(t, e, c.meta, c.lines)
			e.ExecResume(t, id, "continue").Ok(t)
			reqs := srv.ModelRequests()
			if len(reqs) != 1 {
				t.Fatalf("want one model request:\n%s", srv.Describe())
			}
			inOrder(t, reqs[0], "ALPHA first question", "BRAVO first answer", "CHARLIE injected note", "continue")
			if got := reqs[0].Header.Get("session-id"); got != id {
				t.Errorf("session-id %q, want the hand-written id %s", got, id)
			}
			if files := e.Rollouts(t); len(files) != 1 || files[0] != path || len(readJSONL(t, path)) <= 1+len(c.lines) {
				t.Errorf("Codex did not append the resumed turn to %s: rollouts %v", path, files)
			}
		})
	}
}

// --- The Claude project folder name --------------------------------------

func TestClaudeProjectDirOfRealBinary(t *testing.T) {
	h := Install(t)
	base := t.TempDir()
	long := filepath.Join(base, strings.Repeat("d", 90), strings.Repeat("e", 90), "f")
	for _, c := range []struct{ name, real string }{
		{"punctuation and non-ASCII through a symlink", filepath.Join(base, "real", "a_b.c é😀")},
		{"longer than 200 characters", long},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := os.MkdirAll(c.real, 0o700); err != nil {
				t.Fatal(err)
			}
			srv := NewModelServer(t)
			e := h.NewClaude(t, srv)
			e.Dir = c.real
			if strings.Contains(c.name, "symlink") {
				link := filepath.Join(base, "link")
				if err := os.Symlink(filepath.Dir(c.real), link); err != nil {
					t.Fatal(err)
				}
				e.Dir = filepath.Join(link, filepath.Base(c.real))
			}
			e.Print(t, "hello").Ok(t)
			real, err := filepath.EvalSymlinks(c.real)
			if err != nil {
				t.Fatal(err)
			}
			want := filepath.Join(e.ProjectsDir(), ClaudeProjectDirName(real))
			files := e.Transcripts(t)
			if len(files) != 1 || filepath.Dir(files[0]) != want {
				t.Fatalf("transcripts %v, want one in %s", files, want)
			}
		})
	}
}

// --- Hooks ---------------------------------------------------------------

var hookEvents = []string{"SessionStart", "UserPromptSubmit", "Stop", "PreCompact", "PostCompact", "SessionEnd"}

func hookCommands(log *HookLog, then map[string]string) map[string][]string {
	m := map[string][]string{}
	for _, ev := range hookEvents {
		m[ev] = []string{log.Command(then[ev])}
	}
	return m
}

// logHookFields records, for the report, the field names of each hook
// input seen.
func logHookFields(t *testing.T, log *HookLog) {
	t.Helper()
	for _, ev := range log.Events(t) {
		var keys []string
		for k := range ev {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		t.Logf("%v: %s", ev["hook_event_name"], strings.Join(keys, ", "))
	}
}

func checkCommonHookFields(t *testing.T, log *HookLog, transcript string) {
	t.Helper()
	for _, ev := range log.Events(t) {
		for _, k := range []string{"session_id", "transcript_path", "cwd", "hook_event_name"} {
			if _, ok := ev[k]; !ok {
				t.Errorf("hook input %v has no %s", ev, k)
			}
		}
		if transcript != "" && ev["transcript_path"] != transcript {
			t.Errorf("%v: transcript_path %v, want %s", ev["hook_event_name"], ev["transcript_path"], transcript)
		}
	}
}

func countLines(t *testing.T, path, substr string) int {
	t.Helper()
	n := 0
	for _, m := range readJSONL(t, path) {
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), substr) {
			n++
		}
	}
	return n
}

func TestClaudeHooks(t *testing.T) {
	h := Install(t)
	t.Run("plain turn, then /compact on resume", func(t *testing.T) {
		srv := NewModelServer(t)
		e := h.NewClaude(t, srv)
		log := NewHookLog(t)
		e.WriteProjectSettings(t, HooksConfig(0, hookCommands(log, nil)))
		e.Print(t, "hello").Ok(t)
		if got, want := log.Names(t), []string{"SessionStart:startup", "UserPromptSubmit", "Stop", "SessionEnd"}; !slices.Equal(got, want) {
			t.Errorf("claude -p hooks: %v, want %v", got, want)
		}
		files := e.Transcripts(t)
		if len(files) != 1 {
			t.Fatalf("transcripts %v", files)
		}
		checkCommonHookFields(t, log, files[0])
		logHookFields(t, log)

		log.Reset(t)
		srv.Reset()
		e.Resume(t, TranscriptID(files[0]), "/compact").Ok(t)
		want := []string{"SessionStart:resume", "PreCompact:manual", "SessionStart:compact", "PostCompact:manual", "SessionEnd"}
		if got := log.Names(t); !slices.Equal(got, want) {
			t.Errorf("claude -p --resume <id> /compact hooks: %v, want %v", got, want)
		}
		checkCommonHookFields(t, log, files[0])
		logHookFields(t, log)
		if c := srv.Compactions(); len(c) != 1 || len(srv.Requests()) != 1 || !c[0].Contains("hello") {
			t.Errorf("want exactly one request, the compaction of the conversation:\n%s", srv.Describe())
		}
		if n := countLines(t, files[0], `"subtype":"compact_boundary"`); n != 1 {
			t.Errorf("%d compact_boundary records after /compact, want 1", n)
		}
		if n := countLines(t, files[0], DefaultSummary); n == 0 {
			t.Errorf("the fake's summary is not in the transcript")
		}
	})
	t.Run("PreCompact decision block", func(t *testing.T) {
		srv := NewModelServer(t)
		e := h.NewClaude(t, srv)
		log := NewHookLog(t)
		block := `echo '{"decision":"block","reason":"BLOCKED-BY-HOSTTEST"}'`
		e.WriteProjectSettings(t, HooksConfig(0, hookCommands(log, map[string]string{"PreCompact": block})))
		e.Print(t, "hello").Ok(t)
		files := e.Transcripts(t)
		if len(files) != 1 {
			t.Fatalf("transcripts %v", files)
		}
		srv.Reset()
		log.Reset(t)
		res := e.Resume(t, TranscriptID(files[0]), "/compact")
		// A blocked compaction is no error: exit 0.
		if res.ExitCode != 0 || !strings.Contains(res.Stdout, "Compaction blocked by PreCompact hook") || !strings.Contains(res.Stdout, "BLOCKED-BY-HOSTTEST") {
			t.Errorf("blocked /compact: %s", res)
		}
		if len(srv.Requests()) != 0 {
			t.Errorf("a blocked compaction still sent:\n%s", srv.Describe())
		}
		if n := countLines(t, files[0], `"subtype":"compact_boundary"`); n != 0 {
			t.Errorf("%d compact_boundary records after a blocked /compact", n)
		}
		if got, want := log.Names(t), []string{"SessionStart:resume", "PreCompact:manual", "SessionEnd"}; !slices.Equal(got, want) {
			t.Errorf("hooks of a blocked /compact: %v, want %v", got, want)
		}
	})
}

func TestCodexHooks(t *testing.T) {
	h := Install(t)
	srv := NewModelServer(t)
	e := h.NewCodex(t, srv)
	log := NewHookLog(t)
	cmds := hookCommands(log, nil)
	e.WriteHooks(t, HooksConfig(10, cmds))
	plain := []string{"SessionStart:startup", "UserPromptSubmit", "Stop", "SessionEnd"}

	before, err := os.ReadFile(e.ConfigPath())
	if err != nil {
		t.Fatal(err)
	}
	e.Exec(t, "hello").Ok(t)
	if got := log.Names(t); len(got) != 0 {
		t.Errorf("untrusted hooks ran: %v", got)
	}

	log.Reset(t)
	res := e.Exec(t, "hello", "--dangerously-bypass-hook-trust").Ok(t)
	if got := log.Names(t); !slices.Equal(got, plain) {
		t.Errorf("hooks with --dangerously-bypass-hook-trust: %v, want %v\n%s", got, plain, res)
	}
	checkCommonHookFields(t, log, "")
	logHookFields(t, log)
	if after, err := os.ReadFile(e.ConfigPath()); err != nil || !bytes.Equal(before, after) {
		t.Errorf("--dangerously-bypass-hook-trust changed config.toml (%v):\n%s", err, after)
	}

	// Trust written the way an installer would: [hooks.state."<key>"]
	// trusted_hash = "sha256:…" per hook.
	var tables strings.Builder
	for _, ev := range hookEvents {
		_, _, toml := CodexHookTrust(e.HooksPath(), CodexHook{Event: ev, Command: cmds[ev][0], Timeout: 10})
		tables.WriteString(toml)
	}
	e.WriteConfig(t, "", tables.String())
	log.Reset(t)
	e.Exec(t, "hello").Ok(t)
	if got := log.Names(t); !slices.Equal(got, plain) {
		t.Errorf("hooks trusted in config.toml: %v, want %v\nconfig.toml tables:\n%s", got, plain, tables.String())
	}

	// notify needs no trust: it runs after the turn with one JSON argument.
	notifyLog := filepath.Join(t.TempDir(), "notify.log")
	argv, err := json.Marshal([]string{"sh", "-c", `printf '%s\n' "$1" >> "$0"`, notifyLog})
	if err != nil {
		t.Fatal(err)
	}
	e.WriteConfig(t, "notify = "+string(argv)+"\n", "")
	log.Reset(t)
	e.Exec(t, "hello").Ok(t)
	lines := readJSONL(t, notifyLog)
	if len(lines) != 1 || lines[0]["type"] != "agent-turn-complete" || lines[0]["cwd"] != e.Dir || lines[0]["last-assistant-message"] != DefaultReply {
		t.Errorf("notify: %v", lines)
	} else {
		var keys []string
		for k := range lines[0] {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		t.Logf("notify argument: %s", strings.Join(keys, ", "))
	}
	if len(srv.Others()) != 0 {
		t.Errorf("requests other than model requests:\n%s", srv.Describe())
	}
}

// TestProxyGuard points each host at a model API on another machine: the
// request must arrive at the fake server as a refused proxy request (both
// hosts honour HTTPS_PROXY), not leave the machine. Both retry; the run is
// stopped at the first refused request.
func TestProxyGuard(t *testing.T) {
	h := Install(t)
	check := func(t *testing.T, srv *ModelServer, run func(context.Context) Result) {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			for ctx.Err() == nil && len(srv.Foreign()) == 0 {
				time.Sleep(50 * time.Millisecond)
			}
			cancel()
		}()
		res := run(ctx)
		f := srv.Foreign()
		if res.ExitCode == 0 || len(f) == 0 || len(srv.ModelRequests()) != 0 {
			t.Fatalf("a host aimed at another machine: %s\nrequests:\n%s", res, srv.Describe())
		}
		if f[0].Method != "CONNECT" || f[0].Host != "api.hosttest.invalid:443" {
			t.Errorf("the refused request: %s %s", f[0].Method, f[0].Host)
		}
	}
	t.Run("claude", func(t *testing.T) {
		srv := NewModelServer(t)
		e := h.NewClaude(t, srv)
		e.Extra = []string{"ANTHROPIC_BASE_URL=https://api.hosttest.invalid"}
		check(t, srv, func(ctx context.Context) Result { return e.RunContext(ctx, t, "-p", "hello") })
	})
	t.Run("codex", func(t *testing.T) {
		srv := NewModelServer(t)
		e := h.NewCodex(t, srv)
		b, err := os.ReadFile(e.ConfigPath())
		if err != nil {
			t.Fatal(err)
		}
		cfg := strings.Replace(string(b), srv.URL+"/v1", "https://api.hosttest.invalid/v1", 1)
		if cfg == string(b) {
			t.Fatal("the base_url is not in config.toml")
		}
		if err := os.WriteFile(e.ConfigPath(), []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		check(t, srv, func(ctx context.Context) Result {
			return e.RunContext(ctx, t, "exec", "--skip-git-repo-check", "hello")
		})
	})
}
