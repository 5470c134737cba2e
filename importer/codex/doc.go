// Package codex imports Codex rollouts
// (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl) into native sessions
// through the importer package, which keeps the cursor; this package owns
// no file.
//
// A rollout line is a RolloutLine of openai/codex
// (codex-rs/protocol/src/protocol.rs): {"timestamp", "type", "payload"}, the
// payload a RolloutItem. The timestamp is the event's ts.
//
//	session_meta             system/event "session_meta" (id, cwd, cli version in meta; its git
//	                         commit_hash, branch and repository_url, the repository's state when
//	                         the session started, in meta gitCommit, gitBranch, gitRepository); its id
//	                         is the cursor's lastUuid
//	turn_context             the turn's settings, when they differ from those imported last (the
//	                         first turn's, then each change; mapper state "settings"): system/event
//	                         "turn_context" with meta approvalPolicy (approval_policy, or an
//	                         object's one key), sandbox (sandbox_policy's mode, or from 0.9x its
//	                         type), network ("on"/"off": its network_access) and
//	                         collaborationMode (collaboration_mode's mode, 0.9x on: "plan" is
//	                         Plan mode); a turn that changes none is skipped, counted; the model,
//	                         cwd and the rest are not read
//	world_state, token_usage_record   skipped, counted: 0.169's environment state and token counters
//	inter_agent_communication_metadata   skipped, counted: 0.144's note before a sub-agent's message
//	compacted                user/message kind "system" name "compacted" with the summary: never
//	                         human; replacement_history repeats earlier items and is not read
//	response_item            see below
//	event_msg                see "One record per message"
//	any other type           system/event "unknown" with meta.lineType; a warning names the type
//	                         and session_meta's cli_version, once per type for the life of the
//	                         import cursor (mapper state "told", "version"); likewise an unknown
//	                         response item type
//	not JSON, no "type"      malformed: reported with its line number, skipped (but for the
//	                         lines of a rollout without the envelope, below)
//
// # Rollouts without the envelope
//
// Rollouts written before the RolloutLine envelope (Codex of mid-2025; a
// real one of 2025-08-23 in testdata/fidelity) have three kinds of line:
// a bare ResponseItem, read as that response item; the session's meta
// itself as the first line, {"id", "timestamp", "instructions", "git"},
// read as a session_meta (no cwd or version: it named none), its
// instructions (what Codex gave its model before the conversation: the
// user's and the project's AGENTS.md) a user/message kind "system" name
// "user-instructions", as <user_instructions> is; and {"record_type":
// "state"}, where Codex saved the session's state, skipped and counted
// (direct.go).
//
// # Recognising a rollout
//
// A first import refuses a file none of whose first lines is a rollout
// line (importer.Check): a JSON object with "timestamp", a non-empty string
// "type" and a payload that is not null, whatever the type (a RolloutItem
// newer than graft is still one), or a bare response item as above.
//
// # Response items (models.rs ResponseItem)
//
//	message user             see "Who wrote a user message": the human's words (user/message
//	                         kind "user") unless they are an injection: <environment_context>,
//	                         <user_instructions>,
//	                         <user_shell_command>, <turn_aborted>, <permissions instructions>,
//	                         <collaboration_mode>, <subagent_notification>, <INSTRUCTIONS>,
//	                         <codex_internal_context …> ("internal-context": decided at once, no
//	                         twin follows it), "# AGENTS.md instructions for …" (kind
//	                         "system"), <skill> (kind "skill"). Text before "## My request for
//	                         Codex:" is injected, the rest the human's. Each content part is
//	                         judged on its own. The context Codex 0.171 writes when the person
//	                         sets the thread's goal with /goal, <codex_internal_context
//	                         source="user_goal"> with `User set the goal: "<objective>"` (a Rust
//	                         debug string), is the person's instruction "/goal <objective>"
//	                         (kind "user", name "slash-command", as Claude Code's slash commands);
//	                         one that only sets the goal's status ("User set goal status:
//	                         \"paused\".") or clears it ("User cleared the goal.", the real
//	                         0.171's /goal clear, with no thread_goal_updated) stays injected
//	                         and carries meta goalStatus (the status, or "cleared").
//	message assistant        assistant/message; in Plan mode (the turn settings last imported say
//	                         collaborationMode "plan") one holding a <proposed_plan> block, the plan
//	                         Codex asks the person to implement, carries meta proposedPlan
//	                         (session.MetaProposedPlan), the byte range of the block's inside
//	                         without the blank space around it; the text stays as written
//	message developer/system user/message kind "system", name = the role
//	reasoning                dropped (counted), or with KeepThinking assistant/message
//	                         source.name "thinking" from the summary (else content) texts
//	function_call            tool/call: name, callId = call_id, input = the arguments JSON as it
//	                         is (shell keeps its {"command": […], "workdir": …})
//	custom_tool_call         tool/call: input {"input": "<text>"} unless it is a JSON object;
//	                         a code-mode exec call is read as its script (see "Code mode")
//	local_shell_call         tool/call "shell" with the action as input
//	web_search_call          tool/call "web_search" with the action as input; once its status is
//	                         "completed" (or "failed") also its tool/result, ok when completed,
//	                         with no output and meta resultsInRollout "false": Codex writes no
//	                         output item for a search, its results reach only the model
//	*_output, no call_id     a named output no call asked for (0.171's goal_objective, metadata
//	                         additional_context_tool_output): user/message kind "system", name
//	                         "additional-context:<name>", the output as its text
//	*_output                 tool/result named after its call; ok from {"success"}, from a shell
//	                         output's metadata.exit_code, its "Exit code: N" header or a
//	                         unified-exec header (see "Unified exec"), false for the bare
//	                         strings Codex writes when a call failed before or instead of
//	                         running ("failed in sandbox …", "execution error: …", "apply_patch
//	                         verification failed: …", "… rejected …", "exec_command failed…",
//	                         "write_stdin failed…": codexFailures), else absent; a sandbox's
//	                         denial is the command's own output (see "Sandbox denials"); the
//	                         person's decline at the approval prompt ("exec command rejected by
//	                         user", "patch rejected by user") also carries meta declined = "user";
//	                         a call the person stopped, at its prompt (0.171's only "No") or while
//	                         it ran ("aborted by user", after a "Wall time: …" line or alone), is
//	                         not ok and carries meta declined = "stopped"; the output of a goal
//	                         tool (create_goal, get_goal, update_goal: {"goal": {"objective",
//	                         "status", …}}) carries meta goalStatus and goalObjective
//	ghost_snapshot           skipped, counted (undo snapshots)
//	agent_message            a sub-agent's message to its parent (see "Sub-agents")
//	tool_search_call         tool/call "tool_search" with its arguments ({"query", "limit"}) as input
//	tool_search_output       tool/result of tool_search: "tools found: ns.name, …" (each namespace's
//	                         tools, or the tool), ok when its status is "completed" (0.142)
//	compaction               system/event "compaction" (its content is encrypted)
//
// apply_patch, whether a custom tool, a function call ({"input": patch}) or
// a shell command (["apply_patch", patch], or a script "apply_patch <<'EOF'
// …"), is a tool/call named apply_patch with input {"patch": "<patch>"}, so
// the tape reads its "*** Update File: path" lines; meta viaTool names a
// shell that carried it. update_plan is also a todo/write: one todo per plan
// step, id = 1-based index, status as given when it is pending,
// in_progress or completed; any other status is imported as pending with
// " [status: <status>]" at the end of the step, and a warning
// (importer.Todo: graft append refuses such a status).
//
// # Code mode
//
// With code mode on (Codex 0.171's features.code_mode; the Codex desktop
// app 0.144 wrote it too, testdata/fidelity) the model calls one custom
// tool, exec, whose input is JavaScript that calls the other tools as
// tools.<name>(…) and prints with text(…); a first line "// @exec: {…}"
// sets its yield. Seen against the real binary
// (hosts/codexcodemode_realhost_test.go, a fake model sending the
// scripts), its custom_tool_call_output is a list of input_text items, the
// first "Script completed\nWall time 0.2 seconds\nOutput:\n" ("Script
// failed" when the script threw: a "Script error:\n…" item follows) and
// one item per text() call; a script still running when exec yields gets
// the string "Script running with cell ID 6\nWall time 0.3 seconds\n
// Output:\n", and the function wait {"cell_id": "6", …} later gets that
// cell's output with the same head. A command a script ran through
// exec_command has an event_msg item_completed with a CommandExecution
// item just before that output: its command ["/bin/bash", "-lc", cmd] and
// exit_code (no call_id ties it to the call).
//
// A script that is one call of a nested tool with literal arguments (an
// object literal, or for apply_patch a string or a constant declared as
// one; what else it does only prints) is imported as that call, with meta
// viaTool "exec": exec_command as a command, write_stdin as a poll,
// apply_patch as a patch. Any other script (several calls, a loop, a
// computed argument) is the exec call with the script as its input. Every
// code-mode output is read without its head, the printed items one per
// line; it is not ok when the script failed, ok from the exit code of the
// newest CommandExecution of the same command when the call ran one (the
// newest 64 kept), else absent (a script that completed says nothing of
// its command's exit). A script of one exec_command or write_stdin that
// prints the call's whole result, text(JSON.stringify(r)) (a real 0.144
// rollout in testdata/fidelity), prints unified exec's result object
// ({"chunk_id", "wall_time_seconds", "exit_code", "original_token_count",
// "output"}; a session_id instead of the exit_code while the command
// runs): its output is the call's output and its exit_code the exit; a
// session_id makes the result running (meta execRunning, as the "Process
// running with session ID" header does) and the session the command's,
// so a write_stdin to it is named by that command (a commit whose hook
// asks a question, answered with "Y\n"). Such an object Codex cut to its
// model's budget ("Warning: truncated output (original token count: N)",
// "Total output lines: 1", then the object's head and end around one
// "…N tokens truncated…") is read the same way: the cut falls in its
// output, the field it ends with, so the fields before it still say how
// the command ended, and the output is its head and end around the mark
// (cutResult). A wait on a cell a script still runs in is named by
// that script's command in meta execCommand, as a write_stdin is; when the
// script polls a session whose command is not known (write_stdin, its
// session's exec_command printed no header), by that session in meta
// execSession. The calls
// without output, the running cells and the exits seen are kept in the
// mapper's saved state across imports.
//
// # Memory citations
//
// With memories on, Codex's instructions ask the model to end an answer
// that used one with a single <oai-mem-citation> block (<citation_entries>,
// one "file:lines|note=[…]" per line, and <rollout_ids>) "for programmatic
// parsing", and Codex shows the answer without it (its stream parser takes
// the block out of the visible text). The assistant message is imported the
// same: without the block, its entries in meta memoryCitations (2,000
// characters at most). Only a block on lines of its own and outside a
// fenced code block is taken out; one without its end is text (memcite.go).
//
// # Sub-agents
//
// The Codex desktop app 0.144 (a real rollout in testdata/fidelity; the
// tools' namespace "collaboration") lets the agent start sub-agents with
// the function spawn_agent ({"task_name", "fork_turns", "message"}; its
// output {"task_name": "/root/<name>"}) and wait for them with wait_agent
// ({"timeout_ms"}; "Wait completed." or "Wait timed out."): ordinary
// calls. What a sub-agent sends its parent is a response_item of type
// agent_message, {"author": "/root/<name>", "recipient": "/root",
// "content": [input_text "Message Type: FINAL_ANSWER\nTask name: …\n
// Sender: …\nPayload:\n…", …]}, after an inter_agent_communication_metadata
// line. Its payload, when readable, is a subagent/report of that agent
// (Agent its path, meta messageType MESSAGE or FINAL_ANSWER, and a
// FINAL_ANSWER's meta finalAnswer "true": the host's word that it is the
// report): what the parent read of the sub-agent's work. A payload that is only
// encrypted_content is skipped, counted.
//
// # Unified exec
//
// Codex 0.171.0 offers the model exec_command ({"cmd": "…", optional
// "yield_time_ms", …}; run as /bin/bash -lc cmd) and write_stdin
// ({"session_id": N, "chars": "…", "yield_time_ms": …}, which feeds or
// polls a process exec_command left running), not shell. Seen against the
// real binary (internal/hosttest TestCodexExecCommandOutput, codex exec
// with a fake model asking for the calls), a function_call_output's output
// is a JSON string:
//
//	Chunk ID: 45a706
//	Wall time: 0.0000 seconds
//	Process exited with code 3
//	Original token count: 6
//	Output:
//	FIRST-LINE
//	SECOND-LINE
//
// for printf 'FIRST-LINE\nSECOND-LINE\n'; exit 3 ("Process exited with
// code 0" for a run that succeeded; the wall time has four decimals, the
// chunk id is hex). A command still running when exec_command yields has
// "Process running with session ID 86659" on the third line and the output
// so far; the write_stdin that later sees it end has the same header with
// "Process exited with code 5". The rollout also has an event_msg
// item_completed with a CommandExecution item (exit_code, status, call_id
// of the exec_command) per command; it is imported like any other
// event_msg. A Codex 0.120.0 rollout (testdata/fidelity, 2026-04) has the
// same header on all its 65 exec_command and 9 write_stdin outputs but one,
// a bare "exec_command failed for `…`: SandboxDenied {…}" that stays
// without ok.
//
// The header is recognised (ParseExec; the tape, which names no host's
// package, recognises its text the same way to show a command's own
// output: tape/actions.go outputBody) when the text opens with "Chunk ID: " or "Wall time: " and an
// "Output:" or process line follows within 8 lines: among the lines
// before "Output:", "Process exited with code N" makes ok N == 0, and
// "Process running with session ID N" leaves ok absent (still running)
// and sets meta execRunning to N. A command's own output (after "Output:") is
// never read for it. The text is kept whole, header included, as the
// older "Exit code: N" header's is. A Codex 0.114.0 rollout
// (testdata/fidelity, 2026-03) has the same header on all but three of its
// 224 exec_command and 81 write_stdin outputs (those three are Codex's own
// "exec_command failed: …" and "write_stdin failed: …"); a Codex 0.115.0 rollout has it after a
// first line "Command: <shell> -lc <command>", which the header may open
// with.
//
// A write_stdin call names the command of the session it writes to in
// meta execCommand: the importer keeps the command of each exec_command
// whose output said "Process running with session ID N" (the newest 64,
// each its first 500 characters, in its saved state across imports), so the tape reads a poll as that
// command's outcome. A write_stdin to a session it does not know has no
// execCommand.
//
// # Sandbox denials
//
// A command that ends nonzero inside Codex's sandbox comes back as Codex's
// own error around its output, in two forms: codex-rs's SandboxErr
// Display, "failed in sandbox MacosSeatbelt with execution error: sandbox
// denied exec error, exit code: 1, stdout: <stdout>, stderr: <stderr>"
// (the texts raw, so stdout and stderr split at the last ", stderr: "),
// and its Debug, "… Denied { output: ExecToolCallOutput { exit_code: 1,
// stdout: StreamOutput { text: "…", truncated_after_lines: None }, stderr:
// …, aggregated_output: …, duration: 0ns, timed_out: false } }", the texts
// escaped as Rust's Debug escapes a string, after "failed in sandbox <kind>
// with execution error: " or, escaped twice, inside exec_command's
// "exec_command failed for `…`: CreateProcess { message:
// "Codex(Sandbox(Denied { … }))" }". The wrapper took 100 to 190
// characters of the first line, the one a reader keeps of a failure, and
// the Debug form left no line of the output readable. The tool result's
// output is the command's: "failed in sandbox <kind>, exit code N: " (or
// "exec_command failed in the sandbox, exit code N: "; ", timed out" when
// it did), then stdout and stderr (Debug: aggregated_output when both are
// empty), ok false (sandboxDenial). A text that does not read whole as one
// of them (another error, a field it cannot read, an escape Rust does not
// write) is kept as Codex wrote it, still failed.
//
// # Who wrote a user message
//
// Structure first, prefixes second. Codex records what the person typed
// twice: the response_item the model sees and a twin for its UI, an
// event_msg user_message (exec resume, interactive sessions) or an
// event_msg item_completed whose item is a UserMessage (0.169 exec). What
// Codex injects on the user's side (AGENTS.md, the environment context,
// hook text) has no twin. So once a rollout has shown a twin, a
// response_item user message is the human's only when its twin follows;
// without one it is injected, whatever its text: a part a prefix names
// keeps that name, any other part is source.name "injected". A rollout
// that has shown no twin yet is judged by the prefixes above alone, as
// are the messages of a rollout that carries none.
//
// The twin comes after its response_item, so a response_item user message
// is held until the next line that decides: the twin (the human's), or any
// other line but bookkeeping (turn_context, world_state,
// token_usage_record, event_msg token_count, task_complete, and malformed
// lines, which decide nothing). User messages in a row are held together:
// a twin is the last one's, and the ones before it, without a twin, are
// injected. An event_msg task_started decides too: what is held stood
// outside a turn (Codex Desktop 0.104 writes its AGENTS.md and its
// environment as user items before the first task_started) and is
// injected, whatever its text (issue 24, item 13). It is then emitted, in
// order, with meta "line" of its own line. A twin met with nothing held
// makes the next user message the human's if it comes before any other
// deciding line. What is held, and whether a twin was seen, is kept in the
// cursor's state, so an import that stops between a message and its twin
// resumes to the same events; that run's summary warns that the message
// waits for the next line. A cursor written before this rule starts as if
// no twin had been seen.
//
// # One record per message
//
// Codex records each message twice: the response_item the model sees and
// an event_msg (user_message, agent_message, agent_reasoning, plan_update)
// for its UI. The response_item is imported; those event_msg lines are
// skipped and counted as copies, so nothing is counted twice.
//
// An assistant message is the exception where the UI's copy may be the
// only one. Codex writes the event_msg agent_message first and the
// response_item a few lines later (token_count and a reasoning item
// between); a turn the person interrupts in between never gets the
// record, though the person read the message and often answers it. So
// an agent_message is held until its record comes (the next assistant
// response_item, which drops the first one held) or a line shows that
// none will: any line but session_meta, turn_context, world_state,
// token_usage_record, inter_agent_communication_metadata, event_msg
// token_count and agent_reasoning*, a reasoning item and a malformed
// line. The message is then emitted there, from its own line, as an
// assistant message with meta record "event_msg agent_message" (a
// proposed plan marked as Plan mode was when it was held, though a
// turn_context after it changed the mode). A
// rollout that writes the record first (an assistant response_item with
// no agent_message held) makes the next agent_message its copy, until a
// line decides. What is held is kept in the cursor's state; a run that
// ends with a message held says so in its summary. token_count,
// task_started and task_complete are skipped and counted; every other
// event_msg (turn_aborted, context_compacted, error, …) is a system/event
// named after its type. thread_goal_updated (0.171: the person set, paused
// or resumed the thread's goal) also carries meta goalStatus and
// goalObjective, its text "thread goal <status>: <objective>"; when the
// model marks the goal met with update_goal, Codex writes no such event,
// and the tool's output says it (see the *_output row above).
package codex
