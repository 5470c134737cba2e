package gemini_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/importer/gemini"
	"github.com/graft-project/graft/internal/testfixtures"
	"github.com/graft-project/graft/session"
)

// recorded is a session the real Gemini CLI 0.61.0 wrote
// (TestRealImport, GRAFT_GEMINI_RECORD=1): a turn with a shell call, then
// a resume in the same minute, which wrote the new run's header and first
// list into the same file before the resumed list.
const recorded = "testdata/session-recorded.jsonl"

// shape is an event as the tables below expect it.
func shape(ev session.Event) string {
	s := ev.Meta["line"] + " " + ev.Type + " " + ev.Source.Kind
	if ev.Source.Name != "" {
		s += "/" + ev.Source.Name
	}
	if ev.Tool != nil {
		s += " " + ev.Tool.Name
		if ev.Tool.OK != nil {
			s += map[bool]string{true: " ok", false: " failed"}[*ev.Tool.OK]
		}
	}
	return s
}

func importFile(t *testing.T, path string) ([]session.Event, *importer.Summary) {
	t.Helper()
	st, home := testfixtures.NewStore(t)
	sum, err := gemini.Import(gemini.Options{Store: st, Home: home, Path: path, ID: "g"})
	if err != nil {
		t.Fatal(err)
	}
	evs, _, err := st.ReadAll("g")
	if err != nil {
		t.Fatal(err)
	}
	return evs, sum
}

func TestRecordedMapping(t *testing.T) {
	evs, sum := importFile(t, recorded)
	var got []string
	for _, ev := range evs {
		got = append(got, shape(ev))
	}
	want := []string{
		"1 system/event system/session",
		"2 user/message system/session-context",
		"3 user/message user",
		"7 tool/call assistant run_shell_command",
		"7 tool/result tool run_shell_command ok",
		"10 assistant/message assistant",
		"12 system/event system/session",
		"13 system/event system/history-replaced",
		"16 user/message user",
		"18 assistant/message assistant",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The result's copies: the functionResponse message, and both it and
	// the one the resume derives (<id>_response) in the resumed list.
	if sum.WarningCount != 0 || sum.MalformedCount != 0 || sum.Skipped["functionResponse (copy of a tool call's result)"] != 3 {
		t.Fatalf("summary: %s", sum.Text())
	}
	if evs[7].Meta["dropped"] != "4" {
		t.Fatalf("history-replaced %+v: the same-minute resume's first list drops the 4 messages after the session context", evs[7])
	}
}

// TestResumedCursor: an import that stops at every line and goes on makes
// the same events as one that reads the file at once (the mapper's state
// goes through the cursor).
func TestResumedCursor(t *testing.T) {
	whole, _ := importFile(t, recorded)
	data, err := os.ReadFile(recorded)
	if err != nil {
		t.Fatal(err)
	}
	st, home := testfixtures.NewStore(t)
	path := filepath.Join(t.TempDir(), "session-2026-12-02T05-12-3271f952.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if _, err := f.WriteString(line); err != nil {
			t.Fatal(err)
		}
		if _, err := gemini.Import(gemini.Options{Store: st, Home: home, Path: path, ID: "g"}); err != nil {
			t.Fatal(err)
		}
	}
	step, _, err := st.ReadAll("g")
	if err != nil {
		t.Fatal(err)
	}
	if len(step) != len(whole) {
		t.Fatalf("%d events line by line, %d at once", len(step), len(whole))
	}
	for k := range whole {
		if shape(step[k]) != shape(whole[k]) || step[k].Text != whole[k].Text {
			t.Fatalf("event %d: %s %q, at once %s %q", k, shape(step[k]), step[k].Text, shape(whole[k]), whole[k].Text)
		}
	}
}

// rewrites is written from Gemini CLI 0.61.0's chatRecordingService: a
// hook's context before a prompt, a reply that edits a file and writes
// todos (its record written again with the results), the results' copy, a
// rewind, a compression's list, records this graft does not know, and a
// line that is not JSON.
const rewrites = `{"sessionId":"0a1b2c3d-0000-4000-8000-000000000001","projectHash":"ab","startTime":"2026-12-01T10:00:00.000Z","lastUpdated":"2026-12-01T10:00:00.000Z","kind":"main"}
{"id":"u1","timestamp":"2026-12-01T10:00:01.000Z","type":"user","content":[{"text":"<hook_context>graft: constraints</hook_context>\n\nFix the pager, tests go in pager_test.go."}]}
{"id":"g1","timestamp":"2026-12-01T10:00:02.000Z","type":"gemini","content":"","thoughts":[{"subject":"Plan","description":"edit it"}],"model":"m"}
{"id":"g1","timestamp":"2026-12-01T10:00:02.000Z","type":"gemini","content":"Editing.","thoughts":[{"subject":"Plan","description":"edit it"}],"model":"m","toolCalls":[{"id":"c1","name":"replace","args":{"file_path":"pager.go","old_string":"a","new_string":"b"},"status":"success","result":[{"functionResponse":{"id":"c1","name":"replace","response":{"output":"Edited pager.go"}}}]},{"id":"c2","name":"write_todos","args":{"todos":[{"description":"fix","status":"completed"},{"description":"test","status":"blocked"}]},"status":"error","result":[{"functionResponse":{"id":"c2","name":"write_todos","response":{"error":"bad todo"}}}]}]}
{"id":"u2","timestamp":"2026-12-01T10:00:03.000Z","type":"user","content":[{"functionResponse":{"id":"c1","name":"replace","response":{"output":"Edited pager.go"}}},{"functionResponse":{"id":"c2","name":"write_todos","response":{"error":"bad todo"}}}]}
{"id":"u3","timestamp":"2026-12-01T10:00:04.000Z","type":"user","content":[{"text":"no, undo that"}]}
{"$rewindTo":"u3"}
{"id":"u4","timestamp":"2026-12-01T10:00:05.000Z","type":"user","content":"/compress"}
{"$set":{"messages":[{"id":"ctx","timestamp":"2026-12-01T10:00:06.000Z","type":"user","content":[{"text":"<session_context>env</session_context>"}]},{"id":"snap","timestamp":"2026-12-01T10:00:06.000Z","type":"user","content":[{"text":"<state_snapshot>the pager is fixed</state_snapshot>"}]},{"id":"ack","timestamp":"2026-12-01T10:00:06.000Z","type":"gemini","content":[{"text":"Got it. Thanks for the additional context!"}]},{"id":"u4","timestamp":"2026-12-01T10:00:05.000Z","type":"user","content":"/compress"}],"lastUpdated":"2026-12-01T10:00:06.000Z"}}
{"id":"i1","timestamp":"2026-12-01T10:00:07.000Z","type":"info","content":"Chat compressed"}
{"id":"x1","timestamp":"2026-12-01T10:00:08.000Z","type":"hologram","content":"?"}
{"id":"x2","timestamp":"2026-12-01T10:00:08.000Z","type":"hologram","content":"?"}
{"$future":1}
not json
`

func TestRewrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "session-2026-12-01T10-00-0a1b2c3d.jsonl")
	if err := os.WriteFile(path, []byte(rewrites), 0o600); err != nil {
		t.Fatal(err)
	}
	evs, sum := importFile(t, path)
	var got []string
	for _, ev := range evs {
		got = append(got, shape(ev))
	}
	want := []string{
		"1 system/event system/session",
		"2 user/message system/hook-context",
		"2 user/message user",
		"4 assistant/message assistant",
		"4 tool/call assistant edit",
		"4 tool/result tool edit ok",
		"4 tool/call assistant write_todos",
		"4 todo/write assistant",
		"4 tool/result tool write_todos failed",
		"6 user/message user",
		"7 system/event system/rewind",
		"8 user/message user/slash-command",
		"9 user/message system/session-context",
		"9 user/message system/compacted",
		"9 system/event system/history-replaced",
		"10 system/event system/info",
		"11 system/event system/unknown",
		"12 system/event system/unknown",
		"13 system/event system/unknown",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	byShape := func(s string) session.Event {
		for _, ev := range evs {
			if shape(ev) == s {
				return ev
			}
		}
		t.Fatalf("no %s", s)
		return session.Event{}
	}
	if ev := byShape("2 user/message user"); ev.Text != "Fix the pager, tests go in pager_test.go." || !ev.IsHumanInstruction() {
		t.Fatalf("the prompt after the hook context: %+v", ev)
	}
	if ev := byShape("4 tool/call assistant edit"); ev.Meta["viaTool"] != "replace" || !strings.Contains(string(ev.Tool.Input), `"file_path":"pager.go"`) {
		t.Fatalf("replace: %+v", ev)
	}
	if ev := byShape("4 todo/write assistant"); len(ev.Todos) != 2 || ev.Todos[1].Status != session.TodoPending || !strings.Contains(ev.Todos[1].Content, "[status: blocked]") {
		t.Fatalf("todos: %+v", ev.Todos)
	}
	if ev := byShape("7 system/event system/rewind"); ev.Meta["dropped"] != "1" {
		t.Fatalf("rewind: %+v", ev)
	}
	if ev := byShape("9 system/event system/history-replaced"); ev.Meta["dropped"] != "3" || ev.Meta["added"] != "3" {
		t.Fatalf("compression's list: %+v (the list held u1, g1, u2 and u4; ctx, snap and ack are new)", ev)
	}
	if sum.MalformedCount != 1 || sum.Malformed[0].Line != 14 {
		t.Fatalf("malformed: %+v", sum.Malformed)
	}
	if sum.Skipped["thoughts"] != 1 || sum.Skipped["compression acknowledgement"] != 1 || sum.Skipped["functionResponse (copy of a tool call's result)"] != 2 {
		t.Fatalf("skipped: %v", sum.Skipped)
	}
	// One warning for the blocked todo, one per unknown shape (not per line).
	var unknown int
	for _, w := range sum.Warnings {
		if strings.Contains(w, "this graft does not know") {
			unknown++
			if !strings.Contains(w, "Gemini CLI") {
				t.Fatalf("warning names no host: %s", w)
			}
		}
	}
	if unknown != 2 || sum.WarningCount != 3 {
		t.Fatalf("warnings: %q", sum.Warnings)
	}
}

// A BeforeAgent hook's context is a part of its own after the prompt, and
// displayContent holds what the person typed: the context is the hook's,
// the prompt the person's, whatever the order.
func TestHookContextPart(t *testing.T) {
	const file = `{"sessionId":"0a1b2c3d-0000-4000-8000-000000000002","projectHash":"ab","startTime":"2026-12-01T10:00:00.000Z","lastUpdated":"2026-12-01T10:00:00.000Z","kind":"main"}
{"id":"u1","timestamp":"2026-12-01T10:00:01.000Z","type":"user","content":[{"text":"Next step."},{"text":"<hook_context>[graft:tape x] [Anchor + Hard Constraints]\n- never touch go.sum</hook_context>"}],"displayContent":[{"text":"Next step."}]}
{"id":"u2","timestamp":"2026-12-01T10:00:02.000Z","type":"user","content":[{"text":"Plain."},{"text":"<hook_context>ctx</hook_context>"}]}
`
	got := messageShapes(t, file)
	want := []string{
		"2 user/message system/hook-context <hook_context>[graft:tape x] [Anchor + Hard Constraints]\n- never touch go.sum</hook_context>",
		"2 user/message user Next step.",
		"3 user/message system/hook-context <hook_context>ctx</hook_context>",
		"3 user/message user Plain.",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("events:\n%q\nwant:\n%q", got, want)
	}
}

// mapEvents maps data's lines (numbered from first) with m: each event as
// JSON.
func mapEvents(t *testing.T, m importer.Mapper, data []byte, first int) []string {
	t.Helper()
	var evs []string
	if _, _, err := importer.MapLines(data, first, m, false, func(ev *session.Event) {
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, string(b))
	}); err != nil {
		t.Fatal(err)
	}
	return evs
}

// TestState: a state saved after any line and loaded into a new mapper
// maps the rest of the file to the same events, and saves the same bytes
// again; the first form of the state (the ids themselves, as graft wrote
// it before StateVersion: testdata/state-v1.json-lines, saved by that mapper
// after a third and two thirds of each file) loads into a mapper that goes
// on as the new one does, and ends in the same state.
func TestState(t *testing.T) {
	files := []string{recorded, "testdata/shapes.jsonl", "testdata/synthetic.jsonl"}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.SplitAfter(data, []byte("\n"))
		for _, keep := range []bool{false, true} {
			whole := gemini.NewMapper(gemini.Config{KeepThinking: keep})
			all := mapEvents(t, whole, data, 1)
			end, err := whole.SaveState()
			if err != nil {
				t.Fatal(err)
			}
			for cut := 0; cut < len(lines); cut++ {
				m := gemini.NewMapper(gemini.Config{KeepThinking: keep})
				before := mapEvents(t, m, bytes.Join(lines[:cut], nil), 1)
				st, err := m.SaveState()
				if err != nil {
					t.Fatal(err)
				}
				again := gemini.NewMapper(gemini.Config{KeepThinking: keep})
				if err := again.LoadState(st); err != nil {
					t.Fatalf("%s after %d lines: %v\n%s", f, cut, err, st)
				}
				if st2, _ := again.SaveState(); !bytes.Equal(st, st2) {
					t.Fatalf("%s after %d lines: saved %s, loaded and saved %s", f, cut, st, st2)
				}
				after := mapEvents(t, again, bytes.Join(lines[cut:], nil), cut+1)
				if got := append(before, after...); !slices.Equal(got, all) {
					t.Fatalf("%s cut after %d lines: events\n%s\nwant\n%s", f, cut, strings.Join(got, "\n"), strings.Join(all, "\n"))
				}
				if st3, _ := again.SaveState(); !bytes.Equal(st3, end) {
					t.Fatalf("%s cut after %d lines: end state %s, want %s", f, cut, st3, end)
				}
				// The third form (the state file): the same state, the
				// same bytes, the same events after it, in either form.
				bin, err := m.AppendBinaryState(nil)
				if err != nil {
					t.Fatal(err)
				}
				fromBin := gemini.NewMapper(gemini.Config{KeepThinking: keep})
				if err := fromBin.LoadBinaryState(bin); err != nil {
					t.Fatalf("%s after %d lines: %v", f, cut, err)
				}
				if bin2, _ := fromBin.AppendBinaryState(nil); !bytes.Equal(bin, bin2) {
					t.Fatalf("%s after %d lines: the state file's bytes change when loaded and saved", f, cut)
				}
				if js, _ := fromBin.SaveState(); !bytes.Equal(js, st) {
					t.Fatalf("%s after %d lines: from the state file, saved %s, want %s", f, cut, js, st)
				}
				if got := append(slices.Clone(before), mapEvents(t, fromBin, bytes.Join(lines[cut:], nil), cut+1)...); !slices.Equal(got, all) {
					t.Fatalf("%s cut after %d lines, through the state file: events\n%s\nwant\n%s", f, cut, strings.Join(got, "\n"), strings.Join(all, "\n"))
				}
				if st4, _ := fromBin.SaveState(); !bytes.Equal(st4, end) {
					t.Fatalf("%s cut after %d lines, through the state file: end state %s, want %s", f, cut, st4, end)
				}
			}
		}
	}

	n := 0
	for _, c := range firstFormStates(t) {
		data, err := os.ReadFile(c.File)
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.SplitAfter(data, []byte("\n"))
		whole := gemini.NewMapper(gemini.Config{})
		all := mapEvents(t, whole, data, 1)
		end, _ := whole.SaveState()
		before := mapEvents(t, gemini.NewMapper(gemini.Config{}), bytes.Join(lines[:c.Lines], nil), 1)
		m := gemini.NewMapper(gemini.Config{})
		if err := m.LoadState(c.State); err != nil {
			t.Fatalf("%s after %d lines: the first form does not load: %v", c.File, c.Lines, err)
		}
		after := mapEvents(t, m, bytes.Join(lines[c.Lines:], nil), c.Lines+1)
		if !slices.Equal(after, all[len(before):]) {
			t.Fatalf("%s after %d lines, from the first form: events\n%s\nwant\n%s", c.File, c.Lines, strings.Join(after, "\n"), strings.Join(all[len(before):], "\n"))
		}
		if st, _ := m.SaveState(); !bytes.Equal(st, end) {
			t.Fatalf("%s after %d lines, from the first form: end state %s, want %s", c.File, c.Lines, st, end)
		}
		n++
	}
	if n != 6 {
		t.Fatalf("%d first-form states, want 6", n)
	}

	// A first-form state with ids to escape, nil marks, a text that is no
	// digest, a list id no message was imported of and an open call.
	m := gemini.NewMapper(gemini.Config{})
	if err := m.LoadState([]byte(`{"msgs":{"a<b>&c":{"t":"x\u2028y","th":2},"b\"\\\n":null,"é":{},"z":{"th":-1}},"list":["a<b>&c","\u00ff","","x<y","p>q","r&s","u\tv","w\u007fz"],"calls":{"c\u0001":{"n":"t\"n","d":true},"d":null,"e":{"n":""},"f":{"n":"<x>"}},"told":["x","\ud800"]}`)); err != nil {
		t.Fatal(err)
	}
	st, err := m.SaveState()
	if err != nil || !json.Valid(st) {
		t.Fatalf("SaveState %s: %v", st, err)
	}
	again := gemini.NewMapper(gemini.Config{})
	if err := again.LoadState(st); err != nil {
		t.Fatal(err)
	}
	if st2, _ := again.SaveState(); !bytes.Equal(st, st2) {
		t.Fatalf("saved %s, loaded and saved %s", st, st2)
	}
	for _, bad := range []string{"", "graft gemini-cli state 3\n", "graft gemini-cli state 3\n\x01\x00\x00\x00", "graft gemini-cli state 3\n" + strings.Repeat("\x00", 20) + "x"} {
		if err := gemini.NewMapper(gemini.Config{}).LoadBinaryState([]byte(bad)); err == nil {
			t.Errorf("LoadBinaryState(%q) took it", bad)
		}
	}
	for _, bad := range []string{`{"v":3}`, `{"v":2,"list":"AAAA"}`, `{"v":2,"msgs":"AAAAAAAAAAAAAAAAAAAAAAM="}`, `{"v":2,"open":{"zz":"n"}}`} {
		if err := gemini.NewMapper(gemini.Config{}).LoadState([]byte(bad)); err == nil {
			t.Errorf("LoadState(%s) took it", bad)
		}
	}
}

// firstFormState is one line of testdata/state-v1.json-lines: the state,
// in its first form, of an import of file's first lines.
type firstFormState struct {
	File  string          `json:"file"`
	Lines int             `json:"lines"`
	State json.RawMessage `json:"state"`
}

func firstFormStates(t *testing.T) []firstFormState {
	t.Helper()
	v1, err := os.ReadFile("testdata/state-v1.json-lines")
	if err != nil {
		t.Fatal(err)
	}
	var out []firstFormState
	for _, l := range bytes.Split(bytes.TrimSpace(v1), []byte("\n")) {
		var c firstFormState
		if err := json.Unmarshal(l, &c); err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

// A call the person turns down at Gemini CLI's confirmation prompt ("No,
// suggest changes (esc)") is recorded cancelled with "[Operation Cancelled]
// Reason: User denied execution." (the real 0.61.0 wrote it:
// hosts' TestGeminiDeclinedCommandIsNoFailure), and the calls queued
// behind it with "… Reason: User cancelled operation": they did not run,
// meta declined "user". Another cancelled call was stopped while it ran
// ("stopped"); a failed one is neither.
func TestADeclinedCallIsMarkedDeclined(t *testing.T) {
	results := map[string]string{
		"[Operation Cancelled] Reason: User denied execution.":         session.DeclinedByUser,
		"[Operation Cancelled] Reason: User cancelled operation":       session.DeclinedByUser,
		"[Operation Cancelled] Reason: User cancelled tool execution.": session.DeclinedStopped,
		"Command exited with code 1":                                   "",
	}
	lines := []string{`{"sessionId":"0a1b2c3d-0000-4000-8000-000000000003","projectHash":"ab","startTime":"2026-12-01T10:00:00.000Z","lastUpdated":"2026-12-01T10:00:00.000Z","kind":"main"}`,
		`{"id":"u1","timestamp":"2026-12-01T10:00:01.000Z","type":"user","content":[{"text":"Add left-pad."}]}`}
	k := 0
	for out := range results {
		k++
		status := "cancelled"
		if !strings.HasPrefix(out, "[Operation Cancelled]") {
			status = "error"
		}
		res, _ := json.Marshal([]any{map[string]any{"functionResponse": map[string]any{"id": "c" + string(rune('0'+k)), "name": "run_shell_command", "response": map[string]string{"error": out}}}})
		lines = append(lines, `{"id":"g`+string(rune('0'+k))+`","timestamp":"2026-12-01T10:00:0`+string(rune('1'+k))+`.000Z","type":"gemini","content":"","toolCalls":[{"id":"c`+string(rune('0'+k))+`","name":"run_shell_command","args":{"command":"npm install left-pad"},"result":`+string(res)+`,"status":"`+status+`"}]}`)
	}
	path := filepath.Join(t.TempDir(), "session-2026-12-01T10-00-0a1b2c3d.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	evs, _ := importFile(t, path)
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

// testdata/plan-0.61.jsonl is the session the real interactive Gemini CLI
// 0.61.0 wrote in plan mode (hosts' TestGeminiPlanModeIsTheTapesPlan; its
// paths shortened): the agent writes its plan and asks for approval with
// exit_plan_mode; the person turns the first plan down with words, which
// Gemini CLI gives the model only in the call's result ("Plan rejected.
// User feedback: …", with status success), and approves the second ("Plan
// approved. …"). The turned-down call is declined ("user", not ok), the
// person's words follow it as their instruction (source.name
// "rejection-feedback", as Claude Code's), and the approved one is ok.
func TestAPlanTurnedDownIsDeclinedAndItsFeedbackThePersons(t *testing.T) {
	evs, sum := importFile(t, "testdata/plan-0.61.jsonl")
	if sum.WarningCount != 0 {
		t.Errorf("warnings: %q", sum.Warnings)
	}
	var exits, humans []string
	for _, ev := range evs {
		switch {
		case ev.Type == session.TypeToolResult && ev.Tool.Name == "exit_plan_mode":
			exits = append(exits, fmt.Sprintf("ok=%v declined=%q", ev.OKResult(), ev.Meta[session.MetaDeclined]))
		case ev.IsHumanInstruction():
			humans = append(humans, ev.Source.Name+": "+ev.Text)
		}
	}
	if want := []string{`ok=false declined="user"`, `ok=true declined=""`}; !slices.Equal(exits, want) {
		t.Errorf("plan exits %q, want %q", exits, want)
	}
	if want := []string{": Hello.", ": Plan the parser.", "rejection-feedback: Use goyacc, and write the grammar tests first."}; !slices.Equal(humans, want) {
		t.Errorf("human instructions %q, want %q", humans, want)
	}
}

// testdata/tracker-0.61.jsonl is the session the real Gemini CLI 0.61.0
// wrote with its task tracker on (settings experimental.taskTracker; it
// turns write_todos off, which Gemini 3 models never get): the agent
// creates two tasks with tracker_create_task and closes the first with
// tracker_update_task. Each call's resultDisplay is the whole list as the
// host shows it ({"todos": [{description, status}]}); each becomes a
// todo/write of that list, so the tape's last list is the tracker's.
func TestTheTaskTrackerIsTheTodoList(t *testing.T) {
	evs, sum := importFile(t, "testdata/tracker-0.61.jsonl")
	if sum.WarningCount != 0 {
		t.Errorf("warnings: %q", sum.Warnings)
	}
	var lists [][]string
	for _, ev := range evs {
		if ev.Type != session.TypeTodoWrite {
			continue
		}
		var l []string
		for _, td := range ev.Todos {
			l = append(l, td.Status+" "+td.Content)
		}
		lists = append(lists, l)
		if ev.Meta["callId"] == "" || !strings.HasPrefix(ev.Meta["callId"], "tracker_") {
			t.Errorf("todo/write without its tracker call: meta %v", ev.Meta)
		}
	}
	want := [][]string{
		{"pending task: Write the grammar tests (61ace7)"},
		{"pending task: Write the grammar tests (61ace7)", "pending task: Generate the parser with goyacc (e10d83)"},
		{"pending task: Generate the parser with goyacc (e10d83)", "completed task: Write the grammar tests (61ace7)"},
	}
	if fmt.Sprint(lists) != fmt.Sprint(want) {
		t.Errorf("todo lists\n%q\nwant\n%q", lists, want)
	}
}

// A tracker call whose result shows no list (an older or newer shape)
// writes no todo/write and is warned of; a blocked task is pending with
// its status kept in the text, and warned of, as write_todos's is.
func TestATrackerResultWithoutItsListIsWarnedOf(t *testing.T) {
	const file = `{"sessionId":"0a1b2c3d-0000-4000-8000-000000000002","projectHash":"ab","startTime":"2026-12-01T10:00:00.000Z","lastUpdated":"2026-12-01T10:00:00.000Z","kind":"main"}
{"id":"u1","timestamp":"2026-12-01T10:00:01.000Z","type":"user","content":[{"text":"Build the parser."}]}
{"id":"g1","timestamp":"2026-12-01T10:00:02.000Z","type":"gemini","content":"","model":"m","toolCalls":[{"id":"t1","name":"tracker_update_task","args":{"id":"2bdbbf","status":"blocked"},"status":"success","result":[{"functionResponse":{"id":"t1","name":"tracker_update_task","response":{"output":"Updated task 2bdbbf. Status: blocked"}}}],"resultDisplay":{"todos":[{"description":"task: Write the grammar tests (2bdbbf)","status":"blocked"}]}},{"id":"t2","name":"tracker_list_tasks","args":{},"status":"success","result":[{"functionResponse":{"id":"t2","name":"tracker_list_tasks","response":{"output":"no tasks"}}}],"resultDisplay":"No tasks."}]}
`
	path := filepath.Join(t.TempDir(), "session-2026-12-01T10-00-0a1b2c3d.jsonl")
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	evs, sum := importFile(t, path)
	var lists [][]session.Todo
	for _, ev := range evs {
		if ev.Type == session.TypeTodoWrite {
			lists = append(lists, ev.Todos)
		}
	}
	if len(lists) != 1 || len(lists[0]) != 1 || lists[0][0].Status != session.TodoPending || lists[0][0].Content != "task: Write the grammar tests (2bdbbf) [status: blocked]" {
		t.Errorf("todo lists %+v, want one: the blocked task, pending with its status", lists)
	}
	w := strings.Join(sum.Warnings, "\n")
	if sum.WarningCount != 2 || !strings.Contains(w, `status "blocked"`) || !strings.Contains(w, `tracker_list_tasks "t2" shows no task list`) {
		t.Errorf("warnings %d: %q; want the blocked status and the list tracker_list_tasks did not show", sum.WarningCount, sum.Warnings)
	}
}

// Gemini CLI's earlier session files are one JSON document written with
// two-space indents (session-<time>-<id8>.json). The real 0.61.0 lists
// one and, resuming it, writes it again beside it as session-….jsonl
// (seen on the real program); graft reads the JSONL. A first import of
// the document is refused, and the refusal says what the file is and how
// to get the one graft reads.
func TestAnEarlierSessionDocumentIsRefusedWithTheWayOn(t *testing.T) {
	const doc = `{
  "sessionId": "b1fc1c13-d1f3-4d40-92ba-e9d43c08ccf5",
  "projectHash": "86bc0e27f2bad5ee2e2625969dc74484f7717cff50ea68e3c3f18194c802a493",
  "startTime": "2026-01-01T06:45:24.901Z",
  "lastUpdated": "2026-01-01T08:55:21.894Z",
  "messages": [
    {
      "id": "c0db946a-77b6-4229-950d-7b259c95eb13",
      "timestamp": "2026-01-01T06:45:24.901Z",
      "type": "user",
      "content": "where is the entire history of our chat saved locally?"
    }
  ]
}
`
	path := filepath.Join(t.TempDir(), "session-2026-01-01T06-42-b1fc1c13.json")
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	st, home := testfixtures.NewStore(t)
	_, err := gemini.Import(gemini.Options{Store: st, Home: home, Path: path, ID: "g"})
	if !errors.Is(err, importer.ErrNotTranscript) {
		t.Fatalf("import of an earlier session document: %v, want a refusal", err)
	}
	for _, want := range []string{"is a Gemini CLI session in its earlier format", "gemini --resume b1fc1c13-d1f3-4d40-92ba-e9d43c08ccf5", "session-2026-01-01T06-42-b1fc1c13.jsonl", "nothing was imported"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal %q does not say %q", err, want)
		}
	}
}

// Gemini CLI records a shell command that exits non-zero as a call that
// went well (status "success"): the exit is only in the output it gives
// its model. testdata/shell-exit-0.61.jsonl is the real 0.61.0's session
// of "exit 3" then "echo fine" ("<untrusted_context>\nOutput: …\nExit
// Code: 3\nProcess Group PGID: N\n</untrusted_context>"); earlier releases
// wrote every section ("Command: …\nDirectory: …\nOutput: …\nError:
// (none)\nExit Code: 0\nSignal: 0\nBackground PIDs: (none)\nProcess Group
// PGID: N"). The exit code, a signal or a process error makes the result a
// failure (genai.ParseShellOutput, whose test has each shape); the output
// stays as the host wrote it.
func TestAShellCommandsExitCodeDecidesItsOutcome(t *testing.T) {
	evs, sum := importFile(t, "testdata/shell-exit-0.61.jsonl")
	if sum.WarningCount != 0 {
		t.Errorf("warnings: %q", sum.Warnings)
	}
	var got []string
	for _, ev := range evs {
		if ev.Type == session.TypeToolResult && ev.Tool.Name == "run_shell_command" {
			got = append(got, fmt.Sprintf("ok=%v exit=%s", ev.OKResult(), ev.Meta["exitCode"]))
			if !strings.Contains(ev.Tool.Output, "Process Group PGID: ") {
				t.Errorf("the output is not the host's: %q", ev.Tool.Output)
			}
		}
	}
	if want := []string{"ok=false exit=3", "ok=true exit="}; !slices.Equal(got, want) {
		t.Errorf("shell results %q, want %q", got, want)
	}
}

// Gemini CLI 0.61.0 names no working directory on its records; the
// session context it writes first lists the workspace directories, the
// first being where it runs (testdata/session-recorded.jsonl, the real
// program's). That context event carries it as meta cwd, as the other
// hosts' records do, so that the tape's paths are relative to it and a
// handoff's new session goes to that directory.
func TestTheSessionContextNamesTheWorkingDirectory(t *testing.T) {
	evs, _ := importFile(t, "testdata/session-recorded.jsonl")
	cwd := ""
	for _, ev := range evs {
		if ev.Source.Name == "session-context" {
			cwd = ev.Meta["cwd"]
			break
		}
	}
	if cwd != "/home/dev/work" {
		t.Errorf("the session context's cwd is %q, want /home/dev/work", cwd)
	}
	for _, c := range []struct{ text, want string }{
		{"<session_context>\n- **Workspace Directories:**\n  - /a/b\n  - /c\n- **Directory Structure:**", "/a/b"},
		{"<session_context>\nMy operating system is: linux\n</session_context>", ""},
		{"<session_context>\n- **Workspace Directories:**\n  - relative/dir\n", ""},
	} {
		if got := gemini.WorkspaceDir(c.text); got != c.want {
			t.Errorf("WorkspaceDir(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

// A custom command the person typed (.gemini/commands/explore.toml): the
// real Gemini CLI 0.61.0 records the command's text, its arguments filled
// in, as the message's content and what was typed as its displayContent.
// What was typed is the person's; the text is the command file's, the
// host's words (kind "skill", as Claude Code's, Codex's and Qwen Code's),
// which the tape shows under the instruction as the mode the work runs in
// and never takes for the person's rules. An @file reference the person
// typed (displayContent not a command) stays one message of theirs.
func TestACommandsTextIsTheHostsWords(t *testing.T) {
	const file = `{"sessionId":"0a1b2c3d-0000-4000-8000-000000000003","projectHash":"ab","startTime":"2026-12-01T10:00:00.000Z","lastUpdated":"2026-12-01T10:00:00.000Z","kind":"main"}
{"id":"u1","timestamp":"2026-12-01T10:00:01.000Z","type":"user","content":[{"text":"Explore mode is for research, not implementing. You MUST NOT write code.\n\nThe question: why is the build slow\n"}],"displayContent":[{"text":"/explore why is the build slow"}]}
{"id":"u2","timestamp":"2026-12-01T10:00:02.000Z","type":"user","content":[{"text":"Read @a.go"},{"text":"--- a.go ---\npackage a"}],"displayContent":[{"text":"Read @a.go"}]}
`
	got := messageShapes(t, file)
	want := []string{
		"2 user/message user/slash-command /explore why is the build slow",
		"2 user/message skill/command Explore mode is for research, not implementing. You MUST NOT write code.\n\nThe question: why is the build slow",
		"3 user/message user Read @a.go",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("events:\n%q\nwant:\n%q", got, want)
	}
}

// messageShapes imports file (a session file's lines) and gives each event
// after the header's by its shape and text.
func messageShapes(t *testing.T, file string) []string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "session-2026-12-01T10-00-0a1b2c3d.jsonl")
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	evs, _ := importFile(t, path)
	var got []string
	for _, ev := range evs[1:] {
		got = append(got, shape(ev)+" "+ev.Text)
	}
	return got
}

// Gemini CLI's other files in its project folder are no session: a
// checkpoint (checkpoint-<tag>.json, what /chat save writes: a list of
// contents, one line or indented; seen in public dotfiles) and logs.json
// (the prompts typed, each {sessionId, messageId, type, message,
// timestamp}). A first import refuses each and says what it is and which
// files graft reads.
func TestGeminisOtherFilesAreRefusedByName(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"checkpoint-build.json", `[{"role":"user","parts":[{"text":"This is the Gemini CLI."}]},{"role":"model","parts":[{"text":"Got it."}]}]`, "is a Gemini CLI checkpoint"},
		{"checkpoint-build.json", "[\n  {\n    \"role\": \"user\",\n    \"parts\": [\n      {\n        \"text\": \"hi\"\n      }\n    ]\n  }\n]\n", "is a Gemini CLI checkpoint"},
		{"logs.json", "[\n  {\n    \"sessionId\": \"6863703c-6593-4da0-93ca-55d5fb073172\",\n    \"messageId\": 0,\n    \"type\": \"user\",\n    \"message\": \"/chat resume\",\n    \"timestamp\": \"2025-07-12T07:43:52.551Z\"\n  }\n]\n", "is Gemini CLI's logs.json"},
	} {
		path := filepath.Join(t.TempDir(), c.name)
		if err := os.WriteFile(path, []byte(c.text), 0o600); err != nil {
			t.Fatal(err)
		}
		st, home := testfixtures.NewStore(t)
		_, err := gemini.Import(gemini.Options{Store: st, Home: home, Path: path, ID: "g"})
		if !errors.Is(err, importer.ErrNotTranscript) {
			t.Fatalf("import of %s: %v, want a refusal", c.name, err)
		}
		for _, want := range []string{c.want, "session-….jsonl", "nothing was imported"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("the refusal %q does not say %q", err, want)
			}
		}
	}
}
