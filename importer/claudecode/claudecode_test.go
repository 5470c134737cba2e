package claudecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/internal/testfixtures"
	"github.com/graft-project/graft/session"
)

func humans(evs []session.Event) []session.Event {
	var out []session.Event
	for _, ev := range evs {
		if ev.IsHumanInstruction() {
			out = append(out, ev)
		}
	}
	return out
}

const (
	long1 = "4d5611e5-241a-462a-8d15-5122611a9569"
	long2 = "8463c716-a2ea-4c14-9efa-87158ebd9f20"
)

// The human instructions of the five fixtures, counted by hand: every
// "type":"user" line was read (jq -c 'select(.type=="user")'); a line
// counts only if it is none of the excluded kinds, each named below by its
// line number.
var humanTable = []struct {
	file  string
	lines []string // meta "line" of each human instruction, in order
}{
	// short.jsonl: 4 "mix phx.server doesnt seem to start".
	// Not: 11, 12 tool_result; 13 "[Request interrupted by user for tool
	// use]". (14 "/model" is a "system" line of subtype local_command, not
	// a user line.)
	{"short.jsonl", []string{"4"}},
	// tool_heavy.jsonl: 4 "start phoenix in background"; 21 the slash
	// command /mcp (the human's by the DESIGN rule, though its args are
	// empty); 26 "scrolling back in xterm.js still does not work…".
	// Not: 11, 17, 32, 33, 36, 38 tool_result; 18, 39 "[Request
	// interrupted by user]"; 20 isMeta <local-command-caveat>; 22
	// <local-command-stdout> (output of /mcp, not words to the agent).
	{"tool_heavy.jsonl", []string{"4", "21", "26"}},
	// subagent.jsonl: 4 the slash command /handgemacht:create-beads with
	// its arguments; 71 "create the beads".
	// Not: 5 isMeta skill text; 13-16, 21, 23, 26, 30, 34, 56, 66, 68, 76,
	// 82, 86, 91 tool_result; 69 "[Request interrupted by user]".
	{"subagent.jsonl", []string{"4", "71"}},
	// 4d5611e5: 7 "Work on bead spotter-dov…"; 280 "continue".
	// Not: 755 isCompactSummary; 1502 <task-notification>; the other 150
	// user lines are tool_result.
	{long1 + ".jsonl", []string{"7", "280"}},
	// 8463c716: 6 "Work on bead spotter-fum…".
	// Not: 715 isCompactSummary; 1588 <task-notification>; the other 177
	// user lines are tool_result.
	{long2 + ".jsonl", []string{"6"}},
}

// Per-kind counts, cross-checked with jq over the raw files: tool calls =
// tool_use blocks, tool results = tool_result blocks, assistant messages =
// text blocks with a non-blank text (blank ones are skipped), injected =
// user text lines minus the human ones, system = "system" lines, reports =
// Task results that are not errors, thinking blocks dropped.
var countTable = map[string]importer.Counts{
	"short.jsonl":      {HumanInstructions: 1, InjectedMessages: 1, AssistantMessages: 1, ToolCalls: 2, ToolResults: 2, System: 2},
	"tool_heavy.jsonl": {HumanInstructions: 3, InjectedMessages: 4, AssistantMessages: 1, ToolCalls: 6, ToolResults: 6, System: 2},
	"subagent.jsonl":   {HumanInstructions: 2, InjectedMessages: 2, AssistantMessages: 7, ToolCalls: 16, ToolResults: 16, Reports: 1, System: 1},
	long1 + ".jsonl":   {HumanInstructions: 2, InjectedMessages: 2, AssistantMessages: 84, ToolCalls: 150, ToolResults: 150, Reports: 1, System: 6},
	long2 + ".jsonl":   {HumanInstructions: 1, InjectedMessages: 2, AssistantMessages: 78, ToolCalls: 177, ToolResults: 177, Reports: 1, System: 4},
}

var skippedTable = map[string]map[string]int{
	"short.jsonl":      {"progress": 3, "file-history-snapshot": 1, "thinking": 1, "empty assistant text": 1},
	"tool_heavy.jsonl": {"progress": 10, "file-history-snapshot": 3, "queue-operation": 2, "thinking": 1, "empty assistant text": 1},
	"subagent.jsonl":   {"progress": 44, "file-history-snapshot": 3, "thinking": 4, "empty assistant text": 1},
	long1 + ".jsonl":   {"progress": 1083, "file-history-snapshot": 14, "queue-operation": 1, "thinking": 14, "empty assistant text": 6},
	long2 + ".jsonl":   {"progress": 1117, "file-history-snapshot": 13, "queue-operation": 1, "thinking": 19, "empty assistant text": 4},
}

func TestFixtures(t *testing.T) {
	fx := testfixtures.Path(t, "claude-code")
	st, home := testfixtures.NewStore(t)
	for _, c := range humanTable {
		t.Run(c.file, func(t *testing.T) {
			sum, err := Import(Options{Store: st, Home: home, Path: filepath.Join(fx, c.file)})
			if err != nil {
				t.Fatal(err)
			}
			id := strings.TrimSuffix(c.file, ".jsonl")
			evs := testfixtures.ReadSession(t, st, id)
			var got []string
			for _, ev := range humans(evs) {
				got = append(got, ev.Meta["line"])
			}
			if !reflect.DeepEqual(got, c.lines) {
				t.Errorf("human instructions at lines %v, want %v", got, c.lines)
			}
			if sum.Counts != countTable[c.file] {
				t.Errorf("counts:\n got %+v\nwant %+v", sum.Counts, countTable[c.file])
			}
			if !reflect.DeepEqual(sum.Skipped, skippedTable[c.file]) {
				t.Errorf("skipped:\n got %v\nwant %v", sum.Skipped, skippedTable[c.file])
			}
			if sum.MalformedCount != 0 || sum.WarningCount != 0 || sum.PendingTail != nil {
				t.Errorf("malformed %d, warnings %v, pending %+v: the fixtures are clean", sum.MalformedCount, sum.Warnings, sum.PendingTail)
			}
			if sum.Appended != len(evs) {
				t.Errorf("appended %d, session has %d", sum.Appended, len(evs))
			}
			for _, ev := range evs {
				if ev.Meta["uuid"] == "" || ev.Meta["line"] == "" || ev.TS == "" {
					t.Fatalf("seq %d lacks provenance: ts %q meta %v", ev.Seq, ev.TS, ev.Meta)
				}
			}
		})
	}
}

func TestSubagentFixture(t *testing.T) {
	st, home := testfixtures.NewStore(t)
	if _, err := Import(Options{Store: st, Home: home, Path: filepath.Join(testfixtures.Path(t, "claude-code"), "subagent.jsonl")}); err != nil {
		t.Fatal(err)
	}
	evs := testfixtures.ReadSession(t, st, "subagent")
	byLine := map[string][]session.Event{}
	for _, ev := range evs {
		byLine[ev.Meta["line"]] = append(byLine[ev.Meta["line"]], ev)
	}
	// Line 5: the isMeta skill text, full of "ONLY" and "Do NOT": injected.
	skill := byLine["5"]
	if len(skill) != 1 || skill[0].IsHumanInstruction() || skill[0].Source.Kind != session.KindSkill || !strings.Contains(skill[0].Text, "This skill ONLY creates beads") {
		t.Fatalf("line 5 (isMeta skill text) = %+v; want one skill message that is not a human instruction", skill)
	}
	// Line 4: the slash command; its arguments are the human's instruction.
	cmd := byLine["4"]
	want := "/handgemacht:create-beads websearch to learn how to fastest setup credo, dialyzer, mix_audit (basically all supported by https://github.com/bradleygolden/claude-marketplace-elixir)\n\nMaybe there are igniter scripts?"
	if len(cmd) != 1 || !cmd[0].IsHumanInstruction() || cmd[0].Text != want {
		t.Fatalf("line 4 (slash command) = %+v;\nwant the human instruction %q", cmd, want)
	}
	// Line 56: the Task result, then its report; no sub-agent transcript
	// sits beside this fixture, so the report names the agent but no
	// sub-session.
	res := byLine["56"]
	if len(res) != 2 || res[0].Type != session.TypeToolResult || res[1].Type != session.TypeSubagentReport {
		t.Fatalf("line 56 = %+v; want tool/result then subagent/report", res)
	}
	rep := res[1]
	if rep.Agent != "Plan" || rep.Source.Kind != session.KindSubagent || rep.Meta["agentId"] != "afb92ff" || rep.Meta["subSession"] != "" ||
		!strings.HasPrefix(rep.Text, "Excellent! Now I have all the information") || strings.Contains(rep.Text, "agentId:") {
		t.Fatalf("report = agent %q meta %v text %.80q", rep.Agent, rep.Meta, rep.Text)
	}
	if res[0].Tool.Name != "Task" || res[0].Tool.CallID != "toolu_01Cz2Pnv7qNcnK1ZiocxWhQX" || !strings.Contains(res[0].Tool.Output, "agentId: afb92ff") {
		t.Fatalf("Task result = %+v", res[0].Tool)
	}
}

func TestLongFixtureWithCompactionAndSubAgents(t *testing.T) {
	st, home := testfixtures.NewStore(t)
	sum, err := Import(Options{Store: st, Home: home, Path: filepath.Join(testfixtures.Path(t, "claude-code"), long1+".jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	evs := testfixtures.ReadSession(t, st, long1)
	h := humans(evs)
	const first = "Work on bead spotter-dov. Run bd show spotter-dov to see the issue details and bd ready to find available subtasks. Start with the first ready task."
	if len(h) == 0 || h[0].Text != first {
		t.Fatalf("first human instruction = %+v, want %q", h, first)
	}
	var compact, notification, boundary *session.Event
	for k := range evs {
		ev := &evs[k]
		switch ev.Meta["line"] {
		case "755":
			compact = ev
		case "1502":
			notification = ev
		case "754":
			boundary = ev
		}
		if ev.IsHumanInstruction() && (strings.Contains(ev.Text, "<task-notification>") || strings.Contains(ev.Text, "being continued from a previous conversation")) {
			t.Errorf("seq %d is a human instruction but quotes the host: %.80q", ev.Seq, ev.Text)
		}
	}
	if compact == nil || compact.IsHumanInstruction() || compact.Source.Name != "compact-summary" || !strings.HasPrefix(compact.Text, "This session is being continued") {
		t.Fatalf("line 755 (isCompactSummary) = %+v", compact)
	}
	if notification == nil || notification.IsHumanInstruction() || notification.Source.Name != "task-notification" {
		t.Fatalf("line 1502 (<task-notification>) = %+v", notification)
	}
	if boundary == nil || boundary.Type != session.TypeSystem || boundary.Meta["subtype"] != "compact_boundary" || boundary.Meta["trigger"] == "" {
		t.Fatalf("line 754 (compact_boundary) = %+v", boundary)
	}

	// The sub-agent transcripts under <uuid>/subagents/ are sessions of
	// their own, linked both ways.
	sub := long1 + ".agent-a2898e3"
	var report *session.Event
	for k := range evs {
		if evs[k].Type == session.TypeSubagentReport {
			report = &evs[k]
		}
	}
	if report == nil || report.Meta["subSession"] != sub || report.Agent != "Explore" {
		t.Fatalf("report = %+v; want subSession %s, agent Explore", report, sub)
	}
	if len(sum.SubSessions) != 2 || sum.SubSessions[0].Session != long1+".agent-a2898e3" || sum.SubSessions[1].Session != long1+".agent-acompact-e1f845" {
		t.Fatalf("sub-sessions = %+v", sum.SubSessions)
	}
	for _, ss := range sum.SubSessions {
		subEvs := testfixtures.ReadSession(t, st, ss.Session)
		if len(subEvs) == 0 || len(subEvs) != ss.Appended {
			t.Fatalf("%s: %d events, summary says %d", ss.Session, len(subEvs), ss.Appended)
		}
		for _, ev := range subEvs {
			if ev.Meta["parentSession"] != long1 {
				t.Fatalf("%s seq %d: meta %v, want parentSession %s", ss.Session, ev.Seq, ev.Meta, long1)
			}
			if ev.IsHumanInstruction() {
				t.Fatalf("%s seq %d: a sub-agent transcript has a human instruction: %.80q", ss.Session, ev.Seq, ev.Text)
			}
		}
	}
	if c := sum.SubSessions[0].Counts; c.ToolCalls != 33 || c.ToolResults != 33 || c.InjectedMessages != 1 {
		t.Fatalf("agent-a2898e3 counts %+v; want 33 calls and results (its totalToolUseCount) and 1 prompt", c)
	}
}

type wantEvent struct {
	line, typ, kind, name, tool, text string
}

func TestSyntheticTranscript(t *testing.T) {
	st, home := testfixtures.NewStore(t)
	sum, err := Import(Options{Store: st, Home: home, Path: "testdata/synthetic.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	wants := []wantEvent{
		{"1", session.TypeSystem, "system", "summary", "", "Pager bound fix"},
		{"2", session.TypeUserMessage, "user", "", "", "Fix the pager bound. Do NOT touch the public API."},
		{"4", session.TypeToolCall, "assistant", "", "TodoWrite", ""},
		{"4", session.TypeTodoWrite, "assistant", "", "", ""},
		{"5", session.TypeToolResult, "tool", "", "TodoWrite", "Todos have been modified successfully."},
		{"6", session.TypeToolCall, "assistant", "", "Task", ""},
		{"7", session.TypeToolResult, "tool", "", "Task", "Found it in pager.go:12\nagentId: b1 (for resuming to continue this agent's work if needed)\n<usage>total_tokens: 100\ntool_uses: 1\nduration_ms: 5</usage>"},
		{"7", session.TypeSubagentReport, "subagent", "Task", "", "Found it in pager.go:12"},
		{"8", session.TypeToolCall, "assistant", "", "Edit", ""},
		{"9", session.TypeToolResult, "tool", "", "Edit", "<tool_use_error>File has not been read yet.</tool_use_error>"},
		{"10", session.TypeUserMessage, "user", "", "", "Here is the screenshot\n\n[1 image(s) attached]"},
		{"11", session.TypeUserMessage, "user", "bash-input", "", "! git status"},
		{"12", session.TypeUserMessage, "system", "local-command-output", "", "<bash-stdout>nothing to commit</bash-stdout><bash-stderr></bash-stderr>"},
		{"13", session.TypeUserMessage, "system", "system-reminder", "", "<system-reminder>A PostToolUse hook says: run gofmt.</system-reminder>"},
		{"14", session.TypeSystem, "system", "unknown", "", `unknown Claude Code line type "brand-new-record"`},
		{"19", session.TypeToolResult, "tool", "", "unknown", "orphan"},
		{"20", session.TypeAssistantMessage, "assistant", "", "", "Done."},
	}
	evs := testfixtures.ReadSession(t, st, "synthetic")
	if len(evs) != len(wants) {
		for _, ev := range evs {
			t.Logf("line %s %s %s/%s", ev.Meta["line"], ev.Type, ev.Source.Kind, ev.Source.Name)
		}
		t.Fatalf("%d events, want %d", len(evs), len(wants))
	}
	for k, w := range wants {
		ev := evs[k]
		got := wantEvent{ev.Meta["line"], ev.Type, ev.Source.Kind, ev.Source.Name, "", ev.Text}
		if ev.Tool != nil {
			got.tool, got.text = ev.Tool.Name, ev.Tool.Output
		}
		if got != w {
			t.Errorf("seq %d:\n got %+v\nwant %+v", ev.Seq, got, w)
		}
	}
	wantTodos := []session.Todo{{ID: "1", Content: "Read pager.go", Status: "completed"}, {ID: "2", Content: "Fix the bound", Status: "in_progress"}}
	if !reflect.DeepEqual(evs[3].Todos, wantTodos) {
		t.Errorf("todos = %+v, want %+v", evs[3].Todos, wantTodos)
	}
	// The input is the transcript's, field for field (the store's JSON
	// encoder escapes '<' as \u003c; the value is the same).
	var in map[string]any
	if err := json.Unmarshal(evs[8].Tool.Input, &in); err != nil {
		t.Fatal(err)
	}
	if want := map[string]any{"file_path": "/repo/pager.go", "old_string": "i <= n", "new_string": "i < n"}; !reflect.DeepEqual(in, want) {
		t.Errorf("Edit input = %v, want the raw input %v", in, want)
	}
	if ok := evs[9].Tool.OK; ok == nil || *ok {
		t.Errorf("is_error result: ok = %v, want false", ok)
	}
	if ok := evs[4].Tool.OK; ok == nil || !*ok {
		t.Errorf("successful result: ok = %v, want true", ok)
	}
	rep := evs[7]
	if rep.Agent != "Explore" || rep.Meta["subSession"] != "synthetic.agent-b1" || rep.Meta["agentId"] != "b1" {
		t.Errorf("report agent %q meta %v", rep.Agent, rep.Meta)
	}
	var lines []int
	for _, m := range sum.Malformed {
		lines = append(lines, m.Line)
	}
	if sum.MalformedCount != 4 || !reflect.DeepEqual(lines, []int{15, 16, 17, 18}) {
		t.Errorf("malformed %d at %v, want lines 15-18", sum.MalformedCount, lines)
	}
	// An unknown line type is said once, with the version the line names.
	if sum.WarningCount != 2 || !strings.Contains(sum.Warnings[0], "line 14") || !strings.Contains(sum.Warnings[0], `Claude Code 2.1.999 wrote a line type this graft does not know, "brand-new-record"`) || !strings.Contains(sum.Warnings[1], "line 19") {
		t.Errorf("warnings = %v", sum.Warnings)
	}
	if sum.Skipped["thinking"] != 1 {
		t.Errorf("skipped = %v, want thinking 1", sum.Skipped)
	}
	text := sum.Text()
	for _, s := range []string{"malformed lines skipped: 4 (line 15, 16, 17, 18)", "human instructions 3", "sub-agent reports 1", "synthetic.agent-b1"} {
		if !strings.Contains(text, s) {
			t.Errorf("summary text lacks %q:\n%s", s, text)
		}
	}

	subEvs := testfixtures.ReadSession(t, st, "synthetic.agent-b1")
	if len(subEvs) != 4 || subEvs[0].Source.Name != "subagent-prompt" || subEvs[0].IsHumanInstruction() || subEvs[2].Tool == nil || subEvs[2].Tool.Name != "Grep" {
		t.Fatalf("sub-session events = %+v", subEvs)
	}

	// Re-running finds nothing new in either transcript.
	again, err := Import(Options{Store: st, Home: home, Path: "testdata/synthetic.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	if again.Appended != 0 || len(again.SubSessions) != 1 || again.SubSessions[0].Appended != 0 || !again.SubSessions[0].Resumed {
		t.Fatalf("re-import appended %d (sub %+v)", again.Appended, again.SubSessions)
	}
}

func TestKeepThinking(t *testing.T) {
	st, home := testfixtures.NewStore(t)
	sum, err := Import(Options{Store: st, Home: home, Path: "testdata/synthetic.jsonl", ID: "kept", KeepThinking: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Counts.Thinking != 1 || sum.Skipped["thinking"] != 0 {
		t.Fatalf("thinking %d, skipped %v", sum.Counts.Thinking, sum.Skipped)
	}
	ev := testfixtures.ReadSession(t, st, "kept")[2]
	if ev.Type != session.TypeAssistantMessage || ev.Source.Name != importer.ThinkingName || ev.Text != "The bound is probably <= instead of <." {
		t.Fatalf("thinking event = %+v", ev)
	}
	// The same session cannot continue without thinking: the mapping would
	// change half-way.
	if _, err := Import(Options{Store: st, Home: home, Path: "testdata/synthetic.jsonl", ID: "kept"}); !errors.Is(err, importer.ErrSettings) {
		t.Fatalf("err = %v, want ErrSettings", err)
	}
}

// A copy of the long fixture imported in two runs (the first cut in the
// middle of a line, as a host mid-write leaves it) gives the same session as
// one import; a shortened or rewritten copy is refused and nothing appended.
func TestIncrementalOnCopiedFixture(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testfixtures.Path(t, "claude-code"), long1+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	st, home := testfixtures.NewStore(t)
	src := filepath.Join(t.TempDir(), "live.jsonl")
	cut := bytes.IndexByte(data[len(data)/2:], '\n') + len(data)/2 + 1 + 100
	if err := os.WriteFile(src, data[:cut], 0o600); err != nil {
		t.Fatal(err)
	}
	first, err := Import(Options{Store: st, Home: home, Path: src, ID: "live"})
	if err != nil {
		t.Fatal(err)
	}
	if first.PendingTail == nil || first.PendingTail.Bytes != 100 {
		t.Fatalf("pending tail %+v, want the 100 bytes of the cut line", first.PendingTail)
	}
	if err := os.WriteFile(src, data, 0o600); err != nil {
		t.Fatal(err)
	}
	second, err := Import(Options{Store: st, Home: home, Path: src, ID: "live"})
	if err != nil {
		t.Fatal(err)
	}
	if second.FromLine != first.ToLine+1 || second.ToLine != 1512 || second.Appended == 0 {
		t.Fatalf("second run: lines %d-%d appended %d", second.FromLine, second.ToLine, second.Appended)
	}
	whole := filepath.Join(t.TempDir(), "whole.jsonl")
	if err := os.WriteFile(whole, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Import(Options{Store: st, Home: home, Path: whole, ID: "whole"}); err != nil {
		t.Fatal(err)
	}
	a, b := testfixtures.ReadSession(t, st, "live"), testfixtures.ReadSession(t, st, "whole")
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("two-run import (%d events) differs from one import (%d events)", len(a), len(b))
	}

	before, err := os.ReadFile(st.Path("live"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, data[:len(data)-5000], 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Import(Options{Store: st, Home: home, Path: src, ID: "live"}); !errors.Is(err, importer.ErrSourceShortened) {
		t.Fatalf("shortened source: err = %v, want ErrSourceShortened", err)
	}
	rewritten := bytes.Replace(data, []byte("Work on bead spotter-dov"), []byte("Work on bead spotter-XXX"), 1)
	rewritten = append(rewritten, data[len(data)-300:]...)
	if err := os.WriteFile(src, rewritten, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Import(Options{Store: st, Home: home, Path: src, ID: "live"}); !errors.Is(err, importer.ErrSourceRewritten) {
		t.Fatalf("rewritten source: err = %v, want ErrSourceRewritten", err)
	}
	after, err := os.ReadFile(st.Path("live"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Fatal("a refused import changed the session")
	}
}

func TestClassify(t *testing.T) {
	m := NewMapper(Config{})
	for _, c := range []struct {
		ln         line
		text       string
		kind, name string
		out        string
	}{
		{line{}, "plain words", "user", "", "plain words"},
		{line{IsMeta: true}, "skill body", "skill", "skill", "skill body"},
		{line{IsMeta: true}, "<local-command-caveat>Caveat</local-command-caveat>", "system", "local-command-caveat", "<local-command-caveat>Caveat</local-command-caveat>"},
		{line{IsCompactSummary: true}, "This session is being continued", "system", "compact-summary", "This session is being continued"},
		{line{IsSidechain: true}, "Explore the code", "system", "subagent-prompt", "Explore the code"},
		{line{}, "<task-notification>\n<status>completed</status>", "system", "task-notification", "<task-notification>\n<status>completed</status>"},
		{line{}, "[Request interrupted by user for tool use]", "system", "interrupted", "[Request interrupted by user for tool use]"},
		{line{}, "<command-name>/review</command-name>\n<command-message>review</command-message>\n<command-args>the parser</command-args>", "user", "slash-command", "/review the parser"},
		{line{}, "<command-message>deploy</command-message>\n<command-args></command-args>", "user", "slash-command", "/deploy"},
		{line{}, "<local-command-stdout>ok</local-command-stdout>", "system", "local-command-output", "<local-command-stdout>ok</local-command-stdout>"},
		{line{}, "<user-prompt-submit-hook>Always run make lint.</user-prompt-submit-hook>", "system", "hook", "<user-prompt-submit-hook>Always run make lint.</user-prompt-submit-hook>"},
		{line{}, "<system-reminder>Never skip tests.</system-reminder>", "system", "system-reminder", "<system-reminder>Never skip tests.</system-reminder>"},
		{line{}, "<bash-input>git status</bash-input>", "user", "bash-input", "! git status"},
	} {
		src, out := m.classify(&c.ln, c.text)
		if src.Kind != c.kind || src.Name != c.name || out != c.out {
			t.Errorf("classify(%+v, %q) = %s/%s %q; want %s/%s %q", c.ln, c.text, src.Kind, src.Name, out, c.kind, c.name, c.out)
		}
	}
	// In a sub-agent's transcript no user line is the human's, even one
	// without isSidechain: they are the parent agent's words.
	sub := NewMapper(Config{Parent: "main"})
	if src, _ := sub.classify(&line{}, "Find where the bound is computed. Never edit files."); src.Kind != "system" || src.Name != "subagent-prompt" {
		t.Errorf("a sub-agent transcript's user line is %s/%s, want system/subagent-prompt", src.Kind, src.Name)
	}
}

// What the mapper cannot read is kept and said: a tool_result whose content
// is neither a string nor blocks keeps its raw JSON as the output, and a
// timestamp that is not RFC 3339 stays in meta "timestamp"; the summary
// warns about each.
func TestUnreadableFieldsAreKeptAndWarned(t *testing.T) {
	src := filepath.Join(t.TempDir(), "odd.jsonl")
	lines := []string{
		`{"type":"assistant","uuid":"a1","timestamp":"2026-03-01T10:00:01Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]}}`,
		`{"type":"user","uuid":"u1","timestamp":"2026-03-01T10:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":{"files":3}}]}}`,
		`{"type":"user","uuid":"u2","timestamp":"Sunday noon","message":{"role":"user","content":"Carry on."}}`,
	}
	if err := os.WriteFile(src, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	st, home := testfixtures.NewStore(t)
	sum, err := Import(Options{Store: st, Home: home, Path: src})
	if err != nil {
		t.Fatal(err)
	}
	evs := testfixtures.ReadSession(t, st, "odd")
	if len(evs) != 3 || evs[1].Tool == nil || evs[1].Tool.Output != `{"files":3}` {
		t.Fatalf("events %+v, want the tool result's output to be its raw content", evs)
	}
	if evs[2].Meta["timestamp"] != "Sunday noon" || !evs[2].IsHumanInstruction() {
		t.Fatalf("line 3: %+v, want the raw timestamp in meta", evs[2])
	}
	joined := strings.Join(sum.Warnings, "\n")
	for _, want := range []string{`tool_result "toolu_1" content does not decode`, `line 3: timestamp "Sunday noon" is not RFC 3339`} {
		if !strings.Contains(joined, want) {
			t.Errorf("no warning %q in %q", want, sum.Warnings)
		}
	}
	if sum.WarningCount != 2 {
		t.Errorf("%d warnings, want 2: %q", sum.WarningCount, sum.Warnings)
	}
}

// TestCurrentHostTranscript imports what Claude Code 2.1.328 wrote for
// `claude -p "hello"` (testdata/fixtures/hosts): its new record types are
// skipped as bookkeeping or kept as injected attachments, and the one human
// instruction and the one reply come through.
func TestCurrentHostTranscript(t *testing.T) {
	st, home := testfixtures.NewStore(t)
	sum, err := Import(Options{Store: st, Home: home, Path: testfixtures.Path(t, "hosts", "claude-code-2.1.328.jsonl"), ID: "cc"})
	if err != nil {
		t.Fatal(err)
	}
	if sum.MalformedCount != 0 || sum.WarningCount != 0 || sum.PendingTail != nil {
		t.Fatalf("malformed %d, warnings %v, pending %+v: the sample is clean", sum.MalformedCount, sum.Warnings, sum.PendingTail)
	}
	wantSkipped := map[string]int{"queue-operation": 2, "atis-latch": 2, "api-request-shape": 1, "api-request-blob": 2, "api-request": 1, "last-prompt": 1, "cost-state": 1}
	if !reflect.DeepEqual(sum.Skipped, wantSkipped) {
		t.Errorf("skipped:\n got %v\nwant %v", sum.Skipped, wantSkipped)
	}
	evs := testfixtures.ReadSession(t, st, "cc")
	var human, assistant, queued []string
	attachments := map[string]int{}
	for _, ev := range evs {
		switch {
		case ev.Type == session.TypeUserMessage && ev.Source.Kind == session.KindUser:
			human = append(human, ev.Text)
		case ev.Type == session.TypeAssistantMessage:
			assistant = append(assistant, ev.Text)
		case ev.Type == session.TypeSystem && ev.Source.Name == "attachment":
			attachments[ev.Meta["attachment"]]++
		case ev.Type == session.TypeSystem && ev.Source.Name == "queued-input":
			// claude -p queues its prompt, then dequeues it into the user line.
			queued = append(queued, ev.Text)
		case ev.Type == session.TypeSystem:
			t.Errorf("seq %d: system event %q (%s): every record type of the sample should be known", ev.Seq, ev.Text, ev.Source.Name)
		}
	}
	if !reflect.DeepEqual(human, []string{"hello"}) || !reflect.DeepEqual(assistant, []string{"ok"}) || !reflect.DeepEqual(queued, []string{"hello"}) {
		t.Errorf("human %q, assistant %q, queued %q; want [hello], [ok], [hello]", human, assistant, queued)
	}
	wantAttach := map[string]int{"environment": 1, "model": 1, "deferred_tools_delta": 1, "agent_listing_delta": 1, "skill_listing": 1, "session_context": 1, "date": 1, "remote_session_change": 1, "prompt_snapshot": 2}
	if !reflect.DeepEqual(attachments, wantAttach) {
		t.Errorf("attachments:\n got %v\nwant %v", attachments, wantAttach)
	}
}

// Issue 25, item 4: a line type this importer does not know is said once,
// naming the host version, across the imports that follow a transcript.
func TestUnknownLineTypeIsSaidOnce(t *testing.T) {
	st, home := testfixtures.NewStore(t)
	path := filepath.Join(t.TempDir(), "t.jsonl")
	user := `{"type":"user","uuid":"u%d","sessionId":"s","version":"2.1.999","timestamp":"2026-12-01T10:00:0%dZ","message":{"role":"user","content":"step %d"}}` + "\n"
	odd := `{"type":"hologram","uuid":"h%d","sessionId":"s","version":"2.1.999","timestamp":"2026-12-01T10:00:0%dZ"}` + "\n"
	write := func(s string) {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	write(fmt.Sprintf(user, 1, 1, 1) + fmt.Sprintf(odd, 2, 2) + fmt.Sprintf(odd, 3, 3))
	sum, err := Import(Options{Store: st, Home: home, Path: path, ID: "s"})
	if err != nil {
		t.Fatal(err)
	}
	if sum.WarningCount != 1 || !strings.Contains(sum.Warnings[0], `Claude Code 2.1.999 wrote a line type this graft does not know, "hologram"`) {
		t.Fatalf("first import: warnings %v, want one naming hologram and 2.1.999", sum.Warnings)
	}
	write(fmt.Sprintf(odd, 4, 4) + fmt.Sprintf(user, 5, 5, 5))
	sum, err = Import(Options{Store: st, Home: home, Path: path, ID: "s"})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Appended != 2 || sum.WarningCount != 0 {
		t.Fatalf("second import: %d appended, warnings %v; want 2 and none (said already)", sum.Appended, sum.Warnings)
	}
}

// TestInteractiveHostTranscript imports what the interactive Claude Code
// 2.1.332 wrote when the person typed a message while a Bash call ran
// (testdata/fixtures/hosts, its request cache left out): the message
// reaches the model mid-turn with no user line of its own, and is the
// person's instruction; the interactive host's "mode" and "tools-used"
// records are bookkeeping, skipped without a warning.
func TestInteractiveHostTranscript(t *testing.T) {
	st, home := testfixtures.NewStore(t)
	sum, err := Import(Options{Store: st, Home: home, Path: testfixtures.Path(t, "hosts", "claude-code-2.1.332-midturn.jsonl"), ID: "cc"})
	if err != nil {
		t.Fatal(err)
	}
	if sum.MalformedCount != 0 || sum.WarningCount != 0 || sum.PendingTail != nil {
		t.Fatalf("malformed %d, warnings %v, pending %+v: the sample is clean", sum.MalformedCount, sum.Warnings, sum.PendingTail)
	}
	if sum.Skipped["mode"] != 3 || sum.Skipped["tools-used"] != 1 {
		t.Errorf("skipped %v, want mode 3 and tools-used 1", sum.Skipped)
	}
	var human []string
	for _, ev := range testfixtures.ReadSession(t, st, "cc") {
		if ev.IsHumanInstruction() {
			human = append(human, ev.Text)
		}
	}
	if want := []string{"Build it.", "Also run the linter after."}; !reflect.DeepEqual(human, want) {
		t.Errorf("human instructions %q, want %q", human, want)
	}
}
