package codex

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/graft-project/graft/internal/testfixtures"
	"github.com/graft-project/graft/session"
)

// The scripts below are the shapes Codex's code mode was seen writing:
// by the real Codex 0.171 (hosts/codexcodemode_realhost_test.go), and in a
// Codex desktop 0.144.2 rollout of the fidelity truth set
// (testdata/fidelity/transcripts/codex/rollout-2026-07-13T12-39-19-…).
func TestCodeModeCall(t *testing.T) {
	for _, c := range []struct {
		script, name, input string // name "": not one call
	}{
		{`const r = await tools.exec_command({cmd:"printf 'FIRST-LINE\\nSECOND-LINE\\n'; exit 3","yield_time_ms":10000}); text(r.output);` + "\n",
			"exec_command", `{"cmd":"printf 'FIRST-LINE\\nSECOND-LINE\\n'; exit 3","yield_time_ms":10000}`},
		{`const r = await tools.exec_command({cmd:"git rebase origin/main","workdir":"/w/hk","yield_time_ms":1000,"max_output_tokens":12000}); text(r.output); if(r.session_id) text(` + "`SESSION_ID=${r.session_id}`" + `);` + "\n",
			"exec_command", `{"cmd":"git rebase origin/main","max_output_tokens":12000,"workdir":"/w/hk","yield_time_ms":1000}`},
		{`// @exec: {"yield_time_ms": 300}` + "\n" + `const r = await tools.exec_command({cmd:"sleep 2"}); text(r.output);`,
			"exec_command", `{"cmd":"sleep 2"}`},
		{`const r = await tools.write_stdin({session_id:39017, chars:"", yield_time_ms:30000, max_output_tokens:5000}); text(r);`,
			"write_stdin", `{"chars":"","max_output_tokens":5000,"session_id":39017,"yield_time_ms":30000}`},
		{"const patch = \"*** Begin Patch\\n*** Add File: /tmp/reply.md\\n+Fixed in `9500448`.\\n*** End Patch\";\ntext(await tools.apply_patch(patch));\n",
			"apply_patch", `{"patch":"*** Begin Patch\n*** Add File: /tmp/reply.md\n+Fixed in ` + "`9500448`" + `.\n*** End Patch"}`},
		{`text(await tools.apply_patch('*** Begin Patch\n*** Delete File: old.txt\n*** End Patch'));`,
			"apply_patch", `{"patch":"*** Begin Patch\n*** Delete File: old.txt\n*** End Patch"}`},
		{`text(await tools.exec_command({cmd:"make"}));`, "exec_command", `{"cmd":"make"}`},
		{`const r = await tools.web__run({search_query:[{q:"site:man7.org execve E2BIG"},{q:"MAX_ARG_STRLEN"}],response_length:"short"}); text(r);`,
			"web__run", `{"response_length":"short","search_query":[{"q":"site:man7.org execve E2BIG"},{"q":"MAX_ARG_STRLEN"}]}`},
		{`const r = await tools.exec_command({cmd:'echo \'it\\\'s\' \u00e9\uD83D\uDE00 \x41 \u{1F600}'}); text(r.output);`,
			"exec_command", `{"cmd":"echo 'it\\'s' é😀 A 😀"}`},
		{"const r = await tools.exec_command({cmd:`ls -la`, ok:true, n:null, f:1.5e3}); text(r.output);",
			"exec_command", `{"cmd":"ls -la","f":1.5e3,"n":null,"ok":true}`},
		// Not one call of literal arguments: kept as the script.
		{"const results = await Promise.all([\n  tools.exec_command({cmd:\"a\"}),\n  tools.exec_command({cmd:\"b\"})\n]);", "", ""},
		{"const r = await tools.exec_command({cmd:`gh api ${path}`}); text(r.output);", "", ""},
		{`const r = await tools.exec_command({cmd}); text(r.output);`, "", ""},
		{`const r = await tools.exec_command({...opts}); text(r.output);`, "", ""},
		{`text(await tools.apply_patch(patch));`, "", ""},
		{"text(await tools.apply_patch(patch));\nconst patch = \"x\";", "", ""},
		{`text(await tools.exec_command("make"));`, "", ""},
		{`const r = await tools.exec_command({cmd:"unterminated}); text(r.output);`, "", ""},
		{`const r = await tools.exec_command({cmd:"a\08"}); text(r.output);`, "", ""},
		{`const r = await tools.exec_command({n:1.}); text(r.output);`, "", ""},
		{`throw new Error("SCRIPT-BROKE");`, "", ""},
		{``, "", ""},
	} {
		name, input, ok := codeModeCall(c.script)
		if ok != (c.name != "") || name != c.name && ok {
			t.Errorf("%q: %q %s %v, want %q", c.script, name, input, ok, c.name)
			continue
		}
		if !ok {
			continue
		}
		var got, want any
		if err := json.Unmarshal(input, &got); err != nil {
			t.Errorf("%q: input %s: %v", c.script, input, err)
			continue
		}
		if err := json.Unmarshal([]byte(c.input), &want); err != nil {
			t.Fatalf("the case's input %s: %v", c.input, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q:\n got %s\nwant %s", c.script, input, c.input)
		}
	}
}

// Every JSON string literal is a JavaScript one of the same value (a
// model writes its scripts' strings that way): the parser reads each as
// encoding/json does, and the same text single-quoted, its quotes swapped.
func TestCodeModeStringsReadAsJSONDoes(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 1))
	alphabet := []rune("ab \"'\\\n\t\r/`$é€😀\u2028\x00\x1f{}")
	n := 0
	for k := 0; k < 20000; k++ {
		var b strings.Builder
		for j := rng.IntN(24); j > 0; j-- {
			b.WriteRune(alphabet[rng.IntN(len(alphabet))])
		}
		s := b.String()
		lit, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var want string
		if err := json.Unmarshal(lit, &want); err != nil {
			t.Fatal(err)
		}
		for _, l := range []string{string(lit), singleQuoted(string(lit))} {
			p := &jsParser{s: l}
			got, ok := p.str()
			if !ok || got != want || p.i != len(l) {
				t.Fatalf("%s: got %q %v (at %d of %d), want %q", l, got, ok, p.i, len(l), want)
			}
			n++
		}
	}
	t.Logf("%d literals read as encoding/json reads them", n)
}

// singleQuoted is a JSON string literal as a single-quoted JavaScript one
// of the same value: its ' escaped, its \" unescaped.
func singleQuoted(lit string) string {
	body := lit[1 : len(lit)-1]
	var b strings.Builder
	b.WriteByte('\'')
	for i := 0; i < len(body); i++ {
		switch {
		case body[i] == '\\' && i+1 < len(body) && body[i+1] == '"':
			b.WriteByte('"')
			i++
		case body[i] == '\\' && i+1 < len(body):
			b.WriteString(body[i : i+2])
			i++
		case body[i] == '\'':
			b.WriteString(`\'`)
		default:
			b.WriteByte(body[i])
		}
	}
	b.WriteByte('\'')
	return b.String()
}

func TestCodeModeOutput(t *testing.T) {
	for _, c := range []struct {
		raw, status, cell, text string
		ok                      bool
	}{
		{`[{"text":"Script completed\nWall time 0.2 seconds\nOutput:\n","type":"input_text"},{"text":"FIRST-LINE\nSECOND-LINE\n","type":"input_text"}]`, "completed", "", "FIRST-LINE\nSECOND-LINE", true},
		{`[{"text":"Script completed\nWall time 0.1 seconds\nOutput:\n","type":"input_text"},{"text":"ALL-FINE\n","type":"input_text"},{"text":"exit:0","type":"input_text"}]`, "completed", "", "ALL-FINE\nexit:0", true},
		{`[{"text":"Script completed\nWall time 0.7 seconds\nOutput:\n","type":"input_text"},{"text":"","type":"input_text"},{"text":"SESSION_ID=26839","type":"input_text"}]`, "completed", "", "SESSION_ID=26839", true},
		{`[{"text":"Script failed\nWall time 0.0 seconds\nOutput:\n","type":"input_text"},{"text":"Script error:\nError: SCRIPT-BROKE\n    at exec_main.mjs:1:7","type":"input_text"}]`, "failed", "", "Script error:\nError: SCRIPT-BROKE\n    at exec_main.mjs:1:7", true},
		{`"Script running with cell ID 6\nWall time 0.3 seconds\nOutput:\n"`, "running", "6", "", true},
		{`"Script running with cell ID 18\nWall time 10.0 seconds\nOutput:\npartial line\n"`, "running", "18", "partial line", true},
		{`[{"text":"Script completed\nWall time 1 second\nOutput:\n","type":"input_text"},{"type":"input_image","image_url":"data:"}]`, "completed", "", "[image]", true},
		{`"Chunk ID: 45a706\nWall time: 0.0000 seconds\nProcess exited with code 3\nOutput:\nx"`, "", "", "", false},
		{`[{"text":"Script completed but no wall time","type":"input_text"}]`, "", "", "", false},
		{`{"output":"x"}`, "", "", "", false},
		{`[]`, "", "", "", false},
	} {
		status, cell, text, ok := codeModeOutput(json.RawMessage(c.raw))
		if status != c.status || cell != c.cell || text != c.text || ok != c.ok {
			t.Errorf("%s:\n got %q %q %q %v\nwant %q %q %q %v", c.raw, status, cell, text, ok, c.status, c.cell, c.text, c.ok)
		}
	}
}

// codeModeLines (testdata/codemode-0.171.jsonl, also a seed of
// FuzzCodexImportResumes) are a rollout the real Codex 0.171 wrote with
// code mode on (payloads trimmed to the fields graft reads): a command that exits 3,
// one that exits 0, a script still running in a cell that a wait call
// waits on (its command exits 4), a script that throws, and a script of
// two calls.
var codeModeLines = func() []string {
	b, err := os.ReadFile("testdata/codemode-0.171.jsonl")
	if err != nil {
		panic(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}()

// A code-mode script that is one call is imported as that call (meta
// viaTool exec), its output what the script printed, ok from the exit
// Codex's CommandExecution event gives its command; a script still
// running leaves its cell to a wait call named by the command; a script
// that throws failed; another script is the exec call it is. The same in
// one import and in steps.
func TestCodeModeRollout(t *testing.T) {
	type call struct{ tool, via, input, execCommand string }
	type result struct{ tool, ok, output string }
	wantCalls := map[string]call{
		"call_1":    {"exec_command", "exec", `{"cmd":"printf 'FIRST-LINE\\nSECOND-LINE\\n'; exit 3","yield_time_ms":10000}`, ""},
		"call_2":    {"exec_command", "exec", `{"cmd":"echo ALL-FINE"}`, ""},
		"call_3":    {"exec_command", "exec", `{"cmd":"sleep 2; echo LATE-CELL; exit 4","yield_time_ms":10000}`, ""},
		"call_wait": {"wait", "", `{"cell_id":"6","yield_time_ms":10000}`, "sleep 2; echo LATE-CELL; exit 4"},
		"call_5":    {"exec", "", `{"input":"throw new Error(\"SCRIPT-BROKE\");\n"}`, ""},
		"call_6":    {"exec", "", "", ""},
	}
	wantResults := map[string]result{
		"call_1":    {"exec_command", "false", "FIRST-LINE\nSECOND-LINE"},
		"call_2":    {"exec_command", "true", "ALL-FINE"},
		"call_3":    {"exec_command", "", ""},
		"call_wait": {"wait", "false", "LATE-CELL"},
		"call_5":    {"exec", "false", "Script error:\nError: SCRIPT-BROKE\n    at exec_main.mjs:1:7"},
		"call_6":    {"exec", "", "On branch main\nabc123 first"},
	}
	for _, steps := range []int{1, 2, 5} {
		path := filepath.Join(t.TempDir(), "rollout-2026-12-06T05-33-27-01a249d8-0ef5-7391-8531-404de5a3b0f5.jsonl")
		st, home := testfixtures.NewStore(t)
		for k := 1; k <= steps; k++ {
			writeRollout(t, path, codeModeLines[:len(codeModeLines)*k/steps])
			sum, err := Import(Options{Store: st, Home: home, Path: path, ID: "cm"})
			if err != nil {
				t.Fatal(err)
			}
			if sum.MalformedCount != 0 || sum.WarningCount != 0 {
				t.Fatalf("in %d steps: malformed %d, warnings %v", steps, sum.MalformedCount, sum.Warnings)
			}
		}
		calls, results := map[string]call{}, map[string]result{}
		for _, ev := range testfixtures.ReadSession(t, st, "cm") {
			switch ev.Type {
			case session.TypeToolCall:
				c := call{ev.Tool.Name, ev.Meta["viaTool"], string(ev.Tool.Input), ev.Meta["execCommand"]}
				if ev.Tool.CallID == "call_6" {
					if !strings.Contains(c.input, "Promise.all") {
						t.Errorf("in %d steps: the two-call script's input %s lost the script", steps, c.input)
					}
					c.input = ""
				}
				if c.input != "" {
					var v any
					if json.Unmarshal([]byte(c.input), &v) != nil {
						t.Fatalf("input %s", c.input)
					}
					b, _ := json.Marshal(v)
					c.input = string(b)
					w := wantCalls[ev.Tool.CallID]
					var wv any
					if json.Unmarshal([]byte(w.input), &wv) == nil {
						wb, _ := json.Marshal(wv)
						w.input = string(wb)
						wantCalls[ev.Tool.CallID] = w
					}
				}
				calls[ev.Tool.CallID] = c
			case session.TypeToolResult:
				r := result{tool: ev.Tool.Name, output: ev.Tool.Output}
				if ev.Tool.OK != nil {
					r.ok = map[bool]string{true: "true", false: "false"}[*ev.Tool.OK]
				}
				results[ev.Tool.CallID] = r
			}
		}
		if !reflect.DeepEqual(calls, wantCalls) {
			t.Errorf("in %d steps: calls\n got %+v\nwant %+v", steps, calls, wantCalls)
		}
		if !reflect.DeepEqual(results, wantResults) {
			t.Errorf("in %d steps: results\n got %+v\nwant %+v", steps, results, wantResults)
		}
	}
}

// A code-mode script that polls a session (write_stdin) whose command the
// rollout never named (a script that started it printed no "Process
// running with session ID" header) and runs on in a cell: the wait on
// that cell names the session it polls (meta execSession), as the
// desktop app's CI watching does, wait after wait on one session.
func TestAWaitOnAPollingCellNamesItsSession(t *testing.T) {
	lines := []string{
		codeModeLines[0],
		`{"timestamp":"2026-12-06T05:40:00.000Z","type":"response_item","payload":{"call_id":"call_p","id":"ctc_p","input":"const r = await tools.write_stdin({session_id:84530, chars:\"\", yield_time_ms:30000, max_output_tokens:5000}); text(r.output);\n","name":"exec","status":"completed","type":"custom_tool_call"}}`,
		`{"timestamp":"2026-12-06T05:40:10.000Z","type":"response_item","payload":{"call_id":"call_p","id":"ctco_p","output":"Script running with cell ID 308\nWall time 10.0 seconds\nOutput:\n","type":"custom_tool_call_output"}}`,
		`{"timestamp":"2026-12-06T05:40:11.000Z","type":"response_item","payload":{"arguments":"{\"cell_id\":\"308\",\"yield_time_ms\":30000}","call_id":"call_w","id":"fc_w","name":"wait","status":"completed","type":"function_call"}}`,
		`{"timestamp":"2026-12-06T05:40:40.000Z","type":"response_item","payload":{"call_id":"call_w","id":"fco_w","output":[{"text":"Script completed\nWall time 29.0 seconds\nOutput:\n","type":"input_text"},{"text":"✓ Complete job\n","type":"input_text"}],"type":"function_call_output"}}`,
	}
	_, evs := importRollout(t, "rollout-2026-12-06T05-33-27-01a249d8-0ef5-7391-8531-404de5a3b0f5.jsonl", "cm", lines)
	var got []string
	for _, ev := range evs {
		if ev.Type == session.TypeToolCall {
			got = append(got, ev.Tool.Name+" "+ev.Meta["execCommand"]+"|"+ev.Meta["execSession"])
		}
	}
	if want := []string{"write_stdin |", "wait |84530"}; !reflect.DeepEqual(got, want) {
		t.Errorf("calls %q, want %q", got, want)
	}
}

// A unified-exec output that says the command still runs ("Process
// running with session ID N") has no ok and meta execRunning N, for the
// tape's "running"; an output that says it exited has no such meta.
func TestARunningCommandIsMarkedRunning(t *testing.T) {
	_, evs := importRollout(t, "rollout-2026-12-03T01-49-00-01a23997-b65c-7741-9b94-e5b99fe09378.jsonl", "ux", unifiedExecLines)
	got := map[string]string{}
	for _, ev := range evs {
		if ev.Type == session.TypeToolResult {
			got[ev.Tool.CallID] = ev.Meta["execRunning"]
		}
	}
	want := map[string]string{"call_fail": "", "call_ok": "", "call_slow": "86659", "call_poll": ""}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("execRunning %q, want %q", got, want)
	}
}

// FuzzCodeModeCall: any script, however broken, is read without a panic,
// and one read as a call gives a tool name and a JSON object (or, for
// apply_patch, a patch) as its input; its output, any text, likewise.
func FuzzCodeModeCall(f *testing.F) {
	for _, s := range []string{
		`const r = await tools.exec_command({cmd:"printf 'A\\nB'; exit 3","yield_time_ms":10000}); text(r.output);`,
		"const patch = \"*** Begin Patch\\n*** Add File: a.md\\n+x\\n*** End Patch\";\ntext(await tools.apply_patch(patch));",
		`const r = await tools.web__run({search_query:[{q:"a"},{q:'b\u00e9\uD83D\uDE00'}],n:-1.5e3,ok:true,z:null}); text(r);`,
		"// @exec: {\"yield_time_ms\": 300}\nconst r = await tools.write_stdin({session_id:1, chars:`\\u{1F600}`});",
	} {
		f.Add(s, `[{"text":"Script completed\nWall time 0.2 seconds\nOutput:\n","type":"input_text"},{"text":"x","type":"input_text"}]`)
	}
	f.Fuzz(func(t *testing.T, script, output string) {
		if name, input, ok := codeModeCall(script); ok {
			var v map[string]any
			if name == "" || json.Unmarshal(input, &v) != nil {
				t.Fatalf("%q: read as %q with input %s, want a name and a JSON object", script, name, input)
			}
		}
		if status, _, _, ok := codeModeOutput(json.RawMessage(output)); ok && status != "completed" && status != "failed" && status != "running" {
			t.Fatalf("%q: status %q", output, status)
		}
	})
}

// Past maxOpenCells code-mode calls without output (a rollout that lost
// them), the one forgotten is the least call_id, whatever the map's
// order, so that a follow and a whole import agree.
func TestAddCellForgetsTheLeastCallID(t *testing.T) {
	for range 20 {
		m := NewMapper(Config{})
		for k := range maxOpenCells + 1 {
			m.addCell(fmt.Sprintf("call_%04d", maxOpenCells-k), cellCall{})
		}
		if len(m.cells) != maxOpenCells {
			t.Fatalf("%d cells kept, want %d", len(m.cells), maxOpenCells)
		}
		if _, kept := m.cells["call_0001"]; kept {
			t.Fatal("the least call_id before the last was kept; another was forgotten")
		}
		if _, kept := m.cells["call_0000"]; !kept {
			t.Fatal("the call just added was forgotten")
		}
	}
}

// A script that prints the whole result of its exec_command or
// write_stdin call, text(JSON.stringify(r)) (seen in a real Codex 0.144
// rollout), prints unified exec's result object: its output is the
// command's output and its exit_code how the command ended; a result
// with no exit_code (the command still runs, a session_id) says nothing
// of it. Any other printed JSON stays as printed.
func TestCodeModeResultObjectIsTheCommandsOutput(t *testing.T) {
	head := `{"type":"input_text","text":"Script completed\nWall time 4.6 seconds\nOutput:\n"}`
	printed := func(s string) json.RawMessage {
		b, _ := json.Marshal(s)
		return json.RawMessage(`[` + head + `,{"type":"input_text","text":` + string(b) + `}]`)
	}
	yes, no := true, false
	for _, c := range []struct {
		tool, out, text string
		ok              *bool
	}{
		{"exec_command", `{"chunk_id":"4f2e97","wall_time_seconds":0.000003875,"exit_code":0,"original_token_count":38,"output":"[feature/oidc 74e8a5e] fix(token-exchange): clarify\n 17 files changed\n"}`, "[feature/oidc 74e8a5e] fix(token-exchange): clarify\n 17 files changed", &yes},
		{"exec_command", `{"chunk_id":"c605b9","wall_time_seconds":0,"exit_code":128,"original_token_count":23,"output":"fatal: Unable to create '.git/index.lock': Operation not permitted\n"}`, "fatal: Unable to create '.git/index.lock': Operation not permitted", &no},
		{"write_stdin", `{"chunk_id":"2be87e","wall_time_seconds":10.9,"exit_code":0,"original_token_count":256,"output":"Done in 120ms"}`, "Done in 120ms", &yes},
		{"exec_command", `{"chunk_id":"aa","wall_time_seconds":10,"session_id":4711,"original_token_count":3,"output":"compiling"}`, "compiling", nil},
		{"exec_command", `{"output":"x","exit_code":"zero"}`, `{"output":"x","exit_code":"zero"}`, nil},
		{"web__run", `{"exit_code":0,"output":"a page"}`, `{"exit_code":0,"output":"a page"}`, nil},
		{"exec_command", `plain output`, `plain output`, nil},
		{"wait", `{"chunk_id":"2be87e","wall_time_seconds":10.9,"exit_code":0,"original_token_count":256,"output":"Done in 120ms"}`, "Done in 120ms", &yes},
	} {
		m := NewMapper(Config{})
		text, ok, _, found := m.codeModeResult(cellCall{Tool: c.tool, Command: "git commit"}, printed(c.out))
		if c.tool == "wait" {
			// A wait on a cell whose script is not known is left as printed.
			if text, _, _, _ := m.codeModeResult(cellCall{Tool: "wait"}, printed(c.out)); text != c.out {
				t.Errorf("a wait on an unknown cell: %q", text)
			}
		}
		if !found || text != c.text || (ok == nil) != (c.ok == nil) || ok != nil && *ok != *c.ok {
			t.Errorf("%s %s:\n got %q %v %v\nwant %q %v", c.tool, c.out, text, ok, found, c.text, c.ok)
		}
	}
}

// Codex cuts a text it gives its model to a budget (truncate.rs): a
// "Warning: truncated output" head and the text's head and end around
// "…N tokens truncated…". A script that printed unified exec's result
// object on one line gets that object cut in its middle, inside its
// output (a real 0.144 rollout in testdata/fidelity: ten such results, one
// of a build that failed with exit code 1). The object's fields before the
// cut still say how the command ended, and the output's head and end are
// its output around the mark; a cut inside an escape loses that escape.
func TestACutResultObjectStillSaysHowTheCommandEnded(t *testing.T) {
	head := `{"type":"input_text","text":"Script completed\nWall time 14.0 seconds\nOutput:\n"}`
	printed := func(s string) json.RawMessage {
		b, _ := json.Marshal(s)
		return json.RawMessage(`[` + head + `,{"type":"input_text","text":` + string(b) + `}]`)
	}
	warn := "Warning: truncated output (original token count: 3372)\nTotal output lines: 1\n\n"
	no := false
	for _, c := range []struct {
		tool, out, text string
		ok              *bool
		running         bool
	}{
		{"wait", warn + `{"chunk_id":"1ef869","wall_time_seconds":25.4,"exit_code":1,"original_token_count":5466,"output":"Compiling mise\r\nbuild st…372 tokens truncated…ep 2\r\nerror: could not compile \"mise\"\r\n"}`,
			"Compiling mise\r\nbuild st\n…372 tokens truncated…\nep 2\r\nerror: could not compile \"mise\"\r", &no, false},
		// Cut inside an escape, on either side of the mark.
		{"exec_command", warn + `{"chunk_id":"aa","wall_time_seconds":30,"session_id":82470,"original_token_count":11115,"output":"a\u00…722 tokens truncated…e9 b\\…9 tokens truncated…"}`,
			"", nil, true},
		{"exec_command", warn + `{"chunk_id":"aa","wall_time_seconds":30,"exit_code":0,"original_token_count":11115,"output":"head\…722 tokens truncated…"tail\n"}`,
			"head\n…722 tokens truncated…\ntail", nil, false},
	} {
		m := NewMapper(Config{})
		text, ok, running, found := m.codeModeResult(cellCall{Tool: c.tool, Command: "cargo build"}, printed(c.out))
		if c.text == "" {
			// Two marks: no object Codex cut once; left as printed.
			if text != c.out || ok != nil || running != "" {
				t.Errorf("%s: a text cut twice was read as a result: %q %v %q", c.tool, text, ok, running)
			}
			continue
		}
		if c.ok == nil {
			yes := true
			c.ok = &yes
		}
		if !found || text != c.text || ok == nil || *ok != *c.ok || (running != "") != c.running {
			t.Errorf("%s %s:\n got %q %v %q\nwant %q %v", c.tool, c.out, text, ok, running, c.text, *c.ok)
		}
	}
}

// testdata/subagents-0.144.jsonl: lines of a real Codex desktop 0.144
// rollout (testdata/fidelity, the session_meta cut to the fields graft
// reads) where the agent spawned a reviewer (spawn_agent, namespace
// collaboration) that answered its parent in agent_message response
// items: a MESSAGE whose payload is encrypted, then its FINAL_ANSWER in
// plain text, each after an inter_agent_communication_metadata line. A
// sub-agent's readable message is its report (subagent/report, the agent
// its path), what the parent read of its work; an encrypted one is
// skipped, counted, as the metadata lines are; nothing is unknown.
func TestCodexSubAgentMessagesAreReports(t *testing.T) {
	st, home := testfixtures.NewStore(t)
	sum, err := Import(Options{Store: st, Home: home, Path: "testdata/subagents-0.144.jsonl", ID: "sub"})
	if err != nil {
		t.Fatal(err)
	}
	if sum.WarningCount != 0 || sum.MalformedCount != 0 {
		t.Errorf("warnings %q, malformed %d", sum.Warnings, sum.MalformedCount)
	}
	if sum.Skipped["agent_message without a readable payload"] != 1 || sum.Skipped["inter_agent_communication_metadata"] != 2 {
		t.Errorf("skipped %v", sum.Skipped)
	}
	var reports []string
	for _, ev := range testfixtures.ReadSession(t, st, "sub") {
		if ev.Type == session.TypeSubagentReport {
			reports = append(reports, ev.Agent+" "+ev.Meta["messageType"]+": "+ev.Text)
			if ev.Source.Kind != session.KindSubagent || ev.IsHumanInstruction() {
				t.Errorf("a report is the sub-agent's: %+v", ev)
			}
		}
		if ev.Source.Name == "unknown" {
			t.Errorf("seq %d unknown: %s", ev.Seq, ev.Text)
		}
	}
	want := "/root/standards_review FINAL_ANSWER: Standards review completed and sent to the parent agent: one hard documentation-contract violation and two judgment-call design smells. No files were changed."
	if len(reports) != 1 || reports[0] != want {
		t.Errorf("reports %q, want [%q]", reports, want)
	}
}

// testdata/toolsearch-0.142.jsonl: a real Codex 0.142 rollout's tool
// search (the tool list cut to two per namespace): the agent asks for
// tools by words (tool_search_call, its arguments the query), the host
// answers with the tools it found (tool_search_output). A call
// "tool_search" with the query as input, and its result naming the
// tools found (namespace and name) — not unknown items.
func TestCodexToolSearchIsACall(t *testing.T) {
	st, home := testfixtures.NewStore(t)
	sum, err := Import(Options{Store: st, Home: home, Path: "testdata/toolsearch-0.142.jsonl", ID: "ts"})
	if err != nil {
		t.Fatal(err)
	}
	if sum.WarningCount != 0 || sum.MalformedCount != 0 {
		t.Errorf("warnings %q, malformed %d", sum.Warnings, sum.MalformedCount)
	}
	var got []string
	for _, ev := range testfixtures.ReadSession(t, st, "ts") {
		if ev.Tool != nil {
			s := ev.Type + " " + ev.Tool.Name + " " + string(ev.Tool.Input) + ev.Tool.Output
			if ev.Tool.OK != nil {
				s += fmt.Sprintf(" ok=%v", *ev.Tool.OK)
			}
			got = append(got, s)
		}
	}
	want := []string{
		`tool/call tool_search {"query":"GitHub pull request create PR repository head branch draft","limit":8}`,
		"tool/result tool_search tools found: mcp__codex_apps__github._create_pull_request, mcp__codex_apps__github._mark_pull_request_ready_for_review ok=true",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A code-mode script that prints the whole result of an exec_command,
// text(JSON.stringify(r)), while the command still runs prints a
// session_id and no exit_code (a real Codex 0.144 rollout in
// testdata/fidelity: a commit whose hook asked "Link this commit to
// session context? [Y]es / [n]o", answered by a write_stdin; tests run on
// in a cell). That result is running (meta execRunning, as unified exec's
// "Process running with session ID" header makes it), and the session is
// the command's: the write_stdin that answers it, and the wait on the
// cell that write_stdin runs on in, are named by that command (meta
// execCommand), so the outcome they print is the command's.
func TestACodeModeRunningResultNamesItsSessionsPolls(t *testing.T) {
	lines := []string{
		codeModeLines[0],
		`{"timestamp":"2026-12-06T05:40:00.000Z","type":"response_item","payload":{"call_id":"call_c","id":"ctc_c","input":"const r = await tools.exec_command({cmd:\"git commit -m \\\"fix: harden\\\"\",\"workdir\":\"/w\",\"yield_time_ms\":1000}); text(JSON.stringify(r));\n","name":"exec","status":"completed","type":"custom_tool_call"}}`,
		`{"timestamp":"2026-12-06T05:40:01.000Z","type":"response_item","payload":{"call_id":"call_c","output":[{"type":"input_text","text":"Script completed\nWall time 1.2 seconds\nOutput:\n"},{"type":"input_text","text":"{\"chunk_id\":\"ba09b1\",\"wall_time_seconds\":1.0,\"session_id\":55257,\"original_token_count\":9,\"output\":\"Link this commit to session context?\\n  [Y]es / [n]o: \"}"}],"type":"custom_tool_call_output"}}`,
		`{"timestamp":"2026-12-06T05:40:02.000Z","type":"response_item","payload":{"call_id":"call_y","id":"ctc_y","input":"const r = await tools.write_stdin({session_id:55257,chars:\"Y\\n\",yield_time_ms:30000}); text(JSON.stringify(r));\n","name":"exec","status":"completed","type":"custom_tool_call"}}`,
		`{"timestamp":"2026-12-06T05:40:12.000Z","type":"response_item","payload":{"call_id":"call_y","output":"Script running with cell ID 8\nWall time 10.0 seconds\nOutput:\n","type":"custom_tool_call_output"}}`,
		`{"timestamp":"2026-12-06T05:40:13.000Z","type":"response_item","payload":{"arguments":"{\"cell_id\":\"8\",\"yield_time_ms\":30000}","call_id":"call_w","id":"fc_w","name":"wait","type":"function_call"}}`,
		`{"timestamp":"2026-12-06T05:40:20.000Z","type":"response_item","payload":{"call_id":"call_w","output":[{"type":"input_text","text":"Script completed\nWall time 7.0 seconds\nOutput:\n"},{"type":"input_text","text":"{\"chunk_id\":\"598686\",\"wall_time_seconds\":8.0,\"exit_code\":0,\"original_token_count\":20,\"output\":\"Y\\n[main 2e20f69d8] fix: harden\\n 2 files changed\\n\"}"}],"type":"function_call_output"}}`,
	}
	_, evs := importRollout(t, "rollout-2026-12-06T05-33-27-01a249d8-0ef5-7391-8531-404de5a3b0f5.jsonl", "cm", lines)
	var got []string
	for _, ev := range evs {
		switch ev.Type {
		case session.TypeToolCall:
			got = append(got, "call "+ev.Tool.Name+" "+ev.Meta["execCommand"])
		case session.TypeToolResult:
			ok := "-"
			if ev.Tool.OK != nil {
				ok = strconv.FormatBool(*ev.Tool.OK)
			}
			got = append(got, "result "+ev.Tool.Name+" "+ok+" running="+ev.Meta["execRunning"])
		}
	}
	want := []string{
		"call exec_command ",
		"result exec_command - running=55257",
		`call write_stdin git commit -m "fix: harden"`,
		"result write_stdin - running=",
		`call wait git commit -m "fix: harden"`,
		"result wait true running=",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("events\n got %q\nwant %q", got, want)
	}
}
