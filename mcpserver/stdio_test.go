package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/graft-project/graft/graft"
)

// stdioServer runs New over a StdioTransport on pipes and returns a writer
// for its stdin and a reader of its stdout lines.
func stdioServer(t *testing.T, maxLine int) (io.WriteCloser, *bufio.Scanner) {
	t.Helper()
	svc, err := graft.Open(t.TempDir(), graft.Options{})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	log := slog.New(slog.NewTextHandler(testWriter{t}, nil))
	done := make(chan error, 1)
	go func() {
		done <- New(svc, Options{Logger: log}).Run(context.Background(), &StdioTransport{In: inR, Out: outW, Logger: log, MaxLineBytes: maxLine})
		outW.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("server after stdin closed: %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Error("the server did not stop within 20 s of stdin closing")
		}
	})
	sc := bufio.NewScanner(outR)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	return inW, sc
}

func nextMessage(t *testing.T, sc *bufio.Scanner) map[string]json.RawMessage {
	t.Helper()
	got := make(chan bool, 1)
	go func() { got <- sc.Scan() }()
	select {
	case ok := <-got:
		if !ok {
			t.Fatalf("stdout ended: %v", sc.Err())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no answer within 20 s")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
		t.Fatalf("stdout carried %q: %v", sc.Text(), err)
	}
	return m
}

func write(t *testing.T, w io.Writer, s string) {
	t.Helper()
	if _, err := io.WriteString(w, s); err != nil {
		t.Fatal(err)
	}
}

// In one session: a malformed line between valid requests is answered and
// skipped; blank lines are skipped silently; CRLF line ends are read; a
// line longer than the limit is read through (not held) and answered with a
// parse error; the valid requests before and after are answered in order.
func TestStdioTransportKeepsServing(t *testing.T) {
	w, sc := stdioServer(t, 4096)
	write(t, w, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`+"\r\n")
	if m := nextMessage(t, sc); string(m["id"]) != "1" || m["result"] == nil {
		t.Fatalf("initialize: %s", m)
	}
	write(t, w, "\n   \n"+`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	write(t, w, `{"jsonrpc":"2.0","id":"a","method":"ping"`+"\n") // truncated
	m := nextMessage(t, sc)
	if string(m["id"]) != "null" || !strings.Contains(string(m["error"]), `"code":-32700`) {
		t.Fatalf("truncated line: %s", m)
	}
	write(t, w, `{"jsonrpc":"2.0","id":"big","method":"ping","params":{"pad":"`+strings.Repeat("x", 100000)+`"}}`+"\n")
	m = nextMessage(t, sc)
	if string(m["id"]) != "null" || !strings.Contains(string(m["error"]), `"code":-32700`) || !strings.Contains(string(m["error"]), "longer than the 4096") {
		t.Fatalf("line over the limit: %s", m)
	}
	write(t, w, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`+"\n")
	if m := nextMessage(t, sc); string(m["id"]) != "2" || m["result"] == nil {
		t.Fatalf("tools/list after the malformed lines: %s", m)
	}
	// The last line may end without a newline: it is read at EOF.
	write(t, w, `{"jsonrpc":"2.0","id":3,"method":"ping"`)
	w.Close()
	if m := nextMessage(t, sc); string(m["id"]) != "null" || !strings.Contains(string(m["error"]), `"code":-32700`) {
		t.Fatalf("the last line, malformed and without a newline: %s", m)
	}
}

func TestCheckLine(t *testing.T) {
	for _, tc := range []struct {
		line string
		code int64
		id   string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, 0, ""},
		{`  {"jsonrpc":"2.0","id":"x","method":"ping","params":{}}  `, 0, ""},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, 0, ""},
		{`{"jsonrpc":"2.0","id":null,"method":"notifications/initialized"}`, 0, ""},
		{`{"jsonrpc":"2.0","id":7,"result":{}}`, 0, ""},
		{`{"jsonrpc":"2.0","id":7,"error":{"code":-1,"message":"no"}}`, 0, ""},
		{"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"t\":\"\u00e9\u884c\"}}", 0, ""},
		{`{not json}`, -32700, ""},
		{"{\"a\":\"\xff\"}", -32700, ""},
		{`{"a":1}{"b":2}`, -32700, ""},
		{`[]`, -32600, ""},
		{`[ ]`, -32600, ""},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, -32600, ""},
		{`"ping"`, -32600, ""},
		{`null`, -32600, ""},
		{`{"jsonrpc":"2.0","id":[1],"method":"ping"}`, -32600, ""},
		{`{"jsonrpc":"2.0","id":-1e400,"method":"ping"}`, -32600, ""},
		{`{"jsonrpc":"2.0 ","id":3,"method":"ping"}`, -32600, "3"},
		{`{"id":"q","method":"ping"}`, -32600, `"q"`},
		{`{"jsonrpc":"2.0","id":3,"method":null}`, -32600, "3"},
		{`{"jsonrpc":"2.0","id":3,"method":"ping","error":5}`, -32600, "3"},
		{`{"jsonrpc":"2.0","id":null,"result":1}`, -32600, ""},
	} {
		msg, code, problem, id := checkLine([]byte(tc.line))
		if code != tc.code || (code == 0) != (problem == "") || (code == 0) != (msg != nil) {
			t.Errorf("checkLine(%q) = code %d, %q, passes %v; want code %d", tc.line, code, problem, msg != nil, tc.code)
			continue
		}
		if string(id) != tc.id {
			t.Errorf("checkLine(%q): id %s, want %q", tc.line, id, tc.id)
		}
	}
}

// Arguments the SDK refuses before any graft tool runs (its input schema,
// or decoding) are tool errors coded invalid_input, with a next step, like
// the tools' own refusals; a tool's own typed errors keep their codes.
func TestArgumentErrorsAreCoded(t *testing.T) {
	f := newFixture(t, Options{}, graft.Options{})
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{ToolRecall, map[string]any{"session": 5, "seq": 1}},
		{ToolRecall, map[string]any{"session": "s", "seq": "one"}},
		{ToolPrepare, map[string]any{"source": "s", "budget": "big"}},
		{ToolCommit, map[string]any{"preparedId": []string{"x"}, "tapeHash": "h"}},
		{ToolStatus, map[string]any{"offset": -1.5}},
		{ToolRevert, map[string]any{"target": "s.g2", "force": "yes"}},
	} {
		msg := f.fails(c.tool, c.args, "invalid_input")
		if !strings.Contains(msg, "next: fix the arguments of "+c.tool) {
			t.Errorf("%s(%v): %q does not name the tool in its next step", c.tool, c.args, msg)
		}
	}
	// The tool's own refusals are untouched.
	f.fails(ToolRecall, map[string]any{"session": "s", "seq": 999}, "no_such_seq")
	f.fails(ToolCommit, map[string]any{"preparedId": "prep-nothing", "tapeHash": "h"}, "unknown_prepared")
}
