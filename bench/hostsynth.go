package bench

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The transcripts of Gemini CLI and Qwen Code the import row measures
// (issue 25) are made from the conversation of a real Claude Code session
// (its person's words, the model's texts and thinking, its tool calls with
// their inputs and their results) written as the records of the other
// host, in the shapes of the sessions those programs recorded
// (importer/gemini/testdata, importer/qwen/testdata): the same keys in the
// same order, the same bookkeeping records around each message. The
// conversation is repeated, each copy with fresh ids and later times, up
// to the size asked for.

// hostSynthVersion changes whenever SynthesizeGeminiSession or
// SynthesizeQwenSession would write other bytes for the same source and
// size: the cache is made again then.
const hostSynthVersion = 1

// convCall is a tool call of the conversation and its result.
type convCall struct {
	id, name string
	input    json.RawMessage
	output   string
	failed   bool
}

// convStep is one message of the conversation: the person's words (user),
// or a model message with its thinking, text and tool calls.
type convStep struct {
	user     string
	thinking []string
	text     []string
	calls    []*convCall
}

// conversation reads the person's words and the model's messages of a
// Claude Code transcript, in order: the content blocks of one API message
// (one message id) are one step, and each tool call carries its result.
func conversation(data []byte) ([]*convStep, string, error) {
	var steps []*convStep
	var cur *convStep
	curID, cwd := "", ""
	calls := map[string]*convCall{}
	for raw := range bytes.SplitSeq(data, []byte{'\n'}) {
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		var ln struct {
			Type    string `json:"type"`
			Cwd     string `json:"cwd"`
			IsMeta  bool   `json:"isMeta"`
			Message struct {
				ID      string          `json:"id"`
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if err := json.Unmarshal(raw, &ln); err != nil {
			return nil, "", fmt.Errorf("a line is not JSON: %w", err)
		}
		if cwd == "" {
			cwd = ln.Cwd
		}
		if (ln.Type != "user" && ln.Type != "assistant") || ln.IsMeta || len(ln.Message.Content) == 0 {
			continue
		}
		var s string
		if json.Unmarshal(ln.Message.Content, &s) == nil {
			if ln.Type == "user" && strings.TrimSpace(s) != "" && !strings.HasPrefix(s, "<") {
				steps, cur, curID = append(steps, &convStep{user: s}), nil, ""
			}
			continue
		}
		var blocks []struct {
			Type      string          `json:"type"`
			Text      string          `json:"text"`
			Thinking  string          `json:"thinking"`
			ID        string          `json:"id"`
			Name      string          `json:"name"`
			Input     json.RawMessage `json:"input"`
			ToolUseID string          `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
			IsError   bool            `json:"is_error"`
		}
		if err := json.Unmarshal(ln.Message.Content, &blocks); err != nil {
			return nil, "", fmt.Errorf("a message's content: %w", err)
		}
		for _, b := range blocks {
			if ln.Type == "user" {
				switch b.Type {
				case "text":
					if strings.TrimSpace(b.Text) != "" && !strings.HasPrefix(b.Text, "<") {
						steps, cur, curID = append(steps, &convStep{user: b.Text}), nil, ""
					}
				case "tool_result":
					if c := calls[b.ToolUseID]; c != nil {
						c.output, c.failed = resultText(b.Content), b.IsError
					}
				}
				continue
			}
			if cur == nil || ln.Message.ID != curID {
				cur, curID = &convStep{}, ln.Message.ID
				steps = append(steps, cur)
			}
			switch b.Type {
			case "thinking":
				cur.thinking = append(cur.thinking, b.Thinking)
			case "text":
				cur.text = append(cur.text, b.Text)
			case "tool_use":
				c := &convCall{id: b.ID, name: b.Name, input: b.Input}
				calls[b.ID] = c
				cur.calls = append(cur.calls, c)
			}
		}
	}
	if len(steps) == 0 {
		return nil, "", errors.New("no conversation in it")
	}
	return steps, cwd, nil
}

// resultText is a tool_result's content as text: a string, or its text
// blocks joined.
func resultText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var bs []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &bs) != nil {
		return string(raw)
	}
	var t []string
	for _, b := range bs {
		if b.Type == "text" {
			t = append(t, b.Text)
		}
	}
	return strings.Join(t, "\n")
}

// jsObject encodes key, value pairs as one JSON object, in order, as
// JSON.stringify writes it (no escaping of <, > and &).
func jsObject(kv ...any) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for j := 0; j+1 < len(kv); j += 2 {
		if j > 0 {
			b.WriteByte(',')
		}
		b.Write(jsValue(kv[j]))
		b.WriteByte(':')
		b.Write(jsValue(kv[j+1]))
	}
	b.WriteByte('}')
	return b.Bytes()
}

func jsValue(v any) []byte {
	if r, ok := v.(json.RawMessage); ok {
		return r
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // only values built here
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'})
}

// jsArray is a JSON array of raw values.
func jsArray(vs ...json.RawMessage) json.RawMessage {
	if len(vs) == 0 {
		return json.RawMessage("[]")
	}
	b := []byte{'['}
	for j, v := range vs {
		if j > 0 {
			b = append(b, ',')
		}
		b = append(b, v...)
	}
	return append(b, ']')
}

// hostRenderer writes copy k of a conversation as records of one host.
type hostRenderer interface {
	// start is the file's first records.
	start(w *recWriter)
	// step writes one step of copy k.
	step(w *recWriter, k int, s *convStep)
}

// recWriter writes records one a line and keeps the clock: each record is
// 250 ms after the one before.
type recWriter struct {
	w     *bufio.Writer
	err   error
	bytes int64
	lines int
	at    time.Time
	last  []byte
	// sid is the synthetic session's id, cwd its project.
	sid, cwd string
	n        int // ids made
}

func (w *recWriter) write(rec json.RawMessage) {
	if w.err != nil {
		return
	}
	if _, w.err = w.w.Write(rec); w.err == nil {
		w.err = w.w.WriteByte('\n')
	}
	w.bytes += int64(len(rec)) + 1
	w.lines++
	w.last = rec
}

// tick is the time of the next record.
func (w *recWriter) tick() string {
	w.at = w.at.Add(250 * time.Millisecond)
	return w.at.UTC().Format("2006-01-02T15:04:05.000Z")
}

// uuid is a fresh uuid of the file.
func (w *recWriter) uuid() string {
	w.n++
	return derivedUUID(w.n, w.sid)
}

// SynthesizeGeminiSession returns a Gemini CLI session file of about size
// bytes cached as dir/<name>/session-2026-01-01T00-00-<id8>.jsonl
// (manifest dir/<name>.json), made from the conversation of source, a
// Claude Code transcript, as Gemini CLI 0.61.0 records one (the session
// importer/gemini/testdata/session-recorded.jsonl): the header and the
// session context's $set, then each message followed by a $set of
// lastUpdated; a reply with tool calls written once bare, then again with
// its toolCalls (args, result, status, …), then the results as a user
// message of functionResponse parts; thinking as the reply's thoughts.
func SynthesizeGeminiSession(dir, name, source string, size int64, progress io.Writer) (Synthetic, error) {
	return synthesizeHost(dir, name, source, size, progress, func(sid string) string {
		return "session-2026-01-01T00-00-" + sid[:8] + ".jsonl"
	}, &geminiRenderer{})
}

// SynthesizeQwenSession is SynthesizeGeminiSession for Qwen Code 0.24.4
// (the session importer/qwen/testdata/session.jsonl): records chained by
// uuid and parentUuid; a user record followed by an attribution_snapshot;
// a ui_telemetry api_response before each assistant record (thought, text
// and functionCall parts); a ui_telemetry tool_call and a tool_result
// record per call. The file is dir/<name>/<uuid>.jsonl.
func SynthesizeQwenSession(dir, name, source string, size int64, progress io.Writer) (Synthetic, error) {
	return synthesizeHost(dir, name, source, size, progress, func(sid string) string { return sid + ".jsonl" }, &qwenRenderer{})
}

func synthesizeHost(dir, name, source string, size int64, progress io.Writer, file func(sid string) string, r hostRenderer) (Synthetic, error) {
	data, err := os.ReadFile(source)
	if err != nil {
		return Synthetic{}, fmt.Errorf("bench: %w", err)
	}
	sum := sha256.Sum256(data)
	want := Synthetic{Version: hostSynthVersion, SessionID: derivedUUID(0, "synthetic session "+name), Source: filepath.Base(source),
		SourceSHA256: hex.EncodeToString(sum[:]), Target: size}
	home := filepath.Join(dir, name)
	want.Path = filepath.Join(home, file(want.SessionID))
	manPath := filepath.Join(dir, name+".json")
	if b, err := os.ReadFile(manPath); err == nil {
		var m Synthetic
		if json.Unmarshal(b, &m) == nil && m.Version == want.Version && m.SessionID == want.SessionID && m.SourceSHA256 == want.SourceSHA256 &&
			m.Target == want.Target && m.Path == want.Path {
			if fi, err := os.Stat(m.Path); err == nil && fi.Size() == m.Bytes {
				return m, nil
			}
		}
	}
	start := time.Now()
	steps, cwd, err := conversation(data)
	if err != nil {
		return Synthetic{}, fmt.Errorf("bench: %s: %w", source, err)
	}
	if cwd == "" {
		cwd = "/home/dev/work"
	}
	want.Cwd = cwd
	if err := os.RemoveAll(home); err != nil {
		return Synthetic{}, fmt.Errorf("bench: %w", err)
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return Synthetic{}, fmt.Errorf("bench: %w", err)
	}
	f, err := os.OpenFile(want.Path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return Synthetic{}, fmt.Errorf("bench: %w", err)
	}
	w := &recWriter{w: bufio.NewWriterSize(f, 1<<20), at: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), sid: want.SessionID, cwd: cwd}
	s := want
	r.start(w)
	for k := 0; w.bytes < size && w.err == nil; k++ {
		for _, st := range steps {
			r.step(w, k, st)
			if w.bytes >= size {
				break
			}
		}
		s.Copies = k + 1
		if progress != nil && k%8 == 7 {
			fmt.Fprintf(progress, "bench: synthesizing %s: %.0f of %.0f MiB\n", name, float64(w.bytes)/(1<<20), float64(size)/(1<<20))
		}
	}
	if w.err == nil {
		w.err = w.w.Flush()
	}
	if w.err == nil {
		w.err = f.Sync()
	}
	if w.err != nil {
		return Synthetic{}, errors.Join(fmt.Errorf("bench: writing %s: %w", want.Path, w.err), f.Close())
	}
	if err := f.Close(); err != nil {
		return Synthetic{}, fmt.Errorf("bench: %w", err)
	}
	s.Bytes, s.Lines, s.LastTimestamp = w.bytes, w.lines, w.at
	var tail struct {
		UUID string `json:"uuid"`
		ID   string `json:"id"`
	}
	if err := json.Unmarshal(w.last, &tail); err != nil {
		return Synthetic{}, fmt.Errorf("bench: the last line of %s: %w", want.Path, err)
	}
	s.LastUUID = tail.UUID
	if s.LastUUID == "" {
		s.LastUUID = tail.ID
	}
	man, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return Synthetic{}, err
	}
	if err := os.WriteFile(manPath, man, 0o600); err != nil {
		return Synthetic{}, fmt.Errorf("bench: %w", err)
	}
	if progress != nil {
		fmt.Fprintf(progress, "bench: synthesized %s: %d lines, %.1f MiB in %.1fs\n", name, s.Lines, float64(s.Bytes)/(1<<20), time.Since(start).Seconds())
	}
	return s, nil
}

// clipRunes is s cut to at most n runes.
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// hostTool is the name a host gives the tool Claude Code calls name.
func hostTool(tools map[string]string, name string) string {
	if t, ok := tools[name]; ok {
		return t
	}
	return strings.ToLower(name)
}

// todosInput rewrites a TodoWrite input ({todos: [{content, status,
// activeForm}]}) as the host's: its items' keys (text under textKey, and
// an id when withID).
func todosInput(in json.RawMessage, textKey string, withID bool) json.RawMessage {
	var a struct {
		Todos []struct {
			Content string `json:"content"`
			Status  string `json:"status"`
		} `json:"todos"`
	}
	if json.Unmarshal(in, &a) != nil {
		return in
	}
	var items []json.RawMessage
	for j, t := range a.Todos {
		if withID {
			items = append(items, jsObject("id", strconv.Itoa(j+1), textKey, t.Content, "status", t.Status))
		} else {
			items = append(items, jsObject(textKey, t.Content, "status", t.Status))
		}
	}
	return jsObject("todos", jsArray(items...))
}

// geminiTools are Gemini CLI's names of Claude Code's tools.
var geminiTools = map[string]string{"Bash": "run_shell_command", "Read": "read_file", "Edit": "replace", "Write": "write_file",
	"Grep": "grep_search", "Glob": "glob", "TodoWrite": "write_todos", "Task": "codebase_investigator", "WebFetch": "web_fetch"}

type geminiRenderer struct{}

const geminiModel = "gemini-3.8-flash"

func (geminiRenderer) start(w *recWriter) {
	ts := w.tick()
	proj := sha256.Sum256([]byte(w.cwd))
	w.write(jsObject("sessionId", w.sid, "projectHash", hex.EncodeToString(proj[:]), "startTime", ts, "lastUpdated", ts, "kind", "main"))
	ctx := "<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\nToday's date is Thursday, January 1, 2026 (formatted according to the user's locale).\nMy operating system is: linux\nThe project's temporary directory is: /home/dev/.gemini/tmp/work\n- **Workspace Directories:**\n  - " + w.cwd + "\n- **Directory Structure:**\n\nShowing up to 200 items (files + folders).\n\n" + w.cwd + "/\n\n\n\n</session_context>"
	cid := strings.ReplaceAll(w.uuid(), "-", "")
	w.write(jsObject("$set", jsObject("messages", jsArray(jsObject("id", cid, "timestamp", ts, "type", "user", "content", jsArray(jsObject("text", ctx)))), "lastUpdated", ts)))
}

func (geminiRenderer) lastUpdated(w *recWriter, ts string) {
	w.write(jsObject("$set", jsObject("lastUpdated", ts)))
}

func (g geminiRenderer) step(w *recWriter, k int, s *convStep) {
	if s.user != "" {
		ts := w.tick()
		w.write(jsObject("id", w.uuid(), "timestamp", ts, "type", "user", "content", jsArray(jsObject("text", s.user))))
		g.lastUpdated(w, ts)
		return
	}
	id, ts := w.uuid(), w.tick()
	var thoughts []json.RawMessage
	for _, t := range s.thinking {
		subject, _, _ := strings.Cut(strings.TrimSpace(t), "\n")
		thoughts = append(thoughts, jsObject("subject", clipRunes(subject, 60), "description", t, "timestamp", ts))
	}
	text := strings.Join(s.text, "\n\n")
	out := len(text)/4 + 1
	tokens := jsObject("input", 20000+w.n%5000, "output", out, "cached", 16000, "thoughts", 0, "tool", 0, "total", 20000+w.n%5000+out)
	head := []any{"id", id, "timestamp", ts, "type", "gemini", "content", text, "thoughts", jsArray(thoughts...), "tokens", tokens, "model", geminiModel}
	w.write(jsObject(head...))
	g.lastUpdated(w, w.tick())
	if len(s.calls) == 0 {
		return
	}
	var calls, responses []json.RawMessage
	for j, c := range s.calls {
		name := hostTool(geminiTools, c.name)
		args := c.input
		if name == "write_todos" {
			args = todosInput(args, "description", false)
		}
		cid := fmt.Sprintf("%s__%s_%d_%d", name, name, w.at.UnixMilli(), j)
		resp := jsObject("output", c.output)
		status := "success"
		if c.failed {
			resp, status = jsObject("error", c.output), "error"
		}
		fr := jsObject("functionResponse", jsObject("id", cid, "name", name, "response", resp))
		display := ""
		if name == "run_shell_command" {
			display = c.output
		}
		calls = append(calls, jsObject("id", cid, "name", name, "args", args, "result", jsArray(fr), "status", status, "timestamp", w.tick(),
			"resultDisplay", display, "description", clipRunes(string(args), 80), "displayName", name, "renderOutputAsMarkdown", name != "run_shell_command"))
		responses = append(responses, fr)
	}
	w.write(jsObject(append(head, "toolCalls", jsArray(calls...))...))
	rts := w.tick()
	w.write(jsObject("id", w.uuid(), "timestamp", rts, "type", "user", "content", jsArray(responses...)))
	g.lastUpdated(w, rts)
}

// qwenTools are Qwen Code's names of Claude Code's tools.
var qwenTools = map[string]string{"Bash": "run_shell_command", "Read": "read_file", "Edit": "edit", "Write": "write_file",
	"Grep": "grep_search", "Glob": "glob", "TodoWrite": "todo_write", "Task": "agent", "WebFetch": "web_fetch"}

type qwenRenderer struct{ parent string }

const qwenModel = "qwen3-coder-plus"

func (*qwenRenderer) start(*recWriter) {}

// record writes one record of the chain: its common keys, then kv.
func (q *qwenRenderer) record(w *recWriter, typ, provenance string, kv ...any) (uuid, ts string) {
	uuid, ts = w.uuid(), w.tick()
	var parent any = q.parent
	if q.parent == "" {
		parent = nil
	}
	head := []any{"uuid", uuid, "parentUuid", parent, "sessionId", w.sid, "timestamp", ts, "type", typ, "provenance", provenance, "cwd", w.cwd, "version", "0.24.4"}
	w.write(jsObject(append(head, kv...)...))
	q.parent = uuid
	return uuid, ts
}

func (q *qwenRenderer) step(w *recWriter, k int, s *convStep) {
	prompt := fmt.Sprintf("%s########%d", w.sid, k)
	if s.user != "" {
		q.record(w, "user", "real_user", "message", jsObject("role", "user", "parts", jsArray(jsObject("text", s.user))))
		q.record(w, "system", "system", "subtype", "attribution_snapshot", "systemPayload", jsObject("snapshot",
			jsObject("type", "attribution-snapshot", "version", 1, "surface", "cli", "fileStates", jsObject(), "promptCount", k+1, "promptCountAtLastCommit", 0)))
		return
	}
	text := strings.Join(s.text, "\n\n")
	out := len(text)/4 + 1
	in := 20000 + w.n%5000
	resp := fmt.Sprintf("chatcmpl-%d", w.n)
	q.record(w, "system", "system", "subtype", "ui_telemetry", "systemPayload", jsObject("uiEvent", jsObject("event.name", "qwen-code.api_response",
		"event.timestamp", w.at.Add(-7*time.Millisecond).UTC().Format("2006-01-02T15:04:05.000Z"), "response_id", resp, "model", qwenModel,
		"status_code", 200, "duration_ms", 1800+w.n%900, "input_token_count", in, "output_token_count", out, "cached_content_token_count", 16000,
		"thoughts_token_count", 0, "total_token_count", in+out, "prompt_id", prompt, "auth_type", "openai", "ttft_ms", 600+w.n%300)))
	var parts []json.RawMessage
	for _, t := range s.thinking {
		parts = append(parts, jsObject("text", t, "thought", true))
	}
	if text != "" {
		parts = append(parts, jsObject("text", text))
	}
	type call struct {
		id, name string
		args     json.RawMessage
		c        *convCall
	}
	var calls []call
	for j, c := range s.calls {
		name := hostTool(qwenTools, c.name)
		args := c.input
		if name == "todo_write" {
			args = todosInput(args, "content", true)
		}
		cl := call{id: fmt.Sprintf("call_%s%d%d", strings.ReplaceAll(w.sid[:8], "-", ""), w.n, j), name: name, args: args, c: c}
		calls = append(calls, cl)
		parts = append(parts, jsObject("functionCall", jsObject("id", cl.id, "name", name, "args", args)))
	}
	q.record(w, "assistant", "assistant_output", "model", qwenModel, "message", jsObject("role", "model", "parts", jsArray(parts...)),
		"usageMetadata", jsObject("promptTokenCount", in, "candidatesTokenCount", out, "thoughtsTokenCount", 0, "totalTokenCount", in+out, "cachedContentTokenCount", 16000),
		"contextWindowSize", 262144)
	for _, cl := range calls {
		status, r := "success", jsObject("output", cl.c.output)
		if cl.c.failed {
			status, r = "error", jsObject("error", cl.c.output)
		}
		q.record(w, "system", "system", "subtype", "ui_telemetry", "systemPayload", jsObject("uiEvent", jsObject("event.name", "qwen-code.tool_call",
			"event.timestamp", w.at.UTC().Format("2006-01-02T15:04:05.000Z"), "call_id", cl.id, "function_name", cl.name, "function_args", cl.args,
			"duration_ms", 80+w.n%400, "status", status, "execution_status", status, "success", !cl.c.failed, "decision", "auto_accept",
			"prompt_id", prompt, "response_id", resp, "tool_type", "native", "content_length", len(cl.c.output))))
		q.record(w, "tool_result", "tool_result", "message", jsObject("role", "user", "parts", jsArray(jsObject("functionResponse",
			jsObject("id", cl.id, "name", cl.name, "response", r)))),
			"toolCallResult", jsObject("callId", cl.id, "status", status, "resultDisplay", "", "executionStatus", status))
	}
}
