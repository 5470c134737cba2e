// Package qwen imports Qwen Code session files
// (~/.qwen/projects/<dir>/chats/<id>.jsonl) into native sessions through
// the importer package, which keeps the cursor; this package owns no file.
// Package hosts/qwen is the host's adapter (where the files live, the
// export, the hooks). Every fact below was seen on the real Qwen Code
// 0.24.4 (hosts/qwen's real-program tests; testdata/session.jsonl is a
// session it wrote).
//
// # Records
//
// The file is append-only JSONL; a resume appends to the same file. Every
// record has uuid, parentUuid (null on the first, then the record before
// it: a chain), sessionId, timestamp (ISO 8601, milliseconds, Z), type,
// provenance, cwd (the project root) and version (Qwen Code's). By type:
//
//	user         provenance "real_user" (what the person typed), "system",
//	             "goal_runtime"; subtype absent, or mid_turn_user_message,
//	             notification, cron, goal_runtime, realtime_message;
//	             message {role "user", parts [{text} | {inlineData} | {fileData}]};
//	             systemPayload {displayText: what the person typed, hookContext:
//	             a UserPromptSubmit hook's additionalContext, appended to the parts
//	             as a <qwen:user-prompt-submit-context> text part}
//	assistant    message {role "model", parts [{text} | {text, thought: true} |
//	             {functionCall {id, name, args}}]}, model, usageMetadata
//	             {promptTokenCount, candidatesTokenCount, totalTokenCount, …},
//	             contextWindowSize
//	tool_result  message {role "user", parts [{functionResponse {id, name,
//	             response {output} | {error}}}]}, toolCallResult {callId, status
//	             "success" | "error", …}
//	system       subtype and systemPayload: chat_compression {info
//	             {originalTokenCount, newTokenCount, triggerReason "manual" |
//	             "auto", …}, compressedHistory: the model's new history, its first
//	             user text the <state_snapshot> the model wrote, then "Got it.
//	             Thanks for the additional context!" and restored files};
//	             ui_telemetry (an api_response or tool_call event, per request);
//	             attribution_snapshot; slash_command {phase "invocation" | "result",
//	             rawCommand}; rewind (re-roots the chain: what follows the target
//	             turn is a dead branch); custom_title, session_model, …
//
// `qwen -p /compress` writes no user record: the compression appears as
// its chat_compression record only.
//
// # Recognising a session file
//
// A first import refuses a file none of whose first lines is a Qwen Code
// record (importer.Check): a JSON object with a non-empty string "type",
// whatever the type, one of uuid, parentUuid, sessionId, and one of the
// fields by which its records differ from Claude Code's, alike in the
// rest: provenance, systemPayload, toolCallResult or a message of
// "parts"; not a line with Claude Code's userType or isSidechain.
//
// # Import (Mapper, format "qwen"): who said it
//
//	user, provenance real_user (or none), no subtype
//	                         user/message kind "user": the human's words. The text is
//	                         systemPayload.displayText when given (what the person typed,
//	                         not what @-references expanded into), else the text parts
//	                         joined; meta cwd. A <qwen:user-prompt-submit-context> part →
//	                         user/message kind "system" name "hook". A text that starts
//	                         with <system-reminder> or <qwen: is the host's (kind system).
//	                         The text of a command the person typed (its file's words,
//	                         the arguments filled in): user/message kind "skill" name
//	                         "command", as Claude Code's and Codex's, never a human
//	                         instruction. It is the user record, with no displayText,
//	                         whose parentUuid is the uuid of a slash_command result
//	                         whose invocation said sentToModel true (the real Qwen Code
//	                         0.24.4 interactively: invocation, result, then the text;
//	                         `qwen -p` writes no slash_command, and the text reads as the
//	                         person's); with no sentToModel (Qwen Code 0.5.0), a result
//	                         that printed nothing (empty outputHistoryItems) and the
//	                         record written within 2 s of it (mapper state "command")
//	  subtype mid_turn_user_message, realtime_message
//	                         the human's too (source.name "mid-turn", "realtime"): typed
//	                         while the agent worked, or spoken
//	  another provenance, or subtype notification, cron, goal_runtime
//	                         user/message kind "system", name the provenance or subtype:
//	                         never a human instruction
//	  entrypoint "graft"     user/message kind "plugin" name "graft": an export's tape
//	assistant                text → assistant/message (meta model); thought → dropped
//	                         (counted) or, with KeepThinking, assistant/message
//	                         source.name "thinking"; functionCall → tool/call (name, callId
//	                         = id, input = args); todo_write is also a todo/write
//	                         (importer.Todo's status rule)
//	tool_result              tool/result per functionResponse: the call's name, output =
//	                         response.output, else response.error; ok = toolCallResult.status
//	                         is "success" (else no error in the response). A successful
//	                         agent call is followed by a subagent/report (agent =
//	                         subagent_type, else description)
//	                         a cancelled one (toolCallResult.status) carries meta declined:
//	                         "user" when the person turned it down at the prompt ("Reason: User
//	                         did not allow tool call"), else "stopped"; a successful
//	                         exit_plan_mode is ok only when it says the plan was approved ("User
//	                         approved.", "Leader approved."): "Plan execution was not approved."
//	                         is declined "user", "Plan exit was cancelled." "stopped"
//	system chat_compression  system/event "chat_compression" (meta trigger, preTokens,
//	                         postTokens), then the host's summary: user/message kind
//	                         "system" name "compact-summary" holding the <state_snapshot>
//	                         … </state_snapshot> (the tape's Host Summary)
//	system goal_state        system/event "goal_state" (Qwen Code's /goal, one per change and
//	                         per goal turn): meta goalStatus and goalObjective of
//	                         systemPayload.snapshot.goal (goalReason its lastReason), "cleared"
//	                         when it is null; text
//	                         "goal <status>: <objective>"
//	system slash_command     system/event "slash_command" (meta phase); at phase
//	                         "invocation" also the human's user/message "/cmd args"
//	                         (source.name "slash-command")
//	system ui_telemetry, attribution_snapshot, file_history_snapshot, branch_checkpoint,
//	  session_artifact_event, session_artifact_snapshot, session_sources_snapshot,
//	  user_text_elements, turn_result, omni_recall
//	                         skipped, counted ("system <subtype>"); but a ui_telemetry
//	                         tool_call event of status "error", error `Tool "<name>" was
//	                         canceled by the user.` (Qwen Code 0.13.0, which wrote no
//	                         tool_result for a call the person cancelled) is that call's
//	                         tool/result, failed, meta declined "stopped" (it may have run
//	                         in part), the call the open one of that name whose args are
//	                         the event's function_args (its call_id when it has one); a
//	                         result that comes after all is skipped, counted (mapper
//	                         state "cancelled")
//	system, other subtypes   system/event named after the subtype
//	any other record type, system or user subtype, or message part
//	                         kept as a system/event ("unknown", meta lineType) or by the
//	                         rule above; a warning names the shape and the Qwen Code version
//	                         of the file, once per shape for the life of the import cursor
//	                         (mapper state "told", "version")
//	not JSON, no "type"      malformed: reported with its line number, skipped
//
// Every event keeps meta "uuid" (the record's), "subtype" when it has one
// and "line"; the record's timestamp is the event's ts. The mapper's state
// in the import cursor: openCalls (call id → name, and agent, and args,
// a digest of its args, of each functionCall without its response yet),
// version, told, cancelled (the ids of the last 16 calls a ui_telemetry
// event closed), and command
// (the slash_command result a command's text follows: result, its uuid;
// ts, its timestamp; said, the invocation said sentToModel). The dead branch a
// rewind leaves stays imported, as Claude Code's does.
package qwen
