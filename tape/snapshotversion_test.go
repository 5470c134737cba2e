package tape

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/graft-project/graft/gen"
	"github.com/graft-project/graft/session"
)

// snapshotShapePath records what the fold of snapshotShapeSessions
// snapshots to under the current snapshotVersion.
var snapshotShapePath = filepath.Join("testdata", "snapshot-shape.golden")

// snapshotShapeSessions are folds whose snapshots stand for the fold's
// shape: sessions with outputs in hand (their key lines are kept in the
// fold, a terminal's control sequences stripped), a later generation, and
// generated ones. Each is named by its
// events' digest too, so that other events make another entry, not a
// changed one.
func snapshotShapeSessions(t *testing.T) map[string]*Builder {
	t.Helper()
	twice := "running 200 tests\ntest result: ok. 200 passed; 0 failed\nrunning 0 tests\ntest result: ok. 0 passed; 0 failed\nrunning 0 tests\ntest result: ok. 0 passed; 0 failed\nall doctests ran in 0.77s\n"
	sessions := map[string][]session.Event{
		"axis":    axisSession(),
		"tier":    tierSession(true, true),
		"release": releaseSession(),
		"key-lines-twice": seqd(
			human("Run the tests."),
			call("Bash", "b1", `{"command":"cargo test"}`),
			result("Bash", "b1", true, twice),
			say("All green."),
		),
		// Constraints past anchors.MaxRunes, one of them no words once cut.
		"capped-constraints": seqd(
			human(strings.Repeat("━", 400)+"必须保持API。You must keep "+strings.Repeat("every module's API ", 20)+"stable."),
			say("Understood."),
		),
		// A first instruction that is a long pasted log: its quote's cut
		// mark names the first error line of the cut.
		"pasted-log": seqd(
			human("it failed:\n"+strings.Repeat("npm notice packed dist/file.js\n", 60)+"npm error code EOTP\n"+strings.Repeat("npm notice detail\n", 60)+"fix it"),
			say("Looking."),
		),
		// A pasted screen whose prompts set no rule: no line digest is
		// kept for it (the agent's words on it say "must not").
		"pasted-screen": seqd(
			human("Ship the release."),
			say("ok"),
			human("Thinking: I must not bump the version.\n"+openCodeScreen([]string{"Continue please"}, 60)),
			say("ok"),
		),
		// Sayings with a marker that set no rule beside one that does.
		"sayings": seqd(
			human("maybe this should be 0.1.1. That's the only difference. Skip the ones that don't need it. I am now seeing it in the cli only.\n✅ No more retries\nNext required action:\nDon't touch the schema."),
			say("Noted."),
		),
		// A terminal's control sequences, which key lines go without.
		"terminal-escapes": seqd(
			human("Build it."),
			call("Bash", "b1", `{"command":"make"}`),
			result("Bash", "b1", true, "\x1b[1mbuilding\x1b(B\x1b[m\n\x1b[32mok\x1b[0m: 3 targets\nwarning: caf\x1bé menu\n"),
			say("Built."),
		),
		// A long plan and a long host summary, kept by head and end; a
		// failed test run whose first line is the runner's heading; a
		// host's own command before the first instruction; a local bound
		// in a method's body.
		"long-plan-summary-heading": seqd(
			human("/fast"),
			human("Plan the split."),
			call("ExitPlanMode", "x1", `{"plan":`+quoteJSON("# Plan\n"+strings.Repeat("- a step of the plan, at some length for the reader.\n", 200)+"## Verification\n- npm test")+`}`),
			result("ExitPlanMode", "x1", true, "User has approved your plan."),
			injected(session.KindSystem, "compact-summary", "Summary:\n"+strings.Repeat("3. Files: src/a.ts was read.\n\n", 500)+"9. Optional Next Step: run it."),
			call("Bash", "b1", `{"command":"pytest"}`),
			result("Bash", "b1", false, "===== test session starts =====\nE   AssertionError\nFAILED tests/test_a.py::test_a\nFAILED tests/test_b.py::test_b\n===== 2 failed =====\n"),
			call("Write", "w1", `{"file_path":"src/q.ts","content":"export class Q {\n  run() {\n    const tasks = [];\n  }\n}\n"}`),
			result("Write", "w1", true, "ok"),
			say("Two fail."),
		),
		// A command's text after the command the person typed (template.go),
		// a pull request's body (posted.go), a count of nothing.
		"command-text": seqd(
			human("/opsx:explore issues/532"),
			injected(session.KindSkill, "skill", exploreCommand),
			say("Reading the issue."),
			call("Bash", "p1", `{"command":"gh pr create --title t --body-file - <<'EOF'\n## Summary\n- x\nEOF"}`),
			result("Bash", "p1", true, "https://github.com/o/r/pull/1"),
			call("Bash", "c1", `{"command":"cargo test"}`),
			result("Bash", "c1", true, "running 3 tests\ntest result: ok. 3 passed; 0 failed\n\nrunning 0 tests\ntest result: ok. 0 passed; 0 failed\n"),
		),
		// A JSON object's long value clipped in place (jsonLine).
		"json-line": seqd(
			human("Check the PR."),
			call("Bash", "g1", `{"command":"gh pr view 5 --json body,state,url"}`),
			result("Bash", "g1", true, `{"body":"`+strings.Repeat("a long body ", 40)+`","state":"OPEN","url":"https://github.com/o/r/pull/5"}`+"\n"),
		),
		// A poll, then an interrupt of a long command (pollWhat keeps its
		// mark).
		"long-interrupt": seqd(
			human("Stop the watch."),
			withMeta(call("write_stdin", "w0", `{"session_id":7,"chars":""}`), "execCommand", "gh run watch "+strings.Repeat("--interval 30 ", 12)),
			result("write_stdin", "w0", true, "Process running with session ID 7\n"),
			withMeta(call("write_stdin", "w1", `{"session_id":7,"chars":"\u0003"}`), "execCommand", "gh run watch "+strings.Repeat("--interval 30 ", 12)),
			result("write_stdin", "w1", true, "Process exited with code 130\n"),
		),
		// A help request only reads: no action of Recent Actions, a
		// quiet one.
		"help": seqd(
			human("Close the window."),
			call("Bash", "h1", `{"command":"workmux close --help"}`),
			result("Bash", "h1", true, "Usage: workmux close [NAME]\n  -h, --help  Print help\n"),
		),
		// A pasted traceback drawn in a frame: its rows are output, no
		// constraint.
		"framed-paste": seqd(
			human("ldk dev fails:\n│   192 │   \"asyncio.run() cannot be called from a running event loop\")   │\nfix it"),
			say("Looking."),
		),
		// A failure whose error is an exception qualified by its module:
		// the exception is the error line the failure keeps.
		"qualified-exception": seqd(
			human("Check the schema."),
			call("Bash", "q1", `{"command":"python3 check.py"}`),
			result("Bash", "q1", false, "Exit code 1\nchecking\nTraceback (most recent call last):\n  File \"check.py\", line 3, in <module>\n    d = json.load(f)\n  File \"/usr/lib/python3/json/decoder.py\", line 363, in raw_decode\n    raise JSONDecodeError(\"Expecting value\", s, err.value) from None\njson.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)\nlast words of the script\nand more"),
		),
		// A chain's echoed headings above what it printed: the lines
		// under them are key lines, not the headings.
		"echoed-heading": seqd(
			human("Is it mergeable?"),
			call("Bash", "e1", `{"command":"echo '--- failures? ---'; gh pr checks 1 | grep fail; echo '--- checks ---'; gh pr checks 1"}`),
			result("Bash", "e1", true, "--- failures? ---\n--- checks ---\nbuild\tpass\t1m2s\nlint\tpass\t30s\n9 pass\n"),
		),
		// A status whose unmerged paths outnumber the room: git's state
		// above them is kept first.
		"git-state": seqd(
			human("Merge main."),
			call("Bash", "g1", `{"command":"git status"}`),
			result("Bash", "g1", true, "On branch work\nYou have unmerged paths.\n\nUnmerged paths:\n\tboth modified:   a.json\n\tboth modified:   b.json\n\tboth modified:   c.json\n\tdeleted by us:   D.md\n\tboth modified:   e.json\n"),
		),
		// A diff's hunks after a log: the code they add and remove is no
		// key line, the log's line is.
		"diff-hunk": seqd(
			human("What changed since the release?"),
			call("Bash", "d1", `{"command":"git log --oneline -1; git diff v1 -- release.ts"}`),
			result("Bash", "d1", true, "5be1b91 bun verify (#25)\ndiff --git a/release.ts b/release.ts\n@@ -5,3 +5,3 @@\n-\tfail(\"cannot resolve\")\n+\tlog.Errorf(\"failed: %v\", err)\n } finally {\n"),
		),
		// A command's template whose typed words run past the head a
		// long instruction keeps: the fold keeps them whole.
		"template-long": seqd(
			human(specKitTemplate(strings.Repeat("Bind port 1906 after the migrations. ", 80)+"Integration tests, NOT unit tests.", "The text the user typed is the feature description.", "1. Write the spec to specs/001/spec.md, one section of the template at a time.")),
			say("Spec written."),
		),
		// A command's template whose typed words run past the head the
		// first goal's quote keeps (maxQuoteRunes): the fold keeps them
		// whole there too.
		"template-first": seqd(
			human(specKitTemplate(strings.Repeat("Bind port 1906 after the migrations. ", 30)+"Integration tests, NOT unit tests.", "The text the user typed is the feature description.", "1. Write the spec to specs/001/spec.md, one section of the template at a time.")),
			say("Spec written."),
		),
		// A target of a graft: the person's instructions an earlier
		// generation handed on (inherit.said) come before its own.
		"said-inherit": seqd(
			origin(2, "g1", 40, &session.Inherited{
				FirstGoal: &session.Quote{Text: "Write the exporter.", Origin: session.Origin{Generation: 1, Session: "g1", Seq: 1}},
				Said:      []session.Quote{{Text: "Add a --json flag.", Origin: session.Origin{Generation: 1, Session: "g1", Seq: 9}}},
			}),
			human("Now write its tests."),
			say("Testing."),
		),
		// A target of a graft: the files an earlier generation wrote or
		// edited (inherit.files) are listed after its own.
		"files-inherit": seqd(
			origin(2, "g1", 40, &session.Inherited{
				Files: []session.FileNote{{Path: "export.go", Note: "write seq=7 (defines exportSessions)", Session: "g1", Generation: 1, Seq: 7}},
			}),
			human("Now write its tests."),
			call("Write", "w1", `{"file_path":"/r/export_test.go","content":"package main\n"}`),
			result("Write", "w1", true, "ok"),
		),
		// A target of a graft: the plan approved to start the work, an
		// earlier generation's task (inherit.plan), is its task still.
		"plan-inherit": seqd(
			origin(2, "g1", 40, &session.Inherited{
				Plan: &session.Passage{Text: "# Plan: Add the average resampler\n\n- Keep LTTB the default.\n", Origin: session.Origin{Generation: 1, Session: "g1", Seq: 1}},
			}),
			say("Continuing."),
		),
		// Codex's Plan mode: a plan proposed in a message, then left
		// Plan mode for (the person's yes).
		"codex-proposed-plan": seqd(
			codexMode("plan"),
			human("Plan the parser."),
			proposed("Here it is.\n\n", "# Parser plan\n\n1. Tokenise by hand.", ""),
			codexMode("default"),
			human("Implement the plan."),
		),
		// A target of a graft: where the work was done (inherit.place)
		// is where its files are, though its own events never say.
		"place-inherit": seqd(
			origin(2, "g1", 40, &session.Inherited{Place: &session.Place{Cwd: "/r", GitBranch: "hotfix"}}),
			call("Write", "w1", `{"file_path":"/r/export_test.go","content":"package main\n"}`),
			result("Write", "w1", true, "ok"),
		),
		// A target of a graft: the command's text the first instruction
		// ran, handed on with it (inherit.firstGoal command).
		"command-inherit": seqd(
			origin(2, "g1", 40, &session.Inherited{FirstGoal: &session.Quote{
				Text: "/opsx:explore issues/532", Origin: session.Origin{Generation: 1, Session: "g1", Seq: 1},
				Command: &session.CommandText{At: 2, First: "Autonomous research mode.", Rule: "Explore mode is for research and thinking, not implementing."},
			}}),
			say("Continuing."),
		),
		// A target of a graft: what the work reached the generation before
		// (inherit.milestones).
		"milestones-inherit": seqd(
			origin(2, "g1", 40, &session.Inherited{Milestones: []session.CallNote{
				{Tool: "Bash", What: "git push origin main", Text: "- seq=5 ok: $ git push origin main\n    → 9fd3c2a..1a2b3c4  main -> main", Origin: session.Origin{Generation: 1, Session: "g1", Seq: 5}},
			}}),
			say("Continuing."),
		),
		// A target of a graft: a short answer handed on with the option it
		// picks (inherit.said picks).
		"picks-inherit": seqd(
			origin(2, "g1", 40, &session.Inherited{Said: []session.Quote{{
				Text: "6", Origin: session.Origin{Generation: 1, Session: "g1", Seq: 3},
				Picks: &session.Picks{From: 2, Lines: []string{"6. **All of the above** in priority order?"}},
			}}}),
			say("Continuing."),
		),
		// A target of a graft: a failure the generation before worked
		// around another way (inherit.workarounds).
		"workarounds-inherit": seqd(
			origin(2, "g1", 40, &session.Inherited{Workarounds: []session.CallNote{
				{Tool: "Bash", What: "git commit -m x", Text: "- seq=3 FAILED: $ git commit -m x\n    → error: gpg failed to sign the data:\n    fixed by seq=5: git commit --no-gpg-sign -m x", Origin: session.Origin{Generation: 1, Session: "g1", Seq: 3}},
			}}),
			say("Continuing."),
		),
		// A target of a graft: a failed call the generation before left
		// unfixed (inherit.failures).
		"failures-inherit": seqd(
			origin(2, "g1", 40, &session.Inherited{Failures: []session.CallNote{
				{Tool: "Bash", What: "npm run build", Text: "- seq=9 FAILED: $ npm run build\n    → TypeError: x is not a function", Origin: session.Origin{Generation: 1, Session: "g1", Seq: 9}},
			}}),
			call("Bash", "b1", `{"command":"npm run build"}`),
			result("Bash", "b1", true, "built"),
		),
		// A target of a graft: the plan the person approved in plan mode
		// the generation before, not the work's task (inherit.approvedPlan).
		"approved-plan-inherit": seqd(
			origin(2, "g1", 40, &session.Inherited{
				ApprovedPlan: &session.Passage{Text: "# Plan: Add OpenCode and Codex\n\nStep 1.\n", Origin: session.Origin{Generation: 1, Session: "g1", Seq: 7}},
			}),
			say("Continuing."),
		),
		// A target of a graft: the work's last todo list, which its own
		// events never write (inherit.todos).
		"todos-inherit": seqd(
			origin(2, "g1", 40, &session.Inherited{Todos: &session.TodoList{
				Items:  []session.Todo{{ID: "1", Content: "Add the resampler", Status: "completed"}, {ID: "2", Content: "Wire the flag", Status: "in_progress"}},
				Origin: session.Origin{Generation: 1, Session: "g1", Seq: 12},
			}}),
			say("Continuing."),
		),
		// Codex's shell_command output opens with a header of its own
		// ("Exit code: N", "Wall time: …", "Output:"): the tail's text and
		// a look-up's head the fold keeps are the command's output.
		"shell-command-header": seqd(
			human("Find the handler."),
			call("shell_command", "c1", `{"command":"rg -n handleLogin"}`), result("shell_command", "c1", true, "Exit code: 0\nWall time: 0.1 seconds\nOutput:\nsrc/auth.go:12:func handleLogin() {}\n"),
			call("shell_command", "c2", `{"command":"ls"}`), result("shell_command", "c2", true, "Exit code: 0\nWall time: 0.1 seconds\nOutput:\nsrc\n"),
		),
		// An output that is one JSON document with escaped text: the
		// tail's text and a look-up's head the fold keeps are the text it
		// holds (jsonText).
		"json-output": seqd(
			human("Read the body of pull request 42."),
			call("shell_command", "c1", `{"command":"gh pr view 42 --json body"}`), result("shell_command", "c1", true, `{"body":"## Summary\n\n- Add the \"OIDC\" issuer.","number":42}`),
		),
		// A review thread whose title runs past a key line: the title is
		// clipped, the thread's id kept.
		"review-thread-long": seqd(
			human("Address the PR feedback."),
			call("shell_command", "c1", `{"command":"python3 fetch_comments.py"}`), result("shell_command", "c1", true, `{"review_threads":[{"id":"PRRT_2","isResolved":false,"path":"b.rs","line":9,"comments":{"nodes":[{"body":"### `+strings.Repeat("A finding with a long title ", 10)+`","author":{"login":"cursor"}}]}}]}`),
		),
		// Comments slimmed with --jq: one a line, the author a string or
		// left out.
		"review-jq": seqd(
			human("Address the PR feedback."),
			call("Bash", "c1", `{"command":"gh api repos/o/r/pulls/7/comments --jq '.[] | {path, line, user: .user.login, body}'"}`), result("Bash", "c1", true, `{"path":"a.go","line":3,"user":"rev","body":"**Close the file.**"}`+"\n"+`{"path":"b.go","line":9,"body":"### Guard the map"}`),
		),
		// Russian "не" before a report: no constraint.
		"russian-report": seqd(
			human("Ну не работает ничего. Не коммить секреты."),
		),
		// Pasted errors, banners and table rows: no constraints.
		"pasted-errno": seqd(
			human("it still fails:\nls: cannot access 'ws/': No such file or directory\n*** System restart required ***\nAgent only responds when you message it\tCron — the agent can act on a schedule\nYou must fix it."),
		),
		// A job's raw log: the runner's timestamp before each message.
		"actions-raw-log": seqd(
			human("Why did the job fail?"),
			call("Bash", "c1", `{"command":"gh api repos/o/r/actions/jobs/9/logs"}`), result("Bash", "c1", true, "2026-07-16T04:04:32.6845218Z hk ERROR To fix, run: hk fix -S pkl-format\n2026-07-16T04:04:32.6960656Z ##[error]Process completed with exit code 11.\n2026-07-16T04:04:32.7063177Z Post job cleanup."),
		),
		// A check's count before the paths git status names after it.
		"count-before-paths": seqd(
			human("Validate, then restore."),
			call("Bash", "c1", `{"command":"openspec validate --all; git status --short"}`), result("Bash", "c1", true, "Totals: 20 passed, 5 failed (25 items)\nA  a/proposal.md\nA  a/tasks.md\n D b/proposal.md\n D b/tasks.md"),
		),
		// A release's URL among its uploads: a key line.
		"release-url": seqd(
			human("Release it."),
			call("Bash", "c1", `{"command":"gh release create v1.4.0 dist/*"}`), result("Bash", "c1", true, "Uploading a.tar.gz\nUploading b.tar.gz\nhttps://github.com/o/app/releases/tag/v1.4.0\nUploading c.zip\nUploading d.zip\nupload complete"),
		),
		// A PR inspector's review threads after its own lines: each is its
		// first comment with the thread's id and state.
		"review-thread": seqd(
			human("Address the PR feedback."),
			call("shell_command", "c1", `{"command":"python3 fetch_comments.py"}`), result("shell_command", "c1", true, "Script completed\nOutput:\n"+`{"review_threads":[{"id":"PRRT_1","isResolved":false,"path":"a.rs","line":3,"comments":{"nodes":[{"body":"### Handle the error","author":{"login":"cursor"}}]}}]}`),
		),
		// A GitHub Actions log (gh run view --log-failed): its key lines
		// are read by their messages (actionsLogMessage).
		"actions-log": seqd(
			human("The CI failed, fix it."),
			call("Bash", "c1", `{"command":"gh run view 7 --log-failed"}`), result("Bash", "c1", true, "lint\tGolang CI\t2026-07-23T15:20:36.2962000Z src/a.go:4:2: ineffectual assignment to err (ineffassign)\nlint\tComplete job\t2026-07-23T15:20:37.5000000Z Cleaning up orphan processes"),
		),
		// A fetch of a pull request's review comments: its key lines are
		// the comments (reviewCommentLines), which the fold keeps for an
		// output in hand.
		"review-comments": seqd(
			human("Address the PR feedback."),
			call("Bash", "c1", `{"command":"gh api repos/o/r/pulls/7/comments"}`), result("Bash", "c1", true, `[{"path":"a.go","line":3,"user":{"login":"rev"},"body":"**Handle the error.**\n\n`+"```diff\\n-x\\n```"+`"}]`),
		),
		// A file PowerShell writes from a here-string (Set-Content,
		// Out-File, Add-Content): a file write, as a here-document's.
		"powershell-write": seqd(
			human("Write the audit script."),
			call("run_shell_command", "c1", "{\"command\":\"$c = @'\\ndef main():\\n    pass\\n'@\\n$c | Set-Content C:\\\\w\\\\audit.py\"}"), result("run_shell_command", "c1", true, "Output: (empty)"),
		),
		// Qwen Code before 0.13 reads a file by absolute_path: a file
		// Workspace Files names, and the call's what.
		"read-absolute-path": seqd(
			human("Look at the sidebar."),
			call("read_file", "r1", `{"absolute_path":"/repo/site/sidebars.js"}`), result("read_file", "r1", true, "module.exports = {};"),
		),
		// A command's text with the YAML front matter of its file (Qwen
		// Code 0.5.0): the line the Goal shows is its description.
		"command-front-matter": seqd(
			human("/sp.plan a plan for the book"),
			injected(session.KindSkill, "command", "---\ndescription: Execute the planning workflow.\n---\n\nYou **MUST** consider the user input."),
			say("Planning."),
		),
		// A target of a graft: the commit the work started at, which
		// its own events never name (inherit.place gitCommit).
		"commit-inherit": seqd(
			origin(2, "g1", 40, &session.Inherited{Place: &session.Place{Cwd: "/r", GitBranch: "hotfix", GitCommit: "2ac98e0c1d2e3f405162738495a6b7c8d9e0f1a2"}}),
			say("Continuing."),
		),
		// A target of a graft: a constraint the generation before read in
		// a paste alone is handed on marked pasted, and ranked so.
		"pasted-inherit": seqd(
			origin(2, "g1", 40, &session.Inherited{Constraints: []session.Constraint{
				{Text: "Principles must be declarative.", Origin: session.Origin{Generation: 1, Session: "g1", Seq: 4}, Pasted: true},
				{Text: "Never touch prod.go.", Origin: session.Origin{Generation: 1, Session: "g1", Seq: 9}},
			}}),
			say("Continuing."),
		),
		// A target of a graft: the assistant's messages of the work
		// before (inherit.messages) come before its own in the Breakpoint.
		"messages-inherit": seqd(
			origin(2, "g1", 40, &session.Inherited{Messages: []session.Passage{
				{Text: "We chose SQLite: the deployment is a single node.", Origin: session.Origin{Generation: 1, Session: "g1", Seq: 12}},
			}}),
			say("Continuing."),
		),
		// A target of a graft: the person's answer to the assistant's
		// question an earlier generation handed on (inherit.said, answer).
		"answer-inherit": seqd(
			origin(2, "g1", 40, &session.Inherited{Said: []session.Quote{
				{Text: `"What should happen to the hooks?"="Leave it alone"`, Origin: session.Origin{Generation: 1, Session: "g1", Seq: 12}, Answer: true},
			}}),
			say("Continuing."),
		),
		// A target of a graft whose own instructions push those handed on
		// out of the last keptHumans: counted per session.
		"said-inherit-let-go": func() []session.Event {
			evs := []session.Event{origin(2, "g1", 40, &session.Inherited{Said: []session.Quote{
				{Text: "Keep the CSV export.", Origin: session.Origin{Generation: 1, Session: "g1", Seq: 5}},
			}})}
			for k := range keptHumans {
				evs = append(evs, human(fmt.Sprintf("Part %d.", k)))
			}
			return seqd(evs...)
		}(),
		// A target of a graft: the prompts of a session pasted into the
		// first goal an earlier generation handed on (inherit.prompts).
		"prompts-inherit": seqd(
			origin(2, "g1", 40, &session.Inherited{
				FirstGoal: &session.Quote{Text: "(a pasted session) … Continue please", Origin: session.Origin{Generation: 1, Session: "g1", Seq: 1}},
				Prompts:   []session.Quote{{Text: "Why does it still say V2?\nPublish it.", Origin: session.Origin{Generation: 1, Session: "g1", Seq: 1}}},
			}),
			say("Continuing."),
		),
		// A module written whole with more definitions than the outline
		// once named: the fold keeps up to maxSymbols of them.
		"outline": seqd(
			human("Write the module."),
			call("Write", "w1", `{"file_path":"/r/m.py","content":"def a_1():\n    pass\ndef a_2():\n    pass\ndef a_3():\n    pass\ndef a_4():\n    pass\ndef a_5():\n    pass\ndef a_6():\n    pass\ndef a_7():\n    pass\ndef a_8():\n    pass\n"}`),
			result("Write", "w1", true, "ok"),
		),
	}
	for _, o := range []gen.Options{{Turns: 3, Events: 60, Seed: 7}, {Turns: 12, Events: 800, Seed: 3}} {
		name := fmt.Sprintf("gen-%d-%d-%d", o.Turns, o.Events, o.Seed)
		if err := gen.Generate(o, func(ev *session.Event) error {
			sessions[name] = append(sessions[name], *ev)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	out := map[string]*Builder{}
	for name, evs := range sessions {
		h := sha256.New()
		for k := range evs {
			h.Write(rawLine(t, &evs[k]))
			h.Write([]byte("\n"))
		}
		out[fmt.Sprintf("%s@%x", name, h.Sum(nil)[:6])] = fold(t, name, evs)
	}
	return out
}

// snapshotShape is the golden's text: the version, then each fold's name
// and the sha256 of its snapshot.
func snapshotShape(t *testing.T) string {
	t.Helper()
	folds := snapshotShapeSessions(t)
	var names []string
	for name := range folds {
		names = append(names, name)
	}
	slices.Sort(names)
	var b strings.Builder
	fmt.Fprintf(&b, "version %d\n", snapshotVersion)
	for _, name := range names {
		snap, err := folds[name].Snapshot()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sum := sha256.Sum256(snap)
		fmt.Fprintf(&b, "%s %s\n", name, hex.EncodeToString(sum[:]))
	}
	return b.String()
}

// A snapshot restored by a build of another fold gives another tape than a
// fold from the start (TestSnapshotRestoreAtEveryEvent holds only within
// one build): a change to what the fold keeps must come with a new
// snapshotVersion, by which Restore refuses the old snapshots. The golden
// records the snapshots of fixed folds under the version. When one of them
// changes and the version has not, the test fails, and -update will not
// record it under the old version (a fold added to snapshotShapeSessions,
// or one of other events, is a new entry and is recorded). 157dfcb changed the
// key lines the fold keeps, and no test asked for the version it needed
// (bfd04f2).
func TestASnapshotOfAnotherShapeHasAnotherVersion(t *testing.T) {
	got := snapshotShape(t)
	data, err := os.ReadFile(snapshotShapePath)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	want := string(data)
	if want == got {
		return
	}
	if version := fmt.Sprintf("version %d\n", snapshotVersion); strings.HasPrefix(want, version) {
		recorded := map[string]string{}
		for _, l := range strings.Split(strings.TrimPrefix(want, version), "\n") {
			if name, sum, ok := strings.Cut(l, " "); ok {
				recorded[name] = sum
			}
		}
		for _, l := range strings.Split(strings.TrimPrefix(got, version), "\n") {
			if name, sum, ok := strings.Cut(l, " "); ok && recorded[name] != "" && recorded[name] != sum {
				t.Fatalf("the snapshot of the fold %q changed and snapshotVersion is still %d: a snapshot of the old fold would restore to another tape. Bump snapshotVersion (tape/builder.go, with its note), then run go test ./tape -run TestASnapshotOfAnotherShapeHasAnotherVersion -update", name, snapshotVersion)
			}
		}
	}
	if !*update {
		t.Fatalf("%s does not record the snapshots of version %d:\n%s\nrun go test ./tape -run TestASnapshotOfAnotherShapeHasAnotherVersion -update", snapshotShapePath, snapshotVersion, got)
	}
	if err := os.WriteFile(snapshotShapePath, []byte(got), 0o644); err != nil {
		t.Fatal(err)
	}
}
