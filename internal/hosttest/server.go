package hosttest

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// ClaudeCompactMarker is a phrase of the summary prompt Claude Code 2.1.328
// appends as the last user message of a compaction request (manual
// "/compact" and auto-compaction alike): "Your task is to create a detailed
// summary of the conversation so far, …". A compaction request is
// otherwise an ordinary streamed POST /v1/messages?beta=true carrying the
// whole conversation before it.
const ClaudeCompactMarker = "create a detailed summary of the conversation so far"

// CodexCompactMarker is the start of the prompt Codex 0.169.0 appends to a
// compaction request. The request is recognised by its
// x-codex-turn-metadata header (request_kind "compaction"); the marker is
// only a second witness.
const CodexCompactMarker = "You are performing a CONTEXT CHECKPOINT COMPACTION"

// Reply is what the fake model answers to one model request.
type Reply struct {
	Text        string // the assistant's text
	InputTokens int    // the input_tokens the usage reports
	// Call, when set, makes the reply a tool call instead of the text: a
	// Responses function_call item (the host runs the tool and asks again
	// with a function_call_output of the same call_id:
	// CodexFunctionOutputs), or a Messages tool_use block (stop_reason
	// "tool_use": Claude Code runs the tool and asks again with a
	// tool_result of the same id).
	Call *FunctionCall
}

// FunctionCall is a function_call item of a Responses reply, or with
// Custom a custom_tool_call item (a freeform tool: Codex's apply_patch,
// its code mode's exec), whose Arguments are sent as its "input" text.
type FunctionCall struct {
	Name      string // the tool, one of the request's tools (CodexTools)
	Arguments string // a JSON text, sent as the item's "arguments" string
	CallID    string // "" : call_hosttest_<request number>
	Custom    bool
}

// Request is one HTTP request the fake model server received.
type Request struct {
	Time     time.Time
	Method   string
	Path     string // without the query
	RawQuery string
	Host     string // for a CONNECT (a proxied request to another host): host:port
	Header   http.Header
	Body     []byte

	foreign bool
}

// Foreign tells whether r was meant for another machine and reached the
// server only as the hosts' proxy: a CONNECT, or a plain-HTTP request in
// absolute form for another host. A foreign request is refused (403).
func (r Request) Foreign() bool { return r.foreign }

// IsClaudeModel tells whether r is an Anthropic Messages request.
func (r Request) IsClaudeModel() bool {
	return !r.foreign && r.Method == http.MethodPost && r.Path == "/v1/messages"
}

// IsCodexModel tells whether r is an OpenAI Responses request.
func (r Request) IsCodexModel() bool {
	return !r.foreign && r.Method == http.MethodPost && r.Path == "/v1/responses"
}

// IsModel tells whether r asks the model for a reply (either API).
func (r Request) IsModel() bool { return r.IsClaudeModel() || r.IsCodexModel() }

// IsClaudeCompaction tells whether r is Claude Code's compaction request:
// its last message is a user message holding ClaudeCompactMarker.
func (r Request) IsClaudeCompaction() bool {
	if !r.IsClaudeModel() {
		return false
	}
	var body struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(r.Body, &body) != nil {
		return false
	}
	for i := len(body.Messages) - 1; i >= 0; i-- {
		m := body.Messages[i]
		if m.Role != "user" {
			continue
		}
		for _, s := range jsonStrings(m.Content) {
			if strings.Contains(s, ClaudeCompactMarker) {
				return true
			}
		}
		return false
	}
	return false
}

// CodexTurnMetadata is the decoded x-codex-turn-metadata header of a Codex
// request (nil if absent or not JSON).
func (r Request) CodexTurnMetadata() map[string]any {
	h := r.Header.Get("x-codex-turn-metadata")
	if h == "" {
		return nil
	}
	var m map[string]any
	if json.Unmarshal([]byte(h), &m) != nil {
		return nil
	}
	return m
}

// IsCodexCompaction tells whether r is Codex's compaction request: its
// x-codex-turn-metadata header says request_kind "compaction".
func (r Request) IsCodexCompaction() bool {
	return r.IsCodexModel() && r.CodexTurnMetadata()["request_kind"] == "compaction"
}

// IsCompaction tells whether r is either host's compaction request.
func (r Request) IsCompaction() bool { return r.IsClaudeCompaction() || r.IsCodexCompaction() }

// CodexTools are the names of the tools a Responses request offers the
// model (its "tools": a function tool's name, else its type, e.g.
// "web_search"), in order.
func (r Request) CodexTools() []string {
	var body struct {
		Tools []struct {
			Type string `json:"type"`
			Name string `json:"name"`
		} `json:"tools"`
	}
	if json.Unmarshal(r.Body, &body) != nil {
		return nil
	}
	var out []string
	for _, t := range body.Tools {
		if t.Name != "" {
			out = append(out, t.Name)
		} else {
			out = append(out, t.Type)
		}
	}
	return out
}

// CodexFunctionOutputs are the function_call_output and
// custom_tool_call_output items of a Responses request's input, by
// call_id: the output as the host sent it (a JSON string, or a list of
// content items).
func (r Request) CodexFunctionOutputs() map[string]json.RawMessage {
	var body struct {
		Input []struct {
			Type   string          `json:"type"`
			CallID string          `json:"call_id"`
			Output json.RawMessage `json:"output"`
		} `json:"input"`
	}
	if json.Unmarshal(r.Body, &body) != nil {
		return nil
	}
	out := map[string]json.RawMessage{}
	for _, it := range body.Input {
		if it.Type == "function_call_output" || it.Type == "custom_tool_call_output" {
			out[it.CallID] = it.Output
		}
	}
	return out
}

// JSON decodes the body into v.
func (r Request) JSON(v any) error { return json.Unmarshal(r.Body, v) }

// Strings are all the string values in the JSON body, in document order
// (nil if the body is not JSON).
func (r Request) Strings() []string { return jsonStrings(r.Body) }

// Contains tells whether a string value of the JSON body contains s. A
// text is searched decoded, so quotes and newlines in s need no escaping.
func (r Request) Contains(s string) bool {
	for _, v := range r.Strings() {
		if strings.Contains(v, s) {
			return true
		}
	}
	return false
}

func jsonStrings(b []byte) []string {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			out = append(out, v)
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			// Map order is random; strings are collected for searching,
			// and messages sit in arrays, whose order is kept.
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

// ModelServer is a fake Anthropic Messages and OpenAI Responses API on
// 127.0.0.1 that answers every model request with a short text and records
// every request it receives. It also serves as the hosts' HTTP(S) proxy, so
// a request to any other host arrives here as a CONNECT (answered 403 and
// recorded) instead of leaving the machine.
type ModelServer struct {
	URL string // http://127.0.0.1:PORT

	srv *httptest.Server

	mu       sync.Mutex
	reqs     []Request
	reply    string
	summary  string
	tokens   int
	replyFor func(Request) Reply
	seq      int
}

// Defaults of a new ModelServer.
const (
	DefaultReply       = "ok"
	DefaultSummary     = "SUMMARY of the earlier conversation."
	DefaultInputTokens = 10
)

// NewModelServer starts a fake model server on 127.0.0.1:0, closed when
// the test ends.
func NewModelServer(t testing.TB) *ModelServer {
	t.Helper()
	s := &ModelServer{reply: DefaultReply, summary: DefaultSummary, tokens: DefaultInputTokens}
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("hosttest: listening on 127.0.0.1: %v", err)
	}
	s.srv = &httptest.Server{Listener: l, Config: &http.Server{Handler: http.HandlerFunc(s.serve)}}
	s.srv.Start()
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	return s
}

func (s *ModelServer) ownHost(host string) bool {
	port := strconv.Itoa(s.Port())
	return host == "127.0.0.1:"+port || host == "localhost:"+port
}

// Port is the server's TCP port.
func (s *ModelServer) Port() int {
	return s.srv.Listener.Addr().(*net.TCPAddr).Port
}

// SetReply sets the assistant text of every later reply (default "ok").
func (s *ModelServer) SetReply(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reply = text
}

// SetSummary sets the summary a compaction request gets. Claude Code's
// gets it wrapped as "<analysis>…</analysis>\n<summary>TEXT</summary>":
// without the summary tags Claude sends the compaction request a second
// time with a reminder.
func (s *ModelServer) SetSummary(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.summary = text
}

// SetInputTokens sets the input_tokens every later reply reports (default
// 10). A high number makes the host compact before its next request:
// Claude Code 2.1.328 auto-compacts a resumed session whose last reply
// reported 990000 (its window for the default model is 1M), or more than
// --autocompact N; Codex compacts past model_auto_compact_token_limit.
func (s *ModelServer) SetInputTokens(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokens = n
}

// SetReplyFunc makes f decide every later model reply; nil restores the
// fixed reply, summary and token count.
func (s *ModelServer) SetReplyFunc(f func(Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replyFor = f
}

// Requests are copies of all requests received so far, in arrival order.
func (s *ModelServer) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// ModelRequests are the requests that asked the model for a reply.
func (s *ModelServer) ModelRequests() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.IsModel() {
			out = append(out, r)
		}
	}
	return out
}

// Compactions are the compaction requests received so far.
func (s *ModelServer) Compactions() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.IsCompaction() {
			out = append(out, r)
		}
	}
	return out
}

// Others are the requests that are neither model requests nor
// count_tokens: what a test should see none of.
func (s *ModelServer) Others() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if !r.IsModel() && (r.foreign || r.Path != "/v1/messages/count_tokens") {
			out = append(out, r)
		}
	}
	return out
}

// Foreign are the requests meant for other machines (all refused).
func (s *ModelServer) Foreign() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.foreign {
			out = append(out, r)
		}
	}
	return out
}

// Reset forgets the recorded requests.
func (s *ModelServer) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = nil
}

// Describe lists the recorded requests, one line each, for a failure
// message.
func (s *ModelServer) Describe() string {
	var b strings.Builder
	for i, r := range s.Requests() {
		kind := ""
		if r.IsCompaction() {
			kind = " (compaction)"
		}
		target := r.Path
		if r.foreign {
			kind += " (foreign: refused)"
			target = r.Host + r.Path
		}
		fmt.Fprintf(&b, "%d. %s %s%s, %d bytes%s\n", i+1, r.Method, target, query(r.RawQuery), len(r.Body), kind)
	}
	if b.Len() == 0 {
		return "(no requests)\n"
	}
	return b.String()
}

func query(q string) string {
	if q == "" {
		return ""
	}
	return "?" + q
}

func (s *ModelServer) serve(w http.ResponseWriter, hr *http.Request) {
	body, err := io.ReadAll(hr.Body)
	r := Request{
		Time:     time.Now(),
		Method:   hr.Method,
		Path:     hr.URL.Path,
		RawQuery: hr.URL.RawQuery,
		Host:     hr.Host,
		Header:   hr.Header.Clone(),
		Body:     body,
	}
	r.foreign = hr.Method == http.MethodConnect || !s.ownHost(hr.Host)
	s.mu.Lock()
	s.reqs = append(s.reqs, r)
	s.seq++
	seq := s.seq
	reply := Reply{Text: s.reply, InputTokens: s.tokens}
	summary := s.summary
	replyFor := s.replyFor
	s.mu.Unlock()
	if err != nil {
		http.Error(w, "reading the body: "+err.Error(), http.StatusBadRequest)
		return
	}

	switch {
	case r.foreign:
		// A host tried to reach another machine through the proxy.
		http.Error(w, "hosttest: the network is 127.0.0.1 only", http.StatusForbidden)
		return
	case r.Path == "/v1/messages/count_tokens" && hr.Method == http.MethodPost:
		writeJSON(w, map[string]any{"input_tokens": reply.InputTokens})
		return
	case !r.IsModel():
		writeJSONStatus(w, http.StatusNotFound, map[string]any{"type": "error", "error": map[string]any{
			"type": "not_found_error", "message": "hosttest: no fake for " + hr.Method + " " + r.Path,
		}})
		return
	}

	switch {
	case replyFor != nil:
		reply = replyFor(r)
	case r.IsClaudeCompaction():
		reply.Text = "<analysis>hosttest</analysis>\n<summary>" + summary + "</summary>"
	case r.IsCodexCompaction():
		reply.Text = summary
	}
	var req struct {
		Model  string `json:"model"`
		Stream *bool  `json:"stream"`
	}
	_ = json.Unmarshal(body, &req) // any body is accepted
	if req.Model == "" {
		req.Model = "hosttest-model"
	}
	if r.IsClaudeModel() {
		s.anthropic(w, seq, req.Model, req.Stream != nil && *req.Stream, reply)
	} else {
		s.responses(w, seq, req.Model, reply)
	}
}

// anthropic answers a Messages request, streamed (message_start,
// content_block_start, content_block_delta, content_block_stop,
// message_delta, message_stop) or as one JSON message.
func (s *ModelServer) anthropic(w http.ResponseWriter, seq int, model string, stream bool, reply Reply) {
	id := fmt.Sprintf("msg_hosttest_%d", seq)
	outTokens := 1 + len(reply.Text)/4
	if c := reply.Call; c != nil {
		s.anthropicToolUse(w, id, seq, model, stream, reply.InputTokens, c)
		return
	}
	if !stream {
		writeJSON(w, map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": model,
			"content":     []any{map[string]any{"type": "text", "text": reply.Text}},
			"stop_reason": "end_turn", "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": reply.InputTokens, "output_tokens": outTokens},
		})
		return
	}
	ev := newSSE(w)
	ev.send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": reply.InputTokens, "output_tokens": 1},
	}})
	ev.send("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
	ev.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": reply.Text}})
	ev.send("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	ev.send("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil}, "usage": map[string]any{"output_tokens": outTokens}})
	ev.send("message_stop", map[string]any{"type": "message_stop"})
}

// anthropicToolUse answers a Messages request with one tool_use block of
// c, streamed (its input as one input_json_delta) or as one JSON message.
func (s *ModelServer) anthropicToolUse(w http.ResponseWriter, id string, seq int, model string, stream bool, inTokens int, c *FunctionCall) {
	callID := c.CallID
	if callID == "" {
		callID = fmt.Sprintf("toolu_hosttest_%d", seq)
	}
	outTokens := 1 + len(c.Arguments)/4
	input := json.RawMessage(c.Arguments)
	if !json.Valid(input) {
		input = json.RawMessage("{}")
	}
	if !stream {
		writeJSON(w, map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": model,
			"content":     []any{map[string]any{"type": "tool_use", "id": callID, "name": c.Name, "input": input}},
			"stop_reason": "tool_use", "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": inTokens, "output_tokens": outTokens},
		})
		return
	}
	ev := newSSE(w)
	ev.send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": inTokens, "output_tokens": 1},
	}})
	ev.send("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "tool_use", "id": callID, "name": c.Name, "input": map[string]any{}}})
	ev.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
	ev.send("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	ev.send("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "tool_use", "stop_sequence": nil}, "usage": map[string]any{"output_tokens": outTokens}})
	ev.send("message_stop", map[string]any{"type": "message_stop"})
}

// ClaudeTools are the names of the tools a Messages request offers.
func (r Request) ClaudeTools() []string {
	var req struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if json.Unmarshal(r.Body, &req) != nil {
		return nil
	}
	var out []string
	for _, t := range req.Tools {
		out = append(out, t.Name)
	}
	return out
}

// responses answers a Responses request, always streamed:
// response.created, response.output_item.done (an assistant message with
// output_text, or the reply's function_call) and response.completed (with
// the id, the item and usage).
func (s *ModelServer) responses(w http.ResponseWriter, seq int, model string, reply Reply) {
	rid := fmt.Sprintf("resp_hosttest_%d", seq)
	item := map[string]any{
		"type": "message", "id": fmt.Sprintf("msg_hosttest_%d", seq), "role": "assistant", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": reply.Text, "annotations": []any{}}},
	}
	outTokens := 1 + len(reply.Text)/4
	if c := reply.Call; c != nil {
		callID := c.CallID
		if callID == "" {
			callID = fmt.Sprintf("call_hosttest_%d", seq)
		}
		item = map[string]any{
			"type": "function_call", "id": fmt.Sprintf("fc_hosttest_%d", seq), "status": "completed",
			"name": c.Name, "arguments": c.Arguments, "call_id": callID,
		}
		if c.Custom {
			item = map[string]any{
				"type": "custom_tool_call", "id": fmt.Sprintf("ctc_hosttest_%d", seq), "status": "completed",
				"name": c.Name, "input": c.Arguments, "call_id": callID,
			}
		}
		outTokens = 1 + len(c.Arguments)/4
	}
	usage := map[string]any{
		"input_tokens": reply.InputTokens, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": outTokens, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
		"total_tokens": reply.InputTokens + outTokens,
	}
	ev := newSSE(w)
	ev.send("response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": rid, "object": "response", "model": model, "status": "in_progress", "output": []any{}}})
	ev.send("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	ev.send("response.completed", map[string]any{"type": "response.completed", "response": map[string]any{"id": rid, "object": "response", "model": model, "status": "completed", "output": []any{item}, "usage": usage}})
}

type sse struct {
	w http.ResponseWriter
	f http.Flusher
}

func newSSE(w http.ResponseWriter) sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return sse{w, f}
}

func (e sse) send(event string, data any) {
	b, err := json.Marshal(data)
	if err != nil {
		panic(err) // only maps of plain values are sent
	}
	fmt.Fprintf(e.w, "event: %s\ndata: %s\n\n", event, b)
	if e.f != nil {
		e.f.Flush()
	}
}

func writeJSON(w http.ResponseWriter, v any) { writeJSONStatus(w, http.StatusOK, v) }

func writeJSONStatus(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only maps of plain values are sent
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b) // a client that hung up shows as its own failure
}
