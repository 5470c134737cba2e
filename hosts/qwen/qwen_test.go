package qwen_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/graft-project/graft/hosts/qwen"
	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/session"
)

// recorded is a session the real Qwen Code 0.24.4 wrote in
// TestRealQwenSessionImports (QWEN_RECORD_TESTDATA), its temporary root
// replaced by /home/user: a turn with a read_file call, a resumed turn,
// /compress, a turn after it.
const recorded = "testdata/session.jsonl"

func TestMapRecordedSession(t *testing.T) {
	st, home := newStore(t)
	sum, err := importer.Run(importer.Options{Store: st, Home: home, ID: "q", Source: recorded}, qwen.NewMapper(qwen.Config{}))
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Warnings) > 0 || sum.MalformedCount > 0 {
		t.Errorf("warnings %v, %d malformed", sum.Warnings, sum.MalformedCount)
	}
	if sum.Skipped["system ui_telemetry"] == 0 || sum.Skipped["system attribution_snapshot"] == 0 {
		t.Errorf("telemetry and attribution snapshots not skipped: %v", sum.Skipped)
	}
	evs, _, err := st.ReadAll("q")
	if err != nil {
		t.Fatal(err)
	}
	checkRecorded(t, evs, "/home/user/work")
	u, ok, err := qwen.ContextUsage(recorded)
	if err != nil || !ok || u.InputTokens != 4321 || u.ContextLimit != 262144 {
		t.Errorf("ContextUsage = %+v, %v, %v", u, ok, err)
	}
}

// mapLines maps hand-written records and returns the events and the
// warnings an import would report.
func mapLines(t *testing.T, lines ...string) ([]session.Event, []string) {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "11111111-2222-4333-8444-555555555555.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	st, home := newStore(t)
	sum, err := importer.Run(importer.Options{Store: st, Home: home, ID: "m", Source: p}, qwen.NewMapper(qwen.Config{}))
	if err != nil {
		t.Fatal(err)
	}
	evs, _, err := st.ReadAll("m")
	if err != nil {
		t.Fatal(err)
	}
	return evs, sum.Warnings
}

func rec(typ string, fields string) string {
	return `{"uuid":"u-` + typ + `","parentUuid":null,"sessionId":"s","timestamp":"2026-12-01T10:00:00.000Z","type":"` + typ + `","cwd":"/p","version":"0.24.4"` + fields + `}`
}

func TestMapShapes(t *testing.T) {
	evs, warns := mapLines(t,
		rec("user", `,"provenance":"real_user","message":{"role":"user","parts":[{"text":"use sqlite, not postgres @a.go"},{"text":"FILE CONTENT"},{"text":"<qwen:user-prompt-submit-context>\nhook says\n</qwen:user-prompt-submit-context>"}]},"systemPayload":{"displayText":"use sqlite, not postgres @a.go","hookContext":"hook says"}`),
		rec("user", `,"subtype":"notification","provenance":"system","message":{"role":"user","parts":[{"text":"background task done"}]}`),
		rec("user", `,"subtype":"mid_turn_user_message","provenance":"real_user","message":{"role":"user","parts":[{"text":"also add tests"}]},"systemPayload":{"displayText":"also add tests"}`),
		rec("assistant", `,"message":{"role":"model","parts":[{"text":"hmm","thought":true},{"text":"Plan:"},{"functionCall":{"id":"c1","name":"todo_write","args":{"todos":[{"id":"1","content":"write code","status":"in_progress"},{"id":"2","content":"ship","status":"blocked"}]}}},{"functionCall":{"id":"c2","name":"agent","args":{"subagent_type":"explorer","prompt":"look"}}},{"functionCall":{"id":"c3","name":"run_shell_command","args":{"command":"go test ./..."}}}]}`),
		rec("tool_result", `,"message":{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"todo_write","response":{"output":"ok"}}}]},"toolCallResult":{"callId":"c1","status":"success"}`),
		rec("tool_result", `,"message":{"role":"user","parts":[{"functionResponse":{"id":"c2","name":"agent","response":{"output":"found 3 files"}}}]},"toolCallResult":{"callId":"c2","status":"success"}`),
		rec("tool_result", `,"message":{"role":"user","parts":[{"functionResponse":{"id":"c3","name":"run_shell_command","response":{"error":"exit 1: FAIL"}}}]},"toolCallResult":{"callId":"c3","status":"error"}`),
		rec("system", `,"subtype":"slash_command","systemPayload":{"phase":"invocation","rawCommand":"/compress"}`),
		rec("system", `,"subtype":"slash_command","systemPayload":{"phase":"result","rawCommand":"/compress"}`),
		rec("system", `,"subtype":"brand_new_thing","systemPayload":{}`),
		rec("system", `,"subtype":"brand_new_thing","systemPayload":{}`),
		rec("hologram", `,"message":{}`),
		rec("hologram", `,"message":{}`),
		rec("user", `,"entrypoint":"graft","message":{"role":"user","parts":[{"text":"[graft:tape v2] Handoff"}]}`),
		`{"uuid":"x"`,
	)
	type want struct{ typ, kind, name, text string }
	wants := []want{
		{session.TypeUserMessage, "user", "", "use sqlite, not postgres @a.go"},
		{session.TypeUserMessage, "system", "hook", "hook says"},
		{session.TypeUserMessage, "system", "system", "background task done"},
		{session.TypeUserMessage, "user", "mid-turn", "also add tests"},
		{session.TypeAssistantMessage, "assistant", "", "Plan:"},
		{session.TypeToolCall, "assistant", "", "todo_write"},
		{session.TypeTodoWrite, "assistant", "", ""},
		{session.TypeToolCall, "assistant", "", "agent"},
		{session.TypeToolCall, "assistant", "", "run_shell_command"},
		{session.TypeToolResult, "tool", "", "ok"},
		{session.TypeToolResult, "tool", "", "found 3 files"},
		{session.TypeSubagentReport, "subagent", "agent", "found 3 files"},
		{session.TypeToolResult, "tool", "", "exit 1: FAIL"},
		{session.TypeSystem, "system", "slash_command", "/compress"},
		{session.TypeUserMessage, "user", "slash-command", "/compress"},
		{session.TypeSystem, "system", "slash_command", "/compress"},
		{session.TypeSystem, "system", "brand_new_thing", ""},
		{session.TypeSystem, "system", "brand_new_thing", ""},
		{session.TypeSystem, "system", "unknown", "hologram"},
		{session.TypeSystem, "system", "unknown", "hologram"},
		{session.TypeUserMessage, "plugin", "graft", "Handoff"},
	}
	if len(evs) != len(wants) {
		for _, ev := range evs {
			t.Logf("%s %s/%s %q %+v", ev.Type, ev.Source.Kind, ev.Source.Name, ev.Text, ev.Tool)
		}
		t.Fatalf("%d events, want %d", len(evs), len(wants))
	}
	for k, w := range wants {
		ev := evs[k]
		text := ev.Text
		if ev.Tool != nil {
			text = ev.Tool.Name + " " + ev.Tool.Output
		}
		if ev.Type != w.typ || ev.Source.Kind != w.kind || ev.Source.Name != w.name || !strings.Contains(text, w.text) {
			t.Errorf("event %d = %s %s/%s %q, want %+v", k+1, ev.Type, ev.Source.Kind, ev.Source.Name, text, w)
		}
	}
	if strings.Contains(evs[0].Text, "FILE CONTENT") || evs[0].Meta["cwd"] != "/p" {
		t.Errorf("the person's words are what they typed, with the cwd: %q %v", evs[0].Text, evs[0].Meta)
	}
	if td := evs[6].Todos; len(td) != 2 || td[0].Status != session.TodoInProgress || td[1].Status != session.TodoPending || !strings.Contains(td[1].Content, "[status: blocked]") {
		t.Errorf("todos %+v", td)
	}
	if ok := evs[12].Tool.OK; ok == nil || *ok {
		t.Errorf("a failed shell call imported as ok: %+v", evs[12].Tool)
	}
	if evs[11].Agent != "explorer" {
		t.Errorf("report agent %q", evs[11].Agent)
	}
	// One warning per unknown shape, naming the host version; the todo's
	// status; the malformed last line is counted, not warned.
	joined := strings.Join(warns, "\n")
	for _, s := range []string{`Qwen Code 0.24.4 wrote a system record subtype this graft does not know, "brand_new_thing"`, `Qwen Code 0.24.4 wrote a record type this graft does not know, "hologram"`, `todo 2 status "blocked"`} {
		if strings.Count(joined, s) != 1 {
			t.Errorf("warnings should say %q once:\n%s", s, joined)
		}
	}
}

func TestMapKeepThinking(t *testing.T) {
	line := []byte(rec("assistant", `,"message":{"role":"model","parts":[{"text":"weighing options","thought":true},{"text":"Done."}]}`) + "\n")
	for _, keep := range []bool{false, true} {
		var got []string
		if _, _, err := importer.MapLines(line, 1, qwen.NewMapper(qwen.Config{KeepThinking: keep}), true, func(ev *session.Event) {
			got = append(got, ev.Source.Name+":"+ev.Text)
		}); err != nil {
			t.Fatal(err)
		}
		want := []string{":Done."}
		if keep {
			want = []string{"thinking:weighing options", ":Done."}
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("keep %v: %q, want %q", keep, got, want)
		}
	}
}

func TestRender(t *testing.T) {
	sid := qwen.DerivedUUID("qwen", "target", "txn")
	if err := qwen.ValidSessionID(sid); err != nil || sid != qwen.DerivedUUID("qwen", "target", "txn") || sid == qwen.DerivedUUID("qwen", "target", "txn2") {
		t.Fatalf("DerivedUUID %q: %v", sid, err)
	}
	turn := qwen.Turn{User: []string{"[graft:tape] Handoff", "## Goal\nfix it"}, Ack: "Understood.", At: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)}
	o := qwen.RenderOptions{SessionID: sid, Cwd: "/p", Writer: "v1.2.3"}
	data, err := qwen.Render(turn, o)
	if err != nil {
		t.Fatal(err)
	}
	again, err := qwen.Render(turn, o)
	if err != nil || !bytes.Equal(data, again) {
		t.Fatalf("Render is not deterministic: %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d records, want 2", len(lines))
	}
	var recs [2]struct {
		UUID       string  `json:"uuid"`
		ParentUUID *string `json:"parentUuid"`
		SessionID  string  `json:"sessionId"`
		Timestamp  string  `json:"timestamp"`
		Type       string  `json:"type"`
		Cwd        string  `json:"cwd"`
		Version    string  `json:"version"`
		Message    struct {
			Role    string            `json:"role"`
			Parts   []json.RawMessage `json:"parts"`
			Content json.RawMessage   `json:"content"`
		} `json:"message"`
	}
	for k, l := range lines {
		if err := json.Unmarshal([]byte(l), &recs[k]); err != nil {
			t.Fatal(err)
		}
		r := recs[k]
		if r.UUID == "" || r.SessionID != sid || r.Cwd != "/p" || r.Version != qwen.TestedVersion || r.Message.Content != nil {
			t.Errorf("record %d: %s", k+1, l)
		}
	}
	if recs[0].ParentUUID != nil || recs[1].ParentUUID == nil || *recs[1].ParentUUID != recs[0].UUID {
		t.Errorf("parentUuid chain broken: %s", data)
	}
	if recs[0].Type != "user" || recs[0].Message.Role != "user" || len(recs[0].Message.Parts) != 2 ||
		recs[1].Type != "assistant" || recs[1].Message.Role != "model" || len(recs[1].Message.Parts) != 1 {
		t.Errorf("roles and parts: %s", data)
	}
	if recs[1].Timestamp != "2026-12-01T10:00:00.001Z" {
		t.Errorf("timestamp %q", recs[1].Timestamp)
	}
	if w, ok := qwen.Writer([]byte(lines[0])); !ok || w != "v1.2.3" {
		t.Errorf("Writer = %q, %v", w, ok)
	}
	if _, ok := qwen.Writer([]byte(rec("user", ""))); ok {
		t.Error("Writer took a host record for graft's")
	}
	for _, bad := range []qwen.RenderOptions{{SessionID: "not-a-uuid", Cwd: "/p"}, {SessionID: sid}} {
		if _, err := qwen.Render(turn, bad); err == nil {
			t.Errorf("Render(%+v) succeeded", bad)
		}
	}
	if _, err := qwen.Render(qwen.Turn{User: []string{"x"}}, o); err == nil {
		t.Error("Render without an acknowledgement succeeded")
	}
}

func TestPaths(t *testing.T) {
	for in, want := range map[string]string{
		"/tmp/p/a_b.c": "-tmp-p-a-b-c",
		"/home/ü/x y":  "-home---x-y",
		"/home/😀/proj": "-home----proj",
	} {
		if got := qwen.ProjectDirName(in); got != want {
			t.Errorf("ProjectDirName(%q) = %q, want %q", in, got, want)
		}
	}
	dir := t.TempDir()
	id := "0d1b2c3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
	if _, err := qwen.FindSession(dir, "/p", id); !errors.Is(err, qwen.ErrNoSession) {
		t.Errorf("FindSession in an empty dir: %v", err)
	}
	p := qwen.SessionPath(dir, "/other/proj", id)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := qwen.FindSession(dir, "/p", id); err != nil || got != p {
		t.Errorf("FindSession across projects = %q, %v; want %s", got, err, p)
	}
	if _, err := qwen.FindSession(dir, "/p", "../x"); err == nil {
		t.Error("FindSession took a path for an id")
	}
	t.Setenv(qwen.EnvHome, filepath.Join(dir, "qh"))
	t.Setenv(qwen.EnvRuntimeDir, "")
	if h, err := qwen.Home(); err != nil || h != filepath.Join(dir, "qh") {
		t.Errorf("Home = %q, %v", h, err)
	}
	if r, err := qwen.RuntimeDir(); err != nil || r != filepath.Join(dir, "qh") {
		t.Errorf("RuntimeDir = %q, %v", r, err)
	}
	if c := qwen.ResumeCommand(id); c != "qwen --resume "+id {
		t.Errorf("ResumeCommand = %q", c)
	}
}

func TestUsage(t *testing.T) {
	u, ok := qwen.StopUsage([]byte(`{"hook_event_name":"Stop","input_tokens":1234,"context_limit":262144,"context_usage":0.0047}`))
	if !ok || u.InputTokens != 1234 || u.ContextLimit != 262144 {
		t.Errorf("StopUsage = %+v, %v", u, ok)
	}
	if _, ok := qwen.StopUsage([]byte(`{"hook_event_name":"Stop"}`)); ok {
		t.Error("StopUsage without input_tokens")
	}
	p := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(p, []byte(rec("user", `,"message":{"role":"user","parts":[{"text":"hi"}]}`)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := qwen.ContextUsage(p); ok || err != nil {
		t.Errorf("ContextUsage of a file without a reply: %v, %v", ok, err)
	}
	if _, _, err := qwen.ContextUsage(filepath.Dir(p)); err == nil {
		t.Error("ContextUsage of a directory succeeded")
	}
	hooks := qwen.HookSettings(map[string]string{"Stop": "graft hook qwen"}, 5)
	b, err := json.Marshal(hooks)
	if err != nil || string(b) != `{"Stop":[{"hooks":[{"command":"graft hook qwen","timeout":5,"type":"command"}]}]}` {
		t.Errorf("HookSettings = %s, %v", b, err)
	}
}
