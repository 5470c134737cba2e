// Package claudecode is Claude Code's adapter (adapter.Adapter): the one
// package that knows where Claude Code keeps its sessions, how it resumes
// one graft writes, and how it runs graft's hooks. Its transcripts are
// mapped to events by package importer/claudecode.
//
// # Sessions
//
// <config>/projects/<enc>/<uuid>.jsonl, <config> being $CLAUDE_CONFIG_DIR
// or ~/.claude and <enc> the real path of the working directory with every
// UTF-16 unit outside [A-Za-z0-9] replaced by '-' (past 200 characters:
// the first 200, '-', and the base-36 absolute value of the path's 32-bit
// Java string hash; ProjectDirName). A session is found by id in the
// folder of the working directory first, else as the one file of that
// name in any project folder; `claude --continue` takes the newest file of
// the working directory's folder (Newest). Claude Code appends to its
// transcript, its compactions included (Appends).
//
// # An export
//
// The host session id is a version-4 uuid derived from "claude-code", the
// target and its txn (hosts/doc.go). Lines are compact JSON records
// {parentUuid, isSidechain, userType, cwd, sessionId, version, entrypoint,
// graftVersion, type, message, uuid, timestamp}, chained by parentUuid: a
// user record whose message content holds one text block per tape text,
// then the assistant's acknowledgement. version is the Claude Code version
// the person has (adapter.Made.Host, which hosts.Export reads from the
// newest of Claude Code's own records: the source session's transcript
// first; TestedVersion, 2.1.332, when none names one; LineVersion).
// graft writes itself as the writer: entrypoint "graft", and its version
// (version.Info.Short) in graftVersion, a field Claude Code keeps and
// reads nothing of. Writer reads both back, so a re-export renders the
// same bytes; an export from before graft named the host's version has
// graft's in version and no graftVersion, one from before graft named
// itself version 2.1.328 and no entrypoint. Resume: claude --resume
// <uuid>.
//
// # Context size
//
// The last assistant record's message.usage: input_tokens +
// cache_creation_input_tokens + cache_read_input_tokens.
//
// # Hooks
//
// SessionStart, UserPromptSubmit, Stop and PreCompact, in the project's
// <dir>/.claude/settings.json (the default), its settings.local.json, or
// the user's <config>/settings.json; Claude Code runs the hooks of all
// three. A PreCompact hook stops the compaction with {"decision": "block",
// "reason": …}, which Claude Code prints ("Compaction blocked by
// PreCompact hook: …"). An install into a file that sets
// "disableAllHooks": true says Claude Code runs none of them.
package claudecode
