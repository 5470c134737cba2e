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

// QwenMemoryMarker is a phrase of the system prompt of the second request
// Qwen Code 0.24.4 sends after every turn of a session with managed memory
// (its "managed memory extraction" side request). QwenRequest.IsMemory
// tells that request from a turn.
const QwenMemoryMarker = "memory"

// QwenCompressMarker is the root element the summary Qwen Code 0.24.4
// asks for when it compresses a chat ("/compress", or past its threshold)
// must hold: the request asks for a "<state_snapshot>".
const QwenCompressMarker = "state_snapshot"

// QwenReply is what the fake chat-completions server answers to one
// request: text, or tool calls the model asks for, and the usage it
// reports.
type QwenReply struct {
	Text         string
	ToolCalls    []QwenToolCall
	PromptTokens int // usage.prompt_tokens (default DefaultInputTokens)
}

// QwenToolCall is one function call of a reply.
type QwenToolCall struct {
	ID        string
	Name      string
	Arguments string // JSON object text
}

// QwenServer is a fake OpenAI chat-completions API on 127.0.0.1 for Qwen
// Code: it streams an answer to every POST /v1/chat/completions and
// records every request it receives. Like ModelServer it is also the
// host's HTTP(S) proxy, so a request to any other machine arrives here as
// a CONNECT (answered 403 and recorded as Foreign) instead of leaving the
// machine.
type QwenServer struct {
	URL string // http://127.0.0.1:PORT; the API base is URL + "/v1"

	srv *httptest.Server

	mu       sync.Mutex
	reqs     []Request
	reply    string
	summary  string
	replyFor func(QwenRequest) QwenReply
	seq      int
}

// QwenRequest is one chat-completions request, decoded.
type QwenRequest struct {
	Request
	Model    string
	Messages []QwenMessage
	Tools    []string // the function names offered
}

// QwenMessage is one message of a chat-completions request.
type QwenMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// Text is the message's content: a string, or its text parts joined with
// newlines.
func (m QwenMessage) Text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(m.Content, &parts) != nil {
		return ""
	}
	var texts []string
	for _, p := range parts {
		if p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// System is the text of the request's system messages, joined.
func (r QwenRequest) System() string {
	var out []string
	for _, m := range r.Messages {
		if m.Role == "system" {
			out = append(out, m.Text())
		}
	}
	return strings.Join(out, "\n")
}

// LastUser is the text of the request's last user message.
func (r QwenRequest) LastUser() string {
	for k := len(r.Messages) - 1; k >= 0; k-- {
		if r.Messages[k].Role == "user" {
			return r.Messages[k].Text()
		}
	}
	return ""
}

// IsCompress tells whether r is a compression request: its last user
// message or its system prompt asks for the <state_snapshot>.
func (r QwenRequest) IsCompress() bool {
	return strings.Contains(r.LastUser(), QwenCompressMarker) || strings.Contains(r.System(), "<"+QwenCompressMarker+">")
}

// IsMemory tells whether r is the managed memory extraction request that
// follows a turn: it offers no tools of the turn and its system prompt is
// about memory, not the agent's work.
func (r QwenRequest) IsMemory() bool {
	sys := strings.ToLower(r.System())
	return !r.IsCompress() && strings.Contains(sys, QwenMemoryMarker) && strings.Contains(sys, "extract")
}

// NewQwenServer starts a fake chat-completions server on 127.0.0.1:0,
// closed when the test ends. It answers "ok" (DefaultReply), and a
// compression request with a <state_snapshot> holding DefaultSummary.
func NewQwenServer(t testing.TB) *QwenServer {
	t.Helper()
	s := &QwenServer{reply: DefaultReply, summary: DefaultSummary}
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

// Port is the server's TCP port.
func (s *QwenServer) Port() int { return s.srv.Listener.Addr().(*net.TCPAddr).Port }

// SetReply sets the text of every later reply (default "ok").
func (s *QwenServer) SetReply(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reply = text
}

// SetSummary sets the text inside the <state_snapshot> a compression
// request gets.
func (s *QwenServer) SetSummary(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.summary = text
}

// SetReplyFunc makes f decide every later reply; nil restores the fixed
// reply and summary.
func (s *QwenServer) SetReplyFunc(f func(QwenRequest) QwenReply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replyFor = f
}

// Requests are copies of all requests received so far, in arrival order.
func (s *QwenServer) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Completions are the chat-completions requests received so far, decoded.
func (s *QwenServer) Completions(t testing.TB) []QwenRequest {
	t.Helper()
	var out []QwenRequest
	for _, r := range s.Requests() {
		if r.foreign || r.Method != http.MethodPost || r.Path != "/v1/chat/completions" {
			continue
		}
		q, err := decodeQwen(r)
		if err != nil {
			t.Fatalf("hosttest: a chat-completions request does not decode: %v\n%s", err, r.Body)
		}
		out = append(out, q)
	}
	return out
}

// Turns are the completions that are neither memory extraction nor
// compression: what the agent's turns asked.
func (s *QwenServer) Turns(t testing.TB) []QwenRequest {
	t.Helper()
	var out []QwenRequest
	for _, q := range s.Completions(t) {
		if !q.IsMemory() && !q.IsCompress() {
			out = append(out, q)
		}
	}
	return out
}

// Compressions are the compression requests received so far.
func (s *QwenServer) Compressions(t testing.TB) []QwenRequest {
	t.Helper()
	var out []QwenRequest
	for _, q := range s.Completions(t) {
		if q.IsCompress() {
			out = append(out, q)
		}
	}
	return out
}

// Foreign are the requests meant for other machines (all refused).
func (s *QwenServer) Foreign() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.foreign {
			out = append(out, r)
		}
	}
	return out
}

// Others are the requests that are not chat completions: what a test
// should see none of.
func (s *QwenServer) Others() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.foreign || r.Method != http.MethodPost || r.Path != "/v1/chat/completions" {
			out = append(out, r)
		}
	}
	return out
}

// Reset forgets the recorded requests.
func (s *QwenServer) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = nil
}

// Describe lists the recorded requests, one line each, for a failure
// message.
func (s *QwenServer) Describe() string {
	var b strings.Builder
	for i, r := range s.Requests() {
		kind := ""
		if q, err := decodeQwen(r); err == nil && r.Path == "/v1/chat/completions" {
			switch {
			case q.IsCompress():
				kind = " (compression)"
			case q.IsMemory():
				kind = " (memory extraction)"
			default:
				kind = fmt.Sprintf(" (turn: %d messages, last user %q)", len(q.Messages), clipText(q.LastUser(), 60))
			}
		}
		target := r.Path
		if r.foreign {
			kind += " (foreign: refused)"
			target = r.Host + r.Path
		}
		fmt.Fprintf(&b, "%d. %s %s, %d bytes%s\n", i+1, r.Method, target, len(r.Body), kind)
	}
	if b.Len() == 0 {
		return "(no requests)\n"
	}
	return b.String()
}

func clipText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

func decodeQwen(r Request) (QwenRequest, error) {
	q := QwenRequest{Request: r}
	var body struct {
		Model    string        `json:"model"`
		Messages []QwenMessage `json:"messages"`
		Tools    []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		return q, err
	}
	q.Model, q.Messages = body.Model, body.Messages
	for _, tl := range body.Tools {
		q.Tools = append(q.Tools, tl.Function.Name)
	}
	return q, nil
}

func (s *QwenServer) ownHost(host string) bool {
	port := strconv.Itoa(s.Port())
	return host == "127.0.0.1:"+port || host == "localhost:"+port
}

func (s *QwenServer) serve(w http.ResponseWriter, hr *http.Request) {
	body, err := io.ReadAll(hr.Body)
	r := Request{Time: time.Now(), Method: hr.Method, Path: hr.URL.Path, RawQuery: hr.URL.RawQuery, Host: hr.Host, Header: hr.Header.Clone(), Body: body}
	r.foreign = hr.Method == http.MethodConnect || !s.ownHost(hr.Host)
	s.mu.Lock()
	s.reqs = append(s.reqs, r)
	s.seq++
	seq := s.seq
	reply := QwenReply{Text: s.reply, PromptTokens: DefaultInputTokens}
	summary, replyFor := s.summary, s.replyFor
	s.mu.Unlock()
	if err != nil {
		http.Error(w, "reading the body: "+err.Error(), http.StatusBadRequest)
		return
	}
	switch {
	case r.foreign:
		http.Error(w, "hosttest: the network is 127.0.0.1 only", http.StatusForbidden)
		return
	case hr.Method != http.MethodPost || r.Path != "/v1/chat/completions":
		writeJSONStatus(w, http.StatusNotFound, map[string]any{"error": map[string]any{
			"type": "not_found", "message": "hosttest: no fake for " + hr.Method + " " + r.Path,
		}})
		return
	}
	q, err := decodeQwen(r)
	if err != nil {
		http.Error(w, "hosttest: not a chat-completions body: "+err.Error(), http.StatusBadRequest)
		return
	}
	switch {
	case replyFor != nil:
		reply = replyFor(q)
		if reply.PromptTokens == 0 {
			reply.PromptTokens = DefaultInputTokens
		}
	case q.IsCompress():
		reply.Text = "<state_snapshot>\n" + summary + "\n</state_snapshot>"
	}
	var req struct {
		Stream *bool `json:"stream"`
	}
	_ = json.Unmarshal(body, &req) // decoded above
	model := q.Model
	if model == "" {
		model = "qwen-fake"
	}
	s.chat(w, seq, model, req.Stream == nil || *req.Stream, reply)
}

// chat answers one request: streamed as chat.completion.chunk events (a
// role delta, the text, each tool call, the finish reason, then a chunk
// with the usage and no choices, as include_usage asks) ending in
// "data: [DONE]", or as one chat.completion.
func (s *QwenServer) chat(w http.ResponseWriter, seq int, model string, stream bool, reply QwenReply) {
	id := fmt.Sprintf("chatcmpl-hosttest-%d", seq)
	created := time.Now().Unix()
	completion := 1 + len(reply.Text)/4
	usage := map[string]any{"prompt_tokens": reply.PromptTokens, "completion_tokens": completion, "total_tokens": reply.PromptTokens + completion}
	finish := "stop"
	var calls []any
	for k, c := range reply.ToolCalls {
		cid := c.ID
		if cid == "" {
			cid = fmt.Sprintf("call_hosttest_%d_%d", seq, k)
		}
		calls = append(calls, map[string]any{"index": k, "id": cid, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Arguments}})
	}
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	if !stream {
		msg := map[string]any{"role": "assistant", "content": reply.Text}
		if len(calls) > 0 {
			msg["tool_calls"] = calls
		}
		writeJSON(w, map[string]any{"id": id, "object": "chat.completion", "created": created, "model": model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	chunk := func(choices []any, extra map[string]any) {
		c := map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": model, "choices": choices}
		for k, v := range extra {
			c[k] = v
		}
		b, err := json.Marshal(c)
		if err != nil {
			panic(err) // only maps of plain values are sent
		}
		fmt.Fprintf(w, "data: %s\n\n", b)
		if f != nil {
			f.Flush()
		}
	}
	delta := func(d map[string]any, finish any) []any {
		return []any{map[string]any{"index": 0, "delta": d, "finish_reason": finish}}
	}
	chunk(delta(map[string]any{"role": "assistant", "content": ""}, nil), nil)
	if reply.Text != "" {
		chunk(delta(map[string]any{"content": reply.Text}, nil), nil)
	}
	for _, c := range calls {
		chunk(delta(map[string]any{"tool_calls": []any{c}}, nil), nil)
	}
	chunk(delta(map[string]any{}, finish), nil)
	chunk([]any{}, map[string]any{"usage": usage})
	fmt.Fprint(w, "data: [DONE]\n\n")
	if f != nil {
		f.Flush()
	}
}
