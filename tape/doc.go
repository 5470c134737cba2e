// Package tape builds the tape a graft target starts with: one closed
// skeleton turn and the recap blocks of docs/DESIGN.md §4, rendered deterministically
// from a source session's events, with the hashes prepare and commit compare.
//
// The package owns no file. What it writes into a session is the text of
// the tape events, and that format is specified here.
//
// # Fold
//
// A Builder is a fold over the events of one session in seq order (Add).
// It keeps only small bounded state: the constraints and the goal quotes,
// the first and the last 60 human instructions (each at most 6000 runes,
// its head and end, the cut mark quoting the first error line of the cut
// middle: clipHumanText; those let go counted with their seqs for the Goal's
// cut line, those handed on per session; a target's fold starts them with
// those an earlier generation handed on, inherit.said, and keeps the line
// digests of its own newest
// keptSaid, which its target hands on in turn: inheritSaid, each with the
// command's text it ran (command: commandOf) and, of a short answer, the
// options it picks (picks: picksOf), which the Goal shows under it; the
// files
// an earlier generation wrote or edited, inherit.files, which Workspace
// Files lists after this session's own and its target hands on after
// them: inheritFiles; the working directory and branch it was in,
// inherit.place, until its own events name others, and the commit the
// work started at, which Workspace Files' Git line names "when the work
// started" and the target hands on again; the assistant's
// messages an earlier generation handed on, inherit.messages, which the
// Breakpoint lists before this session's own and its target hands on
// after them: inheritMessages; the todo list an earlier generation left
// unfinished, inherit.todos, and the plan the person approved in plan
// mode, inherit.approvedPlan, which Task Status and Pending State show,
// cited in their session, until this session writes or proposes its own,
// and its target hands on with the same origin; the failed calls an
// earlier generation left unfixed, inherit.failures, which Pending State
// lists until a successful run of the same call fixes one, and its target
// hands on with its own: inheritFailures; the failures it worked around
// another way, inherit.workarounds, which Pending State lists with the
// call that fixed each: inheritWorkarounds; the milestones it reached,
// inherit.milestones, which Milestones lists before this session's own,
// oldest first, and its target hands on with its own that worked:
// inheritMilestones), the carryover (each assistant message up to 1500 runes, and
// each text a call posted for people to read, a pull request's or an
// issue's body, a comment, a release's notes, by its head and end in 1000
// runes, "(posted with gh pr create, model-written)": posted.go; across
// turns, at most MaxBudget runes and 1000 entries) and the open turn's
// last assistant message (4000 runes), the message texts of the last
// MaxRecentTurns closed turns, the last todo list, the last plan (its
// head and end in 12000 runes), the host's last compaction summary (its
// head and end in 12000 runes: its end is the work in progress), files
// touched (at most 500 paths, with the names their edits define), tool
// calls waiting for their result (at most 256), the last 40 actions, 12
// version-control and 6 test or build commands, 5 unfixed failures, 3
// look-ups, 8 answers and 40 conversation-tail events, the last 5
// sub-agent reports, recall labels of the first and the last 40 turns,
// the working directory, and two sha256 states. Constraints grow with the human's words only: one per distinct
// constraint, at most MaxConstraints (8000; see Budget), and one origin per
// time it was said again. Tool outputs are hashed and dropped. Kept texts
// are capped; a cap that cuts a text says so with "… [cut: recall seq=N]".
// Merging a human instruction into the constraints costs its own text, not
// the constraints already kept (anchors.Set).
//
// A tool output is never held by the fold: of a tool/result the fold keeps
// the byte offset and size of its log line (AddSumAt), and BuildFrom reads
// the outputs the tape quotes (Outputs), one read each, a line longer than
// MaxOutputLine (96 KiB: a Claude Code Bash output is cut at 30,000 characters) named but not read. Folded without offsets (Add,
// AddSum), the event's own output is read at once by the same rules: both
// give the same tape.
//
// Snapshot writes the fold as JSON (field "v" is the format version,
// snapshotVersion, now 67; its comment in builder.go says what each
// earlier version kept; the sha256 states are MarshalBinary bytes).
// Restore(Snapshot())
// then more Adds gives the same tape as one uninterrupted fold; a snapshot
// of another version is refused. The version changes with what the fold
// keeps: testdata/snapshot-shape.golden records fixed folds' snapshots
// under it, and a change to one of them under the same version fails
// (TestASnapshotOfAnotherShapeHasAnotherVersion). FuzzBuild checks the
// restore, with a snapshot taken at any event, on sessions made from
// random bytes, and with it what a tape promises whatever the session
// holds: the budget kept or ErrBudget said, UTF-8 text, the same tape
// built twice, hard constraints and Goal quotes from the person's events
// only, no seq cited that the session lacks.
//
// # Rules
//
// Human instruction: session.Event.IsHumanInstruction and nothing else.
// Only a human instruction opens a turn, sets the boundary, adds to the
// goal and is a source of constraints (anchors.Merge, origin {generation,
// session, seq}). An assistant message carrying session.GraftMarker (the
// acknowledgement of an earlier tape) is not a step of the work.
//
// Boundary seq: the seq of the last human instruction (0 if none). The open
// turn runs from it to the last event; with no human instruction it is the
// whole session.
//
// Carryover: each assistant message, trimmed, whole up to 1500 runes (of
// a thinking block, its last non-empty paragraph; paragraphs are separated
// by blank lines), in seq order, across turns. A longer message that a
// short human answer (200 runes at most: "yes to all", "6", "use the ICU
// transliteration for now") follows stays as it was kept as the open
// turn's last message (below: whole up to 4000 runes, else its head and
// its end): the answer says yes to that message's plan, offer or list,
// and means nothing without it. A human instruction (not a
// host command) adds a mark "— seq=N the user: <first line>" once the
// carryover holds anything. The open turn's last message (not thinking)
// is kept whole up to 4000 runes (a longer one by its head and its end,
// where it says what is next: clipHeadTail) and the Breakpoint shows it
// first, instead of its entry. The Breakpoint names a path inside the
// working directory relative to it, and a Markdown link whose label only
// names its file ("[a.md](/Users/me/repo/docs/a.md)", as Codex's models
// link every file) by that path alone, "docs/a.md" (proseRel): the
// folder's name took a tenth of some Breakpoints. A message of at most 200 runes and one paragraph
// followed by a tool call with nothing but thinking between is a step: it
// announced that call. Conflicts (below) read the open turn's entries only.
//
// Staleness: when at least 3 successful tool results (todo tools excluded:
// TodoWrite, todo_write, update_plan, TodoRead, todo_read, and Claude Code
// 2.1's TaskCreate, TaskUpdate, TaskList, TaskGet, Codex 0.171's and Qwen
// Code 0.24's create_goal, get_goal, update_goal, propose_goal) follow the last
// todo/write and an item is unfinished, Task Status says "an item may already be complete (N
// successful tool calls since the list was written): verify before
// re-running".
//
// Conflict with the breakpoint: an unfinished todo whose significant words
// are named in the open turn's carryover entries: at least two thirds (rounded up) of its words
// of four or more runes that are not stop words (for Han text: its
// two-character windows) occur in the carryover's paragraphs. Such a todo
// is flagged in Pending State with "this item may already be done: verify
// before re-running", and the Breakpoint counts them.
//
// Workspace files: only successful tool results count, and each op cites
// the seq of the tool/result. The op comes from the tool name, lower-cased:
// read, read_file, view → read; write, write_file, create → write; edit,
// edit_file, str_replace, multiedit, notebookedit → edit; apply_patch →
// the file headers of its patch (input string, or field "patch" or
// "input"): "*** Add File:" and "*** Move to:" write, "*** Update File:"
// and "*** Delete File:" edit. The path is the call's input field
// file_path, path, notebook_path or absolute_path (Gemini CLI's earlier read_file,
// Qwen Code's before 0.13); the call is found by callId, else the
// result's own input is read. A file-tool result with no path found is
// counted in the warnings, not guessed. The block names a file under the
// working directory relative to it (relPath); of a Windows session
// (C:\Users\…\repo), with slashes and whatever the case, as git and the
// person name it (scripts/x.py).
//
// Sub-agent reports: kept when a report keyword (summary, result(s),
// findings, done, report, conclusion(s), 结论, 总结, итог…) stands within
// the first 200 runes, and the report is not a dump: its first non-empty
// line opens a code fence, or at least 4 and at least half of its first 40
// non-empty lines are file or log lines (numbered lines "12→", "12:",
// "12|", "12<tab>"; lines starting with a date, a clock time or a log level;
// indented "at " stack frames, `File "`, "goroutine "; diff headers).
// The last 5 kept reports are shown, each without the trailer the host
// adds for its model (Claude Code's "agentId: …" and <usage> block) and,
// past 1500 runes, by its head and its end (clipHeadTail): a report frames
// the work at its head and sums up its findings at its end. A report the
// assistant has spoken after (an assistant message with a later seq) is
// answered: its messages since say what it took from it, and the report
// shows its head and its end in answeredReportRunes (300).
//
// Replay: tier A replays nothing; tier B the last closed turn; RecentTurns
// N the last N closed turns (overrides Tier); AutoTier turns tier A into B
// when the last todo list has an unfinished item or a tool result of the
// open turn failed. A replayed turn shows its human and assistant message
// texts, never tool outputs.
//
// Working directory: the last meta "cwd" of an event (a Claude Code human
// instruction, a Codex session_meta). Paths inside it are named relative
// to it.
//
// Host commands: a human instruction that is one of the hosts' own slash
// commands (/compact, /clear, /model, /mcp, /fast, /effort, … :
// hostCommands; for Claude Code its binary's built-in commands of type
// local and local-jsx, but those whose arguments are words the model reads,
// such as /goal, /plan and /btw) is no goal and no entry of the user's
// words; it still opens a turn.
//
// The user's words: every human instruction but host commands, the last
// 40, and the person's answers to the assistant's questions (the output of
// a Claude Code AskUserQuestion, Codex request_user_input, Gemini CLI
// ask_user or Qwen Code ask_user_question result). A long one shows its head (two
// fifths of 2000 runes) and its end (the rest): a long message is mostly
// pasted context, the ask stands at its end; its middle follows in parts
// of 1000 runes that the budget cuts early. An instruction answered since
// (all but the latest: keptWholeHumans) shows 800 runes of its head and
// end (olderCoreRunes), and its 2000 where the budget leaves room once no
// instruction was cut (section.grown); one that is a command's template
// (3000 bytes or more opening with "## User Input" and a fenced block:
// Spec Kit's /speckit.* commands on every host) shows the words typed
// after the command and the template's first line and seq instead
// (commandTemplate), the first and the latest instruction excepted; the
// fold keeps such a template's head through the typed words and the
// template's first line (templateRunes of it) where they run past two
// fifths of maxHumanRunes,
// up to four fifths (clipInstruction), so that the words are quoted
// whole; the first goal's quote (maxQuoteRunes, inherited by a later
// generation) keeps them the same way (clipQuote), and a template so
// clipped is read as one below pastedBytes (its cut mark); an inherited
// first goal's cut marks and template recall name the session it was
// said in (inSession), a seq alone being the source session's. The
// text a command the person typed expanded to (Claude Code's isMeta line
// after the command, Codex's <skill> block: kind "skill"), when it opens
// the instruction's turn before anything of the agent's, is shown under
// the instruction as the host's words, not the user's: its first line of
// its own and its first saying that states a rule, 240 runes each
// (state.CommandTexts, template.go); a skill the agent loaded itself is
// none, and no hard constraint comes of either. A
// paste of 3000 bytes or more that shows an earlier window's screen keeps the person's prompts in it
// (pastedPrompts: after OpenCode's "▣  Build · <model> · <time>" footer;
// Claude Code's "> " and "❯ " lines among "⏺" and "⎿" lines), the newest
// 12 of 300 runes each, listed under the Goal's quotes but those a quote
// shows already (state.Prompts; the fold keeps only the paste's head and
// end). Of such a paste, only those prompts (all of them, whole: pastedPrompts' sayings)
// give constraints: the rest of the screen is the agent's words and its
// tools' output. Each is cited "seq N" when
// the source session said it (the Handoff block names the session), by
// generation and seq when inherited ("gen 1 seq N": the Handoff block
// names each earlier session once, lineageAliases; by generation, session
// and seq where two sessions the tape cites have one generation); a
// constraint by its seq alone when said in the session the block's anchor
// line names (the block is given to a host again alone, and its anchor
// line is never cut), else by all three.
//
// Actions: each tool result (todo tools aside) with what its call ran
// (the command, the path, the pattern or query: callWhat, 140 runes; a
// command that opens with a cd into the session's own folder and && is
// shown without it, as Claude Code's agents on Windows write every Bash
// call: dropCdIntoCwd; in a
// longer command each run of three or more paths folds to its first and
// "… (N paths)", so a chain's verbs and flags survive: foldPaths) and
// whether it succeeded. Of commands and other tools that are neither file
// tools nor searches (nor the host loading its deferred tools, Claude
// Code's ToolSearch and Codex's tool_search, nor the plan approved, which
// Task Status shows, nor a shell command that only reads, its chain all
// readers, cat, sed -n, ls …, or asking its help, "bd close --help", "go
// help build": readsOnly, asksHelp), the key lines of the output are quoted (keyLines:
// at most maxKeyLines, 4; past the newest keptNewestActions of Recent
// Actions, and in Milestones, a call that worked shows its last
// olderKeyLines, 3, or, when the largest verdict of a shape that repeats
// is older, that verdict and the last 2: olderKey):
// for a success the last line and the lines nearest the end that carry a
// verdict (counts of tests, failures, errors, files changed; pass, fail,
// error, ok, FAIL; a commit "[branch hash]", a push "a..b", "->",
// "nothing to commit", "modified:" and git status's other labels of a
// changed or unmerged path ("deleted by us:", "both added:" …), and a
// tracked file git status --short names as changed (" M README.md",
// "R  a -> b": shortStatusLine; with -b, its "## branch...upstream" line
// as well; untracked "??" files are no more key lines than the long
// form's list of them), git's state above the paths of its status kept
// before them ("You have unmerged paths.", "Your branch is ahead of …",
// a rebase in progress: gitStateLine); a pull-request URL; created, closed,
// updated, merged, ✓ …), at most 4, a line the output prints twice
// once (a diff's header, "--- a/x", "+++ b/x", "index a..b", is none,
// nor a line of its hunks, the code it adds, removes and shows around
// them, as many as the hunk's header counts: diffHunk; nor a heading a
// chain echoes, "--- failures? ---": "--- " opens go test's "--- FAIL:",
// "--- PASS:", "--- SKIP:" alone; go test's "[no test files]" is one),
// and of more verdicts of one shape than those 4 (cargo's "test
// result" per test binary) the one that counts the most among the last
// (largestOfCrowdedShape), and a count of nothing ("running 0 tests",
// "test result: ok. 0 passed; 0 failed; …": countsNothing) none beside a
// line of its shape that counts, the last line included (cargo's doc
// tests end its output), a JSON object longer than a key line with each
// long value clipped in place (jsonLine: a body no longer takes the room
// of the fields after it); for a failure its first line (but a runner's
// section heading framed by rules, pytest's "== test session starts ==":
// ruleHeading), the first line naming an error,
// and the last line; a linter's or a
// scanner's "found N …" is a verdict too. Package-manager chatter ("npm
// warn …", "[Output truncated …", the banner npm, pnpm and yarn open a
// script's run with, "> app@1.0.0 build" and "> tsc": npmBanner), timings ("Finished in …", "Analysis
// took …", "Done in …"), advice ("Use `…` to …", "hint: …", GitHub's
// "remote: (?) Learn how to resolve a blocked push", with its lines up
// to the next blank one: adviceLines) and the
// program's own log lines below an error ("12:03:45.101 [warning] …",
// "[info] …") and the chatter of Git Bash's runtime on Windows ("0 [main]
// bash (1620) child_copy: …", "fork: retry: Resource temporarily
// unavailable") and WSL's ("wsl: Failed to translate '…'"), the header Codex's unified exec puts before an output
// ("Command: …", "Chunk ID: …", "Wall time: …", "Original token count:
// …", "Output:"; and its shell_command's, "Exit code: N", "Wall time:
// …", "Output:"; taken off every output the tape reads: outputBody; an
// output that is then one JSON document with escaped text, `gh … --json`
// or an MCP tool's answer, is quoted at length, in a look-up, the tail or
// the last call's lines, as the text it holds, a line per line under its
// field's name: jsonText; its key lines read the document as it is, whose
// fields come in no order of weight),
// Claude Code's words for an empty output ("(Bash completed with no
// output)") and the bookkeeping it appends to a sub-agent's result
// ("agentId: …", the <usage> block), the
// sections around the output Gemini CLI's shell tool gives its model
// ("<untrusted_context>", "Command: …", "Directory: …", "Output: ", and
// after it "Error: (none)", "Exit Code: …", "Signal: …", "Background PIDs:
// …", "Process Group PGID: …"; a process error other than "(none)" stays:
// shellSections),
// the count it puts before an output it cut for its model ("Total output
// lines: N"), a rule (a line of 4 or more dashes, equals signs or
// box-drawing characters and nothing else, after a bare label: a table's
// border, "remote: ————": ruleLine; inside a line, a run of more than 4
// of them is cut to 2: squeezeRules), a line with no letter and no digit
// (a JSON object's closing "}", a lone "✓": saysSomething)
// and a host's line that only says how a command exited ("Exit code 1",
// "Process exited with code 1": exitLine) are never key lines
// (noiseLine); a terminal's control sequences (colours, cursor moves:
// stripANSI) are taken out of every output line the tape shows; a
// write_stdin call is named by the command it polls, and a wait (Codex's
// code mode) by the command of the cell it waits on (meta execCommand
// from the Codex importer; else the session its script polls, meta
// execSession; else "session N", "cell N"); and the words of a path
// are no verdict or count ("create mode 100644 tests/test_fail.py":
// withoutPaths); an output of at most three
// lines is quoted whole only when it is a failure or holds no verdict; the
// open turn's last call, when it succeeded, shows its output's lines
// instead (800 runes, head and end, a package manager's banner left out
// as from key lines: what was done last). The ring
// keeps 40, dropping reads and edits before commands.
//
// Milestones: commands of version control and trackers (git commit, push,
// merge, tag, add -f, --no-verify, --force, gh pr, bd close …, but not
// their views: gh issue view, git stash list; the last 12) and of tests,
// builds and linters (the last 6), kept past the actions ring.
//
// Fixed failures: a failure is no longer pending once a later successful
// call of the same tool ran the same thing: for commands, every program
// and subcommand of the failed chain (split at && || ; |, by its first two
// words) is run by the later one ("git push" is fixed by "git push
// --set-upstream origin x"); a failed run of one script (a path with an
// extension, or an interpreter and a file name with an extension) is also fixed by a later
// run that names the same script file and repeats its first 40 runes of
// arguments (argumentRunes): the same run another way, through a copy
// cleaned of carriage returns or an interpreter in front (sameScriptRun;
// without arguments, a later command running a script of that file name:
// "node assets/build.js" by "cd assets && node build.js"); a failed chain
// is also fixed once later successful calls ran each of its commands,
// part by part ("git add x && git commit" by "git add -f x", then "git
// commit": failure.Left, chainLeft); otherwise the same text. They are
// counted. A failure still pending shows two of its key lines, in output
// order: the one that names its error (a Python or Java exception by its
// last dotted name too: "json.decoder.JSONDecodeError: …") and the line
// below it when it is a bare header ("Error:", "error: [GHC-44287]");
// else the one that names its error and the last that counts ("4
// failed, 31 passed"), else the first and the one that names its error
// (the first two when it is one of them); never a wrapper's line ("Exit
// code 1", make's "*** [lint] Error 1", "exit status 1"): pendingKey.
// The last 4 failures a shell command worked around (a flag the failed
// one lacked, "git commit --no-gpg-sign" after "git commit", or the same
// script run another way: workaround) are kept with that command and show
// under the count, each with its error line and its fix: what does not
// work here, and what does; a search that printed nothing (grep and rg
// exit 1 on no match: searchesOnly) found nothing and is not listed.
// Ranked with the actions kept to 6. A look-up that failed and was not
// worked around (a file tool's read, or a shell command of readers alone:
// readsOnly, "cat x", "ls package.json") is no pending failure either,
// nor the failure the open turn ended on: it changed nothing and leaves
// nothing to redo, and what it found (the file is not there) is its
// output, which Recent Actions shows (lookUpFailure).
//
// The failure the open turn ended on (no later call succeeded) shows its
// output's lines, blank ones, bare labels, noise and a host's wrapper left
// out, within 1200 runes, head and end: what the next window must handle
// first; an older one shows its error line and its count line.
//
// In flight: calls of the open turn with no result yet (the last 5), a
// command shown up to 400 runes (Recent Actions clips one at 140), a
// sub-agent's task with the head and the end of its prompt (600 runes):
// its result will not reach the next session, which must run it again.
//
// Look-ups: a successful call, not a file tool, whose command names an
// identifier the user named (a word of a human instruction with a digit
// beside letters, or one of - _ . # / inside: a bead, an issue, a
// branch), whose log line is at least 600 bytes: the head of its output
// (3000 runes) is the task's spec. A shell command looks up when it reads
// alone: each command of its chain a reader (cat, sed -n, rg, ls …), a
// viewer (a subcommand that shows: git show, log, diff, status; bd show,
// list; gh issue view, jira issue view, kubectl get: viewVerbs) or a
// PowerShell reader (Get-Content); one that does something to what the user named
// (runs it, its tests or a build through any wrapper, copies it) is an
// action, whatever it prints. Another tool (an MCP server's search) looks
// up unless it is a milestone. The last 3, one per command. A chain splits
// where a command ends: at &&, ||, | and ; outside quotes, not at a
// redirection's & (2>&1).
//
// Plan: the plan of the last plan exit (isPlanExit: Claude Code's
// ExitPlanMode, Gemini CLI's and Qwen Code's exit_plan_mode), "approved by
// the user" when its result succeeded, "not approved" when it did not (the
// importers make a plan the person turned down a declined result, which
// Pending State does not list: Task Status says it); a call that carries
// no plan text (older Claude Code, and Gemini CLI, write the plan to a
// file in plan mode, the one file they let the assistant write; Gemini's
// call names it, plan_filename) takes the content of the last Markdown
// file written before it. A plan is kept by its head and end
// (maxKeptPlanRunes, 12,000: a plan ends with how the work is checked,
// and the budget, not the fold, decides how much of its middle shows) and shown by
// its head and end in maxPlanRunes, then its middle parts, which the
// budget cuts with a long instruction's. Entering plan mode (isPlanEnter)
// is the host setting "plan" until a plan is approved. Codex's Plan mode
// proposes its plan in a message (session.MetaProposedPlan, a
// <proposed_plan> block): that is the plan, with no answer yet, and the
// message keeps its words around it with a pointer in its place (the plan
// is quoted once); Codex asks "Implement this plan?" and leaves Plan mode
// on yes, so a turn setting out of plan mode (plan.ByMode) approves it,
// and another message in Plan mode only revises it. A plan the person
// approved with no instruction of theirs since the one that answered
// (Builder.current) is what the work goes by now: it ranks with the
// latest instruction, not with the sub-agents' reports; its middle parts
// are never shown without its head and end (section.of). A plan the person approved
// when the host cleared the context to implement it (a host's message
// with session.MetaPlan: Claude Code's "Implement the following plan: …")
// is the session's plan too, and its task: "Plan approved at seq=N, the
// work's task", kept as any plan is (maxKeptPlanRunes) and shown
// as the Goal shows one, its head and end (humanCoreRunes), then its
// middle parts; it ranks with the first instruction, its middle parts
// with theirs. The plan is the model's: none of it is a goal or a
// constraint (it had been the first instruction, and its sentences hard
// constraints "from the user's own words").
//
// Model-written text: the assistant's messages, a plan it proposed and
// the host's compaction summary (a user/message of kind system named
// compact-summary or compacted) are labelled "model-written: context, not
// an instruction" and are never a human instruction, a goal or a
// constraint.
//
// Edited files: the last write or edit of each of the 40 most recently
// changed files names the definitions its new text makes (def, defp,
// func, function, class, type … and "a.b = {" assignments, and the tests
// a string names: @test "…", it("…"), test "…" do: at most 16, those of
// unindented lines before those of indented ones: a file's types and
// functions before the methods inside them; a local bound on an indented
// line, const, let, var or val, or a field set on this or self, is none:
// localBinding),
// or else the first two lines it adds (of an edit, the lines its new text
// has that its old text lacked; of a patch, its "+" lines; never its
// imports, a block of them to its end, its shebang, its package clause
// or a line of brackets alone: boilerplate, which opens most new files
// and said nothing of the work; when both are comments and code follows,
// the first comment and the first line of code, a document's "#"
// headings excepted: shortChange). The newest 3
// written files but documents show those added lines at length, up to
// 600 runes, in a section of their own ("The last changes of the newest
// files"), ranked just above the conversation tail and left out whole,
// heading and cut line too, when cut (section.optional); and an edit the identifiers it adds that
// its old text lacked (snake_case, camelCase or dotted, 6 runes or more:
// at most 6; of an apply_patch patch, its "+" lines against its "-"
// lines in each file it updates: patchPairs), then the first
// maxAddedMessages (2) messages it adds that its old text lacked
// (double-quoted strings of 12 to 100 runes with a space and no escape:
// eachMessage; an error, a log line, a test's name). A Markdown document's names are its headings: a write or
// an edit of one (every file it touches .md, .markdown or .mdx) adds the
// ATX headings its old text lacked, of a patch those of the lines it adds
// (headingAdds; at most 6, each clipped to 60 runes), shown after its
// first lines, less those the first lines hold; and what it settles, its
// labelled lines: the lines of its last write or edit (of a patch, the
// lines it adds) outside code fences that read "Label: value" or
// "**Label**: value" (a label of one to four words, capitalised, no
// code; a value of 8 bytes or more), each on a line of its own under the
// file's ("    · Decision: one queue"), at most 6, clipped to 140 runes
// (labelledLines): a plan's "Scale/Scope", a research note's "Decision",
// a gate's "Status". The fold keeps the file's keptEarlierEdits (4) writes and
// edits before its last (fileEntry.Earlier: their names, or the call line
// Build reads them from), and the line names what they defined or added,
// the newest edit first, at most maxEarlierNames (8) not said already,
// the names they define (editSymbols) before the others they add:
// "(earlier edits add …)". The session's choices are spread over a
// file's edits; its last one alone does not say them. Of a patch that
// changes several files, each file's names, first lines and labelled
// lines are those of its own section of the patch (patchParts: its
// header, a "*** Move to:" naming it too, up to the next file's header),
// not the whole patch's.
//
// # Tape text
//
// Events, in order, each a user/message with source {kind: plugin, name:
// graft}, except the acknowledgement (assistant/message, source {kind:
// assistant, name: graft}):
//
//	Handoff, Handoff acknowledged     the closed skeleton turn (with Options.Continues, the other host's
//	                                  instruction files its agent is to read first; in a later
//	                                  generation, the earlier sessions by generation)
//	Breakpoint                        1  the last assistant message whole, then the carryover
//	Anchor + Hard Constraints         2  the anchor line first (anchors.AnchorLine)
//	Goal                              3  the first instruction (a command's template, once a later instruction came, by the words typed after the command and its first line: template.go; a command's text the host wrote after it, by its first line and first rule, the host's words), then the user's words (a short answer keeps the question it answers in the Breakpoint; one that names options, "6" or "B", shows those options' lines under it, model-written; last a message still queued: queued.go), then their middle parts
//	Task Status                       4  the goal the host keeps (session.MetaGoalStatus: Codex's /goal), the last todo list, then the last plan; when there is one
//	Recent Actions                    5  when there is an action (a sub-agent's call points at its report: Builder.reportOf; a call run in the background, session.MetaBackground, quotes not the host's launch notice but "launched in the background" and the report that names it, the seq of that report when Sub-agent Reports leaves it out, or "no report yet"; of a shell command, the seq and summary of the host's notification that it ended (session.MetaTaskStatus: "… failed with exit code 10"), or "no end reported yet"; a failure Pending State lists shows the rest of its key lines: restOfFailure; a shell command whose exit the host did not report "ran", one still running when its call returned "running": action.Unreported; a run of polls of one command by its newest, "polled N times from seq=F": pollRuns)
//	Milestones                        6  when one is no longer in Recent Actions
//	Workspace Files                   7  the git branch (and start commit), the host settings (settingsLine), written or edited, then "Only read:"
//	Pending State                     8  todos, unfixed failures, calls the person declined or stopped (session.MetaDeclined: no failure), calls in flight, leftovers
//	Host Summary                      9  when the host compacted, or wrote a recap for the person (session.SourceRecap)
//	Looked Up                         10 when there is a look-up
//	Sub-agent Reports                 11 when there is one (or one was left out)
//	Recall Index                      12 left out whole once all are cut (every line above cites its seqs)
//	Conversation Tail                 13 the last events as they were (a write or edit by the lines it adds; a message the Goal or Breakpoint quotes named by seq); left out when it would name such messages alone, and whole once all are cut
//	Replay: turn seq=a..b             one per replayed turn, oldest first
//
// An entry that names a call (Recent Actions, Milestones, Pending State,
// Looked Up) says "- seq=N <tool> <outcome>: <what>", a shell command
// "- seq=N <outcome>: $ <command>" (callHead; a shell is isShellTool's:
// Claude Code's Bash and PowerShell, Codex's shell tools, Gemini CLI's and
// Qwen Code's run_shell_command). A block's head says what its
// entries do not say themselves: the fixed text is room the work does not
// get (TestTheSkeletonLeavesTheRoomToTheWork).
//
// Replayed turns come after the blocks so that the breakpoint stays the
// first recap a reader meets (docs/DESIGN.md §4.1: "the breakpoint comes first on
// purpose").
//
// Every event's text starts with a marker line
//
//	[graft:tape <h>] [<title>]
//
// where "[graft:tape" is session.GraftMarker, so no tape text is ever a
// human instruction of a later generation, and <h> is the first 8 hex
// digits of sha256 over "graft-block-v1", the source id, the title and the
// body, each length-prefixed. Tape.Text is the event texts joined by
// "\n\n"; SplitText gives the blocks back from it, each starting at a
// marker line at the start of the text or after a blank line.
//
// # Budget
//
// Tape.Text never exceeds the budget in runes (default 16000). When over,
// whole entries are cut by a ranking (docs/DESIGN.md §4.4), each step
// cutting one section in its own order down to a number of entries (or,
// for the carryover's floor, of runes), until it fits:
//
//	constraints → the typed ones and 4 of those said only in pasted
//	instructions (keptPastedConstraints), conversation tail → 0, middle
//	parts of long instructions → those of
//	the first and the latest, recall index → 0, replayed messages → 0,
//	files only read → 4, look-ups → 1 (a look-up can be run again; an
//	older one is the least likely to be what the work refers to now),
//	sub-agent reports → 0 (→ 1 when the newest came
//	after the assistant's last message: what it learned last, which no
//	other block says yet; unanswered), the carryover's steps
//	(messages that only announce the call after them; not the open
//	turn's newest keptOpenSteps, ranked with the other messages) → 0,
//	host summary → 6,
//	milestones → 8, recent actions → 14, carryover → 6000 runes
//	(carryFloor), files only read → 0, written files past the newest 6 →
//	their path and ops (shrink: keptDetailedFiles), the newest files'
//	last changes at length → 0, written files → 14, the files the
//	sessions before wrote → their path and ops,
//	host summary → 0, recent actions → 6, workarounds handed on → 0,
//	fixed failures → 0, middle
//	parts → 0 (a plan's with them), milestones → 3, sub-agent reports → 0, plan → 0 (not one approved to start the work), pasted
//	sessions' prompts → 0, look-ups → 0 (a look-up can be run again; the
//	carryover is the only account of what was found and chosen),
//	carryover → 4, the host's recap → 0, the user's words → 8, written files → 6,
//	the files the sessions before wrote → 0,
//	milestones → 0, failures an earlier generation handed on → 0,
//	declined calls → 0, calls in flight → 0,
//	unfinished todos → 0, Task Status todos → 0, recent actions → 0,
//	failures not fixed since → 0 (after the actions, whose lines point
//	at their errors there), written files → 0, carryover → 0, the user's words → 0, the plan
//	approved to start the work → 0, the first instruction → 0, constraints → 0, the last
//	assistant message → 0.
//
// Refill: the last cut frees a whole entry, often more than needed; the
// room left goes back to the entries cut, the latest cut first, each
// that fits, among the last refillTries (64) cuts (fit; of a section
// marked inOrder, the sub-agent reports, none cut before one that does
// not fit); then to the
// instructions answered since, at their longer length, and to the tail's
// outputs (section.grow).
//
// Within a section: oldest first, except Task Status todos (completed,
// then pending, then in progress), constraints (those said only in an
// instruction of pastedBytes = 3000 bytes or more first, a constraint
// handed on marked pasted among them, then the typed ones; newest first in
// each), recent
// actions (a successful call that a later successful one of the same tool
// ran again the same first, then reads, edits and searches (and shell
// commands that only read and printed nothing; one that acts ranks with
// the commands: actsQuietly), then failures
// a later run of the same call fixed, then commands, then milestones:
// commits, pushes, tracker updates, tests and builds; the 3 newest
// commands with an outcome last of all: actionCutOrder), the carryover (steps first; then entries older than the
// newest 60; then of those, marks of the user's turns and plain narration
// before those that report an outcome or a choice (isKeyLine,
// isDecision), answer a closed turn (its last message) or are one of the
// open turn's newest keptOpenSteps steps or its first message when that
// is no step (its plan: firstOpenMessage); the message a
// short latest instruction answers last of all), files (least recent first) and the host summary (its
// "Analysis:" notes and its code paragraphs — most lines fenced or
// indented six or more — first, then its paragraphs from the end).
// Marker lines, block labels, the anchor line and leftovers are never cut.
//
// Room the cuts leave goes to the tail: once no tail event was cut, its
// tool results show their outputs at tailGrownRunes (2000: the head and
// the end, clipHeadTail) instead of their last tailOutputRunes (600),
// newest first, each while the tape stays within the budget. The tail
// never quotes the notes a host adds to an output for its model
// (<system-reminder>…</system-reminder>).
//
// Each section that lost entries ends (or, when cut oldest
// first, starts) with one line
//
//	[cut: N <things>; recall seq=a..b]
//
// naming the seqs to recall (foreign sessions as "session <id> seq=a..b").
// When the parts never cut do not fit, Build returns ErrBudget. Each cut
// costs the same however many entries were cut before it, so a tape of
// 20,000 todos is cut in linear time.
//
// The Anchor + Hard Constraints block alone. A host that keeps only the
// first N characters of a hook's context (Qwen Code: 4,000 of PreCompact's)
// would cut the block mid-line. Builder.ConstraintsBlock gives the tape's
// block when it fits in N as the host counts (a length function: UTF-16
// code units, escapes), else the block rendered alone with its
// constraints cut by the same fit, in the section's own order, ending
// with its cut line; its marker line, anchor line and heading are never
// cut, and ErrBudget says when they do not fit.
//
// Constraints past the cap. No budget can show more than 7692 constraints:
// a constraint line is at least 13 runes with its newline ("- ", the
// text, at least a two-rune marker, " (seq 1)"), and MaxBudget is 100000.
// So the fold keeps the first MaxConstraints = 8000 distinct constraints, in the order
// they were first said, each with every origin it was said at. A
// constraint sentence that is none of them, said when the fold already
// holds 8000, is not kept: it is counted per session, with the lowest and
// highest seq it was said at (Tape.MoreConstraints, and the target's
// inherit.moreConstraints, so the next generation counts them too). Such
// sayings are not compared with each other, since their text is not kept:
// one said twice counts twice. They are cut before rendering: the
// constraints' cut line counts them with the constraints the budget cut
// and names their seqs,
//
//	[cut: N constraints; recall seq=a..b, session <id> seq=c..d]
//
// so a tape is the one an uncapped fold gave unless a constraint past the
// cap was said twice. An inherited list longer than the cap (a target
// written before it) is cut to it when the fold reads it, each constraint
// past it counted once per origin it lists. The review lists the kept
// constraints and, per session, "… N more, recall seq=a..b"; graft audit
// checks the kept ones and reports the others as not audited.
//
// # Hashes
//
// Each field is length-prefixed: 8 bytes big-endian length, then the bytes.
//
//	PrefixHash = "graft-prefix-v2:" + hex(sha256(LP("graft-prefix-v2") ‖ E(raw line) for each event with seq < BoundarySeq))
//	E(line)    = len(line) as 8 bytes big-endian ‖ XXH3-128(line) as 16 bytes big-endian (high half first)
//	LineDigest = "graft-line-v1:" + hex(E(raw line))
//	TapeHash   = "graft-tape-v2:" + hex(sha256(LP("graft-tape-v2") ‖ LP(sourceID) ‖ LP(generation) ‖
//	             LP(boundarySeq) ‖ LP(lastSeq) ‖ LP(tier) ‖ LP(recentTurns) ‖ LP(autoTier) ‖ LP(budget) ‖
//	             LP(prefixHash) ‖ LP(len(leftovers)) ‖ LP(target) LP(txn) LP(state) LP(reason)… ‖ LP(text)))
//
// graft-tape-v1 was the tape before issue 23 (no actions, no user's words
// past the latest 3, no model-written blocks). Targets written with it
// audit and graft on as before: the audit and the next fold read the
// target's graft/origin, never its tape text.
//
// The prefix hash detects any accidental change of the prefix: a log
// rewritten, truncated, re-imported or edited between prepare and commit.
// Each line goes through XXH3-128 (about 15 GB/s here) and only 24 bytes
// of it through sha256, so hashing a 1.2 GiB log costs about a tenth of a
// second instead of the second sha256 of every byte took (issue 9). It is
// not a seal against a forger who writes the log on purpose: whoever can
// write sessions/ can write catalog.db and index/ beside it, so nothing
// graft checks could hold one. graft-prefix-v1 was sha256 of LP(raw line)
// for each event; a review carrying it is refused at commit as expired
// (prepare again), and a scan-index snapshot of version 1 (holding v1 hash
// states) is not restored.
//
// What a target relies on (Tape.Relies, written into its graft/origin as
// relies, session/doc.go) uses the same definitions: the source's
// PrefixHash at BoundarySeq, the prefixes the source's own graft/origin
// relied on, and the LineDigest of every origin Inherit cites, taken from
// the human instruction's raw line when the fold first read it (a
// graft/origin hands its digests down). PrefixHasher recomputes a prefix
// hash for a known boundary, which is how graft audit checks them: any
// changed byte before a boundary, or in a cited line, changes a digest.
// The open turn (the boundary's instruction aside, when it is cited) is
// relied on by nothing.
//
// Numbers are decimal text; options are resolved first (tier "" is "A",
// budget 0 is 16000), so options meaning the same tape hash the same.
// Leftovers are sorted by target, then txn. The prefix hash state is saved
// at each human instruction, so it costs one pass: appending to the open
// turn changes TapeHash and the carryover, never PrefixHash.
package tape
