// Package session owns $GRAFT_HOME/sessions/: one append-only event log per
// session, and the event model every other package reads.
//
// # Files
//
//	sessions/<id>.jsonl          the log; mode 0600; directory 0700
//	sessions/<id>.jsonl.broken   bytes cut from a torn tail (".broken.N" if taken)
//	index/<id>.state             the state checkpoint of the log (see State); derived;
//	                             its format is index's (index/doc.go)
//	index/<id>.last              LastMatch's memo (the newest event a query accepted
//	                             before an offset); derived; index's format
//
// Ids match ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$; anything else is refused
// before any file is touched. Files are opened with O_NOFOLLOW: a symlink
// planted in sessions/ is refused, never followed.
//
// # Lines
//
// One JSON object per line, terminated by '\n'. No line-length limit (a tool
// output can be many MiB). Fields (see Event): seq, ts (RFC 3339, UTC),
// type, source {kind, name}, and the payload of the type:
//
//	user/message        text                source.kind user (human) or plugin/system/skill (injected)
//	assistant/message   text
//	tool/call           tool {name, callId, input}
//	tool/result         tool {name, callId, ok, output}
//	todo/write          todos [{id, content, status}]
//	subagent/report     agent, text
//	system/event        text                host events an importer keeps
//	graft/origin        txn, parent, parentBoundary, generation, tapeHash, tapeEvents, inherit, relies
//	graft/retired       txn, target         the commit point of a graft
//	graft/unretired     txn, target         the commit point of a revert
//	graft/abandoned     txn, reason         a target that never committed or was reverted
//
// Any event may carry meta, a map of strings: provenance an importer keeps
// (source uuid, line). No rule of this package reads it; the tape reads the
// keys an importer sets for it: where the session runs (cwd, gitBranch,
// gitCommit, and the host's settings), the command a Codex poll writes to
// or a code-mode wait waits on (execCommand; else the session that wait's
// script polls, execSession), a command still running when its call
// returned (execRunning: its session), a call run in the background
// (MetaBackground on its tool/result: its report comes later, naming the
// call in meta callId; a command's end, the host's notification, names it
// so too, with how it ended in MetaTaskStatus), and declined (MetaDeclined) on the tool/result of a call
// the person declined at the host's permission prompt ("user": it did not
// run) or stopped ("stopped": it may have run in part): no failure either
// way; and the status, objective and last check of a goal the host keeps
// for the session (MetaGoalStatus, MetaGoalObjective, MetaGoalReason: the
// /goal of Claude Code, Codex and Qwen Code).
//
// inherit, on graft/origin, is what the target hands to the next
// generation, so nothing is re-parsed out of tape text:
//
//	inherit          {firstGoal, constraints, said, files, plan, place, messages,
//	                  prompts, moreConstraints, goal, todos, approvedPlan, failures,
//	                  workarounds, milestones}
//	firstGoal        {text, origin}               the first human instruction of generation 1,
//	                                              its head and end in 6,000 characters (as the
//	                                              fold keeps it; the next Goal clips it again
//	                                              and lists its middle in parts)
//	said             [{text, origin, answer,      omitted when empty: the person's other
//	                  command, picks}]            instructions the tape's Goal quoted, oldest
//	                                              first, the newest 12 each as firstGoal and the
//	                                              older ones by head and end in 2,000
//	                                              characters, and their answers
//	                                              to the assistant's questions (answer: true,
//	                                              origin the tool result's, which relies does
//	                                              not cite), in the order said
//	files            [{path, note, session,       omitted when empty: the files the sessions
//	                  generation, seq}]           before wrote or edited, newest first (at most
//	                                              20): the path relative to that session's
//	                                              working directory, what its tape's Workspace
//	                                              Files said past the path (its seqs that
//	                                              session's, at most 400 characters), and the
//	                                              seq of the file's last change there
//	plan             {text, origin}               omitted when none: the plan the person
//	                                              approved to start the work when the host
//	                                              cleared the context to implement it (the
//	                                              work's task), model-written, its head and end
//	                                              in 6,000 characters; origin is the host's
//	                                              message that carried it; relies does not cite
//	                                              it (it quotes no human message)
//	place            {cwd, gitBranch, gitCommit}  omitted when no event named any: where
//	                                              the work was done at the cut, the working
//	                                              directory (the tape names files relative to
//	                                              it) and the git branch; the next generation
//	                                              starts from it until its own events name
//	                                              another. gitCommit: the commit the work
//	                                              started at (Codex's session_meta), which
//	                                              the next generation keeps
//	messages         [{text, origin}]             omitted when empty: the assistant's newest
//	                                              messages of the work before (not those that
//	                                              only announce a tool call), oldest first, at
//	                                              most 12, each at most 1,500 characters:
//	                                              model-written, never an instruction or a
//	                                              constraint; the next Breakpoint lists them
//	                                              before its own earlier messages; relies does
//	                                              not cite them (no human message)
//	prompts          [{text, origin}]             omitted when empty: per session the person
//	                                              pasted into the first goal or an instruction
//	                                              of said, the prompts they typed in it, one per
//	                                              line, with the paste's origin; the next Goal
//	                                              lists those its quote does not show
//	constraints      [{text, origin, also,        each hard constraint; also lists the later
//	                  pasted}]                    origins it was said again at; pasted (omitted
//	                                              when false): every saying so far was in a
//	                                              pasted instruction (3,000 bytes or more), which
//	                                              the next generation's ranking cuts first
//	origin           {generation, session, seq}   the human message it was copied from
//	command          {at, first, rule}            on a quote (firstGoal, said), omitted when
//	                                              none: the text the host wrote for the command
//	                                              the person typed (a slash command's template,
//	                                              a skill) at seq at of the quote's session, by
//	                                              its first line and first rule: the host's
//	                                              words, never the person's
//	picks            {from, lines}                on a quote of said, omitted when none: the
//	                                              options a short answer named ("6", "B"), the
//	                                              line that opens each in the assistant's
//	                                              message at seq from of the quote's session:
//	                                              model-written, never the person's words
//	moreConstraints  [{session, n, from, to}]     omitted when empty: per session, n constraint
//	                                              sayings at seqs from..to that the tape's fold
//	                                              did not keep past its cap (tape/doc.go, Budget)
//	goal             {objective, status, origin}  omitted when none: the goal the source's host
//	                                              still pursued at the cut (its /goal, status
//	                                              "active"; a paused, met, failed or cleared one
//	                                              is not carried); origin is the event that last
//	                                              said it (the host's, or a graft/origin that
//	                                              carried it). An export writes it into the new
//	                                              host session where the host restores a goal
//	                                              from its file (hosts/doc.go); relies does not
//	                                              cite it (it quotes no human message)
//	todos            {items, origin}              omitted when no list was written: the work's
//	                                              last todo list, items [{id, content, status}]
//	                                              as the fold held them (each content within 300
//	                                              characters, a cut mark citing the seq of
//	                                              origin's session), origin the todo/write that
//	                                              wrote it; the next generation shows it until
//	                                              it writes a list of its own, and hands it on
//	                                              with the same origin
//	approvedPlan     {text, origin}               omitted when none, or when plan is there: the
//	                                              newest plan the person approved in the host's
//	                                              plan mode, model-written, its head and end in
//	                                              6,000 characters; origin is the call that
//	                                              proposed it; the next generation's Task Status
//	                                              shows it until it proposes a plan of its own
//	failures         [{tool, what, text, origin}] omitted when none: the failed tool calls no
//	                                              later call had fixed at the cut (at most 6,
//	                                              newest last), text the line Pending State
//	                                              listed each by (its seqs, cut marks included,
//	                                              those of origin's session, within 1,500
//	                                              characters), tool and what the call and what
//	                                              it ran; the next generation lists them until a
//	                                              successful run of the same call fixes them
//	workarounds      [{tool, what, text, origin}] omitted when none: the last failures (at
//	                                              most 4) a later call worked around another
//	                                              way, text as Pending State listed each, its
//	                                              error line and "fixed by seq=N: <call>" (seqs
//	                                              of origin's session); the next generation
//	                                              lists them and hands them on
//	milestones       [{tool, what, text, origin}] omitted when none: the work's newest
//	                                              milestones that worked (at most 6, newest
//	                                              last: commits, pushes, pull requests, tracker
//	                                              updates, test and build runs), text the call
//	                                              line and last key lines as the tape listed
//	                                              them (seqs of origin's session, within 600
//	                                              characters); the next generation's Milestones
//	                                              list them before its own, and its target
//	                                              hands them on with its own
//
// relies, on graft/origin, is what the target relies on in its ancestors,
// recorded at commit so that graft audit can tell when any byte of it
// changed since (the digests are tape's, tape/doc.go, Hashes):
//
//	relies       {prefixes, origins}
//	prefixes     [{session, generation, boundary, prefixHash}]
//	                 one per ancestor, oldest first: the parent's (the source
//	                 of this graft, cut at parentBoundary) and the ones its
//	                 own graft/origin relied on; prefixHash is tape's prefix
//	                 hash over the events of session before seq boundary
//	origins      [{origin, line}]
//	                 the line digest (graft-line-v1) of each origin inherit
//	                 cites (constraints' origin and also, the first goal)
//	                 that one was taken for, in any ancestor, when the words
//	                 were first handed down; sorted by generation, session, seq
//
// A graft/origin without relies was written by a graft that recorded
// nothing: its audit checks texts only, and says so. An origin handed down
// through such a graft has no line digest.
//
// seq starts at 1 and rises by exactly 1; a gap or a repeat is an error that
// names both seqs.
//
// # Damage
//
// A last line without '\n' is a torn append: Scan reports it (offset, bytes)
// and ignores it. Before the next append the store cuts it, keeping the bytes
// in a .broken file first. A bad line anywhere else is a *CorruptError that
// names file, line number and byte offset; nothing is guessed.
//
// # Writers
//
// Every write takes an exclusive flock(2) on the log file itself (never
// renamed, so the lock is on the one inode) and folds the log under it
// before choosing the next seq: concurrent appenders, in one process or
// many, never write the same seq, and a half-written append of another
// writer is never mistaken for a torn tail. Create and CreateWriter lock the
// file right after O_EXCL and refuse it if another writer got there first.
// Readers take no lock: an append in flight looks like a torn tail to them.
//
// Every creator of a log also holds the session's lock, locks/<id>.lock
// (package lockfile), from before its O_EXCL create until the log is
// written: Create and CreateWriter take it (waiting up to Store.LockWait,
// 10 s by default; a Writer holds it until Close or Abort), and Append's
// caller holds it (graft.Service.Append, the importer), so an append that
// creates the log does too. A graft transaction holds its target's lock,
// so no log is created under a commit into the same id, and the recovery
// scan, which takes the same locks, never takes a log being created for
// the shell of a crashed commit.
//
// A batch is all or nothing. When the write or the fsync of an append
// fails (a disk that fills half-way through), the log is cut back to its
// size before the batch and fsynced: no event of the batch is read back
// and a retry repeats none. A Create (or the append that creates the log)
// that fails after its O_EXCL removes the log again. Writer.Abort and
// Writer.CloseOrRemove do the same for a streamed log (an import that
// failed keeps none of a session it was creating); Writer.Close leaves
// what was written (gen names the partial log).
//
// # State
//
// A session's state is a fold of its graft/* events: active; retired (a
// graft/retired not undone by a graft/unretired); abandoned (graft/abandoned).
// A graft target is live only when its parent's log holds graft/retired for
// the target's txn, naming the target, with no later graft/unretired: the
// store judges this from the parent (Store.Check), so an uncommitted target
// cannot be resumed even before recovery marks it, and neither can a copy
// of a target's log (it carries the target's graft/origin, but the
// graft/retired names the target). Appends to retired, abandoned or uncommitted
// sessions are refused naming the session to use instead; a retired session
// accepts only results of tool calls that were open at its commit point
// (the self-graft epilogue).
//
// Store.Info folds from index/<id>.state when it is valid, so that a fold's
// cost follows what was appended since (a per-turn hook on a long session),
// and writes a new one after a fold that read at least 1 MiB past it
// (CheckpointEvery). The file (one JSON object: v, dev, ino, offset, line,
// a tail check, and info, the fold as Info.Snapshot), its checks against
// the log and its writer are the index package's (index/doc.go, the state
// checkpoint): it is used only when the open log has the same dev and ino,
// is at least offset bytes long and has the same tail check, and its fold
// restores to this session at that offset; otherwise the whole log is
// folded and Info.CheckpointErr says why. An I/O error reading it fails
// the fold.
//
// # Code
//
// What lives where; the scan machinery that knows nothing of Event is in
// session/logscan (see its doc.go):
//
//	event.go        Event and the types it holds; Validate
//	decode.go       the Event schema's fast decoder over logscan.Decoder (a case per JSON
//	                field; encoding/json decides any line it declines); ScanFold and
//	                ScanFoldSums over a logscan.Pipeline; LineSum; StringFields
//	reader.go       Scan, NewLineReader, Torn, ScanResult, ScanFrom, Encode
//	endsat.go       endsAt: does the log still end where a scan left it (before an append)
//	store.go        Store: create, append, scan, state, repair of a torn tail
//	writer.go       Writer: a new log streamed under its lock (CreateWriter)
//	state.go        Info, the fold of graft/* events; snapshot.go, its saved form
//	checkpoint.go   Info's resume from index/<id>.state and when to write one (index does
//	                the file); open.go, OpenLog: the log opened for an index check
//	lock.go, id.go, errors.go
//
// A field added to Event (or to a type it holds) needs a case in
// decode.go: without one, every line carrying it is decoded by
// encoding/json, and TestFastPathDecodesEveryEventField fails, naming it.
package session
