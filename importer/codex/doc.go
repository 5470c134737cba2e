// Package codex imports Codex rollouts
// (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl) into native sessions
// through the importer package, which keeps the cursor; this package owns
// no file.
//
// A rollout line is a RolloutLine of openai/codex
// (codex-rs/protocol/src/protocol.rs): {"timestamp", "type", "payload"}, the
// payload a RolloutItem. The timestamp is the event's ts.
//
//	session_meta             system/event "session_meta" (id, cwd, cli version in meta); its id
//	                         is the cursor's lastUuid
//	turn_context             skipped, counted: the model, cwd and policies of a turn
//	world_state, token_usage_record   skipped, counted: 0.169's environment state and token counters
//	compacted                user/message kind "system" name "compacted" with the summary: never
//	                         human; replacement_history repeats earlier items and is not read
//	response_item            see below
//	event_msg                see "One record per message"
//	any other type           system/event "unknown" with meta.lineType
//	not JSON, no "type"      malformed: reported with its line number, skipped
//
// A line with a ResponseItem type and no payload (rollouts written before
// the RolloutLine envelope) is read as that response item.
//
// # Response items (models.rs ResponseItem)
//
//	message user             the human's words (user/message kind "user") unless they are an
//	                         injection: <environment_context>, <user_instructions>,
//	                         <user_shell_command>, <turn_aborted>, <permissions instructions>,
//	                         <collaboration_mode>, <subagent_notification>, <INSTRUCTIONS>,
//	                         "# AGENTS.md instructions for …" (kind "system"), <skill> (kind
//	                         "skill"). Text before "## My request for Codex:" is injected, the
//	                         rest the human's. Each content part is judged on its own.
//	message assistant        assistant/message
//	message developer/system user/message kind "system", name = the role
//	reasoning                dropped (counted), or with KeepThinking assistant/message
//	                         source.name "thinking" from the summary (else content) texts
//	function_call            tool/call: name, callId = call_id, input = the arguments JSON as it
//	                         is (shell keeps its {"command": […], "workdir": …})
//	custom_tool_call         tool/call: input {"input": "<text>"} unless it is a JSON object
//	local_shell_call         tool/call "shell" with the action as input
//	web_search_call          tool/call "web_search" with the action as input
//	*_output                 tool/result named after its call; ok from {"success"}, from a shell
//	                         output's metadata.exit_code or "Exit code: N" header, else absent
//	ghost_snapshot           skipped, counted (undo snapshots)
//	compaction               system/event "compaction" (its content is encrypted)
//
// apply_patch, whether a custom tool, a function call ({"input": patch}) or
// a shell command (["apply_patch", patch], or a script "apply_patch <<'EOF'
// …"), is a tool/call named apply_patch with input {"patch": "<patch>"}, so
// the tape reads its "*** Update File: path" lines; meta viaTool names a
// shell that carried it. update_plan is also a todo/write: one todo per plan
// step, id = 1-based index, status as given.
//
// # One record per message
//
// Codex records each message twice: the response_item the model sees and
// an event_msg (user_message, agent_message, agent_reasoning, plan_update)
// for its UI. The response_item is imported; those event_msg lines are
// skipped and counted as copies, so nothing is counted twice. token_count,
// task_started and task_complete are skipped and counted; every other
// event_msg (turn_aborted, context_compacted, error, …) is a system/event
// named after its type.
package codex
