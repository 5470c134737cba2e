// Package gemini is graft's knowledge of Gemini CLI (@google/gemini-cli,
// tested with 0.61.0): where its sessions live and which file a session id
// names, the mapping of a session file into graft events (an
// importer.Mapper), a graft tape rendered as a new session file it resumes
// by id, its resume command, its hooks and its token counts. It writes no
// file itself: an export writes the bytes Render returns, and the markers
// ExportPath names, through the store's vfs.FS. Every fact below was
// observed with the real program (realhost_test.go drives it offline
// against internal/hosttest's fake Gemini API); where 0.61.0's source
// explains it, the source's names are given.
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
// a directory it has never run in writes the two markers (Project.Claim),
// which the host then adopts (the real-program test resumes such an
// export and finds the host took the claimed folder).
//
// A file name holds only the first 8 characters of the session id; the
// header holds it whole. `gemini --resume <id>` lists the project's
// session-*.jsonl files, keeps those with something to resume (Resumable)
// and takes the one whose header names id (of several, the one updated
// last), whatever the rest of the name: FindTranscript does the same.
//
// # Records
//
// A session file is JSONL that the host only appends to (appendFileSync;
// a resume appends to the file it resumed, the same inode). The host reads
// each line as the first of these it is:
//
//	{"$rewindTo": "<id>"}       drops message <id> and every later one (all of them when
//	                            <id> is not in the list)
//	{"id": "<id>", …}           a message: it is added to the list, or, when the list
//	                            holds <id>, replaces that message in place (a reply is
//	                            written again when its tool calls and their results arrive)
//	{"$set": {…}}               metadata (lastUpdated, sessionId, summary, directories,
//	                            memoryScratchpad); "messages": [ … ] REPLACES the whole list
//	{"sessionId", "projectHash", "startTime", "lastUpdated", "kind"}
//	                            the header (first line; projectHash the hex SHA-256 of the
//	                            project's path, kind "main" or "subagent")
//
// Messages are {"id", "timestamp", "type", "content", "displayContent"?}
// with type "user" (content a list of parts: {"text"}, {"functionResponse":
// {"id", "name", "response": {"output"} or {"error"}}}, inline or file
// data; displayContent what the person typed before @file references were
// expanded), "gemini" (content a string or parts, plus "thoughts":
// [{"subject", "description"}], "toolCalls": [{"id", "name", "args",
// "result": [functionResponse parts], "status": "success"|"error"|
// "cancelled"|…}], "tokens": {"input", "output", "cached", "thoughts",
// "tool", "total"}, "model"), or "info", "error", "warning" (not resumed).
//
// The list is rewritten by $set. Seen on the real program: a new run
// writes its header and {"$set": {"messages": [session context]}}; a
// resume writes {"$set": {"sessionId"}} and the whole list again (with a
// "<id>_response" message the loader derives for each reply with tool
// results). From 0.61.0's source (updateMessagesFromHistory), not run
// here: a compression writes the session context, the model's
// <state_snapshot> as a user message, "Got it. Thanks for the additional
// context!" and the turns it keeps. A resume in the minute of
// the file's name writes the new run's header and one-message list into
// the same file, then the resumed list. Resuming drops the user messages
// whose text starts with '/', '?', <session_context> or <hook_context>.
//
// # Import
//
// Format "gemini-cli". The mapper keeps the host's list by id (its state:
// what was imported of each id, the list's ids in order, the tool calls
// and whether their result came), so a message is imported once, a
// message written again yields only what it gained (a tool call, its
// result, a changed text: assistant/message with meta "revises"), and a
// list that $set repeats yields nothing. graft's log is append-only, so a
// replaced list is recorded, not applied: a $set that drops messages is a
// system/event "history-replaced" (meta messages, added, dropped) and a
// $rewindTo a system/event "rewind" (meta rewindTo, dropped); the events
// of the dropped messages stay in the log, where recall finds them. The
// file itself only grows, so the importer's append-only cursor follows it;
// a host that rewrote its file (0.61.0 does only for a file it cannot
// read: it keeps the old one as <name>.unreadable-<ms> and writes a new
// one by rename) is refused by the cursor as source_rewritten.
//
//	header                      system/event "session" (meta sessionId, projectHash, kind);
//	                            the cursor's lastUuid is its sessionId
//	user text                   the person's words (user/message kind "user"), except:
//	  <session_context>…          kind "system" name "session-context"
//	  <hook_context>…</hook_context>  kind "system" name "hook-context"; the prompt after it
//	                              is the person's
//	  <state_snapshot>…           kind "system" name "compacted": the host's summary
//	  '/' or '?' first            the person's, name "slash-command"
//	  new in a $set list          kind "system" name "rewritten-history"
//	user functionResponse       tool/result, unless the call's result was imported (a copy,
//	                            counted)
//	gemini text                 assistant/message ("Got it. Thanks …" new in a $set list:
//	                            skipped, counted)
//	gemini thoughts             dropped (counted), or with KeepThinking assistant/message
//	                            source.name "thinking"
//	tool call                   tool/call (input = args); "replace" is imported as "edit"
//	                            (meta viaTool "replace") so the tape reads its file_path;
//	                            write_todos is also a todo/write (description, status;
//	                            "cancelled" and "blocked" become pending with the status
//	                            kept in the text, and a warning)
//	tool call result            tool/result: output from response.output (or .error), ok
//	                            from status ("success" true; "error", "cancelled" false)
//	info, error, warning        system/event named after the type, text ≤ 200 characters
//	other message type, other record
//	                            system/event "unknown"; a warning names the shape once per
//	                            cursor (Gemini CLI writes no version in its files)
//	not JSON                    malformed: reported with its line number, skipped
//
// Every event of a message keeps meta "uuid" (the message id).
//
// # Export
//
// Render writes three lines: a header {"sessionId", "projectHash",
// "startTime", "lastUpdated", "kind": "main", "graft": "<graft version>"}
// (Gemini CLI keeps a header field it does not know and reads nothing of
// it: Writer reads it back), a user message {"id", "timestamp", "type":
// "user", "content": [{"text"}, …]} holding the handoff text and each
// recap block as one text part, and a gemini message {"id", "timestamp",
// "type": "gemini", "content": "<acknowledgement>", "model": "graft"}. The
// ids are the session id and "-graft-0", "-graft-1"; the timestamps the
// tape's, a millisecond apart. The session id is derived, a version-4 uuid
// (ExportID). On resume the host puts its session context first and sends
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
// that finds its export gone (FindTranscript: ErrNoTranscript) can write
// it again, the same bytes, and say so: that is the CLI's part, once the
// host registry wires this package in.
//
// # Hooks
//
// settings.json: {"hooks": {"<Event>": [{"matcher": "*", "hooks":
// [{"type": "command", "command": "…", "timeout"?}]}]}} (HookSettings).
// graft hooks SessionStart (source "startup" or "resume"), BeforeAgent
// (prompt), AfterAgent and PreCompress (trigger "manual" or "auto"; it runs
// before every turn's compression check). A hook gets {"session_id",
// "transcript_path", "cwd", "hook_event_name", "timestamp", …} on stdin
// and GEMINI_PROJECT_DIR, GEMINI_SESSION_ID in its environment. Its stdout
// {"hookSpecificOutput": {"hookEventName", "additionalContext"},
// "systemMessage"} (ContextAnswer) puts the context before the model as
// <hook_context>…</hook_context> ahead of the prompt and shows the
// message ("Hook system message: …"). PreCompress cannot stop a
// compression: exit 2 with {"decision": "block"} is reported as a failed
// hook and the turn goes on.
//
// # Tokens
//
// A gemini message's tokens.input is its request's promptTokenCount
// (cached tokens included): the session's context size is the last one a
// line reports (LineTokens).
package gemini
