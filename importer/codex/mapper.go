package codex

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/session/logscan"
)

// Format is the importer format name of Codex rollouts.
const Format = "codex"

// Config shapes a Mapper.
type Config struct {
	// KeepThinking keeps reasoning summaries as assistant/message events with
	// source.name "thinking"; by default they are dropped and counted.
	KeepThinking bool
}

// Mapper maps Codex rollout lines to session events (doc.go).
type Mapper struct {
	cfg Config
	// open maps the call_id of a tool call without output to the tool name
	// it was imported with (outputs carry only the call_id).
	open map[string]string
	// twins: the rollout has shown a twin (doc.go, "Who wrote a user
	// message"), so a user message without one is injected.
	twins bool
	// held is a user message waiting for the next line to tell whether its
	// twin follows; twinAhead, a twin that came with no message held, for
	// the user message that comes next.
	held      *heldMessage
	twinAhead bool
	// pending are user messages held before held, in a row with no line
	// between them that decides (a rollout may write several before the
	// human's and its twin).
	pending []heldMessage
	// shown are assistant messages Codex's UI recorded (event_msg
	// agent_message) whose response_item has not come yet; answered,
	// the assistant response_items since the last deciding line whose
	// event_msg has not come yet (a rollout that writes the record first).
	// doc.go, "One record per message".
	shown    []shownMessage
	answered int
	// version is the cli_version of the rollout's session_meta; told, the
	// shapes not known here an import reported already
	// (importer.NoteUnknown).
	version string
	told    []string
	// execCalls maps the call_id of an exec_command without output to its
	// command; execs are the commands it left running, by session ID,
	// the newest keptExecs: a write_stdin to one names it (meta
	// execCommand).
	execCalls map[string]string
	execs     []execSession
	// cells are the code-mode calls without output (doc.go, "Code
	// mode"), by call_id; running, the cells a script still runs in
	// (execSession by cell ID, its command), the newest keptExecs; exits,
	// how the newest keptExecs commands unified exec ran ended.
	cells   map[string]cellCall
	running []execSession
	exits   []cmdExit
	// settings are the turn settings last imported: a turn_context that
	// changes none of them is skipped.
	settings turnSettings
	// dec reads lines on the fast path (fast.go); item is the payload
	// item of the line Map reads, decoded once for classify and
	// responseItem (itemOf).
	dec  logscan.Decoder
	item *decodedItem
	// evf is the event_msg payload of the line Map reads as the fast path
	// read it, once for classify, shownKind and eventMsg (fastEventOf).
	evf *decodedEvent
}

// decodedEvent is an event_msg payload as fastEvent read it; ok false: the
// fast path did not read it, and each reader falls back on json.Unmarshal
// into its own struct.
type decodedEvent struct {
	ef eventFields
	ok bool
}

// fastEventOf is fastEvent of the line's payload, read once a line.
func (m *Mapper) fastEventOf(payload json.RawMessage) (eventFields, bool) {
	if m.evf == nil {
		var d decodedEvent
		d.ok = fastEvent(&m.dec, payload, &d.ef)
		m.evf = &d
	}
	return m.evf.ef, m.evf.ok
}

// decodedItem is a response_item payload as json.Unmarshal read it.
type decodedItem struct {
	it  item
	err error
}

// heldMessage is a response_item user message not yet emitted.
type heldMessage struct {
	Line      int      `json:"line"`
	Timestamp string   `json:"timestamp,omitempty"`
	Texts     []string `json:"texts"`
}

// shownMessage is an event_msg agent_message waiting for its response_item.
type shownMessage struct {
	Line      int    `json:"line"`
	Timestamp string `json:"timestamp,omitempty"`
	Text      string `json:"text"`
	// Plan: shown in Plan mode (markProposedPlan), as the settings said
	// when it was held; they may change before it is emitted.
	Plan bool `json:"plan,omitempty"`
}

// NewMapper returns a Mapper with no open tool calls.
func NewMapper(cfg Config) *Mapper { return &Mapper{cfg: cfg, open: map[string]string{}} }

// Format implements importer.Mapper.
func (m *Mapper) Format() string { return Format }

// Settings implements importer.Mapper.
func (m *Mapper) Settings() map[string]string {
	return map[string]string{"keepThinking": strconv.FormatBool(m.cfg.KeepThinking)}
}

type mapperState struct {
	OpenCalls map[string]string   `json:"openCalls,omitempty"`
	Twins     bool                `json:"twins,omitempty"`
	Held      *heldMessage        `json:"held,omitempty"`
	TwinAhead bool                `json:"twinAhead,omitempty"`
	Pending   []heldMessage       `json:"pending,omitempty"`
	Version   string              `json:"version,omitempty"`
	Told      []string            `json:"told,omitempty"`
	ExecCalls map[string]string   `json:"execCalls,omitempty"`
	Execs     []execSession       `json:"execs,omitempty"`
	Settings  turnSettings        `json:"settings,omitzero"`
	Cells     map[string]cellCall `json:"cells,omitempty"`
	Running   []execSession       `json:"running,omitempty"`
	Exits     []cmdExit           `json:"exits,omitempty"`
	Shown     []shownMessage      `json:"shown,omitempty"`
	Answered  int                 `json:"answered,omitempty"`
}

// execSession is a command unified exec left running.
type execSession struct {
	ID      string `json:"id"`
	Command string `json:"command"`
	// Session: of a code-mode cell (running), the unified-exec session
	// its script polls when its command is not known.
	Session string `json:"session,omitempty"`
}

// keptExecs bounds the running commands a Mapper remembers, and
// maxExecCommand what it keeps of each (meta execCommand of every poll):
// a here-document of many KB is named by its head.
const (
	keptExecs      = 64
	maxExecCommand = 500
)

// SaveState implements importer.Mapper: the tool calls without output,
// whether the rollout has shown a twin, and a user message still held.
func (m *Mapper) SaveState() (json.RawMessage, error) {
	return json.Marshal(mapperState{OpenCalls: m.open, Twins: m.twins, Held: m.held, TwinAhead: m.twinAhead, Pending: m.pending, Version: m.version, Told: m.told, ExecCalls: m.execCalls, Execs: m.execs, Settings: m.settings, Cells: m.cells, Running: m.running, Exits: m.exits, Shown: m.shown, Answered: m.answered})
}

// Held implements importer.Holder: the user message and the assistant
// messages that wait for the next lines of the rollout.
func (m *Mapper) Held() string {
	var said []string
	switch {
	case m.held != nil && len(m.pending) > 0:
		said = append(said, fmt.Sprintf("lines %d-%d: %d user messages wait for the next line of the rollout to tell whether the human wrote the last (its twin); they are imported then", m.pending[0].Line, m.held.Line, len(m.pending)+1))
	case m.held != nil:
		said = append(said, fmt.Sprintf("line %d: a user message waits for the next line of the rollout to tell whether the human wrote it (its twin); it is imported then", m.held.Line))
	}
	if len(m.shown) > 0 {
		said = append(said, fmt.Sprintf("line %d: an assistant message Codex showed waits for its response_item; it is imported from that record, or from this line when the turn ends without one", m.shown[0].Line))
	}
	return strings.Join(said, "; ")
}

// LoadState implements importer.Mapper.
func (m *Mapper) LoadState(raw json.RawMessage) error {
	m.open = map[string]string{}
	m.version, m.told = "", nil
	m.execCalls, m.execs, m.settings = nil, nil, turnSettings{}
	m.cells, m.running, m.exits = nil, nil, nil
	m.shown, m.answered = nil, 0
	if len(raw) == 0 {
		return nil
	}
	var st mapperState
	if err := json.Unmarshal(raw, &st); err != nil {
		return err
	}
	for id, name := range st.OpenCalls {
		m.open[id] = name
	}
	m.twins, m.held, m.twinAhead, m.pending = st.Twins, st.Held, st.TwinAhead, st.Pending
	m.shown, m.answered = st.Shown, st.Answered
	m.version, m.told = st.Version, st.Told
	m.execCalls, m.execs = st.ExecCalls, st.Execs
	m.settings = st.Settings
	m.cells, m.running, m.exits = st.Cells, st.Running, st.Exits
	return nil
}

// rolloutLine is RolloutLine: {"timestamp", "type", "payload"}.
type rolloutLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

// responseItemTypes are the ResponseItem variants; a line of one of these
// types without a payload is a bare item from a rollout written before the
// RolloutLine envelope.
var responseItemTypes = map[string]bool{
	"message": true, "reasoning": true, "local_shell_call": true, "function_call": true,
	"function_call_output": true, "custom_tool_call": true, "custom_tool_call_output": true,
	"web_search_call": true, "ghost_snapshot": true, "compaction": true, "compaction_summary": true,
}

// Map implements importer.Mapper.
func (m *Mapper) Map(l importer.Line, out *importer.Output) error {
	defer m.dec.Release()
	m.item, m.evf = nil, nil
	defer func() { m.item, m.evf = nil, nil }()
	var rl rolloutLine
	if !fastRolloutLine(&m.dec, l.Bytes, &rl) {
		rl = rolloutLine{}
		if err := json.Unmarshal(l.Bytes, &rl); err != nil {
			out.Malformed(err)
			return nil
		}
	}
	if rl.Type == "" {
		if m.directLine(l, &rl, out) {
			return nil
		}
		out.Malformed(errors.New(`not a rollout line: no "type"`))
		return nil
	}
	payload := bytes.TrimSpace(rl.Payload)
	if len(payload) == 0 || bytes.Equal(payload, []byte("null")) {
		if !responseItemTypes[rl.Type] {
			out.Malformed(fmt.Errorf("%s line without payload", rl.Type))
			return nil
		}
		payload, rl.Type = l.Bytes, "response_item"
	}
	shown := m.shownRule(l, &rl, payload, out)
	switch m.whoWrote(l, &rl, payload, out) {
	case lineHeld:
		return nil
	}
	if shown == shownHeld {
		return nil
	}
	switch rl.Type {
	case "session_meta":
		m.sessionMeta(&rl, payload, out)
	case "turn_context":
		m.turnContext(&rl, payload, out)
	case "world_state", "token_usage_record", "inter_agent_communication_metadata":
		// 0.169's paginated rollouts: the environment's state and token
		// counters, bookkeeping no rule of graft reads; before a
		// sub-agent's message, whether it starts a turn (0.144).
		out.Skip(rl.Type)
	case "response_item":
		m.responseItem(&rl, payload, out)
	case "event_msg":
		m.eventMsg(&rl, payload, out)
	case "compacted":
		var c struct {
			Message string `json:"message"`
		}
		if err := json.Unmarshal(payload, &c); err != nil {
			out.Malformed(fmt.Errorf("compacted: %w", err))
			return nil
		}
		if strings.TrimSpace(c.Message) == "" {
			out.Skip("compacted without message")
			return nil
		}
		// The summary Codex wrote when it compacted: model text, never
		// the human's. replacement_history repeats earlier items: not read.
		ev := m.event(&rl, session.TypeUserMessage, system("compacted"))
		ev.Text = c.Message
		out.Emit(ev)
	default:
		ev := m.event(&rl, session.TypeSystem, system("unknown"))
		ev.Text = fmt.Sprintf("unknown Codex rollout line type %q", rl.Type)
		ev.Meta["lineType"] = rl.Type
		out.Emit(ev)
		m.told = importer.NoteUnknown(out, m.told, "Codex", m.version, "rollout line type", rl.Type)
	}
	return nil
}

func system(name string) session.Source { return session.Source{Kind: session.KindSystem, Name: name} }

func (m *Mapper) event(rl *rolloutLine, typ string, src session.Source) session.Event {
	ev := session.Event{Type: typ, Source: src, Meta: map[string]string{}}
	if ts, ok := importer.Timestamp(rl.Timestamp); ok {
		ev.TS = ts
	} else if rl.Timestamp != "" {
		ev.Meta["timestamp"] = rl.Timestamp
	}
	return ev
}

func (m *Mapper) sessionMeta(rl *rolloutLine, payload json.RawMessage, out *importer.Output) {
	var sm struct {
		ID            string `json:"id"`
		Cwd           string `json:"cwd"`
		Originator    string `json:"originator"`
		CLIVersion    string `json:"cli_version"`
		ModelProvider string `json:"model_provider"`
		Git           *struct {
			CommitHash    string `json:"commit_hash"`
			Branch        string `json:"branch"`
			RepositoryURL string `json:"repository_url"`
		} `json:"git"`
	}
	if err := json.Unmarshal(payload, &sm); err != nil {
		out.Malformed(fmt.Errorf("session_meta: %w", err))
		return
	}
	out.SourceUUID(sm.ID)
	m.version = sm.CLIVersion
	ev := m.event(rl, session.TypeSystem, system("session_meta"))
	ev.Text = importer.Clip(fmt.Sprintf("Codex session %s in %s (%s %s)", sm.ID, sm.Cwd, sm.Originator, sm.CLIVersion), 200)
	for k, v := range map[string]string{"sessionId": sm.ID, "cwd": sm.Cwd, "originator": sm.Originator, "cliVersion": sm.CLIVersion, "modelProvider": sm.ModelProvider} {
		if v != "" {
			ev.Meta[k] = v
		}
	}
	if g := sm.Git; g != nil {
		// The repository's state when the session started.
		for k, v := range map[string]string{"gitCommit": g.CommitHash, "gitBranch": g.Branch, "gitRepository": g.RepositoryURL} {
			if v != "" {
				ev.Meta[k] = v
			}
		}
	}
	out.Emit(ev)
}

// turnSettings are what a turn_context says the agent may do: its
// approval policy, its sandbox and the sandbox's network access, its
// collaboration mode (Codex 0.9x on; "plan" is Plan mode).
type turnSettings struct {
	Approval string `json:"approval,omitempty"`
	Sandbox  string `json:"sandbox,omitempty"`
	Network  string `json:"network,omitempty"`
	Mode     string `json:"mode,omitempty"`
}

// turnContext imports the settings of a turn when they differ from those
// imported last (the first turn's, then each change) as a system event
// "turn_context" with meta approvalPolicy, sandbox, network and
// collaborationMode; the model, cwd and the rest of the record are not
// read, and a turn that changes nothing is skipped.
func (m *Mapper) turnContext(rl *rolloutLine, payload json.RawMessage, out *importer.Output) {
	var tc struct {
		Approval      json.RawMessage `json:"approval_policy"`
		Sandbox       json.RawMessage `json:"sandbox_policy"`
		Collaboration json.RawMessage `json:"collaboration_mode"`
	}
	if err := json.Unmarshal(payload, &tc); err != nil {
		// Not an object: a shape no Codex wrote; told once for the life
		// of the import cursor.
		out.Skip("turn_context")
		if key := "turn_context not an object"; !slices.Contains(m.told, key) {
			out.Warn("Codex %s wrote a turn_context that is not an object (%v): the turn settings it holds are not imported", m.version, err)
			m.told = append(m.told, key)
		}
		return
	}
	var s turnSettings
	s.Approval = enumName(tc.Approval)
	// The sandbox is an object tagged by "mode" (0.4x) or "type" (0.9x
	// on), with its network access; a bare name is read as its mode.
	var sb struct {
		Mode    string `json:"mode"`
		Type    string `json:"type"`
		Network *bool  `json:"network_access"`
	}
	if json.Unmarshal(tc.Sandbox, &sb) == nil {
		s.Sandbox = importer.Clip(cmp.Or(sb.Mode, sb.Type), 40)
		if n := sb.Network; n != nil {
			s.Network = map[bool]string{true: "on", false: "off"}[*n]
		}
	} else {
		s.Sandbox = enumName(tc.Sandbox)
	}
	if len(tc.Collaboration) > 0 {
		var c struct {
			Mode json.RawMessage `json:"mode"`
		}
		if json.Unmarshal(tc.Collaboration, &c) == nil {
			s.Mode = enumName(c.Mode)
		}
	}
	if s == (turnSettings{}) || s == m.settings {
		out.Skip("turn_context")
		return
	}
	m.settings = s
	ev := m.event(rl, session.TypeSystem, system("turn_context"))
	var says []string
	for _, f := range []struct{ key, label, v string }{
		{"approvalPolicy", "approval", s.Approval}, {"sandbox", "sandbox", s.Sandbox},
		{"network", "network", s.Network}, {"collaborationMode", "collaboration mode", s.Mode},
	} {
		if f.v != "" {
			ev.Meta[f.key] = f.v
			says = append(says, f.label+" "+f.v)
		}
	}
	ev.Text = "Codex turn settings: " + strings.Join(says, ", ")
	out.Emit(ev)
}

// enumName is a serialised Rust enum's variant: the string itself, or the
// one key of an object ({"granular": {…}}); "" for anything else. Clipped
// to 40 runes: a name, not a text.
func enumName(raw json.RawMessage) string {
	var name string
	if json.Unmarshal(raw, &name) != nil {
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil || len(obj) != 1 {
			return ""
		}
		for k := range obj {
			name = k
		}
	}
	return importer.Clip(name, 40)
}

// item is the part of a ResponseItem the mapping reads.
type item struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Summary   []textPart      `json:"summary"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Input     json.RawMessage `json:"input"`
	CallID    string          `json:"call_id"`
	ID        string          `json:"id"`
	Output    json.RawMessage `json:"output"`
	Action    json.RawMessage `json:"action"`
	// Author is the agent that wrote an agent_message (a sub-agent's
	// path, /root/review).
	Author string `json:"author"`
}

type textPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// itemOf is json.Unmarshal(payload, &it), read once per line: payload is
// the line's, whether classify or responseItem asks first.
func (m *Mapper) itemOf(payload json.RawMessage) (item, error) {
	if m.item == nil {
		var di decodedItem
		if !fastItem(&m.dec, payload, &di.it) {
			di.it = item{}
			di.err = json.Unmarshal(payload, &di.it)
		}
		m.item = &di
	}
	return m.item.it, m.item.err
}

func (m *Mapper) responseItem(rl *rolloutLine, payload json.RawMessage, out *importer.Output) {
	it, err := m.itemOf(payload)
	if err != nil {
		out.Malformed(fmt.Errorf("response_item: %w", err))
		return
	}
	switch it.Type {
	case "message":
		m.message(rl, &it, out)
	case "reasoning":
		m.reasoning(rl, &it, out)
	case "function_call":
		args, err := stringOrRaw(it.Arguments)
		if err != nil {
			out.Malformed(fmt.Errorf("function_call arguments: %w", err))
			return
		}
		m.toolCall(rl, it.Name, it.CallID, jsonInput(args), out)
	case "custom_tool_call":
		in, err := stringOrRaw(it.Input)
		if err != nil {
			out.Malformed(fmt.Errorf("custom_tool_call input: %w", err))
			return
		}
		if it.Name == "apply_patch" {
			m.toolCall(rl, it.Name, it.CallID, patchInput(in), out)
			return
		}
		if it.Name == "exec" && it.CallID != "" {
			m.codeModeCall(rl, it.CallID, in, out)
			return
		}
		m.toolCall(rl, it.Name, it.CallID, freeformInput(in), out)
	case "local_shell_call":
		id := it.CallID
		if id == "" {
			id = it.ID
		}
		m.toolCall(rl, "shell", id, rawOr(it.Action, `{}`), out)
	case "function_call_output", "custom_tool_call_output":
		m.toolResult(rl, &it, out)
	case "web_search_call":
		m.toolCall(rl, "web_search", it.ID, rawOr(it.Action, `{}`), out)
		m.webSearchDone(rl, payload, &it, out)
	case "ghost_snapshot":
		// A git snapshot for undo, made by the harness: no work of the agent.
		out.Skip("ghost_snapshot")
	case "agent_message":
		m.agentMessage(rl, &it, out)
	case "tool_search_call":
		// The agent asks the host for tools by words (0.142): a call.
		args, err := stringOrRaw(it.Arguments)
		if err != nil {
			out.Malformed(fmt.Errorf("tool_search_call arguments: %w", err))
			return
		}
		m.toolCall(rl, "tool_search", it.CallID, jsonInput(args), out)
	case "tool_search_output":
		m.toolSearchOutput(rl, payload, &it, out)
	case "compaction", "compaction_summary":
		ev := m.event(rl, session.TypeSystem, system("compaction"))
		ev.Text = "encrypted compaction summary (not readable)"
		ev.Meta["itemType"] = it.Type
		out.Emit(ev)
	default:
		ev := m.event(rl, session.TypeSystem, system("unknown"))
		ev.Text = fmt.Sprintf("unknown Codex response item type %q", it.Type)
		ev.Meta["itemType"] = it.Type
		out.Emit(ev)
		m.told = importer.NoteUnknown(out, m.told, "Codex", m.version, "response item type", it.Type)
	}
}

func (m *Mapper) message(rl *rolloutLine, it *item, out *importer.Output) {
	texts, err := m.messageTexts(it, out)
	if err != nil {
		out.Malformed(err)
		return
	}
	if it.Role == "user" {
		// whoWrote holds it until the next line tells who wrote it.
		return
	}
	switch it.Role {
	case "assistant":
		text, cited := withoutMemoryCitations(strings.Join(texts, "\n"))
		if strings.TrimSpace(text) == "" {
			out.Skip("empty assistant message")
			return
		}
		ev := m.event(rl, session.TypeAssistantMessage, session.Source{Kind: session.KindAssistant})
		ev.Text = text
		if cited != "" {
			ev.Meta["memoryCitations"] = cited // what Codex shows apart (memcite.go)
		}
		markProposedPlan(&ev, m.settings.Mode == "plan")
		out.Emit(ev)
	default:
		// developer and system messages are the harness's instructions.
		text := strings.Join(texts, "\n")
		if strings.TrimSpace(text) == "" {
			out.Skip("empty " + it.Role + " message")
			return
		}
		role := it.Role
		if role == "" {
			role = "unknown-role"
		}
		ev := m.event(rl, session.TypeUserMessage, system(role))
		ev.Text = text
		out.Emit(ev)
	}
}

// messageTexts reads the texts of a message's content parts; out, when
// not nil, counts the parts that are not text.
func (m *Mapper) messageTexts(it *item, out *importer.Output) ([]string, error) {
	var parts []textPart
	if c := bytes.TrimSpace(it.Content); len(c) > 0 && c[0] == '"' {
		s, ok := m.dec.WholeString(c)
		if !ok {
			if err := json.Unmarshal(c, &s); err != nil {
				return nil, fmt.Errorf("message content: %w", err)
			}
		}
		parts = append(parts, textPart{Type: "input_text", Text: s})
	} else if len(c) > 0 && !fastTextPartList(&m.dec, c, &parts) {
		parts = nil
		if err := json.Unmarshal(c, &parts); err != nil {
			return nil, fmt.Errorf("message content: %w", err)
		}
	}
	var texts []string
	for _, p := range parts {
		switch p.Type {
		case "input_text", "output_text", "text":
			texts = append(texts, p.Text)
		case "input_image":
			texts = append(texts, "[image]")
		default:
			if out != nil {
				out.Skip("message content " + p.Type)
			}
		}
	}
	return texts, nil
}

// userMessage splits a user message's parts into the harness's injections
// and the human's words, keeping their order; consecutive human parts are
// one instruction. With injected, the parts that no prefix names are
// injected too (a user message without its twin; source.name "injected").
// line, when not 0, is the rollout line of a message that was held.
func (m *Mapper) userMessage(rl *rolloutLine, texts []string, injected bool, line int, out *importer.Output) {
	event := func(src session.Source, text string) {
		ev := m.event(rl, session.TypeUserMessage, src)
		ev.Text = text
		if line > 0 {
			ev.Meta["line"] = strconv.Itoa(line)
		}
		if status := userGoalStatus(text); status != "" {
			// The person paused, resumed or cleared the goal: Codex
			// says so only here (0.171 writes no thread_goal_updated).
			importer.SetGoal(&ev, status, "", "")
		}
		out.Emit(ev)
	}
	var human []string
	flush := func() {
		text := strings.Join(human, "\n")
		human = human[:0]
		if strings.TrimSpace(text) == "" {
			return
		}
		if injected {
			event(system("injected"), text)
			return
		}
		event(session.Source{Kind: session.KindUser}, text)
	}
	for _, t := range texts {
		if goal, ok := userGoal(t); ok {
			// The person's /goal: their words, whatever the twins say.
			flush()
			event(session.Source{Kind: session.KindUser, Name: "slash-command"}, "/goal "+goal)
			continue
		}
		inj, rest, src := splitInjection(t)
		if inj != "" {
			flush()
			event(src, inj)
		}
		if rest != "" {
			human = append(human, rest)
		}
	}
	flush()
	if len(texts) == 0 {
		out.Skip("empty user message")
	}
}

// What a line does to a held user message (doc.go, "Who wrote a user
// message").
const (
	lineOther     = iota // decides: a held message has no twin
	lineHeld             // a response_item user message, now held
	lineTwin             // a twin: the held message is the human's
	lineNeutral          // bookkeeping, malformed: decides nothing
	lineTurnStart        // task_started: what is held stood outside a turn
)

// whoWrote sees each line before it is mapped: it holds a response_item
// user message, and emits a held one when the line decides who wrote it.
func (m *Mapper) whoWrote(l importer.Line, rl *rolloutLine, payload json.RawMessage, out *importer.Output) int {
	kind, texts := m.classify(rl, payload, out)
	switch kind {
	case lineTurnStart:
		// User messages held before a turn starts stand outside a turn:
		// the host's, whatever their text.
		if m.held != nil {
			m.releasePending(true, out)
			m.release(true, out)
		}
		return lineNeutral
	case lineNeutral:
		return kind
	case lineTwin:
		m.twins = true
		if m.held != nil {
			// The twin is the last held message's; those before it have
			// none.
			m.releasePending(true, out)
			m.release(false, out)
		} else {
			m.twinAhead = true
		}
		return kind
	}
	if kind == lineHeld && internalOnly(texts) {
		// Codex's own context: no twin follows it, so it decides that a
		// held message before it had none, and is the host's itself.
		if m.held != nil {
			m.releasePending(m.twins, out)
			m.release(m.twins, out)
		}
		m.userMessage(rl, texts, true, 0, out)
		return lineOther
	}
	ahead := m.twinAhead
	m.twinAhead = false
	if kind == lineHeld && !ahead && m.held != nil {
		// Another user message in a row: both wait for what decides.
		m.pending = append(m.pending, *m.held)
		m.held = &heldMessage{Line: l.Num, Timestamp: rl.Timestamp, Texts: texts}
		return kind
	}
	if m.held != nil {
		m.releasePending(m.twins, out)
		m.release(m.twins, out)
	}
	if kind != lineHeld {
		return kind
	}
	if ahead {
		// Its twin came first.
		m.userMessage(rl, texts, false, 0, out)
		return kind
	}
	m.held = &heldMessage{Line: l.Num, Timestamp: rl.Timestamp, Texts: texts}
	return kind
}

// releasePending emits the messages held before the last one, in order.
func (m *Mapper) releasePending(injected bool, out *importer.Output) {
	for _, h := range m.pending {
		m.userMessage(&rolloutLine{Timestamp: h.Timestamp}, h.Texts, injected, h.Line, out)
	}
	m.pending = nil
}

// release emits the held user message: the human's (split by the
// prefixes), or injected when the rollout has twins and it had none.
func (m *Mapper) release(injected bool, out *importer.Output) {
	h := m.held
	m.held = nil
	m.userMessage(&rolloutLine{Timestamp: h.Timestamp}, h.Texts, injected, h.Line, out)
}

// classify tells what a line is to the twin rule; for a response_item user
// message it returns its texts too (counting in out the parts that are not
// text, as message does for other roles).
func (m *Mapper) classify(rl *rolloutLine, payload json.RawMessage, out *importer.Output) (int, []string) {
	switch rl.Type {
	case "turn_context", "world_state", "token_usage_record", "inter_agent_communication_metadata":
		return lineNeutral, nil
	case "event_msg":
		var em struct {
			Type string `json:"type"`
			Item struct {
				Type string `json:"type"`
			} `json:"item"`
		}
		if ef, ok := m.fastEventOf(payload); ok {
			em.Type, em.Item.Type = ef.Type, ef.ItemType
		} else if json.Unmarshal(payload, &em) != nil {
			return lineNeutral, nil
		}
		switch {
		case em.Type == "user_message", em.Type == "item_completed" && em.Item.Type == "UserMessage":
			return lineTwin, nil
		case em.Type == "task_started":
			return lineTurnStart, nil
		case em.Type == "token_count", em.Type == "task_complete":
			return lineNeutral, nil
		}
	case "response_item":
		it, err := m.itemOf(payload)
		if err != nil {
			return lineNeutral, nil
		}
		if it.Type == "message" && it.Role == "user" {
			if _, err := m.messageTexts(&it, nil); err != nil {
				return lineNeutral, nil // message reports it
			}
			texts, _ := m.messageTexts(&it, out)
			return lineHeld, texts
		}
	}
	return lineOther, nil
}

// injectionTags open the texts Codex itself puts in user messages, by the
// source.name they are imported with.
var injectionTags = map[string]string{
	"<environment_context>":      "environment-context",
	"<user_instructions>":        session.SourceUserInstructions,
	"<user_shell_command>":       "user-shell-command",
	"<turn_aborted>":             "turn-aborted",
	"<subagent_notification>":    "subagent-notification",
	"<permissions instructions>": "permissions-instructions",
	"<collaboration_mode>":       "collaboration-mode",
	"<INSTRUCTIONS>":             session.SourceProjectInstructions,
	"<codex_internal_context":    "internal-context",
}

// userGoalContext opens the context Codex (0.171) writes for its model
// when the person sets the thread's goal with /goal: "User set the goal:
// \"<objective>\"", the objective quoted as Rust debug-prints a string.
const userGoalContext = `<codex_internal_context source="user_goal">`

// userGoal is the objective the person set, when t is that context and
// names one (one that only sets the goal's status does not).
func userGoal(t string) (string, bool) {
	t = strings.TrimSpace(t)
	if !strings.HasPrefix(t, userGoalContext) {
		return "", false
	}
	const said = "User set the goal: "
	for l := range strings.SplitSeq(t, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(l), said)
		if !ok || len(rest) < 2 || rest[0] != '"' || rest[len(rest)-1] != '"' {
			continue
		}
		if goal, err := strconv.Unquote(rest); err == nil {
			return goal, goal != ""
		}
		return rest[1 : len(rest)-1], len(rest) > 2 // an escape Go does not read: the text as written
	}
	return "", false
}

// userGoalStatus is the goal status a user_goal context sets without
// setting the goal (the person's /goal pause, resume: "User set goal
// status: \"paused\"."; /goal clear: "User cleared the goal.", which
// session.GoalCleared names), "" for any other text. The context that sets
// the goal is the person's /goal (userGoal); its status comes with the
// thread_goal_updated after it.
func userGoalStatus(t string) string {
	t = strings.TrimSpace(t)
	if !strings.HasPrefix(t, userGoalContext) {
		return ""
	}
	if _, set := userGoal(t); set {
		return ""
	}
	for l := range strings.SplitSeq(t, "\n") {
		l = strings.TrimSpace(l)
		if l == "User cleared the goal." {
			return session.GoalCleared
		}
		if rest, ok := strings.CutPrefix(l, "User set goal status: "); ok {
			if s, err := strconv.Unquote(strings.TrimSuffix(rest, ".")); err == nil && s != "" {
				return s
			}
		}
	}
	return ""
}

// internalOnly: every text is Codex's own context for its model, which no
// twin ever follows.
func internalOnly(texts []string) bool {
	for _, t := range texts {
		if !strings.HasPrefix(strings.TrimSpace(t), "<codex_internal_context") {
			return false
		}
	}
	return len(texts) > 0
}

// userMessageBegin separates injected instructions from the human's request
// in rollouts that wrote both in one text (protocol.rs USER_MESSAGE_BEGIN).
const userMessageBegin = "## My request for Codex:"

// splitInjection returns the injected part of a user text (with the source
// it is imported with) and the part that is the human's.
func splitInjection(text string) (injected, human string, src session.Source) {
	t := strings.TrimSpace(text)
	if i := strings.Index(t, userMessageBegin); i >= 0 {
		return strings.TrimSpace(t[:i]), strings.TrimSpace(t[i+len(userMessageBegin):]), system(session.SourceUserInstructions)
	}
	if strings.HasPrefix(t, "# AGENTS.md instructions for ") {
		return text, "", system(session.SourceProjectInstructions)
	}
	if strings.HasPrefix(t, "<skill>") {
		return text, "", session.Source{Kind: session.KindSkill, Name: "skill"}
	}
	for tag, name := range injectionTags {
		if strings.HasPrefix(t, tag) {
			return text, "", system(name)
		}
	}
	return "", text, session.Source{}
}

func (m *Mapper) reasoning(rl *rolloutLine, it *item, out *importer.Output) {
	if !m.cfg.KeepThinking {
		out.Skip("reasoning")
		return
	}
	var texts []string
	for _, s := range it.Summary {
		texts = append(texts, s.Text)
	}
	if len(texts) == 0 && len(it.Content) > 0 {
		var content []textPart
		if err := json.Unmarshal(it.Content, &content); err != nil && string(bytes.TrimSpace(it.Content)) != "null" {
			out.Warn("reasoning content does not decode: %v", err)
		}
		for _, c := range content {
			texts = append(texts, c.Text)
		}
	}
	text := strings.TrimSpace(strings.Join(texts, "\n\n"))
	if text == "" {
		out.Skip("reasoning without readable text")
		return
	}
	ev := m.event(rl, session.TypeAssistantMessage, session.Source{Kind: session.KindAssistant, Name: importer.ThinkingName})
	ev.Text = text
	out.Emit(ev)
}

// shellTools are the function tools that run a command; a command that is
// apply_patch is imported as an apply_patch call.
var shellTools = map[string]bool{"shell": true, "container.exec": true, "local_shell": true, "shell_command": true, "exec_command": true}

func (m *Mapper) toolCall(rl *rolloutLine, name, callID string, input json.RawMessage, out *importer.Output) {
	m.toolCallVia(rl, name, callID, input, "", out)
}

// toolCallVia is toolCall for a call made through another tool (meta
// viaTool: a code-mode script's exec), "" for none; it returns the
// command the call runs or polls, "" for none known.
func (m *Mapper) toolCallVia(rl *rolloutLine, name, callID string, input json.RawMessage, via string, out *importer.Output) string {
	if name == "" {
		out.Skip("tool call without a name")
		out.Warn("tool call %q has no name; not imported", callID)
		return ""
	}
	ev := m.event(rl, session.TypeToolCall, session.Source{Kind: session.KindAssistant})
	if via != "" {
		ev.Meta["viaTool"] = via
	}
	switch {
	case name == "apply_patch":
		input = patchInput(patchFromArgs(input))
	case shellTools[name]:
		if patch, ok := patchFromShell(input); ok {
			ev.Meta["viaTool"] = name
			name, input = "apply_patch", patchInput(patch)
		}
	}
	if callID != "" {
		m.open[callID] = name
	}
	command := ""
	switch name {
	case "exec_command":
		if cmd := stringArg(input, "cmd"); cmd != "" && callID != "" {
			if m.execCalls == nil {
				m.execCalls = map[string]string{}
			}
			if r := []rune(cmd); len(r) > maxExecCommand {
				cmd = string(r[:maxExecCommand]) + "…"
			}
			m.execCalls[callID] = cmd
			command = cmd
		}
	case "write_stdin":
		if cmd := m.execCommand(input); cmd != "" {
			ev.Meta["execCommand"] = cmd
			command = cmd
		}
	case "wait":
		// Code mode's wait on a cell a script still runs in: named by
		// that script's command, as a poll is (doc.go, "Code mode").
		if cell := stringArg(input, "cell_id"); cell != "" && callID != "" {
			session := ""
			for _, c := range m.running {
				if c.ID == cell {
					command, session = c.Command, c.Session
				}
			}
			switch {
			case command != "":
				ev.Meta["execCommand"] = command
			case session != "":
				ev.Meta["execSession"] = session // a poll of a session whose command is not known
			}
			m.addCell(callID, cellCall{Tool: name, Command: command, Session: session})
		}
	}
	ev.Tool = &session.Tool{Name: name, CallID: callID, Input: input}
	out.Emit(ev)
	if name == "update_plan" {
		m.updatePlan(rl, callID, input, out)
	}
	return command
}

func (m *Mapper) updatePlan(rl *rolloutLine, callID string, input json.RawMessage, out *importer.Output) {
	var args struct {
		Plan *[]struct {
			Step   string `json:"step"`
			Status string `json:"status"`
		} `json:"plan"`
	}
	if err := json.Unmarshal(input, &args); err != nil || args.Plan == nil {
		out.Warn("update_plan %q arguments have no plan; no todo/write event", callID)
		return
	}
	ev := m.event(rl, session.TypeTodoWrite, session.Source{Kind: session.KindAssistant})
	ev.Todos = make([]session.Todo, 0, len(*args.Plan))
	for k, p := range *args.Plan {
		td, known := importer.Todo(strconv.Itoa(k+1), p.Step, p.Status)
		if !known {
			importer.WarnTodo(out, k+1, p.Status)
		}
		ev.Todos = append(ev.Todos, td)
	}
	if callID != "" {
		ev.Meta["callId"] = callID
	}
	out.Emit(ev)
}

func (m *Mapper) toolResult(rl *rolloutLine, it *item, out *importer.Output) {
	if it.CallID == "" && it.Name != "" {
		// Context Codex adds for its model as a named output no call
		// asked for (0.171's goal_objective, the objective of the thread's
		// goal, metadata additional_context_tool_output): the host's
		// words, as an injected message is.
		text, _ := m.toolOutput(it.Output)
		ev := m.event(rl, session.TypeUserMessage, system("additional-context:"+it.Name))
		ev.Text = text
		out.Emit(ev)
		return
	}
	name := m.closeCall(it, out)
	text, ok := m.toolOutput(it.Output)
	// A unified-exec output that says its command still runs (its
	// header leaves ok absent; a script's printed result object, its
	// session_id): a poll tells how it ends.
	running := ""
	if c, isCell := m.cells[it.CallID]; isCell {
		delete(m.cells, it.CallID)
		if t, good, session, found := m.codeModeResult(c, it.Output); found {
			text, ok, running = t, good, session
		}
	}
	if running == "" && ok == nil && (name == "exec_command" || name == "write_stdin") {
		e, _ := ParseExec(text)
		running = e.Running
	}
	if cmd, isExec := m.execCalls[it.CallID]; isExec {
		delete(m.execCalls, it.CallID)
		if id := running; id != "" {
			m.execs = append(slices.DeleteFunc(m.execs, func(e execSession) bool { return e.ID == id }), execSession{ID: id, Command: cmd})
			if len(m.execs) > keptExecs {
				m.execs = m.execs[len(m.execs)-keptExecs:]
			}
		}
	}
	ev := m.event(rl, session.TypeToolResult, session.Source{Kind: session.KindTool})
	if running != "" {
		ev.Meta["execRunning"] = running
	}
	if ok == nil || !*ok {
		if d := declinedBy(strings.TrimSpace(text)); d != "" {
			failed := false // not ok: it did not run, or not wholly
			ok = &failed
			ev.Meta[session.MetaDeclined] = d
		}
	}
	if slices.Contains(goalTools, name) {
		if status, objective := goalOf([]byte(text)); status != "" {
			importer.SetGoal(&ev, status, objective, "")
		}
	}
	ev.Tool = &session.Tool{Name: name, CallID: it.CallID, OK: ok, Output: text}
	out.Emit(ev)
}

// closeCall is the name of the tool the output it answers called, the
// call no longer open ("unknown", with a warning, for an output no call
// came before).
func (m *Mapper) closeCall(it *item, out *importer.Output) string {
	name, found := m.open[it.CallID]
	if !found {
		name = "unknown"
		out.Warn("%s %q has no tool call before it; imported with tool name %q", it.Type, it.CallID, name)
	}
	delete(m.open, it.CallID)
	return name
}

// declinedBy is session.DeclinedByUser for the output Codex gives a call
// the person declined, session.DeclinedStopped for one they stopped
// (abortedByUser), else "".
func declinedBy(t string) string {
	switch {
	case slices.Contains(codexDeclines, t):
		return session.DeclinedByUser // the call did not run
	case abortedByUser(t):
		return session.DeclinedStopped // it may have run in part
	}
	return ""
}

// codexDeclines are the whole outputs Codex gives its model when the person
// declined a call at its approval prompt (codex-rs ReviewDecision::Denied;
// 0.171.0's binary holds both).
var codexDeclines = []string{"exec command rejected by user", "patch rejected by user"}

func (m *Mapper) eventMsg(rl *rolloutLine, payload json.RawMessage, out *importer.Output) {
	var em struct {
		Type    string          `json:"type"`
		Message json.RawMessage `json:"message"`
		Reason  string          `json:"reason"`
	}
	if ef, ok := m.fastEventOf(payload); ok {
		em.Type, em.Message, em.Reason = ef.Type, ef.Message, ef.Reason
	} else if err := json.Unmarshal(payload, &em); err != nil {
		out.Malformed(fmt.Errorf("event_msg: %w", err))
		return
	}
	switch em.Type {
	case "user_message", "agent_message", "agent_reasoning", "agent_reasoning_raw_content",
		"agent_reasoning_section_break", "plan_update":
		// The UI's copy of a response_item this importer reads (doc.go,
		// "One record per message").
		out.Skip("event_msg " + em.Type + " (copy of a response_item)")
		return
	case "token_count", "task_started", "task_complete":
		out.Skip("event_msg " + em.Type)
		return
	case "":
		out.Malformed(errors.New(`event_msg without "type"`))
		return
	}
	if em.Type == "item_completed" && len(m.cells) > 0 {
		m.noteExit(payload) // for a code-mode call waiting on its output
	}
	ev := m.event(rl, session.TypeSystem, system(em.Type))
	var msg string
	switch {
	case len(em.Message) > 0 && em.Message[0] == '"' && json.Unmarshal(em.Message, &msg) == nil && msg != "":
		ev.Text = importer.Clip(msg, 200)
	case em.Reason != "":
		ev.Text = em.Type + ": " + em.Reason
	default:
		ev.Text = em.Type
	}
	if em.Type == "thread_goal_updated" {
		if status, objective := goalOf(payload); status != "" {
			importer.SetGoal(&ev, status, objective, "")
			ev.Text = "thread goal " + status + ": " + importer.Clip(objective, 200)
		}
	}
	ev.Meta["msgType"] = em.Type
	out.Emit(ev)
}

// goalTools are Codex's tools whose output is the thread's goal (0.171's
// goal extension: {"goal":{…}, …}).
var goalTools = []string{"create_goal", "get_goal", "update_goal"}

// goalOf is the status and objective of the goal a thread_goal_updated
// payload or a goal tool's output holds ({"goal":{"objective",
// "status"}}), "" for none.
func goalOf(raw []byte) (status, objective string) {
	var g struct {
		Goal *struct {
			Objective string `json:"objective"`
			Status    string `json:"status"`
		} `json:"goal"`
	}
	if json.Unmarshal(raw, &g) != nil || g.Goal == nil || g.Goal.Status == "" {
		return "", ""
	}
	return g.Goal.Status, g.Goal.Objective
}

// stringOrRaw reads a field that the protocol defines as a string holding
// JSON or free text; a rollout that wrote an object is kept as that object.
func stringOrRaw(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return "", nil
	}
	if raw[0] != '"' {
		return string(raw), nil
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}

// jsonInput keeps function-call arguments as they are when they are JSON,
// and as {"arguments": "<text>"} when they are not.
func jsonInput(args string) json.RawMessage {
	if strings.TrimSpace(args) == "" {
		return json.RawMessage(`{}`)
	}
	if json.Valid([]byte(args)) {
		return json.RawMessage(args)
	}
	b, _ := json.Marshal(map[string]string{"arguments": args}) // a map of strings always encodes
	return b
}

// freeformInput is the input of a custom (free-form) tool: kept as JSON
// when it is a JSON object, else as {"input": "<text>"}.
func freeformInput(in string) json.RawMessage {
	t := strings.TrimSpace(in)
	if strings.HasPrefix(t, "{") && json.Valid([]byte(t)) {
		return json.RawMessage(t)
	}
	b, _ := json.Marshal(map[string]string{"input": in}) // a map of strings always encodes
	return b
}

func patchInput(patch string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"patch": patch}) // a map of strings always encodes
	return b
}

func rawOr(raw json.RawMessage, def string) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 {
		return json.RawMessage(def)
	}
	return raw
}

// patchFromArgs reads the patch of an apply_patch function call:
// {"input": "<patch>"} (or "patch"), or the arguments text itself.
func patchFromArgs(input json.RawMessage) string {
	var a struct {
		Input *string `json:"input"`
		Patch *string `json:"patch"`
	}
	if err := json.Unmarshal(input, &a); err == nil {
		if a.Input != nil {
			return *a.Input
		}
		if a.Patch != nil {
			return *a.Patch
		}
	}
	var s string
	if json.Unmarshal(input, &s) == nil {
		return s
	}
	return string(input)
}

const (
	beginPatch = "*** Begin Patch"
	endPatch   = "*** End Patch"
)

// patchFromShell recognises a shell call that runs apply_patch:
// ["apply_patch", "<patch>"], or a script (bash -lc, shell_command) that
// starts with apply_patch and carries the patch in a heredoc.
func patchFromShell(input json.RawMessage) (string, bool) {
	var a struct {
		Command json.RawMessage `json:"command"`
		Cmd     string          `json:"cmd"`
	}
	if err := json.Unmarshal(input, &a); err != nil {
		return "", false
	}
	var argv []string
	var script string
	if json.Unmarshal(a.Command, &argv) == nil && len(argv) > 0 {
		switch {
		case (argv[0] == "apply_patch" || argv[0] == "applypatch") && len(argv) >= 2:
			return argv[1], true
		case len(argv) >= 3 && (argv[1] == "-lc" || argv[1] == "-c"):
			script = argv[2]
		}
	} else if json.Unmarshal(a.Command, &script) != nil {
		script = a.Cmd
	}
	s := strings.TrimSpace(script)
	if !strings.HasPrefix(s, "apply_patch") && !strings.HasPrefix(s, "applypatch") {
		return "", false
	}
	i := strings.Index(s, beginPatch)
	j := strings.LastIndex(s, endPatch)
	if i < 0 || j < i {
		return "", false
	}
	return s[i : j+len(endPatch)], true
}

// toolOutput reads a tool output: a string, {content, success}, or a list
// of content items. ok is known from success, from a shell output's
// metadata.exit_code, its "Exit code: N" header or a unified-exec
// "Process exited with code N" header; otherwise it is nil.
func (m *Mapper) toolOutput(raw json.RawMessage) (string, *bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", nil
	}
	switch raw[0] {
	case '"':
		s, ok := m.dec.WholeString(raw)
		if !ok {
			if err := json.Unmarshal(raw, &s); err != nil {
				return string(raw), nil
			}
		}
		return m.shellOutput(s)
	case '{':
		var o struct {
			Content *string `json:"content"`
			Success *bool   `json:"success"`
		}
		if err := json.Unmarshal(raw, &o); err == nil && o.Content != nil {
			text, ok := m.shellOutput(*o.Content)
			if o.Success != nil {
				ok = o.Success
			}
			return text, ok
		}
	case '[':
		var items []textPart
		if err := json.Unmarshal(raw, &items); err == nil {
			var texts []string
			for _, p := range items {
				if p.Type == "input_image" {
					texts = append(texts, "[image]")
					continue
				}
				texts = append(texts, p.Text)
			}
			return strings.Join(texts, "\n"), nil
		}
	}
	return string(raw), nil
}

// shellOutput unwraps {"output": …, "metadata": {"exit_code": N}} and reads
// an "Exit code: N" header or a unified-exec header (ParseExec);
// any other text is returned as it is, headers included.
func (m *Mapper) shellOutput(s string) (string, *bool) {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "{") {
		var o struct {
			Output   *string `json:"output"`
			Metadata *struct {
				ExitCode *int `json:"exit_code"`
			} `json:"metadata"`
		}
		var err error
		var f shellFields
		if fastShell(&m.dec, []byte(t), &f) {
			o.Output = f.Output
			if f.Metadata != nil {
				o.Metadata = &struct {
					ExitCode *int `json:"exit_code"`
				}{ExitCode: f.Metadata.ExitCode}
			}
		} else {
			err = json.Unmarshal([]byte(t), &o)
		}
		if err == nil && o.Output != nil {
			if o.Metadata != nil && o.Metadata.ExitCode != nil {
				ok := *o.Metadata.ExitCode == 0
				return *o.Output, &ok
			}
			return *o.Output, nil
		}
	}
	if rest, found := strings.CutPrefix(t, "Exit code: "); found {
		code := rest
		if i := strings.IndexAny(rest, "\r\n"); i >= 0 {
			code = rest[:i]
		}
		if n, err := strconv.Atoi(strings.TrimSpace(code)); err == nil {
			ok := n == 0
			return s, &ok
		}
	}
	if e, found := ParseExec(t); found {
		return s, e.OK
	}
	if text, found := sandboxDenial(strings.TrimLeft(s, " \t\r\n")); found {
		failed := false
		return text, &failed
	}
	for _, p := range codexFailures {
		if strings.HasPrefix(t, p) {
			ok := false
			return s, &ok
		}
	}
	return s, nil
}

// abortedByUser: the output Codex gives a call the person stopped, at its
// approval prompt (0.171's only "No": "No, and tell Codex what to do
// differently (esc)") or while it ran: "aborted by user", or "aborted by
// user after <duration>", after a "Wall time: …" line or alone (the real
// 0.171 wrote "Wall time: 4.1 seconds\naborted by user" for a command
// declined at its prompt; its binary holds both).
func abortedByUser(t string) bool {
	if rest, found := strings.CutPrefix(t, "Wall time: "); found {
		_, t, found = strings.Cut(rest, "\n")
		if !found {
			return false
		}
	}
	t = strings.TrimSpace(t)
	if strings.ContainsAny(t, "\r\n") {
		return false
	}
	return t == "aborted by user" || strings.HasPrefix(t, "aborted by user after ")
}

// execCommand is the command of the running session a write_stdin call
// writes to, "" when the mapper does not know it.
func (m *Mapper) execCommand(input json.RawMessage) string {
	var in struct {
		SessionID json.Number `json:"session_id"`
	}
	if json.Unmarshal(input, &in) != nil || in.SessionID == "" {
		return ""
	}
	for _, e := range m.execs {
		if e.ID == in.SessionID.String() {
			return e.Command
		}
	}
	return ""
}

// stringArg is the string field key of a tool call's arguments, "" when
// absent or not a string.
func stringArg(input json.RawMessage, key string) string {
	if vals, ok := session.StringFields(input, key); ok {
		return vals[0]
	}
	var in map[string]json.RawMessage
	var s string
	if json.Unmarshal(input, &in) != nil || json.Unmarshal(in[key], &s) != nil {
		return ""
	}
	return s
}

// codexFailures open the outputs Codex itself writes when a call failed
// before or instead of running: a bare string, with no exit code
// (codex-rs FunctionCallError::RespondToModel; before 0.40 the sandbox
// error handler: "failed in sandbox {type} with execution error: {e}").
// A run that exited is JSON, opens with "Exit code: ", or has a unified-exec
// header.
var codexFailures = []string{
	"failed in sandbox ", "execution error: ", "exec command rejected", "patch rejected",
	"apply_patch verification failed", "apply_patch handler received", "failed to parse function arguments",
	"retry failed: ", "unsupported call: ",
	// Unified exec's (0.114: "write_stdin failed: stdin is closed for this
	// session; …", "exec_command failed: CreateProcess { … }").
	"exec_command failed", "write_stdin failed",
}
