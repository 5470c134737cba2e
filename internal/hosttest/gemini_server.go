package hosttest

import (
	"bytes"
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

// GeminiServer is a fake Gemini API (generativelanguage v1beta) on
// 127.0.0.1 for Gemini CLI: POST /v1beta/models/<model>:generateContent
// (the router's JSON-mode classifier, and any other one-shot request) and
// :streamGenerateContent?alt=sse (a turn). It records every request. It
// also serves as the host's HTTP(S) proxy, so a request to any other
// machine arrives here as a CONNECT (refused with 403 and recorded,
// Request.Foreign) instead of leaving the machine.
type GeminiServer struct {
	URL string // http://127.0.0.1:PORT: GOOGLE_GEMINI_BASE_URL

	srv *httptest.Server

	mu       sync.Mutex
	reqs     []Request
	replyFor func(GeminiTurn) GeminiReply
	tokens   int
}

// GeminiReply is what the fake answers to one turn: a text, or a function
// call the host runs before it asks again.
type GeminiReply struct {
	Text string
	// Call, when set, is a functionCall part instead of the text.
	Call *GeminiCall
	// InputTokens is the usage's promptTokenCount (0: the server's).
	InputTokens int
}

// GeminiCall is a function call the model asks for.
type GeminiCall struct {
	Name string
	Args map[string]any
}

// GeminiTurn is a streamGenerateContent request, decoded.
type GeminiTurn struct {
	Request
	Model    string
	Contents []GeminiContent
}

// GeminiContent is one entry of a request's contents.
type GeminiContent struct {
	Role  string           `json:"role"`
	Parts []map[string]any `json:"parts"`
}

// Texts are the text parts of c.
func (c GeminiContent) Texts() []string {
	var out []string
	for _, p := range c.Parts {
		if s, ok := p["text"].(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// HasFunctionResponse tells whether c answers a function call.
func (c GeminiContent) HasFunctionResponse() bool {
	for _, p := range c.Parts {
		if _, ok := p["functionResponse"]; ok {
			return true
		}
	}
	return false
}

// Last is the request's last content (the zero value when it has none).
func (t GeminiTurn) Last() GeminiContent {
	if len(t.Contents) == 0 {
		return GeminiContent{}
	}
	return t.Contents[len(t.Contents)-1]
}

// GeminiDefaultReply is the text of every turn when no reply function is
// set; GeminiDefaultInputTokens the promptTokenCount every reply reports.
const (
	GeminiDefaultReply       = "ok"
	GeminiDefaultInputTokens = 1234
)

// GeminiSnapshot is the summary the fake writes when Gemini CLI compresses
// a session (a generateContent request that asks for a <state_snapshot>).
const GeminiSnapshot = "<state_snapshot>hosttest: the summary of the work so far</state_snapshot>"

// geminiClassification answers Gemini CLI 0.61.0's router classifiers
// (both the numerical and the flash/pro one) with the simple model.
const geminiClassification = `{"complexity_reasoning":"simple","complexity_score":1,"reasoning":"simple","model_choice":"flash"}`

// NewGeminiServer starts a fake Gemini API on 127.0.0.1:0, closed when the
// test ends.
func NewGeminiServer(t testing.TB) *GeminiServer {
	t.Helper()
	s := &GeminiServer{tokens: GeminiDefaultInputTokens}
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

// SetReplyFunc makes f decide every later turn's reply; nil restores
// GeminiDefaultReply.
func (s *GeminiServer) SetReplyFunc(f func(GeminiTurn) GeminiReply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replyFor = f
}

// SetInputTokens sets the promptTokenCount every later reply reports.
func (s *GeminiServer) SetInputTokens(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokens = n
}

// Requests are copies of every request received so far, in order.
func (s *GeminiServer) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Reset forgets the recorded requests.
func (s *GeminiServer) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = nil
}

// Turns are the streamGenerateContent requests received so far, decoded.
func (s *GeminiServer) Turns(t testing.TB) []GeminiTurn {
	t.Helper()
	var out []GeminiTurn
	for _, r := range s.Requests() {
		if model, stream, ok := geminiCall(r); ok && stream {
			out = append(out, decodeTurn(t, r, model))
		}
	}
	return out
}

// Others are the requests that are neither generateContent nor
// streamGenerateContent (a foreign one included): what a test should see
// none of.
func (s *GeminiServer) Others() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if _, _, ok := geminiCall(r); !ok {
			out = append(out, r)
		}
	}
	return out
}

// Describe lists the recorded requests, one line each.
func (s *GeminiServer) Describe() string {
	var b strings.Builder
	for i, r := range s.Requests() {
		target := r.Path
		if r.foreign {
			target = r.Host + r.Path + " (foreign: refused)"
		}
		fmt.Fprintf(&b, "%d. %s %s%s, %d bytes\n", i+1, r.Method, target, query(r.RawQuery), len(r.Body))
	}
	if b.Len() == 0 {
		return "(no requests)\n"
	}
	return b.String()
}

// geminiCall reads a model call's path: /v1beta/models/<model>:<method>.
func geminiCall(r Request) (model string, stream, ok bool) {
	if r.foreign || r.Method != http.MethodPost {
		return "", false, false
	}
	rest, found := strings.CutPrefix(r.Path, "/v1beta/models/")
	if !found {
		return "", false, false
	}
	model, method, found := strings.Cut(rest, ":")
	switch {
	case !found || model == "":
		return "", false, false
	case method == "generateContent":
		return model, false, true
	case method == "streamGenerateContent":
		return model, true, true
	}
	return "", false, false
}

func decodeTurn(t testing.TB, r Request, model string) GeminiTurn {
	t.Helper()
	var body struct {
		Contents []GeminiContent `json:"contents"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatalf("hosttest: a streamGenerateContent body does not decode: %v\n%s", err, r.Body)
	}
	return GeminiTurn{Request: r, Model: model, Contents: body.Contents}
}

func (s *GeminiServer) serve(w http.ResponseWriter, hr *http.Request) {
	body, err := io.ReadAll(hr.Body)
	port := strconv.Itoa(s.srv.Listener.Addr().(*net.TCPAddr).Port)
	r := Request{Time: time.Now(), Method: hr.Method, Path: hr.URL.Path, RawQuery: hr.URL.RawQuery, Host: hr.Host, Header: hr.Header.Clone(), Body: body}
	r.foreign = hr.Method == http.MethodConnect || (hr.Host != "127.0.0.1:"+port && hr.Host != "localhost:"+port)
	s.mu.Lock()
	s.reqs = append(s.reqs, r)
	replyFor, tokens := s.replyFor, s.tokens
	s.mu.Unlock()
	if err != nil {
		http.Error(w, "reading the body: "+err.Error(), http.StatusBadRequest)
		return
	}
	if r.foreign {
		http.Error(w, "hosttest: the network is 127.0.0.1 only", http.StatusForbidden)
		return
	}
	model, stream, ok := geminiCall(r)
	if !ok {
		writeJSONStatus(w, http.StatusNotFound, map[string]any{"error": map[string]any{"code": 404, "status": "NOT_FOUND", "message": "hosttest: no fake for " + hr.Method + " " + r.Path}})
		return
	}
	usage := func(n int) map[string]any {
		return map[string]any{"promptTokenCount": n, "candidatesTokenCount": 1, "totalTokenCount": n + 1}
	}
	if !stream {
		text := geminiClassification
		if bytes.Contains(body, []byte("generate the updated <state_snapshot>")) || bytes.Contains(body, []byte("Critically evaluate the <state_snapshot>")) {
			// A compression's summary request, and its verification
			// (Gemini CLI 0.61.0's ChatCompressionService).
			text = GeminiSnapshot
		}
		writeJSON(w, map[string]any{
			"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": text}}}, "finishReason": "STOP", "index": 0}},
			"usageMetadata": usage(tokens), "modelVersion": model,
		})
		return
	}
	var turn GeminiTurn
	var b struct {
		Contents []GeminiContent `json:"contents"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		writeJSONStatus(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"code": 400, "message": "hosttest: body does not decode: " + err.Error()}})
		return
	}
	turn = GeminiTurn{Request: r, Model: model, Contents: b.Contents}
	reply := GeminiReply{Text: GeminiDefaultReply}
	if replyFor != nil {
		reply = replyFor(turn)
	}
	if reply.InputTokens == 0 {
		reply.InputTokens = tokens
	}
	part := map[string]any{"text": reply.Text}
	if reply.Call != nil {
		part = map[string]any{"functionCall": map[string]any{"name": reply.Call.Name, "args": reply.Call.Args}}
	}
	chunk := map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": usage(reply.InputTokens), "modelVersion": model,
	}
	data, err := json.Marshal(chunk)
	if err != nil {
		panic(err) // only maps of plain values are sent
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, "data: %s\r\n\r\n", data)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
