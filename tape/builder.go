package tape

import (
	"cmp"
	"crypto/sha256"
	"encoding"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/graft-project/graft/anchors"
	"github.com/graft-project/graft/session"
)

// Bounds of what the builder keeps. Each is small and fixed, so memory grows
// with neither tool-output size nor session length beyond them.
const (
	maxQuoteRunes         = 2000 // a human instruction kept for the goal
	maxParagraphRunes     = 1500 // one carryover paragraph
	shortAnswerRunes      = 200  // a human instruction that takes its meaning from the message it answers
	maxMessageRunes       = 4000 // one message of a replayed turn
	maxTurnRunes          = 20000
	maxTurnMessages       = 200
	maxCarryParagraphs    = 1000
	maxTodoRunes          = 300
	maxReportRunes        = 1500
	maxFailureRunes       = 160
	keptFailures          = 5
	keptReports           = 5
	keptLatestGoals       = 3
	keptRecallTurns       = 40
	maxFiles              = 500
	maxOpenCalls          = 256
	labelRunes            = 60
	maxHumanRunes         = 6000 // one human instruction kept for the Goal block (head and end)
	humanCoreRunes        = 2000 // what the Goal block shows of one before its middle parts
	keptHumans            = 60
	keptSaid              = keptHumans // the person's instructions a target hands on besides the first goal (Inherit.Said): those the Goal quotes
	keptWholeSaid         = 12         // of those, the newest handed on as the fold keeps them; the older ones at humanCoreRunes
	keptFileNotes         = 20         // the files written or edited a target hands on (Inherit.Files)
	keptMessages          = 12         // the assistant's messages a target hands on (Inherit.Messages)
	maxFileNoteRunes      = 400        // what Inherit.Files says of each
	maxInheritedPlanRunes = 6000       // the task plan a target hands on (Inherit.Plan), its head and end
	maxReplyRunes         = 4000       // the last assistant message of the open turn
	maxPlanRunes          = 2500
	// maxKeptPlanRunes is what the fold keeps of a plan, its head and end:
	// the budget, not the fold, decides how many of its middle parts the
	// tape shows.
	maxKeptPlanRunes = 12000
	maxSummaryRunes  = 12000 // the host's compaction summary
	maxRecapRunes    = 1000  // the host's recap for the person
)

const (
	prefixVersion = "graft-prefix-v2"
	// 1 held graft-prefix-v1 hash states; 2 kept every constraint; 3 kept
	// no line digests of cited origins (Lines, Relied); 4 kept no actions,
	// human words, model-written texts or working directory (tape v1); 5
	// kept the final paragraph of each message of the open turn and the
	// last message of each closed turn; 6 did not know which human
	// instructions were pasted; 7 held key lines picked with timings, hints
	// and log lines among them (an action's Key, when its output was not
	// read from the log at Build); 18 held commands with the "cd <the
	// session's folder> &&" they open with, key lines that a path's words
	// made, and no list item a number answer picks; 19 kept no
	// worked-around failure with its fix; 20 kept 30 human instructions
	// and did not count those it let go; 21 held no call in flight at
	// length; 22 no sub-agent's prompt in flight; 23 named no poll of a
	// running command (write_stdin) by that command; 24 held key lines with
	// a terminal's control sequences and hosts' exit lines; 25 read the
	// header of Codex 0.115's exec outputs ("Command: …") as output; 26
	// kept no Codex request_user_input answer; 27 no git branch or commit;
	// 28 named a poll by the command as the importer kept it, not as
	// exec_command's own line shows it; 29 held no host settings; 30 cut
	// the message a short answer answers to a paragraph's length; 31
	// took a user's word inside a longer one for a look-up of it; 32 kept
	// no sub-agent report's tool; 33 kept 4000 constraints; 34 took any
	// command naming a user's word, but a milestone, for a look-up; 35
	// took a pasted screen's own words (the agent's) for constraints; 36
	// took only git's and bd's viewers, of the trackers', for look-ups;
	// 37 held a rule (a table's border) as a key line; 38 took Codex's
	// shell_command for no shell tool (its heredocs wrote no file); 39
	// kept Codex's exec header as an empty failure's line; 40 held WSL's
	// "Failed to translate" lines as key lines; 41 named no test by its
	// string (@test "…", it("…")); 42 took a frame's locals ("self = …")
	// and a tool's tagged log line ("🦋  warn …") for constraints; 43
	// held GitHub's advice ("remote: (?) Learn how …") as key lines; 44
	// took a person's "⚠️ Error messages must …" for a tool's log line;
	// 45 read WSL's "Failed to translate" in its own case only; 46 kept
	// no option a short answer names ("6", "B"); 47 held GitHub's advice
	// past its "(?)" line and rules' long runs in key lines; 48 kept no
	// queued message; 49 kept no offset of a write or edit in the tail;
	// 53 took a call the person declined for a failure; 54 kept no goal
	// the host keeps; 55 read no plan of Gemini CLI's or Qwen Code's
	// exit_plan_mode; 56 kept a goal the person cleared; 57 took Qwen's
	// propose_goal for an action; 58 kept no reason of a goal's check; 59
	// read no goal status of a host's context for its model; 60 took
	// Gemini CLI's write_todos and task tracker calls for actions; 61 read
	// the sections of Gemini CLI's shell output as its output; 62 kept a
	// change's imports and lines of brackets among the lines it adds; 63
	// took C#'s using statement for an import and skipped its block; 64
	// kept a line an output prints twice twice among its key lines; 65
	// cut a rune's first byte with an ESC before it from key lines and
	// look-ups (no UTF-8 left), and kept a character set's "\x1b(B" as "B";
	// 66 kept a constraint whose capped head held no letter or digit; 67
	// took a command that prints into a file (printf … > path) for a read;
	// 68 split a command at an escaped separator (find's \;); 69 named a
	// pasted log's cut middle by its seq alone; 70 named a file by its
	// methods before its top-level definitions; 71 kept hedges, relative
	// clauses and "the only" as constraints; 72 a report of what the
	// person sees; 73 an opener behind a status mark; 74 a label of a few
	// words ending with a colon; 75 kept the line digest of a pasted
	// screen whose prompts set no rule; 79 read no file the host saw
	// change outside the agent's tools; 80 kept a file named relative to
	// the session's folder apart from the same file named whole; 81 a
	// Windows file named with slashes or by Git Bash's /c/ apart; 82 left
	// out a final answer without a report keyword; 83 named a commit by
	// no subject of its here-document message, and kept a cd into the
	// session's folder before ";" or a newline; 84 kept no plan file; 85
	// no pull request the host linked; 86 no file an approved plan was
	// saved to; 87 quoted the last verdicts of a crowd of one shape
	// without its largest; 88 took a diff's header for a key line, go
	// test's "[no test files]" for none, and quoted the host's tool
	// loading and the plan approved; 89 named no name a patch adds, nor
	// the messages an edit adds; 90 took no line by which a check piped
	// into a filter failed for a key line; 91 quoted a GHC error's header
	// without the message below it; 92 kept no interruption of the
	// person's; 93 quoted a checks table's rows, not their count; 94
	// counted no checks table gh printed in a terminal; 95 quoted a code
	// mode script that read the tool list; 96 kept the last 14 reads,
	// edits and searches, not 4; 97 kept an earlier edit's definitions
	// among its other names; 98 knew no call run in the background; 99
	// took the host's words for an empty output, and its bookkeeping after
	// a sub-agent's result, for key lines; 100 took a line of punctuation
	// alone ("}") for a key line; 101 took Claude Code's PowerShell for no
	// shell; 102 knew no end of a command run in the background; 103 knew
	// no plan approved to start the work; 104 kept a plan's first 6,000
	// runes (a proposed one's first 2,500), a host summary's first 12,000,
	// and a runner's heading as a failure's first key line, took Claude
	// Code's /fast, /effort … for the user's words, and a local bound in a
	// body for a definition; 105 kept no command's text the host wrote
	// after a command the person typed, and quoted a count of nothing
	// ("running 0 tests") beside one of its shape that counts; 106 clipped
	// the mark of an interrupt or an input off a long command it wrote to,
	// knew no poll, and quoted a long JSON object's line by its head; 107
	// quoted a command's help (--help) as its outcome; 108 let a status's
	// unmerged paths take the room of git's state above them; 109 quoted a
	// diff's hunk lines, the code it adds and removes, as key lines; 110
	// named at most 6 of the definitions a file's new code makes; 111 cut
	// a command's template as any long instruction, at two fifths of
	// maxHumanRunes, even where the words typed after the command ran
	// past it: the Goal read no template there and quoted those words cut;
	// 112 did the same in the first goal's quote (maxQuoteRunes); 113
	// kept no line digest of the person's newest instructions (SaidLines)
	// and no instruction an earlier generation handed on (inherit.said);
	// 114 no file an earlier generation wrote or edited (inherit.files);
	// 115 no plan an earlier generation approved as its task (inherit.plan);
	// 116 started a target with no working directory or branch of the
	// generation before (inherit.place); 117 ranked a constraint handed
	// on as typed though every saying of it was pasted (its pasted mark);
	// 118 kept no message of the assistant's an earlier generation handed
	// on (inherit.messages); 119 read no answer of the person's among the
	// instructions an earlier generation handed on (inherit.said, answer);
	// 120 did not count the instructions handed on that its own pushed out
	// of the last keptHumans (HumansDroppedBefore); 121 kept no prompts of
	// a pasted session an earlier generation handed on (inherit.prompts).
	// 122 started a target with no commit the work started at
	// (inherit.place gitCommit); 123 with no todo list of an earlier
	// generation (inherit.todos); 124 with no plan it approved in plan
	// mode (inherit.approvedPlan); 125 with no failed call it left
	// unfixed (inherit.failures); 126 with no command's text of an
	// instruction handed on (inherit.firstGoal and said: command), which
	// its build's decoder dropped; 127 with no workaround of an earlier
	// generation (inherit.workarounds); 128 with no option an answer
	// handed on picks (inherit.said picks), which its build's decoder
	// dropped; 129 kept the line digests of the 12 newest instructions a
	// target hands on, not those of every one its Goal quotes; 130 with no
	// milestone of an earlier generation (inherit.milestones), which its
	// build's decoder dropped; 131 kept the header of Codex's shell_command
	// ("Exit code: N", "Wall time: …", "Output:") in the tail's text and a
	// look-up's head; 132 read no file by read_file's absolute_path
	// (Gemini CLI's earlier, Qwen Code's before 0.13); 133 took a command file's
	// front matter ("---") for its text's first line; 134 kept an output that
	// is one JSON document with escaped text as JSON in the tail's text and a
	// look-up's head (jsonText); 135 took no file PowerShell writes
	// (Set-Content, Out-File, Add-Content: powershellWrites) for a write;
	// 136 kept a fetch of review comments' JSON lines as its key lines
	// (reviewCommentLines); 137 read a GitHub Actions log's lines with
	// their job, step and timestamp (actionsLogMessage); 138 read no
	// review thread's id and state, nor comments after a script's own
	// lines; 139 took a release's URL for no key line; 140 let the paths
	// git status names take the room of a check's count before them; 141
	// read a job's raw log with the runner's timestamps; 142 took a pasted
	// program error, banner or table row for a constraint (anchors); 143
	// clipped a review thread's id off a long title's key line; 144 took
	// Russian "не" before a report ("не работает") for a constraint; 145
	// read no comments slimmed with --jq (one a line, the author a string);
	// 146 took no plan Codex's Plan mode proposed in a message
	// (plan.ByMode).
	snapshotVersion = 147
)

// pastedBytes is the size from which a human instruction is pasted text
// rather than typed: a log, a page, a slash command's template. People
// type their rules in a few lines; the rule-like sentences of a paste are
// quoted material (a previous session's narration, a checklist, code) more
// often than the person's own standing instructions. 3000 bytes is some
// 40 lines of typing.
const pastedBytes = 3000

// keptPasted bounds state.Pasted.
const keptPasted = 64

// MaxConstraints is how many constraints the fold keeps (tape/doc.go,
// Budget): more than any budget can show, since a constraint line is at
// least 13 runes with its newline ("- 必须 (seq 1)") and MaxBudget / 13 is
// 7692. The sayings of the others are counted per session
// (state.MoreConstraints).
const MaxConstraints = 8000

// keptConstraints is MaxConstraints; tests raise it to compare with a fold
// that keeps every constraint.
var keptConstraints = MaxConstraints

// Builder folds a session's events, in seq order, into what a tape needs.
// Memory does not grow with tool-output size: outputs are hashed and
// dropped; texts kept are capped (see the bounds above).
type Builder struct {
	st      state
	running hash.Hash // prefix hash over every event so far
	// entry is writeLine's buffer: one held by the Builder, since a local
	// array passed to hash.Hash.Write escapes (an allocation per event).
	entry [24]byte
	// cons indexes st.Constraints for the next human instruction; nil
	// until one comes (and after st.Constraints is replaced).
	cons *anchors.Set
	// lastWhat is callWhat of the tool call just added, for its tail entry;
	// lastChange the lines it adds (editChange) when it writes or edits a
	// file and the fold holds its input: its file's entry and the tail
	// share it.
	lastWhat, lastChange string
	// classes is toolClassOf per tool name (Builder.class).
	classes map[string]toolClass
	// goalMore is the Goal block's section of middle parts, set by
	// goalBlock for the budget's ranking of one Build.
	goalMore *section
	// goalPrompts is the Goal block's section of the prompts in pasted
	// sessions (nil: none), set by goalBlock.
	goalPrompts *section
	// lineage is the generation of each earlier session of the lineage
	// the tape cites by its generation ("gen 1"), set at Build
	// (lineageAliases).
	lineage map[string]int
	// lastChanges is the Workspace Files block's section of the newest
	// files' last changes at length (nil: none), set by filesBlock.
	lastChanges *section
	// fileNotes are this session's files written or edited as Workspace
	// Files names them, newest first (filesBlock): what a target hands on.
	fileNotes []session.FileNote
	// fixedItems is the Pending State block's section of the failures
	// fixed since, with their fix (nil: none), set by pendingBlock.
	fixedItems *section
	// prevFixedItems is Pending State's section of the workarounds an
	// earlier generation handed on; workarounds, what this tape hands on
	// of its own (inherit.workarounds), both set by pendingBlock.
	prevFixedItems *section
	workarounds    []session.CallNote
	// goalMoreMain is how many of its parts are of the first and the
	// latest instruction (ranked above the others).
	goalMoreMain int
	// goalQuoted are the seqs of the source's instructions the Goal
	// quotes, set by goalBlock: the tail names them instead.
	goalQuoted map[int64]bool
}

// state is the whole fold; Snapshot writes it as JSON.
type state struct {
	Version   int    `json:"v"`
	SessionID string `json:"sessionId"`
	LastSeq   int64  `json:"lastSeq"`

	Generation int    `json:"generation"`
	Origin     *quote `json:"origin,omitempty"` // the graft/origin at seq 1, as a recall label

	Constraints []session.Constraint `json:"constraints,omitempty"`
	// MoreConstraints counts, per session, the sayings of constraints
	// not kept past keptConstraints.
	MoreConstraints []session.More  `json:"moreConstraints,omitempty"`
	FirstGoal       *session.Quote  `json:"firstGoal,omitempty"`
	Latest          []session.Quote `json:"latest,omitempty"`
	// Pasted are the seqs of this session's human instructions of
	// pastedBytes or more (the last keptPasted): the constraint
	// sentences said only there rank below the typed ones.
	Pasted []int64 `json:"pasted,omitempty"`
	// Prompts are the user's own prompts in a pasted session's screen
	// (pastedPrompts), of the last keptPasted pastes that hold any: the
	// fold keeps only the head and end of the paste itself.
	Prompts []pastedAt `json:"prompts,omitempty"`

	Boundary int64 `json:"boundary"`
	// RunningHash and PrefixState are sha256 MarshalBinary states: over
	// every event so far, and over the events before Boundary.
	RunningHash []byte `json:"runningHash"`
	PrefixState []byte `json:"prefixState"`

	Carry  carryover `json:"carry"`
	Open   turn      `json:"open"`
	Closed []turn    `json:"closed,omitempty"`

	Todos       []session.Todo `json:"todos,omitempty"`
	TodoSeq     int64          `json:"todoSeq,omitempty"`
	OKSinceTodo int            `json:"okSinceTodo,omitempty"`
	// PrevFailures are the failed calls an earlier generation handed on
	// unfixed (inherit.failures), less those a successful run of the same
	// call here fixed since.
	PrevFailures []prevNote `json:"prevFailures,omitempty"`
	// PrevWorkarounds are the workarounds an earlier generation handed on
	// (inherit.workarounds).
	PrevWorkarounds []prevNote `json:"prevWorkarounds,omitempty"`
	// PrevMilestones are the milestones an earlier generation handed on
	// (inherit.milestones).
	PrevMilestones []prevNote `json:"prevMilestones,omitempty"`
	// TodoFrom is the origin of the todo/write an earlier generation
	// handed Todos on from (inherit.todos), nil for a list of this
	// session's own.
	TodoFrom *session.Origin `json:"todoFrom,omitempty"`

	Files        map[string]*fileEntry `json:"files,omitempty"`
	FilesDropped seqRange              `json:"filesDropped"`
	Calls        map[string]openCall   `json:"calls,omitempty"`
	CallsDropped int                   `json:"callsDropped,omitempty"`
	Unattributed int                   `json:"unattributed,omitempty"`

	Failures     []failure `json:"failures,omitempty"`
	OpenFailures int       `json:"openFailures,omitempty"`

	// GitBranch is the newest branch a host named (meta gitBranch); GitCommit
	// the commit the session started at (meta gitCommit), the first named,
	// or the one the work started at in an earlier generation
	// (inherit.place; GitCommitBefore).
	GitBranch       string `json:"gitBranch,omitempty"`
	GitCommit       string `json:"gitCommit,omitempty"`
	GitCommitBefore bool   `json:"gitCommitBefore,omitempty"`
	// PlanFile is the file the host last said the plan goes to in plan
	// mode (session.MetaPlanFile).
	PlanFile string `json:"planFile,omitempty"`
	// PullRequests are the pull requests the host linked to the session
	// (session.MetaPullRequest), oldest first, each once, the newest
	// keptPullRequests.
	PullRequests []pullRequest `json:"pullRequests,omitempty"`

	// Settings are what the host last said the agent may do (hostSettings),
	// in that order; a setting the host never named is absent.
	Settings []hostSetting `json:"settings,omitempty"`

	// Goal is the goal the host last said it keeps for the session
	// (session.MetaGoalStatus: the hosts' /goal), nil when none did or the
	// person cleared it.
	Goal *HostGoal `json:"goal,omitempty"`

	// HumansDropped counts the instructions past keptHumans the fold let
	// go (the first one stays in FirstGoal).
	HumansDropped seqRange `json:"humansDropped"`
	// HumansDroppedBefore counts, per session, the instructions an
	// earlier generation handed on (inherit.said) that this session's own
	// pushed out of the last keptHumans.
	HumansDroppedBefore []session.More `json:"humansDroppedBefore,omitempty"`

	Reports        []report `json:"reports,omitempty"`
	ReportsDropped seqRange `json:"reportsDropped"`
	ReportsSkipped int      `json:"reportsSkipped,omitempty"`

	FirstRecall   *recallEntry  `json:"firstRecall,omitempty"`
	Recall        []recallEntry `json:"recall,omitempty"`
	RecallDropped seqRange      `json:"recallDropped"`

	Warnings []string `json:"warnings,omitempty"`

	// Tape v2 (issue 23): where the person works, their words, what was
	// done last, and the model-written texts, each labelled as such.
	Cwd    string          `json:"cwd,omitempty"`
	Humans []session.Quote `json:"humans,omitempty"`
	// Actions are the last keptCommands calls whose output is quoted,
	// Quiet the last keptQuiet others; both rings (appendRing).
	Actions    []action `json:"actions,omitempty"`
	Quiet      []action `json:"quiet,omitempty"`
	Milestones []action `json:"milestones,omitempty"`
	// Answers are the person's answers to the assistant's questions
	// (session.IsAnswerTool), quoted with the user's words.
	Answers []action `json:"answers,omitempty"`
	// Picks are the options the last keptHumans short answers name
	// ("6", "B"), as the message each answers lists them (picks.go).
	Picks []pick `json:"picks,omitempty"`
	// CommandTexts are the texts the last keptHumans commands the person
	// typed expanded to (template.go).
	CommandTexts []commandText `json:"commandTexts,omitempty"`
	// Queued are the messages the person queued while the agent worked
	// that no human instruction has delivered since (queued.go).
	Queued []queuedNote `json:"queued,omitempty"`
	// Tail are the last events as a conversation shows them, for the room
	// the budget leaves.
	Tail       []tailEntry `json:"tail,omitempty"`
	Refs       []action    `json:"refs,omitempty"`
	UserTokens []string    `json:"userTokens,omitempty"`
	Fixed      int         `json:"fixed,omitempty"`
	// FixedLast are the last keptFixed failures a shell command worked
	// around (workaround), with that command: what did not work here, and
	// what did.
	FixedLast []fixedFailure `json:"fixedLast,omitempty"`
	// LastReply is the last assistant message of the open turn;
	LastReply   *message   `json:"lastReply,omitempty"`
	Plan        *plan      `json:"plan,omitempty"`
	LastMD      *planWrite `json:"lastMd,omitempty"`
	HostSummary *message   `json:"hostSummary,omitempty"`
	// Recap is the host's newest recap for the person (session.SourceRecap)
	// when no compaction summary came after it.
	Recap *message `json:"recap,omitempty"`
	// Interrupt is the last time the person stopped the agent (the
	// host's words: interrupt.go), while it is in the open turn or the
	// turn just before it.
	Interrupt *interruption `json:"interrupt,omitempty"`

	// Relied are the prefixes the graft/origin at seq 1 relied on; Lines the
	// line digests of cited origins, by originKey: handed down by the
	// graft/origin, and taken here from each human instruction whose words
	// the fold hands on. Relied is what a target of this tape relies on.
	Relied []session.PrefixMark `json:"relied,omitempty"`
	Lines  map[string]string    `json:"lines,omitempty"`
	// SaidLines are the line digests of this session's instructions
	// among the newest keptSaid of Humans, by originKey: what a target
	// hands on of them (Tape.Inherit.Said) is cited with its line.
	SaidLines map[string]string `json:"saidLines,omitempty"`
	// PrevFiles are the files the sessions before wrote or edited, as
	// the graft/origin handed them on (inherit.files).
	PrevFiles []session.FileNote `json:"prevFiles,omitempty"`
	// PrevMessages are the assistant's messages of the sessions before,
	// as the graft/origin handed them on (inherit.messages).
	PrevMessages []session.Passage `json:"prevMessages,omitempty"`
	// PrevPrompts are the prompts of the sessions pasted into the
	// instructions an earlier generation handed on (inherit.prompts).
	PrevPrompts []session.Quote `json:"prevPrompts,omitempty"`
}

// quote is a short label with the seq it came from.
type quote struct {
	Seq  int64  `json:"seq"`
	Text string `json:"text"`
}

// paragraph is one assistant message of the carryover (its text whole up
// to maxParagraphRunes; of a thinking block, its final paragraph), or,
// with User set, the mark of a human instruction that opened a turn (Text
// is its first line).
type paragraph struct {
	Seq  int64  `json:"seq"`
	Text string `json:"text"`
	User bool   `json:"user,omitempty"`
	// Step: a short message the assistant wrote just before a tool call,
	// announcing that step ("Let me run the tests."): the call says the
	// same, so such messages are cut first.
	Step bool `json:"step,omitempty"`
	// Runes is Text's length in runes, counted once.
	Runes int `json:"runes,omitempty"`
}

type carryover struct {
	Paragraphs []paragraph `json:"paragraphs,omitempty"`
	// Announce is the seq of the last entry when it may announce the next
	// tool call (short, one paragraph, nothing but thinking after it).
	Announce int64    `json:"announce,omitempty"`
	Runes    int      `json:"runes,omitempty"`
	Dropped  seqRange `json:"dropped"`
}

// message is a human or assistant text of a turn, kept for replay.
type message struct {
	Seq   int64  `json:"seq"`
	Human bool   `json:"human,omitempty"`
	Text  string `json:"text"`
}

// turn is what replay needs of one turn: its message texts, not its tool
// outputs.
type turn struct {
	Start        int64     `json:"start"` // seq of the human instruction; 0 before the first one
	End          int64     `json:"end"`
	Messages     []message `json:"messages,omitempty"`
	Runes        int       `json:"runes,omitempty"`
	Dropped      seqRange  `json:"dropped"`
	ToolCalls    int       `json:"toolCalls,omitempty"`
	ToolFailures int       `json:"toolFailures,omitempty"`
}

// fileEntry is the last tool/result seq of each op on one path.
type fileEntry struct {
	Read  int64 `json:"read,omitempty"`
	Write int64 `json:"write,omitempty"`
	Edit  int64 `json:"edit,omitempty"`
	// Outside is the seq of the host's last word that the file changed
	// outside the agent's tools (session.MetaChangedOutside); Conflict
	// the merge-conflict marker lines that change showed, first and last.
	Outside  int64    `json:"outside,omitempty"`
	Conflict []string `json:"conflict,omitempty"`
	Last     int64    `json:"last"`
	// Symbols are the names the last write or edit defined, Change its
	// first lines, read at once (Add); or Call locates that call's line,
	// read at Build.
	Symbols []string `json:"symbols,omitempty"`
	Change  string   `json:"change,omitempty"`
	Adds    []string `json:"adds,omitempty"`
	// Labelled are a document's labelled lines the last write or edit put
	// in (labelledLines), read at once.
	Labelled []string `json:"labelled,omitempty"`
	Call     *callRef `json:"call,omitempty"`
	// Earlier are the file's writes and edits before its last one, oldest
	// first, at most keptEarlierEdits: the names they put in are the
	// session's footprint in the file (its choices), which the last edit
	// alone does not say.
	Earlier []earlierEdit `json:"earlier,omitempty"`
}

// earlierEdit is one write or edit before a file's last: the names it
// defined (Defines) and the others it added (Names), read at once, or the
// call line Build reads them from.
type earlierEdit struct {
	Defines []string `json:"defines,omitempty"`
	Names   []string `json:"names,omitempty"`
	Call    *callRef `json:"call,omitempty"`
}

// keptEarlierEdits is how many writes and edits before a file's last one
// the fold keeps for their names.
const keptEarlierEdits = 4

// callRef locates a tool/call line for Build to read its input.
type callRef struct {
	Seq  int64  `json:"seq"`
	Tool string `json:"tool"`
	Off  int64  `json:"off"`
	Size int    `json:"size"`
}

// pollWhat names a write_stdin call (Codex's unified exec) by the command
// of the session it writes to (meta execCommand, from the importer;
// "session N" when it is not known), with what it writes: "(^C)" for an
// interrupt, "← …" for other input, nothing for a poll; and a wait on a
// cell (Codex's code mode) by the command of the script that runs there,
// else by the session that script polls (meta execSession), else "cell
// N". "" for another call of those names. waits: the call feeds the
// command nothing (a poll, action.Poll).
func pollWhat(ev *session.Event, cwd string) (what string, waits bool) {
	var in struct {
		SessionID json.Number `json:"session_id"`
		CellID    json.Number `json:"cell_id"`
		Chars     string      `json:"chars"`
	}
	if json.Unmarshal(ev.Tool.Input, &in) != nil || in.SessionID == "" && in.CellID == "" {
		return "", false
	}
	// The command as exec_command's own line shows it (callWhat).
	what = whatOf("cmd", ev.Meta["execCommand"], cwd, whatRunes)
	switch {
	case what != "":
	case in.SessionID != "":
		what = "session " + in.SessionID.String()
	case ev.Meta["execSession"] != "":
		what = "session " + ev.Meta["execSession"] // the cell's script polls it
	default:
		what = "cell " + in.CellID.String()
	}
	// What it writes is kept whole past a long command (a command clipped
	// to its room): the line of an interrupt or an input says so.
	tail := ""
	switch {
	case in.Chars == "":
	case in.Chars == "\u0003":
		tail = " (^C)"
	default:
		tail = " ← " + clipLine(strconv.Quote(in.Chars), argumentRunes)
	}
	return clipLine(what, max(whatRunes-utf8.RuneCountInString(tail), whatRunes/2)) + tail, in.Chars == ""
}

// openCall is a tool call waiting for its result.
type openCall struct {
	Seq     int64       `json:"seq"`
	Touches []fileTouch `json:"touches,omitempty"`
	Tool    string      `json:"tool,omitempty"`
	What    string      `json:"what,omitempty"`
	// Long is What within inFlightRunes when What was clipped; of a
	// sub-agent's task, its description and its prompt (delegated).
	Long    string   `json:"long,omitempty"`
	Symbols []string `json:"symbols,omitempty"`
	Change  string   `json:"change,omitempty"`
	Adds    []string `json:"adds,omitempty"`
	// Labelled: labelledLines of a write or an edit of a document.
	Labelled []string `json:"labelled,omitempty"`
	// PerPath: of a patch that changes several files, read at once, what
	// it does to each (patchInputs), by path, in place of Symbols, Change,
	// Adds and Labelled.
	PerPath map[string]*fileFacts `json:"perPath,omitempty"`
	// Off and Size locate a write's or an edit's call line, whose input
	// Build reads for Symbols and Change (-1: they were read at once).
	Off  int64 `json:"off,omitempty"`
	Size int   `json:"size,omitempty"`
	// Ref: the call names something the user named (userTokens).
	Ref  bool `json:"ref,omitempty"`
	File bool `json:"file,omitempty"`
	// Writes: a shell command that prints into a file (printsIntoAFile),
	// which its one-line What may not show.
	Writes bool `json:"writes,omitempty"`
	// ToolList: a code-mode script that only reads the tool list
	// (readsToolList).
	ToolList bool `json:"toolList,omitempty"`
	// Poll: a call that waits on a command left running and feeds it
	// nothing (pollWhat).
	Poll bool `json:"poll,omitempty"`
}

// fileFacts are what a write or an edit does to one file: the names it
// defines, its first new lines, the names it adds, a document's labelled
// lines.
type fileFacts struct {
	Symbols  []string `json:"symbols,omitempty"`
	Change   string   `json:"change,omitempty"`
	Adds     []string `json:"adds,omitempty"`
	Labelled []string `json:"labelled,omitempty"`
}

type failure struct {
	Seq  int64  `json:"seq"` // of the tool/result
	Tool string `json:"tool"`
	Line string `json:"line"`
	What string `json:"what,omitempty"`
	Off  int64  `json:"off"`
	Size int    `json:"size,omitempty"`
	// Key are its key lines when the fold had the output (Add).
	Key []string `json:"key,omitempty"`
	// Left are the commands of a failed chain (chainCommands) that no
	// later successful call has run yet (chainLeft); none left, the chain
	// is fixed. Nil for a failure of one command.
	Left []string `json:"left,omitempty"`
	// Declined is the result's session.MetaDeclined (action.Declined):
	// Pending State names the call apart from the failures; a later run of
	// the same call ends it.
	Declined string `json:"declined,omitempty"`
	// run is sameRunWords' reading of What, made the first time a later
	// call of the tool is set against the failure (addResult); no part of
	// a snapshot, made again after one.
	run *failedRun
}

// fixedFailure is a failure a later successful call worked around
// (BySeq, its result; ByWhat, what it ran).
type fixedFailure struct {
	Failure failure `json:"failure"`
	BySeq   int64   `json:"bySeq"`
	ByWhat  string  `json:"byWhat,omitempty"`
}

// keptFixed is how many worked-around failures the fold keeps with their
// fix.
const keptFixed = 4

// fixed counts failure f fixed by the call of result seq that ran what,
// and keeps it with that call when the call worked around it.
func (st *state) fixed(f failure, seq int64, what string) {
	st.Fixed++
	if workaround(f, what) {
		st.FixedLast = keepLast(append(st.FixedLast, fixedFailure{Failure: f, BySeq: seq, ByWhat: what}), keptFixed)
	}
}

// keptInheritedMilestones and keptInheritedFailures bound the milestones
// and the failed calls a target hands on (inherit.milestones,
// inherit.failures), the Runes the line of each.
const (
	keptInheritedMilestones    = 6
	maxInheritedMilestoneRunes = 600
	keptInheritedFailures      = 6
	maxInheritedFailureRunes   = 1500
)

// prevNote is a call an earlier generation handed on by its line (a
// failure, a workaround, a milestone), and the seq of the graft/origin
// that carried it.
type prevNote struct {
	Note session.CallNote `json:"note"`
	At   int64            `json:"at"`
}

// prevNotes are the newest keep of the call notes a graft/origin at seq
// handed on, those with a line, each within runes (a cut recalled as
// what).
func prevNotes(notes []session.CallNote, keep, runes int, at int64, what string) []prevNote {
	var out []prevNote
	for _, n := range notes[max(0, len(notes)-keep):] {
		if strings.TrimSpace(n.Text) == "" {
			continue
		}
		n.Text = clipRunes(n.Text, runes, what)
		out = append(out, prevNote{Note: n, At: at})
	}
	return out
}

// plan is a plan the assistant proposed (isPlanExit) and whether the
// person approved it.
type plan struct {
	Seq    int64  `json:"seq"`
	CallID string `json:"callId,omitempty"`
	Text   string `json:"text"`
	State  string `json:"state,omitempty"` // "approved", "not approved", "" (no answer yet)
	// Answered is the seq of the person's answer (the plan exit's result,
	// the turn setting that left plan mode).
	Answered int64 `json:"answered,omitempty"`
	// File is the plan file when the call carried no plan (hosts that
	// write the plan to a file in plan mode: older Claude Code, Gemini
	// CLI): Text is its content, or Call locates the Write whose content
	// Build reads.
	File string   `json:"file,omitempty"`
	Call *callRef `json:"call,omitempty"`
	// Saved is where the host said it saved the plan the person approved
	// (Claude Code: "Your plan has been saved to: <path>").
	Saved string `json:"saved,omitempty"`
	// ByMode: a plan proposed in a message (session.MetaProposedPlan),
	// which the person answers by leaving plan mode (setSetting).
	ByMode bool `json:"byMode,omitempty"`
	// Task: a plan the person approved when the host cleared the context
	// to implement it (session.MetaPlan): the work's task, which ranks
	// with the first instruction.
	Task bool `json:"task,omitempty"`
	// From is where an earlier generation's task plan was approved
	// (inherit.plan), or its plan approved in plan mode proposed
	// (inherit.approvedPlan); Seq is then the graft/origin's.
	From *session.Origin `json:"from,omitempty"`
}

// planSavedTo opens the line of Claude Code's approval that names the
// plan's file.
const planSavedTo = "Your plan has been saved to: "

// planWrite is the last Write of a Markdown file: in plan mode the one
// file the host lets the assistant write is the plan.
type planWrite struct {
	Seq  int64    `json:"seq"`
	Path string   `json:"path"`
	Text string   `json:"text,omitempty"`
	Call *callRef `json:"call,omitempty"`
}

type report struct {
	Seq   int64  `json:"seq"`
	Agent string `json:"agent,omitempty"`
	Text  string `json:"text"`
	// Tool names the call whose result the report is (the event's source
	// name, as the importers write it): with the result just before the
	// report, that call's output is the report (Builder.reportOf).
	Tool string `json:"tool,omitempty"`
	// CallID is the call a report that came later names (meta callId): a
	// call run in the background (action.Background).
	CallID string `json:"callId,omitempty"`
}

type recallEntry struct {
	Seq   int64  `json:"seq"`
	Label string `json:"label"`
}

// NewBuilder starts the fold of session sessionID.
func NewBuilder(sessionID string) *Builder {
	h := sha256.New()
	writeLP(h, []byte(prefixVersion))
	b := &Builder{running: h, st: state{Version: snapshotVersion, SessionID: sessionID, Generation: 1}}
	b.st.PrefixState = mustMarshalHash(h)
	return b
}

func mustMarshalHash(h hash.Hash) []byte {
	data, err := h.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		// sha256's MarshalBinary cannot fail; a failure is a broken stdlib.
		panic(fmt.Sprintf("tape: sha256 MarshalBinary: %v", err))
	}
	return data
}

// writeLP writes b length-prefixed: 8 bytes big-endian length, then b.
func writeLP(h hash.Hash, b []byte) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(b)))
	h.Write(n[:])
	h.Write(b)
}

// writeLine writes one event's entry of the prefix hash: the line's length
// (8 bytes big-endian) and its XXH3-128 (session.LineSum), so that sha256
// reads 24 bytes per event however long the event is (see doc.go, Hashes).
// e is the caller's buffer for the entry (see Builder.entry).
func writeLine(h hash.Hash, e *[24]byte, n int, sum session.LineSum) {
	binary.BigEndian.PutUint64(e[:8], uint64(n))
	copy(e[8:], sum[:])
	h.Write(e[:])
}

// toolClass is what the fold asks of a tool's name. A call and its result
// asked it ten times over, each a lower-casing and a map look-up; the
// fold asks it once per name (Builder.class).
type toolClass struct {
	op                  string // toolOp's
	file                bool   // toolOp's ok: a file tool
	shell, todo, quotes bool   // isShellTool, isTodoTool, quotesOutput
}

func toolClassOf(name string) toolClass {
	op, file := toolOp(name)
	return toolClass{op: op, file: file, shell: isShellTool(name), todo: isTodoTool(name), quotes: quotesOutput(name)}
}

// maxToolClasses bounds Builder.classes: a log may name any number of
// tools, a session a few dozen.
const maxToolClasses = 256

// class is toolClassOf(name), kept per name.
func (b *Builder) class(name string) toolClass {
	if c, ok := b.classes[name]; ok {
		return c
	}
	c := toolClassOf(name)
	if b.classes == nil {
		b.classes = map[string]toolClass{}
	}
	if len(b.classes) < maxToolClasses {
		b.classes[name] = c
	}
	return c
}

// Add folds the next event. raw is its exact log line without '\n'; seqs
// must rise by exactly 1 from 1.
func (b *Builder) Add(ev *session.Event, raw []byte) error {
	return b.AddSum(ev, len(raw), session.SumLine(raw))
}

// AddSum is Add given what the prefix hash reads of the raw line: its
// length (size, without the '\n') and its session.LineSum (as
// session.ScanFoldSums hands them over); sum must be session.SumLine(raw).
func (b *Builder) AddSum(ev *session.Event, size int, sum session.LineSum) error {
	return b.AddSumAt(ev, size, sum, -1)
}

// AddSumAt is AddSum given the byte offset of the event's log line, as a
// scan of the log hands it over. The output of a tool/result is then read
// at Build (Outputs), for the few the tape quotes; without an offset
// (-1), the event's own Tool.Output is read now.
func (b *Builder) AddSumAt(ev *session.Event, size int, sum session.LineSum, off int64) error {
	st := &b.st
	if ev.Seq != st.LastSeq+1 {
		return fmt.Errorf("tape: %s: event seq %d after seq %d: want seq %d", st.SessionID, ev.Seq, st.LastSeq, st.LastSeq+1)
	}
	if size <= 0 {
		return fmt.Errorf("tape: %s: seq %d: the raw log line is empty; the prefix hash needs the exact bytes", st.SessionID, ev.Seq)
	}
	if ev.Type == session.TypeGraftOrigin && ev.Seq == 1 && ev.Generation < 2 {
		return fmt.Errorf("tape: %s: graft/origin at seq 1 has generation %d: a graft target is generation 2 or later", st.SessionID, ev.Generation)
	}
	if ev.IsHumanInstruction() {
		// The prefix is every event before the boundary: keep the hash
		// state as it was just before this one.
		st.PrefixState = mustMarshalHash(b.running)
	}
	writeLine(b.running, &b.entry, size, sum)
	st.LastSeq = ev.Seq
	if cwd := ev.Meta["cwd"]; cwd != "" {
		st.Cwd = cwd
	}
	if br := ev.Meta["gitBranch"]; br != "" {
		st.GitBranch = clipLine(br, whatRunes)
	}
	if c := ev.Meta["gitCommit"]; c != "" && st.GitCommit == "" {
		st.GitCommit = clipLine(c, 40)
	}
	if ev.Type == session.TypeSystem || ev.Type == session.TypeUserMessage {
		// The records importers put a host's settings on (a few per
		// session): other events are not looked at.
		for _, k := range hostSettings {
			if v := ev.Meta[k.meta]; v != "" {
				b.setSetting(k.meta, v, ev.Seq)
			}
		}
	}
	if ev.Type == session.TypeSystem || ev.Type == session.TypeToolResult || ev.Type == session.TypeUserMessage {
		// The host's word on its goal: an event of its own, a goal tool's
		// result, or its context for the model (Codex's /goal clear).
		switch g := ev.Meta[session.MetaGoalStatus]; g {
		case "":
		case session.GoalCleared:
			st.Goal = nil
		default:
			objective := clipAtSeq(ev.Meta[session.MetaGoalObjective], maxGoalRunes, "", ev.Seq)
			if objective == "" && st.Goal != nil {
				objective = st.Goal.Objective // a status alone: the same goal
			}
			st.Goal = &HostGoal{Status: clipLine(g, 40), Objective: objective,
				Reason: clipLine(ev.Meta[session.MetaGoalReason], maxGoalReasonRunes), Seq: ev.Seq}
		}
	}
	if t := ev.Tool; t != nil {
		// Plan mode: the agent enters it (isPlanEnter); a plan the person
		// approved (the plan exit's result ok) leaves it for the mode
		// before.
		switch {
		case ev.Type == session.TypeToolCall && isPlanEnter(t.Name):
			b.setSetting("permissionMode", "plan", ev.Seq)
		case ev.Type == session.TypeToolResult && isPlanExit(t.Name) && t.OK != nil && *t.OK:
			if s := b.setting("permissionMode"); s != nil && s.Value == "plan" {
				b.setSetting("permissionMode", cmp.Or(s.Was, "default"), ev.Seq)
			}
		}
	}

	b.announces(ev)
	switch ev.Type {
	case session.TypeGraftOrigin:
		b.addOrigin(ev)
	case session.TypeUserMessage:
		if ev.IsHumanInstruction() {
			if b.addHuman(ev) {
				b.noteLine(ev.Seq, size, sum)
			}
			if !isHostCommand(ev.Text) {
				b.noteSaid(ev.Seq, size, sum)
			}
		} else if ev.Source.Kind == session.KindSystem && (ev.Source.Name == "compact-summary" || ev.Source.Name == "compacted") {
			// The host's own compaction summary: model-written, and what
			// the person's previous window worked from.
			st.HostSummary = &message{Seq: ev.Seq, Text: clipHeadTail(strings.TrimSpace(ev.Text), maxSummaryRunes, "", ev.Seq)}
			st.Recap = nil // the summary is the newer account
		} else if ev.Source.Kind == session.KindSkill {
			b.commandText(ev)
		} else if ev.Source.Kind == session.KindSystem {
			b.backgroundEnded(ev)
			b.planApproved(ev)
			b.interrupted(ev)
		}
	case session.TypeAssistantMessage:
		// graft's own acknowledgement is not a step of the work.
		if !strings.Contains(ev.Text, session.GraftMarker) {
			b.addAssistant(ev)
		}
	case session.TypeToolCall:
		b.addCall(ev, size, off)
	case session.TypeToolResult:
		b.addResult(ev, size, off)
	case session.TypeTodoWrite:
		st.Todos = make([]session.Todo, len(ev.Todos))
		for k, td := range ev.Todos {
			td.Content = clipAtSeq(td.Content, maxTodoRunes, "", ev.Seq)
			st.Todos[k] = td
		}
		st.TodoSeq = ev.Seq
		st.OKSinceTodo = 0
		st.TodoFrom = nil
	case session.TypeSystem:
		if p := ev.Meta[session.MetaPlanFile]; p != "" {
			st.PlanFile = clipLine(p, maxPlanFileRunes)
		}
		if u := ev.Meta[session.MetaPullRequest]; u != "" {
			b.linkPullRequest(clipLine(u, maxPullRequestRunes), clipLine(ev.Meta["prNumber"], 12), ev.Seq)
		}
		if p := ev.Meta[session.MetaChangedOutside]; p != "" {
			b.touch(fileTouch{Path: p, Op: OpOutside}, ev.Seq, openCall{}).Conflict = conflictMarkers(ev.Text)
		}
		if ev.Source.Name == session.SourceRecap && strings.TrimSpace(ev.Text) != "" {
			st.Recap = &message{Seq: ev.Seq, Text: clipAtSeq(strings.TrimSpace(ev.Text), maxRecapRunes, "", ev.Seq)}
		}
		b.queue(ev)
		b.interrupted(ev)
	case session.TypeSubagentReport:
		b.addReport(ev)
	}
	b.addTail(ev, size, off)
	st.Open.End = ev.Seq
	return nil
}

// addOrigin reads the graft/origin of a target; Add checked its generation.
func (b *Builder) addOrigin(ev *session.Event) {
	st := &b.st
	if ev.Seq != 1 {
		st.Warnings = append(st.Warnings, fmt.Sprintf("graft/origin at seq %d ignored: only seq 1 opens a graft target", ev.Seq))
		return
	}
	st.Generation = ev.Generation
	if ev.Inherit != nil {
		if ev.Inherit.FirstGoal != nil {
			q := *ev.Inherit.FirstGoal
			st.FirstGoal = &q
		}
		st.Constraints = anchorsCopy(ev.Inherit.Constraints)
		// The person's other instructions an earlier generation handed
		// on: the Goal quotes them before this session's own.
		st.Humans = append(st.Humans, ev.Inherit.Said...)
		st.PrevFiles = append([]session.FileNote(nil), ev.Inherit.Files...)
		st.PrevMessages = append([]session.Passage(nil), ev.Inherit.Messages...)
		st.PrevPrompts = append([]session.Quote(nil), ev.Inherit.Prompts...)
		if p := ev.Inherit.Place; p != nil {
			// Where the work was done, until this session's events say.
			st.Cwd, st.GitBranch = p.Cwd, clipLine(p.GitBranch, whatRunes)
			if p.GitCommit != "" && st.GitCommit == "" {
				// The commit the work started at: the diff of all of it
				// starts there, whatever this session's own start.
				st.GitCommit, st.GitCommitBefore = clipLine(p.GitCommit, 40), true
			}
		}
		if p := ev.Inherit.Plan; p != nil && strings.TrimSpace(p.Text) != "" {
			// The plan that was the work's task stays its task.
			from := p.Origin
			st.Plan = &plan{Seq: ev.Seq, Text: p.Text, State: "approved", Task: true, From: &from}
		}
		if p := ev.Inherit.ApprovedPlan; p != nil && st.Plan == nil && strings.TrimSpace(p.Text) != "" {
			// The plan the person approved the generation before, until
			// this session proposes one.
			from := p.Origin
			st.Plan = &plan{Seq: ev.Seq, Text: p.Text, State: "approved", From: &from}
		}
		st.PrevFailures = prevNotes(ev.Inherit.Failures, keptInheritedFailures, maxInheritedFailureRunes, ev.Seq, "the failure handed on")
		st.PrevWorkarounds = prevNotes(ev.Inherit.Workarounds, keptFixed, maxInheritedFailureRunes, ev.Seq, "the workaround handed on")
		st.PrevMilestones = prevNotes(ev.Inherit.Milestones, keptInheritedMilestones, maxInheritedMilestoneRunes, ev.Seq, "the milestone handed on")
		if l := ev.Inherit.Todos; l != nil && len(l.Items) > 0 {
			// The work's last todo list, until this session writes its
			// own: its items as the session that wrote it held them
			// (their cut marks cite that session's seqs).
			st.Todos = make([]session.Todo, len(l.Items))
			for k, td := range l.Items {
				td.Content = clipRunes(td.Content, 2*maxTodoRunes, "the todo list handed on")
				st.Todos[k] = td
			}
			from := l.Origin
			st.TodoSeq, st.TodoFrom, st.OKSinceTodo = ev.Seq, &from, 0
		}
		st.MoreConstraints = append([]session.More(nil), ev.Inherit.MoreConstraints...)
		if g := ev.Inherit.Goal; g != nil {
			// The goal the export hands the host: the host's own records
			// of it follow the export's lines, past the follow's cursor.
			st.Goal = &HostGoal{Status: clipLine(g.Status, 40), Objective: clipAtSeq(g.Objective, maxGoalRunes, "", ev.Seq), Seq: ev.Seq}
		}
		if len(st.Constraints) > keptConstraints {
			// Written before the cap: the constraints past it are
			// counted, each with every origin it was said at.
			for _, c := range st.Constraints[keptConstraints:] {
				for _, o := range append([]session.Origin{c.Origin}, c.Also...) {
					st.MoreConstraints = addMore(st.MoreConstraints, o.Session, 1, o.Seq)
				}
			}
			st.Constraints = st.Constraints[:keptConstraints:keptConstraints]
		}
		b.cons = nil
	}
	st.Origin = &quote{Seq: ev.Seq, Text: fmt.Sprintf("graft/origin: grafted from %s at boundary seq=%d (this is generation %d)", ev.Parent, ev.ParentBoundary, ev.Generation)}
	if ev.Relies != nil {
		st.Relied = append([]session.PrefixMark(nil), ev.Relies.Prefixes...)
		for _, ol := range ev.Relies.Origins {
			if st.Lines == nil {
				st.Lines = map[string]string{}
			}
			st.Lines[originKey(ol.Origin)] = ol.Line
		}
	}
}

func anchorsCopy(cs []session.Constraint) []session.Constraint {
	if len(cs) == 0 {
		return nil
	}
	out := make([]session.Constraint, len(cs))
	for k, c := range cs {
		c.Also = append([]session.Origin(nil), c.Also...)
		out[k] = c
	}
	return out
}

// addHuman folds a human instruction and reports whether what the fold
// hands on now cites it (the first goal, or a constraint saying kept).
func (b *Builder) addHuman(ev *session.Event) (cited bool) {
	st := &b.st
	st.Queued = delivered(st.Queued, ev.Text)
	origin := session.Origin{Generation: st.Generation, Session: st.SessionID, Seq: ev.Seq}
	q := session.Quote{Text: clipQuote(strings.TrimSpace(ev.Text), ev.Seq), Origin: origin}
	hostCommand := isHostCommand(ev.Text)
	if !hostCommand {
		st.Humans = append(st.Humans, session.Quote{Text: clipInstruction(strings.TrimSpace(ev.Text), maxHumanRunes, ev.Seq), Origin: origin})
		for _, gone := range st.Humans[:max(0, len(st.Humans)-keptHumans)] {
			if gone.Origin.Session == st.SessionID && (st.FirstGoal == nil || gone.Origin != st.FirstGoal.Origin) {
				st.HumansDropped.add(gone.Origin.Seq, gone.Origin.Seq) // the Goal's cut line counts them
			} else if gone.Origin.Session != st.SessionID {
				st.HumansDroppedBefore = addMore(st.HumansDroppedBefore, gone.Origin.Session, 1, gone.Origin.Seq)
			}
		}
		st.Humans = keepLast(st.Humans, keptHumans)
		for _, tok := range userTokens(ev.Text) {
			st.UserTokens = addToken(st.UserTokens, tok)
		}
	}
	if st.FirstGoal == nil && !hostCommand {
		if st.Generation > 1 {
			st.Warnings = append(st.Warnings, fmt.Sprintf("graft/origin carries no first goal of generation 1: the goal starts at this session's first instruction, seq %d", ev.Seq))
		}
		fg := q
		st.FirstGoal = &fg
		cited = true
	}
	st.Latest = append(st.Latest, q)
	if len(st.Latest) > keptLatestGoals {
		st.Latest = append(st.Latest[:0:0], st.Latest[len(st.Latest)-keptLatestGoals:]...)
	}
	if b.cons == nil {
		b.cons = anchors.NewSet(st.Constraints)
	}
	// A pasted screen of an earlier session is the agent's words and its
	// tools' output around the person's prompts: its constraints are the
	// prompts' alone (model-written text is never a constraint).
	said := ev.Text
	if len(ev.Text) >= pastedBytes {
		st.Pasted = keepLast(append(st.Pasted, ev.Seq), keptPasted)
		if sayings, ps := pastedPrompts(ev.Text); len(ps) > 0 && !hostCommand {
			said = sayings
			st.Prompts = keepLast(append(st.Prompts, pastedAt{Seq: ev.Seq, Prompts: ps}), keptPasted)
		}
	}
	sayings, dropped := b.cons.AddCounted(said, origin, keptConstraints)
	st.Constraints = b.cons.List()
	if dropped > 0 {
		st.MoreConstraints = addMore(st.MoreConstraints, st.SessionID, dropped, ev.Seq)
	}
	// A kept saying cites the instruction (a new constraint, a repeat in
	// Also, or an older origin): one past the dropped ones was kept.
	cited = cited || sayings > dropped

	// The open turn closes; this instruction opens the next one (its last
	// message stays in the carryover). That message is what the person
	// answers, and a short answer ("yes to all", "6", "use X for now") says
	// yes to it: a plan with its steps, an offer, a list to pick from. It
	// stays as the open turn's last message was kept (whole up to
	// maxReplyRunes, else its head and its end, where it asks or offers what
	// to do next), not cut to a paragraph's length.
	if r, c := st.LastReply, st.Carry.Paragraphs; r != nil && len(c) > 0 && !hostCommand && utf8.RuneCountInString(strings.TrimSpace(ev.Text)) <= shortAnswerRunes {
		if p := &c[len(c)-1]; p.Seq == r.Seq && !p.User && p.Text != r.Text {
			p.Text = r.Text
			st.Carry.Runes += utf8.RuneCountInString(p.Text) - p.Runes
			p.Runes = utf8.RuneCountInString(p.Text)
		}
	}
	// An answer that names an option ("6", "B") keeps that option's line:
	// the Goal shows it under the answer, which alone says nothing once
	// the message it answers is cut (TestTheGoalShowsTheOptionAShortAnswerPicks).
	if r := st.LastReply; r != nil && !hostCommand && len(ev.Text) <= maxAnswerBytes {
		if lines := pickedLines(r.Text, ev.Text); lines != nil {
			st.Picks = keepLast(append(st.Picks, pick{Seq: ev.Seq, From: r.Seq, Lines: lines}), keptHumans)
		}
	}
	st.LastReply = nil
	if st.Open.Start != 0 || len(st.Open.Messages) > 0 || st.Open.Dropped.N > 0 {
		st.Closed = append(st.Closed, st.Open)
		if len(st.Closed) > MaxRecentTurns {
			st.Closed = append(st.Closed[:0:0], st.Closed[len(st.Closed)-MaxRecentTurns:]...)
		}
	}
	st.Open = turn{Start: ev.Seq, End: ev.Seq}
	st.Open.add(message{Seq: ev.Seq, Human: true, Text: clipAtSeq(ev.Text, maxMessageRunes, "", ev.Seq)})
	if in := st.Interrupt; in != nil && in.Seq < st.Boundary {
		st.Interrupt = nil // two turns back now
	}
	st.Boundary = ev.Seq
	if !hostCommand && len(st.Carry.Paragraphs) > 0 {
		// The carryover runs on across turns: a mark says where the user spoke.
		b.carry(paragraph{Seq: ev.Seq, User: true, Text: firstLine(ev.Text, labelRunes)})
	}
	st.OpenFailures = 0

	entry := recallEntry{Seq: ev.Seq, Label: "human instruction: " + firstLine(ev.Text, labelRunes)}
	if st.FirstRecall == nil {
		st.FirstRecall = &entry
		return cited
	}
	st.Recall = append(st.Recall, entry)
	if len(st.Recall) > keptRecallTurns {
		st.RecallDropped.add(st.Recall[0].Seq, st.Recall[0].Seq)
		st.Recall = append(st.Recall[:0:0], st.Recall[1:]...)
	}
	return cited
}

// addMore counts n sayings at seq of session sess into more: into the
// session's entry, else a new one at the end.
func addMore(more []session.More, sess string, n int, seq int64) []session.More {
	for k := range more {
		if m := &more[k]; m.Session == sess {
			m.N += n
			m.From, m.To = min(m.From, seq), max(m.To, seq)
			return more
		}
	}
	return append(more, session.More{Session: sess, N: n, From: seq, To: seq})
}

// add keeps a message, dropping the oldest non-human ones past the caps.
func (t *turn) add(m message) {
	t.Messages = append(t.Messages, m)
	t.Runes += utf8.RuneCountInString(m.Text)
	for (t.Runes > maxTurnRunes || len(t.Messages) > maxTurnMessages) && len(t.Messages) > 2 {
		// Index 0 is the human instruction when the turn has one.
		k := 0
		if t.Messages[0].Human {
			k = 1
		}
		gone := t.Messages[k]
		t.Dropped.add(gone.Seq, gone.Seq)
		t.Runes -= utf8.RuneCountInString(gone.Text)
		t.Messages = append(t.Messages[:k], t.Messages[k+1:]...)
	}
}

func (b *Builder) addAssistant(ev *session.Event) {
	st := &b.st
	if text, ok := b.proposedPlan(ev); ok {
		e := *ev
		e.Text = text
		ev = &e
	}
	if ev.Source.Name != "thinking" && strings.TrimSpace(ev.Text) != "" {
		st.LastReply = &message{Seq: ev.Seq, Text: clipHeadTail(strings.TrimSpace(ev.Text), maxReplyRunes, "", ev.Seq)}
	}
	st.Open.add(message{Seq: ev.Seq, Text: clipAtSeq(ev.Text, maxMessageRunes, "", ev.Seq)})
	// The carryover keeps each message whole (up to maxParagraphRunes):
	// what the assistant said of its steps, its findings and its choices;
	// of a thinking block only its final paragraph, where it concludes.
	p := strings.TrimSpace(ev.Text)
	if ev.Source.Name == "thinking" {
		p = lastParagraph(ev.Text)
	}
	if p == "" {
		return
	}
	b.carry(paragraph{Seq: ev.Seq, Text: clipAtSeq(p, maxParagraphRunes, "", ev.Seq)})
	// A rune is at most 4 bytes: a longer text is no announcement, and its
	// runes are not counted.
	if ev.Source.Name != "thinking" && len(p) <= 4*maxAnnounceRunes && utf8.RuneCountInString(p) <= maxAnnounceRunes && !strings.Contains(p, "\n\n") {
		b.st.Carry.Announce = ev.Seq
	}
}

// proposedPlan takes the plan an assistant message proposes
// (session.MetaProposedPlan: Codex's Plan mode) for the session's plan,
// with no answer yet, and is the message's text with the plan left for a
// pointer: Task Status quotes the plan, the message's words around it
// stay. ok is false when the message proposes none.
func (b *Builder) proposedPlan(ev *session.Event) (string, bool) {
	start, end, ok := session.PlanRange(ev.Meta[session.MetaProposedPlan], len(ev.Text))
	if !ok || strings.TrimSpace(ev.Text[start:end]) == "" {
		return "", false
	}
	b.st.Plan = &plan{Seq: ev.Seq, Text: clipHeadTail(strings.TrimSpace(ev.Text[start:end]), maxKeptPlanRunes, "", ev.Seq), ByMode: true}
	return ev.Text[:start] + fmt.Sprintf("[the plan proposed at seq=%d: Task Status quotes the newest plan]", ev.Seq) + ev.Text[end:], true
}

// current says whether p, a plan that is not the work's task, is the one
// the work goes by now: this session's, approved, with no instruction of
// the person's since the one the approval answered ("Implement the
// plan.", in Codex the instruction that follows leaving Plan mode).
func (b *Builder) current(p *plan) bool {
	if p == nil || p.Task || p.State != "approved" || p.From != nil {
		return false
	}
	// In Codex the person's yes leaves Plan mode and sends the
	// instruction to implement the plan: one instruction after is that.
	after, answer := 0, 0
	if p.ByMode {
		answer = 1
	}
	for _, h := range b.st.Humans {
		if h.Origin.Session == b.st.SessionID && h.Origin.Seq > p.Answered {
			after++
		}
	}
	return after <= answer
}

// maxPlanFileRunes bounds the path of a plan file the fold keeps.
const maxPlanFileRunes = 300

// maxAnnounceRunes bounds a message that announces a step.
const maxAnnounceRunes = 200

// announces marks the carryover's last entry a Step when ev is the tool
// call it announced; any other event but thinking ends the chance.
func (b *Builder) announces(ev *session.Event) {
	c := &b.st.Carry
	if c.Announce == 0 {
		return
	}
	switch {
	case ev.Type == session.TypeToolCall:
		if n := len(c.Paragraphs); n > 0 && c.Paragraphs[n-1].Seq == c.Announce {
			c.Paragraphs[n-1].Step = true
		}
	case ev.Type == session.TypeAssistantMessage && ev.Source.Name == "thinking":
		return
	}
	c.Announce = 0
}

// carry appends to the carryover, dropping the oldest entries past its caps.
func (b *Builder) carry(p paragraph) {
	c := &b.st.Carry
	p.Runes = utf8.RuneCountInString(p.Text)
	c.Paragraphs = append(c.Paragraphs, p)
	c.Runes += p.Runes
	drop := 0
	for (c.Runes > MaxBudget || len(c.Paragraphs)-drop > maxCarryParagraphs) && len(c.Paragraphs)-drop > 1 {
		gone := c.Paragraphs[drop]
		c.Dropped.add(gone.Seq, gone.Seq)
		c.Runes -= gone.Runes
		drop++
	}
	// Re-slicing forward costs nothing per event; the next append that
	// outgrows the array copies only the live entries.
	c.Paragraphs = c.Paragraphs[drop:]
}

func (b *Builder) addCall(ev *session.Event, size int, off int64) {
	st := &b.st
	st.Open.ToolCalls++
	b.lastWhat, b.lastChange = "", ""
	if ev.Tool == nil {
		return
	}
	name := ev.Tool.Name
	if isPlanExit(name) {
		var in struct {
			Plan     string `json:"plan"`
			Filename string `json:"plan_filename"`
		}
		if json.Unmarshal(ev.Tool.Input, &in) == nil && strings.TrimSpace(in.Plan) != "" {
			st.Plan = &plan{Seq: ev.Seq, CallID: ev.Tool.CallID, Text: clipHeadTail(strings.TrimSpace(in.Plan), maxKeptPlanRunes, "", ev.Seq)}
		} else if w := st.LastMD; w != nil && (in.Filename == "" || baseName(in.Filename) == baseName(w.Path)) {
			// No plan in the call: the plan file written in plan mode
			// (the one it names, Gemini CLI's plan_filename).
			st.Plan = &plan{Seq: ev.Seq, CallID: ev.Tool.CallID, Text: w.Text, File: w.Path, Call: w.Call}
		}
	}
	c := openCall{Seq: ev.Seq, Tool: name}
	cl := b.class(name)
	// The input's fields are read once for its paths, its what and its
	// prompt.
	in := &callInput{raw: ev.Tool.Input}
	touches, file := in.fileTouches(name)
	poll, waits := "", false
	if name == "write_stdin" || name == "wait" {
		poll, waits = pollWhat(ev, st.Cwd)
	}
	if poll != "" {
		c.What, c.Poll = poll, waits
	} else if file && !cl.shell {
		c.What = touchesWhat(touches, st.Cwd) // one read of the input: a Write's may be large
	} else {
		c.What = in.what(st.Cwd, whatRunes)
		c.Writes = cl.shell && !file && printsIntoAFile(in.command()) // !file: no here-document to parse again
		b.posted(ev, in, cl.shell)
		if strings.HasSuffix(c.What, "…") {
			c.Long = in.what(st.Cwd, inFlightRunes) // shown if it is in flight at the cut
		} else if p := in.delegated(); p != "" && c.What != "" {
			c.Long = c.What + ": " + clipHeadTail(p, inFlightPromptRunes, "", ev.Seq)
		}
	}
	c.ToolList = readsToolList(name, ev.Tool.Input)
	b.lastWhat = c.What
	if file && len(touches) == 1 && touches[0].Op == OpWrite && strings.HasSuffix(strings.ToLower(touches[0].Path), ".md") {
		w := &planWrite{Seq: ev.Seq, Path: relPath(touches[0].Path, st.Cwd)}
		if off >= 0 {
			w.Call = &callRef{Seq: ev.Seq, Tool: name, Off: off, Size: size}
		} else {
			w.Text = planText(editTexts(name, ev.Tool.Input), ev.Seq)
		}
		st.LastMD = w
	}
	if ev.Tool.CallID == "" {
		return
	}
	if file {
		c.File, c.Touches = true, touches
		if cl.op != OpRead {
			c.Off, c.Size = -1, 0
			if off >= 0 {
				c.Off, c.Size = off, size // read at Build, for the files it shows
			} else {
				c.Symbols, c.Change, c.Adds = editSymbols(name, ev.Tool.Input), editChange(name, ev.Tool.Input), editAdds(name, ev.Tool.Input)
				b.lastChange = c.Change
				if slices.ContainsFunc(touches, func(t fileTouch) bool { return isMarkdown(t.Path) }) {
					c.Labelled = labelledLines(name, ev.Tool.Input)
				}
				if len(touches) > 1 {
					for p, in := range patchInputs(name, ev.Tool.Input) {
						if c.PerPath == nil {
							c.PerPath = map[string]*fileFacts{}
						}
						ff := &fileFacts{Symbols: editSymbols("apply_patch", in), Change: editChange("apply_patch", in), Adds: editAdds("apply_patch", in)}
						if isMarkdown(p) {
							ff.Labelled = labelledLines("apply_patch", in)
						}
						c.PerPath[p] = ff
					}
				}
			}
		}
	} else if c.What != "" && !cl.todo && cl.quotes {
		for _, tok := range st.UserTokens {
			if namesWhole(c.What, tok) {
				// A look-up of what the user named (looksUp); a
				// commit, a tracker update, a test run, a build, a
				// script or a copy naming it is an action.
				c.Ref = looksUp(name, c.What)
				break
			}
		}
	}
	if st.Calls == nil {
		st.Calls = map[string]openCall{}
	}
	st.Calls[ev.Tool.CallID] = c
	if len(st.Calls) > maxOpenCalls {
		// Calls that never got a result: forget the oldest; its late
		// result, if any, is counted as unattributed.
		oldID, oldSeq := "", int64(0)
		for id, c := range st.Calls {
			if oldID == "" || c.Seq < oldSeq || (c.Seq == oldSeq && id < oldID) {
				oldID, oldSeq = id, c.Seq
			}
		}
		delete(st.Calls, oldID)
		st.CallsDropped++
	}
}

func (b *Builder) addResult(ev *session.Event, size int, off int64) {
	st := &b.st
	name := ""
	var call openCall
	var haveCall bool
	if ev.Tool != nil {
		name = ev.Tool.Name
		if ev.Tool.CallID != "" {
			call, haveCall = st.Calls[ev.Tool.CallID]
			delete(st.Calls, ev.Tool.CallID)
		}
	}
	cl := b.class(name)
	what, writes, toolList := call.What, call.Writes, call.ToolList
	if !haveCall && ev.Tool != nil {
		what = callWhat(name, ev.Tool.Input, st.Cwd)
		writes = cl.shell && printsIntoAFile(shellCommand(ev.Tool.Input))
		toolList = readsToolList(name, ev.Tool.Input)
	}
	ok := ev.OKResult()
	if p := st.Plan; p != nil && ev.Tool != nil && p.CallID != "" && p.CallID == ev.Tool.CallID {
		p.State, p.Answered = "approved", ev.Seq
		if !ok {
			p.State = "not approved"
		}
		if i := strings.Index(ev.Tool.Output, planSavedTo); ok && i >= 0 {
			p.Saved = clipLine(strings.TrimSpace(firstLine(ev.Tool.Output[i+len(planSavedTo):], maxPlanFileRunes)), maxPlanFileRunes)
		}
	}
	var key []string
	// A declined call's result is the host's words that it did not run
	// (the person's own, if any, the importer made a user/message).
	declined := ""
	if !ok && ev.Declined() {
		declined = ev.Meta[session.MetaDeclined]
	}
	background := ""
	if ok && ev.Tool != nil && ev.Meta[session.MetaBackground] != "" {
		background = ev.Tool.CallID // a launch notice: its report comes later
	}
	quote := declined == "" && background == "" && (!ok || cl.quotes && (writes || !readsOnly(what)) && !toolList)
	if off < 0 && ev.Tool != nil && quote && size <= MaxOutputLine {
		key = keyLines(headTail(ev.Tool.Output), ok)
	}
	aoff, asize := off, size
	if !quote {
		aoff, asize = -1, 0 // nothing of it is quoted: not read at Build
	}
	if !cl.todo {
		a := action{Seq: ev.Seq, Off: aoff, Size: asize, Tool: name, What: what, OK: ok, Key: key, Declined: declined, Writes: writes}
		a.Unreported = ev.Tool != nil && ev.Tool.OK == nil && cl.shell
		a.Running = a.Unreported && ev.Meta["execRunning"] != ""
		a.Background = background
		a.Poll = call.Poll && ok
		if declined != "" || background != "" {
			st.Actions = appendRing(st.Actions, a, keptCommands)
		} else if quote {
			a.Kind = milestoneKind(what)
			st.Actions = appendRing(st.Actions, a, keptCommands)
			if a.Kind != "" {
				st.Milestones = addMilestone(st.Milestones, a)
			}
		} else {
			st.Quiet = appendRing(st.Quiet, a, keptQuiet)
		}
	}
	if !ok {
		line := ""
		if ev.Tool != nil {
			// The fold keeps a failure's output through its first line
			// with text: of Codex's exec output with an empty body, its
			// header's first ("Chunk ID: …"), which is no line of the
			// command's (TestAnEmptyFailureShowsNoHeaderLine).
			if line = firstLine(ev.Tool.Output, maxFailureRunes); codexExecHeader(line) || wrapperLine(line) {
				line = ""
			}
		}
		if declined != "" {
			// No failure: nothing ran, and the host's words say only that.
			// A plan the person turned down is Task Status's to say.
			if !isPlanExit(name) {
				st.Failures = append(st.Failures, failure{Seq: ev.Seq, Tool: name, What: what, Off: -1, Declined: declined})
				st.Failures = keepLast(st.Failures, keptFailures)
			}
			return
		}
		st.Failures = append(st.Failures, failure{Seq: ev.Seq, Tool: name, Line: line, What: what, Off: off, Size: size, Key: key, Left: chainCommands(what)})
		st.Failures = keepLast(st.Failures, keptFailures)
		st.OpenFailures++
		st.Open.ToolFailures++
		return
	}
	if what != "" && len(st.Failures) > 0 {
		// A failure that a later run of the same call fixed is not pending.
		var later []string
		kept := st.Failures[:0]
		for k := range st.Failures {
			f := &st.Failures[k]
			if f.Tool == name {
				if later == nil {
					later = commandList(what)
				}
				if f.run == nil {
					f.run = readFailedRun(f.What)
				}
				if f.run.fixedBy(f.What, what, later) {
					if f.Declined == "" { // one the person let run since is no fix
						st.fixed(*f, ev.Seq, what)
					}
					continue
				}
				if f.Left != nil && f.Declined == "" {
					if f.Left = chainLeft(f.Left, later); len(f.Left) == 0 {
						st.fixed(*f, ev.Seq, what)
						continue
					}
				}
			}
			kept = append(kept, *f)
		}
		clear(st.Failures[len(kept):])
		st.Failures = kept
	}
	if what != "" && len(st.PrevFailures) > 0 {
		// A failure handed on that a run of the same call here fixed.
		later := commandList(what)
		kept := st.PrevFailures[:0]
		for _, p := range st.PrevFailures {
			if p.Note.Tool == name && readFailedRun(p.Note.What).fixedBy(p.Note.What, what, later) {
				st.Fixed++
				continue
			}
			kept = append(kept, p)
		}
		clear(st.PrevFailures[len(kept):])
		st.PrevFailures = kept
	}
	if session.IsAnswerTool(name) {
		st.Answers = append(st.Answers, action{Seq: ev.Seq, Off: off, Size: size, Tool: name, What: what, OK: true, Key: refKey(off, size, ev)})
		st.Answers = keepLast(st.Answers, keptAnswers)
	}
	if call.Ref && size >= minRefRunes+refLineOverhead {
		kept := st.Refs[:0:0]
		for _, r := range st.Refs {
			if r.What != what { // looked up again: the later output is the one
				kept = append(kept, r)
			}
		}
		st.Refs = append(kept, action{Seq: ev.Seq, Off: off, Size: size, Tool: name, What: what, OK: true, Key: refKey(off, size, ev)})
		st.Refs = keepLast(st.Refs, keptRefs)
	}
	if !cl.todo {
		st.OKSinceTodo++
	}
	var touches []fileTouch
	isFileTool := cl.file // fileTouches(name, nil)
	switch {
	case haveCall && call.File:
		touches, isFileTool = call.Touches, true
	case haveCall:
		// A shell call that wrote no here-document, or a file tool
		// whose call was forgotten by nothing: as the call said.
	case ev.Tool != nil && len(ev.Tool.Input) > 0 && (isFileTool || cl.shell):
		touches, isFileTool = fileTouches(name, ev.Tool.Input)
	}
	if !isFileTool {
		return
	}
	if len(touches) == 0 {
		st.Unattributed++
		return
	}
	for _, t := range touches {
		b.touch(t, ev.Seq, call)
	}
}

// planText is a plan file's content as the tape quotes it.
func planText(texts []string, seq int64) string {
	for _, t := range texts {
		if t = strings.TrimSpace(t); t != "" {
			return clipHeadTail(t, maxKeptPlanRunes, "", seq)
		}
	}
	return ""
}

// refKey is a look-up's output when the fold has it in hand (Add): its
// head, one entry.
func refKey(off int64, size int, ev *session.Event) []string {
	if off >= 0 || ev.Tool == nil || size > MaxOutputLine {
		return nil
	}
	return []string{refText(ev.Tool.Output)}
}

// namesWhole: s names tok as a whole word, not as part of a longer one
// (a host folder that spells the workspace path with dashes,
// "-home-…-spotter-dov/tasks/…", does not name the bead spotter-dov).
func namesWhole(s, tok string) bool {
	inWord := func(b byte) bool {
		return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '-' || b == '_' || b >= 0x80
	}
	for i := 0; ; {
		k := strings.Index(s[i:], tok)
		if k < 0 {
			return false
		}
		k += i
		end := k + len(tok)
		if (k == 0 || !inWord(s[k-1])) && (end == len(s) || !inWord(s[end])) {
			return true
		}
		i = k + 1
	}
}

// refText is the head of a look-up's output.
func refText(out string) string {
	return clipRunes(strings.TrimSpace(stripANSI(outputBody(out))), refRunes, "the look-up's seq")
}

// headTail bounds an output the fold holds to its first 8 KiB and last
// 32 KiB, on line boundaries: key lines are read there.
func headTail(out string) string {
	const head, tail = 8 << 10, 32 << 10
	if len(out) <= head+tail {
		return out
	}
	h := out[:head]
	if i := strings.LastIndexByte(h, '\n'); i > 0 {
		h = h[:i]
	}
	t := out[len(out)-tail:]
	if i := strings.IndexByte(t, '\n'); i >= 0 {
		t = t[i+1:]
	}
	return h + "\n" + t
}

func addToken(toks []string, tok string) []string {
	for k, t := range toks {
		if t == tok {
			return append(append(toks[:k:k], toks[k+1:]...), tok)
		}
	}
	toks = append(toks, tok)
	if len(toks) > keptUserTokens {
		toks = append(toks[:0:0], toks[len(toks)-keptUserTokens:]...)
	}
	return toks
}

// touch records an op on a file and returns its entry. A file is keyed by
// its absolute path: one named relative to the session's folder (Codex's
// apply_patch, "./x") and by its whole path elsewhere is one file.
func (b *Builder) touch(t fileTouch, seq int64, call openCall) *fileEntry {
	st := &b.st
	if st.Files == nil {
		st.Files = map[string]*fileEntry{}
	}
	key := fileKey(t.Path, st.Cwd)
	f := st.Files[key]
	if f == nil {
		f = &fileEntry{}
		st.Files[key] = f
	}
	switch t.Op {
	case OpRead:
		f.Read = seq
	case OpWrite:
		f.Write = seq
	case OpEdit:
		f.Edit = seq
	case OpOutside:
		f.Outside = seq
	}
	if t.Op != OpRead && call.Seq > 0 {
		if f.Call != nil || len(f.Symbols) > 0 || len(f.Adds) > 0 {
			e := earlierEdit{Call: f.Call}
			if f.Call == nil {
				e.Defines, e.Names = slices.Clone(f.Symbols), slices.Clone(f.Adds)
			}
			f.Earlier = append(f.Earlier, e)
			f.Earlier = keepLast(f.Earlier, keptEarlierEdits)
		}
		f.Symbols, f.Change, f.Adds, f.Labelled, f.Call = call.Symbols, call.Change, call.Adds, call.Labelled, nil
		if ff := call.PerPath[t.Path]; ff != nil {
			f.Symbols, f.Change, f.Adds, f.Labelled = ff.Symbols, ff.Change, ff.Adds, ff.Labelled
		}
		if call.Off >= 0 && call.Size > 0 {
			f.Call = &callRef{Seq: call.Seq, Tool: call.Tool, Off: call.Off, Size: call.Size}
		}
	}
	f.Last = seq
	if len(st.Files) > maxFiles {
		oldPath, old := "", (*fileEntry)(nil)
		for p, e := range st.Files {
			if old == nil || e.Last < old.Last || (e.Last == old.Last && p < oldPath) {
				oldPath, old = p, e
			}
		}
		st.FilesDropped.add(old.firstSeq(), old.Last)
		delete(st.Files, oldPath)
	}
	return f
}

// fileKey is a path relative to the session's folder cwd made whole (a
// leading "./" dropped); any other path as it is. Of a Windows session
// (cwd C:\…), every path with slashes and its drive letter in capitals,
// Git Bash's /c/Users/… as C:/Users/…: its tools name one file as
// C:\Users\…\x.py, C:/Users/…/x.py and, from a shell in the folder, x.py.
func fileKey(p, cwd string) string {
	if p == "" {
		return p
	}
	win := isWindowsPath(cwd)
	if win && len(p) >= 3 && p[0] == '/' && p[2] == '/' && ('a' <= p[1]|0x20 && p[1]|0x20 <= 'z') {
		p = p[1:2] + ":" + p[2:] // Git Bash's drive
	}
	if win && isWindowsPath(p) {
		return strings.ToUpper(p[:1]) + slashed(p)[1:]
	}
	if cwd == "" || p[0] == '/' || p[0] == '~' || isWindowsPath(p) || strings.HasPrefix(p, `\`) {
		return p
	}
	rel := p
	for {
		r, ok := strings.CutPrefix(rel, "./")
		if !ok {
			r, ok = strings.CutPrefix(rel, `.\`)
		}
		if !ok {
			break
		}
		rel = r
	}
	if rel == "" || rel == "." || strings.HasPrefix(rel, "../") || strings.HasPrefix(rel, `..\`) {
		return p
	}
	if win {
		return fileKey(slashed(cwd)+"/"+rel, cwd)
	}
	return strings.TrimSuffix(cwd, "/") + "/" + rel
}

// firstSeq is the lowest result seq recorded for the path.
func (f *fileEntry) firstSeq() int64 {
	first := f.Last
	for _, s := range []int64{f.Read, f.Write, f.Edit} {
		if s != 0 && s < first {
			first = s
		}
	}
	return first
}

// reportBody is a sub-agent's report without the trailer the host adds
// for its model (Claude Code: "agentId: … (for resuming …)" and a
// <usage> block): a long report shows its head, where it frames the
// work, and its end, where it sums up its findings (clipHeadTail).
func reportBody(text string) string {
	text = strings.TrimSpace(text)
	if strings.HasSuffix(text, "</usage>") {
		if i := strings.LastIndex(text, "<usage>"); i >= 0 {
			text = strings.TrimSpace(text[:i])
		}
	}
	if i := strings.LastIndex(text, "agentId: "); i >= 0 && len(text)-i <= 200 && !strings.Contains(text[i:], "\n") {
		text = strings.TrimSpace(text[:i])
	}
	return text
}

func (b *Builder) addReport(ev *session.Event) {
	st := &b.st
	if a := b.launched(ev.Meta["callId"]); a != nil {
		// The report of a call run in the background, come later: its
		// line says so whether the report is kept or not.
		a.Reported = ev.Seq
	}
	// The host's word that it is the final answer stands for a report
	// keyword (Codex's FINAL_ANSWER); a dump is still none.
	if v := reportVerdict(ev.Text); v != "" && (ev.Meta[session.MetaFinalAnswer] != "true" || isDump(ev.Text)) {
		st.ReportsSkipped++
		return
	}
	st.Reports = append(st.Reports, report{Seq: ev.Seq, Agent: ev.Agent, Text: clipHeadTail(reportBody(ev.Text), maxReportRunes, "", ev.Seq), Tool: ev.Source.Name, CallID: ev.Meta["callId"]})
	if len(st.Reports) > keptReports {
		st.ReportsDropped.add(st.Reports[0].Seq, st.Reports[0].Seq)
		st.Reports = keepLast(st.Reports, keptReports)
	}
}

// planApproved takes the plan a host's message carries, approved by the
// person when the host cleared the context to implement it
// (session.MetaPlan), for the session's plan: the work's task.
func (b *Builder) planApproved(ev *session.Event) {
	start, end, ok := session.PlanRange(ev.Meta[session.MetaPlan], len(ev.Text))
	if !ok || strings.TrimSpace(ev.Text[start:end]) == "" {
		return
	}
	// Kept by its head and end (maxKeptPlanRunes): Task Status shows it
	// as the Goal shows a long instruction, with its middle parts.
	b.st.Plan = &plan{Seq: ev.Seq, Text: clipHeadTail(strings.TrimSpace(ev.Text[start:end]), maxKeptPlanRunes, "", ev.Seq), State: "approved", Task: true}
}

// notifiedSummary is the summary of a host's task notification.
var notifiedSummary = regexp.MustCompile(`(?s)<summary>(.*?)</summary>`)

// backgroundEnded notes on the action of a command run in the background
// the host's notification that it ended (meta callId names the call,
// session.MetaTaskStatus how it ended): its seq and its summary.
func (b *Builder) backgroundEnded(ev *session.Event) {
	id, status := ev.Meta["callId"], ev.Meta[session.MetaTaskStatus]
	if id == "" || status == "" {
		return
	}
	end := "it " + status
	if m := notifiedSummary.FindStringSubmatch(ev.Text); m != nil && strings.TrimSpace(m[1]) != "" {
		end = strings.Join(strings.Fields(m[1]), " ")
	}
	if a := b.launched(id); a != nil {
		a.Ended, a.End = ev.Seq, clipLine(end, keyLineRunes)
	}
}

// launched is the newest action of the call run in the background whose
// id is id, nil when the actions ring no longer holds it (or id is "").
func (b *Builder) launched(id string) *action {
	st := &b.st
	for k := len(st.Actions) - 1; k >= 0 && id != ""; k-- {
		if st.Actions[k].Background == id {
			return &st.Actions[k]
		}
	}
	return nil
}

// Snapshot is the whole fold state as bytes (JSON with the sha256 states
// inside), so a scan index can resume the fold at a byte offset.
func (b *Builder) Snapshot() ([]byte, error) {
	st := b.st
	st.RunningHash = mustMarshalHash(b.running)
	data, err := json.Marshal(&st)
	if err != nil {
		return nil, fmt.Errorf("tape: snapshot of %s at seq %d: %w", st.SessionID, st.LastSeq, err)
	}
	return data, nil
}

// ErrSnapshot is wrapped by every Restore error.
var ErrSnapshot = errors.New("tape: bad snapshot")

// Restore resumes a fold from Snapshot bytes.
func Restore(data []byte) (*Builder, error) {
	var st state
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSnapshot, err)
	}
	if st.Version != snapshotVersion {
		return nil, fmt.Errorf("%w: version %d, this build reads version %d", ErrSnapshot, st.Version, snapshotVersion)
	}
	h := sha256.New()
	if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(st.RunningHash); err != nil {
		return nil, fmt.Errorf("%w: running hash state: %v", ErrSnapshot, err)
	}
	if err := sha256.New().(encoding.BinaryUnmarshaler).UnmarshalBinary(st.PrefixState); err != nil {
		return nil, fmt.Errorf("%w: prefix hash state: %v", ErrSnapshot, err)
	}
	for path, f := range st.Files {
		if f == nil {
			return nil, fmt.Errorf("%w: file %q has no entry", ErrSnapshot, path)
		}
	}
	st.RunningHash = nil
	return &Builder{st: st, running: h}, nil
}

// LastSeq is the seq of the last event added.
func (b *Builder) LastSeq() int64 { return b.st.LastSeq }

// SessionID is the session being folded.
func (b *Builder) SessionID() string { return b.st.SessionID }

// hostSettings are the meta keys importers give what a host says the agent
// may do, in the order the tape names them, with the words it names them
// by.
var hostSettings = []struct{ meta, label string }{
	{"permissionMode", "permission mode"},
	{"collaborationMode", "collaboration mode"},
	{"approvalPolicy", "approval"},
	{"sandbox", "sandbox"},
	{"network", "network"},
}

// HostGoal is the goal a host keeps for the session (the hosts' /goal) as
// the host last said it: its status ("active", "paused", "complete" …),
// its objective, what its last check said, and the seq that said it.
type HostGoal struct {
	Status    string `json:"status"`
	Objective string `json:"objective,omitempty"`
	// Reason is what the host's last check of the goal said (why it is
	// not met, why it was paused): model-written or the host's.
	Reason string `json:"reason,omitempty"`
	Seq    int64  `json:"seq"`
}

// Carried says whether the target's inherit carries g
// (session.Inherited.Goal): the host still pursues it (active; one the
// person paused is theirs to resume) and its objective is whole (one
// longer than maxGoalRunes is quoted cut, and a host must not be set to
// pursue the cut words).
func (g *HostGoal) Carried() bool {
	return g != nil && g.Status == session.GoalActive && g.Objective != "" && !clippedAtSeq(g.Objective)
}

// maxGoalRunes bounds the objective Task Status quotes of a host's goal
// (the Goal block quotes the person's /goal whole), maxGoalReasonRunes the
// reason of its last check.
const (
	maxGoalRunes       = 400
	maxGoalReasonRunes = 300
)

// hostSetting is one setting: its value, the seq it took it at and the
// value before ("" when it is the first the host named).
type hostSetting struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	Was   string `json:"was,omitempty"`
	Seq   int64  `json:"seq"`
}

func (b *Builder) setting(key string) *hostSetting {
	for k := range b.st.Settings {
		if b.st.Settings[k].Key == key {
			return &b.st.Settings[k]
		}
	}
	return nil
}

// setSetting records that the host said key is v at seq: a change keeps
// the value before it.
func (b *Builder) setSetting(key, v string, seq int64) {
	v = clipLine(v, 40)
	s := b.setting(key)
	if s == nil {
		b.st.Settings = append(b.st.Settings, hostSetting{Key: key, Value: v, Seq: seq})
		slices.SortStableFunc(b.st.Settings, func(x, y hostSetting) int { return settingRank(x.Key) - settingRank(y.Key) })
		return
	}
	if s.Value != v {
		if p := b.st.Plan; p != nil && p.ByMode && p.State == "" && s.Value == "plan" {
			// Codex asks "Implement this plan?" and leaves Plan mode on
			// the person's yes.
			p.State, p.Answered = "approved", seq
		}
		s.Was, s.Value, s.Seq = s.Value, v, seq
	}
}

func settingRank(key string) int {
	for k, h := range hostSettings {
		if h.meta == key {
			return k
		}
	}
	return len(hostSettings)
}

// settingLabel is the words the tape names a setting by (its key for one
// it does not know).
func settingLabel(key string) string {
	if k := settingRank(key); k < len(hostSettings) {
		return hostSettings[k].label
	}
	return key
}
