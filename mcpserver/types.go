package mcpserver

// The typed inputs and outputs of the tools. The SDK derives each tool's
// JSON Schema from these structs; the jsonschema tag is the description an
// agent reads, so every field has one. Optional inputs carry omitempty.
// {hosts}, {titles}, {transcripts}, {resumes} and {continuers} in a
// description stand for the hosts of the registry (hostwords.go).

// PrepareInput is the input of graft_prepare.
type PrepareInput struct {
	Source       string `json:"source,omitempty" jsonschema:"id of the graft session to graft (the one whose context is running out); required unless preparedId or host is given"`
	Host         string `json:"host,omitempty" jsonschema:"graft the host session this agent runs in: {hosts}. With transcript or hostSessionId that session; with neither, the session the hooks followed last in the server's working directory (for {continuers} without hooks: the newest transcript of that directory). Its new turns are imported first; graft_commit then returns the new host session to resume"`
	Transcript   string `json:"transcript,omitempty" jsonschema:"path of the host's transcript ({transcripts}); given without host, the host is the one whose records its first lines are"`
	HostSession  string `json:"hostSessionId,omitempty" jsonschema:"with host: the host's session id (uuid); its transcript is found as the host finds it"`
	Tier         string `json:"tier,omitempty" jsonschema:"replay tier: A replays no turn verbatim; B replays the last closed turn verbatim (default: the server's config, else A)"`
	RecentTurns  int    `json:"recentTurns,omitempty" jsonschema:"replay this many closed turns verbatim (0..5; overrides tier)"`
	AutoTier     bool   `json:"autoTier,omitempty" jsonschema:"switch to tier B when todos are unfinished or a recent tool call failed"`
	Budget       int    `json:"budget,omitempty" jsonschema:"character budget of the whole tape, 4000..100000 (0 or absent: the server's config, else 16000)"`
	AllowReslice bool   `json:"allowReslice,omitempty" jsonschema:"prepare a source that is already retired again; the new target becomes a sibling of the existing one"`
	To           string `json:"to,omitempty" jsonschema:"the host the work goes on in, when it is not the one the session lives in ({hosts}): the tape then tells the agent which instruction files of the project that host read and this one does not, to read first, and the warnings tell the user; pass the same host to graft_commit"`
	PreparedID   string `json:"preparedId,omitempty" jsonschema:"read more of an existing review instead of preparing a new one: its preparedId (with offset)"`
	Offset       int    `json:"offset,omitempty" jsonschema:"character offset into the tape of the review named by preparedId: pass the nextOffset of the previous result"`
}

// Origin names the human message a fact was copied from.
type Origin struct {
	Generation int    `json:"generation" jsonschema:"generation of the session that holds the message (1 for a session nobody grafted into)"`
	Session    string `json:"session" jsonschema:"id of the session that holds the message"`
	Seq        int64  `json:"seq" jsonschema:"seq of the message in that session (graft_recall reads it)"`
}

// Quote is a human instruction carried across generations.
type Quote struct {
	Text   string `json:"text" jsonschema:"the human's words (cut when very long: the cut says how to read the rest)"`
	Origin Origin `json:"origin" jsonschema:"where the words were said"`
	Answer bool   `json:"answer,omitempty" jsonschema:"the person's answer to the assistant's question (the words of a tool result), not a message they typed"`
	// Command is set on an instruction handed down with the text the host
	// wrote for the command it typed.
	Command *CommandText `json:"command,omitempty" jsonschema:"the text the host wrote for the command the person typed (a slash command's template, a skill), by its first line and first rule: the host's words, not the person's"`
	// Picks is set on a short answer handed down with the options it
	// named.
	Picks *Picks `json:"picks,omitempty" jsonschema:"the options a short answer named (\"6\", \"B\"), as the assistant's message it answered listed them: model-written, not the person's words"`
}

// Picks are the lines that open the options an answer named.
type Picks struct {
	From  int64    `json:"from" jsonschema:"the seq of the assistant's message that listed them, in the session of the answer's origin"`
	Lines []string `json:"lines" jsonschema:"the line that opens each option, as written"`
}

// CommandText is a command's text by its first line and first rule.
type CommandText struct {
	At    int64  `json:"at" jsonschema:"its seq, in the session of the instruction's origin"`
	First string `json:"first,omitempty" jsonschema:"its first line of its own"`
	Rule  string `json:"rule,omitempty" jsonschema:"its first saying that states a rule"`
}

// CallNote is a tool call an earlier generation handed on by its line: a
// failure, a workaround, a milestone.
type CallNote struct {
	Tool   string `json:"tool" jsonschema:"the tool the call used"`
	What   string `json:"what,omitempty" jsonschema:"what it ran (the command, the path)"`
	Text   string `json:"text" jsonschema:"the line the tape listed it by, with its output's lines (seqs of the origin's session)"`
	Origin Origin `json:"origin" jsonschema:"the call's result"`
}

// TodoList is a todo list an earlier generation handed on.
type TodoList struct {
	Items  []Todo `json:"items" jsonschema:"its items, as the session that wrote it last held them"`
	Origin Origin `json:"origin" jsonschema:"the todo/write that wrote it"`
}

// Place is where the work was done.
type Place struct {
	Cwd       string `json:"cwd,omitempty" jsonschema:"the working directory the tape names files relative to"`
	GitBranch string `json:"gitBranch,omitempty" jsonschema:"the git branch the work is on"`
	GitCommit string `json:"gitCommit,omitempty" jsonschema:"the commit the work started at"`
}

// HostGoal is the goal a host keeps for the session (its /goal).
type HostGoal struct {
	Status    string `json:"status" jsonschema:"as the host names it: active, paused, blocked, usage_limited, budget_limited, complete or failed"`
	Objective string `json:"objective,omitempty" jsonschema:"what the goal asks, in the user's words"`
	Seq       int64  `json:"seq" jsonschema:"the seq that last said it"`
}

// Constraint is a hard constraint with the origin it was first said at.
type Constraint struct {
	Text   string   `json:"text" jsonschema:"the constraint, copied from the user's own words"`
	Origin Origin   `json:"origin" jsonschema:"where it was first said, kept through every later graft"`
	Also   []Origin `json:"also" jsonschema:"later places where the same constraint was said again"`
}

// Leftover is a target an earlier crashed graft of this source left behind.
type Leftover struct {
	Source string `json:"source" jsonschema:"the session the crashed graft was cutting"`
	Target string `json:"target" jsonschema:"the target session the crashed graft left behind (marked abandoned; never resume it)"`
	Txn    string `json:"txn" jsonschema:"transaction id of the crashed graft"`
	State  string `json:"state" jsonschema:"how far that transaction got (journal state)"`
	Reason string `json:"reason" jsonschema:"why it was rolled back"`
}

// PrepareOutput is the review graft_prepare returns.
type PrepareOutput struct {
	PreparedID  string       `json:"preparedId" jsonschema:"id of this review: pass it to graft_commit together with tapeHash"`
	Source      string       `json:"source" jsonschema:"the session this review would graft"`
	BoundarySeq int64        `json:"boundarySeq" jsonschema:"seq of the human instruction that opens the open turn; a new human message after it makes the commit refuse (boundary_drift)"`
	LastSeq     int64        `json:"lastSeq" jsonschema:"last seq of the source when the review was made"`
	Generation  int          `json:"generation" jsonschema:"generation of the source; the target will be generation+1"`
	Goal        []Quote      `json:"goal" jsonschema:"the first human instruction of generation 1 and the latest ones"`
	Progress    string       `json:"progress" jsonschema:"one line of todo progress"`
	HostGoal    *HostGoal    `json:"hostGoal,omitempty" jsonschema:"the goal the source's host still keeps for it (its /goal), absent when none: the host keeps it per session; an active one goes on in an export to Claude Code or Qwen Code, which restore it from the session file; in Codex or Gemini CLI the new session has none until the user sets it again (the commit's notes say which)"`
	Constraints []Constraint `json:"constraints" jsonschema:"hard constraints the tape carries, each with its original origin"`
	// MoreConstraints: the sayings past the tape's cap, counted, never dropped silently.
	MoreConstraints []MoreConstraints `json:"moreConstraints,omitempty" jsonschema:"per session, the constraint sayings past the tape's cap (8,000 constraints, tape.MaxConstraints) that the tape does not list: how many and their seq range; graft_recall reads them"`
	Leftovers       []Leftover        `json:"leftovers" jsonschema:"targets that earlier crashed grafts of this source left behind"`
	TapeChars       int               `json:"tapeChars" jsonschema:"characters of the whole tape"`
	CarryoverChars  int               `json:"carryoverChars" jsonschema:"characters of the open-turn carryover (the Breakpoint block)"`
	TapeHash        string            `json:"tapeHash" jsonschema:"hash of the tape: pass it unchanged to graft_commit"`
	PrefixHash      string            `json:"prefixHash" jsonschema:"hash of the source up to the boundary; a change makes the commit refuse"`
	Warnings        []string          `json:"warnings" jsonschema:"things the user should know before approving"`
	Tier            string            `json:"tier" jsonschema:"replay tier the tape was built with (empty means A)"`
	RecentTurns     int               `json:"recentTurns" jsonschema:"closed turns replayed verbatim"`
	Budget          int               `json:"budget" jsonschema:"character budget the tape was built with (0 means the default)"`
	AllowReslice    bool              `json:"allowReslice" jsonschema:"whether this review re-slices an already retired source"`
	Expires         string            `json:"expires" jsonschema:"when the review stops being committable (RFC 3339); after that graft_commit answers expired_prepared"`
	Tape            string            `json:"tape" jsonschema:"the tape text from tapeOffset on, at most the server's chunk size"`
	TapeOffset      int               `json:"tapeOffset" jsonschema:"character offset of the tape field within the whole tape"`
	NextOffset      int               `json:"nextOffset,omitempty" jsonschema:"set when the tape continues: call graft_prepare with preparedId and offset=nextOffset for the next chunk; absent when tape ends the tape"`
	HostSession     *HostSession      `json:"hostSession,omitempty" jsonschema:"with host: the host session that was imported and prepared, and how the server picked it"`
	Next            string            `json:"next" jsonschema:"what to do next"`
}

// MoreConstraints counts the constraint sayings of one session past the
// tape's cap.
type MoreConstraints struct {
	Session string `json:"session" jsonschema:"the session that said them"`
	N       int    `json:"n" jsonschema:"how many"`
	From    int64  `json:"from" jsonschema:"seq of the first"`
	To      int64  `json:"to" jsonschema:"seq of the last"`
}

// HostSession is a host session graft_prepare worked on.
type HostSession struct {
	Host          string `json:"host" jsonschema:"{hosts}"`
	HostSessionID string `json:"hostSessionId" jsonschema:"the host's session id"`
	Transcript    string `json:"transcript" jsonschema:"the host's transcript that was imported"`
	Picked        string `json:"picked" jsonschema:"how the session was picked: given, hooks (followed last in the server's directory) or newest (the newest {continuers} transcript there); tell the user which session it is"`
}

// HostExport is the host session a commit was exported as.
type HostExport struct {
	Host          string   `json:"host" jsonschema:"{hosts}"`
	HostSessionID string   `json:"hostSessionId" jsonschema:"id of the new host session"`
	Path          string   `json:"path" jsonschema:"its transcript"`
	ResumeCommand string   `json:"resumeCommand" jsonschema:"the command that resumes it ({resumes}): give it to the user"`
	Notes         []string `json:"notes,omitempty" jsonschema:"when the work goes on in another host: each instruction file of the project the first host read and this one does not (its rules do not reach the new session): tell the user"`
}

// CommitInput is the input of graft_commit.
type CommitInput struct {
	PreparedID string `json:"preparedId" jsonschema:"the preparedId graft_prepare returned"`
	TapeHash   string `json:"tapeHash" jsonschema:"the tapeHash of that same review, unchanged: it proves which tape the user approved"`
	Target     string `json:"target,omitempty" jsonschema:"id of the new session (default <source>.g<generation>)"`
	Host       string `json:"host,omitempty" jsonschema:"the host the work goes on in ({hosts}); default: the host the source lives in (a session that lives in no host is committed only)"`
}

// CommitOutput is a committed graft.
type CommitOutput struct {
	TargetID    string      `json:"targetId" jsonschema:"the new session: continue the work there"`
	TxnID       string      `json:"txnId" jsonschema:"transaction id of the graft"`
	Source      string      `json:"source" jsonschema:"the session that is now retired (never deleted; graft_recall still reads it)"`
	TapeHash    string      `json:"tapeHash" jsonschema:"hash of the tape written into the target (differs from the approved one only when the notes say so)"`
	TapeChars   int         `json:"tapeChars" jsonschema:"characters of the tape written"`
	TapeEvents  int         `json:"tapeEvents" jsonschema:"events the target starts with"`
	Generation  int         `json:"generation" jsonschema:"generation of the target"`
	BoundarySeq int64       `json:"boundarySeq" jsonschema:"boundary seq of the source the tape was cut at"`
	Notes       []string    `json:"notes" jsonschema:"what changed between the review and the commit (e.g. the open turn grew): tell the user"`
	DriftCheck  string      `json:"driftCheck" jsonschema:"how the commit checked the review against the source: sealed (the source was the bytes the review read, so the reviewed tape was written) or rebuilt (the source was folded again and the tape compared)"`
	HostSession *HostExport `json:"hostSession,omitempty" jsonschema:"when the source lives in a host (imported from or exported to {titles}): the new host session the target was exported as"`
	ExportError string      `json:"exportError,omitempty" jsonschema:"set when the graft committed but exporting it to the host failed: tell the user (the graft stands; graft export can be run again)"`
	Next        string      `json:"next" jsonschema:"what to do next"`
}

// RecallInput is the input of graft_recall.
type RecallInput struct {
	Session string `json:"session" jsonschema:"id of any session, retired or abandoned ones included"`
	Seq     int64  `json:"seq" jsonschema:"the seq to read, e.g. one a tape cites as recall seq=N"`
	Offset  int    `json:"offset,omitempty" jsonschema:"character offset into the event's content: pass the nextOffset of the previous result"`
}

// FindInput is the input of graft_find.
type FindInput struct {
	Session string   `json:"session" jsonschema:"id of any session, retired or abandoned ones included: for what a tape left out, the session its Handoff block says it continues"`
	Words   []string `json:"words" jsonschema:"words every matching event must hold, case folded, in any order and place; white space inside one splits it"`
	Limit   int      `json:"limit,omitempty" jsonschema:"how many of the newest matches to return: 1 to 100 (default 10)"`
	Before  int64    `json:"before,omitempty" jsonschema:"only events below this seq: pass the older of the previous result for the next older page"`
}

// FindMatch is one event that holds every word.
type FindMatch struct {
	Seq     int64  `json:"seq" jsonschema:"the event's seq: graft_recall reads it whole"`
	Type    string `json:"type" jsonschema:"the event's type (user/message, assistant/message, tool/call, tool/result, todo/write, …)"`
	Source  string `json:"source" jsonschema:"who it is from: user (the person's own words only with type user/message), assistant, tool, plugin, system, …"`
	Tool    string `json:"tool,omitempty" jsonschema:"the tool of a tool/call or tool/result"`
	Snippet string `json:"snippet" jsonschema:"the event's text around the first word, on one line (⏎ for a line break), cut with …"`
}

// FindOutput is the result of graft_find.
type FindOutput struct {
	Session string      `json:"session" jsonschema:"the session searched"`
	Words   []string    `json:"words" jsonschema:"the words searched for, lower-cased"`
	Matches []FindMatch `json:"matches" jsonschema:"the newest matches, newest first"`
	Total   int         `json:"total" jsonschema:"how many events match (below before)"`
	Older   int64       `json:"older,omitempty" jsonschema:"set when older matches remain: call again with before=older"`
	// Continues is set in a graft target.
	Continues string `json:"continues,omitempty" jsonschema:"the session this graft target continues: what its tape did not carry is in that log; call graft_find with it as session"`
}

// Todo is one item of a todo list.
type Todo struct {
	ID      string `json:"id" jsonschema:"the item's id (may be empty)"`
	Content string `json:"content" jsonschema:"what the item says"`
	Status  string `json:"status" jsonschema:"pending, in_progress or completed"`
}

// RecallOutput is one event; its largest payload is in content, paged.
type RecallOutput struct {
	Session               string            `json:"session" jsonschema:"the session read"`
	Seq                   int64             `json:"seq" jsonschema:"the event's seq"`
	TS                    string            `json:"ts" jsonschema:"when the event was written (RFC 3339)"`
	Type                  string            `json:"type" jsonschema:"event type: user/message, assistant/message, tool/call, tool/result, todo/write, subagent/report, system/event or graft/*"`
	SourceKind            string            `json:"sourceKind" jsonschema:"who produced it: user, assistant, tool, subagent, plugin, system or skill"`
	SourceName            string            `json:"sourceName,omitempty" jsonschema:"name of the producer, when known"`
	HumanInstruction      bool              `json:"humanInstruction" jsonschema:"true only for a user/message the human wrote (not injected text, not a tape)"`
	ToolName              string            `json:"toolName,omitempty" jsonschema:"tool of a tool/call or tool/result"`
	ToolCallID            string            `json:"toolCallId,omitempty" jsonschema:"call id linking a tool/call to its tool/result"`
	ToolFailed            bool              `json:"toolFailed,omitempty" jsonschema:"true when a tool/result reports that the call failed"`
	Agent                 string            `json:"agent,omitempty" jsonschema:"sub-agent of a subagent/report"`
	Todos                 []Todo            `json:"todos" jsonschema:"the list of a todo/write"`
	Txn                   string            `json:"txn,omitempty" jsonschema:"transaction of a graft/* event"`
	Parent                string            `json:"parent,omitempty" jsonschema:"graft/origin: the session this one was grafted from"`
	ParentBoundary        int64             `json:"parentBoundary,omitempty" jsonschema:"graft/origin: the parent's boundary seq"`
	Generation            int               `json:"generation,omitempty" jsonschema:"graft/origin: generation of this session"`
	TapeHash              string            `json:"tapeHash,omitempty" jsonschema:"graft/origin: hash of the tape this session starts with"`
	Target                string            `json:"target,omitempty" jsonschema:"graft/retired and graft/unretired: the target of the graft"`
	Reason                string            `json:"reason,omitempty" jsonschema:"graft/abandoned: why"`
	InheritedGoal         *Quote            `json:"inheritedGoal,omitempty" jsonschema:"graft/origin: the first goal of generation 1, handed down"`
	InheritedConstraints  []Constraint      `json:"inheritedConstraints" jsonschema:"graft/origin: the hard constraints handed down, with their origins"`
	InheritedSaid         []Quote           `json:"inheritedSaid,omitempty" jsonschema:"graft/origin: the person's other instructions handed down, oldest first, with their origins"`
	InheritedPlan         *Quote            `json:"inheritedPlan,omitempty" jsonschema:"graft/origin: the plan the person approved as the work's task, handed down (model-written), with the origin of the host's message that carried it"`
	InheritedMessages     []Quote           `json:"inheritedMessages,omitempty" jsonschema:"graft/origin: the assistant's newest messages handed down (model-written: context, not an instruction), oldest first, with their origins"`
	InheritedApprovedPlan *Quote            `json:"inheritedApprovedPlan,omitempty" jsonschema:"graft/origin: the newest plan the person approved in the host's plan mode, when none is the work's task, handed down (model-written), with the origin of the call that proposed it"`
	InheritedFailures     []CallNote        `json:"inheritedFailures,omitempty" jsonschema:"graft/origin: the failed tool calls no later call had fixed at the cut, handed down, newest last"`
	InheritedWorkarounds  []CallNote        `json:"inheritedWorkarounds,omitempty" jsonschema:"graft/origin: the last failures a later call worked around another way, handed down, each with the call that fixed it"`
	InheritedMilestones   []CallNote        `json:"inheritedMilestones,omitempty" jsonschema:"graft/origin: the work's newest milestones handed down (commits, pushes, pull requests, tracker updates, test and build runs), each by its call line and key lines, newest last"`
	InheritedTodos        *TodoList         `json:"inheritedTodos,omitempty" jsonschema:"graft/origin: the work's last todo list, handed down while items were left"`
	InheritedPlace        *Place            `json:"inheritedPlace,omitempty" jsonschema:"graft/origin: the working directory and git branch the work was done in at the cut, and the commit it started at"`
	Meta                  map[string]string `json:"meta,omitempty" jsonschema:"provenance an importer kept (source uuid, line)"`
	ContentField          string            `json:"contentField" jsonschema:"which payload content holds: text, tool.input, tool.output, or empty when the event has none"`
	Content               string            `json:"content" jsonschema:"the payload from offset on, at most the server's chunk size"`
	ContentChars          int               `json:"contentChars" jsonschema:"characters of the whole payload"`
	Offset                int               `json:"offset" jsonschema:"character offset of content within the payload"`
	NextOffset            int               `json:"nextOffset,omitempty" jsonschema:"set when the payload continues: call graft_recall again with offset=nextOffset; absent when content ends the payload"`
}

// StatusInput is the input of graft_status.
type StatusInput struct {
	Session string `json:"session,omitempty" jsonschema:"list only this session (default: every session)"`
	Offset  int    `json:"offset,omitempty" jsonschema:"index of the first session to list: pass the nextOffset of the previous result"`
}

// SessionRow is one session in graft_status.
type SessionRow struct {
	ID         string `json:"id" jsonschema:"session id"`
	State      string `json:"state" jsonschema:"active, retired, abandoned, uncommitted (a target whose graft never committed) or unreadable"`
	Events     int    `json:"events" jsonschema:"number of events"`
	LastSeq    int64  `json:"lastSeq" jsonschema:"last seq"`
	Generation int    `json:"generation" jsonschema:"generation (1 for a session nobody grafted into)"`
	Parent     string `json:"parent,omitempty" jsonschema:"the session it was grafted from"`
	Target     string `json:"target,omitempty" jsonschema:"the live target it was grafted into"`
	Head       string `json:"head" jsonschema:"the session to continue in: follows live grafts from this one"`
	TornBytes  int64  `json:"tornBytes,omitempty" jsonschema:"bytes of a torn last line (a crashed append), ignored when reading"`
	Error      string `json:"error,omitempty" jsonschema:"why the session is unreadable or uncommitted"`
}

// PendingTxn is a transaction record in flight.
type PendingTxn struct {
	Txn     string `json:"txn" jsonschema:"transaction id"`
	Kind    string `json:"kind" jsonschema:"graft or revert"`
	State   string `json:"state" jsonschema:"PREPARING, TARGET_FLUSHED or COLD_VERIFIED"`
	Source  string `json:"source" jsonschema:"source session"`
	Target  string `json:"target" jsonschema:"target session"`
	Created string `json:"created" jsonschema:"when the record was written (RFC 3339)"`
}

// RecoveryReport is what one recovery scan did.
type RecoveryReport struct {
	At            string   `json:"at,omitempty" jsonschema:"when the scan ran (RFC 3339), when known"`
	Scanned       int      `json:"scanned" jsonschema:"journal records found"`
	RolledForward int      `json:"rolledForward" jsonschema:"transactions finished (they had passed their commit point)"`
	RolledBack    int      `json:"rolledBack" jsonschema:"transactions undone (they crashed before their commit point); the source stays usable"`
	Busy          int      `json:"busy" jsonschema:"records left alone because a live process holds their locks"`
	Leftovers     []string `json:"leftovers" jsonschema:"targets marked abandoned by this scan"`
	Swept         []string `json:"swept" jsonschema:"temporary files removed"`
	Corrupt       int      `json:"corrupt" jsonschema:"records that could not be read (left in place)"`
	Errors        []string `json:"errors" jsonschema:"records the scan could not resolve"`
	Error         string   `json:"error,omitempty" jsonschema:"the scan's error, if it did not complete"`
}

// StatusOutput is graft_status.
type StatusOutput struct {
	Home            string          `json:"home" jsonschema:"the graft data directory"`
	Sessions        []SessionRow    `json:"sessions" jsonschema:"sessions from offset on, at most the server's page size"`
	SessionsTotal   int             `json:"sessionsTotal" jsonschema:"number of sessions matching the request"`
	Offset          int             `json:"offset" jsonschema:"index of the first session listed"`
	NextOffset      int             `json:"nextOffset,omitempty" jsonschema:"set when more sessions follow: call graft_status with offset=nextOffset"`
	Pending         []PendingTxn    `json:"pending" jsonschema:"transactions in flight (a crashed one is resolved by the next recovery scan)"`
	CorruptRecords  []string        `json:"corruptRecords" jsonschema:"journal records that cannot be read"`
	Leftovers       []Leftover      `json:"leftovers" jsonschema:"targets crashed grafts left behind"`
	StartupRecovery *RecoveryReport `json:"startupRecovery,omitempty" jsonschema:"the recovery scan this server ran before serving its first request"`
	LastRecovery    *RecoveryReport `json:"lastRecovery,omitempty" jsonschema:"the most recent recovery scan by any graft process"`
	CatalogError    string          `json:"catalogError,omitempty" jsonschema:"set when catalog.db could not be read (busy, damaged, unreadable), with what to do: leftovers and lastRecovery are missing, the sessions (read from the logs) are still right"`
}

// RevertInput is the input of graft_revert.
type RevertInput struct {
	Target string `json:"target" jsonschema:"the target session of the graft to undo"`
	Force  bool   `json:"force,omitempty" jsonschema:"revert even though the target has events beyond its tape (that work is abandoned with it): only after the user agreed"`
}

// RevertOutput is a reverted graft.
type RevertOutput struct {
	TxnID       string   `json:"txnId" jsonschema:"transaction id of the revert"`
	Reverts     string   `json:"reverts" jsonschema:"transaction id of the graft undone"`
	Source      string   `json:"source" jsonschema:"the session that is active again: continue there"`
	Target      string   `json:"target" jsonschema:"the session now abandoned"`
	ExtraEvents int      `json:"extraEvents" jsonschema:"events the target had beyond its tape (abandoned with it)"`
	Notes       []string `json:"notes" jsonschema:"anything the revert wants the user to know"`
	Next        string   `json:"next" jsonschema:"what to do next"`
}
