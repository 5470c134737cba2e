package session_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode"

	"github.com/graft-project/graft/gen"
	"github.com/graft-project/graft/importer/claudecode"
	"github.com/graft-project/graft/internal/testfixtures"
	"github.com/graft-project/graft/session"
)

// encodings renders ev the ways a log line can look: json.Marshal (HTML
// characters as \u003c, what older logs hold) and the store's Encode.
func encodings(t testing.TB, ev *session.Event) [][]byte {
	t.Helper()
	marshalled, err := json.Marshal(ev)
	if err != nil {
		t.Fatalf("json.Marshal seq %d: %v", ev.Seq, err)
	}
	encoded, err := session.Encode(ev)
	if err != nil {
		t.Fatalf("Encode seq %d: %v", ev.Seq, err)
	}
	return [][]byte{marshalled, bytes.TrimSuffix(encoded, []byte("\n"))}
}

// foldView is what ScanFold promises: no timestamp; the output of a tool
// event is kept only when the call failed, and then only through its
// first line that holds a non-space rune (all of it when no line does).
func foldView(ev session.Event) session.Event {
	ev.TS = ""
	if ev.Tool != nil && ev.OKResult() {
		tool := *ev.Tool
		tool.Output = ""
		ev.Tool = &tool
	} else if ev.Tool != nil {
		tool := *ev.Tool
		tool.Output = throughFirstTextLine(tool.Output)
		ev.Tool = &tool
	}
	return ev
}

// throughFirstTextLine is s up to (not including) the '\n' that ends its
// first line holding a non-space rune, or s when no line does: written
// apart from the decoder's own, line by line, as the test's oracle.
func throughFirstTextLine(s string) string {
	lines := strings.Split(s, "\n")
	for k, line := range lines {
		if strings.IndexFunc(line, func(r rune) bool { return !unicode.IsSpace(r) }) >= 0 {
			return strings.Join(lines[:k+1], "\n")
		}
	}
	return s
}

// A failed call's output is built only through its first line with text:
// the tape quotes that line and nothing after it, and a log's failed
// outputs can be MiB long.
func TestFoldKeepsAFailedOutputThroughItsFirstTextLine(t *testing.T) {
	for raw, want := range map[string]string{
		`error: boom\nat line 2\nat line 3`:        "error: boom",
		`\n  \n\t\nerror: late\nmore`:              "\n  \n\t\nerror: late",
		`\u000a\u3000\u000aé \"quoted\"\u000atail`: "\n　\né \"quoted\"",
		`\r\n  x  \r\ny`:                           "\r\n  x  \r",
		`  \n\t\n `:                                "  \n\t\n ",
		``:                                         "",
		`one line, no newline`:                     "one line, no newline",
		`a\\nb\nc`:                                 `a\nb`,
	} {
		line := []byte(`{"seq":1,"type":"tool/result","source":{"kind":"tool"},"tool":{"name":"Bash","callId":"c","ok":false,"output":"` + raw + `"}}`)
		got, ok := session.DecodeFast(line, true)
		if !ok {
			t.Fatalf("the fold path declined %s", line)
		}
		if got.Tool.Output != want {
			t.Errorf("output %s: fold kept %q, want %q", raw, got.Tool.Output, want)
		}
		checkFast(t, raw, line)
		// The encoding/json fallback cuts the same way: a key in another
		// case sends the line there.
		slow := bytes.Replace(line, []byte(`"callId"`), []byte(`"CallID"`), 1)
		if _, ok := session.DecodeFast(slow, true); ok {
			t.Fatalf("the fast path took %s", slow)
		}
		var sc session.Event
		res, err := session.ScanFold(bytes.NewReader(append(slow, '\n')), "x", session.ScanFrom{}, func(ev *session.Event, _ []byte, _ int64) error {
			sc = *ev
			return nil
		})
		if err != nil || res.Events != 1 || sc.Tool == nil || sc.Tool.Output != want {
			t.Errorf("output %s through encoding/json: %+v %v, kept %+v, want %q", raw, res, err, sc.Tool, want)
		}
	}
}

// checkFast asserts that line takes the fast path in both modes and that
// the result equals encoding/json's.
func checkFast(t *testing.T, what string, line []byte) {
	t.Helper()
	var want session.Event
	if err := json.Unmarshal(line, &want); err != nil {
		t.Fatalf("%s: encoding/json refuses the line: %v\n%s", what, err, clip(line))
	}
	got, ok := session.DecodeFast(line, false)
	if !ok {
		t.Fatalf("%s: the fast path declined a line graft writes:\n%s", what, clip(line))
	}
	if !reflect.DeepEqual(*got, want) {
		t.Fatalf("%s: fast decode differs from encoding/json:\n got %+v\nwant %+v\nline %s", what, *got, want, clip(line))
	}
	gotFold, ok := session.DecodeFast(line, true)
	if !ok {
		t.Fatalf("%s: the fold path declined the line:\n%s", what, clip(line))
	}
	if wantFold := foldView(want); !reflect.DeepEqual(*gotFold, wantFold) {
		t.Fatalf("%s: fold decode differs:\n got %+v\nwant %+v", what, *gotFold, wantFold)
	}
}

func clip(b []byte) string {
	if len(b) > 400 {
		return string(b[:400]) + fmt.Sprintf("… (%d bytes)", len(b))
	}
	return string(b)
}

func boolp(b bool) *bool { return &b }

// handMade covers every event type and every field, with the strings that
// exercise escapes: HTML characters, control characters, quotes,
// backslashes, multi-byte text and a character outside the BMP (a
// surrogate pair once escaped).
func handMade() []session.Event {
	tricky := "a<b>&c \"quoted\" back\\slash\n\ttab\r\x01\x1f 中文 русский 🎉 \u2028\u2029 /slash/ \x7f é"
	origin := session.Origin{Generation: 1, Session: "s1", Seq: 2}
	return []session.Event{
		{Seq: 1, TS: "2025-01-01T00:00:00Z", Type: session.TypeGraftOrigin, Source: session.Source{Kind: session.KindPlugin, Name: "graft"},
			Txn: "txn-1", Parent: "p", ParentBoundary: 9, Generation: 2, TapeHash: "graft-tape-v1:ab", TapeEvents: 12,
			Inherit: &session.Inherited{FirstGoal: &session.Quote{Text: tricky, Origin: origin},
				Constraints: []session.Constraint{{Text: "never " + tricky, Origin: origin, Also: []session.Origin{origin, {Generation: 3, Session: "s3", Seq: 7}}}, {Text: "no also", Origin: origin, Pasted: true}},
				Said: []session.Quote{{Text: "then " + tricky, Origin: session.Origin{Generation: 1, Session: "s1", Seq: 5},
					Command: &session.CommandText{At: 4, First: "mode " + tricky, Rule: "never " + tricky}, Picks: &session.Picks{From: 3, Lines: []string{"6. **All** " + tricky, "| B | " + tricky + " |"}}}, {Text: "answered " + tricky, Origin: session.Origin{Generation: 1, Session: "s1", Seq: 6}, Answer: true}},
				Files:      []session.FileNote{{Path: "dir/" + tricky, Note: "write seq=4 " + tricky, Session: "s1", Generation: 1, Seq: 4}},
				Plan:       &session.Passage{Text: "# Plan " + tricky, Origin: origin},
				Place:      &session.Place{Cwd: "/w/" + tricky, GitBranch: "b-" + tricky},
				Prompts:    []session.Quote{{Text: "why V2?\n" + tricky, Origin: origin}},
				Messages:   []session.Passage{{Text: "chose " + tricky, Origin: origin}, {Text: "then", Origin: session.Origin{Generation: 1, Session: "s1", Seq: 7}}},
				Milestones: []session.CallNote{{Tool: "Bash", What: "git push " + tricky, Text: "- seq=5 ok: $ git push\n    → " + tricky, Origin: origin}},
				Goal:       &session.HostGoal{Objective: tricky, Status: "active", Origin: origin}}},
		{Seq: 2, Type: session.TypeUserMessage, Source: session.Source{Kind: session.KindUser}, Text: tricky},
		{Seq: 3, Type: session.TypeAssistantMessage, Source: session.Source{Kind: session.KindAssistant}, Text: ""},
		{Seq: 4, Type: session.TypeToolCall, Source: session.Source{Kind: session.KindAssistant}, Tool: &session.Tool{Name: "Read", CallID: "c1", Input: json.RawMessage(`{"file_path":"a<b>.go","nested":[1,-2.5e3,true,false,null,{"k":"v\u00e9\ud83c\udf89"}]}`)}},
		{Seq: 5, Type: session.TypeToolResult, Source: session.Source{Kind: session.KindTool}, Tool: &session.Tool{Name: "Read", CallID: "c1", OK: boolp(true), Output: strings.Repeat(tricky, 50)}},
		{Seq: 6, Type: session.TypeToolResult, Source: session.Source{Kind: session.KindTool}, Tool: &session.Tool{Name: "Bash", CallID: "c2", OK: boolp(false), Output: "\n\n  error: " + tricky}},
		{Seq: 7, Type: session.TypeToolResult, Source: session.Source{Kind: session.KindTool}, Tool: &session.Tool{Name: "Bash", Output: "no ok field"}},
		{Seq: 8, Type: session.TypeToolCall, Source: session.Source{Kind: session.KindAssistant}, Tool: &session.Tool{Name: "apply_patch", Input: json.RawMessage(`"*** Begin Patch\n*** Update File: x.go"`)}},
		{Seq: 9, Type: session.TypeTodoWrite, Source: session.Source{Kind: session.KindAssistant}, Todos: []session.Todo{{ID: "1", Content: tricky, Status: session.TodoPending}, {Content: "no id", Status: session.TodoCompleted}}},
		{Seq: 10, Type: session.TypeTodoWrite, Source: session.Source{Kind: session.KindAssistant}, Todos: []session.Todo{}},
		{Seq: 11, Type: session.TypeSubagentReport, Source: session.Source{Kind: session.KindSubagent, Name: "explorer"}, Agent: "explorer", Text: "Summary: " + tricky},
		{Seq: 12, Type: session.TypeGraftRetired, Source: session.Source{Kind: session.KindPlugin, Name: "graft"}, Txn: "txn-2", Target: "t"},
		{Seq: 13, Type: session.TypeGraftUnretired, Source: session.Source{Kind: session.KindPlugin, Name: "graft"}, Txn: "txn-2", Target: "t"},
		{Seq: 14, Type: session.TypeGraftAbandoned, Source: session.Source{Kind: session.KindPlugin, Name: "graft"}, Txn: "txn-3", Reason: tricky},
		{Seq: 15, Type: session.TypeSystem, Source: session.Source{Kind: session.KindSystem}, Text: "compacted", Meta: map[string]string{"uuid": "u-1", "line": "7", "odd key \"é\"": tricky}},
		{Seq: 16, Type: session.TypeSystem, Source: session.Source{Kind: session.KindSystem}, Meta: map[string]string{}},
		{Seq: 17, Type: session.TypeGraftOrigin, Source: session.Source{Kind: session.KindPlugin}, Txn: "txn-4", Generation: 3, Inherit: &session.Inherited{}},
		{Seq: -9223372036854775808, Type: session.TypeUserMessage, Source: session.Source{Kind: session.KindUser}, Text: "min int64", ParentBoundary: 9223372036854775807},
	}
}

func TestDecodeFastMatchesEncodingJSONOnEveryEventType(t *testing.T) {
	for _, ev := range handMade() {
		for k, line := range encodings(t, &ev) {
			checkFast(t, fmt.Sprintf("seq %d encoding %d", ev.Seq, k), line)
		}
	}
}

func TestDecodeFastMatchesEncodingJSONOnGeneratedSessions(t *testing.T) {
	types := map[string]int{}
	n := 0
	for _, opts := range []gen.Options{
		gen.DefaultOptions(),
		{Turns: 12, Events: 1500, Seed: 7},
		{Turns: 3, Events: 400, Seed: 42},
	} {
		err := gen.Generate(opts, func(ev *session.Event) error {
			types[ev.Type]++
			for k, line := range encodings(t, ev) {
				checkFast(t, fmt.Sprintf("seed %d seq %d encoding %d", opts.Seed, ev.Seq, k), line)
			}
			n++
			return nil
		})
		if err != nil {
			t.Fatalf("gen %+v: %v", opts, err)
		}
	}
	// The generator must have produced the types the tape reads, or this
	// test would prove less than it says.
	for _, typ := range []string{session.TypeUserMessage, session.TypeAssistantMessage, session.TypeToolCall, session.TypeToolResult, session.TypeTodoWrite, session.TypeSubagentReport} {
		if types[typ] == 0 {
			t.Errorf("the generated sessions have no %s event", typ)
		}
	}
	t.Logf("%d generated events compared, by type %v", n, types)
}

func TestDecodeFastMatchesEncodingJSONOnImportedFixtures(t *testing.T) {
	fx := testfixtures.Path(t, "claude-code")
	paths, err := filepath.Glob(filepath.Join(fx, "*.jsonl"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures in %s (%v)", fx, err)
	}
	home := t.TempDir()
	st := newStore(t)
	st2, err := session.OpenStore(st.FS, home)
	if err != nil {
		t.Fatal(err)
	}
	lines := 0
	for k, path := range paths {
		id := fmt.Sprintf("fixture-%d", k)
		if _, err := claudecode.Import(claudecode.Options{Store: st2, Home: home, Path: path, ID: id}); err != nil {
			t.Fatalf("importing %s: %v", path, err)
		}
		data, err := os.ReadFile(st2.Path(id))
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
			checkFast(t, fmt.Sprintf("%s line %d", filepath.Base(path), n+1), line)
			lines++
		}
	}
	if lines < 100 {
		t.Fatalf("only %d imported lines compared; the fixtures should give hundreds", lines)
	}
	t.Logf("%d imported lines compared", lines)
}

// TestDecodeDeclinesWhatItCannotDecodeExactly: each line must go to
// encoding/json, and Scan's decoder must then agree with encoding/json
// exactly: same error text, or the same event.
func TestDecodeDeclinesWhatItCannotDecodeExactly(t *testing.T) {
	base := `{"seq":1,"type":"user/message","source":{"kind":"user"},"text":"hi"`
	cases := map[string]string{
		"unknown key":                  base + `,"extra":1}`,
		"repeated key":                 base + `,"text":"again"}`,
		"repeated nested object":       `{"seq":1,"type":"tool/call","source":{"kind":"a"},"tool":{"name":"x"},"tool":{"callId":"y"}}`,
		"key in another case":          `{"Seq":1,"type":"user/message","source":{"kind":"user"}}`,
		"escaped key":                  `{"se\u0071":1,"type":"user/message","source":{"kind":"user"}}`,
		"invalid UTF-8":                base[:len(base)-3] + "h\xffi\"}",
		"lone high surrogate":          base[:len(base)-3] + `\ud83c x"}`,
		"lone low surrogate":           base[:len(base)-3] + `\udf89"}`,
		"seq with a fraction":          `{"seq":1.0,"type":"x","source":{"kind":"user"}}`,
		"seq with an exponent":         `{"seq":1e2,"type":"x","source":{"kind":"user"}}`,
		"seq out of range":             `{"seq":9223372036854775808,"type":"x","source":{"kind":"user"}}`,
		"seq as a string":              `{"seq":"1","type":"x","source":{"kind":"user"}}`,
		"leading zero":                 `{"seq":01,"type":"x","source":{"kind":"user"}}`,
		"trailing comma":               base + `,}`,
		"unterminated string":          base[:len(base)-1],
		"raw control character":        base[:len(base)-3] + "h\x01i\"}",
		"raw tab":                      base[:len(base)-3] + "h\ti\"}",
		"bad escape":                   base[:len(base)-3] + `h\xi"}`,
		"single-quote escape":          base[:len(base)-3] + `h\'i"}`,
		"short unicode escape":         base[:len(base)-3] + `h\u12"}`,
		"deep input":                   `{"seq":1,"type":"tool/call","source":{"kind":"a"},"tool":{"name":"x","input":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}}`,
		"too deep input":               `{"seq":1,"type":"tool/call","source":{"kind":"a"},"tool":{"name":"x","input":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}}`,
		"top-level array":              `[1,2]`,
		"top-level null":               `null`,
		"garbage after the object":     base + `} x`,
		"second object":                base + `}{}`,
		"null meta value":              base + `,"meta":{"a":null}}`,
		"meta value not a string":      base + `,"meta":{"a":1}}`,
		"bool as a string":             `{"seq":1,"type":"tool/result","source":{"kind":"t"},"tool":{"name":"x","ok":"true"}}`,
		"type as a number":             `{"seq":1,"type":5}`,
		"bad number in input":          `{"seq":1,"type":"tool/call","source":{"kind":"a"},"tool":{"name":"x","input":{"a":-}}}`,
		"number with a plus":           `{"seq":+1,"type":"x"}`,
		"BOM":                          "\ufeff" + base + `}`,
		"unquoted key":                 `{seq:1}`,
		"todos not an array":           `{"seq":1,"type":"todo/write","source":{"kind":"a"},"todos":{}}`,
		"generation as a float":        `{"seq":1,"type":"graft/origin","source":{"kind":"a"},"txn":"t","generation":2.5}`,
		"origin inside inherit: extra": `{"seq":1,"type":"graft/origin","source":{"kind":"a"},"txn":"t","inherit":{"firstGoal":{"text":"x","origin":{"seq":1,"x":2}}}}`,
		"goal inside inherit: extra":   `{"seq":1,"type":"graft/origin","source":{"kind":"a"},"txn":"t","inherit":{"goal":{"objective":"x","status":"active","x":1}}}`,
		"goal inside inherit: twice":   `{"seq":1,"type":"graft/origin","source":{"kind":"a"},"txn":"t","inherit":{"goal":{"objective":"x","objective":"y"}}}`,
	}
	for name, line := range cases {
		t.Run(name, func(t *testing.T) {
			if _, ok := session.DecodeFast([]byte(line), false); ok {
				t.Fatalf("the fast path accepted %q; encoding/json must decide it", clip([]byte(line)))
			}
			compareWithEncodingJSON(t, []byte(line))
		})
	}
}

// compareWithEncodingJSON asserts that Scan's decoder agrees with
// encoding/json on line: same error, or the same event.
func compareWithEncodingJSON(t *testing.T, line []byte) {
	t.Helper()
	// The reference: the decoder Scan had before, encoding/json.
	var want session.Event
	var wantErr error
	if len(bytes.TrimSpace(line)) == 0 {
		wantErr = fmt.Errorf("empty line")
	} else if wantErr = json.Unmarshal(line, &want); wantErr == nil && want.Type == "" {
		wantErr = fmt.Errorf(`missing "type"`)
	}
	got, err := session.DecodeLine(line)
	switch {
	case (err == nil) != (wantErr == nil):
		t.Fatalf("decodeLine error %v, encoding/json error %v, on %q", err, wantErr, clip(line))
	case err != nil && err.Error() != wantErr.Error():
		t.Fatalf("decodeLine error %q, encoding/json error %q", err, wantErr)
	case err == nil && !reflect.DeepEqual(*got, want):
		t.Fatalf("decodeLine %+v, encoding/json %+v, on %q", *got, want, clip(line))
	}
}

func TestDecodeRefusesWhatScanAlwaysRefused(t *testing.T) {
	for name, line := range map[string]string{
		"missing type": `{"seq":1,"source":{"kind":"user"}}`,
		"empty type":   `{"seq":1,"type":"","source":{"kind":"user"}}`,
		"blank line":   " \t ",
		"empty line":   "",
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := session.DecodeLine([]byte(line)); err == nil {
				t.Fatalf("%q decoded without an error", line)
			}
			compareWithEncodingJSON(t, []byte(line))
		})
	}
}

// FuzzDecodeLine: on any bytes, the fast path either declines or agrees
// with encoding/json, and Scan's decoder as a whole always agrees with it.
func FuzzDecodeLine(f *testing.F) {
	for _, ev := range handMade() {
		for _, line := range encodings(f, &ev) {
			f.Add(line)
		}
	}
	for _, s := range []string{
		`{"seq":1,"type":"x","source":{"kind":"user"},"text":"a\"b\\c\u00e9\ud83c\udf89"}`,
		`{"seq":1,"type":"tool/result","source":{"kind":"t"},"tool":{"name":"x","output":"a\nb","ok":false}}`,
		`{"seq":1,"type":"tool/result","source":{"kind":"t"},"tool":{"output":"a\nb","ok":null,"input":null}}`,
		`{ "seq" : 1 , "type" : "x" , "todos" : [ null , { } ] , "meta" : { } }`,
		`{"seq":1,"type":"x","inherit":{"firstGoal":null,"constraints":[{"also":[]}]}}`,
		`{"seq":1,"type":"graft/origin","inherit":{"firstGoal":{"text":"g","origin":null},"constraints":[null,{"text":"c","origin":{"generation":1,"session":"s","seq":2},"also":[null,{}]}],"moreConstraints":[null,{"session":"s","n":2,"from":3,"to":4}]}}`,
		`{"seq":1,"type":"graft/origin","inherit":{"goal":{"objective":"o","status":"active","origin":{"generation":1,"session":"s","seq":3}}}}`,
		`{"seq":1,"type":"graft/origin","inherit":{"goal":null,"firstGoal":null}}`,
		`{"seq":1,"type":"graft/origin","inherit":{"said":[null,{"text":"t","origin":{"generation":1,"session":"s","seq":5}},{"text":"u","origin":null}]}}`,
		`{"seq":1,"type":"graft/origin","inherit":{"files":[null,{"path":"a.go","note":"write seq=3","session":"s","generation":1,"seq":3},{}]}}`,
		`{"seq":1,"type":"graft/origin","inherit":{"plan":{"text":"# Plan","origin":{"generation":1,"session":"s","seq":1}}}}`,
		`{"seq":1,"type":"graft/origin","inherit":{"plan":null}}`,
		`{"seq":-0,"type":"x"}`,
		"",
		" ",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.IndexByte(line, '\n') >= 0 {
			return // Scan never hands a decoder a newline
		}
		if got, ok := session.DecodeFast(line, false); ok {
			var want session.Event
			if err := json.Unmarshal(line, &want); err != nil {
				t.Fatalf("fast path accepted what encoding/json refuses (%v): %q", err, line)
			}
			if !reflect.DeepEqual(*got, want) {
				t.Fatalf("fast path %+v, encoding/json %+v, on %q", *got, want, line)
			}
			gotFold, ok := session.DecodeFast(line, true)
			if !ok || !reflect.DeepEqual(*gotFold, foldView(want)) {
				t.Fatalf("fold path (ok %v) %+v, want %+v, on %q", ok, *gotFold, foldView(want), line)
			}
		}
		compareWithEncodingJSON(t, line)
	})
}
