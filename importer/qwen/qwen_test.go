package qwen_test

import (
	"encoding/json"
	"fmt"
	"github.com/graft-project/graft/internal/hosttest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/importer/qwen"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/vfs"
)

// recorded is a session the real Qwen Code 0.24.4 wrote in
// hosts/qwen's TestRealQwenSessionImports (QWEN_RECORD_TESTDATA), its temporary root
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
	hosttest.CheckQwenRecorded(t, evs, "/home/user/work")
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

func newStore(t *testing.T) (*session.Store, string) {
	t.Helper()
	home := t.TempDir()
	st, err := session.OpenStore(vfs.Default, home)
	if err != nil {
		t.Fatal(err)
	}
	return st, home
}

// A call the person turns down at Qwen Code's confirmation prompt ("No,
// suggest changes (esc)") is recorded cancelled with "[Operation Cancelled]
// Reason: User did not allow tool call" (the real 0.24.4 wrote it: hosts'
// TestQwenDeclinedCommandIsNoFailure): it did not run, meta declined
// "user". Another cancelled call was stopped ("stopped"); a failed one is
// neither.
func TestADeclinedCallIsMarkedDeclined(t *testing.T) {
	results := map[string]string{
		"[Operation Cancelled] Reason: User did not allow tool call":          session.DeclinedByUser,
		"[Operation Cancelled] Reason: Tool call cancelled before execution.": session.DeclinedStopped,
		"exit 1: FAIL": "",
	}
	lines := []string{rec("user", `,"provenance":"real_user","message":{"role":"user","parts":[{"text":"Add left-pad."}]}`)}
	k := 0
	for out, declined := range results {
		k++
		id := fmt.Sprintf("c%d", k)
		status := "cancelled"
		if declined == "" {
			status = "error"
		}
		res, _ := json.Marshal(out)
		lines = append(lines,
			rec("assistant", `,"message":{"role":"model","parts":[{"functionCall":{"id":"`+id+`","name":"run_shell_command","args":{"command":"npm install left-pad"}}}]}`),
			rec("tool_result", `,"message":{"role":"user","parts":[{"functionResponse":{"id":"`+id+`","name":"run_shell_command","response":{"error":`+string(res)+`}}}]},"toolCallResult":{"callId":"`+id+`","status":"`+status+`"}`))
	}
	evs, _ := mapLines(t, lines...)
	seen := 0
	for _, ev := range evs {
		if ev.Type != session.TypeToolResult {
			continue
		}
		seen++
		if want, got := results[ev.Tool.Output], ev.Meta[session.MetaDeclined]; got != want || ev.OKResult() {
			t.Errorf("%q: declined %q (want %q), ok %v", ev.Tool.Output, got, want, ev.OKResult())
		}
	}
	if seen != len(results) {
		t.Errorf("%d results, want %d", seen, len(results))
	}
}

// testdata/goal-0.24.jsonl is the session the real interactive Qwen Code
// 0.24.4 wrote when the person set a goal with /goal (hosts'
// TestQwenGoalIsInTaskStatus; its temporary root replaced by /home/user):
// Qwen Code records the goal's state as system goal_state records (one per
// change and per goal turn), and paused it itself after three goal turns
// that made no progress. Each carries the goal's status and objective
// (session.MetaGoalStatus), for the tape's Task Status.
func TestTheGoalsStateIsImported(t *testing.T) {
	st, home := newStore(t)
	sum, err := importer.Run(importer.Options{Store: st, Home: home, ID: "q", Source: "testdata/goal-0.24.jsonl"}, qwen.NewMapper(qwen.Config{}))
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Warnings) > 0 {
		t.Errorf("warnings %v", sum.Warnings)
	}
	evs, _, err := st.ReadAll("q")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	reason := ""
	for _, ev := range evs {
		if s := ev.Meta[session.MetaGoalStatus]; s != "" {
			got = append(got, s+" "+ev.Meta[session.MetaGoalObjective])
			reason = ev.Meta[session.MetaGoalReason]
		}
	}
	if !strings.HasPrefix(reason, "Three Goal turns in a row recorded nothing to judge") {
		t.Errorf("the paused goal's reason is %q, want Qwen Code's", reason)
	}
	want := "active Port the pager to Go,active Port the pager to Go,active Port the pager to Go,active Port the pager to Go,paused Port the pager to Go"
	if strings.Join(got, ",") != want {
		t.Errorf("goal states %q, want %s", got, want)
	}
}

// A goal_state whose goal is null is the person's /goal clear (the real
// 0.24.4 wrote {"cause": "clear", "snapshot": {"goal": null, "clearedGoal":
// {…}}} for it): status "cleared", no objective. A payload Qwen Code would not read says no goal
// state, and is warned of.
func TestAClearedGoal(t *testing.T) {
	lines := []string{
		`{"uuid":"s1","sessionId":"qs","timestamp":"2026-12-04T10:00:00.000Z","type":"system","subtype":"goal_state","systemPayload":{"v":2,"cause":"clear","snapshot":{"v":2,"goal":null,"activity":"idle","clearedGoal":{"goalId":"g1","revision":1,"updatedAt":1}}}}`,
		`{"uuid":"s2","sessionId":"qs","timestamp":"2026-12-04T10:00:01.000Z","type":"system","subtype":"goal_state","systemPayload":"not an object"}`,
	}
	path := filepath.Join(t.TempDir(), "qs.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	st, home := newStore(t)
	sum, err := importer.Run(importer.Options{Store: st, Home: home, ID: "q", Source: path}, qwen.NewMapper(qwen.Config{}))
	if err != nil {
		t.Fatal(err)
	}
	evs, _, err := st.ReadAll("q")
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || evs[0].Meta[session.MetaGoalStatus] != "cleared" || evs[1].Meta[session.MetaGoalStatus] != "" {
		t.Errorf("events %+v: want the first cleared, the second no goal state", evs)
	}
	if len(sum.Warnings) != 1 || !strings.Contains(sum.Warnings[0], "goal_state") {
		t.Errorf("warnings %q: want one on the goal_state that does not decode", sum.Warnings)
	}
}

// A command the person typed that sends the model a prompt (a custom
// command, .qwen/commands/*.md or *.toml) is recorded as the real Qwen
// Code 0.24.4 does interactively: a slash_command invocation with
// sentToModel true and rawCommand what was typed, its result, then a user
// record of provenance real_user whose parentUuid is the result's, holding
// the command's text with the arguments filled in. That text is the
// command file's words (the host's), not the person's: kind "skill" as
// Claude Code's and Codex's, while what they typed is theirs. Qwen Code
// 0.5.0 wrote no sentToModel: there the result's empty outputHistoryItems
// and the text written at once (under 2 s) tell it; a prompt typed after
// a command that printed something, or that the host says it did not send,
// is the person's.
func TestACommandsTextIsTheHostsWords(t *testing.T) {
	r := func(uuid, parent, ts, typ, fields string) string {
		return `{"uuid":"` + uuid + `","parentUuid":"` + parent + `","sessionId":"s","timestamp":"2026-12-01T10:00:` + ts + `Z","type":"` + typ + `","cwd":"/p","version":"0.24.4"` + fields + `}`
	}
	slash := func(uuid, parent, ts, phase, raw, extra string) string {
		return r(uuid, parent, ts, "system", `,"subtype":"slash_command","systemPayload":{"phase":"`+phase+`","rawCommand":"`+raw+`"`+extra+`}`)
	}
	user := func(uuid, parent, ts, text string) string {
		return r(uuid, parent, ts, "user", `,"provenance":"real_user","message":{"role":"user","parts":[{"text":"`+text+`"}]}`)
	}
	evs, warns := mapLines(t,
		slash("i1", "", "00.000", "invocation", "/explore why is the build slow", `,"sentToModel":true,"hiddenInvocation":false`),
		slash("r1", "i1", "00.010", "result", "/explore why is the build slow", `,"outputHistoryItems":[]`),
		user("p1", "r1", "00.020", `Explore mode is for research, not implementing. You MUST NOT write code.\n\nThe user asks: why is the build slow`),
		r("a1", "p1", "01.000", "assistant", `,"message":{"role":"model","parts":[{"text":"Looking."}]}`),
		slash("i2", "a1", "02.000", "invocation", "/model", `,"sentToModel":false`),
		slash("r2", "i2", "02.010", "result", "/model", `,"outputHistoryItems":[{"type":"info","text":"Using model qwen-fake"}]`),
		user("p2", "r2", "02.020", "use the small model from now on"),
		slash("i3", "p2", "03.000", "invocation", "/sp.plan a plan for the book", ``),
		slash("r3", "i3", "03.050", "result", "/sp.plan a plan for the book", `,"outputHistoryItems":[]`),
		user("p3", "r3", "03.100", `---\ndescription: Execute the planning workflow\n---\n\nYou **MUST** consider the user input.`),
		slash("i4", "p3", "04.000", "invocation", "/clear", ``),
		slash("r4", "i4", "04.010", "result", "/clear", `,"outputHistoryItems":[]`),
		user("p4", "r4", "44.000", "now write the tests"),
	)
	if len(warns) > 0 {
		t.Errorf("warnings: %v", warns)
	}
	type want struct{ kind, name, text string }
	var got []want
	for _, ev := range evs {
		if ev.Type == session.TypeUserMessage {
			got = append(got, want{ev.Source.Kind, ev.Source.Name, ev.Text})
		}
	}
	wants := []want{
		{"user", "slash-command", "/explore why is the build slow"},
		{"skill", "command", "Explore mode is for research"},
		{"user", "slash-command", "/model"},
		{"user", "", "use the small model from now on"},
		{"user", "slash-command", "/sp.plan a plan for the book"},
		{"skill", "command", "---\ndescription: Execute the planning workflow"},
		{"user", "slash-command", "/clear"},
		{"user", "", "now write the tests"},
	}
	if len(got) != len(wants) {
		t.Fatalf("user messages %+v, want %+v", got, wants)
	}
	for k, w := range wants {
		if g := got[k]; g.kind != w.kind || g.name != w.name || !strings.HasPrefix(g.text, w.text) {
			t.Errorf("user message %d = %s/%s %q, want %s/%s %q", k+1, g.kind, g.name, g.text, w.kind, w.name, w.text)
		}
	}
}

// A call the person cancelled: Qwen Code 0.13.0 wrote no tool_result for
// it (seen in a real session: 12 cancelled calls, none with a result),
// only its ui_telemetry tool_call event, status "error", error `Tool
// "<name>" was canceled by the user.`, the call's args as function_args
// and no call id, written when the person's next message or the model's
// next call came. The call is imported as stopped by the person (it may
// have run in part: the event does not say whether they declined it at
// the prompt), not left "in flight"; of two calls of the name, the one
// with the event's args. Qwen Code 0.24.4 writes the event with the call's
// id, status "cancelled", and the result after it: one result, as before.
// A result that comes after the event closed its call is no second one.
func TestACallCancelledWithNoResultIsStopped(t *testing.T) {
	r := func(uuid, typ, fields string) string {
		return `{"uuid":"` + uuid + `","parentUuid":null,"sessionId":"s","timestamp":"2026-12-01T10:00:00.000Z","type":"` + typ + `","cwd":"/p","version":"0.13.0"` + fields + `}`
	}
	args := func(id string) string { return `{"command":"make ` + id + `","is_background":false}` }
	call := func(uuid string, ids ...string) string {
		var parts []string
		for _, id := range ids {
			parts = append(parts, `{"functionCall":{"id":"`+id+`","name":"run_shell_command","args":`+args(id)+`}}`)
		}
		return r(uuid, "assistant", `,"message":{"role":"model","parts":[`+strings.Join(parts, ",")+`]}`)
	}
	cancel := func(uuid, id string) string {
		// The event's args as Qwen Code writes them, spaced otherwise.
		return r(uuid, "system", `,"subtype":"ui_telemetry","systemPayload":{"uiEvent":{"event.name":"qwen-code.tool_call","function_name":"run_shell_command","function_args":{ "command": "make `+id+`", "is_background": false },"duration_ms":5957,"status":"error","success":false,"error":"Tool \"run_shell_command\" was canceled by the user."}}`)
	}
	result := func(uuid, id, fields string) string {
		return r(uuid, "tool_result", `,"message":{"role":"user","parts":[{"functionResponse":{"id":"`+id+`","name":"run_shell_command","response":{"error":"[Operation Cancelled] Reason: User did not allow tool call"}}}]},"toolCallResult":{"callId":"`+id+`","status":"cancelled"}`+fields)
	}
	user := func(uuid, text string) string {
		return r(uuid, "user", `,"provenance":"real_user","message":{"role":"user","parts":[{"text":"`+text+`"}]}`)
	}
	evs, warns := mapLines(t,
		user("u1", "Build it."),
		call("a1", "c1"),
		user("u2", "no, just explain"),
		cancel("t1", "c1"),
		result("r1", "c1", ""),
		call("a2", "c2"),
		r("t2", "system", `,"subtype":"ui_telemetry","systemPayload":{"uiEvent":{"event.name":"qwen-code.tool_call","call_id":"c2","function_name":"run_shell_command","function_args":`+args("c2")+`,"status":"cancelled","success":false,"decision":"reject"}}`),
		result("r2", "c2", ""),
		call("a3", "c3", "c4"),
		cancel("t3", "c4"),
		user("u3", "stop"),
	)
	if len(warns) > 0 {
		t.Errorf("warnings: %v", warns)
	}
	var got []string
	for _, ev := range evs {
		switch ev.Type {
		case session.TypeToolResult:
			got = append(got, fmt.Sprintf("result %s %s ok=%v declined=%s %q", ev.Tool.CallID, ev.Tool.Name, *ev.Tool.OK, ev.Meta[session.MetaDeclined], ev.Tool.Output))
		case session.TypeUserMessage:
			got = append(got, "user "+ev.Text)
		}
	}
	want := []string{
		"user Build it.",
		"user no, just explain",
		`result c1 run_shell_command ok=false declined=stopped "Tool \"run_shell_command\" was canceled by the user."`,
		`result c2 run_shell_command ok=false declined=user "[Operation Cancelled] Reason: User did not allow tool call"`,
		`result c4 run_shell_command ok=false declined=stopped "Tool \"run_shell_command\" was canceled by the user."`,
		"user stop",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
