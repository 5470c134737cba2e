package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// rpcLine is one JSON-RPC message the server wrote on stdout.
type rpcLine struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// mcpChild is "graft mcp" with a pipe on its stdin and its stdout read line
// by line.
type mcpChild struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	stderr *strings.Builder
}

func startMCP(t *testing.T, bin, home string) *mcpChild {
	t.Helper()
	cmd := exec.Command(bin, "mcp")
	cmd.Env = append(os.Environ(), "GRAFT_HOME="+home, "GRAFT_CONFIG=", "XDG_CONFIG_HOME="+filepath.Join(home, "no-xdg-config"))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &strings.Builder{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &mcpChild{t: t, cmd: cmd, stdin: stdin, lines: make(chan string, 64), stderr: stderr}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	t.Cleanup(func() {
		if c.cmd.ProcessState == nil {
			if err := c.cmd.Process.Kill(); err != nil {
				t.Errorf("killing graft mcp: %v", err)
			}
			_ = c.cmd.Wait() // killed: its exit status says so, nothing to check
		}
	})
	return c
}

func (c *mcpChild) send(raw string) {
	c.t.Helper()
	if _, err := io.WriteString(c.stdin, raw+"\n"); err != nil {
		c.t.Fatalf("writing to graft mcp: %v (stderr: %s)", err, c.stderr.String())
	}
}

// next returns the next message on stdout; the server exiting or staying
// silent for 20 s fails the test.
func (c *mcpChild) next(what string) rpcLine {
	c.t.Helper()
	select {
	case line, ok := <-c.lines:
		if !ok {
			werr := c.cmd.Wait()
			c.t.Fatalf("waiting for %s: graft mcp closed stdout (exit: %v)\nstderr: %s", what, werr, c.stderr.String())
		}
		var m rpcLine
		if err := json.Unmarshal([]byte(line), &m); err != nil || m.JSONRPC != "2.0" {
			c.t.Fatalf("waiting for %s: stdout carried a line that is no JSON-RPC message (%v): %q", what, err, line)
		}
		return m
	case <-time.After(20 * time.Second):
		c.t.Fatalf("waiting for %s: no answer within 20 s\nstderr: %s", what, c.stderr.String())
	}
	return rpcLine{}
}

// finish closes stdin and wants exit code 0.
func (c *mcpChild) finish() {
	c.t.Helper()
	if err := c.stdin.Close(); err != nil {
		c.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			c.t.Fatalf("graft mcp after stdin closed: %v\nstderr: %s", err, c.stderr.String())
		}
	case <-time.After(20 * time.Second):
		c.t.Fatalf("graft mcp did not exit within 20 s of stdin closing\nstderr: %s", c.stderr.String())
	}
}

const initializeLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw-lines","version":"0"}}}`

// TestMCPStdioSurvivesMalformedLines writes one malformed line to a real
// "graft mcp", then a valid initialize and tools/list. Each malformed line
// gets its JSON-RPC error (-32700 parse error, -32600 invalid request; the
// request's id when one can be read, else null) and the server goes on
// answering: before, it exited 1 without a word on stdout.
func TestMCPStdioSurvivesMalformedLines(t *testing.T) {
	bin := graftBinary(t)
	for _, tc := range []struct {
		name, line string
		code       int
		id         string // the id the error must carry, as JSON
	}{
		{"not JSON", `{not json}`, -32700, "null"},
		{"truncated JSON", `{"jsonrpc":"2.0","id":5,"method":"tools/li`, -32700, "null"},
		{"two values on one line", `{"jsonrpc":"2.0","id":5,"method":"ping"} {"jsonrpc":"2.0","id":6,"method":"ping"}`, -32700, "null"},
		{"invalid UTF-8 outside a string", "\xff\xfe{}", -32700, "null"},
		{"invalid UTF-8 in a string", "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\",\"params\":{\"x\":\"\xc3\x28\"}}", -32700, "null"},
		{"empty batch", `[]`, -32600, "null"},
		{"batch", `[{"jsonrpc":"2.0","id":5,"method":"ping"}]`, -32600, "null"},
		{"not an object", `42`, -32600, "null"},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":5,"method":"tools/list"}`, -32600, "5"},
		{"no jsonrpc member", `{"id":"five","method":"tools/list"}`, -32600, `"five"`},
		{"jsonrpc a number", `{"jsonrpc":2.0,"id":5,"method":"tools/list"}`, -32600, "5"},
		{"jsonrpc in other case", `{"JSONRPC":"2.0","id":5,"method":"tools/list"}`, -32600, "5"},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`, -32600, "null"},
		{"boolean id", `{"jsonrpc":"2.0","id":true,"method":"tools/list"}`, -32600, "null"},
		{"id out of range", `{"jsonrpc":"2.0","id":1e999,"method":"tools/list"}`, -32600, "null"},
		{"method not a string", `{"jsonrpc":"2.0","id":5,"method":7}`, -32600, "5"},
		{"response without id", `{"jsonrpc":"2.0","result":{}}`, -32600, "null"},
		{"response error not an object", `{"jsonrpc":"2.0","id":9,"error":"oops"}`, -32600, "9"},
		{"nested deeper than the SDK reads", `{"jsonrpc":"2.0","id":5,"method":"ping","params":{"x":` + strings.Repeat("[", 1100) + strings.Repeat("]", 1100) + `}}`, -32600, "5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := startMCP(t, bin, t.TempDir())
			c.send(tc.line)
			m := c.next("the error for the malformed line")
			if m.Error == nil || m.Error.Code != tc.code || string(m.ID) != tc.id {
				t.Fatalf("malformed line %q: answered %+v (error %+v), want error %d with id %s", tc.line, m, m.Error, tc.code, tc.id)
			}
			c.send(initializeLine)
			if m := c.next("the initialize result"); string(m.ID) != "1" || m.Error != nil || !strings.Contains(string(m.Result), `"graft"`) {
				t.Fatalf("initialize after the malformed line: %+v (error %+v)", m, m.Error)
			}
			c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
			m = c.next("the tools/list result")
			var tools struct {
				Tools []struct{ Name string } `json:"tools"`
			}
			err := json.Unmarshal(m.Result, &tools)
			var names []string
			for _, tool := range tools.Tools {
				names = append(names, tool.Name)
			}
			slices.Sort(names)
			if want := []string{"graft_commit", "graft_find", "graft_prepare", "graft_recall", "graft_revert", "graft_status"}; string(m.ID) != "2" || err != nil || !slices.Equal(names, want) {
				t.Fatalf("tools/list after the malformed line: id %s, tools %q, want %q (error %+v, decode %v)", m.ID, names, want, m.Error, err)
			}
			c.finish()
		})
	}
}

// TestMCPStdioArgumentErrorsAreCoded: arguments the tool's input schema
// refuses are a tool error whose text starts with invalid_input and ends
// with the next step, like every other tool error (before: the SDK's
// "validating \"arguments\": …" with no code).
func TestMCPStdioArgumentErrorsAreCoded(t *testing.T) {
	c := startMCP(t, graftBinary(t), t.TempDir())
	c.send(initializeLine)
	c.next("the initialize result")
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for k, args := range []string{`{"session":5,"seq":1}`, `{"session":"s","seq":"one"}`, `{"target":["x"]}`} {
		tool := "graft_recall"
		if k == 2 {
			tool = "graft_revert"
		}
		id := 10 + k
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args))
		m := c.next("the tools/call result")
		var res struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		if err := json.Unmarshal(m.Result, &res); string(m.ID) != fmt.Sprint(id) || err != nil || !res.IsError || len(res.Content) != 1 {
			t.Fatalf("%s %s: %+v (error %+v, decode %v), want a tool error", tool, args, m, m.Error, err)
		}
		if text := res.Content[0].Text; !strings.HasPrefix(text, "invalid_input: ") || !strings.Contains(text, "; next: fix the arguments of "+tool) {
			t.Fatalf("%s %s: tool error %q, want invalid_input: …; next: fix the arguments of %s …", tool, args, text, tool)
		}
	}
	c.finish()
}
