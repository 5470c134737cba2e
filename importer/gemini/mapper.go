package gemini

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/importer/genai"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/session/logscan"
)

// Format is the importer format name of Gemini CLI session files.
const Format = "gemini-cli"

// Title is what the mapper's warnings and events call the host.
const Title = "Gemini CLI"

// Config shapes a Mapper.
type Config struct {
	// KeepThinking keeps a reply's thoughts as assistant/message events
	// with source.name "thinking"; by default they are dropped and counted.
	KeepThinking bool
}

// Mapper maps the records of a Gemini CLI session file to session events
// (doc.go). It keeps the host's message list by id, so a record
// that repeats a message, a $set that replaces the list and a $rewindTo
// produce only what is new, and say what the host dropped.
type Mapper struct {
	cfg Config
	st  mapState
	// dec reads records on the fast path (fast.go).
	dec logscan.Decoder
}

// NewMapper returns a Mapper that has seen no line.
func NewMapper(cfg Config) *Mapper {
	m := &Mapper{cfg: cfg}
	m.reset()
	return m
}

func (m *Mapper) reset() { m.st = newState() }

// Format implements importer.Mapper.
func (m *Mapper) Format() string { return Format }

// Settings implements importer.Mapper.
func (m *Mapper) Settings() map[string]string {
	return map[string]string{"keepThinking": strconv.FormatBool(m.cfg.KeepThinking)}
}

// SaveState implements importer.Mapper.
func (m *Mapper) SaveState() (json.RawMessage, error) {
	return appendState(make([]byte, 0, stateSize(&m.st)), &m.st)
}

// LoadState implements importer.Mapper: a state of either form
// (state.go).
func (m *Mapper) LoadState(raw json.RawMessage) error {
	m.reset()
	if len(raw) == 0 {
		return nil
	}
	st, err := loadState(raw)
	if err != nil {
		return err
	}
	m.st = st
	return nil
}

// AppendBinaryState implements importer.BinaryState: the state in its
// third form (statefile.go), which the importer keeps in a file beside
// the cursor.
func (m *Mapper) AppendBinaryState(b []byte) ([]byte, error) {
	return appendBinary(slices.Grow(b, binarySize(&m.st)), &m.st)
}

// LoadBinaryState implements importer.BinaryState. The mapper keeps
// data's tables and reads them as lines ask (data must not change).
func (m *Mapper) LoadBinaryState(data []byte) error {
	m.reset()
	st, err := loadBinary(data)
	if err != nil {
		return err
	}
	m.st = st
	return nil
}

// record is any record of a session file; which one it is follows the
// host's own test order (doc.go).
type record struct {
	ID             string          `json:"id"`
	Timestamp      string          `json:"timestamp"`
	Type           string          `json:"type"`
	Content        json.RawMessage `json:"content"`
	DisplayContent json.RawMessage `json:"displayContent"`
	Thoughts       []thought       `json:"thoughts"`
	ToolCalls      []toolCall      `json:"toolCalls"`
	Tokens         *Tokens         `json:"tokens"`
	Model          string          `json:"model"`

	Set      json.RawMessage `json:"$set"`
	RewindTo *string         `json:"$rewindTo"`

	SessionID   string          `json:"sessionId"`
	ProjectHash string          `json:"projectHash"`
	StartTime   string          `json:"startTime"`
	LastUpdated string          `json:"lastUpdated"`
	Kind        string          `json:"kind"`
	Messages    json.RawMessage `json:"messages"`
}

type thought struct {
	Subject     string `json:"subject"`
	Description string `json:"description"`
}

type toolCall struct {
	ID     string          `json:"id"`
	Name   string          `json:"name"`
	Args   json.RawMessage `json:"args"`
	Result json.RawMessage `json:"result"`
	Status string          `json:"status"`
	// ResultDisplay is what the host shows the person of the result; of
	// the task tracker's tools, the whole list ({"todos": […]}).
	ResultDisplay json.RawMessage `json:"resultDisplay"`
}

// Tokens are the token counts Gemini CLI records on a reply (its
// usageMetadata: promptTokenCount, candidatesTokenCount, …).
type Tokens struct {
	Input    int64 `json:"input"`
	Output   int64 `json:"output"`
	Cached   int64 `json:"cached"`
	Thoughts int64 `json:"thoughts"`
	Tool     int64 `json:"tool"`
	Total    int64 `json:"total"`
}

type part struct {
	Text             *string           `json:"text"`
	Thought          bool              `json:"thought"`
	FunctionCall     *functionCall     `json:"functionCall"`
	FunctionResponse *functionResponse `json:"functionResponse"`
	InlineData       *inlineData       `json:"inlineData"`
	FileData         *fileData         `json:"fileData"`
}

// A part's structs with no name of their own (aliases): encoding/json's
// errors, which a summary keeps, would name them.
type (
	functionCall = struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	}
	inlineData = struct {
		MimeType string `json:"mimeType"`
	}
	fileData = struct {
		MimeType string `json:"mimeType"`
		FileURI  string `json:"fileUri"`
	}
)

type functionResponse struct {
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
}

// parts reads a content: a string, one part or a list of parts.
func parts(raw json.RawMessage) ([]part, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return []part{{Text: &s}}, nil
	case '{':
		var p part
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, err
		}
		return []part{p}, nil
	}
	var ps []part
	err := json.Unmarshal(raw, &ps)
	return ps, err
}

// parts is parts(raw), read on the fast path when it can be.
func (m *Mapper) parts(raw json.RawMessage) ([]part, error) {
	var ps []part
	if fastParts(&m.dec, raw, &ps) {
		return ps, nil
	}
	return parts(raw)
}

// texts joins the text parts that are not thoughts, with the files and
// images named.
func texts(ps []part) string {
	var b []string
	for _, p := range ps {
		switch {
		case p.Text != nil && !p.Thought:
			b = append(b, *p.Text)
		case p.InlineData != nil:
			b = append(b, "["+p.InlineData.MimeType+"]")
		case p.FileData != nil:
			b = append(b, "["+p.FileData.MimeType+" "+p.FileData.FileURI+"]")
		}
	}
	return strings.Join(b, "\n")
}

// ContentText is the text of a message's content (a string, one part or
// a list of parts) as the host's listing reads it: the text parts that are
// not thoughts, with the files and images named; "" when it does not
// decode.
func ContentText(raw json.RawMessage) string {
	ps, _ := parts(raw)
	return texts(ps)
}

// IgnoredUserText reports whether Gemini CLI 0.61.0 leaves a user text out
// of a resumed conversation.
func IgnoredUserText(t string) bool {
	return strings.HasPrefix(t, "/") || strings.HasPrefix(t, "?") ||
		strings.HasPrefix(t, tagSessionContext) || strings.HasPrefix(t, tagHookContext)
}

const (
	tagSessionContext = "<session_context>"
	tagHookContext    = "<hook_context>"
	endHookContext    = "</hook_context>"
	tagStateSnapshot  = "<state_snapshot>"
	// compressionAck is the reply Gemini CLI writes after the snapshot of
	// a compression: its own words, not the model's.
	compressionAck = "Got it. Thanks for the additional context!"
)

// Map implements importer.Mapper.
func (m *Mapper) Map(l importer.Line, out *importer.Output) error {
	defer m.dec.Release()
	var rec record
	var k recordKeys
	if fastRecord(&m.dec, l.Bytes, &rec, &k) {
		var to string
		if rec.RewindTo != nil {
			to = *rec.RewindTo
		}
		m.dispatch(&rec, to, k.is, func() []string {
			names := make([]string, len(k.names))
			for j, n := range k.names {
				names[j] = string(n)
			}
			return names
		}, l, out)
		return nil
	}
	return m.mapSlow(l, out)
}

// mapSlow is Map with encoding/json, for what the fast path leaves.
func (m *Mapper) mapSlow(l importer.Line, out *importer.Output) error {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(l.Bytes, &keys); err != nil {
		out.Malformed(err)
		return nil
	}
	if keys == nil {
		out.Malformed(errors.New("not a record: null"))
		return nil
	}
	is := func(k string, first byte) bool {
		v := bytes.TrimSpace(keys[k])
		return len(v) > 0 && v[0] == first
	}
	var rec record
	if err := json.Unmarshal(l.Bytes, &rec); err != nil && !is("$rewindTo", '"') {
		out.Malformed(err)
		return nil
	}
	var to string
	if is("$rewindTo", '"') {
		if err := json.Unmarshal(keys["$rewindTo"], &to); err != nil {
			out.Malformed(err)
			return nil
		}
	}
	m.dispatch(&rec, to, is, func() []string {
		names := make([]string, 0, len(keys))
		for k := range keys {
			names = append(names, k)
		}
		return names
	}, l, out)
	return nil
}

// dispatch maps a record by what it is (doc.go): is tests its keys, to is
// the $rewindTo's id, names lists its keys.
func (m *Mapper) dispatch(rec *record, to string, is func(k string, first byte) bool, names func() []string, l importer.Line, out *importer.Output) {
	switch {
	case is("$rewindTo", '"'):
		m.rewind(to, l, out)
	case is("id", '"'):
		m.message(rec, keyOf(rec.ID), false, out)
	case is("$set", '{'):
		m.set(rec, out)
	case is("sessionId", '"') && is("projectHash", '"'):
		m.header(rec, out)
	default:
		names := names()
		slices.Sort(names)
		shape := "{" + strings.Join(names, ",") + "}"
		ev := event(rec.Timestamp, session.TypeSystem, system("unknown"))
		ev.Text = "unknown Gemini CLI record " + importer.Clip(shape, 150)
		ev.Meta["shape"] = importer.Clip(shape, 150)
		out.Emit(ev)
		m.st.told = importer.NoteUnknown(out, m.st.told, Title, "", "record", shape)
	}
}

func system(name string) session.Source { return session.Source{Kind: session.KindSystem, Name: name} }

func event(ts, typ string, src session.Source) session.Event {
	ev := session.Event{Type: typ, Source: src, Meta: map[string]string{}}
	if t, ok := importer.Timestamp(ts); ok {
		ev.TS = t
	} else if ts != "" {
		ev.Meta["timestamp"] = ts
	}
	return ev
}

func (m *Mapper) header(rec *record, out *importer.Output) {
	out.SourceUUID(rec.SessionID)
	ev := event(rec.StartTime, session.TypeSystem, system("session"))
	ev.Text = importer.Clip(fmt.Sprintf("%s session %s (kind %s, project %s)", Title, rec.SessionID, rec.Kind, rec.ProjectHash), 200)
	for k, v := range map[string]string{"sessionId": rec.SessionID, "projectHash": rec.ProjectHash, "kind": rec.Kind} {
		if v != "" {
			ev.Meta[k] = v
		}
	}
	out.Emit(ev)
	if len(bytes.TrimSpace(rec.Messages)) > 0 && rec.Messages[0] == '[' {
		// A header that carries the messages (a file converted from the
		// older JSON format) adds them, as the host's loader does.
		var msgs []record
		if err := json.Unmarshal(rec.Messages, &msgs); err != nil {
			out.Warn("the header's messages do not decode: %v; not imported", err)
			return
		}
		for k := range msgs {
			if msgs[k].ID != "" {
				m.message(&msgs[k], keyOf(msgs[k].ID), false, out)
			}
		}
	}
}

// rewind drops message to and what follows it from the host's list (all of
// it when to is not in the list, as the host does).
func (m *Mapper) rewind(to string, l importer.Line, out *importer.Output) {
	k := slices.Index(m.st.list, keyOf(to))
	if k < 0 {
		k = 0
	}
	dropped := len(m.st.list) - k
	for _, id := range m.st.list[k:] {
		mk := m.st.mark(id)
		mk.listed = false
		m.st.setMark(id, mk)
	}
	m.st.list = m.st.list[:k]
	for _, id := range m.st.list { // an id listed twice is still listed
		mk := m.st.mark(id)
		mk.listed = true
		m.st.setMark(id, mk)
	}
	ev := event("", session.TypeSystem, system("rewind"))
	ev.Text = fmt.Sprintf("%s rewound its conversation to before message %s: %d message(s) taken back (their events stay in this log)", Title, to, dropped)
	ev.Meta["rewindTo"] = to
	ev.Meta["dropped"] = strconv.Itoa(dropped)
	out.Emit(ev)
}

func (m *Mapper) set(rec *record, out *importer.Output) {
	var fields []setField
	if !fastSet(&m.dec, rec.Set, &fields) {
		var fm map[string]json.RawMessage
		if err := json.Unmarshal(rec.Set, &fm); err != nil {
			out.Malformed(fmt.Errorf("$set: %w", err))
			return
		}
		fields = fields[:0]
		for k, v := range fm {
			fields = append(fields, setField{key: k, raw: v})
		}
	}
	field := func(key string) (json.RawMessage, bool) {
		for _, f := range fields {
			if f.key == key {
				return f.raw, true
			}
		}
		return nil, false
	}
	msgs, ok := field("messages")
	for _, f := range fields {
		if f.key != "messages" {
			out.Skip("$set " + f.key)
		}
	}
	if !ok || len(bytes.TrimSpace(msgs)) == 0 || bytes.TrimSpace(msgs)[0] != '[' {
		return
	}
	var list []record
	if err := json.Unmarshal(msgs, &list); err != nil {
		out.Malformed(fmt.Errorf("$set messages: %w", err))
		return
	}
	var ts string
	if raw, ok := field("lastUpdated"); ok {
		_ = json.Unmarshal(raw, &ts) // a time that does not decode leaves the store's
	}
	old := m.st.list
	var ids []key
	added := 0
	for k := range list {
		if list[k].ID == "" {
			continue
		}
		id := keyOf(list[k].ID)
		if !m.st.mark(id).present {
			added++
		}
		m.message(&list[k], id, true, out)
		ids = append(ids, id)
	}
	for _, id := range old {
		mk := m.st.mark(id)
		mk.listed = false
		m.st.setMark(id, mk)
	}
	for _, id := range ids {
		mk := m.st.mark(id)
		mk.listed = true
		m.st.setMark(id, mk)
	}
	dropped := 0
	for _, id := range old {
		if !m.st.mark(id).listed {
			dropped++
		}
	}
	m.st.list = ids
	if dropped == 0 {
		// Nothing taken back: what is new was imported above (the session
		// context a resume lists first, a compression's snapshot).
		out.Skip("$set messages (nothing dropped)")
		return
	}
	ev := event(ts, session.TypeSystem, system("history-replaced"))
	ev.Text = fmt.Sprintf("%s replaced its message list: %d message(s) now, %d new, %d dropped (their events stay in this log)", Title, len(ids), added, dropped)
	ev.Meta["messages"] = strconv.Itoa(len(ids))
	ev.Meta["added"] = strconv.Itoa(added)
	ev.Meta["dropped"] = strconv.Itoa(dropped)
	out.Emit(ev)
}

// digest is how a text already imported is recognised.
func digest(s string) [digestSize]byte {
	sum := sha256.Sum256([]byte(s))
	return [digestSize]byte(sum[:digestSize])
}

// message imports what is new in a message record: one read from the
// file (viaSet false) or from a $set list (true: the host rewrote its
// history, so a message it did not have before is the host's, not the
// person's).
func (m *Mapper) message(rec *record, id key, viaSet bool, out *importer.Output) {
	mk := m.st.mark(id)
	fresh := !mk.present
	mk.present = true
	if !viaSet && !mk.listed {
		m.st.list = append(m.st.list, id)
		mk.listed = true
	}
	defer func() { m.st.setMark(id, mk) }()
	ps, err := m.parts(rec.Content)
	if err != nil {
		out.Malformed(fmt.Errorf("message %s content: %w", rec.ID, err))
		return
	}
	switch rec.Type {
	case "user":
		m.user(rec, ps, &mk, fresh, viaSet, out)
	case "gemini":
		m.gemini(rec, ps, &mk, fresh, viaSet, out)
	case "info", "error", "warning":
		text := texts(ps)
		if d := digest(text); !mk.sameText(d) {
			mk.setText(d)
			ev := event(rec.Timestamp, session.TypeSystem, system(rec.Type))
			ev.Text = importer.Clip(text, 200)
			ev.Meta["uuid"] = rec.ID
			out.Emit(ev)
		}
	default:
		if !fresh {
			return
		}
		ev := event(rec.Timestamp, session.TypeSystem, system("unknown"))
		ev.Text = fmt.Sprintf("unknown %s message type %q", Title, rec.Type)
		ev.Meta["messageType"] = rec.Type
		ev.Meta["uuid"] = rec.ID
		out.Emit(ev)
		m.st.told = importer.NoteUnknown(out, m.st.told, Title, "", "message type", rec.Type)
	}
}

func (m *Mapper) user(rec *record, ps []part, mk *mark, fresh, viaSet bool, out *importer.Output) {
	for _, p := range ps {
		if fr := p.FunctionResponse; fr != nil {
			m.result(rec.Timestamp, fr.ID, fr.Name, "", []functionResponse{*fr}, out)
		}
	}
	// A hook's context is a text part of its own, after the prompt
	// (BeforeAgent) or before it, or the start of the prompt's part.
	var hooks, rest []part
	for _, p := range ps {
		if p.Text != nil && !p.Thought && strings.HasPrefix(strings.TrimSpace(*p.Text), tagHookContext) {
			hooks = append(hooks, p)
		} else {
			rest = append(rest, p)
		}
	}
	text := texts(rest)
	command := "" // the text of the command the person typed: the host's words
	if dps, err := m.parts(rec.DisplayContent); err == nil && len(dps) > 0 {
		// What the person typed, before the host expanded @file references
		// or a custom command into its text.
		typed := texts(dps)
		if t := strings.TrimSpace(typed); strings.HasPrefix(t, "/") && strings.TrimSpace(text) != t {
			command = strings.TrimSpace(text)
		}
		text = typed
	}
	whole := texts(hooks) + "\x00" + text
	if strings.TrimSpace(texts(hooks)+text) == "" {
		return
	}
	d := digest(whole)
	if mk.sameText(d) {
		if !fresh {
			out.Skip("message listed again")
		}
		return
	}
	mk.setText(d)
	emit := func(src session.Source, t string) {
		ev := event(rec.Timestamp, session.TypeUserMessage, src)
		ev.Text = t
		ev.Meta["uuid"] = rec.ID
		if src.Name == "session-context" {
			if dir := WorkspaceDir(t); dir != "" {
				ev.Meta["cwd"] = dir // Gemini CLI names it nowhere else
			}
		}
		out.Emit(ev)
	}
	for _, h := range hooks {
		ctx, after := splitHookContext(strings.TrimSpace(*h.Text))
		emit(system("hook-context"), ctx)
		if after != "" {
			text = strings.TrimSpace(after + "\n" + text)
		}
	}
	t := strings.TrimSpace(text)
	switch {
	case t == "":
	case strings.HasPrefix(t, tagSessionContext):
		emit(system("session-context"), text)
	case strings.HasPrefix(t, tagStateSnapshot):
		// The summary Gemini CLI's compression had the model write: the
		// host's compaction summary, never the person's.
		emit(system("compacted"), text)
	case viaSet && fresh:
		emit(system("rewritten-history"), text)
	case strings.HasPrefix(t, "/") || strings.HasPrefix(t, "?"):
		emit(session.Source{Kind: session.KindUser, Name: "slash-command"}, text)
		if command != "" {
			emit(session.Source{Kind: session.KindSkill, Name: "command"}, command)
		}
	default:
		emit(session.Source{Kind: session.KindUser}, text)
	}
}

// splitHookContext cuts a text that starts with <hook_context> after its
// </hook_context>: the hook's context, and what follows it.
func splitHookContext(t string) (ctx, rest string) {
	if i := strings.Index(t, endHookContext); i >= 0 {
		return t[:i+len(endHookContext)], strings.TrimSpace(t[i+len(endHookContext):])
	}
	return t, ""
}

func (m *Mapper) gemini(rec *record, ps []part, mk *mark, fresh, viaSet bool, out *importer.Output) {
	var th []string
	for _, t := range rec.Thoughts {
		s := strings.TrimSpace(t.Description)
		if t.Subject != "" {
			s = "**" + t.Subject + "** " + s
		}
		th = append(th, s)
	}
	for _, p := range ps {
		if p.Thought && p.Text != nil {
			th = append(th, *p.Text)
		}
	}
	if len(th) > int(mk.thoughts) {
		if m.cfg.KeepThinking {
			ev := event(rec.Timestamp, session.TypeAssistantMessage, session.Source{Kind: session.KindAssistant, Name: importer.ThinkingName})
			ev.Text = strings.Join(th[max(mk.thoughts, 0):], "\n\n")
			ev.Meta["uuid"] = rec.ID
			out.Emit(ev)
		} else {
			out.Skip("thoughts")
		}
		mk.thoughts = int32(min(len(th), math.MaxInt32))
	}
	text := texts(ps)
	if strings.TrimSpace(text) != "" {
		if d := digest(text); !mk.sameText(d) {
			switch {
			case viaSet && fresh && strings.TrimSpace(text) == compressionAck:
				out.Skip("compression acknowledgement")
			default:
				ev := event(rec.Timestamp, session.TypeAssistantMessage, session.Source{Kind: session.KindAssistant})
				ev.Text = text
				ev.Meta["uuid"] = rec.ID
				if mk.has != noText {
					ev.Meta["revises"] = rec.ID
				}
				out.Emit(ev)
			}
			mk.setText(d)
		}
	}
	for _, p := range ps {
		if fc := p.FunctionCall; fc != nil {
			m.call(rec, fc.ID, fc.Name, fc.Args, out)
		}
	}
	for _, tc := range rec.ToolCalls {
		m.call(rec, tc.ID, tc.Name, tc.Args, out)
		if len(bytes.TrimSpace(tc.Result)) == 0 || string(bytes.TrimSpace(tc.Result)) == "null" {
			continue
		}
		var frs []functionResponse
		var rps []part
		if fastPartList(&m.dec, tc.Result, &rps) || json.Unmarshal(tc.Result, &rps) == nil {
			for _, p := range rps {
				if p.FunctionResponse != nil {
					frs = append(frs, *p.FunctionResponse)
				}
			}
		} else {
			var s string
			if json.Unmarshal(tc.Result, &s) == nil {
				frs = append(frs, functionResponse{ID: tc.ID, Name: tc.Name, Response: mustJSON(map[string]string{"output": s})})
			}
		}
		ts := rec.Timestamp
		// A tracker call's list, once, when its result is imported now.
		tracker := tc.Status == "success" && isTrackerTool(tc.Name) && !m.st.isDone(keyOf(tc.ID))
		m.result(ts, tc.ID, tc.Name, tc.Status, frs, out)
		if tracker && m.st.isDone(keyOf(tc.ID)) {
			m.trackerTodos(rec, tc, out)
		}
	}
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v) // maps of strings always encode
	return b
}

// toolNames renames the Gemini CLI tools whose work the tape reads under
// another name (meta viaTool keeps Gemini's).
var toolNames = map[string]string{"replace": "edit"}

func (m *Mapper) call(rec *record, id, name string, args json.RawMessage, out *importer.Output) {
	if id == "" || m.st.hasCall(keyOf(id)) {
		return
	}
	if name == "" {
		out.Skip("tool call without a name")
		out.Warn("tool call %q has no name; not imported", id)
		return
	}
	ev := event(rec.Timestamp, session.TypeToolCall, session.Source{Kind: session.KindAssistant})
	ev.Meta["uuid"] = rec.ID
	tool := name
	if n, ok := toolNames[name]; ok {
		tool = n
		ev.Meta["viaTool"] = name
	}
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage(`{}`)
	}
	m.st.open[keyOf(id)] = tool
	ev.Tool = &session.Tool{Name: tool, CallID: id, Input: args}
	out.Emit(ev)
	if name == "write_todos" {
		m.todos(rec, id, args, out)
	}
}

// isTrackerTool: a tool of Gemini CLI's task tracker (tracker_create_task,
// tracker_update_task, tracker_list_tasks …), whose result shows the
// person the whole list.
func isTrackerTool(name string) bool { return strings.HasPrefix(name, "tracker_") }

// trackerTodos imports the list a tracker call's result shows the person
// (resultDisplay {"todos": [{description, status}]}) as a todo/write: the
// tracker is the agent's todo list, and the host keeps it per session.
func (m *Mapper) trackerTodos(rec *record, tc toolCall, out *importer.Output) {
	var d struct {
		Todos *[]struct {
			Description string `json:"description"`
			Status      string `json:"status"`
		} `json:"todos"`
	}
	if json.Unmarshal(tc.ResultDisplay, &d) != nil || d.Todos == nil {
		out.Warn("%s %q shows no task list; no todo/write event", tc.Name, tc.ID)
		return
	}
	ev := event(rec.Timestamp, session.TypeTodoWrite, session.Source{Kind: session.KindAssistant})
	ev.Todos = make([]session.Todo, 0, len(*d.Todos))
	for k, t := range *d.Todos {
		td, known := importer.Todo(strconv.Itoa(k+1), strings.TrimSpace(t.Description), t.Status)
		if !known {
			importer.WarnTodo(out, k+1, t.Status)
		}
		ev.Todos = append(ev.Todos, td)
	}
	ev.Meta["callId"] = tc.ID
	ev.Meta["uuid"] = rec.ID
	out.Emit(ev)
}

func (m *Mapper) todos(rec *record, id string, args json.RawMessage, out *importer.Output) {
	var a struct {
		Todos *[]struct {
			Description string `json:"description"`
			Status      string `json:"status"`
		} `json:"todos"`
	}
	if err := json.Unmarshal(args, &a); err != nil || a.Todos == nil {
		out.Warn("write_todos %q arguments have no todos; no todo/write event", id)
		return
	}
	ev := event(rec.Timestamp, session.TypeTodoWrite, session.Source{Kind: session.KindAssistant})
	ev.Todos = make([]session.Todo, 0, len(*a.Todos))
	for k, t := range *a.Todos {
		td, known := importer.Todo(strconv.Itoa(k+1), t.Description, t.Status)
		if !known {
			importer.WarnTodo(out, k+1, t.Status)
		}
		ev.Todos = append(ev.Todos, td)
	}
	ev.Meta["callId"] = id
	ev.Meta["uuid"] = rec.ID
	out.Emit(ev)
}

// result imports the result of tool call id once: from the call's own
// record when it has one (status says how it went), else from the
// functionResponse the host sends back as a user message.
func (m *Mapper) result(ts, id, name, status string, frs []functionResponse, out *importer.Output) {
	k := keyOf(id)
	if m.st.isDone(k) {
		if status == "" {
			out.Skip("functionResponse (copy of a tool call's result)")
		}
		return
	}
	if len(frs) == 0 {
		return
	}
	tool, ok := m.st.open[k]
	if !ok {
		if name == "" {
			name = "unknown"
		}
		out.Warn("tool result %q has no tool call before it; imported with tool name %q", id, name)
		tool = name
	}
	delete(m.st.open, k)
	m.st.setDone(k)
	var texts []string
	failed := false
	for _, fr := range frs {
		var r outputError
		var err error
		if !fastOutputError(&m.dec, fr.Response, &r) {
			r = outputError{}
			err = json.Unmarshal(fr.Response, &r)
		}
		switch {
		case err == nil && r.Output != nil:
			texts = append(texts, *r.Output)
		case r.Error != nil:
			texts = append(texts, *r.Error)
			failed = true
		default:
			texts = append(texts, string(fr.Response))
		}
	}
	ev := event(ts, session.TypeToolResult, session.Source{Kind: session.KindTool})
	ev.Tool = &session.Tool{Name: tool, CallID: id, Output: strings.Join(texts, "\n")}
	switch {
	case status == "success" && !failed:
		ev.Tool.OK = ptr(true)
	case status == "error" || status == "cancelled" || failed:
		ev.Tool.OK = ptr(false)
	}
	if status == "cancelled" {
		// The person turned it down at the confirmation prompt, or it
		// waited behind one they did: it did not run. Otherwise they
		// stopped it while it ran.
		ev.Meta[session.MetaDeclined] = session.DeclinedStopped
		if slices.ContainsFunc(deniedReasons, func(d string) bool { return strings.Contains(ev.Tool.Output, d) }) {
			ev.Meta[session.MetaDeclined] = session.DeclinedByUser
		}
	}
	if tool == toolShell && ev.OKResult() {
		// Gemini CLI records a command that failed as a call that went
		// well: its exit is in the output it gives its model.
		if so, ok := genai.ParseShellOutput(ev.Tool.Output); ok {
			if so.Failed {
				ev.Tool.OK = ptr(false)
			}
			if so.Exit != "" {
				ev.Meta["exitCode"] = so.Exit
			}
		}
	}
	var words string
	if tool == toolExitPlanMode && ev.OKResult() {
		// The person's verdict on the plan is in the text of a result
		// Gemini CLI records as a success.
		var verdict string
		switch verdict, words = planVerdict(ev.Tool.Output); verdict {
		case "failed":
			ev.Tool.OK = ptr(false)
		case session.DeclinedByUser:
			ev.Tool.OK = ptr(false)
			ev.Meta[session.MetaDeclined] = verdict
		}
	}
	if status != "" {
		ev.Meta["status"] = status
	}
	out.Emit(ev)
	if words != "" {
		// The person turned the plan down and said what to change: their
		// words reach the model only inside the result.
		h := event(ts, session.TypeUserMessage, session.Source{Kind: session.KindUser, Name: "rejection-feedback"})
		h.Text = words
		out.Emit(h)
	}
}

// WorkspaceDir is the directory Gemini CLI runs in, as the session context
// it writes first names it: the first entry of its "- **Workspace
// Directories:**" list (0.61.0's, seen on the real program); "" when the
// text lists none, or not an absolute path.
func WorkspaceDir(text string) string {
	_, list, found := strings.Cut(text, "- **Workspace Directories:**\n")
	if !found {
		return ""
	}
	line, _, _ := strings.Cut(list, "\n")
	dir, ok := strings.CutPrefix(strings.TrimSpace(line), "- ")
	if !ok || !filepath.IsAbs(dir) && !(len(dir) > 2 && dir[1] == ':') {
		return ""
	}
	return dir
}

// toolShell is Gemini CLI's shell tool.
const toolShell = "run_shell_command"

// toolExitPlanMode is the tool with which the agent asks the person to
// approve its plan and leave plan mode.
const toolExitPlanMode = "exit_plan_mode"

// Gemini CLI 0.61.0's results of exit_plan_mode (its bundle holds each
// text): the person approved the plan, turned it down with words or
// without, or cancelled the dialog.
const (
	planApproved     = "Plan approved."
	planRejected     = "Plan rejected."
	planFeedback     = "Plan rejected. User feedback: "
	planStoredAt     = "\n\nThe plan is stored at: "
	planDialogClosed = "User cancelled the plan approval dialog."
)

// planVerdict is what an exit_plan_mode result says of the plan:
// session.DeclinedByUser when the person turned it down (words: what they
// typed, if anything), "" when they approved it, "failed" when Gemini CLI
// could not take the plan (no plan file, an empty one, a path outside its
// plans folder): the agent's call failed.
func planVerdict(out string) (verdict, words string) {
	switch {
	case strings.HasPrefix(out, planApproved):
		return "", ""
	case strings.HasPrefix(out, planFeedback):
		words, _, _ = strings.Cut(strings.TrimPrefix(out, planFeedback), planStoredAt)
		return session.DeclinedByUser, strings.TrimSpace(words)
	case strings.HasPrefix(out, planRejected), strings.HasPrefix(out, planDialogClosed):
		return session.DeclinedByUser, ""
	}
	return "failed", ""
}

func ptr[T any](v T) *T { return &v }

// deniedReasons are the reasons Gemini CLI cancels a call with when the
// person turned it down at its confirmation prompt ("User denied
// execution.") and the calls queued behind it ("User cancelled
// operation"), in "[Operation Cancelled] Reason: <reason>" (0.61.0's
// bundle holds them; the real 0.61.0 wrote the first).
var deniedReasons = []string{"Reason: User denied execution.", "Reason: User cancelled operation"}

// Options of Import.
type Options = importer.FileOptions

// Import imports a Gemini CLI session file into session o.ID incrementally
// (importer.Run).
func Import(o Options) (*importer.Summary, error) {
	return importer.RunFile(o, NewMapper(Config{KeepThinking: o.KeepThinking}))
}
