package hosttest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExploreQwen(t *testing.T) {
	h := Install(t)
	srv := NewQwenServer(t)
	q := h.NewQwen(t, srv)
	log := NewHookLog(t)
	cmds := map[string][]string{}
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "Stop", "PreCompact", "PostCompact", "SessionEnd"} {
		then := ""
		if ev == "PreCompact" {
			then = `echo '{"hookSpecificOutput":{"hookEventName":"PreCompact","additionalContext":"KEEP-CONSTRAINT-XYZ"}}'`
		}
		if ev == "SessionStart" {
			then = `echo '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"START-CONTEXT-ABC"}}'`
		}
		cmds[ev] = []string{log.Command(then)}
	}
	hc := HooksConfig(10, cmds)
	q.Settings["hooks"] = hc["hooks"]
	q.WriteSettings(t)
	if err := os.WriteFile(filepath.Join(q.Dir, "notes.txt"), []byte("line one\nline two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	n := 0
	srv.SetReplyFunc(func(r QwenRequest) QwenReply {
		if r.IsMemory() {
			return QwenReply{Text: "nothing to remember"}
		}
		if r.IsCompress() {
			return QwenReply{Text: "<state_snapshot>\nSNAP\n</state_snapshot>"}
		}
		n++
		if n == 1 {
			return QwenReply{ToolCalls: []QwenToolCall{{Name: "read_file", Arguments: `{"file_path":"` + filepath.Join(q.RealDir(t), "notes.txt") + `"}`}}}
		}
		return QwenReply{Text: "done reading", PromptTokens: 1234}
	})
	res := q.Print(t, "read notes.txt please")
	t.Logf("%s", res)
	ss := q.Sessions(t)
	if len(ss) != 1 {
		t.Fatalf("sessions %v", ss)
	}
	id := filepath.Base(ss[0])
	id = id[:len(id)-len(".jsonl")]
	res = q.Resume(t, id, "second prompt")
	t.Logf("%s", res)
	res = q.Resume(t, id, "/compress")
	t.Logf("%s", res)
	res = q.Resume(t, id, "after compress")
	t.Logf("%s", res)
	t.Logf("requests:\n%s", srv.Describe())
	b, _ := os.ReadFile(ss[0])
	t.Logf("session:\n%s", b)
	for _, c := range srv.Completions(t) {
		t.Logf("---- req: mem=%v comp=%v msgs=%d\nSYSTEM-TAIL: %s", c.IsMemory(), c.IsCompress(), len(c.Messages), tail(c.System(), 1500))
		for _, m := range c.Messages[1:] {
			t.Logf("  %s: %s %s", m.Role, clipText(m.Text(), 400), string(m.ToolCallID))
		}
	}
	for k, c := range srv.Completions(t) {
		t.Logf("req %d: start-ctx=%v keep=%v keep-in-system=%v", k+1, c.Contains("START-CONTEXT-ABC"), c.Contains("KEEP-CONSTRAINT-XYZ"), strings.Contains(c.System(), "KEEP-CONSTRAINT-XYZ"))
		for _, m := range c.Messages {
			if i := strings.Index(m.Text(), "START-CONTEXT-ABC"); i >= 0 {
				t.Logf("   start ctx in %s: %q", m.Role, m.Text()[max(0, i-200):min(len(m.Text()), i+100)])
			}
			if i := strings.Index(m.Text(), "KEEP-CONSTRAINT-XYZ"); i >= 0 {
				t.Logf("   keep in %s: %q", m.Role, m.Text()[max(0, i-300):min(len(m.Text()), i+100)])
			}
		}
	}
	for _, e := range log.Events(t) {
		t.Logf("hook: %v", e)
	}
	t.Logf("foreign: %d others: %d", len(srv.Foreign()), len(srv.Others()))
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
