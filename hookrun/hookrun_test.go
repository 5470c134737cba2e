package hookrun_test

import (
	"encoding/json"
	"github.com/graft-project/graft/session"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/hookrun"
	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/internal/testfixtures"
	"github.com/graft-project/graft/lockfile"
)

const uuid = "0f3c9a52-6f0e-4c1b-9a57-1d2e3f4a5b6c"

// transcript copies a real Claude Code transcript under a session uuid.
func transcript(t *testing.T) string {
	return transcriptOf(t, "tool_heavy.jsonl")
}

// transcriptOf copies a fixture where Claude Code keeps its transcripts:
// <config>/projects/<folder>/<uuid>.jsonl, with CLAUDE_CONFIG_DIR set to
// <config> for the test (a hook takes transcript_path only under the
// host's own root).
func transcriptOf(t *testing.T, fixture string) string {
	t.Helper()
	data, err := os.ReadFile(testfixtures.Path(t, "claude-code", fixture))
	if err != nil {
		t.Fatal(err)
	}
	cfg := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", cfg)
	proj := filepath.Join(cfg, "projects", "-w")
	if err := os.MkdirAll(proj, 0o700); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(proj, uuid+".jsonl")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// configOf is the Claude Code config directory transcriptOf put path in.
func configOf(path string) string { return filepath.Dir(filepath.Dir(filepath.Dir(path))) }

func opener(home string) func() (*graft.Service, error) {
	return func() (*graft.Service, error) { return graft.Open(home, graft.Options{}) }
}

func input(event, path string, extra string) []byte {
	return []byte(`{"session_id":"` + uuid + `","transcript_path":"` + path + `","cwd":"` + filepath.Dir(path) + `","hook_event_name":"` + event + `"` + extra + `}`)
}

func TestParseRefusesWhatIsNotAHookInput(t *testing.T) {
	for _, c := range []struct {
		name  string
		stdin string
		args  []string
		host  hosts.Host
	}{
		{"not JSON", `{not json}`, nil, hosts.ClaudeCode},
		{"an array", `[]`, nil, hosts.ClaudeCode},
		{"two values", `{"hook_event_name":"Stop","session_id":"x"}{}`, nil, hosts.ClaudeCode},
		{"no event", `{"session_id":"x"}`, nil, hosts.ClaudeCode},
		{"an event graft ignores", `{"hook_event_name":"SessionEnd","session_id":"x"}`, nil, hosts.ClaudeCode},
		{"no session", `{"hook_event_name":"Stop"}`, nil, hosts.ClaudeCode},
		{"arguments to claude", `{}`, []string{"x"}, hosts.ClaudeCode},
		{"bad notify", ``, []string{`{"type":"other","thread-id":"t"}`}, hosts.Codex},
		{"notify not JSON", ``, []string{`nope`}, hosts.Codex},
	} {
		if in, err := hookrun.Parse(c.host, []byte(c.stdin), c.args); err == nil {
			t.Errorf("%s: Parse = %+v, want an error", c.name, in)
		}
	}
	in, err := hookrun.Parse(hosts.Codex, nil, []string{`{"type":"agent-turn-complete","thread-id":"` + uuid + `","cwd":"/w"}`})
	if err != nil || in.HookEventName != hookrun.Stop || in.SessionID != uuid || in.Cwd != "/w" {
		t.Errorf("notify: %+v %v, want a Stop of the thread", in, err)
	}
}

// TestMalformedInputWritesNothing: the service is never opened, so the
// home is not even created.
func TestMalformedInputWritesNothing(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	if _, err := hookrun.Parse(hosts.ClaudeCode, []byte(`{oops`), nil); err == nil {
		t.Fatal("malformed input parsed")
	}
	if _, err := os.Stat(home); !os.IsNotExist(err) {
		t.Fatalf("home exists after a malformed hook input: %v", err)
	}
}

func TestStopFollowsAndSuggestsAHandoffPastAutoGraft(t *testing.T) {
	home, path := t.TempDir(), transcript(t)
	in, err := hookrun.Parse(hosts.ClaudeCode, input(hookrun.Stop, path, ""), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := hookrun.Run(hosts.ClaudeCode, in, opener(home), hookrun.Settings{})
	if len(out.Stdout) != 0 || len(out.Stderr) != 0 || out.Session != uuid {
		t.Fatalf("Stop without autoGraft: %+v, want a silent follow into %s", out, uuid)
	}
	svc, err := graft.Open(home, graft.Options{})
	if err != nil {
		t.Fatal(err)
	}
	info, err := sessionsOf(t, svc).Info(uuid)
	if err != nil || info.LastSeq == 0 {
		t.Fatalf("the transcript was not followed: %v %+v", err, info)
	}
	// The fixture's last reply reports its usage; a threshold below it fires.
	tokens, ok, err := hosts.ContextTokens(hosts.ClaudeCode, path)
	if err != nil || !ok {
		t.Fatalf("fixture usage: %d %v %v", tokens, ok, err)
	}
	out = hookrun.Run(hosts.ClaudeCode, in, opener(home), hookrun.Settings{AutoGraft: tokens + 1})
	if len(out.Stdout) != 0 {
		t.Fatalf("below autoGraft the hook said %s", out.Stdout)
	}
	out = hookrun.Run(hosts.ClaudeCode, in, opener(home), hookrun.Settings{AutoGraft: tokens})
	var msg struct {
		SystemMessage string `json:"systemMessage"`
	}
	if err := json.Unmarshal(out.Stdout, &msg); err != nil || !strings.Contains(msg.SystemMessage, "handoff claude-code --session-id "+uuid) || !strings.Contains(msg.SystemMessage, "prep-") {
		t.Fatalf("past autoGraft: stdout %s (%v), want a systemMessage with the handoff command and the review id", out.Stdout, err)
	}
}

func TestPreCompactInterceptsWithAHandoff(t *testing.T) {
	home, path := t.TempDir(), transcript(t)
	t.Setenv("CLAUDE_CONFIG_DIR", configOf(path))
	in, err := hookrun.Parse(hosts.ClaudeCode, input(hookrun.PreCompact, path, `,"trigger":"manual"`), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Off: follows, never blocks.
	out := hookrun.Run(hosts.ClaudeCode, in, opener(home), hookrun.Settings{})
	if len(out.Stdout) != 0 {
		t.Fatalf("PreCompact without interception printed %s", out.Stdout)
	}
	// A failing handoff (the cwd is gone) does not block either.
	bad := *in
	bad.Cwd = filepath.Join(t.TempDir(), "gone")
	out = hookrun.Run(hosts.ClaudeCode, &bad, opener(home), hookrun.Settings{InterceptCompaction: true})
	if len(out.Stdout) != 0 || len(out.Stderr) != 1 || !strings.Contains(out.Stderr[0], "the compaction goes on") {
		t.Fatalf("failed handoff: stdout %s stderr %q, want no decision and one line", out.Stdout, out.Stderr)
	}
	out = hookrun.Run(hosts.ClaudeCode, in, opener(home), hookrun.Settings{InterceptCompaction: true})
	var d struct{ Decision, Reason string }
	if err := json.Unmarshal(out.Stdout, &d); err != nil || d.Decision != "block" || !strings.Contains(d.Reason, "claude --resume ") {
		t.Fatalf("intercepted PreCompact: %s (%v) stderr %q, want a block naming the resume command", out.Stdout, err, out.Stderr)
	}
	bs, err := hosts.List(sessionsOf(t, mustOpen(t, home)).FS, home)
	if err != nil || len(bs) != 2 {
		t.Fatalf("bindings %+v %v, want the imported and the exported host session", bs, err)
	}
	// A second PreCompact of the handed-off session: no second handoff.
	out = hookrun.Run(hosts.ClaudeCode, in, opener(home), hookrun.Settings{InterceptCompaction: true})
	if len(out.Stdout) != 0 || len(out.Stderr) == 0 {
		t.Fatalf("PreCompact of a handed-off session: stdout %s stderr %q, want no block and a reason", out.Stdout, out.Stderr)
	}
}

func TestSessionStartAfterCompactionInjectsTheConstraints(t *testing.T) {
	home, path := t.TempDir(), transcriptOf(t, "4d5611e5-241a-462a-8d15-5122611a9569.jsonl")
	// The real session states no constraint; the person adds one.
	appendLines(t, path, `{"type":"user","uuid":"u-extra","parentUuid":null,"timestamp":"2026-11-30T12:00:00.000Z","message":{"role":"user","content":"Never push to main without running the tests."}}`)
	ctx, _ := sessionStartContext(t, home, path)
	for _, want := range []string{"[Anchor + Hard Constraints]", "[ANCHOR] Core constraints originate from generation 1 session " + uuid, "Never push to main without running the tests."} {
		if !strings.Contains(ctx, want) {
			t.Fatalf("SessionStart after compaction: additionalContext %q, want the constraints block with %q", ctx, want)
		}
	}
	in, err := hookrun.Parse(hosts.ClaudeCode, input(hookrun.SessionStart, path, `,"source":"compact"`), nil)
	if err != nil {
		t.Fatal(err)
	}
	in.Source = "startup"
	if out := hookrun.Run(hosts.ClaudeCode, in, opener(home), hookrun.Settings{}); len(out.Stdout) != 0 {
		t.Fatalf("SessionStart at startup with nothing to say printed %s", out.Stdout)
	}
}

func mustOpen(t *testing.T, home string) *graft.Service {
	t.Helper()
	svc, err := graft.Open(home, graft.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// Issue 24, item 6: a hook takes transcript_path only for a regular file
// under the host's own transcript root, named for the event's session: a
// path elsewhere (/etc/passwd, a symlink to a file outside) is refused and
// bound to nothing, so the host's real transcript is followed after it.
func TestTranscriptPathOutsideTheHostsRootIsRefused(t *testing.T) {
	home, cfg := t.TempDir(), t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", cfg)
	outside := filepath.Join(t.TempDir(), uuid+".jsonl")
	if err := os.WriteFile(outside, []byte("root:x:0:0:root:/root:/bin/bash\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(cfg, "projects", "-w")
	if err := os.MkdirAll(proj, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(proj, "link-"+uuid+".jsonl")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{outside, "/etc/passwd", link} {
		in, err := hookrun.Parse(hosts.ClaudeCode, input(hookrun.Stop, bad, ""), nil)
		if err != nil {
			t.Fatal(err)
		}
		out := hookrun.Run(hosts.ClaudeCode, in, opener(home), hookrun.Settings{})
		if out.Session != "" || len(out.Stderr) == 0 || !strings.Contains(strings.Join(out.Stderr, "\n"), "transcript_path "+bad+" refused") {
			t.Fatalf("transcript_path %s: session %q, stderr %q: want it refused and nothing followed", bad, out.Session, out.Stderr)
		}
	}
	bs, err := hosts.List(sessionsOf(t, mustOpen(t, home)).FS, home)
	if err != nil || len(bs) != 0 {
		t.Fatalf("bindings %+v (%v) after refused paths: want none", bs, err)
	}
	// The real transcript under the root: followed, not source_rewritten.
	data, err := os.ReadFile(testfixtures.Path(t, "claude-code", "tool_heavy.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(proj, uuid+".jsonl")
	if err := os.WriteFile(real, data, 0o600); err != nil {
		t.Fatal(err)
	}
	in, err := hookrun.Parse(hosts.ClaudeCode, input(hookrun.Stop, real, ""), nil)
	if err != nil {
		t.Fatal(err)
	}
	if out := hookrun.Run(hosts.ClaudeCode, in, opener(home), hookrun.Settings{}); out.Session != uuid || len(out.Stderr) != 0 {
		t.Fatalf("the real transcript: session %q stderr %q, want it followed into %s", out.Session, out.Stderr, uuid)
	}
}

// Issue 24, item 10: catalog.db held by another process (a long commit, a
// stuck graft) costs a hook at most about its busy budget, not a catalog
// timeout per access: the hook says graft is busy and lets the host go on
// (here: the compaction is not blocked).
func TestAHeldCatalogCostsTheHookLittle(t *testing.T) {
	home, path := t.TempDir(), transcript(t)
	svc := mustOpen(t, home) // creates catalog.db
	svc.Close()
	held, release := make(chan struct{}), make(chan struct{})
	go func() {
		_ = catalog.With(home, 10*time.Second, func(*catalog.DB) error {
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	defer close(release)
	in, err := hookrun.Parse(hosts.ClaudeCode, input(hookrun.PreCompact, path, `,"trigger":"auto"`), nil)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	out := hookrun.Run(hosts.ClaudeCode, in, opener(home), hookrun.Settings{InterceptCompaction: true})
	took := time.Since(start)
	if took > hookrun.BusyBudget+1500*time.Millisecond {
		t.Fatalf("the hook took %v with catalog.db held, want about its busy budget %v", took, hookrun.BusyBudget)
	}
	if len(out.Stdout) != 0 || !strings.Contains(strings.Join(out.Stderr, "\n"), "the compaction goes on") {
		t.Fatalf("stdout %s stderr %q: want no block and the reason on stderr", out.Stdout, out.Stderr)
	}
	t.Logf("PreCompact with catalog.db held: %v; stderr %q", took, out.Stderr)
}

// Issue 24, item 10: the session's lock held by another graft process (a
// long import, a commit) costs a hook about its busy budget too, not the
// importer's 10 s wait.
func TestAHeldSessionLockCostsTheHookLittle(t *testing.T) {
	home, path := t.TempDir(), transcript(t)
	in, err := hookrun.Parse(hosts.ClaudeCode, input(hookrun.Stop, path, ""), nil)
	if err != nil {
		t.Fatal(err)
	}
	if out := hookrun.Run(hosts.ClaudeCode, in, opener(home), hookrun.Settings{}); out.Session != uuid {
		t.Fatalf("first follow: %+v", out)
	}
	// The transcript grows, and the session's lock is held meanwhile.
	appendLines(t, path, `{"type":"user","uuid":"u-more","timestamp":"2026-02-12T20:00:00.000Z","message":{"role":"user","content":"one more thing"}}`)
	held, err := lockfile.TryLock(home, uuid)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()
	start := time.Now()
	out := hookrun.Run(hosts.ClaudeCode, in, opener(home), hookrun.Settings{})
	if took := time.Since(start); took > hookrun.BusyBudget+1500*time.Millisecond {
		t.Fatalf("the hook took %v with the session's lock held, want about %v", took, hookrun.BusyBudget)
	}
	if len(out.Stderr) == 0 || !strings.Contains(strings.Join(out.Stderr, "\n"), "lock") {
		t.Fatalf("stderr %q: want the held lock named", out.Stderr)
	}
}

// sessionsOf opens the session store of svc's home, as graft does (the
// service keeps its own to itself).
// appendLines appends lines, each ended by a newline, to the transcript
// at path: what the host writes as the session goes on.
func appendLines(t testing.TB, path string, lines ...string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		if _, err := f.WriteString(l + "\n"); err != nil {
			f.Close()
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func sessionsOf(t testing.TB, svc *graft.Service) *session.Store {
	t.Helper()
	st, err := session.OpenStore(svc.FS, svc.Home)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// A handoff in place of a compaction tells the person what the handoff's
// notes say, in the reason the host shows them: the goal they set with
// /goal (Claude Code 2.1.332's goal_status, not met) goes on in the new
// session, which Claude Code restores it in from the export.
func TestPreCompactHandoffTellsThePersonItsNotes(t *testing.T) {
	home, path := t.TempDir(), transcript(t)
	t.Setenv("CLAUDE_CONFIG_DIR", configOf(path))
	appendLines(t, path, `{"parentUuid":null,"isSidechain":false,"attachment":{"type":"goal_status","met":false,"condition":"All tests in ./parser pass","reason":"two fail"},"type":"attachment","uuid":"fef533eb-f8d5-4463-8e19-872774b2f762","timestamp":"2026-11-30T12:00:00.000Z","sessionId":"`+uuid+`","version":"2.1.332"}`)
	in, err := hookrun.Parse(hosts.ClaudeCode, input(hookrun.PreCompact, path, `,"trigger":"auto"`), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := hookrun.Run(hosts.ClaudeCode, in, opener(home), hookrun.Settings{InterceptCompaction: true})
	var d struct{ Decision, Reason string }
	if err := json.Unmarshal(out.Stdout, &d); err != nil || d.Decision != "block" {
		t.Fatalf("intercepted PreCompact: %s (%v) stderr %q, want a block", out.Stdout, err, out.Stderr)
	}
	if !strings.Contains(d.Reason, "claude --resume ") || !strings.Contains(d.Reason, "it goes on in the new session: Claude Code restores it on resume and checks it when your first turn there ends (All tests in ./parser pass)") {
		t.Errorf("the block's reason does not give the handoff's note on the goal:\n%s", d.Reason)
	}
}
