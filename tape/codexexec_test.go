package tape

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/graft-project/graft/session"
)

// Codex's unified exec (exec_command, write_stdin; seen in rollouts of
// Codex 0.114 and 0.120, and in the strings of the pinned 0.171) opens
// every output with a header of its own: "Chunk ID: …", "Wall time: …",
// "Process exited with code N" or "Process running with session ID N",
// "Original token count: …", "Output:". Those lines are the host's, not
// the command's: no key line, no line of a failure shown.
func TestCodexExecHeaderIsNoKeyLine(t *testing.T) {
	out := "Chunk ID: 2aa4dd\nWall time: 12.0015 seconds\nProcess exited with code 1\nOriginal token count: 50\nOutput:\n" +
		"Running 40 tests using 1 worker\n  ✘ e2e/heatmap.spec.ts:22 displays split cells (5.1s)\n  3 failed\n  37 passed (1.2m)\n"
	got := strings.Join(keyLines(out, false), "\n")
	for _, h := range []string{"Chunk ID", "Wall time", "Process exited", "Original token count", "Output:"} {
		if strings.Contains(got, h) {
			t.Fatalf("key lines hold the header's %q:\n%s", h, got)
		}
	}
	if !strings.Contains(got, "37 passed") {
		t.Fatalf("key lines lack the verdict:\n%s", got)
	}
	for _, l := range []string{"Process running with session ID 61221", "Exit code: 1", "Process exited with code 0"} {
		if !wrapperLine(l) && !noiseLine(l) {
			t.Errorf("%q is taken for a line of the command's", l)
		}
	}
}

// A write_stdin call polls (or feeds, or interrupts) a command exec_command
// left running ("Process running with session ID N"; the importer names
// it in meta execCommand): it is that command's outcome, named by the
// command: the last poll's verdict is the run's (and an older poll is cut
// before it: superseded).
func TestAPollOfARunningCommandIsThatCommand(t *testing.T) {
	running := "Chunk ID: b930ab\nWall time: 1.0015 seconds\nProcess running with session ID 61221\nOriginal token count: 10\nOutput:\nRunning 40 tests using 1 worker\n"
	cmd := "pnpm exec playwright test --project=group4"
	done := "Chunk ID: c1\nWall time: 30.0 seconds\nProcess exited with code 0\nOriginal token count: 12\nOutput:\n  40 passed (1.2m)\n"
	b := fold(t, "s", seqd(human("Run group 4."),
		call("exec_command", "e1", `{"cmd":"`+cmd+`","yield_time_ms":1000}`), result("exec_command", "e1", true, running),
		withMeta(call("write_stdin", "w1", `{"session_id":61221,"chars":"","yield_time_ms":30000}`), "execCommand", cmd), result("write_stdin", "w1", true, running),
		withMeta(call("write_stdin", "w2", `{"session_id":61221,"chars":"","yield_time_ms":30000}`), "execCommand", cmd), result("write_stdin", "w2", true, done),
		call("write_stdin", "w3", `{"session_id":99,"chars":"\u0003"}`), result("write_stdin", "w3", true, "Chunk ID: d\nWall time: 0 seconds\nProcess exited with code 130\nOutput:\n"),
	))
	tp, err := b.Build(Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := blockText(t, tp, "Recent Actions")
	if !strings.Contains(a, "write_stdin ok: pnpm exec playwright test --project=group4\n    → 40 passed (1.2m)") {
		t.Fatalf("the last poll is not shown as the command's outcome:\n%s", a)
	}
	var polls []action
	for _, x := range b.actions() {
		if x.Tool == "write_stdin" {
			polls = append(polls, x)
		}
	}
	if len(polls) != 3 || !superseded(polls)[0] || superseded(polls)[1] {
		t.Fatalf("polls %+v: the older poll of the run should be superseded by the newer", polls)
	}
	if !strings.Contains(a, "write_stdin ok: session 99 (^C)") {
		t.Fatalf("an interrupt of an unknown session is not named:\n%s", a)
	}
}

// A terminal's control sequences (colours, cursor moves: "\x1b[0;32m",
// "\x1b[1A\x1b[2K") are no text: key lines, a failure's lines and the
// tail's outputs are shown without them.
func TestTerminalControlSequencesAreNoText(t *testing.T) {
	out := "\x1b[1A\x1b[2K[3/40] [chromium] › e2e/a.spec.ts:63:7 › works\n\x1b[0;32mPassed: 40\x1b[0m | Failed: 0 | \x1b]8;;https://x\x07link\x1b]8;;\x07\n  40 passed (1.2m)\n"
	for _, l := range keyLines(out, true) {
		if strings.ContainsAny(l, "\x1b\x07") || strings.Contains(l, "[0;32m") || strings.Contains(l, "[2K") {
			t.Fatalf("key line %q holds a control sequence", l)
		}
	}
	if got := stripANSI("\x1b[0;32mPassed: 40\x1b[0m | \x1b]8;;https://x\x07link\x1b]8;;\x07 [ok]"); got != "Passed: 40 | link [ok]" {
		t.Fatalf("stripANSI = %q", got)
	}
	// An escape of its own ("\x1bM") goes with its final byte, one that
	// picks a character set ("\x1b(B": tput sgr0 prints it) with its
	// intermediate bytes too; an ESC before a rune of more than one byte
	// (a garbled sequence) goes alone: cutting the rune's first byte with
	// it left bytes that are no UTF-8 in the tape (found by FuzzBuild).
	for in, want := range map[string]string{"\x1b\uFFFD00": "\uFFFD00", "a\x1bé b": "aé b", "\x1b日本": "日本", "\x1bMup": "up", "\x1b(B\x1b[mdone": "done", "\x1b)0x": "x"} {
		if got := stripANSI(in); got != want || !utf8.ValidString(got) {
			t.Errorf("stripANSI(%q) = %q, want %q", in, got, want)
		}
	}
	for _, l := range outputLines(out, lastFailureRunes, 3, nil) {
		if strings.ContainsAny(l, "\x1b\x07") {
			t.Fatalf("failure line %q holds a control sequence", l)
		}
	}
	if w := newOutputWindow(out, 3); strings.ContainsAny(w.whole+w.head+w.end, "\x1b\x07") {
		t.Fatalf("tail output %q holds a control sequence", w.whole)
	}
}

// The unified-exec header, with the "Command: …" line Codex 0.115 opens it
// with, is taken off an output before the tape reads it: a look-up's head
// starts with the command's own output.
func TestALookUpShowsTheOutputNotTheExecHeader(t *testing.T) {
	out := "Command: /usr/bin/zsh -lc \"git diff -- seeds/a-hi-IN.cjs\"\nChunk ID: 59b319\nWall time: 0.8412 seconds\nProcess exited with code 0\nOriginal token count: 1028\nOutput:\ndiff --git a/seeds/a-hi-IN.cjs b/seeds/a-hi-IN.cjs\n-  area: 'x',\n+  area: 'y',\n"
	if got := outputBody(out); !strings.HasPrefix(got, "diff --git") {
		t.Fatalf("outputBody = %q", got)
	}
	if got := outputBody("plain\nOutput:\nmore"); got != "plain\nOutput:\nmore" {
		t.Fatalf("an output without the header changed: %q", got)
	}
	if got := refText(out); !strings.HasPrefix(got, "diff --git") {
		t.Fatalf("refText = %q", got)
	}
	for _, l := range keyLines(out, true) {
		if strings.HasPrefix(l, "Command: ") {
			t.Fatalf("key line %q is the header's", l)
		}
	}
}

// Codex's request_user_input (its tool to ask the person; seen in a Codex
// 0.114 rollout and in the pinned 0.171's tool list) carries the person's
// own choice: the Goal quotes it with the user's words, as it quotes
// Claude Code's AskUserQuestion answer.
func TestCodexRequestUserInputAnswerIsTheUsers(t *testing.T) {
	tp := build(t, "s", seqd(human("Write the memo."),
		call("request_user_input", "q1", `{"questions":[{"id":"deliverable_shape","question":"How should the evidence be published?"}]}`),
		result("request_user_input", "q1", true, `{"answers":{"deliverable_shape":{"answers":["Standalone delta (Recommended)"]}}}`),
	), Options{}, nil)
	if g := blockText(t, tp, "Goal"); !strings.Contains(g, "Standalone delta (Recommended)") || !strings.Contains(g, "The user's answer") {
		t.Fatalf("Goal lacks the person's answer:\n%s", g)
	}
}

// Codex cuts a long output for its model to its head and end after a
// line of its own, "Total output lines: N" (codex-rs's
// formatted_truncate_text, and format_exec_output's section between
// "Wall time" and "Output:"): the host's count, not the command's words,
// so no key line and no line of a failure shown.
func TestCodexTruncationHeaderIsNoLineOfTheOutput(t *testing.T) {
	out := "Total output lines: 711\n\n> ship@0.0.0 build /w\n> tsc\n\nsrc/a.ts(3,1): error TS2304: Cannot find name 'x'.\n"
	tp := build(t, "s", seqd(human("Build it."), call("shell", "s1", `{"command":["bash","-lc","pnpm build"]}`), result("shell", "s1", false, out)), Options{}, nil)
	for _, title := range []string{"Recent Actions", "Pending State"} {
		blk := blockText(t, tp, title)
		if strings.Contains(blk, "Total output lines") {
			t.Errorf("%s shows Codex's truncation header:\n%s", title, blk)
		}
		// Recent Actions shows the rest of a failure Pending State lists
		// (TestAFailureIsQuotedOnce).
		if want := map[string]string{"Recent Actions": "seq=3 FAILED: $ pnpm build\n    → > tsc", "Pending State": "error TS2304"}[title]; !strings.Contains(blk, want) {
			t.Errorf("%s lacks %q:\n%s", title, want, blk)
		}
	}
	if !noiseLine("Total output lines: 42") {
		t.Error(`"Total output lines: 42" is taken for a line of the command's`)
	}
}

// A failed command that printed nothing (a linter exiting 1 mutely) has
// an output of Codex's header alone: the failure shows no line of it, not
// the header's first ("Chunk ID: …"), which the fold keeps of a failure's
// output when its body is empty.
func TestAnEmptyFailureShowsNoHeaderLine(t *testing.T) {
	empty := "Chunk ID: 3ebadd\nWall time: 0.0000 seconds\nProcess exited with code 1\nOriginal token count: 0\nOutput:\n"
	tp := build(t, "s", seqd(human("Lint it."),
		call("exec_command", "e1", `{"cmd":"make lint"}`), result("exec_command", "e1", false, empty),
		say("Lint failed without a word.")), Options{}, nil)
	for _, title := range []string{"Recent Actions", "Pending State"} {
		if blk := blockText(t, tp, title); strings.Contains(blk, "Chunk ID") {
			t.Errorf("%s shows Codex's header as the failure's line:\n%s", title, blk)
		}
	}
	if !strings.Contains(blockText(t, tp, "Pending State"), "make lint") {
		t.Errorf("Pending State lacks the failure:\n%s", blockText(t, tp, "Pending State"))
	}
}

// A search that printed nothing (rg and grep exit 1 on no match) found
// nothing; it did not fail, and a later search with other flags did not
// work around it: Pending State lists no such "fixed failure" (it had
// given three of its four to rg finding nothing in one Codex session).
// A search that printed an error stays a failure.
func TestASearchThatFoundNothingIsNoFixedFailure(t *testing.T) {
	empty := "Chunk ID: 3ebadd\nWall time: 0.0000 seconds\nProcess exited with code 1\nOriginal token count: 0\nOutput:\n"
	okOut := "Chunk ID: 1\nWall time: 0 seconds\nProcess exited with code 0\nOriginal token count: 9\nOutput:\nsrc/a.rs\n"
	bad := "Chunk ID: 2\nWall time: 0 seconds\nProcess exited with code 2\nOriginal token count: 9\nOutput:\nrg: src/config: No such file or directory (os error 2)\n"
	tp := build(t, "s", seqd(human("Find the provider."),
		call("exec_command", "e1", `{"cmd":"rg -n PasswordStore crates"}`), result("exec_command", "e1", false, empty),
		call("exec_command", "e2", `{"cmd":"rg --files crates"}`), result("exec_command", "e2", true, okOut),
		call("exec_command", "e3", `{"cmd":"rg -n store_dir src/config"}`), result("exec_command", "e3", false, bad),
		call("exec_command", "e4", `{"cmd":"rg --files src"}`), result("exec_command", "e4", true, okOut),
		say("Found it.")), Options{}, nil)
	blk := blockText(t, tp, "Pending State")
	if strings.Contains(blk, "rg -n PasswordStore crates") {
		t.Errorf("Pending State lists a search that found nothing as a fixed failure:\n%s", blk)
	}
	if !strings.Contains(blk, "rg -n store_dir src/config") || !strings.Contains(blk, "No such file or directory") {
		t.Errorf("Pending State lacks the search that failed:\n%s", blk)
	}
}

// Gemini CLI's ask_user (0.61: its result is {"answers": …}) and Qwen
// Code's ask_user_question (0.24: "User has provided the following
// answers: …") carry the person's own choices, as Claude Code's
// AskUserQuestion and Codex's request_user_input do: the Goal quotes them
// as the user's answers (the tools and their results' text are in the
// pinned hosts' bundles).
func TestEveryHostsQuestionToolAnswerIsTheUsers(t *testing.T) {
	for _, c := range []struct{ tool, input, output, answer string }{
		{"ask_user", `{"questions":[{"question":"Which database?","options":[{"label":"Postgres"},{"label":"SQLite"}]}]}`, `{"answers":{"0":"SQLite for now"}}`, "SQLite for now"},
		{"ask_user_question", `{"questions":[{"header":"Database","question":"Which database?","options":[{"label":"Postgres"},{"label":"SQLite"}]}]}`, "User has provided the following answers:\n\n**Database**: SQLite for now", "SQLite for now"},
	} {
		tp := build(t, "s", seqd(human("Set up the store."),
			call(c.tool, "q1", c.input), result(c.tool, "q1", true, c.output), say("Going with it.")), Options{}, nil)
		if g := blockText(t, tp, "Goal"); !strings.Contains(g, c.answer) || !strings.Contains(g, "The user's answer") {
			t.Errorf("%s: the Goal lacks the person's answer:\n%s", c.tool, g)
		}
	}
}

// A wait on a cell (Codex's code mode: a script still running when its
// exec call yielded) is the outcome of the command that script runs,
// named by it (meta execCommand, from the importer), as a poll is; by
// the session the cell's script polls when only that is known (meta
// execSession); a wait on a cell nobody named is "cell N".
func TestAWaitOnACellIsTheCommandItWaitsFor(t *testing.T) {
	cmd := "cargo test step::batching"
	tp := build(t, "s", seqd(human("Run the tests."),
		withMeta(call("exec_command", "e1", `{"cmd":"`+cmd+`","yield_time_ms":10000}`), "viaTool", "exec"), result("exec_command", "e1", true, ""),
		withMeta(call("wait", "w1", `{"cell_id":"18","yield_time_ms":1000,"max_tokens":30000}`), "execCommand", cmd), result("wait", "w1", false, "test result: FAILED. 3 passed; 1 failed"),
		call("wait", "w2", `{"cell_id":"21","yield_time_ms":1000}`), result("wait", "w2", true, "done"),
		withMeta(call("wait", "w3", `{"cell_id":"308","yield_time_ms":30000}`), "execSession", "84530"), result("wait", "w3", true, "✓ Complete job"),
	), Options{}, nil)
	a := blockText(t, tp, "Recent Actions")
	for _, want := range []string{"wait FAILED: cargo test step::batching", "wait ok: cell 21", "wait ok: session 84530"} {
		if !strings.Contains(a, want) {
			t.Errorf("Recent Actions lacks %q:\n%s", want, a)
		}
	}
	if p := blockText(t, tp, "Pending State"); !strings.Contains(p, "cargo test step::batching") || !strings.Contains(p, "1 failed") {
		t.Errorf("Pending State does not name the failed run by its command:\n%s", p)
	}
}

// A shell command whose result says nothing of how it ended (no ok:
// Codex's code mode, a script that printed only the command's output) is
// not shown as a success: its line says "ran"; one still running when
// its call returned (meta execRunning, Codex's unified exec) "running".
// The block's head says what both mean. A command the host reported is
// "ok" or "FAILED" as before.
func TestACommandWhoseExitIsNotReportedRan(t *testing.T) {
	unreported := func(id, out string, meta ...string) session.Event {
		ev := result("exec_command", id, true, out)
		ev.Tool.OK = nil
		for k := 0; k+1 < len(meta); k += 2 {
			ev = withMeta(ev, meta[k], meta[k+1])
		}
		return ev
	}
	tp := build(t, "s", seqd(human("Build and test."),
		call("exec_command", "c1", `{"cmd":"cargo fmt --all && cargo check"}`), unreported("c1", "error[E0308]: mismatched types\n --> src/step/runner.rs:341:59"),
		call("exec_command", "c2", `{"cmd":"pnpm test"}`), unreported("c2", "Chunk ID: 1\nWall time: 1.0 seconds\nProcess running with session ID 7\nOriginal token count: 3\nOutput:\nRUNS 3 suites\n", "execRunning", "7"),
		call("exec_command", "c3", `{"cmd":"git status --short"}`), result("exec_command", "c3", true, " M a.go"),
	), Options{}, nil)
	a := blockText(t, tp, "Recent Actions")
	for _, want := range []string{"ran: $ cargo fmt --all && cargo check", "running: $ pnpm test", "ok: $ git status --short", "Ran: its exit not reported.", "Running: not done when its call returned."} {
		if !strings.Contains(a, want) {
			t.Errorf("Recent Actions lacks %q:\n%s", want, a)
		}
	}
	if strings.Contains(a, "ok: $ cargo fmt") || strings.Contains(a, "ok: $ pnpm test") {
		t.Errorf("a command whose exit was not reported is shown as ok:\n%s", a)
	}
}

// Codex's shell_command (the tool of the rollouts before unified exec)
// opens its output with a header of its own too: "Exit code: N", "Wall
// time: …", "Output:". The Conversation Tail quotes an output's end and a
// look-up its head: both the command's, not the host's header
// (whether it failed the tail says by "(failed)").
func TestAShellCommandOutputIsQuotedWithoutItsHeader(t *testing.T) {
	out := "Exit code: 0\nWall time: 0.1 seconds\nOutput:\nbackend\nfrontend\n"
	if got := outputBody(out); got != "backend\nfrontend\n" {
		t.Fatalf("outputBody = %q", got)
	}
	if w := newOutputWindow(out, 6); w.whole != "backend\nfrontend" {
		t.Fatalf("the tail quotes %q", w.whole)
	}
	for _, plain := range []string{"Exit code: 3\nthe program's own line\nOutput:\nmore", "Exit code: 0"} {
		if got := outputBody(plain); got != plain {
			t.Fatalf("an output without the header changed: %q → %q", plain, got)
		}
	}
	b := fold(t, "s", seqd(human("List the folders."),
		call("shell_command", "c1", `{"command":"ls"}`), result("shell_command", "c1", true, out)))
	tp, err := b.Build(Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tail := blockText(t, tp, "Conversation Tail"); strings.Contains(tail, "Wall time") || !strings.Contains(tail, "backend") {
		t.Fatalf("the tail quotes the header or not the output:\n%s", tail)
	}
}
