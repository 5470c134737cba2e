// Package qwen is graft's Qwen Code host (@qwen-code/qwen-code, tested
// with 0.24.4): where its sessions live and how one is found by id, the
// mapper that imports a session file into a native session (an
// importer.Mapper), the renderer that writes a tape as a new session file
// Qwen Code resumes, the resume command, its hook events and settings
// file, and how it reports tokens. It owns no file of graft's home; the
// session file of an export is the one file it writes the bytes of
// (Render), which the caller publishes.
//
// Every fact below was seen on the real Qwen Code 0.24.4, driven offline
// by realhost_test.go against internal/hosttest's fake chat-completions
// server.
//
// # Where sessions live
//
// A session is one file,
// <runtime dir>/projects/<project folder>/chats/<sessionId>.jsonl. The
// runtime dir is $QWEN_RUNTIME_DIR, else Qwen Code's global directory:
// $QWEN_HOME, else ~/.qwen (which also holds settings.json). The project
// folder is the project root (the directory qwen runs in, as the system
// names it: symlinks resolved) with every character outside [a-zA-Z0-9]
// replaced by '-' (ProjectDirName); no cut, no hash. The session id is a
// uuid. `qwen --resume <id>` (ResumeCommand) resumes a session of the
// project it runs in; `qwen --continue` the newest one there.
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
// # Import (Mapper, format "qwen")
//
//	user, provenance real_user (or none), no subtype
//	                         user/message kind "user": the human's words. The text is
//	                         systemPayload.displayText when given (what the person typed,
//	                         not what @-references expanded into), else the text parts
//	                         joined; meta cwd. A <qwen:user-prompt-submit-context> part →
//	                         user/message kind "system" name "hook". A text that starts
//	                         with <system-reminder> or <qwen: is the host's (kind system)
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
//	system chat_compression  system/event "chat_compression" (meta trigger, preTokens,
//	                         postTokens), then the host's summary: user/message kind
//	                         "system" name "compact-summary" holding the <state_snapshot>
//	                         … </state_snapshot> (the tape's Host Summary)
//	system slash_command     system/event "slash_command" (meta phase); at phase
//	                         "invocation" also the human's user/message "/cmd args"
//	                         (source.name "slash-command")
//	system ui_telemetry, attribution_snapshot, file_history_snapshot, branch_checkpoint,
//	  session_artifact_event, session_artifact_snapshot, session_sources_snapshot,
//	  user_text_elements, turn_result, omni_recall
//	                         skipped, counted ("system <subtype>")
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
// in the import cursor: openCalls (call id → name, and agent, of each
// functionCall without its response yet), version and told. The dead branch a
// rewind leaves stays imported, as Claude Code's does.
//
// # Export (Render)
//
// A tape is written as one closed turn: a user record holding the handoff
// text and every recap block, one text part each, then an assistant
// record (role "model") holding the acknowledgement, whose parentUuid is
// the user record's uuid. Both carry the session id, the project root as
// cwd, the Qwen Code version the export targets as version, entrypoint
// "graft" and graftVersion (Writer reads it back). The user record has no
// provenance (Qwen Code's "real_user" would say the person typed it).
// Record uuids are derived from the session id, so the same tape gives the
// same bytes. Qwen Code 0.24.4 resumes such a file by id in its project
// with every text in its request, the acknowledgement as the model's, and
// appends to it. What it needs of a hand-written file: every record has a
// uuid, each parentUuid links to the record before, sessionId is present,
// cwd is this project's, and roles are "user" and "model" with parts: an
// "assistant" role stops it before any request ("Role must be user or
// model", exit 1), and a message with a "content" string instead of parts
// loses that message's text (rules_test.go).
//
// # Hooks
//
// Qwen Code runs Claude Code-shaped command hooks from the "hooks" object
// of ~/.qwen/settings.json (SettingsPath of Home) and of
// <project>/.qwen/settings.json (HookSettings makes the object). A hook
// reads JSON on stdin with session_id, transcript_path (the session file),
// cwd, hook_event_name, timestamp and permission_mode, plus:
//
//	SessionStart      source startup | resume | compact (after a compression, in the
//	                  same process), model. additionalContext goes into the system
//	                  prompt inside <qwen:session-start-context>
//	UserPromptSubmit  prompt, submitted_prompt, prompt_id (also fired, with prompt "",
//	                  when tool results go back to the model). additionalContext is
//	                  appended to the prompt
//	Stop              last_assistant_message, stop_hook_active, input_tokens (the last
//	                  request's prompt tokens), context_limit, context_usage
//	                  (input_tokens / context_limit)
//	PreCompact        trigger manual | auto, custom_instructions. It cannot stop the
//	                  compression; its additionalContext is appended to the summary
//	                  request's last user message after "Additional Instructions:"
//	PostCompact       trigger, compact_summary
//
// SessionEnd does not fire in `qwen -p`. A hook answers with stdout
// {"hookSpecificOutput":{"hookEventName":…,"additionalContext":…}}
// (ContextAnswer); a UserPromptSubmit hook's {"decision":"block",
// "reason":…} (BlockAnswer) stops the prompt before any model request. So the constraints graft keeps reach the summary the
// host's model writes (PreCompact) and the first turn after it
// (SessionStart, in every later process: its context is in the system
// prompt of each request).
//
// # Tokens
//
// ContextUsage reads the last assistant record's
// usageMetadata.promptTokenCount and contextWindowSize; a Stop hook is
// given the same as input_tokens and context_limit (StopUsage).
package qwen
