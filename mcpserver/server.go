package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/tape"
)

const (
	// DefaultChunkChars bounds the tape in one graft_prepare result and the
	// content in one graft_recall result; the rest is a call away (nextOffset).
	DefaultChunkChars = 32000
	// DefaultPageSessions bounds the sessions in one graft_status result.
	DefaultPageSessions = 100
	// quoteChars bounds one goal quote or constraint in a review: they are
	// carried whole, so a pasted log in a human message is cut, citing its seq.
	quoteChars = 2000
)

// Options configure a server. The zero value is usable.
type Options struct {
	// Version is the server version reported to clients.
	Version string
	// ChunkChars bounds paged texts; 0 means DefaultChunkChars.
	ChunkChars int
	// PageSessions bounds graft_status's session list; 0 means DefaultPageSessions.
	PageSessions int
	// Logger receives the server's log lines (never stdout: over stdio,
	// stdout carries only protocol); nil discards them.
	Logger *slog.Logger
	// Defaults are the tape options of a graft_prepare call that does not
	// set them ("graft mcp" passes config.toml's): tier and recentTurns
	// together, unless the call sets either; autoTier unless the call sets
	// it true; budget unless the call sets it. The zero value is tape's.
	Defaults tape.Options
	// Cwd is the directory whose host session graft_prepare {host} picks
	// when none is named; "" is the server's working directory.
	Cwd string
}

// instructions is what a client may show its model about the server.
const instructions = `graft replaces lossy compaction: it slices a long session into a new one that starts with a deterministic tape (constraints with their origins, goal, todos, files, pending state, recall index), as a crash-safe transaction.
Flow: graft_prepare {source} → show the review (goal, constraints, leftovers, warnings, tape) to the user → when approved, graft_commit {preparedId, tapeHash} → continue in the target. graft_recall {session, seq} reads any seq a tape cites; graft_find {session, words} finds the events that hold words, for what a tape did not cite; graft_revert {target} undoes a graft; graft_status shows sessions, transactions in flight and the start-up recovery scan.
Errors start with a stable code (e.g. boundary_drift) and end with what to do next.`

// server is the state the tool handlers share.
type server struct {
	svc  *graft.Service
	opts Options
	log  *slog.Logger
	// locks runs one tool call at a time per session (sessionLocks): calls
	// on different sessions run at once. Other processes are kept apart by
	// flock and by catalog.db's per-operation open.
	locks sessionLocks
}

// sessionLocks are a mutex per session id, made on demand and dropped when
// no call holds or waits for it. A tool call takes the locks of the
// sessions it touches (prepare and recall: the session; commit: source and
// target; revert: target and source) with lock, which takes them in sorted
// order, so two calls on the same two sessions cannot deadlock. status
// takes none: it reads what the logs and catalog.db say at the time.
type sessionLocks struct {
	mu sync.Mutex
	m  map[string]*sessionLock
}

type sessionLock struct {
	held  chan struct{} // a token in it: the lock is held
	users int           // calls holding or waiting for it
}

// lock takes the locks of ids ("" and repeats skipped) in sorted order and
// returns their release. It gives up, releasing what it took, when ctx is
// done first (a client that cancelled its call does not queue forever).
func (l *sessionLocks) lock(ctx context.Context, ids ...string) (unlock func(), err error) {
	ids = slices.Clone(ids)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	if len(ids) > 0 && ids[0] == "" {
		ids = ids[1:]
	}
	var held []string
	unlock = func() {
		for i := len(held) - 1; i >= 0; i-- {
			l.release(held[i], true)
		}
		held = nil
	}
	for _, id := range ids {
		if err := l.acquire(ctx, id); err != nil {
			unlock()
			return nil, err
		}
		held = append(held, id)
	}
	return unlock, nil
}

func (l *sessionLocks) acquire(ctx context.Context, id string) error {
	l.mu.Lock()
	if l.m == nil {
		l.m = map[string]*sessionLock{}
	}
	sl := l.m[id]
	if sl == nil {
		sl = &sessionLock{held: make(chan struct{}, 1)}
		l.m[id] = sl
	}
	sl.users++
	l.mu.Unlock()
	select {
	case sl.held <- struct{}{}:
		return nil
	case <-ctx.Done():
		l.release(id, false)
		return fmt.Errorf("waiting for another call on session %s: %w", id, ctx.Err())
	}
}

// release gives back the lock of id (held: it was taken, not only waited
// for) and forgets it when no call holds or waits for it.
func (l *sessionLocks) release(id string, held bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	sl := l.m[id]
	if held {
		<-sl.held
	}
	if sl.users--; sl.users == 0 {
		delete(l.m, id)
	}
}

// New returns an MCP server with the five graft tools over svc. Open svc
// (graft.Open, which runs the recovery scan) before calling New, so the scan
// has finished before the first request; its report is in graft_status.
// svc must not hold catalog.db open (graft.Service never does), or every
// CLI call would block behind the server.
func New(svc *graft.Service, o Options) *mcp.Server {
	if o.ChunkChars <= 0 {
		o.ChunkChars = DefaultChunkChars
	}
	if o.PageSessions <= 0 {
		o.PageSessions = DefaultPageSessions
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &server{svc: svc, opts: o, log: log}
	srv := mcp.NewServer(&mcp.Implementation{Name: "graft", Title: "graft session grafts", Version: o.Version}, &mcp.ServerOptions{
		Instructions: instructions,
		Logger:       log,
		// No logging capability: the server's logs go to stderr, not to the client.
		Capabilities: &mcp.ServerCapabilities{},
	})
	srv.AddReceivingMiddleware(s.recoverMethod, s.codeArgumentErrors)
	mcp.AddTool(srv, withHostWords[PrepareInput, PrepareOutput](prepareTool()), guarded(s, "graft_prepare", s.prepare))
	mcp.AddTool(srv, withHostWords[CommitInput, CommitOutput](commitTool()), guarded(s, "graft_commit", s.commit))
	mcp.AddTool(srv, recallTool(), guarded(s, "graft_recall", s.recall))
	mcp.AddTool(srv, findTool(), guarded(s, "graft_find", s.find))
	mcp.AddTool(srv, statusTool(), guarded(s, "graft_status", s.status))
	mcp.AddTool(srv, revertTool(), guarded(s, "graft_revert", s.revert))
	return srv
}

// guarded adapts a tool function to the SDK: the tool gets the request's
// context (and takes the locks of the sessions it touches, sessionLocks), a
// typed error becomes a tool error (isError, text led by its code), and a
// panic becomes a tool error too, so the server never dies of one.
func guarded[In, Out any](s *server, name string, h func(context.Context, In) (Out, error)) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, _ *mcp.CallToolRequest, in In) (res *mcp.CallToolResult, out Out, err error) {
		if r, ok := ctx.Value(toolReachedKey{}).(*toolReached); ok {
			r.reached = true
		}
		defer func() {
			if v := recover(); v != nil {
				s.log.Error("tool panicked", "tool", name, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				var zero Out
				res, out = nil, zero
				err = &toolError{
					Code: CodeInternal,
					Err:  fmt.Errorf("%s panicked: %v (a bug in graft; the server keeps running)", name, v),
					Next: "call graft_status: a transaction cut short is listed under pending and resolved by the next recovery scan (graft recover); tell the user",
				}
			}
		}()
		out, err = h(ctx, in)
		// Reads that fell back to the logs say so in the server's log
		// (graft_status also in catalogError, graft_prepare in warnings).
		for _, note := range s.svc.TakeDegraded() {
			s.log.Warn("degraded read", "tool", name, "note", note)
		}
		if err != nil {
			te := asToolError(name, err)
			s.log.Info("tool error", "tool", name, "code", string(te.Code), "error", err.Error())
			var zero Out
			return nil, zero, te
		}
		return nil, out, nil
	}
}

// recoverMethod turns a panic outside the tool handlers (in the SDK's own
// request handling) into a protocol error instead of a dead server.
func (s *server) recoverMethod(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		defer func() {
			if v := recover(); v != nil {
				s.log.Error("request panicked", "method", method, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("internal_error: %s panicked: %v", method, v)}
			}
		}()
		return next(ctx, method, req)
	}
}

// toolReached records, for one tools/call, whether the SDK handed the
// arguments to a graft tool (guarded), whose errors carry their code.
type toolReached struct{ reached bool }

type toolReachedKey struct{}

// codeArgumentErrors gives a code to the tool errors the SDK makes itself:
// arguments that its input schema refuses, or that do not decode, never
// reach a graft tool, and the SDK words them "validating \"arguments\": …".
// They become invalid_input errors in the form every other tool error has
// (<code>: <message>; next: <what to do>).
func (s *server) codeArgumentErrors(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if method != "tools/call" || !ok {
			return next(ctx, method, req)
		}
		reached := &toolReached{}
		res, err := next(context.WithValue(ctx, toolReachedKey{}, reached), method, req)
		r, isCall := res.(*mcp.CallToolResult)
		if err != nil || reached.reached || !isCall || r == nil || !r.IsError {
			return res, err
		}
		var text []string
		for _, c := range r.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text = append(text, tc.Text)
			}
		}
		tool := call.Params.Name
		te := &toolError{Code: CodeInvalidInput, Next: nextStep(tool, CodeInvalidInput), Err: errors.New(strings.Join(text, "; "))}
		s.log.Info("tool error", "tool", tool, "code", string(te.Code), "error", te.Err.Error())
		r.Content = []mcp.Content{&mcp.TextContent{Text: te.Error()}}
		return r, nil
	}
}

func boolPtr(b bool) *bool { return &b }
