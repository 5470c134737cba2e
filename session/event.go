package session

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Event types (docs/DESIGN.md §3.1).
const (
	TypeUserMessage      = "user/message"
	TypeAssistantMessage = "assistant/message"
	TypeToolCall         = "tool/call"
	TypeToolResult       = "tool/result"
	TypeTodoWrite        = "todo/write"
	TypeSubagentReport   = "subagent/report"
	TypeGraftOrigin      = "graft/origin"
	TypeGraftRetired     = "graft/retired"
	TypeGraftUnretired   = "graft/unretired"
	TypeGraftAbandoned   = "graft/abandoned"
	// TypeSystem carries host events an importer keeps but no rule reads
	// (compaction boundaries, hooks, unknown line types).
	TypeSystem = "system/event"
)

// Source kinds.
const (
	KindUser      = "user"
	KindAssistant = "assistant"
	KindTool      = "tool"
	KindSubagent  = "subagent"
	KindPlugin    = "plugin"
	KindSystem    = "system"
	KindSkill     = "skill"
)

// Source names of the instruction files a host writes into its own log as
// system user/messages: the project's (SourceProjectInstructions, Codex's
// "# AGENTS.md instructions for …") and the instructions it gives its
// model whole (SourceUserInstructions, Codex's <user_instructions>, the
// AGENTS.md of older versions). The host reads those files again whenever
// a session of the directory starts or resumes, an export too
// (docs/DESIGN.md §8.3): the next window has them without the tape.
const (
	SourceProjectInstructions = "agents-md"
	SourceUserInstructions    = "user-instructions"
)

// SourceRecap names the system/event of a host's recap for the person: a
// short model-written account of the work and what comes next, which
// the host writes when the person comes back to the session (Claude
// Code's away_summary). The tape shows the newest (docs/DESIGN.md §4.1).
const SourceRecap = "recap"

// SourcePlanApproved names the user/message of kind system that carries a
// plan the person approved when the host cleared the context to implement
// it (MetaPlan): the host's words, on the person's approval.
const SourcePlanApproved = "plan-approved"

// IsInstructionFile says whether ev is a host's injection of an
// instruction file (SourceProjectInstructions, SourceUserInstructions).
func (ev *Event) IsInstructionFile() bool {
	return ev.Type == TypeUserMessage && ev.Source.Kind == KindSystem &&
		(ev.Source.Name == SourceProjectInstructions || ev.Source.Name == SourceUserInstructions)
}

// Todo statuses.
const (
	TodoPending    = "pending"
	TodoInProgress = "in_progress"
	TodoCompleted  = "completed"
)

// GraftMarker opens every text graft writes into a session. A user/message
// whose text carries it is never a human instruction, whatever its source.
const GraftMarker = "[graft:tape"

// Event is one line of a session log.
type Event struct {
	Seq    int64  `json:"seq"`
	TS     string `json:"ts,omitempty"`
	Type   string `json:"type"`
	Source Source `json:"source"`

	Text  string `json:"text,omitempty"`
	Tool  *Tool  `json:"tool,omitempty"`
	Todos []Todo `json:"todos,omitempty"`
	Agent string `json:"agent,omitempty"`

	// graft/* payload.
	Txn            string     `json:"txn,omitempty"`
	Parent         string     `json:"parent,omitempty"`
	ParentBoundary int64      `json:"parentBoundary,omitempty"`
	Generation     int        `json:"generation,omitempty"`
	TapeHash       string     `json:"tapeHash,omitempty"`
	TapeEvents     int        `json:"tapeEvents,omitempty"`
	Target         string     `json:"target,omitempty"`
	Reason         string     `json:"reason,omitempty"`
	Inherit        *Inherited `json:"inherit,omitempty"`
	Relies         *Relies    `json:"relies,omitempty"`

	// Meta is free-form provenance an importer keeps (source uuid, line).
	Meta map[string]string `json:"meta,omitempty"`
}

// Source says who produced an event.
type Source struct {
	Kind string `json:"kind"`
	Name string `json:"name,omitempty"`
}

// Tool is the payload of tool/call and tool/result.
type Tool struct {
	Name   string          `json:"name"`
	CallID string          `json:"callId,omitempty"`
	Input  json.RawMessage `json:"input,omitempty"`
	OK     *bool           `json:"ok,omitempty"`
	Output string          `json:"output,omitempty"`
}

// Todo is one item of a todo/write.
type Todo struct {
	ID      string `json:"id,omitempty"`
	Content string `json:"content"`
	Status  string `json:"status"`
}

// Origin names the human message a fact was copied from.
type Origin struct {
	Generation int    `json:"generation"`
	Session    string `json:"session"`
	Seq        int64  `json:"seq"`
}

func (o Origin) String() string {
	return fmt.Sprintf("gen %d %s seq=%d", o.Generation, o.Session, o.Seq)
}

// Constraint is a hard constraint with the origin it was first said at.
// Also lists later origins where the same constraint was said again.
type Constraint struct {
	Text   string   `json:"text"`
	Origin Origin   `json:"origin"`
	Also   []Origin `json:"also,omitempty"`
	// Pasted: every saying of it before the handoff was in a pasted
	// instruction (a log, a command's template): the next generation's
	// ranking cuts it first, as the generation that read the paste did.
	Pasted bool `json:"pasted,omitempty"`
}

// Quote is a human instruction carried across generations.
type Quote struct {
	Text   string `json:"text"`
	Origin Origin `json:"origin"`
	// Answer: the person's answer to the assistant's question (the result
	// of Claude Code's AskUserQuestion, Codex's request_user_input, …),
	// their own words though not a message they typed; Origin is the
	// tool result's.
	Answer bool `json:"answer,omitempty"`
	// Command is the text the host wrote for the command the person typed
	// (a slash command's template, a skill), by its first line and first
	// rule: the host's words, never the person's; handed on with the
	// instruction it followed.
	Command *CommandText `json:"command,omitempty"`
	// Picks are the options a short answer named ("6", "B", "1 and 3"),
	// as the assistant's message it answered listed them: model-written,
	// never the person's words; handed on with the answer, which means
	// nothing without them.
	Picks *Picks `json:"picks,omitempty"`
}

// Picks are the lines that open the options an answer named, in the
// assistant's message at seq From of the answer's session.
type Picks struct {
	From  int64    `json:"from"`
	Lines []string `json:"lines"`
}

// CommandText is a command's text by its first line and first rule, at
// seq At of its instruction's session.
type CommandText struct {
	At    int64  `json:"at"`
	First string `json:"first,omitempty"`
	Rule  string `json:"rule,omitempty"`
}

// Inherited is what a graft/origin event hands to the next generation in
// structured form, so nothing is re-parsed out of rendered tape text.
type Inherited struct {
	FirstGoal   *Quote       `json:"firstGoal,omitempty"`
	Constraints []Constraint `json:"constraints,omitempty"`
	// Said are the person's other instructions the tape's Goal quoted,
	// oldest first, each with its origin (as FirstGoal, its head and end
	// in 6,000 characters): the next generation's Goal quotes them before
	// its own, middle parts and all, where a tape's text would otherwise be
	// all that is left of them.
	Said []Quote `json:"said,omitempty"`
	// Files are the files the sessions before wrote or edited, newest
	// first, each as the tape's Workspace Files named it (Note, its seqs
	// those of Session): the next generation lists those it did not touch
	// itself after its own.
	Files []FileNote `json:"files,omitempty"`
	// Plan is the plan the person approved to start the work when the
	// host cleared the context to implement it (the work's task):
	// model-written, never an instruction or a constraint; its head and
	// end within 6,000 characters, with the origin of the host's message
	// that carried it.
	Plan *Passage `json:"plan,omitempty"`
	// ApprovedPlan is the newest plan the person approved in the host's
	// plan mode when no plan is the work's task (Plan): model-written,
	// never an instruction or a constraint; its head and end within 6,000
	// characters, with the origin of the call that proposed it. The next
	// generation's Task Status shows it until a plan of its own.
	ApprovedPlan *Passage `json:"approvedPlan,omitempty"`
	// Place is where the work was done at the cut: the working directory
	// the tape names files relative to and the git branch the work is on.
	// The next generation starts from it until its own events name
	// another (a host may name its working directory once, in the
	// session's first records, and the export writes those).
	Place *Place `json:"place,omitempty"`
	// Messages are the assistant's newest messages of the work before
	// (its carryover, not those that only announce a tool call), oldest
	// first, each at most 1,500 characters with its origin: model-written,
	// never an instruction or a constraint. The next generation's
	// Breakpoint lists them before its own earlier messages.
	Messages []Passage `json:"messages,omitempty"`
	// Prompts are the prompts the person typed in a session they pasted
	// into an instruction handed on (FirstGoal's or one of Said's): one
	// Quote per paste, its prompts one per line, with the paste's origin.
	// The next generation's Goal lists those its quote does not show.
	Prompts []Quote `json:"prompts,omitempty"`
	// MoreConstraints counts, per session, the constraint sayings the
	// tape's fold did not keep past its cap (tape/doc.go, Budget).
	MoreConstraints []More `json:"moreConstraints,omitempty"`
	// Todos is the work's last todo list, as the session that wrote it
	// last held it, with the origin of its todo/write: the next
	// generation's Task Status and Pending State show it until that
	// session writes a list of its own.
	Todos *TodoList `json:"todos,omitempty"`
	// Failures are the failed tool calls no later call had fixed at the
	// cut, newest last, each as the tape's Pending State listed it (Text:
	// its call line and the lines of its output, seqs of Origin's
	// session) with the call's tool and what it ran: the next generation
	// lists them until a successful run of the same call fixes them.
	Failures []CallNote `json:"failures,omitempty"`
	// Workarounds are the last failures a later call worked around
	// another way (a flag the failed call lacked, the same script run
	// another way), each as Pending State listed it with the call that
	// fixed it: what does not work here, and what does. The next
	// generation lists them and hands them on.
	Workarounds []CallNote `json:"workarounds,omitempty"`
	// Milestones are the work's newest outcomes, as the tape's Milestones
	// and Recent Actions listed them (Text: the call line and its last
	// key lines, seqs of Origin's session): its commits, pushes, pull
	// requests, tracker updates and test and build runs. The next
	// generation's Milestones list them before its own, and its target
	// hands them on with its own.
	Milestones []CallNote `json:"milestones,omitempty"`
	// Goal is the goal the source's host still pursued at the cut (its
	// /goal, active): the export of the target writes it into the new
	// host session where the host restores it from its session file
	// (hosts/doc.go), and the target's own fold starts with it. A goal
	// the person paused, one met, failed or cleared, is not carried.
	Goal *HostGoal `json:"goal,omitempty"`
}

// CallNote is a tool call handed on by its line (a failure, a workaround,
// a milestone): the tool, what it ran, the line the tape listed it by,
// and the origin of its result.
type CallNote struct {
	Tool   string `json:"tool"`
	What   string `json:"what,omitempty"`
	Text   string `json:"text"`
	Origin Origin `json:"origin"`
}

// TodoList is a todo list handed on: its items and the origin of the
// todo/write that wrote it.
type TodoList struct {
	Items  []Todo `json:"items"`
	Origin Origin `json:"origin"`
}

// Place is where the work is done: a working directory, a git branch and
// the commit the work started at, each empty when no event named it.
type Place struct {
	Cwd       string `json:"cwd,omitempty"`
	GitBranch string `json:"gitBranch,omitempty"`
	GitCommit string `json:"gitCommit,omitempty"`
}

// Passage is model-written text an inherit carries, with the origin of
// the event that carried it.
type Passage struct {
	Text   string `json:"text"`
	Origin Origin `json:"origin"`
}

// FileNote is a file an earlier session wrote or edited, as its tape
// named it: the path (relative to that session's working directory), what
// the tape said of it past the path, and the session, its generation and
// the seq of the file's last change there.
type FileNote struct {
	Path       string `json:"path"`
	Note       string `json:"note"`
	Session    string `json:"session"`
	Generation int    `json:"generation"`
	Seq        int64  `json:"seq"`
}

// HostGoal is a goal a host keeps for a session (its /goal) as an
// inherit carries it: its objective, its status as the host named it
// ("active") and the origin of the event that last said it, in the
// session the graft was cut from (a system event, or the graft/origin
// that carried it there).
type HostGoal struct {
	Objective string `json:"objective"`
	Status    string `json:"status"`
	Origin    Origin `json:"origin"`
}

// More counts things said in one session, at seqs From..To, that were not
// kept: the place to recall them.
type More struct {
	Session string `json:"session"`
	N       int    `json:"n"`
	From    int64  `json:"from"`
	To      int64  `json:"to"`
}

// Relies is what a graft target relies on in its ancestors, recorded in its
// graft/origin at commit, so that graft audit can tell when any byte of it
// changed since: the prefix of each ancestor (the events before the
// boundary the next generation was cut at) and the log line of each origin
// the inherit cites. The digests are defined in tape/doc.go (Hashes).
type Relies struct {
	// Prefixes has one entry per ancestor, oldest first: the parent's, and
	// those the parent's own graft/origin relied on.
	Prefixes []PrefixMark `json:"prefixes"`
	// Origins has the line digest of every origin inherit cites (each
	// constraint's origin and also, the first goal), in any ancestor,
	// sorted by generation, session and seq.
	Origins []OriginLine `json:"origins"`
}

// PrefixMark is tape's prefix hash over the events of Session before seq
// Boundary, as the graft that cut Session at Boundary computed it.
type PrefixMark struct {
	Session    string `json:"session"`
	Generation int    `json:"generation"`
	Boundary   int64  `json:"boundary"`
	PrefixHash string `json:"prefixHash"`
}

// OriginLine is the line digest of the event an origin names, taken from
// the log line when the origin was first relied on.
type OriginLine struct {
	Origin Origin `json:"origin"`
	Line   string `json:"line"`
}

// OKResult reports whether a tool/result succeeded. Absent "ok" counts as
// success.
func (e *Event) OKResult() bool {
	return e.Tool == nil || e.Tool.OK == nil || *e.Tool.OK
}

// MetaDeclined is the meta key an importer sets on the tool/result of a call
// the person turned down: DeclinedByUser when they declined it at the host's
// permission prompt (it did not run), DeclinedStopped when they stopped it
// (at its prompt or while it ran: it may have run in part). The result is
// not ok, and no failure.
const MetaDeclined = "declined"

// The values of MetaDeclined.
const (
	DeclinedByUser  = "user"
	DeclinedStopped = "stopped"
)

// MetaGoalStatus and MetaGoalObjective are the meta keys an importer sets
// (importer.SetGoal) on an event that says what the session's host-kept
// goal now is (Codex's thread goal, Qwen Code's Goal and Claude Code's goal
// condition, which the person sets with /goal and the agent works at turn
// after turn): its status as the host names it ("active", "paused",
// "blocked", "usage_limited", "budget_limited", "complete"; Claude Code's
// met is "complete", its impossible "failed"), or GoalCleared once the
// person cleared it, and its objective (absent when the host said the
// status alone). The event is the system/event the host wrote when the
// goal changed, the tool/result of a goal tool that returned it, or the
// host's own context for its model that said it (Codex's /goal clear).
const (
	MetaGoalStatus    = "goalStatus"
	MetaGoalObjective = "goalObjective"
	// MetaGoalReason is what the host's last check of the goal said of it
	// (why it is not met, why it was paused), when it said something.
	MetaGoalReason = "goalReason"
)

// MetaFinalAnswer is set ("true") on a subagent/report the host itself
// calls the sub-agent's final answer (Codex's agent_message of type
// FINAL_ANSWER): a report whatever its first words.
const MetaFinalAnswer = "finalAnswer"

// MetaBackground is set ("launched") on the tool/result of a call the host
// ran in the background (Claude Code's Agent, Bash or PowerShell with
// run_in_background): the result is the host's launch notice; an agent's
// report comes later, a subagent/report whose meta callId names the call,
// and a command's end an injected message with meta callId and
// MetaTaskStatus.
const MetaBackground = "background"

// MetaPlan is set on a user/message of kind system, plan-approved, that
// carries a plan the person approved (Claude Code's plan-mode exit that
// clears the context: "Implement the following plan: …"): "start:end",
// the byte range of the plan in its text (PlanRange). The plan is the
// model's: no human instruction, no constraint.
const MetaPlan = "plan"

// PlanRange reads MetaPlan's "start:end" over a text of n bytes; ok false
// when it is no such range.
func PlanRange(v string, n int) (start, end int, ok bool) {
	a, b, found := strings.Cut(v, ":")
	if !found {
		return 0, 0, false
	}
	start, err1 := strconv.Atoi(a)
	end, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil || start < 0 || end < start || end > n {
		return 0, 0, false
	}
	return start, end, true
}

// MetaProposedPlan is set on an assistant/message that proposes a plan to
// the person (Codex's Plan mode ends its turn with the plan in a
// <proposed_plan> block): "start:end", the byte range of the plan in its
// text (PlanRange). Codex asks the person "Implement this plan?" and, on
// yes, leaves Plan mode: a later turn setting (meta collaborationMode)
// other than "plan" is their answer. The plan is the model's.
const MetaProposedPlan = "proposedPlan"

// MetaTaskStatus is how a command run in the background ended
// ("completed", "failed", "killed"), on the host's notification of it (a
// user/message of kind system whose meta callId names the call).
const MetaTaskStatus = "taskStatus"

// MetaPullRequest is the URL of a pull request the host linked to the
// session (Claude Code's pr-link line; meta prNumber its number).
const MetaPullRequest = "prUrl"

// MetaPlanFile names the file a host in plan mode tells its model to
// write its plan to (Claude Code's plan_mode attachment, planFilePath).
const MetaPlanFile = "planFile"

// MetaChangedOutside names a file the host saw change outside its model's
// tools (the person, a formatter, a merge) and told its model so, on the
// host's own event (Claude Code's edited_text_file attachment), whose text
// holds the lines around the change.
const MetaChangedOutside = "changedOutside"

// GoalCleared is the MetaGoalStatus of a goal the person cleared: the
// session has none. GoalComplete and GoalFailed are the statuses of a goal
// that ended (met, or judged impossible), as the hosts name them; any other
// status is of a goal still pursued: GoalActive, in every host that keeps
// one, when it is not paused or held by a limit.
const (
	GoalActive   = "active"
	GoalCleared  = "cleared"
	GoalComplete = "complete"
	GoalFailed   = "failed"
)

// Declined reports whether e is the tool/result of a call the person
// declined (MetaDeclined).
func (e *Event) Declined() bool {
	return e.Type == TypeToolResult && e.Meta[MetaDeclined] != ""
}

// IsHumanInstruction is the one rule of docs/DESIGN.md §2: a user/message from a
// human source whose text carries no graft marker. Nothing else is.
func (e *Event) IsHumanInstruction() bool {
	return e.Type == TypeUserMessage && e.Source.Kind == KindUser && !strings.Contains(e.Text, GraftMarker)
}

// IsAnswerTool reports whether a tool's result carries the person's own
// answer to the assistant's question: Claude Code's AskUserQuestion, Codex's
// request_user_input, Gemini CLI's ask_user, Qwen Code's ask_user_question.
func IsAnswerTool(name string) bool {
	return strings.EqualFold(name, "AskUserQuestion") || name == "request_user_input" || name == "ask_user" || name == "ask_user_question"
}

// IsAnswer reports whether the event is the person's answer to the
// assistant's question: a successful result of an answer tool
// (IsAnswerTool), which a tape quotes with the user's words.
func (e *Event) IsAnswer() bool {
	return e.Type == TypeToolResult && e.Tool != nil && IsAnswerTool(e.Tool.Name) && e.OKResult()
}

// IsGraft reports whether the event is one of graft's own graft/* marks.
func (e *Event) IsGraft() bool { return strings.HasPrefix(e.Type, "graft/") }

// AllText is everything an event says, for a search (graft find, the
// fidelity scorer's places): its text, its agent's name, the string
// values of its tool call's input as written, not JSON-escaped (a file
// written: its text; an object's values by key), its tool output and its
// todos, one per line. An input that is not JSON counts as it stands.
func (e *Event) AllText() string {
	var b strings.Builder
	add := func(s string) {
		if s != "" {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(s)
		}
	}
	add(e.Text)
	add(e.Agent)
	if t := e.Tool; t != nil {
		if len(t.Input) > 0 {
			var v any
			if json.Unmarshal(t.Input, &v) == nil {
				eachString(v, add)
			} else {
				add(string(t.Input))
			}
		}
		add(t.Output)
	}
	for _, td := range e.Todos {
		add(td.Content)
	}
	return b.String()
}

// eachString calls add with each string of a decoded JSON value, an
// object's by key.
func eachString(v any, add func(string)) {
	switch v := v.(type) {
	case string:
		add(v)
	case []any:
		for _, x := range v {
			eachString(x, add)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			eachString(v[k], add)
		}
	}
}

var knownTypes = map[string]bool{
	TypeUserMessage: true, TypeAssistantMessage: true, TypeToolCall: true, TypeToolResult: true,
	TypeTodoWrite: true, TypeSubagentReport: true, TypeGraftOrigin: true, TypeGraftRetired: true,
	TypeGraftUnretired: true, TypeGraftAbandoned: true, TypeSystem: true,
}

// Validate checks the fields an event of its type must have.
func (e *Event) Validate() error {
	if !knownTypes[e.Type] {
		return fmt.Errorf("unknown event type %q", e.Type)
	}
	if e.Source.Kind == "" {
		return fmt.Errorf("event type %q: source.kind is empty", e.Type)
	}
	switch e.Type {
	case TypeToolCall, TypeToolResult:
		if e.Tool == nil || e.Tool.Name == "" {
			return fmt.Errorf("event type %q: tool.name is required", e.Type)
		}
	case TypeGraftOrigin, TypeGraftRetired, TypeGraftUnretired, TypeGraftAbandoned:
		if e.Txn == "" {
			return fmt.Errorf("event type %q: txn is required", e.Type)
		}
	}
	return nil
}
