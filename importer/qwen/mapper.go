package qwen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/session/logscan"
)

// Format is the importer format name of Qwen Code session files.
const Format = "qwen"

// HostName is how graft names the host to people.
const HostName = "Qwen Code"

// Entrypoint is the "entrypoint" of the records of graft's exports
// (hosts/qwen): a user record that has it holds graft's tape.
const Entrypoint = "graft"

// Tool names of Qwen Code 0.24.4 (its core's tool-names.ts) that the
// mapping reads: the agent tool's result is a sub-agent's report,
// todo_write's input the todo list.
const (
	ToolTodoWrite = "todo_write"
	ToolAgent     = "agent"
)

// Options of Import.
type Options = importer.FileOptions

// Import imports a Qwen Code session file into session o.ID incrementally
// (importer.Run).
func Import(o Options) (*importer.Summary, error) {
	return importer.RunFile(o, NewMapper(Config{KeepThinking: o.KeepThinking}))
}

// Config shapes a Mapper.
type Config struct {
	// KeepThinking keeps thought parts as assistant/message events with
	// source.name "thinking"; by default they are dropped and counted.
	KeepThinking bool
}

// Mapper maps the records of a Qwen Code session file to session events
// (doc.go). It implements importer.Mapper.
type Mapper struct {
	cfg  Config
	open map[string]openCall
	// version is the Qwen Code version of the last record that named one;
	// told, the shapes not known here an import reported already
	// (importer.NoteUnknown).
	version string
	told    []string
	// command is the slash_command result whose child user record is the
	// text of a command the person typed (commandSent), nil when none.
	command *sentCommand
	// cancelled are the ids of the last calls a ui_telemetry event
	// closed (noteCancel), newest last.
	cancelled []string
	// dec reads records on the fast path (fast.go).
	dec logscan.Decoder
}

// openCall is a functionCall still waiting for its functionResponse.
type openCall struct {
	Name  string `json:"name"`
	Agent string `json:"agent,omitempty"`
	// Args is argsSum of its args: what a ui_telemetry event that names
	// no call id names it by (noteCancel).
	Args string `json:"args,omitempty"`
}

// NewMapper returns a Mapper with no open tool calls.
func NewMapper(cfg Config) *Mapper { return &Mapper{cfg: cfg, open: map[string]openCall{}} }

// Format implements importer.Mapper.
func (m *Mapper) Format() string { return Format }

// Settings implements importer.Mapper.
func (m *Mapper) Settings() map[string]string {
	return map[string]string{"keepThinking": strconv.FormatBool(m.cfg.KeepThinking)}
}

type mapperState struct {
	OpenCalls map[string]openCall `json:"openCalls,omitempty"`
	Version   string              `json:"version,omitempty"`
	Told      []string            `json:"told,omitempty"`
	Command   *sentCommand        `json:"command,omitempty"`
	Cancelled []string            `json:"cancelled,omitempty"`
}

// sentCommand is a slash_command whose text the host sends the model as
// the next user record: the result record's uuid (that record's
// parentUuid), its timestamp, and whether the invocation said so
// (sentToModel, Qwen Code 0.24) or the empty output implies it (Qwen Code
// 0.5, which wrote no sentToModel).
type sentCommand struct {
	Result string `json:"result"`
	TS     string `json:"ts,omitempty"`
	Said   bool   `json:"said,omitempty"`
}

// SaveState implements importer.Mapper: the tool calls without a result,
// the host version last seen and the unknown shapes reported.
func (m *Mapper) SaveState() (json.RawMessage, error) {
	return json.Marshal(mapperState{OpenCalls: m.open, Version: m.version, Told: m.told, Command: m.command, Cancelled: m.cancelled})
}

// LoadState implements importer.Mapper.
func (m *Mapper) LoadState(raw json.RawMessage) error {
	m.open = map[string]openCall{}
	m.version, m.told, m.command, m.cancelled = "", nil, nil, nil
	if len(raw) == 0 {
		return nil
	}
	var st mapperState
	if err := json.Unmarshal(raw, &st); err != nil {
		return err
	}
	for id, c := range st.OpenCalls {
		m.open[id] = c
	}
	m.version, m.told, m.command, m.cancelled = st.Version, st.Told, st.Command, st.Cancelled
	return nil
}

// record is the part of a session record the mapping reads.
type record struct {
	UUID           string          `json:"uuid"`
	ParentUUID     string          `json:"parentUuid"`
	Type           string          `json:"type"`
	Subtype        string          `json:"subtype"`
	Provenance     *string         `json:"provenance"`
	Timestamp      string          `json:"timestamp"`
	Cwd            string          `json:"cwd"`
	Version        string          `json:"version"`
	Model          string          `json:"model"`
	Entrypoint     string          `json:"entrypoint"`
	Message        *content        `json:"message"`
	SystemPayload  json.RawMessage `json:"systemPayload"`
	ToolCallResult *struct {
		CallID string `json:"callId"`
		Status string `json:"status"`
	} `json:"toolCallResult"`
}

// content is a Gemini-style Content: a role and its parts.
type content struct {
	Role  string `json:"role"`
	Parts []part `json:"parts"`
}

type part struct {
	Text             *string         `json:"text"`
	Thought          bool            `json:"thought"`
	FunctionCall     *functionCall   `json:"functionCall"`
	FunctionResponse *functionResult `json:"functionResponse"`
	InlineData       json.RawMessage `json:"inlineData"`
	FileData         json.RawMessage `json:"fileData"`
}

type functionCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type functionResult struct {
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
}

// Record types and subtypes (doc.go).
const (
	typeUser       = "user"
	typeAssistant  = "assistant"
	typeToolResult = "tool_result"
	typeSystem     = "system"

	provenanceRealUser = "real_user"

	subtypeCompression = "chat_compression"
	subtypeSlash       = "slash_command"
	subtypeMidTurn     = "mid_turn_user_message"
	subtypeRealtime    = "realtime_message"
)

// skippedSystem are system subtypes that are bookkeeping: counted, not
// imported (telemetry, attribution and undo snapshots, artifacts, the
// resume picker's text index, branch markers).
var skippedSystem = []string{
	"ui_telemetry", "attribution_snapshot", "file_history_snapshot", "branch_checkpoint",
	"session_artifact_event", "session_artifact_snapshot", "session_sources_snapshot",
	"user_text_elements", "turn_result", "omni_recall",
}

// keptSystem are system subtypes kept as system/event named after them.
var keptSystem = []string{
	"custom_title", "session_source", "session_model", "parent_session", "rewind",
	"goal_state", "goal_turn_end", "background_task_completed", "at_command", subtypeSlash, subtypeCompression,
}

// injectedUser are user subtypes the host writes on the user's side:
// never the person's words.
var injectedUser = []string{"notification", "cron", "goal_runtime", "background_task_completed"}

// userPromptSubmitContext opens the text part Qwen Code appends to a
// prompt with a UserPromptSubmit hook's additionalContext.
const userPromptSubmitContext = "<qwen:user-prompt-submit-context>"

// Map implements importer.Mapper.
func (m *Mapper) Map(l importer.Line, out *importer.Output) error {
	defer m.dec.Release()
	var r record
	if !fastRecord(&m.dec, l.Bytes, &r) {
		r = record{}
		if err := json.Unmarshal(l.Bytes, &r); err != nil {
			out.Malformed(err)
			return nil
		}
	}
	if r.Type == "" {
		out.Malformed(errors.New(`not a Qwen Code record: no "type"`))
		return nil
	}
	out.SourceUUID(r.UUID)
	if r.Version != "" && r.Version != "unknown" {
		m.version = r.Version
	}
	if m.command != nil && r.Type != typeUser && (r.Type != typeSystem || r.Subtype != subtypeSlash && !slices.Contains(skippedSystem, r.Subtype)) {
		m.command = nil // the command's text comes next or not at all
	}
	switch r.Type {
	case typeUser:
		m.user(&r, out)
	case typeAssistant:
		m.assistant(&r, out)
	case typeToolResult:
		m.toolResult(&r, out)
	case typeSystem:
		m.system(&r, out)
	default:
		ev := m.event(&r, session.TypeSystem, system("unknown"))
		ev.Text = fmt.Sprintf("unknown %s record type %q", HostName, r.Type)
		ev.Meta["lineType"] = r.Type
		out.Emit(ev)
		m.told = importer.NoteUnknown(out, m.told, HostName, m.version, "record type", r.Type)
	}
	return nil
}

func system(name string) session.Source { return session.Source{Kind: session.KindSystem, Name: name} }

// event starts an event with the record's time and provenance.
func (m *Mapper) event(r *record, typ string, src session.Source) session.Event {
	ev := session.Event{Type: typ, Source: src, Meta: map[string]string{}}
	if ts, ok := importer.Timestamp(r.Timestamp); ok {
		ev.TS = ts
	} else if r.Timestamp != "" {
		ev.Meta["timestamp"] = r.Timestamp
	}
	if r.UUID != "" {
		ev.Meta["uuid"] = r.UUID
	}
	if r.Subtype != "" {
		ev.Meta["subtype"] = r.Subtype
	}
	return ev
}

// texts are the text parts of c (thoughts left out), and a note of the
// media parts; a part of a shape not known here is reported once.
func (m *Mapper) texts(c *content, out *importer.Output) (texts []string, media int) {
	for _, p := range c.Parts {
		switch {
		case p.Text != nil && !p.Thought:
			texts = append(texts, *p.Text)
		case p.Text != nil:
		case len(p.InlineData) > 0, len(p.FileData) > 0:
			media++
		case p.FunctionCall != nil, p.FunctionResponse != nil:
		default:
			m.told = importer.NoteUnknown(out, m.told, HostName, m.version, "message part", "(no text, functionCall, functionResponse, inlineData or fileData)")
		}
	}
	return texts, media
}

// promptPayload is a user record's systemPayload: what the person typed
// and a UserPromptSubmit hook's context.
type promptPayload struct {
	DisplayText *string `json:"displayText"`
	HookContext string  `json:"hookContext"`
	RawCommand  string  `json:"rawCommand"`
	Phase       string  `json:"phase"`
	// SentToModel: the command sends the model a prompt (slash_command
	// invocation, Qwen Code 0.24; absent in 0.5).
	SentToModel *bool `json:"sentToModel"`
	// OutputHistoryItems: what the command printed (slash_command result).
	OutputHistoryItems []json.RawMessage `json:"outputHistoryItems"`
}

// commandTextWithin is how soon after a slash_command result with no
// output a user record, its child, is the command's text when the
// invocation did not say it sent one (Qwen Code 0.5: written in the same
// tenth of a second; a person types no prompt that fast).
const commandTextWithin = 2 * time.Second

// commandSent reports whether the user record r is the text of the
// command the result m.command names (its child) and forgets that result:
// the host wrote it, the person typed the command.
func (m *Mapper) commandSent(r *record) bool {
	c := m.command
	m.command = nil
	if c == nil || r.ParentUUID == "" || r.ParentUUID != c.Result {
		return false
	}
	if c.Said {
		return true
	}
	t0, err0 := time.Parse(time.RFC3339Nano, c.TS)
	t1, err1 := time.Parse(time.RFC3339Nano, r.Timestamp)
	return err0 == nil && err1 == nil && t1.Sub(t0) >= 0 && t1.Sub(t0) < commandTextWithin
}

func (m *Mapper) user(r *record, out *importer.Output) {
	if r.Message == nil {
		out.Malformed(errors.New("user record without message"))
		return
	}
	texts, media := m.texts(r.Message, out)
	for _, p := range r.Message.Parts {
		if p.FunctionResponse != nil {
			// A tool result in a user record (a mid-turn message sent with
			// the results): the result is the tool's.
			m.functionResponse(r, p.FunctionResponse, out)
		}
	}
	var hook []string
	kept := texts[:0:0]
	for _, t := range texts {
		if strings.HasPrefix(strings.TrimSpace(t), userPromptSubmitContext) {
			hook = append(hook, t)
			continue
		}
		kept = append(kept, t)
	}
	text := strings.Join(kept, "\n\n")
	var pl promptPayload
	if len(r.SystemPayload) > 0 && r.SystemPayload[0] == '{' {
		if err := json.Unmarshal(r.SystemPayload, &pl); err != nil {
			out.Warn("user record %s: systemPayload does not decode (%v); its text is the message's", r.UUID, err)
		}
	}
	sent := m.commandSent(r)
	src := m.userSource(r, out)
	if sent && src.Kind == session.KindUser && r.Subtype == "" && pl.DisplayText == nil {
		// The text of the command the person typed (its file's words,
		// arguments filled in), as Claude Code's and Codex's.
		src = session.Source{Kind: session.KindSkill, Name: "command"}
	}
	if src.Kind == session.KindUser && pl.DisplayText != nil && strings.TrimSpace(*pl.DisplayText) != "" {
		// What the person typed, without what the host expanded it into.
		text = *pl.DisplayText
	}
	if media > 0 {
		text = strings.TrimSpace(text + fmt.Sprintf("\n\n[%d attachment(s)]", media))
	}
	if src.Kind == session.KindUser {
		switch t := strings.TrimSpace(text); {
		case strings.HasPrefix(t, "<system-reminder>"):
			src = system("system-reminder")
		case strings.HasPrefix(t, "<qwen:"):
			src = system("host-context")
		}
	}
	if strings.TrimSpace(text) == "" {
		if len(hook) == 0 {
			out.Skip("empty user message")
		}
	} else {
		ev := m.event(r, session.TypeUserMessage, src)
		ev.Text = text
		if src.Kind == session.KindUser && r.Cwd != "" {
			// Where the person works: the tape names files relative to it.
			ev.Meta["cwd"] = r.Cwd
		}
		out.Emit(ev)
	}
	if len(hook) > 0 {
		ev := m.event(r, session.TypeUserMessage, system("hook"))
		ev.Text = strings.Join(hook, "\n\n")
		out.Emit(ev)
	}
}

// userSource decides who a user record is from (doc.go, "who said it").
func (m *Mapper) userSource(r *record, out *importer.Output) session.Source {
	if r.Entrypoint == Entrypoint {
		// An export's tape (hosts/qwen): graft's, never the person's.
		return session.Source{Kind: session.KindPlugin, Name: "graft"}
	}
	prov := provenanceRealUser
	if r.Provenance != nil {
		prov = *r.Provenance
	}
	if prov != provenanceRealUser {
		return system(prov)
	}
	switch {
	case r.Subtype == "":
		return session.Source{Kind: session.KindUser}
	case r.Subtype == subtypeMidTurn:
		return session.Source{Kind: session.KindUser, Name: "mid-turn"}
	case r.Subtype == subtypeRealtime:
		return session.Source{Kind: session.KindUser, Name: "realtime"}
	case slices.Contains(injectedUser, r.Subtype):
		return system(r.Subtype)
	}
	m.told = importer.NoteUnknown(out, m.told, HostName, m.version, "user record subtype", r.Subtype)
	return system(r.Subtype)
}

func (m *Mapper) assistant(r *record, out *importer.Output) {
	if r.Message == nil {
		out.Skip("assistant record without message")
		return
	}
	for _, p := range r.Message.Parts {
		switch {
		case p.Text != nil && p.Thought:
			if !m.cfg.KeepThinking || strings.TrimSpace(*p.Text) == "" {
				out.Skip("thinking")
				continue
			}
			ev := m.event(r, session.TypeAssistantMessage, session.Source{Kind: session.KindAssistant, Name: importer.ThinkingName})
			ev.Text = *p.Text
			out.Emit(ev)
		case p.Text != nil:
			if strings.TrimSpace(*p.Text) == "" {
				out.Skip("empty assistant text")
				continue
			}
			ev := m.event(r, session.TypeAssistantMessage, session.Source{Kind: session.KindAssistant})
			ev.Text = *p.Text
			if r.Model != "" {
				ev.Meta["model"] = r.Model
			}
			out.Emit(ev)
		case p.FunctionCall != nil:
			m.functionCall(r, p.FunctionCall, out)
		case len(p.InlineData) > 0, len(p.FileData) > 0:
			out.Skip("assistant media")
		default:
			m.told = importer.NoteUnknown(out, m.told, HostName, m.version, "message part", "(no text, functionCall, functionResponse, inlineData or fileData)")
		}
	}
}

func (m *Mapper) functionCall(r *record, c *functionCall, out *importer.Output) {
	if c.Name == "" {
		out.Skip("functionCall without a name")
		out.Warn("functionCall %q has no name; not imported", c.ID)
		return
	}
	input := c.Args
	if len(bytes.TrimSpace(input)) == 0 {
		input = json.RawMessage("{}")
	}
	call := openCall{Name: c.Name, Args: argsSum(input)}
	if c.Name == ToolAgent {
		var in struct {
			SubagentType string `json:"subagent_type"`
			Description  string `json:"description"`
		}
		if err := json.Unmarshal(input, &in); err != nil {
			out.Warn("%s %q input does not decode (%v); its report will name no agent", c.Name, c.ID, err)
		}
		call.Agent = in.SubagentType
		if call.Agent == "" {
			call.Agent = in.Description
		}
	}
	if c.ID != "" {
		m.open[c.ID] = call
	}
	ev := m.event(r, session.TypeToolCall, session.Source{Kind: session.KindAssistant})
	ev.Tool = &session.Tool{Name: c.Name, CallID: c.ID, Input: input}
	out.Emit(ev)
	if c.Name == ToolTodoWrite {
		m.todoWrite(r, c.ID, input, out)
	}
}

func (m *Mapper) todoWrite(r *record, id string, input json.RawMessage, out *importer.Output) {
	todos, ok := importer.TodoList(ToolTodoWrite, id, input, out)
	if !ok {
		return
	}
	ev := m.event(r, session.TypeTodoWrite, session.Source{Kind: session.KindAssistant})
	ev.Todos = todos
	ev.Meta["callId"] = id
	out.Emit(ev)
}

func (m *Mapper) toolResult(r *record, out *importer.Output) {
	if r.Message == nil {
		out.Malformed(errors.New("tool_result record without message"))
		return
	}
	n := 0
	for _, p := range r.Message.Parts {
		if p.FunctionResponse != nil {
			m.functionResponse(r, p.FunctionResponse, out)
			n++
		}
	}
	texts, _ := m.texts(r.Message, out)
	if t := strings.TrimSpace(strings.Join(texts, "\n\n")); t != "" {
		// Text beside the results is the host's, never the person's.
		ev := m.event(r, session.TypeUserMessage, system("tool-result-text"))
		ev.Text = t
		out.Emit(ev)
	} else if n == 0 {
		out.Skip("tool_result without functionResponse")
	}
}

func (m *Mapper) functionResponse(r *record, fr *functionResult, out *importer.Output) {
	call, found := m.open[fr.ID]
	name := call.Name
	if !found && slices.Contains(m.cancelled, fr.ID) {
		out.Skip("result of a call its ui_telemetry event closed")
		return
	}
	if !found {
		name = fr.Name
		if name == "" {
			name = "unknown"
		}
		out.Warn("functionResponse %q has no functionCall before it; imported with tool name %q", fr.ID, name)
	}
	delete(m.open, fr.ID)
	output, failed := m.responseOutput(fr.Response)
	ok := !failed
	status := ""
	if tr := r.ToolCallResult; tr != nil && tr.Status != "" && (tr.CallID == "" || tr.CallID == fr.ID) {
		ok = tr.Status == "success"
		status = tr.Status
	}
	ev := m.event(r, session.TypeToolResult, session.Source{Kind: session.KindTool})
	ev.Tool = &session.Tool{Name: name, CallID: fr.ID, OK: &ok, Output: output}
	if status == "cancelled" {
		// The person turned it down at the confirmation prompt: it did
		// not run. Otherwise they stopped it, before or while it ran.
		ev.Meta[session.MetaDeclined] = session.DeclinedStopped
		if strings.Contains(output, deniedReason) {
			ev.Meta[session.MetaDeclined] = session.DeclinedByUser
		}
	}
	if ok && name == toolExitPlanMode {
		// The verdict on the plan is in the text of a successful result.
		switch v := planVerdict(output); v {
		case "":
		case "failed":
			ok = false
		default:
			ok = false
			ev.Meta[session.MetaDeclined] = v
		}
	}
	out.Emit(ev)
	if found && ok && name == ToolAgent && strings.TrimSpace(output) != "" {
		rep := m.event(r, session.TypeSubagentReport, session.Source{Kind: session.KindSubagent, Name: name})
		rep.Agent = call.Agent
		rep.Text = strings.TrimSpace(output)
		rep.Meta["callId"] = fr.ID
		out.Emit(rep)
	}
}

// toolExitPlanMode is the tool with which the agent asks the person to
// approve its plan and leave plan mode.
const toolExitPlanMode = "exit_plan_mode"

// planVerdict is what a successful exit_plan_mode result says of the plan
// (Qwen Code 0.24.4's texts): "" approved ("User approved.", or in
// agent-team mode "Leader approved."), session.DeclinedByUser not
// approved, session.DeclinedStopped the exit stopped, "failed" anything
// else (an approval gone stale: no action was taken).
func planVerdict(out string) string {
	switch {
	case strings.HasPrefix(out, "User approved."), strings.HasPrefix(out, "Leader approved."):
		return ""
	case strings.HasPrefix(out, "Plan execution was not approved."):
		return session.DeclinedByUser
	case strings.HasPrefix(out, "Plan exit was cancelled."):
		return session.DeclinedStopped
	}
	return "failed"
}

// deniedReason is the reason Qwen Code cancels a call with when the person
// turned it down at its confirmation prompt, in "[Operation Cancelled]
// Reason: <reason>" (the real 0.24.4 wrote it:
// hosts' TestQwenDeclinedCommandIsNoFailure).
const deniedReason = "Reason: User did not allow tool call"

// responseOutput is responseOutput(raw), read on the fast path when it
// can be.
func (m *Mapper) responseOutput(raw json.RawMessage) (output string, failed bool) {
	var out, errv json.RawMessage
	if !fastOutputError(&m.dec, raw, &out, &errv) {
		return responseOutput(raw)
	}
	str := func(v json.RawMessage) string {
		if s, ok := m.dec.WholeString(v); ok {
			return s
		}
		var s string
		if json.Unmarshal(v, &s) == nil {
			return s
		}
		return string(v)
	}
	switch {
	case len(errv) > 0 && string(errv) != "null":
		return str(errv), true
	case len(out) > 0:
		return str(out), false
	}
	return string(raw), false
}

// responseOutput is a functionResponse's text: response.output, else
// response.error (failed), else the response's JSON.
func responseOutput(raw json.RawMessage) (output string, failed bool) {
	var resp struct {
		Output json.RawMessage `json:"output"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(raw, &resp) != nil {
		return string(raw), false
	}
	str := func(v json.RawMessage) string {
		var s string
		if json.Unmarshal(v, &s) == nil {
			return s
		}
		return string(v)
	}
	switch {
	case len(resp.Error) > 0 && string(resp.Error) != "null":
		return str(resp.Error), true
	case len(resp.Output) > 0:
		return str(resp.Output), false
	}
	return string(raw), false
}

// compression is a chat_compression record's systemPayload.
type compression struct {
	Info *struct {
		OriginalTokenCount int64  `json:"originalTokenCount"`
		NewTokenCount      int64  `json:"newTokenCount"`
		TriggerReason      string `json:"triggerReason"`
	} `json:"info"`
	CompressedHistory []content `json:"compressedHistory"`
}

// snapshotOpen and snapshotClose wrap the summary Qwen Code's model writes
// when it compresses the chat.
const (
	snapshotOpen  = "<state_snapshot>"
	snapshotClose = "</state_snapshot>"
)

func (m *Mapper) system(r *record, out *importer.Output) {
	name := r.Subtype
	if name == "" {
		name = "system"
	}
	if slices.Contains(skippedSystem, r.Subtype) {
		if r.Subtype == subtypeTelemetry {
			m.noteCancel(r, out)
		}
		out.Skip("system " + r.Subtype)
		return
	}
	if !slices.Contains(keptSystem, r.Subtype) {
		m.told = importer.NoteUnknown(out, m.told, HostName, m.version, "system record subtype", name)
	}
	ev := m.event(r, session.TypeSystem, system(name))
	ev.Text = name
	switch r.Subtype {
	case subtypeSlash:
		var pl promptPayload
		if err := json.Unmarshal(r.SystemPayload, &pl); err != nil {
			out.Warn("slash_command record %s: systemPayload does not decode (%v)", r.UUID, err)
		}
		if pl.RawCommand != "" {
			ev.Text = importer.Clip(pl.RawCommand, 200)
		}
		if pl.Phase != "" {
			ev.Meta["phase"] = pl.Phase
		}
		m.noteCommand(r, pl)
		out.Emit(ev)
		if pl.Phase == "invocation" && strings.HasPrefix(strings.TrimSpace(pl.RawCommand), "/") {
			// The person typed the command.
			h := m.event(r, session.TypeUserMessage, session.Source{Kind: session.KindUser, Name: "slash-command"})
			h.Text = strings.TrimSpace(pl.RawCommand)
			if r.Cwd != "" {
				h.Meta["cwd"] = r.Cwd
			}
			out.Emit(h)
		}
		return
	case subtypeCompression:
		m.compression(r, ev, out)
		return
	case subtypeGoalState:
		var pl goalState
		if err := json.Unmarshal(r.SystemPayload, &pl); err != nil || pl.Snapshot == nil {
			out.Warn("goal_state record %s: systemPayload does not decode as a goal's state; no goal status", r.UUID)
			break
		}
		if g := pl.Snapshot.Goal; g != nil && g.Status != "" {
			importer.SetGoal(&ev, g.Status, g.Objective, g.LastReason)
			ev.Text = "goal " + ev.Meta[session.MetaGoalStatus] + ": " + importer.Clip(g.Objective, 200)
		} else if g == nil {
			importer.SetGoal(&ev, session.GoalCleared, "", "")
			ev.Text = "goal cleared"
		}
	}
	out.Emit(ev)
}

// subtypeGoalState is the system record Qwen Code 0.24 writes of its /goal
// (one per change and per goal turn; it restores the goal from the last on
// resume): systemPayload {v, cause, snapshot: {v, goal: {objective,
// status, …} or null once cleared, activity}}.
const subtypeGoalState = "goal_state"

type goalState struct {
	Snapshot *struct {
		Goal *struct {
			Objective  string `json:"objective"`
			Status     string `json:"status"`
			LastReason string `json:"lastReason"`
		} `json:"goal"`
	} `json:"snapshot"`
}

// compression emits the compaction boundary (system/event) and the
// host's summary: the <state_snapshot> its model wrote, which Qwen Code
// puts first in the compressed history (user/message kind system, name
// "compact-summary", what the tape's Host Summary reads).
func (m *Mapper) compression(r *record, ev session.Event, out *importer.Output) {
	var pl compression
	if err := json.Unmarshal(r.SystemPayload, &pl); err != nil {
		out.Warn("chat_compression record %s: systemPayload does not decode (%v); no host summary", r.UUID, err)
		out.Emit(ev)
		return
	}
	if in := pl.Info; in != nil {
		if in.TriggerReason != "" {
			ev.Meta["trigger"] = in.TriggerReason
		}
		if in.OriginalTokenCount > 0 {
			ev.Meta["preTokens"] = strconv.FormatInt(in.OriginalTokenCount, 10)
		}
		if in.NewTokenCount > 0 {
			ev.Meta["postTokens"] = strconv.FormatInt(in.NewTokenCount, 10)
		}
	}
	out.Emit(ev)
	summary := ""
	for _, c := range pl.CompressedHistory {
		for _, p := range c.Parts {
			if p.Text == nil {
				continue
			}
			t := strings.TrimSpace(*p.Text)
			if i := strings.Index(t, snapshotOpen); i >= 0 && summary == "" {
				t = t[i:]
				if j := strings.Index(t, snapshotClose); j >= 0 {
					t = t[:j+len(snapshotClose)]
				}
				summary = t
			}
		}
	}
	if summary == "" {
		out.Warn("chat_compression record %s holds no %s; no host summary", r.UUID, snapshotOpen)
		return
	}
	s := m.event(r, session.TypeUserMessage, system("compact-summary"))
	s.Text = summary
	out.Emit(s)
}

// noteCommand keeps the slash_command record r for commandSent: an
// invocation that did not say it sent nothing (sentToModel false: a
// built-in command such as /model) arms it, and its result, with nothing
// printed or said sent, names the record its text's user record follows.
func (m *Mapper) noteCommand(r *record, pl promptPayload) {
	switch pl.Phase {
	case "invocation":
		m.command = nil
		if pl.SentToModel == nil || *pl.SentToModel {
			m.command = &sentCommand{Said: pl.SentToModel != nil}
		}
	case "result":
		if c := m.command; c != nil && c.Result == "" && (c.Said || len(pl.OutputHistoryItems) == 0) {
			c.Result, c.TS = r.UUID, r.Timestamp
			return
		}
		m.command = nil
	}
}

// subtypeTelemetry is the system record of Qwen Code's UI events (an API
// response, a tool call's end): bookkeeping, skipped, but for noteCancel.
const subtypeTelemetry = "ui_telemetry"

// canceledByUser is the error of a tool_call event whose call the person
// cancelled in Qwen Code 0.13: `Tool "<name>" was canceled by the user.`
const canceledByUser = " was canceled by the user."

// keptCancelled bounds the ids noteCancel remembers.
const keptCancelled = 16

// noteCancel imports the call a ui_telemetry tool_call event says the
// person cancelled as a failed result they stopped (it may have run in
// part: the event does not say whether they declined it at the prompt),
// for Qwen Code 0.13.0, which wrote no tool_result for such a call (a
// real session: 12 cancelled calls, none with a result, each event
// written when the person's next message or the model's next call
// came): status "error", error `Tool "<name>" was canceled by the user.`,
// no call id; the call is the open one of that name whose args are the
// event's function_args. Qwen Code 0.24.4 says status "cancelled" and
// writes the result itself: no event of it is read. A result that comes
// after all is skipped and counted.
func (m *Mapper) noteCancel(r *record, out *importer.Output) {
	if !bytes.Contains(r.SystemPayload, []byte(canceledByUser)) {
		return // the fast way past nearly every event
	}
	var pl struct {
		UIEvent struct {
			Name     string          `json:"event.name"`
			Function string          `json:"function_name"`
			Args     json.RawMessage `json:"function_args"`
			CallID   string          `json:"call_id"`
			Status   string          `json:"status"`
			Error    string          `json:"error"`
		} `json:"uiEvent"`
	}
	if json.Unmarshal(r.SystemPayload, &pl) != nil {
		return
	}
	e := pl.UIEvent
	if e.Name != "qwen-code.tool_call" || e.Status != "error" || e.Error != `Tool "`+e.Function+`"`+canceledByUser {
		return
	}
	id := e.CallID
	if id == "" {
		sum := argsSum(e.Args)
		var ids []string
		for cid, c := range m.open {
			if c.Name == e.Function && c.Args == sum {
				ids = append(ids, cid)
			}
		}
		if len(ids) == 0 {
			return
		}
		slices.Sort(ids) // the same call twice: either is it
		id = ids[0]
	}
	call, open := m.open[id]
	if !open {
		return
	}
	delete(m.open, id)
	ok := false
	ev := m.event(r, session.TypeToolResult, session.Source{Kind: session.KindTool})
	ev.Tool = &session.Tool{Name: call.Name, CallID: id, OK: &ok, Output: e.Error}
	ev.Meta[session.MetaDeclined] = session.DeclinedStopped
	out.Emit(ev)
	m.cancelled = append(m.cancelled, id)
	if len(m.cancelled) > keptCancelled {
		m.cancelled = slices.Clone(m.cancelled[len(m.cancelled)-keptCancelled:])
	}
}

// argsSum is a digest of a call's args, as compact JSON: a call and its
// ui_telemetry event hold the same object.
func argsSum(args json.RawMessage) string {
	var b bytes.Buffer
	if len(args) == 0 || json.Compact(&b, args) != nil {
		return ""
	}
	h := fnv.New64a()
	h.Write(b.Bytes())
	return strconv.FormatUint(h.Sum64(), 36)
}
