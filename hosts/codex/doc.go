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
// graft_version, instructions, source}, the user message as a
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
// version cli_version 0.169.0. Resume: codex resume <uuid> (or codex exec
// resume <uuid> "…").
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
package codex
