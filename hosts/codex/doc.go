// Package codex is Codex's adapter (adapter.Adapter): the one package that
// knows where Codex keeps its rollouts, how it resumes one graft writes,
// and how it runs graft's hooks. Its rollouts are mapped to events by
// package importer/codex.
//
// # Sessions
//
// <codex home>/sessions/YYYY/MM/DD/rollout-<YYYY-MM-DDThh-mm-ss>-<uuid>.jsonl,
// the home being $CODEX_HOME or ~/.codex. A session is found by id as the
// one rollout-*-<uuid>.jsonl anywhere under sessions/. Codex appends to its
// rollout, its compactions included (Appends).
//
// # An export
//
// The host session id is a version-7 uuid (the commit time in its first 48
// bits) derived from "codex", the target and its txn (hosts/doc.go); the
// file's date is the commit's, UTC. Lines are {timestamp, type, payload}:
// a session_meta {id, timestamp, cwd, originator, cli_version,
// graft_version, model_provider, instructions, source}, the user message as a
// response_item {type, role, content} with one input_text block per tape
// text, its event_msg user_message twin {type, message, images}, and the
// assistant's message (output_text). cli_version is the Codex version the
// person has (adapter.Made.Host, which hosts.Export reads from the
// session_meta of the newest of Codex's own rollouts: the source session's
// first; TestedVersion, 0.171.0, when none names one; LineVersion). graft
// writes itself as the writer: originator "graft", and its version
// (version.Info.Short) in graft_version, a field Codex keeps and reads
// nothing of. Writer reads both back, so a re-export renders the same
// bytes; an export from before graft named the host's version has graft's
// as cli_version and no graft_version, one from before graft named its
// version cli_version 0.169.0. model_provider is the provider the person's
// Codex selects (adapter.Made.Provider, ModelProvider: config.toml's
// model_provider, its chosen profile's first, else openai): Codex 0.171
// resumes a session on its own provider only, and its terminal refuses
// one that names none ("Model provider unavailable … provider “”"; codex
// exec resume took it) or one it has no configuration for; an export from
// before graft named it has none, and a re-export keeps it so. Resume:
// codex resume <uuid> (or codex exec resume <uuid> "…").
//
// # Context size
//
// The last event_msg token_count: info.last_token_usage.input_tokens, else
// info.total_token_usage.input_tokens.
//
// # Hooks
//
// SessionStart, UserPromptSubmit, Stop and PreCompact in
// <codex home>/hooks.json, its only hooks file; Codex runs only hooks the
// user trusted (TrustNote; it keys trust by position, so an install that
// moves other hooks says so). The notify program's argument
// ({"type": "agent-turn-complete", "thread-id", "cwd"}) is taken as a Stop.
// No hook answer vetoes a compaction (a block is reported as a failed
// hook and the compaction runs): {"continue": false, "stopReason",
// "systemMessage"} stops the turn before its model request, which keeps
// the old session uncompacted. codex exec shows no hook text at all, so
// notices go to the model too (NoticesToModel).
//
// SessionStart (source startup, resume, clear, compact or fork: after a
// compaction Codex runs it with "compact") and UserPromptSubmit take
// {"hookSpecificOutput": {"hookEventName", "additionalContext"}}. Codex
// gives the model a hook's additionalContext as it is up to 10,000 bytes
// of UTF-8 (ContextMax, ContextLen; its estimate of 4 bytes a token makes
// that 2,500 tokens); a longer one becomes about 10,100 bytes:
//
//	Warning: truncated output (original token count: 2501)
//	Total output lines: …
//
//	<its head> … <its end>
//
//	Full hook output saved to: <TMPDIR>/hook_outputs/<thread>/<uuid>.txt
//
// the middle dropped, and the constraints block with it, cut line and all.
// Each hook's answer is measured alone. So graft gives the constraints
// block of a SessionStart of source compact within the 10,000 bytes less
// what comes before it (hookrun; the notices it puts first for the model
// included). A hook's "additionalContextLimit" in hooks.json changes that
// limit ("ignoring additionalContextLimit for … hook in …: this event
// cannot emit additionalContext"); graft sets none.
//
// Codex 0.171.0 is a compiled binary
// (node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex):
// its JSON schemas (session-start.command.input's "source" enum,
// session-start.command.output's additionalContext) and those messages
// read as strings in it ("Warning: truncated output (original token
// count: ", "Full hook output saved to: ", "hook_outputs",
// "additionalContextLimit"), not the code that applies them. The limit,
// its unit and the per-hook measure were found on the binary:
// internal/hosttest's TestExploreCodexHookContextLimit (10,000 bytes, 9,998
// UTF-16 units with a 😀, whole; 10,001 bytes cut; two SessionStart hooks
// of 10,000 and 6,000 bytes both whole) and hosts'
// TestCodexCompactionFitsTheConstraintsInline.
package codex
