package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/session"
)

// clock is a test clock the service reads; advancing it expires reviews.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func newClock() *clock { return &clock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)} }

// bigOutput is the payload of the big tool result: longer than a chunk, and
// multi-byte, so a cut that split a UTF-8 sequence would show.
var bigOutput = strings.Repeat("строка 行 line\n", 7000) // 98,000 characters

const (
	firstGoal   = "Goal: build the report tool. Never delete a session log; retire it instead."
	secondOrder = "Now add the CSV export and run the tests."
	bigSeq      = 4 // the tool/result holding bigOutput
	boundarySeq = 6 // the second human instruction opens the open turn
)

func okPtr(b bool) *bool { return &b }

func human(text string) session.Event {
	return session.Event{Type: session.TypeUserMessage, Source: session.Source{Kind: session.KindUser}, Text: text}
}

func assistant(text string) session.Event {
	return session.Event{Type: session.TypeAssistantMessage, Source: session.Source{Kind: session.KindAssistant}, Text: text}
}

// seedEvents is a small session: a closed turn with a big tool output and a
// todo list, then an open turn.
func seedEvents() []session.Event {
	return []session.Event{
		human(firstGoal),
		assistant("I will read the code first."),
		{Type: session.TypeToolCall, Source: session.Source{Kind: session.KindAssistant}, Tool: &session.Tool{Name: "Read", CallID: "c1", Input: json.RawMessage(`{"path":"report.go"}`)}},
		{Type: session.TypeToolResult, Source: session.Source{Kind: session.KindTool}, Tool: &session.Tool{Name: "Read", CallID: "c1", OK: okPtr(true), Output: bigOutput}},
		{Type: session.TypeTodoWrite, Source: session.Source{Kind: session.KindAssistant}, Todos: []session.Todo{
			{ID: "1", Content: "read report.go", Status: session.TodoCompleted},
			{ID: "2", Content: "add CSV export", Status: session.TodoPending},
		}},
		human(secondOrder),
		assistant("Working on the CSV export now."),
	}
}

type fixture struct {
	t     *testing.T
	home  string
	clock *clock
	svc   *graft.Service
	cs    *mcp.ClientSession
}

// newFixture opens a service on a fresh home holding session "s" and
// connects a client to a server over it with the SDK's in-memory transport.
func newFixture(t *testing.T, o Options, gopts graft.Options) *fixture {
	t.Helper()
	f := &fixture{t: t, home: t.TempDir(), clock: newClock()}
	if gopts.Now == nil {
		gopts.Now = f.clock.Now
	}
	svc, err := graft.Open(f.home, gopts)
	if err != nil {
		t.Fatalf("graft.Open: %v", err)
	}
	f.svc = svc
	f.appendEvents("s", seedEvents()...)
	f.cs = connect(t, svc, o)
	return f
}

func connect(t *testing.T, svc *graft.Service, o Options) *mcp.ClientSession {
	t.Helper()
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(testWriter{t}, nil))
	}
	ctx := context.Background()
	clientT, serverT := mcp.NewInMemoryTransports()
	ss, err := New(svc, o).Connect(ctx, serverT, nil)
	if err != nil {
		t.Fatalf("server connect: %v", err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "mcpserver-test", Version: "0"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatalf("client connect: %v", err)
	}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Errorf("closing client session: %v", err)
		}
		if err := ss.Wait(); err != nil {
			t.Errorf("server session ended with %v after the client closed", err)
		}
	})
	return cs
}

// testWriter sends the server's log lines to t.Log (never to stdout).
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func (f *fixture) appendEvents(id string, evs ...session.Event) {
	f.t.Helper()
	if _, err := f.svc.Append(id, evs); err != nil {
		f.t.Fatalf("append to %s: %v", id, err)
	}
}

func (f *fixture) call(name string, args any) *mcp.CallToolResult {
	f.t.Helper()
	return call(f.t, f.cs, name, args)
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v (typed errors must be tool errors)", name, err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// ok calls a tool that must succeed and decodes its structured output.
func ok[Out any](f *fixture, name string, args any) Out {
	f.t.Helper()
	return okOn[Out](f.t, f.cs, name, args)
}

func okOn[Out any](t *testing.T, cs *mcp.ClientSession, name string, args any) Out {
	t.Helper()
	res := call(t, cs, name, args)
	if res.IsError {
		t.Fatalf("%s(%v): tool error: %s", name, args, text(res))
	}
	var out Out
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatalf("%s: re-encoding structured content: %v", name, err)
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: decoding structured content %s: %v", name, b, err)
	}
	// The text content is the same JSON, for clients that read only text.
	var fromText Out
	if err := json.Unmarshal([]byte(text(res)), &fromText); err != nil {
		t.Fatalf("%s: text content is not the output JSON: %v\n%s", name, err, text(res))
	}
	return out
}

// fails calls a tool that must fail with a tool error led by code, and
// returns the error text.
func (f *fixture) fails(name string, args any, code string) string {
	f.t.Helper()
	res := f.call(name, args)
	msg := text(res)
	if !res.IsError {
		f.t.Fatalf("%s(%v): succeeded, want tool error %s; result %s", name, args, code, msg)
	}
	if !strings.HasPrefix(msg, code+": ") {
		f.t.Fatalf("%s(%v): error %q does not start with %q", name, args, msg, code+": ")
	}
	if !strings.Contains(msg, "; next: ") {
		f.t.Fatalf("%s: error %q does not say what to do next", name, msg)
	}
	if res.StructuredContent != nil {
		f.t.Fatalf("%s: a tool error carries structured content %v", name, res.StructuredContent)
	}
	return msg
}

func (f *fixture) prepare(args map[string]any) PrepareOutput {
	f.t.Helper()
	if args == nil {
		args = map[string]any{"source": "s"}
	}
	return ok[PrepareOutput](f, ToolPrepare, args)
}

func (f *fixture) commit(rv PrepareOutput) CommitOutput {
	f.t.Helper()
	return ok[CommitOutput](f, ToolCommit, map[string]any{"preparedId": rv.PreparedID, "tapeHash": rv.TapeHash})
}

func mustContain(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s: %q does not contain %q", what, s, sub)
		}
	}
}

func row(t *testing.T, st StatusOutput, id string) SessionRow {
	t.Helper()
	for _, r := range st.Sessions {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("status has no session %s: %+v", id, st.Sessions)
	return SessionRow{}
}

func describe(v any) string { return fmt.Sprintf("%+v", v) }
