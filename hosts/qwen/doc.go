// Package qwen is Qwen Code's adapter (adapter.Adapter;
// @qwen-code/qwen-code, tested with 0.24.4): the one package that knows
// where Qwen Code keeps its sessions, how it resumes one graft writes, and
// how it runs graft's hooks. Its session files are mapped to events by
// package importer/qwen, which says what their records hold.
//
// Every fact below was seen on the real Qwen Code 0.24.4, driven offline
// by realhost_test.go (and hosts' qwen_realhost_test.go, through graft's
// binary) against internal/hosttest's fake chat-completions server.
//
// # Sessions
//
// A session is one file,
// <runtime dir>/projects/<project folder>/chats/<sessionId>.jsonl (Root,
// ExportPath). The runtime dir is $QWEN_RUNTIME_DIR, else Qwen Code's
// global folder: $QWEN_HOME, else ~/.qwen (Home), which also holds
// settings.json. The project folder is the project root (the directory
// qwen runs in, symlinks resolved) with every character outside
// [a-zA-Z0-9] replaced by '-' (ProjectDirName); no cut, no hash. The
// session id is a uuid. `qwen --resume <id>` (ResumeCommand) resumes a
// session of the project it runs in; FindTranscript looks there first,
// else for the one file of that name in any project folder. Qwen Code
// appends to the file, a resume and a compression included (Appends).
//
// # An export
//
// A tape is written as one closed turn: a user record holding the handoff
// text and every recap block, one text part each, then an assistant
// record (role "model") holding the acknowledgement, whose parentUuid is
// the user record's uuid. Both carry the session id, the project root as
// cwd, the Qwen Code version the person has as version (adapter.Made.Host,
// which hosts.Export reads from the newest of Qwen Code's own records: the
// source session's file first; TestedVersion when none names one;
// LineVersion), entrypoint "graft" and graft's version as graftVersion
// (Writer reads both back, so a re-export renders the same bytes; every
// export from before graft looked names TestedVersion). The host
// session id is a version-4 uuid derived from "qwen", the target and its
// txn (hosts/doc.go). The user record has no
// provenance (Qwen Code's "real_user" would say the person typed it).
// Record uuids are derived from the session id, so the same tape gives the
// same bytes. Qwen Code 0.24.4 resumes such a file by id in its project
// with every text in its request, the acknowledgement as the model's, and
// appends to it. What it needs of a hand-written file: every record has a
// uuid, each parentUuid links to the record before, sessionId is present,
// cwd is this project's, and roles are "user" and "model" with parts: an
// "assistant" role stops it before any request ("Role must be user or
// model", exit 1), and a message with a "content" string instead of parts
// loses that message's text (realhost_test.go).
//
// When the target's inherit carries the source's active goal
// (adapter.Turn.Goal), the export ends with one more record after the
// acknowledgement, the goal_state Qwen Code writes when a goal is
// created: type "system", subtype "goal_state", provenance
// "goal_control", systemPayload {v: 2, cause: "create", snapshot: {v: 2,
// activity: "idle", goal: {goalId (derived), revision: 1, objective,
// status: "active", evidenceCursor: {recordId: the acknowledgement's
// uuid}, turnCount: 0, activeTimeMs: 0, tokensUsed: 0, createdAt,
// updatedAt (the record's time, in ms)}}}: no budget, and no key the
// host's parser refuses (parseGoalStateRecordPayloadV2, parseGoalRecord).
// The evidence cursor must name a record of this file, or the goal can
// never be verified complete. Qwen Code 0.24.4 restores the goal on
// --resume from the newest goal_state that parses and goes on working at
// it at once ("Continue working on the active Goal"), before the person
// types (TestQwenHandoffCarriesTheActiveGoal).
//
// # Hooks
//
// Qwen Code runs Claude Code-shaped command hooks from the "hooks" object
// of ~/.qwen/settings.json ($QWEN_HOME/settings.json: the one graft
// installs into, ScopeUser) and of <project>/.qwen/settings.json; the
// entries are Claude Code's {"hooks": [{"type": "command", "command",
// "timeout"}]}, the timeout in seconds. A hook
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
//	                  compression; its additionalContext, '<' and '>' escaped as
//	                  "&lt;" and "&gt;", trimmed and cut to its first 4,000
//	                  characters (MAX_HOOK_INSTRUCTIONS_CHARS in its source; a
//	                  JavaScript length, UTF-16 code units), is added to the summary
//	                  request after "Additional Instructions:"
//	PostCompact       trigger, compact_summary
//
// SessionEnd does not fire in `qwen -p`. A hook answers with stdout
// {"hookSpecificOutput":{"hookEventName":…,"additionalContext":…}};
// a UserPromptSubmit hook's {"decision":"block", "reason":…} stops the
// prompt before any model request. No answer stops a compression (Block
// nil): graft's PreCompact hook answers with the session's constraints,
// with their origins (CompactContext), which reach the summary the host's
// model writes, and its SessionStart hook of source compact with the same
// block, which reaches the turns after it (its context is in the system
// prompt). A block past the 4,000 characters Qwen Code keeps of
// PreCompact's context, counted as it counts them (CompactContextMax,
// CompactContextLen), would lose its newest constraints mid-line, and its
// cut line: graft gives it within them, its newest constraints cut and
// named by a cut line. SessionStart's context is not cut that way (only a
// command hook's stdout past 1 MiB is; ContextMax 0): it gets the whole
// block. In chunks/chunk-DPEB6S2R.js, fireSessionStartHook returns
// output?.getAdditionalContext()?.trim() (chunk-QA5TENCT.js:
// getAdditionalContext escapes '<' and '>', nothing more) and
// setSessionStartContext puts it whole into the system instruction
// (buildSessionStartContextBlock); internal/hosttest's
// TestExploreQwenHookContextLimit sees 60,000 characters of it reach the
// request whole. After /compress Qwen Code waits for that hook before the next
// prompt; a compression past its threshold (context.autoCompactThreshold)
// happens inside a turn, and Qwen Code fires SessionStart without waiting:
// the request of that turn goes out without the block, the requests after
// it carry it.
//
// # Context size
//
// The last assistant record's usageMetadata.promptTokenCount (LineTokens);
// a Stop hook is given the same as input_tokens, which graft's hook reads
// for autoGraft.
package qwen
