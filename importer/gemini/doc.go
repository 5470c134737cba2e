// Package gemini imports Gemini CLI session files
// (~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl, hosts/gemini
// says where they live) into native sessions through the importer package,
// which keeps the cursor; this package owns no file.
//
// # Records
//
// A session file is JSONL that Gemini CLI (0.61.0) only appends to
// (appendFileSync; a resume appends to the file it resumed, the same
// inode). The host reads each line as the first of these it is:
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
// "cancelled"|…, "resultDisplay": what the person was shown}], "tokens":
// {"input", "output", "cached", "thoughts",
// "tool", "total"}, "model"), or "info", "error", "warning" (not resumed).
//
// The list is rewritten by $set. Seen on the real program: a new run
// writes its header and {"$set": {"messages": [session context]}}; a
// resume writes {"$set": {"sessionId"}} and the whole list again (with a
// "<id>_response" message the loader derives for each reply with tool
// results). From 0.61.0's source (updateMessagesFromHistory): a
// compression writes the session context, the model's <state_snapshot> as
// a user message, "Got it. Thanks for the additional context!" and the
// turns it keeps. A resume in the minute of the file's name writes the new
// run's header and one-message list into the same file, then the resumed
// list. Resuming drops the user messages whose text starts with '/', '?',
// <session_context> or <hook_context>.
//
// # Recognising a session file
//
// A first import refuses a file none of whose first lines is one of these
// records (importer.Check): {"$rewindTo"}, {"$set"}, any other object of
// one field named "$…" (a record newer than graft), the header
// (sessionId and projectHash), or a message: a string "id" and a
// non-empty string "type", whatever the type, without the fields of the
// other hosts' records (uuid, sessionId, payload, message). Gemini CLI's
// earlier session files are one JSON document with two-space indents
// (session-<time>-<id8>.json); the real 0.61.0 lists one and, resuming
// it, writes it again beside it as session-….jsonl (its header, then each
// message) and goes on there, leaving the document. graft does not read
// the document: its refusal says what the file is and names the resume
// command and the file to import (Mapper.Hint, importer.Hinter; hosts'
// TestGeminiEarlierSessionDocumentGoesOnAsJSONL). Nor does it read the
// other files of a project's folder, whose refusal names them too: a
// checkpoint (checkpoint-<tag>.json, what /chat save writes: a list of
// contents, often on one line with no newline) and logs.json (the
// prompts typed, no replies).
//
// # Import
//
// Format "gemini-cli". The mapper keeps the host's list by id (its state:
// what was imported of each id, the list's ids in order, the tool calls
// and whether their result came; each id as the first 16 bytes of its
// SHA-256, state.go), so a message is imported once, a
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
//	  <session_context>…          kind "system" name "session-context"; meta cwd the first of
//	                              its "Workspace Directories" (WorkspaceDir), the directory
//	                              Gemini CLI runs in, which no record of it names
//	  <hook_context>…</hook_context>  kind "system" name "hook-context" (a hook's
//	                              additionalContext, before or after the prompt); the
//	                              prompt beside it is the person's
//	  <state_snapshot>…           kind "system" name "compacted": the host's summary
//	  '/' or '?' first            the person's, name "slash-command"; when displayContent
//	                              is the command typed and content another text (a custom
//	                              command's, .gemini/commands/*.toml, its arguments filled
//	                              in: seen on the real 0.61.0), that text follows as kind
//	                              "skill" name "command": the host's words, as Claude Code's
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
//	                            from status ("success" true; "error", "cancelled" false);
//	                            run_shell_command succeeds whatever the command's exit (seen
//	                            on the real 0.61.0): its output's sections decide (genai.ParseShellOutput:
//	                            "Exit Code: N" not 0, a "Signal", an "Error" other than "(none)"
//	                            fail it; meta exitCode the code), the output kept as written; a
//	                            cancelled call carries meta declined: "user" when the person
//	                            turned it down at the prompt or it was queued behind one
//	                            ("Reason: User denied execution.", "… User cancelled operation"),
//	                            else "stopped". exit_plan_mode (plan mode's approval) succeeds
//	                            whatever the person says: "Plan rejected. …" and "User cancelled
//	                            the plan approval dialog." are not ok and declined "user", a plan
//	                            it could not take (no file, an empty one) is not ok; the words
//	                            after "Plan rejected. User feedback: " follow the result as the
//	                            person's user/message (source.name "rejection-feedback").
//	                            A successful call of the task tracker (tracker_*, on with
//	                            settings experimental.taskTracker; it turns write_todos off)
//	                            is followed by a todo/write of the whole list its
//	                            resultDisplay shows the person ({"todos": [{description,
//	                            status}]}; "blocked" and "cancelled" become pending with the
//	                            status kept in the text, and a warning, as write_todos's);
//	                            no list: a warning
//	info, error, warning        system/event named after the type, text ≤ 200 characters
//	other message type, other record
//	                            system/event "unknown"; a warning names the shape once per
//	                            cursor (Gemini CLI writes no version in its files)
//	not JSON                    malformed: reported with its line number, skipped
//
// Every event of a message keeps meta "uuid" (the message id).
//
// # State
//
// The importer keeps the mapper's state in the cursor's state file
// (importer.BinaryState, imports/<id>.state; importer/doc.go), the third
// form, little-endian:
//
//	"graft gemini-cli state 3\n"
//	marks    uint32 n, n entries of 29 bytes sorted by key: key (16), flags
//	         (bits 0-1: 0 no text imported, 1 a digest, 2 a text that is no
//	         digest; bit 2 a message was imported; bit 3 listed now), the
//	         text's digest (8, the first of its SHA-256; zeros without one),
//	         thoughts imported (int32)
//	list     uint32 n, n keys (16) in the host's order
//	calls    uint32 n, n keys (16) sorted: the calls whose result was imported
//	open     uint32 n, n of key (16), uvarint length, tool name: calls without
//	         their result yet, sorted by key
//	told     uint32 n, n of uvarint length, text: unknown shapes warned of
//
// A key is the first 16 bytes of the id's SHA-256. A run searches the
// sorted tables where they lie and decodes only the entries the new lines
// ask about; its save copies the runs no line changed. A cursor of version
// 1 holds the state as JSON, which is still read: the second form
// ({"v":2}, each table one base64 string of the same kind of entries,
// variable-size) and the first (no "v": maps of the ids themselves).
package gemini
