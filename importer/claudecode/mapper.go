package claudecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/session/logscan"
)

// Format is the importer format name of Claude Code transcripts.
const Format = "claude-code"

// Config shapes a Mapper.
type Config struct {
	// KeepThinking keeps thinking blocks as assistant/message events with
	// source.name "thinking"; by default they are dropped and counted.
	KeepThinking bool
	// Parent is set when the transcript is a sub-agent's: every event gets
	// meta "parentSession", and no user line is a human instruction.
	Parent string
	// SubSessions maps a sub-agent id (toolUseResult.agentId) to the session
	// its transcript is imported into, for the "subSession" link of reports.
	SubSessions map[string]string
}

// Mapper maps Claude Code transcript lines to session events (doc.go).
type Mapper struct {
	cfg  Config
	open map[string]openCall
	// queued are the messages the person typed while the agent worked
	// (queue-operation enqueue), oldest first, until the queue gives them
	// up (doc.go, "Queued input").
	queued []queuedMessage
	// told are the line types not known here that an import reported
	// already (importer.NoteUnknown).
	told []string
	// tasks is the task list TaskCreate and TaskUpdate keep, in the
	// order the tasks were created; creates, the subjects of the
	// TaskCreate calls waiting for their result, by call id (tasks.go).
	tasks   []session.Todo
	creates map[string]string
	// branch is the git branch the last event that named one named
	// (meta gitBranch): an event names the branch its line gives when
	// it changed, so the tape follows a branch switched mid-turn.
	branch string
	// dec reads lines on the fast path (fast.go).
	dec logscan.Decoder
	// early are the results written before their calls, oldest first
	// (early.go); heldLine, while one is imported, the line it came in.
	early    []earlyResult
	heldLine string
	// launched are the calls run in the background (agents, shell
	// commands) whose notification has not come yet, oldest first
	// (asyncagent.go).
	launched []launchedAgent
}

// queuedMessage is one enqueued text with the time it was typed.
type queuedMessage struct {
	Text      string `json:"text"`
	Timestamp string `json:"timestamp,omitempty"`
}

// maxQueued bounds the queue the mapper remembers: a transcript whose
// enqueues are never given up costs no more than this.
const maxQueued = 64

// openCall is a tool_use still waiting for its tool_result.
type openCall struct {
	Name  string `json:"name"`
	Agent string `json:"agent,omitempty"`
}

// NewMapper returns a Mapper with no open tool calls.
func NewMapper(cfg Config) *Mapper {
	return &Mapper{cfg: cfg, open: map[string]openCall{}}
}

// Format implements importer.Mapper.
func (m *Mapper) Format() string { return Format }

// Settings implements importer.Mapper.
func (m *Mapper) Settings() map[string]string {
	s := map[string]string{"keepThinking": strconv.FormatBool(m.cfg.KeepThinking)}
	if m.cfg.Parent != "" {
		s["parentSession"] = m.cfg.Parent
	}
	return s
}

type mapperState struct {
	OpenCalls map[string]openCall `json:"openCalls,omitempty"`
	Queued    []queuedMessage     `json:"queued,omitempty"`
	Told      []string            `json:"told,omitempty"`
	Tasks     []session.Todo      `json:"tasks,omitempty"`
	Creates   map[string]string   `json:"creates,omitempty"`
	Branch    string              `json:"branch,omitempty"`
	Early     []earlyResult       `json:"early,omitempty"`
	Launched  []launchedAgent     `json:"launched,omitempty"`
}

// SaveState implements importer.Mapper: the tool calls without a result,
// the queued input not given up yet and the task list (tasks.go).
func (m *Mapper) SaveState() (json.RawMessage, error) {
	return json.Marshal(mapperState{OpenCalls: m.open, Queued: m.queued, Told: m.told, Tasks: m.tasks, Creates: m.creates, Branch: m.branch, Early: m.early, Launched: m.launched})
}

// LoadState implements importer.Mapper.
func (m *Mapper) LoadState(raw json.RawMessage) error {
	m.open = map[string]openCall{}
	m.queued, m.told = nil, nil
	m.tasks, m.creates = nil, nil
	m.branch = ""
	m.early = nil
	m.launched = nil
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
	m.queued = st.Queued
	m.told = st.Told
	m.tasks = st.Tasks
	m.creates = st.Creates
	m.branch = st.Branch
	m.early = st.Early
	m.launched = st.Launched
	return nil
}

// attachment is what the importer reads of an attachment line: its type;
// of an edited_text_file, the file and the lines around the change, each
// as "N\t" and the line.
type attachment struct {
	Type     string `json:"type"`
	Filename string `json:"filename"`
	Snippet  string `json:"snippet"`
	// PlanFilePath is a plan_mode's file for the plan.
	PlanFilePath string `json:"planFilePath"`
	// Prompt and CommandMode: of a queued_command, the text the host gave
	// the model while a turn ran, and whose it is ("prompt": the
	// person's, which the queue's operations import; "task-notification":
	// the host's word on a background task).
	Prompt      promptText `json:"prompt"`
	CommandMode string     `json:"commandMode"`
}

// promptText is a queued_command's prompt: a string, or content blocks
// (a message with an image), read as their text blocks joined; any other
// value is no text, never a malformed line.
type promptText string

func (p *promptText) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*p = promptText(s)
		return nil
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	*p = ""
	if json.Unmarshal(b, &blocks) == nil {
		var texts []string
		for _, bl := range blocks {
			if bl.Type == "text" {
				texts = append(texts, bl.Text)
			}
		}
		*p = promptText(strings.Join(texts, "\n"))
	}
	return nil
}

// line is the part of a transcript line the mapping reads.
type line struct {
	Type             string          `json:"type"`
	Version          string          `json:"version"`
	Subtype          string          `json:"subtype"`
	UUID             string          `json:"uuid"`
	Cwd              string          `json:"cwd"`
	GitBranch        string          `json:"gitBranch"`
	PermissionMode   string          `json:"permissionMode"`
	Timestamp        string          `json:"timestamp"`
	IsMeta           bool            `json:"isMeta"`
	IsCompactSummary bool            `json:"isCompactSummary"`
	IsSidechain      bool            `json:"isSidechain"`
	Message          *message        `json:"message"`
	Content          json.RawMessage `json:"content"`
	Level            string          `json:"level"`
	Summary          string          `json:"summary"`
	Operation        string          `json:"operation"`
	Attachment       *attachment     `json:"attachment"`
	ToolUseResult    json.RawMessage `json:"toolUseResult"`
	// PlanContent: the plan the person approved, on the user line the
	// host starts a cleared context with (planapproved.go).
	PlanContent string `json:"planContent"`
	// Origin is where a user line came from (2.1.332: "human", "peer", …;
	// hostOrigins).
	Origin *struct {
		Kind string `json:"kind"`
	} `json:"origin"`
	CompactMetadata *struct {
		Trigger   string `json:"trigger"`
		PreTokens int64  `json:"preTokens"`
	} `json:"compactMetadata"`
}

type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type block struct {
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

// Map implements importer.Mapper.
func (m *Mapper) Map(l importer.Line, out *importer.Output) error {
	defer m.dec.Release()
	// A result written before its call waits for the next line (early.go).
	m.notNamed(l, out)
	defer m.notCame(l.Num, out)
	var ln line
	if !fastLine(&m.dec, l.Bytes, &ln) {
		ln = line{}
		if err := json.Unmarshal(l.Bytes, &ln); err != nil {
			out.Malformed(err)
			return nil
		}
	}
	if ln.Type == "" {
		out.Malformed(errors.New(`not a transcript line: no "type"`))
		return nil
	}
	out.SourceUUID(ln.UUID)
	switch ln.Type {
	case "user":
		return m.user(l, &ln, out)
	case "assistant":
		return m.assistant(&ln, out)
	case "system":
		m.system(&ln, out)
	case "queue-operation":
		m.queueOperation(&ln, out)
	case "progress", "file-history-snapshot":
		// Streaming progress (sub-agent steps are imported from their own
		// transcripts) and editor undo snapshots: nothing a graft reads.
		out.Skip(ln.Type)
	case "atis-latch", "api-request", "api-request-shape", "api-request-blob", "last-prompt", "cost-state", "custom-title", "mode", "tools-used",
		"ai-title", "agent-name", "file-history-delta":
		// Current hosts (2.1.3xx) keep their request cache, prompt recall,
		// cost counters, the title the person gave the session (/rename)
		// or the host gave it (ai-title), an agent's name, and in the
		// terminal the prompt's input mode ({"mode": "normal"}) and the
		// names of the tools used so far in the transcript, and an editor
		// undo backup of a file (file-history-delta): bookkeeping, not
		// conversation.
		out.Skip(ln.Type)
	case "pr-link":
		m.prLink(l.Bytes, &ln, out)
	case "permission-mode":
		// The session's permission mode (current hosts, last wins).
		ev := m.event(&ln, session.TypeSystem, session.Source{Kind: session.KindSystem, Name: "permission-mode"})
		ev.Text = "permission mode " + importer.Clip(ln.PermissionMode, 40)
		if ln.PermissionMode != "" {
			ev.Meta["permissionMode"] = importer.Clip(ln.PermissionMode, 40)
		}
		out.Emit(ev)
	case "attachment":
		// Context the host injected beside a turn (environment, date, model,
		// tool and skill listings, hook context): never the human's words.
		kind := "unknown"
		if ln.Attachment != nil && ln.Attachment.Type != "" {
			kind = ln.Attachment.Type
		}
		if prompt := string(ln.Attachment.Prompt); kind == "queued_command" && ln.Attachment.CommandMode == "task-notification" && strings.HasPrefix(strings.TrimSpace(prompt), "<task-notification>") {
			// A task notification given to the model while a turn ran:
			// no user line carries it (doc.go, "Background agents").
			m.userText(&ln, prompt, out)
			return nil
		}
		ev := m.event(&ln, session.TypeSystem, session.Source{Kind: session.KindSystem, Name: "attachment"})
		ev.Text = "attachment " + kind
		ev.Meta["attachment"] = kind
		if kind == attachmentGoalStatus {
			goalStatus(l.Bytes, &ev, out)
		}
		if kind == attachmentEditedFile && ln.Attachment.Filename != "" {
			changedOutside(&ev, ln.Attachment.Filename, ln.Attachment.Snippet)
		}
		if kind == "plan_mode" && ln.Attachment.PlanFilePath != "" {
			ev.Meta[session.MetaPlanFile] = importer.Clip(ln.Attachment.PlanFilePath, 4096)
		}
		out.Emit(ev)
	case "summary":
		ev := m.event(&ln, session.TypeSystem, session.Source{Kind: session.KindSystem, Name: "summary"})
		ev.Text = importer.Clip(ln.Summary, 200)
		ev.Meta["lineType"] = ln.Type
		out.Emit(ev)
	default:
		ev := m.event(&ln, session.TypeSystem, session.Source{Kind: session.KindSystem, Name: "unknown"})
		ev.Text = fmt.Sprintf("unknown Claude Code line type %q", ln.Type)
		ev.Meta["lineType"] = ln.Type
		out.Emit(ev)
		m.told = importer.NoteUnknown(out, m.told, "Claude Code", ln.Version, "line type", ln.Type)
	}
	return nil
}

// event starts an event with the line's time and provenance.
func (m *Mapper) event(ln *line, typ string, src session.Source) session.Event {
	ev := session.Event{Type: typ, Source: src, Meta: map[string]string{}}
	if ts, ok := importer.Timestamp(ln.Timestamp); ok {
		ev.TS = ts
	} else if ln.Timestamp != "" {
		ev.Meta["timestamp"] = ln.Timestamp
	}
	if ln.UUID != "" {
		ev.Meta["uuid"] = ln.UUID
	}
	if m.heldLine != "" {
		ev.Meta["line"] = m.heldLine // a result imported after its call (early.go)
	}
	if m.cfg.Parent != "" {
		ev.Meta["parentSession"] = m.cfg.Parent
	}
	if ln.GitBranch != "" && ln.GitBranch != m.branch {
		// The branch changed (git checkout -b mid-turn): the line that
		// first gives the new one says so.
		ev.Meta["gitBranch"] = ln.GitBranch
		m.branch = ln.GitBranch
	}
	return ev
}

// content decodes message.content: a string or a list of blocks.
func (m *Mapper) content(raw json.RawMessage) (text string, blocks []block, isText bool, err error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return "", nil, true, nil
	}
	switch raw[0] {
	case '"':
		if v, ok := m.dec.WholeString(raw); ok {
			return v, nil, true, nil
		}
		err = json.Unmarshal(raw, &text)
		return text, nil, true, err
	case '[':
		if fastBlocks(&m.dec, raw, &blocks) {
			return "", blocks, false, nil
		}
		blocks = nil
		err = json.Unmarshal(raw, &blocks)
		return "", blocks, false, err
	}
	return "", nil, false, fmt.Errorf("message.content is neither a string nor a list of blocks")
}

func (m *Mapper) user(l importer.Line, ln *line, out *importer.Output) error {
	if ln.Message == nil {
		out.Malformed(errors.New("user line without message"))
		return nil
	}
	text, blocks, isText, err := m.content(ln.Message.Content)
	if err != nil {
		out.Malformed(err)
		return nil
	}
	if isText {
		m.userText(ln, text, out)
		return nil
	}
	var results []block
	var texts []string
	images := 0
	for _, b := range blocks {
		switch b.Type {
		case "tool_result":
			results = append(results, b)
		case "text":
			texts = append(texts, b.Text)
		case "image":
			images++
		default:
			out.Skip("user block " + b.Type)
		}
	}
	if len(results) > 0 {
		for _, b := range results {
			if _, open := m.open[b.ToolUseID]; !open && b.ToolUseID != "" {
				m.holdEarly(l, b, out) // its call may come on a later line (early.go)
				continue
			}
			m.toolResult(ln, b, out)
		}
		// Text beside tool results is the host's, never the human's.
		if t := strings.TrimSpace(strings.Join(texts, "\n\n")); t != "" {
			ev := m.event(ln, session.TypeUserMessage, session.Source{Kind: session.KindSystem, Name: "tool-result-text"})
			ev.Text = t
			out.Emit(ev)
		}
		return nil
	}
	text = strings.Join(texts, "\n\n")
	if images > 0 {
		text = strings.TrimSpace(text + fmt.Sprintf("\n\n[%d image(s) attached]", images))
	}
	m.userText(ln, text, out)
	return nil
}

// queueOperation follows the input queue (doc.go, "Queued input"): an
// enqueue of the person's text is held; a dequeue gives the oldest up to
// the user line that follows; a remove gives it up with no user line, so
// it is imported here as the human's, source.name "queued".
func (m *Mapper) queueOperation(ln *line, out *importer.Output) {
	out.Skip(ln.Type)
	switch ln.Operation {
	case "enqueue":
		text, ok := m.personsQueued(ln)
		if !ok {
			return
		}
		m.queued = append(m.queued, queuedMessage{Text: text, Timestamp: ln.Timestamp})
		if len(m.queued) > maxQueued {
			m.queued = append(m.queued[:0:0], m.queued[len(m.queued)-maxQueued:]...)
		}
		// Waiting for the turn to end, it has reached no model yet: a
		// handoff made now carries it (tape: the Goal's queued message).
		ev := m.event(ln, session.TypeSystem, session.Source{Kind: session.KindSystem, Name: "queued-input"})
		ev.Text = text
		out.Emit(ev)
	case "popAll":
		// The person took the queued messages back into the prompt to
		// edit them: each leaves the queue, sent again only if typed again.
		text, ok := m.personsQueued(ln)
		if !ok {
			return
		}
		for k, q := range m.queued {
			if q.Text == text {
				m.queued = append(m.queued[:k:k], m.queued[k+1:]...)
				break
			}
		}
		ev := m.event(ln, session.TypeSystem, session.Source{Kind: session.KindSystem, Name: "queue-popped"})
		ev.Text = text
		out.Emit(ev)
	case "dequeue":
		if len(m.queued) > 0 {
			m.queued = m.queued[1:]
		}
	case "remove":
		if len(m.queued) == 0 {
			return
		}
		if text := m.queuedText(ln.Content); text != "" && !queuedByPerson(text) {
			return // the host's (a task notification), which was never held
		}
		q := m.queued[0]
		m.queued = m.queued[1:]
		ts := ln.Timestamp
		ln.Timestamp = q.Timestamp
		ev := m.event(ln, session.TypeUserMessage, session.Source{Kind: session.KindUser, Name: "queued"})
		ln.Timestamp = ts
		ev.Text = q.Text
		out.Emit(ev)
	}
}

// personsQueued is the text of a queue operation and whether the person
// typed it in this session's own queue (not a sub-agent's).
func (m *Mapper) personsQueued(ln *line) (string, bool) {
	text := m.queuedText(ln.Content)
	return text, queuedByPerson(text) && m.cfg.Parent == ""
}

// queuedByPerson: an enqueue's text the person typed; not a host's
// (<task-notification>…, a background task's JSON {"task_id": …}) or a
// command ("/mcp").
func queuedByPerson(text string) bool {
	t := strings.TrimSpace(text)
	if t == "" || strings.HasPrefix(t, "<") || strings.HasPrefix(t, "/") {
		return false
	}
	if strings.HasPrefix(t, "{") {
		var obj map[string]json.RawMessage
		if json.Unmarshal([]byte(t), &obj) == nil {
			return false
		}
	}
	return true
}

// queuedText is an enqueue's content: a string, or text blocks.
func (m *Mapper) queuedText(raw json.RawMessage) string {
	text, blocks, isText, err := m.content(raw)
	if err != nil {
		return ""
	}
	if isText {
		return text
	}
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n\n")
}

// userText emits a user text message, classified (doc.go, "Who said it").
func (m *Mapper) userText(ln *line, text string, out *importer.Output) {
	if m.approvedPlan(ln, text, out) {
		return
	}
	m.unqueue(text)
	src, text := m.classify(ln, text)
	if strings.TrimSpace(text) == "" {
		out.Skip("empty user message")
		return
	}
	ev := m.event(ln, session.TypeUserMessage, src)
	ev.Text = text
	var report *session.Event
	if src == system("task-notification") && m.cfg.Parent == "" {
		report = m.notified(ln, text, &ev)
	}
	if src.Kind == session.KindUser && ln.Cwd != "" {
		// Where the person works: the tape names files relative to it.
		ev.Meta["cwd"] = ln.Cwd
	}
	if src.Kind == session.KindUser && ln.GitBranch != "" {
		// The branch the work is on (the tape names it).
		ev.Meta["gitBranch"] = ln.GitBranch
	}
	if src.Kind == session.KindUser && ln.PermissionMode != "" {
		// The mode the person sent it in (plan: no edits yet).
		ev.Meta["permissionMode"] = importer.Clip(ln.PermissionMode, 40)
	}
	out.Emit(ev)
	if report != nil {
		out.Emit(*report)
	}
}

// unqueue forgets a queued message a user line now carries, so that a
// later remove does not import it twice.
func (m *Mapper) unqueue(text string) {
	t := strings.TrimSpace(text)
	for k, q := range m.queued {
		if strings.TrimSpace(q.Text) == t {
			m.queued = append(m.queued[:k:k], m.queued[k+1:]...)
			return
		}
	}
}

var (
	commandName = regexp.MustCompile(`(?s)<command-name>(.*?)</command-name>`)
	commandMsg  = regexp.MustCompile(`(?s)<command-message>(.*?)</command-message>`)
	commandArgs = regexp.MustCompile(`(?s)<command-args>(.*?)</command-args>`)
	bashInput   = regexp.MustCompile(`(?s)<bash-input>(.*?)</bash-input>`)
)

// hostOutputTags open user lines that carry output of a command the human
// ran locally (not words addressed to the agent).
var hostOutputTags = []string{"<local-command-stdout>", "<local-command-stderr>", "<bash-stdout>", "<bash-stderr>"}

func system(name string) session.Source { return session.Source{Kind: session.KindSystem, Name: name} }

// hostOrigins are the kinds of a user line's origin (2.1.332) whose text
// the host, a plugin, an MCP channel or another agent put there, never the
// person: the pinned binary sets these, and human, person, suggestion and
// composer for the person's own input.
var hostOrigins = map[string]bool{
	"auto-continuation": true, "channel": true, "coordinator": true, "peer": true,
	"plugin": true, "task-notification": true, "observer-activity": true,
}

// classify decides who a user text is from, and returns the text a human
// instruction is kept with (a slash command becomes "/name args").
func (m *Mapper) classify(ln *line, text string) (session.Source, string) {
	t := strings.TrimSpace(text)
	switch {
	case ln.IsCompactSummary:
		return system("compact-summary"), text
	case ln.Origin != nil && hostOrigins[ln.Origin.Kind]:
		return system(ln.Origin.Kind), text
	case ln.IsMeta:
		switch {
		case strings.HasPrefix(t, "<local-command-caveat>"):
			return system("local-command-caveat"), text
		case strings.HasPrefix(t, "<system-reminder>"):
			return system("system-reminder"), text
		}
		return session.Source{Kind: session.KindSkill, Name: "skill"}, text
	case m.cfg.Parent != "" || ln.IsSidechain:
		return system("subagent-prompt"), text
	case strings.HasPrefix(t, "<task-notification>"):
		return system("task-notification"), text
	case strings.HasPrefix(t, "[Request interrupted by user"):
		return system("interrupted"), text
	case strings.HasPrefix(t, "<system-reminder>"):
		return system("system-reminder"), text
	case strings.HasPrefix(t, "<user-prompt-submit-hook>"):
		return system("hook"), text
	}
	for _, tag := range hostOutputTags {
		if strings.HasPrefix(t, tag) {
			return system("local-command-output"), text
		}
	}
	if strings.HasPrefix(t, "<command-name>") || strings.HasPrefix(t, "<command-message>") {
		if cmd := slashCommand(t); cmd != "" {
			return session.Source{Kind: session.KindUser, Name: "slash-command"}, cmd
		}
	}
	if mm := bashInput.FindStringSubmatch(t); mm != nil && strings.HasPrefix(t, "<bash-input>") {
		return session.Source{Kind: session.KindUser, Name: "bash-input"}, "! " + strings.TrimSpace(mm[1])
	}
	return session.Source{Kind: session.KindUser}, text
}

// slashCommand renders <command-name>/x</command-name> with its
// <command-args> as "/x args".
func slashCommand(t string) string {
	name := ""
	if mm := commandName.FindStringSubmatch(t); mm != nil {
		name = strings.TrimSpace(mm[1])
	} else if mm := commandMsg.FindStringSubmatch(t); mm != nil {
		name = "/" + strings.TrimSpace(mm[1])
	}
	if name == "" {
		return ""
	}
	if !strings.HasPrefix(name, "/") {
		name = "/" + name
	}
	if mm := commandArgs.FindStringSubmatch(t); mm != nil {
		if args := strings.TrimSpace(mm[1]); args != "" {
			return name + " " + args
		}
	}
	return name
}

var agentIDLine = regexp.MustCompile(`(?m)^agentId: ([A-Za-z0-9_-]+)`)

func (m *Mapper) toolResult(ln *line, b block, out *importer.Output) {
	call, found := m.open[b.ToolUseID]
	name := call.Name
	if !found {
		name = "unknown"
		if m.heldLine != "" {
			out.Warn("the tool_result %q of line %s has no tool_use before it nor on the line after it; imported with tool name %q", b.ToolUseID, m.heldLine, name)
		} else {
			out.Warn("tool_result %q has no tool_use before it; imported with tool name %q", b.ToolUseID, name)
		}
	}
	delete(m.open, b.ToolUseID)
	texts := m.resultTexts(b.ToolUseID, b.Content, out)
	ok := !b.IsError
	ev := m.event(ln, session.TypeToolResult, session.Source{Kind: session.KindTool})
	output := strings.Join(texts, "\n")
	if name == "Bash" || name == "PowerShell" {
		if rest, dir, found := cwdReset(output); found {
			output = rest
			ev.Meta["cwdReset"] = dir
		}
	}
	ev.Tool = &session.Tool{Name: name, CallID: b.ToolUseID, OK: &ok, Output: output}
	subagent := found && ok && (name == "Task" || name == "Agent") // its report follows
	background, agentID := false, ""
	if subagent {
		background, agentID = asyncLaunched(ln.ToolUseResult)
	}
	command := ""
	if ok && !subagent {
		command = backgroundTask(ln.ToolUseResult)
	}
	if background || command != "" {
		ev.Meta[session.MetaBackground] = "launched"
	}
	switch {
	case ok:
	case strings.HasPrefix(output, declinedSaying):
		ev.Meta[session.MetaDeclined] = session.DeclinedByUser // the call did not run
	case strings.HasPrefix(output, stoppedSaying):
		ev.Meta[session.MetaDeclined] = session.DeclinedStopped // it may have run in part
	}
	out.Emit(ev)
	if words, said := rejectionFeedback(output); said && !ok {
		// The person declined the call and said what to do instead: their
		// words reach the model only inside the result.
		h := m.event(ln, session.TypeUserMessage, session.Source{Kind: session.KindUser, Name: "rejection-feedback"})
		h.Text = words
		out.Emit(h)
	}
	if name == toolTaskCreate {
		m.taskCreated(ln, b.ToolUseID, ok, output, out)
	}
	if command != "" {
		// A command run in the background: its notification says how
		// it ended (asyncagent.go).
		m.launch(b.ToolUseID, command, call)
	}
	if !subagent {
		return
	}
	if background {
		// Run in the background: the result is a launch notice, the
		// report comes with its task notification (asyncagent.go).
		m.launch(b.ToolUseID, agentID, call)
		out.Skip("background agent's launch notice")
		return
	}
	m.report(ln, b, call, texts, out)
}

// declinedSaying opens every result Claude Code gives its model when the
// person declined a tool call at its permission prompt, with words
// (rejectedSaying) or without ("… STOP what you are doing and wait for the
// user to tell you how to proceed."); the pinned 2.1.332's binary holds
// both, 2.1.38 wrote the second.
const declinedSaying = "The user doesn't want to proceed with this tool use."

// stoppedSaying opens the result Claude Code gives its model for a call
// the person stopped while it ran (Esc): "… right now. STOP what you are
// doing and wait for the user to tell you how to proceed." (the pinned
// 2.1.332's binary holds it). The call may have run in part.
const stoppedSaying = "The user doesn't want to take this action right now."

// rejectedSaying opens the result Claude Code gives its model when the
// person declined a tool call and typed what to do instead (2.1.x; the
// pinned 2.1.332's binary holds it); the person's words follow it.
const rejectedSaying = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\n"

// rejectionFeedback is the person's words in such a result.
func rejectionFeedback(output string) (string, bool) {
	rest, ok := strings.CutPrefix(output, rejectedSaying)
	rest = strings.TrimSpace(rest)
	return rest, ok && rest != ""
}

// cwdReset splits off the note Claude Code ends a shell's result with when
// it moved the shell back to the project's folder, "Shell cwd was reset to
// <dir>" as the output's last line (its terminal view takes it out the same
// way: /(?:^|\n)(Shell cwd was reset to .+)$/): the output before it and
// dir; found is false when the output does not end with the note.
func cwdReset(output string) (rest, dir string, found bool) {
	const note = "Shell cwd was reset to "
	i := strings.LastIndex(output, note)
	if i < 0 || i > 0 && output[i-1] != '\n' {
		return "", "", false
	}
	dir = output[i+len(note):]
	if dir == "" || strings.Contains(dir, "\n") {
		return "", "", false
	}
	return strings.TrimSuffix(output[:i], "\n"), dir, true
}

// report emits the subagent/report that follows a successful Task/Agent
// result. Claude Code appends an "agentId: … <usage>" block to the result;
// it is bookkeeping, not the report, and is left out of the report text.
func (m *Mapper) report(ln *line, b block, call openCall, texts []string, out *importer.Output) {
	agentID := ""
	var parts []string
	for _, t := range texts {
		if mm := agentIDLine.FindStringSubmatch(t); mm != nil && strings.HasPrefix(strings.TrimSpace(t), "agentId:") {
			agentID = mm[1]
			continue
		}
		parts = append(parts, t)
	}
	if r := bytes.TrimSpace(ln.ToolUseResult); len(r) > 0 && r[0] == '{' {
		var tur struct {
			AgentID string `json:"agentId"`
		}
		if err := json.Unmarshal(r, &tur); err != nil {
			out.Warn("toolUseResult of %q does not decode (%v); agent id taken from the result text", b.ToolUseID, err)
		} else if tur.AgentID != "" {
			agentID = tur.AgentID
		}
	}
	text := strings.TrimSpace(strings.Join(parts, "\n"))
	if text == "" {
		out.Skip("empty sub-agent report")
		return
	}
	ev := m.event(ln, session.TypeSubagentReport, session.Source{Kind: session.KindSubagent, Name: call.Name})
	ev.Agent = call.Agent
	ev.Text = text
	ev.Meta["callId"] = b.ToolUseID
	if agentID != "" {
		ev.Meta["agentId"] = agentID
		if sub, ok := m.cfg.SubSessions[agentID]; ok {
			ev.Meta["subSession"] = sub
		}
	}
	out.Emit(ev)
}

// resultTexts reads tool_result content: a string, or blocks whose text is
// kept and whose images are noted. Content of another shape is kept as its
// raw JSON, with a warning.
func (m *Mapper) resultTexts(id string, raw json.RawMessage, out *importer.Output) []string {
	text, blocks, isText, err := m.content(raw)
	if err != nil {
		out.Warn("tool_result %q content does not decode (%v); its output is the raw JSON", id, err)
		return []string{string(raw)}
	}
	if isText {
		if text == "" {
			return nil
		}
		return []string{text}
	}
	var texts []string
	for _, b := range blocks {
		switch b.Type {
		case "text":
			texts = append(texts, b.Text)
		case "image":
			texts = append(texts, "[image]")
		default:
			texts = append(texts, fmt.Sprintf("[%s block]", b.Type))
		}
	}
	return texts
}

func (m *Mapper) assistant(ln *line, out *importer.Output) error {
	if ln.Message == nil {
		out.Malformed(errors.New("assistant line without message"))
		return nil
	}
	text, blocks, isText, err := m.content(ln.Message.Content)
	if err != nil {
		out.Malformed(err)
		return nil
	}
	if isText {
		blocks = []block{{Type: "text", Text: text}}
	}
	for _, b := range blocks {
		switch b.Type {
		case "text":
			if strings.TrimSpace(b.Text) == "" {
				out.Skip("empty assistant text")
				continue
			}
			ev := m.event(ln, session.TypeAssistantMessage, session.Source{Kind: session.KindAssistant})
			ev.Text = b.Text
			out.Emit(ev)
		case "thinking":
			if !m.cfg.KeepThinking || strings.TrimSpace(b.Thinking) == "" {
				out.Skip("thinking")
				continue
			}
			ev := m.event(ln, session.TypeAssistantMessage, session.Source{Kind: session.KindAssistant, Name: importer.ThinkingName})
			ev.Text = b.Thinking
			out.Emit(ev)
		case "redacted_thinking":
			out.Skip("redacted thinking")
		case "tool_use", "server_tool_use":
			m.toolCall(ln, b, out)
		default:
			if strings.HasSuffix(b.Type, "_tool_result") && b.ToolUseID != "" {
				m.toolResult(ln, b, out)
				continue
			}
			out.Skip("assistant block " + b.Type)
		}
	}
	return nil
}

func (m *Mapper) toolCall(ln *line, b block, out *importer.Output) {
	if b.Name == "" {
		out.Skip("tool_use without a name")
		out.Warn("tool_use %q has no name; not imported", b.ID)
		return
	}
	call := openCall{Name: b.Name}
	if b.Name == "Task" || b.Name == "Agent" {
		var in struct {
			SubagentType string `json:"subagent_type"`
			Description  string `json:"description"`
		}
		if err := json.Unmarshal(b.Input, &in); err != nil {
			out.Warn("%s %q input does not decode (%v); its report will name no agent", b.Name, b.ID, err)
		}
		call.Agent = in.SubagentType
		if call.Agent == "" {
			call.Agent = in.Description
		}
	}
	if b.ID != "" {
		m.open[b.ID] = call
	}
	ev := m.event(ln, session.TypeToolCall, session.Source{Kind: session.KindAssistant})
	ev.Tool = &session.Tool{Name: b.Name, CallID: b.ID, Input: b.Input}
	out.Emit(ev)
	if b.ID != "" {
		defer m.callCame(b.ID, out) // its result came first (early.go)
	}
	switch b.Name {
	case "TodoWrite":
		m.todoWrite(ln, b, out)
	case toolTaskCreate:
		m.taskCreate(b, out)
	case toolTaskUpdate:
		m.taskUpdate(ln, b, out)
	}
}

func (m *Mapper) todoWrite(ln *line, b block, out *importer.Output) {
	todos, ok := importer.TodoList("TodoWrite", b.ID, b.Input, out)
	if !ok {
		return
	}
	ev := m.event(ln, session.TypeTodoWrite, session.Source{Kind: session.KindAssistant})
	ev.Todos = todos
	ev.Meta["callId"] = b.ID
	out.Emit(ev)
}

// maxRecapRunes bounds the recap a system away_summary holds (seen at
// 215 to 294 characters).
const maxRecapRunes = 2000

func (m *Mapper) system(ln *line, out *importer.Output) {
	name := ln.Subtype
	if name == "" {
		name = "system"
	}
	clip := 200
	if ln.Subtype == "away_summary" {
		// The recap the person sees when they come back: the tape shows
		// the newest, so it is kept whole (doc.go).
		name, clip = session.SourceRecap, maxRecapRunes
	}
	ev := m.event(ln, session.TypeSystem, system(name))
	var text string
	if len(ln.Content) > 0 && ln.Content[0] == '"' && json.Unmarshal(ln.Content, &text) == nil && strings.TrimSpace(text) != "" {
		ev.Text = importer.Clip(text, clip)
	} else {
		ev.Text = name
	}
	if ln.Subtype != "" {
		ev.Meta["subtype"] = ln.Subtype
	}
	if ln.Level != "" {
		ev.Meta["level"] = ln.Level
	}
	if cm := ln.CompactMetadata; cm != nil {
		if cm.Trigger != "" {
			ev.Meta["trigger"] = cm.Trigger
		}
		if cm.PreTokens > 0 {
			ev.Meta["preTokens"] = strconv.FormatInt(cm.PreTokens, 10)
		}
	}
	out.Emit(ev)
}
