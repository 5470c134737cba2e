// Package hookrun is what graft does when an agent host runs it as a hook
// ("graft hook claude-code", "graft hook codex", "graft hook qwen"): it reads the host's hook
// JSON, acts on the event and says what the host should print or do. It
// owns no file; what it writes goes through graft.Service and package hosts.
//
// # Input
//
// One JSON object on stdin, as the hosts send it: session_id,
// transcript_path, cwd, hook_event_name, and per event source (SessionStart:
// startup, resume, clear, compact) or trigger (PreCompact: manual, auto),
// and input_tokens when the host gives a Stop the size of the last model
// request (Qwen Code).
// Codex's notify program gets one JSON argument instead
// ({"type":"agent-turn-complete","thread-id":…,"cwd":…}): it is taken as a
// Stop of that thread, whose rollout is found under $CODEX_HOME/sessions.
//
// Input that is not such an object, or an event graft does not act on,
// writes nothing: one line on stderr, exit 0.
//
// transcript_path is taken only for a regular file (not a symlink) under
// the host's own transcript root, $CLAUDE_CONFIG_DIR/projects/… or
// $CODEX_HOME/sessions/…, real paths compared, named for the event's
// session (hosts.CheckTranscriptPath). Another path is refused on stderr,
// read for nothing and bound to nothing; the host's own transcript of the
// session id is looked up instead (issue 24, item 6).
//
// The waits for catalog.db or for a session's lock held by another process
// end by BusyBudget (2 s) after the hook opened the home, all of them
// together (graft.Service Deadline): then the hook says graft is busy and
// lets the host go on (issue 24, item 10).
//
// # Events
//
//	SessionStart       the recovery scan (opening the service runs it); follow the
//	                   transcript (import what is new into the session it continues);
//	                   anything recovery rolled back, forward or left unresolved is said
//	                   in additionalContext, and so is an export a handoff owed (killed
//	                   after its commit) that the scan finished, with its resume
//	                   command. After a compaction (source "compact") the
//	                   Anchor + Hard Constraints block of the session, with origins, is
//	                   injected too, after those notes, so the constraints outlive the
//	                   host's summary: within what the host gives its model of a hook's
//	                   context as it is (adapter.Hooks.ContextMax, counted by
//	                   ContextLen: Claude Code's 10,000 UTF-16 code units, past which it
//	                   gives a file's path and a preview; Codex's 10,000 bytes, past
//	                   which it drops the middle), less what the notes take, and the
//	                   notices Tell puts first for Codex's model: past it the newest
//	                   constraints are cut and the block's cut line, last, names the
//	                   seqs to recall. When not even its anchor line and heading fit: a
//	                   warning and the notes alone.
//	UserPromptSubmit,  follow the transcript; past autoGraft context tokens (the last
//	Stop, notify       model request's: input_tokens when the input has it, else read
//	                   from the transcript) prepare a review and
//	                   tell the person how to hand off: before the turn as
//	                   additionalContext (the model relays it: Codex shows hook output
//	                   to nobody), after it as a systemMessage. A prompt typed into a
//	                   session that was handed off gets a note naming the session that
//	                   goes on and its resume command, also when the follow failed
//	                   after it knew that (an unreadable import cursor: the failure
//	                   is warned, the stray lines are not counted).
//	PreCompact         with interceptCompaction: hand the session off (import,
//	                   prepare, commit, export) and stop the compaction with a reason
//	                   that gives the resume command and the handoff's notes (where
//	                   the new session went, the /goal it lacks): Claude Code takes
//	                   {"decision":"block"}; Codex cannot veto a compaction (it reports
//	                   a block as a failed hook and compacts), so graft answers
//	                   {"continue":false}, which ends that turn before any model
//	                   request; the interactive Codex shows its systemMessage and
//	                   stopReason, codex exec shows no hook text (the next prompt's
//	                   note and graft status carry it there). A PreCompact of a session whose handoff was stopped
//	                   before its export (the export finished now, by this run or its
//	                   recovery scan) blocks the same way with the new resume command.
//	                   Otherwise, or when anything fails: follow only, never
//	                   block (the failure on stderr); for a host whose PreCompact
//	                   context reaches the summary request (adapter.Hooks.CompactContext:
//	                   Qwen Code, whose compression no answer stops), follow and give the
//	                   Anchor + Hard Constraints block, with origins, as additionalContext,
//	                   within what the host keeps of it (CompactContextMax, counted by
//	                   CompactContextLen: Qwen Code's first 4,000 UTF-16 code units,
//	                   '<' and '>' escaped): past it, the newest constraints are cut
//	                   in the block's own order and its cut line names the seqs to
//	                   recall (tape.Builder.ConstraintsBlock), rather than the host
//	                   cutting the block off mid-line. When not even its anchor line
//	                   and heading fit: a warning and no answer.
//	(Gemini CLI)       BeforeAgent, AfterAgent and PreCompress are run as
//	                   UserPromptSubmit, Stop and PreCompact. No hook answer stops
//	                   its compression (PreCompress follows only); its summary
//	                   (<state_snapshot>) shows in the session file, so the first
//	                   BeforeAgent after a compression the follow imported gives the
//	                   Anchor + Hard Constraints block with origins as
//	                   additionalContext (after the autoGraft note, when there is one;
//	                   Gemini CLI cuts no hook context: ContextMax 0), once: until the
//	                   host has recorded that
//	                   hook context after the compression
//	                   (adapter.Hooks.CompactionInTranscript). That look reads
//	                   the session's log from its end down to where the look
//	                   of the prompt before got to (session.Store.LastMatch,
//	                   memo index/<id>.last), not the whole log.
//
// # Never wedge the host
//
// Every outcome exits 0. A failure is one line on stderr and no decision:
// the host goes on as if graft were not installed. A panic is caught and
// reported the same way.
//
// # Notices: failures reach a person
//
// stderr is read by nobody. A failure that keeps the hooks from their job
// is also told once per cause in the host's visible channel: the
// systemMessage of the next SessionStart or UserPromptSubmit answer (the
// current run's, when it is one of these; a Stop or PreCompact that fails
// leaves it to the next), which Claude Code shows and the interactive Codex
// shows; for Codex the text also goes into additionalContext, asking the
// model to tell the user, since codex exec shows no hook text. Each
// message names the fix and graft doctor. The causes (kinds):
//
//	config            config.toml unreadable or wrong (file, line, key)
//	home              the graft home cannot be opened (not a directory, no
//	                  permission, a store that cannot be reached)
//	twice             a run from the Claude Code plugin (in Claude Code, Codex
//	                  or Qwen Code) or the Gemini CLI extension (graft hook
//	                  <host> --plugin) found graft's hook for the same event in
//	                  one of the host's settings files (Claude Code's user,
//	                  project, local; the others' one):
//	                  the plugin's run stands down, the settings hook does the
//	                  work
//	plugin-no-binary  the plugin's script (plugin/graft/bin/graft-plugin)
//	                  found no graft: $GRAFT_BIN unset or not executable, no
//	                  graft on PATH
//
// They are remembered in the graft home, the one place graft writes (an
// export's host file aside), in <home>/hook-notices (mode 0700, made only
// when there is a failure to remember): the configured home, or, when
// config.toml cannot be read, the one --home or GRAFT_HOME names, else the
// default (the plugin's script, finding no graft, uses GRAFT_HOME, else
// $XDG_DATA_HOME/graft, else ~/.local/share/graft). A home that cannot be
// written remembers nothing (below). A cause is two files there:
//
//	<cause>.json   {"cause": "<cause>", "message": "<the text shown>",
//	               "since": "<RFC 3339 UTC>"}; written under a temporary name
//	               and linked, never replaced
//	<cause>.shown  empty; created O_EXCL by the run that shows the message,
//	               so of two hooks at once exactly one tells it
//
// <cause> is the kind, then "-" and the first 12 hex digits of the SHA-256 of
// the message (another error of the same kind is another cause, told
// again); plugin-no-binary has no suffix (the shell script writes it). When
// a later run gets past the step, every notice of that kind is removed
// (config read, home opened, no settings hook beside the plugin, the plugin
// found graft), so the next failure of it is told again. When no directory
// can be written, what a run met is told at every SessionStart (once per
// host session) and never at a prompt.
package hookrun
