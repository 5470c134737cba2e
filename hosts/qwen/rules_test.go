package qwen_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/graft-project/graft/hosts/qwen"
)

// TestRealQwenHandWrittenRules: what Qwen Code 0.24.4 does with a
// hand-written session that breaks doc.go's rules, and with a
// UserPromptSubmit hook that blocks (BlockAnswer).
func TestRealQwenHandWrittenRules(t *testing.T) {
	q, srv := newQwen(t)
	cwd := q.RealDir(t)
	write := func(name string, edit func(string) string) string {
		t.Helper()
		sid := qwen.DerivedUUID("rules", name)
		data, err := qwen.Render(qwen.Turn{User: []string{"MARK-USER"}, Ack: "MARK-ACK", At: time.Now()}, qwen.RenderOptions{SessionID: sid, Cwd: cwd})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(qwen.ChatsDir(q.QwenDir, cwd), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(qwen.SessionPath(q.QwenDir, cwd, sid), []byte(edit(string(data))), 0o600); err != nil {
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
	block, err := qwen.BlockAnswer("blocked by the test")
	if err != nil {
		t.Fatal(err)
	}
	q.Settings["hooks"] = qwen.HookSettings(map[string]string{
		"UserPromptSubmit": "printf '%s' " + shellQuote(string(block)),
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
