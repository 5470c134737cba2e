// Package gemini is Gemini CLI's adapter (adapter.Adapter;
// @google/gemini-cli, tested with 0.61.0): where its sessions live and
// which file a session id names, a graft tape rendered as a new session
// file it resumes by id, the markers that make a directory it never ran in
// its own, its resume command, its hooks and its token counts. Its session
// files are mapped to events by package importer/gemini. It writes no file
// itself: hosts.Export writes the bytes Render returns, and the markers
// Claims names, through the store's vfs.FS. Every fact below was observed
// with the real program (realhost_test.go drives it offline against
// internal/hosttest's fake Gemini API); where 0.61.0's source explains it,
// the source's names are given.
//
// # Where sessions live
//
//	<root>                      $GEMINI_CLI_HOME/.gemini, else ~/.gemini (Root; the variable
//	                            from 0.61.0's source, the tests move HOME)
//	<root>/projects.json        {"projects": {"<real path of a project>": "<slug>"}}
//	<root>/tmp/<slug>/.project_root, <root>/history/<slug>/.project_root
//	                            ownership markers: the project's path, no newline
//	<root>/tmp/<slug>/chats/session-<YYYY-MM-DDTHH-MM>-<first 8 of id>.jsonl
//	                            one session; the time is its start, UTC, to the minute
//	<root>/settings.json        the user's settings (hooks); <project>/.gemini/settings.json
//	                            the project's, read only in a trusted folder
//
// A working directory's slug (ProjectOf, the host's ProjectRegistry) is
// the one projects.json maps its real path to, unless a marker of that
// slug names another path; else a folder under tmp/ or history/ whose
// marker names the path; else a new slug: the base name lower-cased, every
// run of characters outside [a-z0-9] one '-' ("project" if nothing is
// left), then "-1", "-2", … past the slugs projects.json holds and the
// folders whose marker names another path. Gemini CLI writes the markers
// and projects.json the first time it runs in a directory; an export into
// a directory it has never run in writes the two markers first (Claims:
// adapter.Claimer), which the host then adopts
// (TestRealExportIntoANewDirectory resumes such an export and finds the
// host took the claimed folder). They are the only files an export writes
// besides the session file, and one that exists is never replaced.
//
// A file name holds only the first 8 characters of the session id; the
// header holds it whole. `gemini --resume <id>` lists the project's
// session-*.jsonl files, keeps those with something to resume (Resumable)
// and takes the one whose header names id (of several, the one updated
// last), whatever the rest of the name: FindTranscript does the same.
//
// # Records and import
//
// A session file is JSONL the host only appends to (Growth: Appends); a
// "$set" that replaces the message list and a "$rewindTo" are records like
// the others, which the mapper turns into system events
// (importer/gemini/doc.go has every record and what it becomes). The first
// line is the header {"sessionId", "projectHash", "startTime",
// "lastUpdated", "kind"}: SessionID reads the id there, since the file name
// holds only its first 8 characters.
//
// # Export
//
// Render writes three lines: a header {"sessionId", "projectHash",
// "startTime", "lastUpdated", "kind": "main", "graft": "<graft version>"}
// (Gemini CLI keeps a header field it does not know and reads nothing of
// it: Writer reads it back; Gemini CLI's records name no version of their
// own, so an export names none of the host's: the adapter is not
// adapter.Versioned), a user message {"id", "timestamp", "type":
// "user", "content": [{"text"}, …]} holding the handoff text and each
// recap block as one text part, and a gemini message {"id", "timestamp",
// "type": "gemini", "content": "<acknowledgement>", "model": "graft"}. The
// ids are the session id and "-graft-0", "-graft-1"; the timestamps the
// tape's, a millisecond apart. The session id is derived, a version-4 uuid
// (ExportID: adapter.DerivedUUID over "gemini", the target and its txn).
// On resume the host puts its session context first and sends
// it and the tape's texts as one user turn, then the acknowledgement: every
// tape text reaches the model (the real-program test checks the request).
//
// # Retention
//
// Gemini CLI 0.61.0 sweeps old sessions at every start
// (general.sessionRetention, on by default, maxAge 30 days). A resume in
// another minute than the file name's first starts a new recording, which
// leaves a stub session-<now>-<first 8 of id>.jsonl holding only the
// session context. The next start of another session finds the stub has
// nothing to resume and deletes every file of the project ending in
// -<those 8 characters>.jsonl, the resumed session included. The
// real-program test shows it deleting a file named as Gemini names its own
// at the first later start. So an export is named
// session-<YYYY-MM-DDTHH-MM>-<first 8 of id>-graft.jsonl (ExportSuffix):
// the sweep never matches it, the stub alone goes, and the export survives
// two later starts of other sessions and still resumes with everything in
// it (TestRealRetention). What still deletes an export is the host's
// ordinary rule: lastUpdated older than maxAge (an export not resumed for
// 30 days, or written again from an old tape after it was lost). A graft
// that finds its export gone (FindTranscript: ErrNoTranscript) writes it
// again, the same bytes, when the target is exported again (graft export
// gemini <target>: publish finds no file and links a new one). graft does
// not notice the loss by itself yet, and the target's import cursor still
// names the lost file's device and inode.
//
// # Hooks
//
// The user's settings.json (Hooks().Settings; graft hook install gemini
// --gemini-cli-home DIR names DIR/.gemini/settings.json): {"hooks":
// {"<Event>": [{"matcher": "*", "hooks": [{"type": "command", "command":
// "…", "timeout": <milliseconds>}]}]}} (adapter.Hooks Matcher and
// TimeoutUnit). graft hooks SessionStart (source "startup" or "resume"),
// BeforeAgent (graft's UserPromptSubmit; prompt), AfterAgent (Stop) and
// PreCompress (PreCompact; trigger "manual" or "auto"; it runs before every
// request's compression check). A hook gets {"session_id",
// "transcript_path", "cwd", "hook_event_name", "timestamp", …} on stdin
// (HookInput) and GEMINI_PROJECT_DIR, GEMINI_SESSION_ID in its
// environment. Its stdout
// {"hookSpecificOutput": {"hookEventName", "additionalContext"},
// "systemMessage"} puts the context before the model as
// <hook_context>…</hook_context> (BeforeAgent's as a part after the
// prompt, recorded in the session file with it) and shows the message
// ("Hook system message: …"). PreCompress cannot stop a compression: exit
// 2 with {"decision": "block"} is reported as a failed hook and the turn
// goes on (Block is nil). A compression shows in the session file as a $set
// whose list holds the model's <state_snapshot>
// (CompactionInTranscript): hookrun gives the first prompt after it the
// constraints with their origins, once.
//
// Gemini CLI 0.61.0 cuts no hook's additionalContext (ContextMax 0):
// bundle/chunk-JDPZ4CE3.js (the chunk bundle/gemini.js loads) reads a
// command hook's stdout whole (executeCommandHook: stdout +=
// data.toString()), joins the contexts of an event's hooks with "\n"
// (mergeWithOrDecision: additionalContexts.join("\n")), and
// getAdditionalContext() only escapes them:
//
//	return context2.replace(/</g, "&lt;").replace(/>/g, "&gt;");
//
// BeforeAgent's goes after the prompt as { text:
// `<hook_context>${additionalContext}</hook_context>` } (sendMessageStream),
// SessionStart's before the prompt (bundle/gemini-3HFX2LNT.js). Seen on the
// CLI too: internal/hosttest's TestExploreGeminiHookContextLimit (60,000
// characters of each reach the request whole).
//
// # Tokens
//
// A gemini message's tokens.input is its request's promptTokenCount
// (cached tokens included): the session's context size is the last one a
// line reports (LineTokens).
package gemini
