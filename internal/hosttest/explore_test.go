package hosttest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// The checks in this file map out what the hosts accept beyond what the
// product relies on; they run only with HOSTTEST_EXPLORE=1.

type outcome struct {
	exit int      // wanted exit code
	has  []string // texts the resumed request must hold
	lost []string // texts it must not hold
	out  string   // text wanted in stdout+stderr
}

func checkOutcome(t *testing.T, srv *ModelServer, res Result, want outcome) {
	t.Helper()
	if res.ExitCode != want.exit || res.TimedOut {
		t.Fatalf("exit %d, want %d: %s", res.ExitCode, want.exit, res)
	}
	if want.out != "" && !strings.Contains(res.Stdout+res.Stderr, want.out) {
		t.Errorf("output does not say %q: %s", want.out, res)
	}
	reqs := srv.ModelRequests()
	if want.exit != 0 {
		if len(reqs) != 0 {
			t.Errorf("a failed resume sent:\n%s", srv.Describe())
		}
		return
	}
	if len(reqs) != 1 {
		t.Fatalf("want one model request:\n%s", srv.Describe())
	}
	for _, s := range want.has {
		if !reqs[0].Contains(s) {
			t.Errorf("the request lacks %q", s)
		}
	}
	for _, s := range want.lost {
		if reqs[0].Contains(s) {
			t.Errorf("the request holds %q", s)
		}
	}
}

func TestExploreClaudeTranscriptFields(t *testing.T) {
	explore(t)
	h := Install(t)
	both := outcome{has: []string{"ALPHA", "BRAVO", "continue"}}
	onlyLast := outcome{has: []string{"BRAVO", "continue"}, lost: []string{"ALPHA"}}
	notFound := outcome{exit: 1, out: "No conversation found"}
	for _, c := range []struct {
		name   string
		edit   func(lines []map[string]any) // lines[0] user ALPHA, lines[1] assistant BRAVO
		file   func(id string) string       // file name; default id+".jsonl"
		arg    func(id string) string       // --resume argument; default id
		pretty bool                         // indented JSON lines
		other  bool                         // in another project's folder
		want   outcome
	}{
		{name: "minimal", edit: func(l []map[string]any) {}, want: both},
		{name: "no message.role", edit: func(l []map[string]any) {
			delete(l[0]["message"].(map[string]any), "role")
			delete(l[1]["message"].(map[string]any), "role")
		}, want: both},
		{name: "no parentUuid on the first line", edit: func(l []map[string]any) { delete(l[0], "parentUuid") }, want: both},
		{name: "assistant content a plain string", edit: func(l []map[string]any) { l[1]["message"].(map[string]any)["content"] = "BRAVO" }, want: both},
		{name: "no timestamp on the first line", edit: func(l []map[string]any) { delete(l[0], "timestamp") }, want: both},
		{name: "no timestamp on the last line", edit: func(l []map[string]any) { delete(l[1], "timestamp") }, want: notFound},
		{name: "unparsable timestamp on the last line", edit: func(l []map[string]any) { l[1]["timestamp"] = "garbage" }, want: notFound},
		{name: "numeric timestamps", edit: func(l []map[string]any) { l[0]["timestamp"], l[1]["timestamp"] = 1, 2 }, want: both},
		{name: "date-only timestamp", edit: func(l []map[string]any) { l[1]["timestamp"] = "2026-11-01" }, want: both},
		{name: "no uuid", edit: func(l []map[string]any) { delete(l[0], "uuid"); delete(l[1], "uuid") }, want: onlyLast},
		{name: "no parentUuid link", edit: func(l []map[string]any) { delete(l[1], "parentUuid") }, want: onlyLast},
		{name: "isSidechain true on the last line", edit: func(l []map[string]any) { l[1]["isSidechain"] = true },
			want: outcome{has: []string{"ALPHA", "continue"}, lost: []string{"BRAVO"}}},
		{name: "pretty JSON", edit: func(l []map[string]any) {}, pretty: true, want: both},
		{name: "compact JSON in another project's folder", edit: func(l []map[string]any) {}, other: true, want: both},
		{name: "pretty JSON in another project's folder", edit: func(l []map[string]any) {}, other: true, pretty: true, want: notFound},
		{name: "upper-case file name", edit: func(l []map[string]any) {}, file: func(id string) string { return strings.ToUpper(id) + ".jsonl" }, want: notFound},
		{name: "upper-case --resume argument", edit: func(l []map[string]any) {}, arg: strings.ToUpper, want: notFound},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := NewModelServer(t)
			e := h.NewClaude(t, srv)
			id := newUUID(t)
			a, b := newUUID(t), newUUID(t)
			ts := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
			lines := []map[string]any{
				claudeLine("user", a, nil, ts, "ALPHA", nil),
				claudeLine("assistant", b, a, ts.Add(time.Second), []any{map[string]any{"type": "text", "text": "BRAVO"}}, nil),
			}
			c.edit(lines)
			var text strings.Builder
			for _, l := range lines {
				var bs []byte
				var err error
				if c.pretty {
					bs, err = json.MarshalIndent(l, "", "  ")
				} else {
					bs, err = json.Marshal(l)
				}
				if err != nil {
					t.Fatal(err)
				}
				text.Write(bs)
				text.WriteByte('\n')
			}
			dir := e.ProjectDir(t)
			if c.other {
				dir = filepath.Join(e.ProjectsDir(), "-some-other-project")
			}
			name := id + ".jsonl"
			if c.file != nil {
				name = c.file(id)
			}
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text.String()), 0o600); err != nil {
				t.Fatal(err)
			}
			arg := id
			if c.arg != nil {
				arg = c.arg(id)
			}
			checkOutcome(t, srv, e.Resume(t, arg, "continue"), c.want)
		})
	}
}

func TestExploreCodexRolloutFields(t *testing.T) {
	explore(t)
	h := Install(t)
	ts := time.Date(2026, 11, 1, 10, 0, 1, 0, time.UTC)
	base := func() []map[string]any {
		return []map[string]any{
			codexLine(ts, "response_item", codexMessage("user", "ALPHA")),
			codexLine(ts, "response_item", codexMessage("assistant", "BRAVO")),
		}
	}
	all := outcome{has: []string{"ALPHA", "BRAVO", "continue"}}
	bad := outcome{exit: 1, out: "does not start with session metadata"}
	type tc struct {
		name  string
		meta  map[string]any
		lines func() []map[string]any
		move  func(t *testing.T, e *CodexEnv, id, path string) // rename or move the file
		want  outcome
	}
	cases := []tc{
		{name: "minimal", want: all},
		{name: "model_provider of another provider", meta: map[string]any{"model_provider": "openai"}, want: outcome{exit: 1, out: "Cannot change this thread's model provider"}},
		{name: "id not a uuid", meta: map[string]any{"id": "not-a-uuid"}, want: bad},
		{name: "session_meta id differs from the file name", meta: map[string]any{"id": "0b0e3f51-1111-4222-8333-444455556666"}, want: all},
		{name: "a line without timestamp is dropped", lines: func() []map[string]any {
			l := base()
			delete(l[1], "timestamp")
			return l
		}, want: outcome{has: []string{"ALPHA", "continue"}, lost: []string{"BRAVO"}}},
		{name: "numeric timestamps drop the lines", lines: func() []map[string]any {
			l := base()
			l[0]["timestamp"], l[1]["timestamp"] = 1, 2
			return l
		}, want: outcome{has: []string{"continue"}, lost: []string{"ALPHA", "BRAVO"}}},
		{name: "only an event_msg user_message", lines: func() []map[string]any {
			return []map[string]any{codexLine(ts, "event_msg", map[string]any{"type": "user_message", "message": "ALPHA", "images": []any{}})}
		}, want: outcome{has: []string{"continue"}, lost: []string{"ALPHA"}}},
		{name: "file named rollout-<uuid>.jsonl", move: func(t *testing.T, e *CodexEnv, id, path string) {
			rename(t, path, filepath.Join(filepath.Dir(path), "rollout-"+id+".jsonl"))
		}, want: all},
		{name: "file in sessions/other/", move: func(t *testing.T, e *CodexEnv, id, path string) {
			if err := os.MkdirAll(filepath.Join(e.SessionsDir(), "other"), 0o700); err != nil {
				t.Fatal(err)
			}
			rename(t, path, filepath.Join(e.SessionsDir(), "other", filepath.Base(path)))
		}, want: all},
		{name: "file not named rollout-", move: func(t *testing.T, e *CodexEnv, id, path string) {
			rename(t, path, filepath.Join(filepath.Dir(path), "session-"+id+".jsonl"))
		}, want: outcome{exit: 1, out: "no rollout found"}},
		{name: "file under archived_sessions", move: func(t *testing.T, e *CodexEnv, id, path string) {
			dir := filepath.Join(e.CodexHome, "archived_sessions")
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			rename(t, path, filepath.Join(dir, filepath.Base(path)))
		}, want: outcome{exit: 1}},
	}
	for _, f := range []string{"id", "timestamp", "cwd", "originator", "cli_version"} {
		cases = append(cases, tc{name: "session_meta without " + f, meta: map[string]any{f: nil}, want: bad})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := NewModelServer(t)
			e := h.NewCodex(t, srv)
			lines := base()
			if c.lines != nil {
				lines = c.lines()
			}
			id, path := writeCodexRollout(t, e, c.meta, lines)
			if c.move != nil {
				c.move(t, e, id, path)
			}
			res := e.ExecResume(t, id, "continue")
			checkOutcome(t, srv, res, c.want)
			if res.ExitCode == 0 {
				t.Logf("session-id header %s (file id %s)", srv.ModelRequests()[0].Header.Get("session-id"), id)
			}
		})
	}
}

func rename(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}

func TestExploreClaudeAutoCompact(t *testing.T) {
	explore(t)
	h := Install(t)
	srv := NewModelServer(t)
	e := h.NewClaude(t, srv)
	log := NewHookLog(t)
	e.WriteProjectSettings(t, HooksConfig(0, hookCommands(log, nil)))
	srv.SetInputTokens(990000)
	e.Print(t, "hello").Ok(t)
	files := e.Transcripts(t)
	if len(files) != 1 {
		t.Fatalf("transcripts %v", files)
	}
	srv.Reset()
	log.Reset(t)
	srv.SetInputTokens(DefaultInputTokens)
	e.Resume(t, TranscriptID(files[0]), "again").Ok(t)
	reqs := srv.Requests()
	if len(reqs) != 2 || !reqs[0].IsClaudeCompaction() || reqs[1].IsCompaction() || !reqs[1].Contains("again") {
		t.Errorf("want a compaction, then the turn:\n%s", srv.Describe())
	}
	t.Logf("hooks: %v", log.Names(t))
	if !slices.Contains(log.Names(t), "PreCompact:auto") {
		t.Errorf("no PreCompact:auto among %v", log.Names(t))
	}
}

func TestExploreCodexCompaction(t *testing.T) {
	explore(t)
	h := Install(t)
	for _, c := range []struct {
		name       string
		preCompact string
		compacts   bool
		exit       int
	}{
		{name: "hooks observe", compacts: true},
		{name: "PreCompact decision block does not block", preCompact: `echo '{"decision":"block","reason":"NO"}'`, compacts: true},
		{name: "PreCompact exit 2 does not block", preCompact: `echo NO >&2; exit 2`, compacts: true},
		{name: "PreCompact continue false stops the turn", preCompact: `echo '{"continue":false,"stopReason":"NO"}'`, compacts: false, exit: 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := NewModelServer(t)
			e := h.NewCodex(t, srv)
			e.WriteConfig(t, "model_auto_compact_token_limit = 1000\n", "")
			log := NewHookLog(t)
			e.WriteHooks(t, HooksConfig(10, hookCommands(log, map[string]string{"PreCompact": c.preCompact})))
			srv.SetInputTokens(150000)
			e.Exec(t, "hello").Ok(t)
			files := e.Rollouts(t)
			if len(files) != 1 {
				t.Fatalf("rollouts %v", files)
			}
			srv.Reset()
			srv.SetInputTokens(DefaultInputTokens)
			res := e.ExecResume(t, RolloutID(files[0]), "again", "--dangerously-bypass-hook-trust")
			if res.ExitCode != c.exit {
				t.Errorf("exit %d, want %d: %s", res.ExitCode, c.exit, res)
			}
			t.Logf("hooks: %v\nrequests:\n%s", log.Names(t), srv.Describe())
			if got := len(srv.Compactions()); (got == 1) != c.compacts || got > 1 {
				t.Errorf("%d compaction requests", got)
			}
			if c.compacts {
				reqs := srv.Requests()
				if len(reqs) != 2 || !reqs[0].IsCodexCompaction() || !reqs[0].Contains(CodexCompactMarker) || !reqs[1].Contains("again") {
					t.Errorf("want the compaction, then the turn")
				}
				if n := countLines(t, files[0], `"type":"compacted"`); n != 1 {
					t.Errorf("%d compacted lines", n)
				}
				for _, want := range []string{"PreCompact:auto", "PostCompact:auto", "SessionStart:compact"} {
					if !slices.Contains(log.Names(t), want) {
						t.Errorf("no %s hook", want)
					}
				}
				logHookFields(t, log)
			}
		})
	}
}

// TestExploreCodexHookHash compares CodexHookTrust with the currentHash
// Codex's app-server reports from hooks/list, for hooks with and without a
// matcher and a timeout, and SessionEnd's clamped one.
func TestExploreCodexHookHash(t *testing.T) {
	explore(t)
	h := Install(t)
	srv := NewModelServer(t)
	e := h.NewCodex(t, srv)
	hooks := []CodexHook{
		{Event: "SessionStart", Matcher: "startup", Command: "echo start"},
		{Event: "Stop", Command: "echo a", Timeout: 5},
		{Event: "Stop", Index: 1, Command: "echo b"},
		{Event: "SessionEnd", Command: "echo end", Timeout: 10},
		{Event: "PreCompact", Command: `echo '{"x":"<&>"}'`, Timeout: 7},
	}
	cfg := map[string][]map[string]any{}
	for _, hk := range hooks {
		hh := map[string]any{"type": "command", "command": hk.Command}
		if hk.Timeout > 0 {
			hh["timeout"] = hk.Timeout
		}
		groups := cfg[hk.Event]
		if len(groups) == 0 {
			g := map[string]any{"hooks": []any{}}
			if hk.Matcher != "" {
				g["matcher"] = hk.Matcher
			}
			groups = append(groups, g)
		}
		groups[0]["hooks"] = append(groups[0]["hooks"].([]any), hh)
		cfg[hk.Event] = groups
	}
	e.WriteHooks(t, map[string]any{"hooks": cfg})

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.Bin, "app-server")
	cmd.Dir, cmd.Env = e.Dir, e.Environ()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	inOwnProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		killProcessGroup(cmd.Process.Pid)
		_ = cmd.Wait() // killed on purpose
	}()
	for _, msg := range []string{
		`{"id":1,"method":"initialize","params":{"clientInfo":{"name":"hosttest","version":"1"}}}`,
		`{"method":"initialized"}`,
		fmt.Sprintf(`{"id":2,"method":"hooks/list","params":{"cwds":[%q]}}`, e.Dir),
	} {
		if _, err := fmt.Fprintln(stdin, msg); err != nil {
			t.Fatal(err)
		}
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 16<<20)
	var resp struct {
		ID     int `json:"id"`
		Result struct {
			Data []struct {
				Hooks []struct {
					Key         string `json:"key"`
					CurrentHash string `json:"currentHash"`
					TrustStatus string `json:"trustStatus"`
				} `json:"hooks"`
			} `json:"data"`
		} `json:"result"`
	}
	for sc.Scan() {
		if err := json.Unmarshal(sc.Bytes(), &resp); err == nil && resp.ID == 2 {
			break
		}
	}
	if resp.ID != 2 || len(resp.Result.Data) != 1 {
		t.Fatalf("no hooks/list answer (%v)", sc.Err())
	}
	got := map[string]string{}
	for _, hk := range resp.Result.Data[0].Hooks {
		got[hk.Key] = hk.CurrentHash
		t.Logf("%s %s %s", hk.Key, hk.CurrentHash, hk.TrustStatus)
	}
	for _, hk := range hooks {
		key, hash, _ := CodexHookTrust(e.HooksPath(), hk)
		if got[key] != hash {
			t.Errorf("%s: CodexHookTrust %s, app-server %q", key, hash, got[key])
		}
	}
}

// TestExploreCodexPreCompactOutput maps what codex exec shows a person of
// a PreCompact hook's answer (issue 24, item 9): which of systemMessage,
// stopReason, plain stdout, stderr and exit codes reach its output, and
// whether the turn stops.
func TestExploreCodexPreCompactOutput(t *testing.T) {
	explore(t)
	h := Install(t)
	for _, c := range []struct{ name, cmd string }{
		{"stop with reason and message", `echo '{"continue":false,"stopReason":"STOP-REASON","systemMessage":"SYS-MESSAGE"}'`},
		{"continue with message", `echo '{"continue":true,"systemMessage":"SYS-MESSAGE"}'`},
		{"plain stdout", `echo PLAIN-STDOUT`},
		{"stderr exit 0", `echo STDERR-ZERO >&2`},
		{"stderr exit 2", `echo STDERR-TWO >&2; exit 2`},
		{"stderr exit 1", `echo STDERR-ONE >&2; exit 1`},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := NewModelServer(t)
			e := h.NewCodex(t, srv)
			e.WriteConfig(t, "model_auto_compact_token_limit = 1000\n", "")
			log := NewHookLog(t)
			e.WriteHooks(t, HooksConfig(10, map[string][]string{"PreCompact": {log.Command(c.cmd)}}))
			srv.SetInputTokens(150000)
			e.Exec(t, "hello").Ok(t)
			srv.Reset()
			srv.SetInputTokens(DefaultInputTokens)
			res := e.ExecResume(t, RolloutID(e.Rollouts(t)[0]), "again", "--dangerously-bypass-hook-trust")
			t.Logf("exit %d, compactions %d, requests %d\nstdout:\n%s\nstderr:\n%s", res.ExitCode, len(srv.Compactions()), len(srv.Requests()), res.Stdout, res.Stderr)
		})
	}
}

// TestExploreCodexPreCompactTTY: under a terminal (script(1) gives codex
// exec one), does a PreCompact hook's write to /dev/tty reach the person?
func TestExploreCodexPreCompactTTY(t *testing.T) {
	explore(t)
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("no script(1) here")
	}
	h := Install(t)
	srv := NewModelServer(t)
	e := h.NewCodex(t, srv)
	e.WriteConfig(t, "model_auto_compact_token_limit = 1000\n", "")
	log := NewHookLog(t)
	e.WriteHooks(t, HooksConfig(10, map[string][]string{"PreCompact": {log.Command(`echo TTY-TEXT > /dev/tty; echo '{"continue":false,"stopReason":"STOP"}'`)}}))
	srv.SetInputTokens(150000)
	e.Exec(t, "hello").Ok(t)
	srv.Reset()
	srv.SetInputTokens(DefaultInputTokens)
	id := RolloutID(e.Rollouts(t)[0])
	line := shellQuote(e.Bin) + " exec --dangerously-bypass-hook-trust resume --skip-git-repo-check " + id + " again"
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "script", "-qec", line, "/dev/null")
	cmd.Dir, cmd.Env = e.Dir, e.Environ()
	out, err := cmd.CombinedOutput()
	t.Logf("err %v, requests %d\n%s", err, len(srv.Requests()), out)
}

// TestExploreCodexUserPromptSubmitOutput: what codex exec shows a person of
// a UserPromptSubmit hook's answer.
func TestExploreCodexUserPromptSubmitOutput(t *testing.T) {
	explore(t)
	h := Install(t)
	for _, c := range []struct{ name, cmd string }{
		{"block with reason", `echo '{"decision":"block","reason":"BLOCK-REASON"}'`},
		{"stop with reason", `echo '{"continue":false,"stopReason":"STOP-REASON","systemMessage":"SYS-MESSAGE"}'`},
		{"exit 2 stderr", `echo STDERR-TWO >&2; exit 2`},
		{"message", `echo '{"systemMessage":"SYS-MESSAGE"}'`},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := NewModelServer(t)
			e := h.NewCodex(t, srv)
			log := NewHookLog(t)
			e.WriteHooks(t, HooksConfig(10, map[string][]string{"UserPromptSubmit": {log.Command(c.cmd)}}))
			res := e.Exec(t, "hello", "--dangerously-bypass-hook-trust")
			t.Logf("exit %d, requests %d\nstdout:\n%s\nstderr:\n%s", res.ExitCode, len(srv.Requests()), res.Stdout, res.Stderr)
		})
	}
}

// TestExploreCodexTUIPreCompact: the interactive Codex (in tmux), past its
// compaction limit, with a PreCompact hook that stops the turn: what the
// screen shows.
func TestExploreCodexTUIPreCompact(t *testing.T) {
	explore(t)
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("no tmux here")
	}
	h := Install(t)
	srv := NewModelServer(t)
	e := h.NewCodex(t, srv)
	e.WriteConfig(t, "model_auto_compact_token_limit = 1000\n", "")
	log := NewHookLog(t)
	e.WriteHooks(t, HooksConfig(10, map[string][]string{"PreCompact": {log.Command(`echo '{"continue":false,"stopReason":"STOP-REASON-TEXT","systemMessage":"SYS-MESSAGE-TEXT"}'`)}}))
	srv.SetInputTokens(150000)
	e.Exec(t, "hello").Ok(t)
	srv.Reset()
	srv.SetInputTokens(DefaultInputTokens)
	id := RolloutID(e.Rollouts(t)[0])
	sock := filepath.Join(t.TempDir(), "tmux.sock")
	tm := func(args ...string) string {
		cmd := exec.Command("tmux", append([]string{"-S", sock}, args...)...)
		cmd.Dir, cmd.Env = e.Dir, e.Environ()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Logf("tmux %v: %v %s", args, err, out)
		}
		return string(out)
	}
	defer tm("kill-server")
	var env []string
	for _, kv := range e.Environ() {
		env = append(env, "-e", kv)
	}
	tm(append(append([]string{"new-session", "-d", "-x", "160", "-y", "50"}, env...), e.Bin, "--dangerously-bypass-hook-trust", "resume", id)...)
	time.Sleep(4 * time.Second)
	t.Logf("screen before:\n%s", tm("capture-pane", "-p"))
	tm("send-keys", "again")
	time.Sleep(500 * time.Millisecond)
	tm("send-keys", "Enter")
	time.Sleep(4 * time.Second)
	t.Logf("requests %d; screen after:\n%s", len(srv.Requests()), tm("capture-pane", "-p"))
}

// A resumed export gets the project's AGENTS.md from Codex itself: a
// rollout with no turn_context (graft's export) is resumed with the
// full initial context, the instructions read from the working directory
// and the environment context (0.171.0: all present), so the tape need not
// carry the injected AGENTS.md.
func TestExploreCodexResumeAgentsMD(t *testing.T) {
	explore(t)
	h := Install(t)
	srv := NewModelServer(t)
	e := h.NewCodex(t, srv)
	if err := os.WriteFile(filepath.Join(e.Dir, "AGENTS.md"), []byte("# Rules\n\nZULU-RULE: run make lint before any commit.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ts := time.Date(2026, 11, 1, 10, 0, 1, 0, time.UTC)
	id, _ := writeCodexRollout(t, e, nil, []map[string]any{
		codexLine(ts, "response_item", codexMessage("user", "ALPHA")),
		codexLine(ts, "response_item", codexMessage("assistant", "BRAVO")),
	})
	res := e.ExecResume(t, id, "continue")
	reqs := srv.ModelRequests()
	if len(reqs) == 0 {
		t.Fatalf("no request: %+v", res)
	}
	body := string(reqs[0].Body)
	for _, want := range []string{"ALPHA", "BRAVO", "ZULU-RULE", "environment_context"} {
		if !strings.Contains(body, want) {
			t.Errorf("the resumed export's first request lacks %q (exit %d)", want, res.ExitCode)
		}
	}
}

// hookContextOf writes a hook answer for event whose additionalContext
// is tag's opening line, then lines of x and one 😀 (two UTF-16 code
// units, one rune), padded with x to units UTF-16 code units, and tag's
// closing line last; the command prints it.
func hookContextOf(t *testing.T, dir, event, tag string, units int) (cmd, text string) {
	t.Helper()
	head, tail := "<<"+tag+"-START>>\n", "\n<<"+tag+"-END>>"
	body := units - len(head) - len(tail) - 2
	var b strings.Builder
	b.WriteString(head + "😀")
	for k := 0; k < body; k++ {
		if k%100 == 99 {
			b.WriteByte('\n')
		} else {
			b.WriteByte('x')
		}
	}
	b.WriteString(tail)
	text = b.String()
	data, err := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": event, "additionalContext": text}})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, tag+".json")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return "cat " + shellQuote(p), text
}

// Claude Code keeps a command hook's additionalContext inline up to
// 10,000 UTF-16 code units (JavaScript's length), each hook's answer on
// its own; past that it writes the text to a file under the session's
// tool-results folder and gives the model "<persisted-output>", the path
// and a 2 KB preview. Both SessionStart and UserPromptSubmit, both sides
// of the boundary, and two SessionStart hooks whose contexts together
// pass it.
func TestExploreClaudeHookContextLimit(t *testing.T) {
	explore(t)
	h := Install(t)
	for _, c := range []struct {
		name                  string
		start, start2, prompt int // UTF-16 units of each hook's context
	}{
		{"SessionStart at the limit, UserPromptSubmit past it", 10000, 6000, 10001},
		{"SessionStart past the limit, UserPromptSubmit at it", 10001, 0, 10000},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := NewModelServer(t)
			e := h.NewClaude(t, srv)
			dir := t.TempDir()
			kept, filed := []string{}, []string{}
			sort := func(text string, units int) {
				if units <= 10000 {
					kept = append(kept, text)
				} else {
					filed = append(filed, text)
				}
			}
			cmds := map[string][]string{}
			for _, hk := range []struct {
				event, tag string
				units      int
			}{{"SessionStart", "START1", c.start}, {"SessionStart", "START2", c.start2}, {"UserPromptSubmit", "PROMPT", c.prompt}} {
				if hk.units == 0 {
					continue
				}
				cmd, text := hookContextOf(t, dir, hk.event, hk.tag, hk.units)
				cmds[hk.event] = append(cmds[hk.event], cmd)
				sort(text, hk.units)
			}
			e.WriteProjectSettings(t, HooksConfig(0, cmds))
			e.Print(t, "hello").Ok(t)
			reqs := srv.ModelRequests()
			if len(reqs) != 1 {
				t.Fatalf("want one model request:\n%s", srv.Describe())
			}
			for _, s := range kept {
				if !reqs[0].Contains(s) {
					first, _, _ := strings.Cut(s, "\n")
					t.Errorf("the request lacks the whole context %s", first)
				}
			}
			for _, s := range filed {
				first, _, _ := strings.Cut(s, "\n")
				end := s[strings.LastIndex(s, "\n")+1:]
				if reqs[0].Contains(end) || !reqs[0].Contains("<persisted-output>\nOutput too large") || !reqs[0].Contains(first) {
					t.Errorf("the context %s is not given as a file and its preview", first)
				}
			}
			for _, v := range reqs[0].Strings() {
				if strings.Contains(v, "<persisted-output>") {
					t.Logf("%.600s", v)
				}
			}
		})
	}
}

// Codex 0.171.0 keeps a command hook's additionalContext whole up to
// 10,000 bytes of UTF-8 (its "tokens" are 4 bytes: 2,500); past that the
// model gets "Warning: truncated output (original token count: N)", its
// head and end around " … " (about 10,000 characters in all) and "Full
// hook output saved to: <file>". SessionStart and UserPromptSubmit, both
// sides of the boundary (the 😀 is 4 bytes, 2 UTF-16 code units), and two
// SessionStart hooks whose contexts together pass it: each is kept whole
// (the limit is a hook's own).
func TestExploreCodexHookContextLimit(t *testing.T) {
	explore(t)
	h := Install(t)
	for _, c := range []struct {
		name                  string
		start, start2, prompt int // UTF-16 units; bytes are 2 more
	}{
		{"SessionStart at the limit, UserPromptSubmit past it", 9998, 6000, 9999},
		{"SessionStart past the limit, UserPromptSubmit at it", 9999, 0, 9998},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := NewModelServer(t)
			e := h.NewCodex(t, srv)
			dir := t.TempDir()
			start, startText := hookContextOf(t, dir, "SessionStart", "START", c.start)
			prompt, promptText := hookContextOf(t, dir, "UserPromptSubmit", "PROMPT", c.prompt)
			cmds := map[string][]string{"SessionStart": {start}, "UserPromptSubmit": {prompt}}
			texts := []string{startText, promptText}
			if c.start2 > 0 {
				start2, start2Text := hookContextOf(t, dir, "SessionStart", "START2", c.start2)
				cmds["SessionStart"] = append(cmds["SessionStart"], start2)
				texts = append(texts, start2Text)
			}
			e.WriteHooks(t, HooksConfig(10, cmds))
			e.Exec(t, "hello", "--dangerously-bypass-hook-trust").Ok(t)
			reqs := srv.ModelRequests()
			if len(reqs) != 1 {
				t.Fatalf("want one model request:\n%s", srv.Describe())
			}
			for _, text := range texts {
				first, _, _ := strings.Cut(text, "\n")
				if len(text) <= 10000 {
					if !reqs[0].Contains(text) {
						t.Errorf("%s (%d bytes) is not in the request whole", first, len(text))
					}
					continue
				}
				var got string
				for _, v := range reqs[0].Strings() {
					if strings.Contains(v, first) {
						got = v
					}
				}
				if reqs[0].Contains(text) || !strings.HasPrefix(got, "Warning: truncated output (original token count: ") || !strings.Contains(got, "Full hook output saved to: ") {
					t.Errorf("%s (%d bytes) is not given truncated with its file:\n%.400s", first, len(text), got)
				}
				t.Logf("%s: %d bytes given as %d bytes", first, len(text), len(got))
			}
		})
	}
}

// escapeAngles is Gemini CLI's and Qwen Code's escaping of a hook's
// additionalContext (getAdditionalContext): '<' and '>' as "&lt;" and
// "&gt;".
func escapeAngles(s string) string {
	return strings.NewReplacer("<", "&lt;", ">", "&gt;").Replace(s)
}

// checkWhole fails unless one string of reqs' bodies holds text whole.
func checkWhole(t *testing.T, reqs []Request, text string) {
	t.Helper()
	for _, r := range reqs {
		if r.Contains(text) {
			return
		}
	}
	first, _, _ := strings.Cut(text, "\n")
	t.Errorf("no request holds the whole context %s (%d chars)", first, len(text))
}

// Gemini CLI 0.61.0 does not cut a hook's additionalContext: BeforeAgent's
// (after the prompt, in <hook_context>) and SessionStart's of 60,000
// characters reach the request whole, '<' and '>' escaped.
func TestExploreGeminiHookContextLimit(t *testing.T) {
	explore(t)
	h := Install(t)
	srv := NewGeminiServer(t)
	e := h.NewGemini(t, srv)
	dir := t.TempDir()
	start, startText := hookContextOf(t, dir, "SessionStart", "START", 60000)
	before, beforeText := hookContextOf(t, dir, "BeforeAgent", "BEFORE", 60000)
	group := func(cmd string) []any {
		return []any{map[string]any{"matcher": "*", "hooks": []any{map[string]any{"type": "command", "command": cmd, "timeout": 10000}}}}
	}
	e.Settings["hooks"] = map[string]any{"SessionStart": group(start), "BeforeAgent": group(before)}
	e.Prompt(t, "hello").Ok(t)
	checkWhole(t, srv.Requests(), escapeAngles(startText))
	checkWhole(t, srv.Requests(), escapeAngles(beforeText))
}

// Qwen Code 0.24.4 does not cut a SessionStart hook's additionalContext
// (only PreCompact's, to 4,000): 60,000 characters reach the system
// prompt whole, '<' and '>' escaped.
func TestExploreQwenHookContextLimit(t *testing.T) {
	explore(t)
	h := Install(t)
	srv := NewQwenServer(t)
	e := h.NewQwen(t, srv)
	dir := t.TempDir()
	start, startText := hookContextOf(t, dir, "SessionStart", "START", 60000)
	e.Settings["hooks"] = HooksConfig(10, map[string][]string{"SessionStart": {start}})["hooks"]
	e.WriteSettings(t)
	e.Print(t, "hello").Ok(t)
	checkWhole(t, srv.Requests(), escapeAngles(startText))
}

// Which task tools the real Claude Code offers its model in -p mode, and
// what it writes for TaskCreate and TaskUpdate calls.
func TestExploreClaudeTaskTools(t *testing.T) {
	explore(t)
	h := Install(t)
	srv := NewModelServer(t)
	n := 0
	srv.SetReplyFunc(func(r Request) Reply {
		if r.IsClaudeModel() {
			t.Logf("request tools: %v", r.ClaudeTools())
		}
		if !r.IsClaudeModel() || !slices.Contains(r.ClaudeTools(), "TaskCreate") && !slices.Contains(r.ClaudeTools(), "TodoWrite") {
			return Reply{Text: "ok"}
		}
		n++
		switch n {
		case 1:
			t.Logf("tools: %v", r.ClaudeTools())
			if slices.Contains(r.ClaudeTools(), "TaskCreate") {
				return Reply{Call: &FunctionCall{Name: "TaskCreate", Arguments: `{"subject":"Write the parser","description":"Parse the config file","activeForm":"Writing the parser"}`}}
			}
			return Reply{Call: &FunctionCall{Name: "TodoWrite", Arguments: `{"todos":[{"content":"Write the parser","status":"pending","activeForm":"Writing the parser"}]}`}}
		case 2:
			return Reply{Call: &FunctionCall{Name: "TaskUpdate", Arguments: `{"taskId":"1","status":"in_progress"}`}}
		}
		return Reply{Text: "Started the parser."}
	})
	e := h.NewClaude(t, srv)
	e.Extra = append(e.Extra, strings.Fields(os.Getenv("HOSTTEST_CLAUDE_ENV"))...)
	res := e.Print(t, "Plan the parser work.")
	t.Logf("exit %d\nstdout %s\nstderr %s", res.ExitCode, res.Stdout, res.Stderr)
	for _, p := range e.Transcripts(t) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		keepTranscript(t, b)
		t.Logf("%s:\n%.3000s", p, b)
	}
}

// The tools the interactive Claude Code offers its model (a terminal).
func TestExploreClaudeInteractiveTools(t *testing.T) {
	explore(t)
	h := Install(t)
	srv := NewModelServer(t)
	srv.SetReplyFunc(func(r Request) Reply {
		if r.IsClaudeModel() {
			t.Logf("request tools: %v", r.ClaudeTools())
		}
		return Reply{Text: "ok"}
	})
	e := h.NewClaude(t, srv)
	e.TrustProject(t)
	tm, err := NewTerminal(t, e.Environ(), e.Dir, 200, 50, e.Bin)
	if err != nil {
		t.Skip(err)
	}
	screen, _ := tm.WaitFor(20*time.Second, "auto mode on")
	time.Sleep(2 * time.Second)
	t.Logf("screen:\n%s", screen)
	tm.Type("Plan the parser work.")
	screen, _ = tm.WaitFor(30*time.Second, "⏺ ok")
	t.Logf("screen:\n%s", screen)
}

// The tools the pinned Codex offers its model in codex exec.
func TestExploreCodexTools(t *testing.T) {
	explore(t)
	h := Install(t)
	srv := NewModelServer(t)
	srv.SetReplyFunc(func(r Request) Reply {
		if r.IsCodexModel() {
			t.Logf("request tools: %v", r.CodexTools())
			var body struct {
				Tools []json.RawMessage `json:"tools"`
			}
			if json.Unmarshal(r.Body, &body) == nil {
				for _, tool := range body.Tools {
					if strings.Contains(string(tool), "goal") || strings.Contains(string(tool), "plan") {
						t.Logf("tool: %s", tool)
					}
				}
			}
		}
		return Reply{Text: "ok"}
	})
	x := h.NewCodex(t, srv)
	res := x.Exec(t, "Plan the parser work.")
	t.Logf("exit %d", res.ExitCode)
}

// What the pinned Codex writes for a goal the model creates and updates.
func TestExploreCodexGoalRollout(t *testing.T) {
	explore(t)
	h := Install(t)
	srv := NewModelServer(t)
	n := 0
	srv.SetReplyFunc(func(r Request) Reply {
		if !r.IsCodexModel() || r.IsCodexCompaction() {
			return Reply{Text: "ok"}
		}
		n++
		switch n {
		case 1:
			return Reply{Call: &FunctionCall{Name: "create_goal", Arguments: `{"objective":"Port the pager to Go"}`}}
		case 2:
			t.Logf("outputs after create_goal: %s", r.CodexFunctionOutputs())
			return Reply{Call: &FunctionCall{Name: "update_goal", Arguments: `{"status":"complete"}`}}
		case 3:
			t.Logf("outputs after update_goal: %s", r.CodexFunctionOutputs())
		}
		return Reply{Text: "Done."}
	})
	x := h.NewCodex(t, srv)
	res := x.Exec(t, "Set the goal: port the pager to Go.")
	t.Logf("exit %d\n%s", res.ExitCode, res.Stderr)
	for _, p := range x.Rollouts(t) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		keepTranscript(t, b)
		for _, l := range strings.Split(string(b), "\n") {
			if strings.Contains(l, "goal") {
				t.Logf("%.900s", l)
			}
		}
	}
}

// What the pinned interactive Codex writes when the person sets a goal
// with /goal.
func TestExploreCodexGoalCommand(t *testing.T) {
	explore(t)
	h := Install(t)
	srv := NewModelServer(t)
	srv.SetReply("On it.")
	x := h.NewCodex(t, srv)
	x.Exec(t, "Hello.").Ok(t)
	id := RolloutID(x.Rollouts(t)[0])
	tm, err := NewTerminal(t, x.Environ(), x.Dir, 200, 50, x.Bin, "resume", id)
	if err != nil {
		t.Skip(err)
	}
	screen, _ := tm.WaitFor(30*time.Second, "Hello.")
	t.Logf("screen:\n%s", screen)
	tm.Type("/goal Port the pager to Go")
	screen, _ = tm.WaitFor(30*time.Second, "On it.", "goal")
	time.Sleep(3 * time.Second)
	t.Logf("screen:\n%s", tm.Screen())
	for _, p := range x.Rollouts(t) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		keepTranscript(t, b)
		for _, l := range strings.Split(string(b), "\n") {
			if strings.Contains(strings.ToLower(l), "pager") {
				t.Logf("%.900s", l)
			}
		}
	}
}

// What the interactive Claude Code writes for a message the person types
// while the agent works (queued), and for one they take back.
func TestExploreClaudeQueuedInput(t *testing.T) {
	explore(t)
	h := Install(t)
	srv := NewModelServer(t)
	var mu sync.Mutex
	n := 0
	srv.SetReplyFunc(func(r Request) Reply {
		if !r.IsClaudeModel() || !slices.Contains(r.ClaudeTools(), "Bash") {
			return Reply{Text: "ok"}
		}
		mu.Lock()
		n++
		k := n
		mu.Unlock()
		if k == 1 {
			time.Sleep(8 * time.Second) // the agent works; the person types meanwhile
			return Reply{Text: "First answer."}
		}
		return Reply{Text: "Second answer."}
	})
	e := h.NewClaude(t, srv)
	e.TrustProject(t)
	tm, err := NewTerminal(t, e.Environ(), e.Dir, 200, 50, e.Bin)
	if err != nil {
		t.Skip(err)
	}
	tm.WaitFor(20*time.Second, "auto mode on")
	time.Sleep(2 * time.Second)
	tm.Type("Write the parser.")
	time.Sleep(2 * time.Second)
	tm.Type("Also keep it under 200 lines.")
	screen, _ := tm.WaitFor(40*time.Second, "Second answer.")
	t.Logf("screen:\n%s", screen)
	for _, p := range e.Transcripts(t) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if strings.Contains(l, "200 lines") || strings.Contains(l, "queue") {
				t.Logf("%.700s", l)
			}
		}
	}
}

// What the interactive Qwen Code writes when the person adds a memory
// (/memory add) and then prompts.
func TestExploreQwenMemoryAdd(t *testing.T) {
	explore(t)
	h := Install(t)
	srv := NewQwenServer(t)
	q := h.NewQwen(t, srv)
	q.Print(t, "Hello.").Ok(t)
	id := strings.TrimSuffix(filepath.Base(q.Sessions(t)[0]), ".jsonl")
	tm, err := NewTerminal(t, q.Environ(), q.Dir, 200, 50, q.Bin, "--resume", id)
	if err != nil {
		t.Skip(err)
	}
	tm.WaitFor(30*time.Second, "Hello.")
	tm.Type("/memory add Always use pnpm, not npm")
	time.Sleep(4 * time.Second)
	tm.Type("Install the deps.")
	time.Sleep(6 * time.Second)
	t.Logf("screen:\n%s", tm.Screen())
	for _, p := range q.Sessions(t) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if strings.Contains(l, "pnpm") {
				t.Logf("%s: %.900s", filepath.Base(p), l)
			}
		}
	}
	filepath.Walk(q.Home, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && strings.HasSuffix(p, ".md") {
			b, _ := os.ReadFile(p)
			t.Logf("file %s: %.300s", p, b)
		}
		return nil
	})
}

// What the interactive Claude Code writes when the person declines a tool
// call and says what to do instead.
func TestExploreClaudeRejectionFeedback(t *testing.T) {
	explore(t)
	h := Install(t)
	srv := NewModelServer(t)
	var mu sync.Mutex
	n := 0
	srv.SetReplyFunc(func(r Request) Reply {
		if !r.IsClaudeModel() || !slices.Contains(r.ClaudeTools(), "Bash") {
			return Reply{Text: "ok"}
		}
		mu.Lock()
		n++
		k := n
		mu.Unlock()
		if k == 1 {
			return Reply{Call: &FunctionCall{Name: "Bash", Arguments: `{"command":"npm install left-pad","description":"Install left-pad"}`}}
		}
		return Reply{Text: "Understood."}
	})
	e := h.NewClaude(t, srv)
	e.TrustProject(t)
	e.WriteUserSettings(t, map[string]any{"permissions": map[string]any{"defaultMode": "default"}})
	tm, err := NewTerminal(t, e.Environ(), e.Dir, 200, 50, e.Bin)
	if err != nil {
		t.Skip(err)
	}
	screen, _ := tm.WaitFor(20*time.Second, "shift+tab")
	time.Sleep(2 * time.Second)
	tm.Type("Add left-pad.")
	screen, _ = tm.WaitFor(20*time.Second, "Do you want to proceed")
	t.Logf("screen:\n%s", screen)
	for _, k := range strings.Fields(os.Getenv("HOSTTEST_KEYS")) {
		if _, err := tm.tmux("send-keys", "-t", "0", k); err != nil {
			t.Fatal(err)
		}
		time.Sleep(500 * time.Millisecond)
	}
	time.Sleep(time.Second)
	t.Logf("screen after keys:\n%s", tm.Screen())
	tm.Type("Use pnpm, not npm.")
	screen, _ = tm.WaitFor(20*time.Second, "Understood.")
	t.Logf("screen:\n%s", screen)
	for _, p := range e.Transcripts(t) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		keepTranscript(t, b)
		for _, l := range strings.Split(string(b), "\n") {
			if strings.Contains(l, "pnpm") || strings.Contains(l, "rejected") {
				t.Logf("%.900s", l)
			}
		}
	}
}

// What the interactive Claude Code writes for a message the person sends
// while a tool call runs (mid-turn).
func TestExploreClaudeMidTurnMessage(t *testing.T) {
	explore(t)
	h := Install(t)
	srv := NewModelServer(t)
	var mu sync.Mutex
	n := 0
	srv.SetReplyFunc(func(r Request) Reply {
		if !r.IsClaudeModel() || !slices.Contains(r.ClaudeTools(), "Bash") {
			return Reply{Text: "ok"}
		}
		mu.Lock()
		n++
		k := n
		mu.Unlock()
		switch k {
		case 1:
			return Reply{Call: &FunctionCall{Name: "Bash", Arguments: `{"command":"sleep 8; echo built","description":"Build"}`}}
		case 2:
			return Reply{Text: "Build done."}
		}
		return Reply{Text: "Later answer."}
	})
	e := h.NewClaude(t, srv)
	e.TrustProject(t)
	e.WriteUserSettings(t, map[string]any{"permissions": map[string]any{"defaultMode": "default", "allow": []string{"Bash"}}})
	tm, err := NewTerminal(t, e.Environ(), e.Dir, 200, 50, e.Bin)
	if err != nil {
		t.Skip(err)
	}
	screen, _ := tm.WaitFor(20*time.Second, "for shortcuts")
	t.Logf("screen:\n%s", screen)
	time.Sleep(2 * time.Second)
	tm.Type("Build it.")
	time.Sleep(3 * time.Second)
	tm.Type("Also run the linter after.")
	screen, _ = tm.WaitFor(40*time.Second, "Build done.")
	time.Sleep(3 * time.Second)
	t.Logf("screen:\n%s", tm.Screen())
	for _, p := range e.Transcripts(t) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		keepTranscript(t, b)
		for _, l := range strings.Split(string(b), "\n") {
			if strings.Contains(l, "linter") && !strings.Contains(l, "api-request") {
				t.Logf("%.1200s", l)
			}
		}
	}
}

// What the interactive Codex writes for a message the person types while
// a command runs (a steer, mid-turn).
func TestExploreCodexMidTurnMessage(t *testing.T) {
	explore(t)
	h := Install(t)
	srv := NewModelServer(t)
	var mu sync.Mutex
	n := 0
	srv.SetReplyFunc(func(r Request) Reply {
		if !r.IsCodexModel() || r.IsCodexCompaction() {
			return Reply{Text: "ok"}
		}
		mu.Lock()
		n++
		k := n
		mu.Unlock()
		switch {
		case r.Contains("Build it.") && k == 2:
			return Reply{Call: &FunctionCall{Name: "exec_command", Arguments: `{"cmd":"sleep 8; echo built"}`}}
		case k == 3:
			return Reply{Text: "Build done."}
		}
		return Reply{Text: "Noted."}
	})
	x := h.NewCodex(t, srv)
	x.Exec(t, "Hello.").Ok(t)
	rollout := x.Rollouts(t)[0]
	tm, err := NewTerminal(t, x.Environ(), x.Dir, 200, 50, x.Bin, "resume", RolloutID(rollout))
	if err != nil {
		t.Skip(err)
	}
	tm.WaitFor(30*time.Second, "Hello.")
	tm.Type("Build it.")
	time.Sleep(3 * time.Second)
	tm.Type("Also run the linter after.")
	screen, _ := tm.WaitFor(40*time.Second, "Build done.")
	time.Sleep(4 * time.Second)
	t.Logf("screen:\n%s", tm.Screen())
	_ = screen
	tm.Quit("/quit")
	x.StopAppServer(t)
	b, err := os.ReadFile(rollout)
	if err != nil {
		t.Fatal(err)
	}
	keepTranscript(t, b)
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, "linter") {
			t.Logf("%.900s", l)
		}
	}
}

// keepTranscript writes b where HOSTTEST_KEEP names, when it does: the
// explore tests' way to hand a host's file to a person or a fixture.
func keepTranscript(t *testing.T, b []byte) {
	t.Helper()
	if out := os.Getenv("HOSTTEST_KEEP"); out != "" {
		if err := os.WriteFile(out, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}
