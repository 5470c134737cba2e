package codex

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/internal/testfixtures"
	"github.com/graft-project/graft/session"
)

// rollout is written by hand from the protocol definition (openai/codex
// codex-rs/protocol/src/protocol.rs RolloutLine/RolloutItem/EventMsg,
// models.rs ResponseItem, plan_tool.rs UpdatePlanArgs): every item kind the
// importer maps, a mirrored event_msg for each message, a compacted item, a
// line of an unknown type and a truncated line (29).
const rollout = "testdata/rollout-2025-10-05T09-12-44-0199b2c4-6a51-7d23-9f0e-3a1c5b7e2d10.jsonl"

type want struct {
	line     string // meta "line": the rollout line the event came from
	typ      string
	kind     string
	name     string // source.name
	tool     string // tool.name for tool events
	callID   string
	ok       string // "true", "false", "" for absent
	contains string // text, tool output or tool input contains this
}

func TestRolloutMapping(t *testing.T) {
	st, home := testfixtures.NewStore(t)
	sum, err := Import(Options{Store: st, Home: home, Path: rollout})
	if err != nil {
		t.Fatal(err)
	}
	id := "rollout-2025-10-05T09-12-44-0199b2c4-6a51-7d23-9f0e-3a1c5b7e2d10"
	if sum.Session != id {
		t.Fatalf("default id = %q, want %q", sum.Session, id)
	}
	wants := []want{
		{"1", session.TypeSystem, "system", "session_meta", "", "", "", "0199b2c4-6a51-7d23-9f0e-3a1c5b7e2d10"},
		{"2", session.TypeUserMessage, "system", "developer", "", "", "", "Do NOT run destructive commands"},
		{"3", session.TypeUserMessage, "system", "agents-md", "", "", "", "You MUST run gofmt"},
		{"4", session.TypeUserMessage, "system", "environment-context", "", "", "", "<cwd>/home/dev/pager</cwd>"},
		{"5", session.TypeUserMessage, "user", "", "", "", "", "Fix the off-by-one in pager.go and never change the public API."},
		{"7", session.TypeSystem, "system", "turn_context", "", "", "", "approval on-request, sandbox workspace-write, network off"},
		{"10", session.TypeToolCall, "assistant", "", "update_plan", "call_plan_1", "", `"Read pager.go"`},
		{"10", session.TypeTodoWrite, "assistant", "", "", "", "", ""},
		{"11", session.TypeToolResult, "tool", "", "update_plan", "call_plan_1", "", "Plan updated"},
		{"12", session.TypeToolCall, "assistant", "", "shell", "call_sh_1", "", `sed -n '1,80p' pager.go`},
		{"13", session.TypeToolResult, "tool", "", "shell", "call_sh_1", "true", "func Pages(n int)"},
		{"14", session.TypeToolCall, "assistant", "", "apply_patch", "call_patch_1", "", `*** Update File: pager.go`},
		{"15", session.TypeToolResult, "tool", "", "apply_patch", "call_patch_1", "true", "M pager.go"},
		{"16", session.TypeToolCall, "assistant", "", "apply_patch", "call_sh_2", "", `*** Add File: pager_test.go`},
		{"17", session.TypeToolResult, "tool", "", "apply_patch", "call_sh_2", "false", "patch rejected"},
		{"18", session.TypeToolCall, "assistant", "", "shell", "call_sh_3", "", "go test ./..."},
		{"19", session.TypeToolResult, "tool", "", "shell", "call_sh_3", "false", "--- FAIL: TestPages"},
		{"21", session.TypeUserMessage, "system", "compacted", "", "", "", "You MUST keep the public API."},
		{"22", session.TypeSystem, "system", "context_compacted", "", "", "", "context_compacted"},
		{"23", session.TypeUserMessage, "user", "", "", "", "", "Also add a test for n == 0."},
		{"25", session.TypeAssistantMessage, "assistant", "", "", "", "", "Fixed the bound and added a test"},
		{"27", session.TypeSystem, "system", "turn_aborted", "", "", "", "turn_aborted: interrupted"},
		{"28", session.TypeSystem, "system", "unknown", "", "", "", `"galaxy_state"`},
		{"30", session.TypeToolCall, "assistant", "", "apply_patch", "call_ap_3", "", "*** Delete File: old_pager.go"},
		{"31", session.TypeToolResult, "tool", "", "apply_patch", "call_ap_3", "", "Done!"},
		{"33", session.TypeUserMessage, "system", "user-shell-command", "", "", "", "git status"},
		{"34", session.TypeToolResult, "tool", "", "unknown", "call_gone", "", "orphan output"},
	}
	evs := testfixtures.ReadSession(t, st, id)
	if len(evs) != len(wants) {
		for _, ev := range evs {
			t.Logf("line %s: %s %s/%s", ev.Meta["line"], ev.Type, ev.Source.Kind, ev.Source.Name)
		}
		t.Fatalf("got %d events, want %d", len(evs), len(wants))
	}
	for k, w := range wants {
		ev := evs[k]
		got := want{line: ev.Meta["line"], typ: ev.Type, kind: ev.Source.Kind, name: ev.Source.Name}
		hay := ev.Text
		if ev.Tool != nil {
			got.tool, got.callID = ev.Tool.Name, ev.Tool.CallID
			if ev.Tool.OK != nil {
				got.ok = map[bool]string{true: "true", false: "false"}[*ev.Tool.OK]
			}
			hay = ev.Tool.Output + string(ev.Tool.Input)
		}
		if w.contains != "" && !strings.Contains(hay, w.contains) {
			t.Errorf("seq %d (line %s): %q does not contain %q", ev.Seq, got.line, hay, w.contains)
		}
		got.contains = w.contains
		if got != w {
			t.Errorf("seq %d:\n got %+v\nwant %+v", ev.Seq, got, w)
		}
		if ev.TS == "" || !strings.HasPrefix(ev.TS, "2025-10-05T09:") {
			t.Errorf("seq %d: ts %q is not the rollout's timestamp", ev.Seq, ev.TS)
		}
	}

	// apply_patch inputs are {"patch": "<patch text>"} whatever tool carried
	// them, so the tape builder reads the "*** … File:" lines.
	for _, k := range []int{11, 13, 23} {
		var in struct {
			Patch string `json:"patch"`
		}
		if err := json.Unmarshal(evs[k].Tool.Input, &in); err != nil {
			t.Fatalf("seq %d input %s: %v", evs[k].Seq, evs[k].Tool.Input, err)
		}
		if !strings.HasPrefix(in.Patch, "*** Begin Patch\n*** ") || !strings.Contains(in.Patch, "*** End Patch") {
			t.Errorf("seq %d: patch %q is not a whole patch", evs[k].Seq, in.Patch)
		}
	}
	if evs[13].Meta["viaTool"] != "shell" {
		t.Errorf("apply_patch through shell: meta %v, want viaTool=shell", evs[13].Meta)
	}
	// shell keeps its raw arguments.
	var shellIn struct {
		Command []string `json:"command"`
		Workdir string   `json:"workdir"`
	}
	if err := json.Unmarshal(evs[9].Tool.Input, &shellIn); err != nil || len(shellIn.Command) != 3 || shellIn.Workdir != "/home/dev/pager" {
		t.Errorf("shell input %s: %+v, %v", evs[9].Tool.Input, shellIn, err)
	}
	wantTodos := []session.Todo{
		{ID: "1", Content: "Read pager.go", Status: session.TodoInProgress},
		{ID: "2", Content: "Fix the loop bound", Status: session.TodoPending},
		{ID: "3", Content: "Run go test", Status: session.TodoPending},
	}
	if !reflect.DeepEqual(evs[7].Todos, wantTodos) {
		t.Errorf("todos = %+v, want %+v", evs[7].Todos, wantTodos)
	}
	for _, ev := range evs {
		if ev.Type == session.TypeUserMessage && ev.Source.Name == "compacted" && ev.IsHumanInstruction() {
			t.Errorf("the compacted summary is a human instruction: %+v", ev)
		}
	}

	c := sum.Counts
	wantCounts := importer.Counts{HumanInstructions: 2, InjectedMessages: 5, AssistantMessages: 1, ToolCalls: 6, ToolResults: 7, Todos: 1, System: 5}
	if c != wantCounts {
		t.Errorf("counts = %+v, want %+v", c, wantCounts)
	}
	wantSkipped := map[string]int{
		"event_msg user_message (copy of a response_item)":    2,
		"event_msg agent_message (copy of a response_item)":   1,
		"event_msg agent_reasoning (copy of a response_item)": 1,
		"event_msg token_count":                               1,
		"reasoning":                                           1,
		"ghost_snapshot":                                      1,
	}
	if !reflect.DeepEqual(sum.Skipped, wantSkipped) {
		t.Errorf("skipped = %v, want %v", sum.Skipped, wantSkipped)
	}
	if sum.MalformedCount != 1 || len(sum.Malformed) != 1 || sum.Malformed[0].Line != 29 {
		t.Errorf("malformed = %d %+v, want line 29", sum.MalformedCount, sum.Malformed)
	}
	// An unknown line type is said once, with the version session_meta named.
	if sum.WarningCount != 2 || !strings.Contains(sum.Warnings[0], `line 28: Codex 0.46.0 wrote a rollout line type this graft does not know, "galaxy_state"`) ||
		!strings.Contains(sum.Warnings[1], "line 34") || !strings.Contains(sum.Warnings[1], "call_gone") {
		t.Errorf("warnings = %v, want the unknown line type of line 28 and the orphan output of line 34", sum.Warnings)
	}
	if sum.ToLine != 34 || sum.Appended != len(wants) || sum.LastSeq != int64(len(wants)) {
		t.Errorf("summary lines/appended = %d/%d/%d", sum.ToLine, sum.Appended, sum.LastSeq)
	}
}

func TestKeepThinking(t *testing.T) {
	st, home := testfixtures.NewStore(t)
	sum, err := Import(Options{Store: st, Home: home, Path: rollout, ID: "thinking", KeepThinking: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Counts.Thinking != 1 || sum.Skipped["reasoning"] != 0 {
		t.Fatalf("thinking %d, skipped reasoning %d; want 1 and 0", sum.Counts.Thinking, sum.Skipped["reasoning"])
	}
	for _, ev := range testfixtures.ReadSession(t, st, "thinking") {
		if ev.Source.Name == importer.ThinkingName {
			if ev.Type != session.TypeAssistantMessage || ev.Meta["line"] != "8" || !strings.Contains(ev.Text, "The loop bound looks wrong.") {
				t.Errorf("thinking event = %+v", ev)
			}
			return
		}
	}
	t.Fatal("no thinking event")
}

// The rollout imported in two parts (the first cut inside line 15, which is
// left for the second run) gives the same session as one import.
func TestIncrementalEqualsWhole(t *testing.T) {
	st, home := testfixtures.NewStore(t)
	data, err := os.ReadFile(rollout)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Import(Options{Store: st, Home: home, Path: rollout, ID: "whole"}); err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	cut := len(strings.Join(lines[:14], "")) + 40
	src := filepath.Join(t.TempDir(), "growing.jsonl")
	if err := os.WriteFile(src, data[:cut], 0o600); err != nil {
		t.Fatal(err)
	}
	first, err := Import(Options{Store: st, Home: home, Path: src, ID: "parts"})
	if err != nil {
		t.Fatal(err)
	}
	if first.ToLine != 14 || first.PendingTail == nil || first.PendingTail.Bytes != 40 {
		t.Fatalf("first run: lines to %d, pending %+v; want 14 and 40 pending bytes", first.ToLine, first.PendingTail)
	}
	if err := os.WriteFile(src, data, 0o600); err != nil {
		t.Fatal(err)
	}
	second, err := Import(Options{Store: st, Home: home, Path: src, ID: "parts"})
	if err != nil {
		t.Fatal(err)
	}
	if !second.Resumed || second.FromLine != 15 || second.ToLine != 34 {
		t.Fatalf("second run: resumed %v lines %d-%d; want lines 15-34", second.Resumed, second.FromLine, second.ToLine)
	}
	whole, parts := testfixtures.ReadSession(t, st, "whole"), testfixtures.ReadSession(t, st, "parts")
	if !reflect.DeepEqual(whole, parts) {
		t.Fatalf("two-part import differs from the whole import: %d vs %d events", len(parts), len(whole))
	}
}

func TestSplitInjection(t *testing.T) {
	for _, c := range []struct {
		text, injected, human, name string
	}{
		{"run the tests", "", "run the tests", ""},
		{"<environment_context>\n<cwd>/x</cwd>\n</environment_context>", "<environment_context>\n<cwd>/x</cwd>\n</environment_context>", "", "environment-context"},
		{"  <user_instructions>be terse</user_instructions>", "  <user_instructions>be terse</user_instructions>", "", "user-instructions"},
		{"# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>x</INSTRUCTIONS>", "# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>x</INSTRUCTIONS>", "", "agents-md"},
		{"<user_instructions>be terse</user_instructions>\n\n## My request for Codex:\nfix it", "<user_instructions>be terse</user_instructions>", "fix it", "user-instructions"},
		{"<turn_aborted>interrupted</turn_aborted>", "<turn_aborted>interrupted</turn_aborted>", "", "turn-aborted"},
		{"<div>render this</div>", "", "<div>render this</div>", ""},
		{"<subagent_notification>agent done</subagent_notification>", "<subagent_notification>agent done</subagent_notification>", "", "subagent-notification"},
		{"<permissions instructions>never write outside /repo</permissions instructions>", "<permissions instructions>never write outside /repo</permissions instructions>", "", "permissions-instructions"},
		{"<collaboration_mode>pair</collaboration_mode>", "<collaboration_mode>pair</collaboration_mode>", "", "collaboration-mode"},
		{"<INSTRUCTIONS>Always run make.</INSTRUCTIONS>", "<INSTRUCTIONS>Always run make.</INSTRUCTIONS>", "", "agents-md"},
		{"<skill>\n<name>pdf</name>\nYou MUST use pdftotext.\n</skill>", "<skill>\n<name>pdf</name>\nYou MUST use pdftotext.\n</skill>", "", "skill"},
	} {
		inj, human, src := splitInjection(c.text)
		if inj != c.injected || human != c.human || src.Name != c.name {
			t.Errorf("splitInjection(%q) = %q, %q, %q; want %q, %q, %q", c.text, inj, human, src.Name, c.injected, c.human, c.name)
		}
		// Injected text is never the human's: its kind says who wrote it.
		wantKind := ""
		switch {
		case c.name == "skill":
			wantKind = session.KindSkill
		case c.name != "":
			wantKind = session.KindSystem
		}
		if src.Kind != wantKind {
			t.Errorf("splitInjection(%q): source kind %q, want %q", c.text, src.Kind, wantKind)
		}
	}
}

func TestToolOutput(t *testing.T) {
	for _, c := range []struct {
		raw, text, ok string
	}{
		{`"plain"`, "plain", ""},
		{`"{\"output\":\"hi\\n\",\"metadata\":{\"exit_code\":0}}"`, "hi\n", "true"},
		{`"{\"output\":\"boom\",\"metadata\":{\"exit_code\":2}}"`, "boom", "false"},
		{`"Exit code: 0\nWall time: 1s\nOutput:\nok"`, "Exit code: 0\nWall time: 1s\nOutput:\nok", "true"},
		{`{"content":"denied","success":false}`, "denied", "false"},
		// Unified exec (exec_command, write_stdin), as Codex 0.171.0 wrote
		// them (internal/hosttest TestCodexExecCommandOutput): the text is
		// kept whole, as the "Exit code: " header's is.
		{`"Chunk ID: 45a706\nWall time: 0.0000 seconds\nProcess exited with code 3\nOriginal token count: 6\nOutput:\nFIRST-LINE\nSECOND-LINE\n"`, "Chunk ID: 45a706\nWall time: 0.0000 seconds\nProcess exited with code 3\nOriginal token count: 6\nOutput:\nFIRST-LINE\nSECOND-LINE\n", "false"},
		{`"Chunk ID: e58266\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 3\nOutput:\nALL-FINE\n"`, "Chunk ID: e58266\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 3\nOutput:\nALL-FINE\n", "true"},
		{`"Chunk ID: 25292d\nWall time: 0.5012 seconds\nProcess running with session ID 86659\nOriginal token count: 0\nOutput:\n"`, "Chunk ID: 25292d\nWall time: 0.5012 seconds\nProcess running with session ID 86659\nOriginal token count: 0\nOutput:\n", ""},
		{`"Chunk ID: b0948f\nWall time: 2.3334 seconds\nProcess exited with code 5\nOriginal token count: 3\nOutput:\nLATE-LINE\n"`, "Chunk ID: b0948f\nWall time: 2.3334 seconds\nProcess exited with code 5\nOriginal token count: 3\nOutput:\nLATE-LINE\n", "false"},
		// Codex 0.115.0 opens the header with the command it ran.
		{`"Command: /usr/bin/zsh -lc \"sed -n '1,2p' PROJECT.md\"\nChunk ID: 320c89\nWall time: 0.0000 seconds\nProcess exited with code 2\nOriginal token count: 3\nOutput:\nsed: PROJECT.md: No such file\n"`, "Command: /usr/bin/zsh -lc \"sed -n '1,2p' PROJECT.md\"\nChunk ID: 320c89\nWall time: 0.0000 seconds\nProcess exited with code 2\nOriginal token count: 3\nOutput:\nsed: PROJECT.md: No such file\n", "false"},
		{`"Command: make\nProcess exited with code 2\n"`, "Command: make\nProcess exited with code 2\n", ""},
		// A command's own output that says so is not a header.
		{`"Chunk ID: 1\nWall time: 0.1 seconds\nProcess running with session ID 7\nOriginal token count: 9\nOutput:\nProcess exited with code 0\n"`, "Chunk ID: 1\nWall time: 0.1 seconds\nProcess running with session ID 7\nOriginal token count: 9\nOutput:\nProcess exited with code 0\n", ""},
		{`"build log\nProcess exited with code 0\n"`, "build log\nProcess exited with code 0\n", ""},
		// Codex's own failures, a bare string (FunctionCallError::RespondToModel;
		// older versions' handle_sandbox_error): failed. A sandbox's denial
		// is the command's output (TestSandboxDenialIsTheCommandsOutput);
		// the others are kept as they are.
		{`"failed in sandbox LinuxSeccomp with execution error: sandbox denied exec error, exit code: 128, stdout: [main 548dd49] feat"`, "failed in sandbox LinuxSeccomp, exit code 128: [main 548dd49] feat", "false"},
		{`"failed in sandbox None with execution error: command timed out"`, "failed in sandbox None with execution error: command timed out", "false"},
		{`"execution error: Io(Os { code: 2 })"`, "execution error: Io(Os { code: 2 })", "false"},
		{`"apply_patch verification failed: Failed to find expected lines in a.md"`, "apply_patch verification failed: Failed to find expected lines in a.md", "false"},
		{`"exec command rejected by user"`, "exec command rejected by user", "false"},
		{`"patch rejected by user"`, "patch rejected by user", "false"},
		// Unified exec's own failures (a Codex 0.114.0 rollout, testdata/fidelity).
		{`"write_stdin failed: stdin is closed for this session; rerun exec_command with tty=true to keep stdin open"`, "write_stdin failed: stdin is closed for this session; rerun exec_command with tty=true to keep stdin open", "false"},
		{`"exec_command failed: CreateProcess { message: \"Rejected\" }"`, "exec_command failed: CreateProcess { message: \"Rejected\" }", "false"},
		{`"plain text that mentions execution error: later"`, "plain text that mentions execution error: later", ""},
		{`[{"type":"input_text","text":"a"},{"type":"input_image","image_url":"data:"}]`, "a\n[image]", ""},
		{`42`, "42", ""},
	} {
		text, ok := NewMapper(Config{}).toolOutput(json.RawMessage(c.raw))
		gotOK := ""
		if ok != nil {
			gotOK = map[bool]string{true: "true", false: "false"}[*ok]
		}
		if text != c.text || gotOK != c.ok {
			t.Errorf("toolOutput(%s) = %q, %q; want %q, %q", c.raw, text, gotOK, c.text, c.ok)
		}
	}
}

// TestCurrentHostRollouts imports what Codex 0.169.0 wrote
// (testdata/fixtures/hosts): a paginated rollout of two exec turns, and one
// with an auto-compaction and SessionStart hook context. Only what the
// person typed is a human instruction; the skills text, the environment
// context, hook context and the compaction summary are injected.
func TestCurrentHostRollouts(t *testing.T) {
	cases := []struct {
		file     string
		human    []string
		injected map[string]int // source.name → count
		skipped  map[string]int
	}{
		{"codex-0.169.0.jsonl", []string{"hello", "continue"},
			map[string]int{"developer": 1, "environment-context": 1},
			map[string]int{"world_state": 1, "token_usage_record": 2, "turn_context": 1, "event_msg task_started": 2, "event_msg task_complete": 2, "event_msg token_count": 2}},
		{"codex-0.169.0-compacted.jsonl", []string{"first turn", "second turn"},
			map[string]int{"developer": 4, "environment-context": 1, "compacted": 1},
			map[string]int{"world_state": 2, "token_usage_record": 3, "turn_context": 1, "event_msg task_started": 2, "event_msg task_complete": 2, "event_msg token_count": 5}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			st, home := testfixtures.NewStore(t)
			sum, err := Import(Options{Store: st, Home: home, Path: testfixtures.Path(t, "hosts", c.file), ID: "cx"})
			if err != nil {
				t.Fatal(err)
			}
			if sum.MalformedCount != 0 || sum.WarningCount != 0 || sum.PendingTail != nil {
				t.Fatalf("malformed %d, warnings %v, pending %+v: the sample is clean", sum.MalformedCount, sum.Warnings, sum.PendingTail)
			}
			if !reflect.DeepEqual(sum.Skipped, c.skipped) {
				t.Errorf("skipped:\n got %v\nwant %v", sum.Skipped, c.skipped)
			}
			var human []string
			injected := map[string]int{}
			for _, ev := range testfixtures.ReadSession(t, st, "cx") {
				if ev.Type != session.TypeUserMessage {
					continue
				}
				if ev.Source.Kind == session.KindUser {
					human = append(human, ev.Text)
				} else {
					injected[ev.Source.Name]++
				}
			}
			if !reflect.DeepEqual(human, c.human) {
				t.Errorf("human instructions %q, want %q", human, c.human)
			}
			if !reflect.DeepEqual(injected, c.injected) {
				t.Errorf("injected messages by name:\n got %v\nwant %v", injected, c.injected)
			}
		})
	}
}

// TestUnifiedExecRollout imports exec_command and write_stdin calls with
// outputs of the shape Codex 0.171.0 wrote (internal/hosttest
// TestCodexExecCommandOutput): a command that printed two lines and exited
// 3, one that exited 0, one still running when exec_command returned, and
// the write_stdin that collected its exit 5. The failed runs are known to
// have failed.
// unifiedExecLines are the rollout lines of TestUnifiedExecRollout: the
// session_meta, then three exec_command calls with their outputs (exit 3,
// exit 0, still running) and the write_stdin that collected the exit 5.
var unifiedExecLines = []string{
	`{"timestamp":"2026-12-03T01:49:00.000Z","type":"session_meta","payload":{"id":"01a23997-b65c-7741-9b94-e5b99fe09378","timestamp":"2026-12-03T01:49:00.000Z","cwd":"/work","originator":"codex_exec","cli_version":"0.171.0"}}`,
	`{"timestamp":"2026-12-03T01:49:01.000Z","type":"response_item","payload":{"type":"function_call","id":"fc_1","name":"exec_command","arguments":"{\"cmd\":\"printf 'FIRST-LINE\\\\nSECOND-LINE\\\\n'; exit 3\"}","call_id":"call_fail","status":"completed"}}`,
	`{"timestamp":"2026-12-03T01:49:01.100Z","type":"response_item","payload":{"call_id":"call_fail","id":"fco_1","output":"Chunk ID: 45a706\nWall time: 0.0000 seconds\nProcess exited with code 3\nOriginal token count: 6\nOutput:\nFIRST-LINE\nSECOND-LINE\n","type":"function_call_output"}}`,
	`{"timestamp":"2026-12-03T01:49:02.000Z","type":"response_item","payload":{"type":"function_call","id":"fc_2","name":"exec_command","arguments":"{\"cmd\":\"echo ALL-FINE\"}","call_id":"call_ok","status":"completed"}}`,
	`{"timestamp":"2026-12-03T01:49:02.100Z","type":"response_item","payload":{"call_id":"call_ok","id":"fco_2","output":"Chunk ID: e58266\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 3\nOutput:\nALL-FINE\n","type":"function_call_output"}}`,
	`{"timestamp":"2026-12-03T01:49:03.000Z","type":"response_item","payload":{"type":"function_call","id":"fc_3","name":"exec_command","arguments":"{\"cmd\":\"sleep 3; echo LATE-LINE; exit 5\",\"yield_time_ms\":500}","call_id":"call_slow","status":"completed"}}`,
	`{"timestamp":"2026-12-03T01:49:03.600Z","type":"response_item","payload":{"call_id":"call_slow","id":"fco_3","output":"Chunk ID: 25292d\nWall time: 0.5012 seconds\nProcess running with session ID 86659\nOriginal token count: 0\nOutput:\n","type":"function_call_output"}}`,
	`{"timestamp":"2026-12-03T01:49:04.000Z","type":"response_item","payload":{"type":"function_call","id":"fc_4","name":"write_stdin","arguments":"{\"session_id\":86659,\"chars\":\"\",\"yield_time_ms\":10000}","call_id":"call_poll","status":"completed"}}`,
	`{"timestamp":"2026-12-03T01:49:06.400Z","type":"response_item","payload":{"call_id":"call_poll","id":"fco_4","output":"Chunk ID: b0948f\nWall time: 2.3334 seconds\nProcess exited with code 5\nOriginal token count: 3\nOutput:\nLATE-LINE\n","type":"function_call_output"}}`,
}

// importRollout writes lines as the rollout name in a fresh store's
// temporary directory, imports it as session id and returns the import's
// summary and the session's events.
func importRollout(t *testing.T, name, id string, lines []string) (*importer.Summary, []session.Event) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	writeRollout(t, path, lines)
	st, home := testfixtures.NewStore(t)
	sum, err := Import(Options{Store: st, Home: home, Path: path, ID: id})
	if err != nil {
		t.Fatal(err)
	}
	return sum, testfixtures.ReadSession(t, st, id)
}

// importInSteps imports lines as one rollout in steps imports, each of
// the next share of its lines (the last of all of them), into a fresh
// store as session "s", and returns the session's events.
func importInSteps(t *testing.T, lines []string, steps int) []session.Event {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rollout-2025-11-30T22-03-11-019ad65c-b4ff-7ec0-94b5-d8247f8004af.jsonl")
	st, home := testfixtures.NewStore(t)
	for k := 1; k <= steps; k++ {
		writeRollout(t, path, lines[:len(lines)*k/steps])
		if _, err := Import(Options{Store: st, Home: home, Path: path, ID: "s"}); err != nil {
			t.Fatal(err)
		}
	}
	return testfixtures.ReadSession(t, st, "s")
}

// writeRollout writes lines as the rollout at path.
func writeRollout(t *testing.T, path string, lines []string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestUnifiedExecRollout(t *testing.T) {
	sum, evs := importRollout(t, "rollout-2026-12-03T01-49-00-01a23997-b65c-7741-9b94-e5b99fe09378.jsonl", "ux", unifiedExecLines)
	if sum.MalformedCount != 0 || sum.WarningCount != 0 {
		t.Fatalf("malformed %d, warnings %v", sum.MalformedCount, sum.Warnings)
	}
	type result struct{ tool, callID, ok, contains string }
	wants := []result{
		{"exec_command", "call_fail", "false", "FIRST-LINE\nSECOND-LINE\n"},
		{"exec_command", "call_ok", "true", "ALL-FINE\n"},
		{"exec_command", "call_slow", "", "Process running with session ID 86659"},
		{"write_stdin", "call_poll", "false", "LATE-LINE\n"},
	}
	var got []result
	for _, ev := range evs {
		if ev.Type != session.TypeToolResult {
			continue
		}
		r := result{tool: ev.Tool.Name, callID: ev.Tool.CallID}
		if ev.Tool.OK != nil {
			r.ok = map[bool]string{true: "true", false: "false"}[*ev.Tool.OK]
		}
		if k := len(got); k < len(wants) && strings.Contains(ev.Tool.Output, wants[k].contains) {
			r.contains = wants[k].contains
		}
		if !strings.HasPrefix(ev.Tool.Output, "Chunk ID: ") {
			t.Errorf("%s: output %q, want the text as Codex wrote it", r.callID, ev.Tool.Output)
		}
		got = append(got, r)
	}
	if !reflect.DeepEqual(got, wants) {
		t.Errorf("tool results:\n got %+v\nwant %+v", got, wants)
	}
}

// A write_stdin call writes to (or polls) the command an exec_command left
// running ("Process running with session ID N"): its event names that
// command in meta execCommand, so the tape reads the poll as the
// command's outcome; the mapping holds across imports in steps.
func TestAPollNamesTheCommandItWaitsFor(t *testing.T) {
	lines := append(slices.Concat(unifiedExecLines[:1], unifiedExecLines[5:]),
		`{"timestamp":"2026-12-03T01:49:07.000Z","type":"response_item","payload":{"type":"function_call","id":"fc_5","name":"write_stdin","arguments":"{\"session_id\":123,\"chars\":\"\"}","call_id":"call_other","status":"completed"}}`)
	for _, steps := range []int{1, 3} {
		path := filepath.Join(t.TempDir(), "rollout-2026-12-03T01-49-00-01a23997-b65c-7741-9b94-e5b99fe09378.jsonl")
		st, home := testfixtures.NewStore(t)
		// Import the rollout in steps: the first lines, then the rest.
		for k := 1; k <= steps; k++ {
			n := len(lines) * k / steps
			writeRollout(t, path, lines[:n])
			if _, err := Import(Options{Store: st, Home: home, Path: path, ID: "ux"}); err != nil {
				t.Fatal(err)
			}
		}
		got := map[string]string{}
		for _, ev := range testfixtures.ReadSession(t, st, "ux") {
			if ev.Type == session.TypeToolCall && ev.Tool.Name == "write_stdin" {
				got[ev.Tool.CallID] = ev.Meta["execCommand"]
			}
		}
		want := map[string]string{"call_poll": "sleep 3; echo LATE-LINE; exit 5", "call_other": ""}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("in %d steps: execCommand of the polls %q, want %q", steps, got, want)
		}
	}
}

// session_meta's git (the repository's state when the session started:
// commit, branch, remote) is kept in meta gitCommit, gitBranch and
// gitRepository of the session_meta event.
func TestSessionMetaKeepsTheGitState(t *testing.T) {
	lines := []string{
		`{"timestamp":"2025-11-30T20:03:11.231Z","type":"session_meta","payload":{"id":"019ad65c-b4ff-7ec0-94b5-d8247f8004af","timestamp":"2025-11-30T20:03:11.231Z","cwd":"/w","originator":"codex_cli_rs","cli_version":"0.63.0","git":{"commit_hash":"fee9a60da2ff0665e09a7c8cfbd5bcbf9560c9bc","branch":"master","repository_url":"git@github.com:o/r.git"}}}`,
	}
	_, evs := importRollout(t, "rollout-2025-11-30T22-03-11-019ad65c-b4ff-7ec0-94b5-d8247f8004af.jsonl", "g", lines)
	if len(evs) != 1 {
		t.Fatalf("%d events", len(evs))
	}
	m := evs[0].Meta
	if m["gitCommit"] != "fee9a60da2ff0665e09a7c8cfbd5bcbf9560c9bc" || m["gitBranch"] != "master" || m["gitRepository"] != "git@github.com:o/r.git" {
		t.Fatalf("meta %v", m)
	}
}

// A poll names a long command (a here-document of many KB) by its head:
// the meta every poll carries stays small.
func TestAPollNamesALongCommandByItsHead(t *testing.T) {
	m := NewMapper(Config{})
	long := "cat > big.txt <<'EOF'\n" + strings.Repeat("x", 5000) + "\nEOF"
	out := &importer.Output{}
	m.toolCall(&rolloutLine{Timestamp: "2026-12-03T01:49:03.000Z"}, "exec_command", "c1", json.RawMessage(`{"cmd":`+strconv.Quote(long)+`}`), out)
	if got := []rune(m.execCalls["c1"]); len(got) != maxExecCommand+1 || !strings.HasPrefix(string(got), "cat > big.txt <<'EOF'\n") {
		t.Fatalf("kept %d runes: %.40q", len(got), string(got))
	}
}

// The settings a turn ran under (turn_context: the approval policy, the
// sandbox and its network access, the collaboration mode) are the host's
// word on what the agent could do: the first turn's and each change are
// imported as a system event "turn_context" with meta approvalPolicy,
// sandbox, network and collaborationMode (the shapes of Codex 0.4x, whose
// sandbox_policy names its mode, and of 0.9x on, which names its type and
// writes a collaboration mode); a turn that changes nothing is skipped,
// across imports in steps too.
func TestTurnSettingsAreImportedWhenTheyChange(t *testing.T) {
	tc := func(ts, approval, sandbox string) string {
		return `{"timestamp":"2026-12-03T02:00:` + ts + `.000Z","type":"turn_context","payload":{"cwd":"/w","approval_policy":` + approval + `,"sandbox_policy":` + sandbox + `,"model":"gpt-5-codex","summary":"auto"}}`
	}
	lines := []string{
		`{"timestamp":"2026-12-03T02:00:00.000Z","type":"session_meta","payload":{"id":"019ad65c-b4ff-7ec0-94b5-d8247f8004af","cwd":"/w","originator":"codex_cli_rs","cli_version":"0.46.0"}}`,
		tc("01", `"on-request"`, `{"mode":"workspace-write","network_access":false,"exclude_tmpdir_env_var":false,"exclude_slash_tmp":false}`),
		tc("02", `"on-request"`, `{"mode":"workspace-write","network_access":false,"exclude_tmpdir_env_var":false,"exclude_slash_tmp":false}`),
		tc("03", `"on-request"`, `{"mode":"read-only"}`),
		tc("04", `"never"`, `{"type":"danger-full-access"}`),
		`{"timestamp":"2026-12-03T02:00:05.000Z","type":"turn_context","payload":{"cwd":"/w","approval_policy":"never","sandbox_policy":{"type":"danger-full-access"},"collaboration_mode":{"mode":"plan","settings":{"model":"gpt-5.4","reasoning_effort":"high","developer_instructions":null}}}}`,
		`{"timestamp":"2026-12-03T02:00:06.000Z","type":"turn_context","payload":{"cwd":"/w","approval_policy":"on-request","sandbox_policy":{"type":"workspace-write","network_access":true},"collaboration_mode":{"mode":"default","settings":{}}}}`,
	}
	want := []map[string]string{
		{"approvalPolicy": "on-request", "sandbox": "workspace-write", "network": "off"},
		{"approvalPolicy": "on-request", "sandbox": "read-only"},
		{"approvalPolicy": "never", "sandbox": "danger-full-access"},
		{"approvalPolicy": "never", "sandbox": "danger-full-access", "collaborationMode": "plan"},
		{"approvalPolicy": "on-request", "sandbox": "workspace-write", "network": "on", "collaborationMode": "default"},
	}
	for _, steps := range []int{1, 3} {
		var got []map[string]string
		for _, ev := range importInSteps(t, lines, steps) {
			if ev.Type != session.TypeSystem || ev.Source.Name != "turn_context" {
				continue
			}
			m := map[string]string{}
			for _, k := range []string{"approvalPolicy", "sandbox", "network", "collaborationMode"} {
				if v := ev.Meta[k]; v != "" {
					m[k] = v
				}
			}
			if !strings.Contains(ev.Text, m["sandbox"]) {
				t.Errorf("in %d steps: the event's text %q does not name its sandbox", steps, ev.Text)
			}
			got = append(got, m)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("in %d steps: turn settings imported\n got %v\nwant %v", steps, got, want)
		}
	}
}

// A sandbox given by its bare name is read as its mode; a turn_context
// that is not an object is skipped and told once, not once per turn.
func TestTurnSettingsOfOtherShapes(t *testing.T) {
	lines := []string{
		`{"timestamp":"2026-12-03T02:00:00.000Z","type":"session_meta","payload":{"id":"019ad65c-b4ff-7ec0-94b5-d8247f8004af","cwd":"/w","originator":"codex_cli_rs","cli_version":"0.30.0"}}`,
		`{"timestamp":"2026-12-03T02:00:01.000Z","type":"turn_context","payload":{"cwd":"/w","approval_policy":{"granular":{"rules":true}},"sandbox_policy":"read-only"}}`,
		`{"timestamp":"2026-12-03T02:00:02.000Z","type":"turn_context","payload":["not", "an", "object"]}`,
		`{"timestamp":"2026-12-03T02:00:03.000Z","type":"turn_context","payload":["not", "an", "object"]}`,
	}
	sum, evs := importRollout(t, "rollout-2025-11-30T22-03-11-019ad65c-b4ff-7ec0-94b5-d8247f8004af.jsonl", "s", lines)
	var got []string
	for _, ev := range evs {
		if ev.Source.Name == "turn_context" {
			got = append(got, ev.Meta["approvalPolicy"]+"/"+ev.Meta["sandbox"])
		}
	}
	if strings.Join(got, ",") != "granular/read-only" {
		t.Errorf("turn settings imported: %q, want granular/read-only", got)
	}
	if sum.WarningCount != 1 || sum.Skipped["turn_context"] != 2 {
		t.Errorf("warnings %v (want 1: the shape told once), skipped %v (want turn_context 2)", sum.Warnings, sum.Skipped)
	}
}

// A call the person declined at Codex's approval prompt did not run: Codex
// answers its model "exec command rejected by user" or "patch rejected by
// user" (0.171.0's binary holds both; a 0.79 rollout in testdata/fidelity
// wrote the first), and the result carries meta declined "user"
// (session.MetaDeclined); "aborted by user", a call the person stopped,
// carries "stopped". Other failures do not.
func TestADeclinedCallIsMarkedDeclined(t *testing.T) {
	outputs := map[string]string{
		"exec command rejected by user":       session.DeclinedByUser,
		"patch rejected by user":              session.DeclinedByUser,
		"execution error: Io(Os { code: 2 })": "",
		// The person stopped the call: 0.171's "No, and tell Codex what to
		// do differently (esc)" at its prompt, or an interrupt while it ran
		// (TestCodexDeclinedCommandIsNoFailure on the real 0.171 wrote the
		// first; its binary holds "aborted by user after ").
		"Wall time: 4.1 seconds\naborted by user":     session.DeclinedStopped,
		"aborted by user":                             session.DeclinedStopped,
		"aborted by user after 12.3s":                 session.DeclinedStopped,
		"Wall time: 1 seconds\nbuild aborted by user": "",
	}
	lines := []string{`{"timestamp":"2026-01-10T21:36:00.000Z","type":"session_meta","payload":{"id":"019ba997-bbca-7483-9a75-07808dcc061c","timestamp":"2026-01-10T21:36:00.000Z","cwd":"/w","originator":"codex_cli_rs","cli_version":"0.79.0"}}`}
	k := 0
	for out := range outputs {
		k++
		raw, _ := json.Marshal(out)
		lines = append(lines,
			fmt.Sprintf(`{"timestamp":"2026-01-10T21:36:0%d.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"echo %d\"]}","call_id":"c%d"}}`, k, k, k),
			fmt.Sprintf(`{"timestamp":"2026-01-10T21:36:0%d.500Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c%d","output":%s}}`, k, k, raw))
	}
	_, evs := importRollout(t, "rollout-2026-01-10T14-27-32-019ba997-bbca-7483-9a75-07808dcc061c.jsonl", "d", lines)
	seen := 0
	for _, ev := range evs {
		if ev.Type != session.TypeToolResult {
			continue
		}
		seen++
		want := outputs[ev.Tool.Output]
		if got := ev.Meta[session.MetaDeclined]; got != want || ev.Declined() != (want != "") {
			t.Errorf("%q: declined %q (want %q)", ev.Tool.Output, got, want)
		}
		if ev.OKResult() && want != "" {
			t.Errorf("%q: ok", ev.Tool.Output)
		}
	}
	if seen != len(outputs) {
		t.Errorf("%d results, want %d", seen, len(outputs))
	}
}
