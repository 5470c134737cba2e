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
// When the target's inherit carries the source's active goal
// (adapter.Turn.Goal), the export ends with one more record, after the
// acknowledgement and in the same envelope: type "attachment", attachment
// {type: "goal_status", met: false, sentinel: true, condition: <the
// objective>}, what /goal <condition> writes. Claude Code 2.1.332 restores
// the goal on --resume from the last goal_status that is neither met nor
// failed ("/goal active" in its footer) and checks it when the person's
// next turn ends; it starts no turn by itself
// (TestClaudeHandoffCarriesTheActiveGoal). It runs the goal as a session
// Stop hook, and restores none while hooks are restricted
// ("disableAllHooks" or "allowManagedHooksOnly" true in a settings file it
// reads: TestClaudeRestoresNoGoalWithHooksOff): GoalHeldBy names the file
// and the setting, and the handoff's note says the goal does not go on
// instead of saying it does. /goal also refuses a workspace the person
// has not trusted, but a resume there asks for that trust first and has
// the goal active once it is given
// (TestClaudeRestoresTheGoalOnceTheWorkspaceIsTrusted).
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
//
// A hook's additionalContext (SessionStart's, UserPromptSubmit's: every
// event's) reaches the model as it is only up to 10,000 characters,
// counted as JavaScript counts them: UTF-16 code units (ContextMax,
// ContextLen). A longer one is written to a file,
// <config>/projects/<enc>/<session>/tool-results/hook-<hook id>-<event>-<hash>-additionalContext.txt,
// and the model gets, in its place,
//
//	<persisted-output>
//	Output too large (13.8KB). Full output saved to: <that file>
//
//	Preview (first 2KB):
//	<its first 2,000 characters, back to a line's end>
//	...
//	</persisted-output>
//
// (when the file cannot be written: the first 10,000 characters and
// "[Hook additionalContext truncated at 10000 chars — persist-to-disk
// failed: …]"). Each hook's answer is measured alone: the contexts of an
// event's hooks go to the model together, joined by newlines after
// "<event> hook additional context: ", however long together. So graft
// gives the constraints block after a compaction (SessionStart of source
// compact, after its recovery notes) within what the notes leave of the
// 10,000, its newest constraints cut and named by its cut line (hookrun).
//
// Read in the pinned 2.1.332, a native binary whose bundled JavaScript
// reads as text (node_modules/@anthropic-ai/claude-code-linux-x64/claude;
// the minified names are this build's): the command-hook runner, for every
// event, does
//
//	if(Fi.additionalContext){…let Yi=await jEe(Fi.additionalContext,No,"additionalContext",{storageV5:ln});…yield{additionalContexts:[Yi],…}}
//
// and jEe, with the threshold QDe=1e4 (var …,QDe=1e4,…), begins
//
//	async function jEe(e,n,r,{threshold:o=QDe,maxPersistBytes:i=$jr,storageV5:u}={}){if(e.length<=o)return e;…
//
// then writes the file (mK, "hook-${n}-…-${r}") and returns the
// <persisted-output> text (BEe, xe; the preview r$=2000, h$e cutting at
// the last newline before it); the attachment is rendered as
// hook_additional_context:(e)=>…`${e.hookName} hook additional context:
// ${e.content.join("\n")}`. Seen on the binary too: internal/hosttest's
// TestExploreClaudeHookContextLimit (10,000 UTF-16 units with a 😀, 9,999
// runes, kept whole; 10,001 units, 10,000 runes, filed; two SessionStart
// hooks of 10,000 and 6,000 both whole) and hosts'
// TestClaudeCodeCompactionFitsTheConstraintsInline.
package claudecode
