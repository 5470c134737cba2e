// Package claudecode imports Claude Code transcripts
// (~/.claude/projects/<dir>/<uuid>.jsonl) into native sessions through the
// importer package, which keeps the cursor; this package owns no file.
//
// # Lines
//
//	user                     see "Who said it" below; tool_result blocks → tool/result
//	assistant                text → assistant/message; tool_use → tool/call; thinking → dropped
//	                         (counted) or, with KeepThinking, assistant/message source.name "thinking"
//	system                   system/event, source.name and meta.subtype = subtype (compact_boundary,
//	                         stop_hook_summary, turn_duration, local_command …), text ≤ 200 characters;
//	                         an away_summary (the recap Claude Code writes for the person who comes
//	                         back to the session, "… Next: …", model-written) has source.name
//	                         "recap" (session.SourceRecap) and its text whole (≤ 2,000 characters)
//	summary                  system/event "summary" with the summary text
//	progress                 skipped, counted: streaming progress (a sub-agent's steps are imported
//	                         from its own transcript)
//	file-history-snapshot    skipped, counted: editor undo snapshots
//	queue-operation          counted as skipped; the person's queued input is followed and kept as
//	                         system/event "queued-input" / "queue-popped" (see "Queued input")
//	atis-latch, api-request, api-request-shape, api-request-blob, last-prompt, cost-state,
//	custom-title, ai-title, agent-name, mode, tools-used, file-history-delta
//	                         skipped, counted: a current host's request cache, prompt recall,
//	                         cost counters, the title the person or the host gave the session,
//	                         an agent's name, and in its terminal the prompt's input mode and the
//	                         tools used so far, and an editor undo backup of a file
//	pr-link                  system/event "pr-link": a pull request the host linked to the
//	                         session, meta prUrl (its URL) and prNumber, the text naming both
//	permission-mode          system/event "permission-mode", meta.permissionMode = the session's
//	                         permission mode (default, acceptEdits, plan, bypassPermissions …;
//	                         current hosts write it, the last one holds)
//	attachment               system/event "attachment", text "attachment <type>", meta.attachment =
//	                         its type (environment, date, skill_listing, hook context …): injected
//	                         by the host, never a human instruction; a goal_status (2.1.332's
//	                         /goal: met, failed, sentinel, condition, reason) also carries meta
//	                         goalStatus (complete, failed, cleared for /goal clear's sentinel,
//	                         else active), goalObjective (the condition) and goalReason (goal.go);
//	                         an edited_text_file (a file the model read changed outside its
//	                         tools: the person, a formatter, a merge) names the file in meta
//	                         changedOutside and its text is "changed outside the agent: <file>"
//	                         and the snippet's lines without their numbers, at most 4,000
//	                         runes (outside.go); a plan_mode names the file the plan goes to
//	                         in meta planFile (its planFilePath)
//	any other type           system/event "unknown" with meta.lineType: never fatal; a warning
//	                         names the type and the host version of the line (its "version"),
//	                         once per type for the life of the import cursor (mapper state "told")
//	not JSON, no "type"      malformed: reported with its line number, skipped
//
// # Recognising a transcript
//
// A first import refuses a file none of whose first lines is a Claude
// Code record (importer.Check). A record is a JSON object with a
// non-empty string "type", whatever the type, and one of uuid, parentUuid,
// sessionId, leafUuid, messageId (every line type above carries one; a
// summary its leafUuid, a file-history-snapshot its messageId) or an
// Anthropic message {"role", "content"}. Qwen Code's records have that
// shape too: a line with provenance, systemPayload, toolCallResult or a
// message of "parts" and neither userType nor isSidechain is Qwen Code's,
// not Claude Code's.
//
// Every event keeps meta "uuid" (the line's uuid) and "line", and a human
// instruction the line's "cwd" (the tape names files relative to it) and its
// "gitBranch" (the branch the work is on, which the tape names; any other
// event carries it too when its line gives a branch other than the last
// one named: the agent switched branches mid-turn, mapper state "branch")
// and its
// "permissionMode" (the mode it was sent in; plan: no edits yet); the line's
// timestamp is the event's ts (kept in meta "timestamp" when it is not RFC 3339).
//
// # Who said it
//
// A user line is a human instruction (user/message, source.kind "user")
// only when it is none of these:
//
//	tool_result blocks       one tool/result each: tool.name of the matching tool_use, callId =
//	                         tool_use_id, ok = !is_error, output = the text blocks joined (of
//	                         Bash and PowerShell, without the last line "Shell cwd was reset to
//	                         <dir>", the host's note that it moved the shell back, which its
//	                         terminal view shows apart too: meta cwdReset = <dir>); text
//	                         beside them → user/message kind "system" name "tool-result-text"
//	isCompactSummary         kind "system", name "compact-summary"
//	origin.kind of another   kind "system", name the kind: auto-continuation, channel,
//	writer (2.1.332)         coordinator, peer, plugin, task-notification, observer-activity
//	                         (the host, a plugin, an MCP channel or another agent wrote it;
//	                         human, person, suggestion and composer are the person's own)
//	isMeta                   kind "skill" (skill text), or "system" for <local-command-caveat> and
//	                         <system-reminder>
//	isSidechain, or a        kind "system", name "subagent-prompt": the parent agent's words
//	sub-agent transcript
//	<task-notification>      kind "system", name "task-notification"
//	[Request interrupted by user…]   kind "system", name "interrupted"
//	<local-command-stdout>, <local-command-stderr>, <bash-stdout>, <bash-stderr>
//	                         kind "system", name "local-command-output": output of a command the
//	                         human ran locally, not words to the agent
//	<system-reminder>, <user-prompt-submit-hook>     kind "system"
//
// # Queued input
//
// What the person types while the agent works is a queue-operation
// enqueue with the text in "content". Delivered the ordinary way it is a
// dequeue, then a user line with that text, which is imported as usual. A
// remove gives it up with no user line (the host delivered it inside the
// running turn, or the person took it back): it exists nowhere else, so
// the remove imports it as a human instruction, source.name "queued", with
// the enqueue's timestamp (issue 23). The queue is first in, first out; a
// user line carrying a queued text takes it off the queue, so nothing is
// imported twice. An enqueue whose text starts with "<" (host-made:
// <task-notification>…) or "/" (a command), is a JSON object (a
// background task's {"task_id": …}), or is in a sub-agent's transcript,
// is not queued. What is queued (at most 64 texts) is kept in the
// cursor's state, so a remove read by a later run still imports it.
//
// Each queued text is also imported at its enqueue as a system/event
// "queued-input" with the text (claude -p queues its prompt too): until a
// user line delivers it, no model has read it, and a handoff made then
// carries it (the tape's Goal). A popAll, the person taking the queued
// messages back into the prompt to edit them, takes each text it names
// off the queue and is imported as a system/event "queue-popped" with the
// text: sent again only if typed again.
//
// A slash command (<command-name> with <command-args>) is the human's: its
// text becomes "/name args" (source.name "slash-command"). A <bash-input>
// line is the human's too, as "! command". So are the words the person
// types when they decline a tool call ("No", then what to do instead):
// Claude Code gives them to its model only inside the call's failed
// result, after "To tell you how to proceed, the user said:" (its binary
// holds the text), and goes on in the same turn; they follow that
// tool/result as a user/message of source.name "rejection-feedback". A
// decline without words is no instruction. Either way the declined call's
// tool/result (its text opens "The user doesn't want to proceed with this
// tool use.") carries meta declined = "user": the call did not run. A
// call the person stopped while it ran ("The user doesn't want to take this
// action right now. …") carries meta declined = "stopped": it may have run
// in part.
//
// # Tools
//
// tool/call keeps the tool_use input unchanged (Read, Write, Edit,
// MultiEdit and NotebookEdit carry file_path / notebook_path / path, which
// the tape reads). TodoWrite is also a todo/write (todos with content and
// status; id from the input or the 1-based index); a status other than
// pending, in_progress or completed is imported as pending with
// " [status: <status>]" at the end of the content, and a warning
// (importer.Todo: graft append refuses such a status). Claude Code 2.1.x
// tracks the work with TaskCreate and TaskUpdate instead (the truth set's
// transcripts of 2.1.39 to 2.1.45 do; the pinned 2.1.332 offers neither
// tool offline, but rebuilds the list from a transcript with the rules
// below, which its binary holds): each change of the list is a todo/write
// of the whole list (tasks.go), in creation order. A TaskCreate adds its
// subject, pending, under the id its result names ("Task #3 created
// successfully: …"); a failed one adds nothing. A TaskUpdate, when it is
// called, sets the status and the subject it names (a task it does not
// know is added, its id as its text), and status "deleted" takes the task
// out; an input Claude Code would refuse (no taskId, another status)
// changes nothing and is warned of. The list and the creates waiting for
// their result are in the mapper's state, so an import in several runs
// gives the same lists. A successful Task or
// Agent result is followed by a subagent/report: agent = subagent_type (or
// the description), text = the result without the "agentId: … <usage>"
// block Claude Code appends, meta agentId and, when that agent's transcript
// was found, meta subSession.
//
// # Background agents
//
// An Agent call run in the background (run_in_background) has for its
// result, at once, the host's launch notice ("Async agent launched
// successfully. (This tool result is internal metadata …"; toolUseResult
// {"isAsync": true, "status": "async_launched", "agentId": …}): the
// tool/result carries meta background = "launched" and no report follows
// it, whatever report words the notice holds. The agent's answer comes
// later in a user line the host writes, a <task-notification> (origin
// task-notification), which stays an injected message; when it holds a
// <result>, that result is the sub-agent's report, a subagent/report
// after the message: source.name and agent those of the call it answers,
// found by its <tool-use-id> or, that redacted, by its <task-id> (the
// agent id the launch named), and meta callId that call's id, meta
// agentId its task id (and subSession, as above). A notification with no
// <result> (a background shell command's) holds no report.
//
// A shell command run in the background (Bash, PowerShell with
// run_in_background) has the host's launch notice for its result
// ("Command running in background with ID: …"; toolUseResult
// backgroundTaskId): meta background = "launched" too. Its notification
// has a <status> and a <summary> ("Background command \"…\" failed with
// exit code 10") and no <result>: that injected message names the call in
// meta callId (by <tool-use-id>, or <task-id>, the task id the result
// named) and how it ended in meta taskStatus (session.MetaTaskStatus).
// Claude Code 2.1.2xx gives a notification that comes while a turn runs
// to its model as an attachment (queued_command, commandMode
// "task-notification", the text in prompt, a string or content blocks)
// after a queue-operation remove, and writes no user line for it: that
// attachment is imported as the notification's injected message. A
// remove of such a host's text gives up no message the person queued.
// The launched calls waiting for their notification (at most 64) are in
// the mapper's state (asyncagent.go).
//
// # Approved plans
//
// When the person approves a plan in plan mode and has Claude Code clear
// the context to implement it, the host starts the conversation anew with
// a user line it writes itself: "Implement the following plan:\n\n" and
// the plan, the hint where the earlier transcript is ("If you need
// specific details from before exiting plan mode …"), and, when the person
// typed any, "User feedback on this plan: " and their words; the plan
// again in planContent (the pinned 2.1.332 builds it so, with origin
// auto-continuation; 2.1.37 to 2.1.78 wrote the same with no origin, 11
// sessions of testdata/fidelity). The plan is the model's, approved, and
// no word of the line is the person's but the feedback: it is one
// user/message of kind system, plan-approved, its text the line's and
// meta plan (session.MetaPlan) the plan's byte range in it, then the
// feedback, if any, a human instruction of its own (source.name
// plan-feedback). A line whose planContent is not in its text is imported
// as it stands (planapproved.go).
//
// # A result before its call
//
// Claude Code 2.1.162 can write a tool's result on the line before the
// assistant line that holds its call (the result's parentUuid names that
// later line; seen three times in two real sessions, each time on the very
// next line). A result whose call is not open waits for the next line,
// the line it came in kept whole in the mapper's state (early.go, an
// importer.Holder): when that line holds its call, the call is imported,
// then the result with the tool's name and meta "line" of its own line;
// when the next line does not name the call's id, the result is imported
// before that line's events as one of no known call (tool "unknown", a
// warning naming its line), as before; when it names the id but holds no
// such call, after them. A run that ends while a result waits says so and
// the next run goes on from the state, so an import in several runs gives
// the same events.
//
// # Sub-agents
//
// <dir>/<uuid>/subagents/*.jsonl beside the transcript (regular files) are
// imported as sessions of their own, incrementally like the main one:
// agent-<name>.jsonl, the name Claude Code writes, into <id>.agent-<name>;
// any other <name>.jsonl into <id>.subagent-<name>, so that agent-x.jsonl
// and x.jsonl are two sessions. A name that does not make a valid session
// id (a character outside [A-Za-z0-9._-], or longer than the 128
// characters an id may have) has those characters replaced by '-', is cut
// to fit, and ends in '-' and the first 8 hex digits of the sha256 of the
// file name. When even that does not fit (a long --id), or two files would
// share an id, that sub-agent is left out with a warning in the summary;
// the transcript and the other sub-agents are still imported. A transcript
// named without an extension has no sub-agent directory (it would lie
// inside the transcript). Their events carry meta parentSession = <id>;
// the parent's report names them in meta subSession (agent-<id>.jsonl when
// both it and <id>.jsonl exist). None of their user lines is a human
// instruction.
package claudecode
