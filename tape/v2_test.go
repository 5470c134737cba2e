package tape

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/graft-project/graft/session"
)

// The rules of tape v2 (issue 23): each shape of what the v1 tape lost,
// as a session that has it.

func withMeta(ev session.Event, k, v string) session.Event {
	ev.Meta = map[string]string{k: v}
	return ev
}

// 1. Outcomes of successful commands: test verdicts, the commit made and
// pushed, "nothing to commit", a tracker's close, each by its key line,
// with the command that gave it.
func TestOutcomesOfSuccessfulCommands(t *testing.T) {
	evs := seqd(
		human("Finish the epic and push it."),
		call("Bash", "b1", `{"command":"mix test"}`),
		result("Bash", "b1", true, "Compiling 3 files (.ex)\n.......\nFinished in 0.9 seconds\n14 doctests, 87 tests, 0 failures\n"),
		call("Bash", "b2", `{"command":"git commit -am 'feat: pager'"}`),
		result("Bash", "b2", true, "[main 3f2a1b9] feat: pager\n 2 files changed, 10 insertions(+)\n"),
		call("Bash", "b3", `{"command":"git push origin main"}`),
		result("Bash", "b3", true, "To github.com:o/r.git\n   1a2b3c4..3f2a1b9  main -> main\n"),
		call("Bash", "b4", `{"command":"git commit -am again"}`),
		result("Bash", "b4", true, "On branch main\nnothing to commit, working tree clean\n"),
		call("Bash", "b5", `{"command":"bd close spotter-7 --reason done"}`),
		result("Bash", "b5", true, "✓ Closed spotter-7: done\n"),
		say("All pushed."),
	)
	tp := build(t, "s", evs, Options{}, nil)
	blk := blockText(t, tp, "Recent Actions")
	for _, want := range []string{
		"- seq=3 ok: $ mix test\n    → ",
		"    → 14 doctests, 87 tests, 0 failures",
		"- seq=5 ok: $ git commit -am 'feat: pager'\n    → [main 3f2a1b9] feat: pager",
		"1a2b3c4..3f2a1b9  main -> main",
		"nothing to commit, working tree clean",
		"✓ Closed spotter-7: done",
	} {
		if !strings.Contains(blk, want) {
			t.Errorf("Recent Actions lacks %q:\n%s", want, blk)
		}
	}
	// The output of a read is not an outcome: not quoted.
	read := build(t, "s", seqd(human("Look."), call("Read", "r1", `{"file_path":"a.go"}`), result("Read", "r1", true, "1→package a\n2→// 87 tests, 0 failures")), Options{}, nil)
	if blk := blockText(t, read, "Recent Actions"); strings.Contains(blk, "→ ") || !strings.Contains(blk, "- seq=3 Read ok: a.go") {
		t.Errorf("a read's output is quoted:\n%s", blk)
	}
}

// 2. A failed call is shown with its command and the line that names the
// error, not its first line of package-manager chatter; a failure that a
// later run of the same command fixed is not pending.
func TestFailuresByTheirErrorLine(t *testing.T) {
	out := "npm warn Unknown env config \"python\"\nnpm warn Unknown env config \"msvs\"\n\n> app@1.0.0 build\n> vite build\n\nTypeError: foo.bar is not a function\n    at x (y.js:1:1)\n"
	evs := seqd(
		human("Build it."),
		call("Bash", "b1", `{"command":"npm run build"}`),
		result("Bash", "b1", false, out),
		call("Bash", "b2", `{"command":"git push"}`),
		result("Bash", "b2", false, "Exit code 128\nfatal: The current branch x has no upstream branch."),
		call("Bash", "b3", `{"command":"git push --set-upstream origin x"}`),
		result("Bash", "b3", true, "branch 'x' set up to track 'origin/x'."),
		say("Pushed."),
	)
	tp := build(t, "s", evs, Options{}, nil)
	pending := blockText(t, tp, "Pending State")
	if !strings.Contains(pending, "- seq=3 FAILED (open turn): $ npm run build\n    → ") || !strings.Contains(pending, "TypeError: foo.bar is not a function") {
		t.Errorf("the failure is not named by its command and error line:\n%s", pending)
	}
	if strings.Contains(pending, "npm warn") {
		t.Errorf("package-manager chatter quoted as the failure:\n%s", pending)
	}
	if strings.Contains(stillPending(pending), "git push") || !strings.Contains(pending, "1 failure was fixed by a later call") {
		t.Errorf("the push fixed by a later push is still pending:\n%s", pending)
	}
	// Fixed by the same command run again.
	again := build(t, "s", seqd(human("Go."), call("Bash", "b1", `{"command":"npm run build"}`), result("Bash", "b1", false, "Error: x"),
		call("Bash", "b2", `{"command":"npm run build"}`), result("Bash", "b2", true, "built in 2s")), Options{}, nil)
	if p := blockText(t, again, "Pending State"); strings.Contains(stillPending(p), "FAILED") {
		t.Errorf("a failure fixed by the same command is pending:\n%s", p)
	}
}

// 3. The last assistant message is carried whole, labelled model-written.
func TestLastAssistantMessageWhole(t *testing.T) {
	last := "All pushed.\n\nEpic X complete. All 4 subtasks done and pushed.\n\n389 tests passing, credo clean."
	tp := build(t, "s", seqd(human("Finish."), say("Working.\n\nStep one done."), say(last)), Options{}, nil)
	bp := blockText(t, tp, "Breakpoint")
	if !strings.Contains(bp, "Last assistant message, seq=3 (whole):\n"+last) || !strings.Contains(bp, modelWritten) {
		t.Fatalf("the last message is not whole and labelled:\n%s", bp)
	}
}

// 4. Model-written text (assistant prose, a plan, the host's own summary)
// is labelled and never a constraint; the host's summary is carried.
func TestModelWrittenTextIsLabelledAndNeverAConstraint(t *testing.T) {
	summary := "Analysis:\nnotes\n\nSummary:\n1. Primary Request: You must never push to main.\n\n2. Pending Tasks: the CSV export."
	plan := `{"plan":"# Plan\n\nNever touch the schema. Step 1: add the endpoint."}`
	evs := seqd(
		human("Work on the export."),
		injected(session.KindSystem, "compact-summary", summary),
		call("ExitPlanMode", "p1", plan),
		result("ExitPlanMode", "p1", true, "User has approved your plan."),
		say("You must always run the linter."),
	)
	tp := build(t, "s", evs, Options{}, nil)
	if len(tp.Constraints) != 0 {
		t.Fatalf("model-written text became constraints: %+v", tp.Constraints)
	}
	hs := blockText(t, tp, "Host Summary")
	if !strings.Contains(hs, "2. Pending Tasks: the CSV export.") || !strings.Contains(hs, modelWritten) || !strings.Contains(hs, "seq=2") {
		t.Errorf("host summary block:\n%s", hs)
	}
	st := blockText(t, tp, "Task Status")
	if !strings.Contains(st, "Plan proposed at seq=3 (approved by the user; "+modelWritten+")") || !strings.Contains(st, "Step 1: add the endpoint.") {
		t.Errorf("plan:\n%s", st)
	}
	// The summary's analysis notes are cut before its sections.
	b := fold(t, "s", evs)
	for budget := DefaultBudget; budget >= MinBudget; budget -= 50 {
		tp, err := b.Build(Options{Budget: budget}, nil)
		if err != nil {
			t.Fatal(err)
		}
		blk := blockText(t, tp, "Host Summary")
		if strings.Contains(blk, "Pending Tasks") && !strings.Contains(blk, "\nnotes") {
			return // the notes went first
		}
		if !strings.Contains(blk, "Pending Tasks") {
			t.Fatalf("budget %d: the summary's sections were cut before its notes:\n%s", budget, blk)
		}
	}
}

// 5. A call in flight at the cut is named in the Pending State.
func TestCallsInFlight(t *testing.T) {
	tp := build(t, "s", seqd(human("Write it."), say("Writing."), call("Write", "w1", `{"file_path":"/p/web/page.tsx","content":"x"}`)), Options{}, nil)
	if p := blockText(t, tp, "Pending State"); !strings.Contains(p, "In flight at the cut") || !strings.Contains(p, "- seq=3 Write: /p/web/page.tsx") {
		t.Fatalf("the call in flight is not named:\n%s", p)
	}
}

// 6. Noise: files under dependency and build folders are left out, paths
// are relative to the working directory, a host command is no goal.
func TestWorkspaceNoiseAndRelativePaths(t *testing.T) {
	evs := seqd(
		withMeta(human("/compact and continue"), "cwd", "/home/u/app"),
		withMeta(human("Fix the parser."), "cwd", "/home/u/app"),
		call("Read", "r1", `{"file_path":"/home/u/app/deps/jason/lib/jason.ex"}`), result("Read", "r1", true, "x"),
		call("Read", "r2", `{"file_path":"/home/u/app/node_modules/a/index.js"}`), result("Read", "r2", true, "x"),
		call("Edit", "e1", `{"file_path":"/home/u/app/lib/parser.ex","new_string":"  defp parse_line(line) do"}`), result("Edit", "e1", true, "ok"),
	)
	tp := build(t, "s", evs, Options{}, nil)
	files := blockText(t, tp, "Workspace Files")
	if strings.Contains(files, "jason.ex") || strings.Contains(files, "node_modules") || !strings.Contains(files, "Left out: 2 files in dependency, build or cache folders.") {
		t.Errorf("dependency files listed:\n%s", files)
	}
	if !strings.Contains(files, "- lib/parser.ex: edit seq=8 (defines parse_line)") {
		t.Errorf("edited file not relative, or its definition not named:\n%s", files)
	}
	goal := blockText(t, tp, "Goal")
	if strings.Contains(goal, "/compact") || !strings.Contains(goal, "First instruction (seq 2):\n> Fix the parser.") {
		t.Errorf("a host command is the goal:\n%s", goal)
	}
}

// 7. Every later human instruction is carried in the user's words, and
// the person's answer to the assistant's question with them; a long one
// keeps its end, where the ask stands.
func TestTheUsersWords(t *testing.T) {
	pasted := "Here is the old session:\n" + strings.Repeat("old log line\n", 400) + "Continue please, and use pnpm, not npm."
	evs := seqd(
		human("Build the site."),
		human("Tests go in web/tests."),
		call("AskUserQuestion", "q1", `{"questions":[]}`),
		result("AskUserQuestion", "q1", true, `User has answered your questions: "Pre-existing lint errors block the commit. How should we proceed?"="main was clean; fix the issues".`),
		human(pasted),
	)
	tp := build(t, "s", evs, Options{}, nil)
	goal := blockText(t, tp, "Goal")
	for _, want := range []string{"> Tests go in web/tests.", "main was clean; fix the issues", "Continue please, and use pnpm, not npm.", "Here is the old session:"} {
		if !strings.Contains(goal, want) {
			t.Errorf("Goal lacks %q:\n%s", want, goal)
		}
	}
	found := false
	for _, c := range tp.Constraints {
		found = found || c.Text == "Tests go in web/tests."
	}
	if !found {
		t.Errorf("a placement rule is not a constraint: %+v", tp.Constraints)
	}
}

// 8. A look-up of what the user named (a bead, an issue) is quoted: its
// output is the task's spec.
func TestLookUpsOfWhatTheUserNamed(t *testing.T) {
	spec := "spotter-dov.3 · Implement the debug sidecar\n" + strings.Repeat("- Keep highlight.js as the only syntax highlighter.\n", 12)
	tp := build(t, "s", seqd(human("Work on bead spotter-dov."), call("Bash", "b1", `{"command":"bd show spotter-dov.3"}`), result("Bash", "b1", true, spec)), Options{}, nil)
	if blk := blockText(t, tp, "Looked Up"); !strings.Contains(blk, "- seq=3: $ bd show spotter-dov.3\nspotter-dov.3 · Implement the debug sidecar") {
		t.Fatalf("look-up:\n%s", blk)
	}
}

// A file whose path holds what the user named inside a longer word (the
// host's folder for background output spells the workspace path with
// dashes: "-home-…-spotter-dov/tasks/…") is no look-up of it.
func TestALookUpNamesTheWholeWord(t *testing.T) {
	out := strings.Repeat("==> finch\nCompiling 14 files (.ex)\nGenerated finch app\n", 10)
	tp := build(t, "s", seqd(human("Work on bead spotter-dov."),
		call("Bash", "b1", `{"command":"tail -20 /tmp/claude-1000/-home-u-spotter-dov/tasks/b7636e2.output"}`), result("Bash", "b1", true, out),
		call("Bash", "b2", `{"command":"bd show spotter-dov.3"}`), result("Bash", "b2", true, "spotter-dov.3 · Implement the debug sidecar\n"+strings.Repeat("- Keep highlight.js as the only syntax highlighter.\n", 12))), Options{}, nil)
	blk := blockText(t, tp, "Looked Up")
	if strings.Contains(blk, "b7636e2") {
		t.Errorf("a path naming the bead inside a longer word is a look-up:\n%s", blk)
	}
	if !strings.Contains(blk, "bd show spotter-dov.3") {
		t.Errorf("the bead's own look-up is missing:\n%s", blk)
	}
}

// The open turn's last call, when it is a sub-agent's whose report the
// Sub-agent Reports block holds, is not quoted at length in Recent Actions
// too: its line points at the report.
func TestASubAgentsReportIsQuotedOnce(t *testing.T) {
	report := "## Key Findings\n" + strings.Repeat("list_panes/0 returns {:error, reason} when tmux is not running.\n", 12)
	tp := build(t, "s", seqd(human("Find out how the Tmux module fails."),
		call("Task", "t1", `{"description":"Explore Tmux module","prompt":"How does list_panes fail?","subagent_type":"Explore"}`),
		result("Task", "t1", true, report+"agentId: a7be2f0\n<usage>total_tokens: 30610</usage>"),
		session.Event{Type: session.TypeSubagentReport, Source: session.Source{Kind: session.KindSubagent, Name: "Task"}, Agent: "Explore", Text: report}), Options{}, nil)
	actions := blockText(t, tp, "Recent Actions")
	if strings.Contains(actions, "list_panes/0 returns") || !strings.Contains(actions, "(its report: Sub-agent Reports, seq=4)") {
		t.Errorf("Recent Actions quotes the report again, or does not point at it:\n%s", actions)
	}
	if reports := blockText(t, tp, "Sub-agent Reports"); !strings.Contains(reports, "list_panes/0 returns") {
		t.Errorf("the report is not in Sub-agent Reports:\n%s", reports)
	}
}

// A run of the tests, a build or a linter on a path the user named is no
// look-up: its outcome is an action's (Recent Actions, Milestones), not
// a spec to read.
func TestATestRunOnWhatTheUserNamedIsNoLookUp(t *testing.T) {
	out := strings.Repeat("........................................................................ [ 40%]\n", 30) + "1657 passed in 41.2s\n"
	tp := build(t, "s", seqd(human("Verify with: uv run python -m pytest tests/ -x -q"), call("Bash", "b1", `{"command":"uv run python -m pytest tests/ -x -q 2>&1 | head -80"}`), result("Bash", "b1", true, out)), Options{}, nil)
	if blk, ok := tp.Block("Looked Up"); ok {
		t.Fatalf("a test run taken for a look-up:\n%s", blk)
	}
	if a := blockText(t, tp, "Recent Actions"); !strings.Contains(a, "1657 passed") {
		t.Fatalf("the run's outcome is not among the actions:\n%s", a)
	}
}

// 9. Outcomes that scrolled out of Recent Actions are kept as milestones.
func TestMilestonesOutliveRecentActions(t *testing.T) {
	evs := []session.Event{human("Go."), call("Bash", "c0", `{"command":"git commit -m first"}`), result("Bash", "c0", true, "[main 1234567] first")}
	for k := 1; k <= keptCommands+5; k++ {
		id := fmt.Sprintf("x%d", k)
		evs = append(evs, call("Bash", id, fmt.Sprintf(`{"command":"./gen.sh part%d"}`, k)), result("Bash", id, true, "a\nb"))
	}
	tp := build(t, "s", seqd(evs...), Options{}, nil)
	if blk := blockText(t, tp, "Milestones"); !strings.Contains(blk, "[main 1234567] first") {
		t.Fatalf("the first commit is gone:\n%s", blk)
	}
}

// 10. The room the budget leaves goes to the conversation's last events;
// a full tape never passes the budget.
func TestLeftoverBudgetGoesToTheTail(t *testing.T) {
	tp := build(t, "s", seqd(human("Start."), call("Bash", "b1", `{"command":"./run.sh"}`), result("Bash", "b1", true, "tidewave connected"), injected(session.KindSystem, "interrupted", "[Request interrupted by user]")), Options{}, nil)
	tail := blockText(t, tp, "Conversation Tail")
	if !strings.Contains(tail, "tidewave connected") || !strings.Contains(tail, "[Request interrupted by user]") {
		t.Fatalf("tail:\n%s", tail)
	}
}

// The outputs the tape quotes read at Build (a fold with offsets, as
// prepare folds a log) give the tape a fold holding the outputs gives.
func TestQuotedOutputsReadAtBuildGiveTheSameTape(t *testing.T) {
	evs := seqd(
		withMeta(human("Work on bead b-1. Ship it."), "cwd", "/r"),
		call("Bash", "b1", `{"command":"bd show b-1"}`), result("Bash", "b1", true, strings.Repeat("spec line\n", 80)),
		call("Bash", "b2", `{"command":"go test ./..."}`), result("Bash", "b2", false, "--- FAIL: TestX\nFAIL\tpkg 0.1s"),
		call("AskUserQuestion", "q", `{}`), result("AskUserQuestion", "q", true, "yes, go on"),
		call("Bash", "b3", `{"command":"cat big"}`), result("Bash", "b3", true, strings.Repeat("y", MaxOutputLine+10)),
		call("Edit", "e1", `{"file_path":"/r/lib/a.ex","new_string":"  def run(x) do\n    x\n  end"}`), result("Edit", "e1", true, "ok"),
		call("Write", "w1", `{"file_path":"/r/config/test.exs","content":"import Config\nconfig :app, secret_key_base: \"x\""}`), result("Write", "w1", true, "ok"),
		call("Write", "w2", `{"file_path":"/r/plan.md","content":"# Plan\n\n1. Add credo ~> 1.7."}`), result("Write", "w2", true, "ok"),
		call("ExitPlanMode", "x1", `{}`), result("ExitPlanMode", "x1", true, "User has approved exiting plan mode."),
		call("Read", "r1", `{"file_path":"/r/assets/app.js"}`), result("Read", "r1", true, longRead),
		say("Done."),
	)
	withOff, src := foldWithOffsets(t, evs)
	got, err := withOff.BuildFrom(Options{}, nil, src)
	if err != nil {
		t.Fatal(err)
	}
	want := build(t, "s", evs, Options{}, nil)
	if got.Text != want.Text || got.TapeHash != want.TapeHash {
		t.Fatalf("read at Build:\n%s\n\nin hand:\n%s", got.Text, want.Text)
	}
	if !strings.Contains(got.Text, "- lib/a.ex: edit seq=11 (defines run)") || !strings.Contains(got.Text, "- config/test.exs: write seq=13 (last change: config :app, secret_key_base: \"x\")") {
		t.Errorf("the definitions read at Build are missing:\n%s", blockText(t, got, "Workspace Files"))
	}
	if !strings.Contains(got.Text, "Plan proposed at seq=16, the file plan.md (approved by the user; "+modelWritten+"):\n# Plan\n\n1. Add credo ~> 1.7.") {
		t.Errorf("the plan file read at Build is missing:\n%s", blockText(t, got, "Task Status"))
	}
	if tail := blockText(t, got, "Conversation Tail"); !strings.Contains(tail, "scrollback: 10000") || strings.Contains(tail, "malware") {
		t.Errorf("the tail's grown output is missing, or holds the host's reminder:\n%s", tail)
	}
	if !strings.Contains(got.Text, "output of 96 KiB not quoted: recall seq=9") {
		t.Errorf("a line past MaxOutputLine is quoted or not named:\n%s", blockText(t, got, "Recent Actions"))
	}
}

// foldWithOffsets folds evs as the service does, by their lines' offsets
// in a log it writes in memory, and returns the builder and that log.
func foldWithOffsets(t *testing.T, evs []session.Event) (*Builder, bufOutputs) {
	t.Helper()
	var log bytes.Buffer
	b := NewBuilder("s")
	for k := range evs {
		raw := rawLine(t, &evs[k])
		if err := b.AddSumAt(&evs[k], len(raw), session.SumLine(raw), int64(log.Len())); err != nil {
			t.Fatal(err)
		}
		log.Write(raw)
		log.WriteByte('\n')
	}
	return b, bufOutputs(log.Bytes())
}

// builtAtBuild is the tape of evs folded by their log offsets
// (foldWithOffsets), what the tape quotes of outputs and inputs read at
// Build, as the service builds it.
func builtAtBuild(t *testing.T, evs []session.Event, opts Options) *Tape {
	t.Helper()
	b, log := foldWithOffsets(t, evs)
	tp, err := b.BuildFrom(opts, nil, log)
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

// editOf is an Edit call of path and its result.
func editOf(path, id, old, new string) []session.Event {
	in, _ := json.Marshal(map[string]string{"file_path": path, "old_string": old, "new_string": new})
	return []session.Event{call("Edit", id, string(in)), result("Edit", id, true, "ok")}
}

// bufOutputs reads tool outputs from an in-memory log.
type bufOutputs []byte

func (b bufOutputs) Output(seq, off int64, size int) (string, error) {
	ev, err := b.read(seq, off, size)
	if err != nil {
		return "", err
	}
	return ev.Tool.Output, nil
}

func (b bufOutputs) Input(seq, off int64, size int) (json.RawMessage, error) {
	ev, err := b.read(seq, off, size)
	if err != nil {
		return nil, err
	}
	return ev.Tool.Input, nil
}

func (b bufOutputs) read(seq, off int64, size int) (*session.Event, error) {
	var ev session.Event
	if err := json.Unmarshal(b[off:off+int64(size)], &ev); err != nil {
		return nil, err
	}
	if ev.Seq != seq || ev.Tool == nil {
		return nil, fmt.Errorf("offset %d is seq %d, not %d", off, ev.Seq, seq)
	}
	return &ev, nil
}

// An edit names the identifiers it puts in that the old text lacked: the
// functions, fields and modules the change introduced.
func TestEditNamesWhatItAdds(t *testing.T) {
	in := `{"file_path":"/r/lib/live.ex","old_string":"  use Phoenix.LiveView\n  def mount(_p, _s, socket)","new_string":"  use Phoenix.LiveView\n  attach_computer(SpotterWeb.Live.TranscriptComputers, :transcript_view)\n  def mount(_p, _s, socket)"}`
	tp := build(t, "s", seqd(withMeta(human("Share the computer."), "cwd", "/r"), call("Edit", "e1", in), result("Edit", "e1", true, "ok")), Options{}, nil)
	files := blockText(t, tp, "Workspace Files")
	if !strings.Contains(files, "- lib/live.ex: edit seq=3 (defines mount) (its last edit adds attach_computer, SpotterWeb.Live.TranscriptComputers, transcript_view)") {
		t.Fatalf("the edit's new names:\n%s", files)
	}
	if strings.Contains(files, "Phoenix.LiveView") {
		t.Fatalf("a name the old text had is named as added:\n%s", files)
	}
}

// Issue 24, item 4: the review's warning and the tape's cut line give the
// same count of constraints cut: the budget's cuts and the sayings past
// the fold's cap, the warning naming how many are which.
func TestConstraintCutCountsAgree(t *testing.T) {
	old := keptConstraints
	keptConstraints = 40
	defer func() { keptConstraints = old }()
	var evs []session.Event
	for k := 0; k < 200; k++ {
		evs = append(evs, human(fmt.Sprintf("You must keep rule number %d of the long list of rules in mind.", k)))
	}
	tp := build(t, "s", seqd(evs...), Options{Budget: MinBudget}, nil)
	m := cutLineRE.FindStringSubmatch(blockText(t, tp, "Anchor + Hard Constraints"))
	if m == nil {
		t.Fatalf("no cut line:\n%s", blockText(t, tp, "Anchor + Hard Constraints"))
	}
	var warn string
	for _, w := range tp.Warnings {
		if strings.HasPrefix(w, "cut to fit") {
			warn = w
		}
	}
	want := m[1] + " constraints (Anchor + Hard Constraints: "
	if !strings.Contains(warn, want) || !strings.Contains(warn, "160 past the fold's cap of 40") {
		t.Fatalf("cut line %q; warning %q: want it to count %s and say how many are past the cap", m[0], warn, want)
	}
}

// 1b. A key line is a verdict: how long a run took, advice on what to run
// next and an application's own log lines are not, so they neither stand
// for the outcome nor push it out; "found N …" (a linter's or a scanner's
// count) is one.
func TestKeyLinesAreVerdictsNotTimingsHintsOrLogs(t *testing.T) {
	evs := seqd(
		human("Check it."),
		call("Bash", "b1", `{"command":"mix credo --strict 2>&1 | tail -5"}`),
		result("Bash", "b1", true, "Please report incorrect results: https://github.com/rrrene/credo/issues\n\nAnalysis took 0.4 seconds (0.04s to load, 0.3s running 69 checks on 114 files)\n876 mods/funs, found 5 software design suggestions.\n\nUse `mix credo explain` to explain issues, `mix credo --help` for options.\n"),
		call("Bash", "b2", `{"command":"mix test 2>&1 | tail -5"}`),
		result("Bash", "b2", true, "21:23:45.773 [warning] CoChangeCalculator: no sessions with cwd for project 019c\n21:23:45.774 [info] Heatmap: 0 files\nFinished in 5.5 seconds (1.4s async, 4.1s sync)\n14 doctests, 397 tests, 0 failures\n"),
		call("Bash", "b3", `{"command":"git push"}`),
		result("Bash", "b3", true, "remote: GitHub found 19 vulnerabilities on o/r's default branch (2 high, 8 moderate, 9 low). To find out more, visit:\nremote:      https://github.com/o/r/security/dependabot\nremote:\nTo github.com:o/r.git\n   1a2b3c4..3f2a1b9  main -> main\n"),
		call("Bash", "b4", `{"command":"npm run build"}`),
		result("Bash", "b4", true, "> app@1.0.0 build\n> vite build\n✓ 42 modules transformed.\n✓ built in 1.21s\nDone in 2.30s.\n"),
		say("Checked."),
	)
	tp := build(t, "s", evs, Options{}, nil)
	blk := blockText(t, tp, "Recent Actions")
	for _, want := range []string{
		"    → 876 mods/funs, found 5 software design suggestions.",
		"    → 14 doctests, 397 tests, 0 failures",
		"GitHub found 19 vulnerabilities",
		"1a2b3c4..3f2a1b9  main -> main",
		"    → ✓ 42 modules transformed.",
	} {
		if !strings.Contains(blk, want) {
			t.Errorf("Recent Actions lacks %q:\n%s", want, blk)
		}
	}
	for _, noise := range []string{"Analysis took", "mix credo explain", "[warning] CoChange", "[info] Heatmap", "Finished in 5.5", "Done in 2.30s"} {
		if strings.Contains(blk, noise) {
			t.Errorf("Recent Actions quotes %q, which is not a verdict:\n%s", noise, blk)
		}
	}
}

// 9b. Recent Actions are cut by what they still tell: repeats first, then
// calls whose output says nothing, then failures a later run of the same
// call fixed, then commands, then milestones, each oldest first; the
// newest calls (what was done last) go last of all, whatever their kind.
func TestActionCutOrderKeepsTheNewest(t *testing.T) {
	as := []action{
		{Seq: 1, Tool: "Bash", What: "git commit -m x", OK: false, Kind: "vcs"}, // 0: fixed by 3
		{Seq: 2, Tool: "Read", What: "a.go", OK: true},                          // 1: quiet
		{Seq: 3, Tool: "Bash", What: "go vet ./...", OK: true},                  // 2: quoted
		{Seq: 4, Tool: "Bash", What: "git commit -m x", OK: true, Kind: "vcs"},  // 3: milestone
		{Seq: 5, Tool: "Bash", What: "go vet ./...", OK: true},                  // 4: quoted, repeats 2: 2 is superseded
		{Seq: 6, Tool: "Bash", What: "git push", OK: false, Kind: "vcs"},        // 5: not fixed
		{Seq: 7, Tool: "Read", What: "b.go", OK: true},                          // 6: quiet, newest but says nothing
		{Seq: 8, Tool: "Bash", What: "git status", OK: true},                    // 7: one of the 3 newest commands
		{Seq: 9, Tool: "Read", What: "c.go", OK: true},                          // 8: quiet
	}
	quoted := func(a action) bool { return !a.OK || a.Tool == "Bash" }
	got := actionCutOrder(as, quoted)
	want := []int{2, 1, 6, 8, 0, 3, 4, 5, 7}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("cut order %v, want %v", got, want)
	}
}

// longRead is a Read's output of 5,000 runes: a line near its head the
// short form of the tail does not reach, the host's reminder, and its end.
var longRead = "     1→import { Terminal } from \"xterm\"\n     2→const term = new Terminal({scrollback: 10000})\n" +
	strings.Repeat("     3→// filler line of the file\n", 170) +
	"<system-reminder>\nWhenever you read a file, consider whether it is malware.\n</system-reminder>\n     9→liveSocket.connect()\n"

// C. The room the cuts leave goes to the tail's outputs: shown at more
// length (their head and end) once nothing of the tail was cut, never
// past the budget; the host's <system-reminder> notes are not the output.
func TestTailOutputsGrowIntoTheRoomLeft(t *testing.T) {
	evs := seqd(human("Why does scrolling fail?"), call("Read", "r1", `{"file_path":"assets/app.js"}`), result("Read", "r1", true, longRead), say("Looking."))
	tp := build(t, "s", evs, Options{}, nil)
	tail := blockText(t, tp, "Conversation Tail")
	for _, want := range []string{"scrollback: 10000", "liveSocket.connect()", "[cut: recall seq=3]"} {
		if !strings.Contains(tail, want) {
			t.Errorf("the tail lacks %q:\n%s", want, tail)
		}
	}
	if strings.Contains(tail, "malware") || strings.Contains(tail, "system-reminder") {
		t.Errorf("the tail quotes the host's reminder:\n%s", tail)
	}
	if n := utf8.RuneCountInString(tp.Text); n > DefaultBudget || n != tp.TapeChars {
		t.Errorf("tape of %d runes (TapeChars %d), budget %d", n, tp.TapeChars, DefaultBudget)
	}

	sec := &section{items: []item{newItem("a: short", "", 1, 1), newItem("b: short", "", 2, 2)}, grown: []string{"a: much longer text", "b: longer"}}
	sec.init()
	if added := sec.grow(3); added != 1 || sec.items[1].text != "b: longer" || sec.items[0].text != "a: short" {
		t.Errorf("grow(3) added %d: %q %q (want the newest grown within the room)", added, sec.items[0].text, sec.items[1].text)
	}
	cut := &section{items: []item{newItem("a", "", 1, 1), newItem("b", "", 2, 2)}, grown: []string{"a grown", "b grown"}, cutFront: true}
	cut.init()
	cut.cutNext()
	if added := cut.grow(100); added != 0 {
		t.Errorf("grow added %d runes to a section the budget cut", added)
	}
}

// A file's line names what its earlier writes and edits put in, newest
// first, not only its last edit: the session's choices are spread over the
// edits (the shared computer attached in the first, a handler renamed in
// the last). Read at once or at Build, the tape is the same; past
// keptEarlierEdits, the oldest edits' names are not kept.
func TestFileLineNamesWhatEarlierEditsAdded(t *testing.T) {
	edit := func(id, old, new string) []session.Event { return editOf("/r/lib/live.ex", id, old, new) }
	evs := []session.Event{withMeta(human("Share the computer."), "cwd", "/r")}
	evs = append(evs, edit("e1", "use Phoenix.LiveView", "use Phoenix.LiveView\nattach_computer(SpotterWeb.Live.TranscriptComputers, :transcript_view)")...)
	evs = append(evs, edit("e2", "def mount(p)", "def mount(p)\n  toggle_tool_result_group(socket)")...)
	evs = append(evs, edit("e3", "x = 1", "show_debug_rows = 1")...)
	evs = seqd(evs...)
	want := build(t, "s", evs, Options{}, nil)
	files := blockText(t, want, "Workspace Files")
	if !strings.Contains(files, "(its last edit adds show_debug_rows) (earlier edits add mount, toggle_tool_result_group, attach_computer, SpotterWeb.Live.TranscriptComputers, transcript_view)") {
		t.Fatalf("the earlier edits' names, newest first:\n%s", files)
	}

	if got := builtAtBuild(t, evs, Options{}); got.Text != want.Text {
		t.Fatalf("read at Build:\n%s\n\nin hand:\n%s", blockText(t, got, "Workspace Files"), files)
	}

	// More edits than the fold keeps: the first one's names are gone.
	more := evs[:len(evs):len(evs)]
	for k := 0; k < keptEarlierEdits; k++ {
		more = append(more, edit(fmt.Sprintf("m%d", k), "y", fmt.Sprintf("step_number_%d = 1", k))...)
	}
	files = blockText(t, build(t, "s", seqd(more...), Options{}, nil), "Workspace Files")
	if strings.Contains(files, "attach_computer") || !strings.Contains(files, "step_number_0") {
		t.Fatalf("past %d earlier edits the oldest names stay, or the kept ones are gone:\n%s", keptEarlierEdits, files)
	}
}

// A failed script run is fixed by a later successful run of the same
// script another way, with the same arguments: a copy cleaned of carriage
// returns, an interpreter in front (Codex models work around CRLF scripts
// so). The same script with other arguments, or another script, fixes
// nothing.
func TestFailedScriptFixedByTheSameRunAnotherWay(t *testing.T) {
	failed := `{"command":".specify/scripts/bash/create-new-feature.sh --json --number 1 --short-name \"orchestrator-architecture\" \"Create a spec\""}`
	run := func(later string) string {
		in, _ := json.Marshal(map[string]string{"command": later})
		tp := build(t, "s", seqd(human("Create the spec."),
			call("shell", "c1", failed), result("shell", "c1", false, "/usr/bin/env: ‘bash\\r’: No such file or directory"),
			call("shell", "c2", string(in)), result("shell", "c2", true, `{"BRANCH_NAME":"001-orchestrator-architecture"}`),
			say("Created.")), Options{}, nil)
		return blockText(t, tp, "Pending State")
	}
	for _, later := range []string{
		`tmp=$(mktemp); tr -d '\r' < .specify/scripts/bash/create-new-feature.sh > "$tmp"; bash "$tmp" --json --number 1 --short-name "orchestrator-architecture" "Create a spec"`,
		`bash .specify/scripts/bash/create-new-feature.sh --json --number 1 --short-name "orchestrator-architecture" "Create a spec"`,
	} {
		if p := run(later); strings.Contains(stillPending(p), "FAILED") || !strings.Contains(p, "1 failure was fixed") {
			t.Errorf("fixed by %q, still pending:\n%s", later, p)
		}
	}
	for _, later := range []string{
		`bash .specify/scripts/bash/create-new-feature.sh --json --number 2 --short-name "other-feature"`,
		`bash .specify/scripts/bash/setup-plan.sh --json --number 1 --short-name "orchestrator-architecture" "Create a spec"`,
	} {
		if p := run(later); !strings.Contains(stillPending(p), "seq=3 FAILED") {
			t.Errorf("%q fixed the failure:\n%s", later, p)
		}
	}
}

// A failed chain that later calls ran part by part is fixed once each of
// its commands ran again; while one is left, it is pending. Redirections
// do not make a script run a chain.
func TestFailedChainFixedPartByPart(t *testing.T) {
	cmd := func(id, c string, ok bool, out string) []session.Event {
		in, _ := json.Marshal(map[string]string{"command": c})
		return []session.Event{call("Bash", id, string(in)), result("Bash", id, ok, out)}
	}
	evs := []session.Event{human("Commit the styles.")}
	evs = append(evs, cmd("b1", "git add lib/a.ex priv/static/assets/spotter.css && git commit -m 'style'", false, "The following paths are ignored by one of your .gitignore files:")...)
	evs = append(evs, cmd("b2", "git add -f priv/static/assets/spotter.css", true, "")...)
	half := blockText(t, build(t, "s", seqd(evs...), Options{}, nil), "Pending State")
	if !strings.Contains(stillPending(half), "seq=3 FAILED") {
		t.Errorf("the chain is fixed while its commit was not run again:\n%s", half)
	}
	evs = append(evs, cmd("b3", "git commit -m 'style: spotter.css'", true, "[main 3bb8701] style: spotter.css")...)
	whole := blockText(t, build(t, "s", seqd(evs...), Options{}, nil), "Pending State")
	if strings.Contains(stillPending(whole), "FAILED") || !strings.Contains(whole, "1 failure was fixed") {
		t.Errorf("the chain run again part by part is still pending:\n%s", whole)
	}

	deploy := seqd(append([]session.Event{human("Deploy it.")},
		append(cmd("d1", "bash deploy.sh staging", false, "deploy.sh: line 3: $'\\r': command not found"),
			cmd("d2", "tr -d '\\r' < deploy.sh > /tmp/d.sh && bash /tmp/d.sh staging # deploy.sh", true, "deployed")...)...)...)
	if p := blockText(t, build(t, "s", deploy, Options{}, nil), "Pending State"); strings.Contains(stillPending(p), "FAILED") {
		t.Errorf("a script run by its interpreter, without a path, run again another way is still pending:\n%s", p)
	}

	build2 := seqd(append([]session.Event{human("Build the bundle.")},
		append(cmd("n1", "node assets/build.js 2>&1", false, `error: Could not resolve "js/app.js"`),
			cmd("n2", "cd assets && node build.js 2>&1", true, "built in 80ms")...)...)...)
	if p := blockText(t, build(t, "s", build2, Options{}, nil), "Pending State"); strings.Contains(stillPending(p), "FAILED") {
		t.Errorf("the script run again from its folder is still pending:\n%s", p)
	}
}

// A sub-agent report shows its head and its end, where it sums up its
// findings, without the trailer the host adds for its model; the newest
// report, when the assistant has said nothing since, is what the agent
// learned last: the budget keeps it past what only fills room.
func TestNewestReportKeptWithItsSummary(t *testing.T) {
	body := "## Findings\n\nI found the following about the test setup.\n\n" + strings.Repeat("Details of the Tmux module and its error handling. ", 60) +
		"\n\n## Summary Table\n\n| LiveView Test Support | only DataCase exists; no ConnCase yet |"
	trailer := " agentId: a7be2f0 (for resuming to continue this agent's work if needed)\n<usage>total_tokens: 30610\ntool_uses: 19</usage>"
	// The request is long enough that at the smallest budgets the room left
	// after the cuts cannot take an answered report back.
	evs := []session.Event{human("Add the LiveView tests. " + strings.Repeat("Cover the pane list, the session view and the transcript. ", 16))}
	for k := 0; k < 3; k++ {
		evs = append(evs, say(fmt.Sprintf("Let me explore part %d.", k)), subagent("Explore", fmt.Sprintf("## Findings\n\nI found part %d: %s", k, strings.Repeat("older detail ", 100))))
	}
	for k := 0; k < 20; k++ {
		id := fmt.Sprintf("r%d", k)
		evs = append(evs, call("Read", id, fmt.Sprintf(`{"file_path":"/r/lib/module_%d.ex"}`, k)), result("Read", id, true, strings.Repeat("x", 300)))
	}
	evs = append(evs, say("Let me check the Tmux module."), subagent("Explore", body+trailer))
	answered := append(evs[:len(evs):len(evs)], say("No ConnCase: I will add test/support/conn_case.ex first."))

	whole := blockText(t, build(t, "s", seqd(evs...), Options{}, nil), "Sub-agent Reports")
	if !strings.Contains(whole, "I found the following") || !strings.Contains(whole, "no ConnCase yet |") || strings.Contains(whole, "agentId") || strings.Contains(whole, "<usage>") {
		t.Fatalf("the report's head and summary, without the host's trailer:\n%s", whole)
	}
	kept, cut := false, false
	// A step of 50 characters: the window of budgets that shows the rule
	// is a few hundred wide, and moves when the fixed blocks change.
	for budget := 12000; budget >= MinBudget; budget -= 50 {
		tp := build(t, "s", seqd(evs...), Options{Budget: budget}, nil)
		rep := blockText(t, tp, "Sub-agent Reports")
		if !strings.Contains(rep, "I found part 0") && !cutLineRE.MatchString(blockText(t, tp, "Recent Actions")) && cutLineRE.MatchString(blockText(t, tp, "Workspace Files")) {
			kept = true
			if !strings.Contains(rep, "no ConnCase yet") {
				t.Fatalf("budget %d: the unanswered newest report was cut before any action:\n%s", budget, rep)
			}
			// Answered, the assistant's message says what it took from it:
			// the report is cut, or shown by its head and its end
			// (TestAnAnsweredReportShowsItsHeadAndEnd), never whole.
			if a := blockText(t, build(t, "s", seqd(answered...), Options{Budget: budget}, nil), "Sub-agent Reports"); !strings.Contains(a, "no ConnCase yet") || strings.Count(a, "Details of the Tmux module") < 60 {
				cut = true
			}
		}
	}
	if !kept || !cut {
		t.Fatalf("no budget showed the rule (unanswered kept: %v, answered cut: %v)", kept, cut)
	}
}

// countingOutputs counts the reads Build makes.
type countingOutputs struct {
	bufOutputs
	inputs, outputs int
}

func (c *countingOutputs) Output(seq, off int64, size int) (string, error) {
	c.outputs++
	return c.bufOutputs.Output(seq, off, size)
}

func (c *countingOutputs) Input(seq, off int64, size int) (json.RawMessage, error) {
	c.inputs++
	return c.bufOutputs.Input(seq, off, size)
}

// Build reads the inputs of at most the last 1+keptEarlierEdits writes
// and edits of the maxEditReads most recently changed files and the
// writes and edits among the tail's keptTail events, each once, however
// many files and edits the session has (docs/DESIGN.md §4.4).
func TestBuildReadsOfEditsAreBounded(t *testing.T) {
	evs := []session.Event{human("Refactor everything.")}
	for k := 0; k < 3*maxEditReads; k++ {
		for e := 0; e < 3*keptEarlierEdits; e++ {
			id := fmt.Sprintf("e%d-%d", k, e)
			in, _ := json.Marshal(map[string]string{"file_path": fmt.Sprintf("/r/pkg/file_%d.go", k), "old_string": "x", "new_string": fmt.Sprintf("func name_%d_%d() {}", k, e)})
			evs = append(evs, call("Edit", id, string(in)), result("Edit", id, true, "ok"))
		}
	}
	evs = seqd(evs...)
	b, log := foldWithOffsets(t, evs)
	src := &countingOutputs{bufOutputs: log}
	tp, err := b.BuildFrom(Options{Budget: MaxBudget}, nil, src)
	if err != nil {
		t.Fatal(err)
	}
	if max := maxEditReads*(1+keptEarlierEdits) + keptTail; src.inputs > max || src.inputs < maxEditReads {
		t.Fatalf("Build read %d edit inputs, want at most %d (and the last edits of %d files)", src.inputs, max, maxEditReads)
	}
	if !strings.Contains(tp.Text, fmt.Sprintf("name_%d_%d", 3*maxEditReads-1, 3*keptEarlierEdits-2)) {
		t.Fatalf("the newest file's earlier edit is not named:\n%s", blockText(t, tp, "Workspace Files"))
	}
}

// A document the session wrote says what it settled in its labelled
// lines ("- Decision: …", "**Scale/Scope**: …"): the Workspace Files
// line of a Markdown file carries those its last write or edit put in
// (a patch's added lines), not those of its code blocks, at most
// maxLabelled, whether the fold had the input in hand or Build read it
// from the log. A code file's "key: value" lines are not a document's.
// Before the rule, a Spec Kit research.md showed its title and headings,
// and its decisions were lost.
func TestDocumentsLabelledLines(t *testing.T) {
	research := "# Research\n\n## Queues\n- Decision: one durable codex queue with prefetch=1.\n- Rationale: workers share one volume.\n\n```yaml\nqueue: codex-0 codex-1\n```\n" +
		"**Scale/Scope**: Up to ~5 concurrent runs per deployment\n- **Gate Status:** PASS WITH NOTE, the constitution is a template\n" +
		"Note: a\nSee: [the spec](spec.md) and more\n"
	for k := 0; k < maxLabelled; k++ {
		research += fmt.Sprintf("- Decision: extra choice number %d here.\n", k)
	}
	patch := "*** Begin Patch\n*** Update File: plan.md\n@@\n-**Gate Status**: ERROR, nothing to check\n+**Gate Status**: PASS WITH NOTE, nothing to check\n*** End Patch"
	in, _ := json.Marshal(map[string]string{"input": patch})
	w, _ := json.Marshal(map[string]string{"file_path": "/r/research.md", "content": research})
	code, _ := json.Marshal(map[string]string{"file_path": "/r/conf.py", "content": "Broker: amqp://localhost\nQueue: codex single durable\n"})
	evs := seqd(
		withMeta(human("Plan the queue change."), "cwd", "/r"),
		call("Write", "w1", string(w)), result("Write", "w1", true, "ok"),
		call("apply_patch", "p1", string(in)), result("apply_patch", "p1", true, "Success. Updated the following files:\nM plan.md"),
		call("Write", "w2", string(code)), result("Write", "w2", true, "ok"),
		say("Planned."),
	)
	inHand := build(t, "s", evs, Options{}, nil)
	withOff, src := foldWithOffsets(t, evs)
	atBuild, err := withOff.BuildFrom(Options{}, nil, src)
	if err != nil {
		t.Fatal(err)
	}
	if atBuild.Text != inHand.Text {
		t.Fatalf("read at Build:\n%s\n\nin hand:\n%s", atBuild.Text, inHand.Text)
	}
	files := blockText(t, inHand, "Workspace Files")
	containsAll(t, "Workspace Files", files,
		"\n    · Decision: one durable codex queue with prefetch=1.",
		"\n    · Rationale: workers share one volume.",
		"\n    · Scale/Scope: Up to ~5 concurrent runs per deployment",
		"\n    · Gate Status: PASS WITH NOTE, the constitution is a template",
		"- plan.md: edit seq=5 (last change: **Gate Status**: PASS WITH NOTE, nothing to check)\n    · Gate Status: PASS WITH NOTE, nothing to check")
	for _, not := range []string{"· queue: codex-0", "· Note: a", "· Broker:", "· Queue:", fmt.Sprintf("choice number %d", maxLabelled-4)} {
		if strings.Contains(files, not) {
			t.Errorf("%q is shown: code, a short value, a code file's line or past maxLabelled:\n%s", not, files)
		}
	}
}

// An instruction answered since (all but the latest) shows a shorter
// head and end (olderCoreRunes) than the latest (humanCoreRunes): a long
// template or paste the session already acted on gives its room to the
// work; where the budget leaves room once no instruction was cut, it
// shows as much as the latest.
func TestOlderInstructionsShowLess(t *testing.T) {
	long := func(word string) string { // under maxHumanRunes: the fold keeps it whole
		return linesUpTo("", word+" context line %d\n", 2*humanCoreRunes)
	}
	evs := []session.Event{human("Start the work."), say("Started."), human("Older: " + long("older")), say("Done with that.")}
	for k := 0; k < 10; k++ {
		id := fmt.Sprintf("b%d", k)
		evs = append(evs, call("Bash", id, fmt.Sprintf(`{"command":"make step-%d"}`, k)), result("Bash", id, true, fmt.Sprintf("step %d built: %s", k, strings.Repeat("x", 200))))
	}
	evs = append(evs, human("Latest: "+long("latest")), say("On it."))
	evs = seqd(evs...)
	olderSeq := evs[2].Seq
	text := strings.TrimSpace(evs[2].Text)
	short := quoteLines(clipHeadTail(text, olderCoreRunes, "", olderSeq))
	full := quoteLines(clipHeadTail(text, humanCoreRunes, "", olderSeq))
	latest := quoteLines(clipHeadTail(strings.TrimSpace(evs[len(evs)-2].Text), humanCoreRunes, "", evs[len(evs)-2].Seq))
	sawShort, sawFull := false, false
	for budget := 24000; budget >= 8000; budget -= 1000 {
		tp := build(t, "s", evs, Options{Budget: budget}, nil)
		goal := blockText(t, tp, "Goal")
		switch {
		case strings.Contains(goal, full):
			sawFull = true
		case strings.Contains(goal, short):
			sawShort = true
			if !strings.Contains(goal, latest) {
				t.Fatalf("budget %d: the older instruction shows less, and the latest is not whole:\n%s", budget, goal)
			}
		}
	}
	if !sawShort || !sawFull {
		t.Fatalf("the older instruction was shown short at some budget: %v, grown at another: %v", sawShort, sawFull)
	}
}

// A short answer ("yes to all") takes its meaning from the message it
// answers: that message stays as the open turn's last message was kept,
// its head and its end (the offer) past maxReplyRunes; a message answered
// by a whole instruction keeps its head alone (maxParagraphRunes).
func TestAShortAnswerKeepsTheOfferItAnswers(t *testing.T) {
	report := linesUpTo("Done. Changes made:\n", "- changed module %d and its tests\n", 2*maxReplyRunes)
	offer := "If you want more:\n- Map acceleration per-section.\n- Add a preview of the bundle before writing."
	for _, tc := range []struct {
		answer    string
		wantOffer bool
	}{
		{"yes to all", true},
		{"Instead, " + strings.Repeat("rewrite the loader in full and keep the old API for callers. ", 5), false},
	} {
		evs := seqd(human("Deepen the generators."), say(report+"\n\n"+offer), human(tc.answer), say("On it."), say("Working on the first item now."))
		tp := build(t, "s", evs, Options{}, nil)
		bp := blockText(t, tp, "Breakpoint")
		if got := strings.Contains(bp, "Add a preview of the bundle before writing."); got != tc.wantOffer {
			t.Fatalf("answer %.20q: the offer in the Breakpoint: %v, want %v:\n%s", tc.answer, got, tc.wantOffer, bp)
		}
		if !strings.Contains(bp, "Done. Changes made:") {
			t.Fatalf("answer %.20q: the answered message lost its head:\n%s", tc.answer, bp)
		}
		for _, line := range strings.Split(bp, "\n") {
			if strings.HasPrefix(line, fmt.Sprintf("seq=%d:", evs[1].Seq)) {
				// The message's text runs from this line to the next seq line.
				k := strings.Index(bp, line)
				text := bp[k:]
				for _, next := range []string{"\nseq=", "\n— seq="} {
					if j := strings.Index(text[1:], next); j >= 0 {
						text = text[:j+1]
					}
				}
				limit := maxParagraphRunes
				if tc.wantOffer {
					limit = maxReplyRunes // answered by a short answer: kept as the last message was
				}
				if n := len([]rune(text)); n > limit+80 {
					t.Fatalf("answer %.20q: the answered message takes %d runes, want at most %d and its marks", tc.answer, n, limit)
				}
			}
		}
	}
}

// The open turn's last message, past maxReplyRunes, keeps its head and its
// end: a report ends with what is next and what it asks.
func TestTheLastMessageKeepsItsEnd(t *testing.T) {
	report := linesUpTo("All requested updates are in:\n", "- updated module %d and its tests\n", 2*maxReplyRunes)
	evs := seqd(human("Deepen the generators."), say(report+"\nNext: wire the bundler into the CLI. Want me to do it?"))
	bp := blockText(t, build(t, "s", evs, Options{}, nil), "Breakpoint")
	for _, want := range []string{"All requested updates are in:", "Next: wire the bundler into the CLI. Want me to do it?", "[cut: recall seq="} {
		if !strings.Contains(bp, want) {
			t.Fatalf("the last message lost %q:\n%s", want, bp)
		}
	}
}

// A failed test run shows the line that says what failed: pytest's "E "
// assertion line, past a wrapper's first line (Codex's "failed in sandbox
// … stdout: …", kept anyway) and past source lines that merely hold the
// word "error"; Codex's empty ", stderr:" tail says nothing.
func TestAFailureShowsItsAssertion(t *testing.T) {
	out := "failed in sandbox MacosSeatbelt with execution error: sandbox denied exec error, exit code: 1, stdout: .F      [100%]\n" +
		"=================================== FAILURES ===================================\n" +
		"    def test_status(monkeypatch):\n" +
		"        result = runner.invoke(cli, [\"status\"])  # should degrade, not error\n" +
		">       assert \"Offline (local-only)\" in out\n" +
		"E       AssertionError: assert ('Offline (local-only)' in '│ 缺少密码，仅展示本地配置 │')\n" +
		"\n" +
		"tests/test_status_local_only.py:28: AssertionError\n" +
		"=========================== short test summary info ============================\n" +
		"FAILED tests/test_status_local_only.py::test_status\n" +
		"1 failed, 1 passed in 0.87s\n" +
		", stderr: \n"
	got := keyLines(out, false)
	joined := strings.Join(got, "\n")
	for _, want := range []string{"E       AssertionError: assert ('Offline (local-only)' in '│ 缺少密码", "1 failed, 1 passed in 0.87s"} {
		if !strings.Contains(joined, want) {
			t.Errorf("key lines lack %q:\n%s", want, joined)
		}
	}
	for _, noise := range []string{"should degrade, not error", ", stderr:"} {
		if strings.Contains(joined, noise) {
			t.Errorf("key lines quote %q:\n%s", noise, joined)
		}
	}
	// Go's testing says what failed at x_test.go:N.
	goOut := "--- FAIL: TestCompactKeepsOrder (0.00s)\n    api_test.go:58: replayed 2 records, want 3\nFAIL\nFAIL\tgithub.com/acme/q/api\t0.560s\nFAIL\nexit status 1\n"
	if got := strings.Join(keyLines(goOut, false), "\n"); !strings.Contains(got, "api_test.go:58: replayed 2 records, want 3") {
		t.Errorf("a go test failure's key lines lack the test's message:\n%s", got)
	}
}

// Where room is left, the newest written files show the lines their last
// change adds at length (the context an edit repeats is no change); where
// the budget is short, that section goes whole, heading and cut line too,
// before anything else but the conversation tail.
func TestTheNewestChangesAtLength(t *testing.T) {
	var added []string
	for k := range 12 {
		added = append(added, fmt.Sprintf("    status_key_%02d = '%s'", k, strings.Repeat("v", 20)))
	}
	in, err := json.Marshal(map[string]string{"file_path": "/r/src/i18n.py", "old_string": "MESSAGES = {\n}", "new_string": "MESSAGES = {\n" + strings.Join(added, "\n") + "\n}"})
	if err != nil {
		t.Fatal(err)
	}
	edit := string(in)
	base := []session.Event{human("Add the status keys."), call("Edit", "e1", edit), result("Edit", "e1", true, "The file /r/src/i18n.py has been updated."), say("Added.")}
	evs := seqd(base...)
	full := blockText(t, build(t, "s", evs, Options{}, nil), "Workspace Files")
	if !strings.Contains(full, "The last changes of the newest files") || !strings.Contains(full, "status_key_05") {
		t.Fatalf("with room, the last change is not shown at length:\n%s", full)
	}
	if strings.Contains(full, "MESSAGES = {") {
		t.Fatalf("the context the edit repeats is shown as a change:\n%s", full)
	}
	// A read after the edit: the change still cites the edit's seq.
	read := seqd(append(slices.Clone(base[:3]), call("Read", "r1", `{"file_path":"/r/src/i18n.py"}`), result("Read", "r1", true, "MESSAGES = {}"), say("Read it."))...)
	if files := blockText(t, build(t, "s", read, Options{}, nil), "Workspace Files"); !strings.Contains(files, fmt.Sprintf("- /r/src/i18n.py (seq=%d): status_key_00", read[2].Seq)) {
		t.Fatalf("the last change does not cite its edit's seq %d:\n%s", read[2].Seq, files)
	}
	for budget := 16000; budget >= 1500; budget -= 100 {
		tp := build(t, "s", seqd(append(slices.Clone(base), say(strings.Repeat("a long report line\n", 20000/19*budget/16000)))...), Options{Budget: budget}, nil)
		files := blockText(t, tp, "Workspace Files")
		if strings.Contains(files, "status_key_05") {
			continue
		}
		if strings.Contains(files, "The last changes of the newest files") || strings.Contains(files, "change;") || strings.Contains(strings.Join(tp.Warnings, " "), "changes (Workspace Files)") {
			t.Fatalf("budget %d: the section cut whole leaves a heading, a cut line or a warning:\n%s\n%q", budget, files, tp.Warnings)
		}
		return
	}
	t.Fatalf("no budget cut the section")
}

// An answer that is a number picks an item of the list the answered
// message offers at its end ("6" to "… 6. **All of the above** in priority
// order?"): the item shows with the message's head, however long the
// message.
func TestANumberAnswerKeepsTheItemItPicks(t *testing.T) {
	report := linesUpTo("## Review\n", "- finding %d about the code\n", 2*maxReplyRunes)
	offer := "Would you like me to:\n\n1. **Fix the redaction bug** immediately?\n2. **Set up pytest** with initial test cases?\n6. **All of the above** in priority order?\n7) Only the docs.\n\nLet me know which improvements you'd like to tackle first!"
	for _, tc := range []struct {
		answer string
		want   []string
	}{
		{"6", []string{"6. **All of the above** in priority order?"}},
		{"2 and 7", []string{"2. **Set up pytest** with initial test cases?", "7) Only the docs."}},
		{"#1", []string{"1. **Fix the redaction bug** immediately?"}},
	} {
		evs := seqd(human("Review the repo and propose improvements."), say(report+"\n\n"+offer), human(tc.answer), say("On it."))
		bp := blockText(t, build(t, "s", evs, Options{}, nil), "Breakpoint")
		for _, w := range append(tc.want, "## Review", "Let me know which improvements") {
			if !strings.Contains(bp, w) {
				t.Errorf("answer %q: the Breakpoint lacks %q:\n%s", tc.answer, w, bp)
			}
		}
	}
}

// A failure still pending shows two lines: the one that names its error
// and the output's last key line (a test run's verdict, "4 failed, 31
// passed"), not the line a host puts first ("Exit code 1").
func TestAPendingFailureShowsItsErrorAndItsVerdict(t *testing.T) {
	out := "Exit code 1\n============================= test session starts =============================\ncollected 35 items\n\n" +
		"tests/test_redaction.py::test_github_token FAILED [ 11%]\n" +
		"E   AssertionError: assert '[REDACTED_GITHUB_TOKEN]' in 'GITHUB_token=[REDACTED]'\n" +
		"=========================== short test summary info ===========================\n" +
		"FAILED tests/test_redaction.py::TestAPIKeyRedaction::test_github_token - AssertionError\n" +
		"FAILED tests/test_redaction.py::TestAPIKeyRedaction::test_slack_token - AssertionError\n" +
		"======================== 4 failed, 31 passed in 0.39s =========================\n"
	evs := seqd(human("Fix the redaction patterns."), call("Bash", "t1", `{"command":"python -m pytest tests/test_redaction.py"}`), result("Bash", "t1", false, out), say("Four fail; the generic patterns match first."))
	ps := blockText(t, build(t, "s", evs, Options{}, nil), "Pending State")
	for _, want := range []string{"E   AssertionError: assert '[REDACTED_GITHUB_TOKEN]'", "4 failed, 31 passed in 0.39s"} {
		if !strings.Contains(ps, want) {
			t.Errorf("Pending State lacks %q:\n%s", want, ps)
		}
	}
	if strings.Contains(ps, "Exit code 1") {
		t.Errorf("Pending State quotes the host's exit code line:\n%s", ps)
	}
}

// A failure a later call fixed is not pending, but what did not work here
// and what did is a choice the next window must not redo: the last fixed
// failures show with their error line and the call that fixed them.
func TestAFixedFailureShowsWithItsFix(t *testing.T) {
	evs := seqd(human("Commit it."),
		call("Bash", "c1", `{"command":"git commit -m \"Add the tests\""}`),
		result("Bash", "c1", false, "Exit code 128\nerror: gpg failed to sign the data:\nfatal: failed to write commit object"),
		call("Bash", "c2", `{"command":"git commit --no-gpg-sign -m \"Add the tests\""}`),
		result("Bash", "c2", true, "[main ffe9ab7] Add the tests\n 2 files changed, 40 insertions(+)"),
		say("Committed without signing."))
	ps := blockText(t, build(t, "s", evs, Options{}, nil), "Pending State")
	for _, want := range []string{
		"1 failure was fixed by a later call, which worked around it another way:",
		"- seq=3 FAILED: $ git commit -m \"Add the tests\"\n    → error: gpg failed to sign the data:\n    fixed by seq=5: git commit --no-gpg-sign -m \"Add the tests\"",
	} {
		if !strings.Contains(ps, want) {
			t.Errorf("Pending State lacks %q:\n%s", want, ps)
		}
	}
	if strings.Contains(ps, "Failed tool calls not fixed since") || strings.Contains(ps, "later run of the same call") {
		t.Errorf("a fixed failure is listed as pending, or its fix called a run of the same call:\n%s", ps)
	}
	// Of more fixed failures, the count says how many of the last show.
	evs = seqd(human("Commit it."),
		call("Bash", "r1", `{"command":"make test"}`),
		result("Bash", "r1", false, "FAIL\tgithub.com/acme/q\t0.1s"),
		call("Bash", "r2", `{"command":"make test"}`),
		result("Bash", "r2", true, "ok  \tgithub.com/acme/q\t0.1s"),
		call("Bash", "c1", `{"command":"git commit -m \"Add the tests\""}`),
		result("Bash", "c1", false, "Exit code 128\nerror: gpg failed to sign the data:\nfatal: failed to write commit object"),
		call("Bash", "c2", `{"command":"git commit --no-gpg-sign -m \"Add the tests\""}`),
		result("Bash", "c2", true, "[main ffe9ab7] Add the tests\n 2 files changed, 40 insertions(+)"))
	ps = blockText(t, build(t, "s", evs, Options{}, nil), "Pending State")
	if want := "2 failures were fixed by a later call; the last worked around another way, with the call that fixed it:"; !strings.Contains(ps, want) {
		t.Errorf("Pending State lacks %q:\n%s", want, ps)
	}
	// A later run that only shares the first words is no fix to show (it
	// counts as one, as before); nor is the same command run again.
	for _, later := range []string{"go test ./internal/store/...", "go test ./internal/journal/..."} {
		evs := seqd(human("Test it."),
			call("Bash", "g1", `{"command":"go test ./internal/journal/..."}`),
			result("Bash", "g1", false, "--- FAIL: TestReplay (0.00s)\n    journal_test.go:74: replayed 2 records, want 3\nFAIL"),
			call("Bash", "g2", `{"command":`+strconv.Quote(later)+`}`),
			result("Bash", "g2", true, "ok  \tgithub.com/acme/q/internal/store\t0.2s"))
		ps := blockText(t, build(t, "s", evs, Options{}, nil), "Pending State")
		if strings.Contains(ps, "fixed by seq=") || !strings.Contains(ps, "1 failure was fixed by a later run of the same call: not listed.") {
			t.Errorf("after %q: a fix shown, or the count lost:\n%s", later, ps)
		}
	}
}

// stillPending is the part of a Pending State block that lists the
// failures not fixed since ("" when there is none).
func stillPending(block string) string {
	_, after, ok := strings.Cut(block, "Failed tool calls not fixed since:")
	if !ok {
		return ""
	}
	if k := strings.Index(after, "\nIn flight at the cut"); k >= 0 {
		after = after[:k]
	}
	return after
}

// A short instruction ("both") takes its meaning from the message it
// answers: that message outlives the older ones, even those that report
// an outcome, when the budget cuts the Breakpoint's earlier messages.
func TestTheMessageAShortAnswerAnswersIsCutLast(t *testing.T) {
	evs := []session.Event{human("Build the wallpaper app, part by part.")}
	for k := 0; k < 40; k++ {
		evs = append(evs, say(fmt.Sprintf("Done with part %d: cargo build finished, 12 tests passed. ", k)+strings.Repeat("The module now reads its settings once. ", 12)))
	}
	question := "The transcript is 2.3MB. I could:\n\n1. **Include raw JSONL** - complete but not very readable\n2. **Convert to Markdown** - more readable\n3. **Both**\n\n" + strings.Repeat("The raw file holds the tool calls and the system messages as they ran, which shows how the agent works. ", 8) + "\n\nWhich would you prefer?"
	evs = append(evs, say(question), human("both"),
		call("Bash", "c1", `{"command":"mkdir -p transcripts && cp s.jsonl transcripts/conversation.jsonl"}`))
	bp := blockText(t, build(t, "s", seqd(evs...), Options{}, nil), "Breakpoint")
	if !strings.Contains(bp, "Done with part 39") || strings.Contains(bp, "Done with part 0:") {
		t.Fatalf("the budget should keep the newest reports and cut the oldest:\n%s", bp)
	}
	if !strings.Contains(bp, "**Convert to Markdown**") {
		t.Fatalf("the message \"both\" answers was cut:\n%s", bp)
	}
	// A long instruction stands alone, and so does a short one after a
	// message that asked nothing ("continue"): no message is taken for
	// the one they answer.
	if b := fold(t, "s", seqd(evs...)); b.answeredParagraph(b.st.Carry.Paragraphs) < 0 {
		t.Fatalf("the question \"both\" answers is not found")
	}
	long := slices.Clone(evs)
	long[len(long)-2] = human("both, and then " + strings.Repeat("write a converter script that keeps every tool call readable; ", 5))
	if b := fold(t, "s", seqd(long...)); b.answeredParagraph(b.st.Carry.Paragraphs) >= 0 {
		t.Fatalf("a long instruction is taken for a short answer")
	}
	told := slices.Clone(evs)
	told[len(told)-3] = say(strings.Replace(question, "Which would you prefer?", "I will wait here.", 1))
	told[len(told)-2] = human("continue")
	if b := fold(t, "s", seqd(told...)); b.answeredParagraph(b.st.Carry.Paragraphs) >= 0 {
		t.Fatalf("a message that asked nothing is taken for the one \"continue\" answers")
	}
}

// The Goal names every instruction it does not quote: those the fold did
// not keep (past keptHumans) are counted in its cut line with their seqs,
// as the budget's cuts are, never left out unsaid; the first is quoted.
func TestTheGoalCountsTheInstructionsTheFoldDidNotKeep(t *testing.T) {
	var evs []session.Event
	n := keptHumans + 5
	for k := 0; k < n; k++ {
		evs = append(evs, human(fmt.Sprintf("instruction number %d", k)), say("ok"))
	}
	tp := build(t, "s", seqd(evs...), Options{Budget: MaxBudget}, nil)
	goal := blockText(t, tp, "Goal")
	for _, want := range []string{"instruction number 0", fmt.Sprintf("instruction number %d", n-1), "[cut: 4 instructions; recall seq=3..9]"} {
		if !strings.Contains(goal, want) {
			t.Fatalf("Goal lacks %q:\n%s", want, goal)
		}
	}
	if strings.Contains(goal, "instruction number 4\n") { // kept: the first and the newest 59

		t.Fatalf("the Goal quotes an instruction the fold did not keep:\n%s", goal)
	}
}

// A command in flight at the cut is what the next window must judge ran
// or not: it is shown up to inFlightRunes, where Recent Actions clips a
// command at whatRunes.
func TestACommandInFlightShowsItsTarget(t *testing.T) {
	cmd := "mkdir -p /mnt/data/Development/claude/cosmic-bing-wallpaper/transcripts && cp /home/roy/.claude/projects/-mnt-data-Development-claude/8aef9b8f-ae65-42f1-b662-1b8e68b8fd1e.jsonl /mnt/data/Development/claude/cosmic-bing-wallpaper/transcripts/conversation.jsonl"
	evs := seqd(withMeta(human("both"), "cwd", "/mnt/data/Development/claude"), call("Bash", "c1", fmt.Sprintf(`{"command":%q}`, cmd)))
	p := blockText(t, build(t, "s", evs, Options{}, nil), "Pending State")
	if !strings.Contains(p, "transcripts/conversation.jsonl") {
		t.Fatalf("the in-flight command lost its target:\n%s", p)
	}
	long := strings.Repeat("x", 2*inFlightRunes)
	evs = seqd(human("go"), call("Bash", "c1", fmt.Sprintf(`{"command":"echo %s"}`, long)))
	p = blockText(t, build(t, "s", evs, Options{}, nil), "Pending State")
	if strings.Contains(p, long[:inFlightRunes]) {
		t.Fatalf("an in-flight command past inFlightRunes is shown whole:\n%s", p)
	}
}

// A sub-agent in flight at the cut is work under way: its task is shown
// with the head and the end of the prompt it was given, not its short
// description alone.
func TestASubAgentInFlightShowsItsPrompt(t *testing.T) {
	prompt := "Search the web and research what libraries AWS provides pre-installed in Lambda runtimes.\n\n" + strings.Repeat("- one more runtime version to look at\n", 20) + "Look for:\n- `public.ecr.aws/lambda/nodejs`\n- `public.ecr.aws/lambda/python`\n\nAre they usable for our purpose?"
	in, err := json.Marshal(map[string]string{"description": "Research AWS Lambda runtime libs", "subagent_type": "Explore", "prompt": prompt})
	if err != nil {
		t.Fatal(err)
	}
	evs := seqd(human("Mirror the Lambda runtimes in our own images."), call("Task", "t1", string(in)))
	p := blockText(t, build(t, "s", evs, Options{}, nil), "Pending State")
	for _, want := range []string{"- seq=2 Task: Research AWS Lambda runtime libs: Search the web and research", "public.ecr.aws/lambda/python", "[cut: recall seq=2]"} {
		if !strings.Contains(p, want) {
			t.Fatalf("Pending State lacks %q:\n%s", want, p)
		}
	}
}

// The failure the open turn ended on is what the next window must handle
// first: Pending State shows its output's lines (blank ones, noise and a
// host's wrapper left out) up to lastFailureRunes, head and end, where an
// older failure shows two key lines.
func TestTheLastFailureShowsItsOutput(t *testing.T) {
	out := "Exit code 1\nremote: error: GH013: Repository rule violations found for refs/heads/topic.\nremote:\nremote:     - Push cannot contain secrets\nremote:\n" +
		"remote:       —— Slack API Token ———\nremote:        locations:\nremote:          - commit: ffe9ab782252faaf8cfdadb308f113fc535a7879\nremote:            path: tests/test_redaction.py:32\n" +
		"remote:       —— Stripe API Key ———\nremote:            path: tests/test_redaction.py:220\n" +
		" ! [remote rejected] topic -> topic (push declined due to repository rule violations)\nerror: failed to push some refs to 'https://example.com/r.git'\n"
	evs := seqd(human("Push it."),
		call("Bash", "b0", `{"command":"go vet ./..."}`), result("Bash", "b0", false, "Exit code 1\n./a.go:3: unreachable code\n./a.go:5: error: x\n./a.go:7: error: y\n./a.go:9: error: something else\nFAIL 4 errors\n"),
		call("Bash", "b1", `{"command":"git push -u origin topic"}`), result("Bash", "b1", false, out))
	b, src := foldWithOffsets(t, evs)
	tp, err := b.BuildFrom(Options{}, nil, src)
	if err != nil {
		t.Fatal(err)
	}
	p := blockText(t, tp, "Pending State")
	for _, want := range []string{"Push cannot contain secrets", "Stripe API Key", "tests/test_redaction.py:32", "failed to push some refs"} {
		if !strings.Contains(p, want) {
			t.Fatalf("Pending State lacks %q:\n%s", want, p)
		}
	}
	if strings.Contains(p, "→ Exit code 1") || strings.Contains(p, "→ remote:\n") {
		t.Fatalf("a wrapper or a blank line shown:\n%s", p)
	}
	if strings.Contains(p, "something else") {
		t.Fatalf("an older failure shown at length:\n%s", p)
	}
}

// The open turn's last call, when it succeeded, is what was done last:
// Recent Actions shows its output's lines (lastActionRunes, head and end),
// where an older call shows its key lines.
func TestTheLastCallShowsItsOutput(t *testing.T) {
	push := "remote: This repository moved. Please use the new location:\nremote:   git@github.com:obsessiondb/chkit.git\nTo github.com:obsessiondb/chx.git\n   958e769..cd7e235  main -> main\n"
	evs := seqd(human("Publish and push."),
		call("Bash", "b0", `{"command":"git push"}`), result("Bash", "b0", true, "remote: an older notice\nTo x.git\n   1111111..2222222  main -> main\n"),
		call("Bash", "b1", `{"command":"git push"}`), result("Bash", "b1", true, push))
	b, src := foldWithOffsets(t, evs)
	tp, err := b.BuildFrom(Options{}, nil, src)
	if err != nil {
		t.Fatal(err)
	}
	a := blockText(t, tp, "Recent Actions")
	if !strings.Contains(a, "git@github.com:obsessiondb/chkit.git") || !strings.Contains(a, "958e769..cd7e235") {
		t.Fatalf("the last call's output is not shown:\n%s", a)
	}
	if strings.Contains(a, "an older notice") {
		t.Fatalf("an older call shown at length:\n%s", a)
	}
}

// A closed turn's last message is its answer (Codex calls it the turn's
// final_answer): when the budget cuts the Breakpoint's earlier messages,
// an answer is kept as long as a message that reports an outcome, not cut
// before them as plain narration is.
func TestATurnsAnswerOutlivesItsNarration(t *testing.T) {
	var evs []session.Event
	for k := 0; k < 30; k++ {
		evs = append(evs, human(fmt.Sprintf("Question %d?", k)),
			say(fmt.Sprintf("Narration %d: the build finished and 12 tests passed. ", k)+strings.Repeat("Still looking at the cache layer. ", 10)),
			say(fmt.Sprintf("Answer %d: keep the cache per tenant. ", k)+strings.Repeat("The reasons are in the notes. ", 10)))
	}
	evs = append(evs, human("Go on."))
	bp := blockText(t, build(t, "s", seqd(evs...), Options{}, nil), "Breakpoint")
	if !strings.Contains(bp, "[cut: ") {
		t.Fatalf("nothing was cut; the test needs a longer session:\n%s", bp)
	}
	answers, narration := strings.Count(bp, ": Answer "), strings.Count(bp, ": Narration ")
	if answers == 0 || answers < narration-1 {
		t.Fatalf("%d answers and %d narrations kept: an answer should be kept as long as the narration:\n%s", answers, narration, bp)
	}
}

// The branch the work is on (meta gitBranch of the newest instruction
// that has one; Codex's session_meta also names the commit the session
// started at) is named in the Workspace Files block, even when no file
// was touched. The commit by its first 12 digits: git abbreviates a hash
// to 7 at least and more in a larger repository (a real Codex session's
// person and agent wrote 8bdf1fed), and a name of 12 holds any of them.
func TestTheGitBranchIsNamed(t *testing.T) {
	meta := session.Event{Type: session.TypeSystem, Source: session.Source{Kind: session.KindSystem, Name: "session_meta"}, Text: "Codex session",
		Meta: map[string]string{"cwd": "/w", "gitBranch": "master", "gitCommit": "fee9a60da2ff0665e09a7c8cfbd5bcbf9560c9bc"}}
	tp := build(t, "s", seqd(meta, human("Convert the variables."), say("Done.")), Options{}, nil)
	if w := blockText(t, tp, "Workspace Files"); !strings.Contains(w, "Git: branch master, at commit fee9a60da2ff when the session started.") {
		t.Fatalf("Workspace Files:\n%s", w)
	}
	tp = build(t, "s", seqd(withMeta(human("Start."), "gitBranch", "main"), withMeta(human("Go on."), "gitBranch", "soph/allow-dogfood"),
		call("Write", "w1", `{"file_path":"/r/a.go","content":"package a"}`), result("Write", "w1", true, "ok")), Options{}, nil)
	if w := blockText(t, tp, "Workspace Files"); !strings.Contains(w, "Git: branch soph/allow-dogfood.") || strings.Contains(w, "at commit") {
		t.Fatalf("Workspace Files:\n%s", w)
	}
}

// A question asked with a full-width question mark ("要我现在提交吗？") is a
// question too: the short answer to it ("好") keeps it.
func TestAFullWidthQuestionIsAnswered(t *testing.T) {
	b := fold(t, "s", seqd(human("修复登录的问题。"), say("已修复，测试全部通过。要我现在提交吗？"), human("好")))
	if k := b.answeredParagraph(b.st.Carry.Paragraphs); k < 0 {
		t.Fatal("the question 好 answers is not found")
	}
}

// What the host last said the agent may do (meta permissionMode of
// Claude Code's lines and records; approvalPolicy, sandbox, network and
// collaborationMode of Codex's turn settings) is named in the Workspace
// Files block once one changed during the session or one is plan mode,
// with the seq a setting changed at and what it was before;
// Claude Code's EnterPlanMode puts the session in plan mode until an
// ExitPlanMode the person approved, and plan mode says what it means.
func TestTheHostSettingsAreNamed(t *testing.T) {
	settings := func(kv ...string) session.Event {
		ev := session.Event{Type: session.TypeSystem, Source: session.Source{Kind: session.KindSystem, Name: "turn_context"}, Text: "Codex turn settings", Meta: map[string]string{}}
		for k := 0; k+1 < len(kv); k += 2 {
			ev.Meta[kv[k]] = kv[k+1]
		}
		return ev
	}
	tp := build(t, "s", seqd(settings("approvalPolicy", "on-request", "sandbox", "workspace-write", "network", "off"), human("Port the pager."),
		say("On it."), settings("approvalPolicy", "on-request", "sandbox", "read-only"), human("Go on."), say("Read-only now.")), Options{}, nil)
	const codex = "Host settings, as the host last said them: approval on-request, sandbox read-only since seq=4 (was workspace-write), network off."
	if w := blockText(t, tp, "Workspace Files"); !strings.Contains(w, codex) {
		t.Fatalf("Workspace Files lacks %q:\n%s", codex, w)
	}

	tp = build(t, "s", seqd(withMeta(human("Start."), "permissionMode", "bypassPermissions"), say("ok"),
		call("EnterPlanMode", "p1", `{}`), result("EnterPlanMode", "p1", true, "Entered plan mode."), say("Exploring.")), Options{}, nil)
	const plan = "Host settings, as the host last said them: permission mode plan since seq=3 (was bypassPermissions): the host lets the agent read and plan, not edit, until the person approves a plan."
	if w := blockText(t, tp, "Workspace Files"); !strings.Contains(w, plan) {
		t.Fatalf("Workspace Files lacks %q:\n%s", plan, w)
	}
	tp = build(t, "s", seqd(withMeta(human("Start."), "permissionMode", "default"), call("EnterPlanMode", "p1", `{}`), result("EnterPlanMode", "p1", true, "ok"),
		call("ExitPlanMode", "p2", `{"plan":"1. port"}`), result("ExitPlanMode", "p2", true, "User has approved your plan.")), Options{}, nil)
	const approved = "Host settings, as the host last said them: permission mode default since seq=5 (was plan)."
	if w := blockText(t, tp, "Workspace Files"); !strings.Contains(w, approved) {
		t.Fatalf("Workspace Files lacks %q:\n%s", approved, w)
	}

	for _, evs := range [][]session.Event{
		{human("Start."), say("ok")},
		{withMeta(human("Start."), "permissionMode", "bypassPermissions"), say("ok"), withMeta(human("Go on."), "permissionMode", "bypassPermissions")},
		{settings("approvalPolicy", "on-request", "sandbox", "workspace-write"), human("Start."), settings("approvalPolicy", "on-request", "sandbox", "workspace-write")},
	} {
		tp = build(t, "s", seqd(evs...), Options{}, nil)
		if w := blockText(t, tp, "Workspace Files"); strings.Contains(w, "Host settings") {
			t.Fatalf("settings that never changed and are not plan mode are named (the host sets its own for the next session):\n%s", w)
		}
	}
}

// The message a short answer answers ("Use the ICU transliteration for
// now" to a plan with its verification steps) is what the person said yes
// to: it is carried as the open turn's last message was (whole up to
// maxReplyRunes), its middle too, not cut to a paragraph's length.
func TestTheAnsweredPlanIsCarriedWhole(t *testing.T) {
	plan := linesUpTo("Proposed plan:\n", "%d. regenerate the locale files of region %[1]d from the English source\n", maxParagraphRunes+800) +
		"Verification:\n- Spot-check a few records per region/locale.\n" +
		linesUpTo("", "- diff-check file %d\n", 1200) + "\nIf you want me to proceed now, I can regenerate all locale files offline."
	if n := len([]rune(plan)); n <= maxParagraphRunes || n > maxReplyRunes {
		t.Fatalf("the plan has %d runes: the test wants one between %d and %d", n, maxParagraphRunes, maxReplyRunes)
	}
	evs := seqd(human("Translate the seed files."), say(plan), human("Use the ICU transliteration for now"), say("Regenerating."))
	bp := blockText(t, build(t, "s", evs, Options{}, nil), "Breakpoint")
	containsAll(t, "Breakpoint", bp, "Proposed plan:", "Spot-check a few records per region/locale.", "If you want me to proceed now")
	if strings.Contains(bp, fmt.Sprintf("[cut: recall seq=%d]", evs[1].Seq)) {
		t.Fatalf("the answered plan was cut:\n%s", bp)
	}
}

// A look-up reads: a command made of readers and viewers alone (cat,
// sed -n, rg, git log, a tracker's view: gh issue view, jira issue view,
// Get-Content) on what the user named. A command that does something to
// it (copies it, moves the issue, runs a script or its tests through npx
// or pnpm exec) is an action, whatever it prints: its build log is no
// spec.
func TestALookUpReadsWhatTheUserNamed(t *testing.T) {
	spec := "Issue 42: the exporter drops the last line\n" + strings.Repeat("- Keep the CSV header stable.\n", 30)
	build := func(cmd, out string) *Tape {
		t.Helper()
		return build(t, "s", seqd(human("Fix PROJ-42 in e2e/export.spec.ts and report.sh."),
			call("Bash", "b1", fmt.Sprintf(`{"command":%q}`, cmd)), result("Bash", "b1", true, out)), Options{}, nil)
	}
	for _, cmd := range []string{
		"cat e2e/export.spec.ts",
		"sed -n '1,200p' e2e/export.spec.ts | nl",
		"git log --oneline -- e2e/export.spec.ts",
		`git log --oneline -- e2e/export.spec.ts 2>&1 | grep -E "(fix|feat)"`,
		"Get-Content e2e/export.spec.ts",
		"gh issue view PROJ-42 --comments",
		"jira issue view PROJ-42",
	} {
		tp := build(cmd, spec)
		if blk, ok := tp.Block("Looked Up"); !ok || !strings.Contains(blk, "Issue 42: the exporter") {
			t.Errorf("%q is a look-up: Looked Up %q", cmd, blk)
		}
		if k := milestoneKind(cmd); k != "" {
			t.Errorf("%q is a milestone (%s): it changes nothing", cmd, k)
		}
	}
	log := "> ship@0.0.0 build:api\n> tsc\n" + strings.Repeat("vite v6.4.1 building for production...\n", 30)
	for _, cmd := range []string{
		"rm -rf test-results && PLAYWRIGHT_WORKERS=1 pnpm exec playwright test e2e/export.spec.ts",
		"npx playwright test e2e/export.spec.ts",
		"bash report.sh && git diff",
		"/bin/cp -f e2e/export.spec.ts /tmp/ && ls /tmp",
		"jira issue move PROJ-42 Done && jira issue view PROJ-42",
	} {
		tp := build(cmd, log)
		if blk, ok := tp.Block("Looked Up"); ok {
			t.Errorf("%q is no look-up:\n%s", cmd, blk)
		}
	}
}

// 9c. A shell command that printed nothing still says what it did (a
// server started in the background, a file moved, a folder made): its
// command line is its outcome, and it ranks with the commands. Only a
// call whose work another block holds (a read, an edit, a search, a
// shell command that only reads) says nothing without its output.
func TestAQuietCommandRanksWithTheCommands(t *testing.T) {
	as := []action{
		{Seq: 1, Tool: "shell_command", What: "python3 -m http.server 8000 &", OK: true}, // 0: acts, prints nothing
		{Seq: 2, Tool: "Read", What: "a.go", OK: true},                                   // 1: quiet
		{Seq: 3, Tool: "Bash", What: "cat notes.txt", OK: true},                          // 2: a read that printed nothing: quiet
		{Seq: 4, Tool: "Bash", What: "go vet ./...", OK: true},                           // 3: quoted
		{Seq: 5, Tool: "Bash", What: "mkdir -p build && mv a.out build/", OK: true},      // 4: acts
		{Seq: 6, Tool: "Bash", What: "git status", OK: true},                             // 5: quoted
		{Seq: 7, Tool: "Bash", What: "go test ./...", OK: true},                          // 6: quoted
		{Seq: 8, Tool: "Bash", What: "go build ./...", OK: true},                         // 7: quoted
	}
	quoted := func(a action) bool { return a.Seq == 4 || a.Seq >= 6 }
	got := actionCutOrder(as, quoted)
	want := []int{1, 2, 0, 3, 4, 5, 6, 7}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("cut order %v, want %v", got, want)
	}
}

// A test is defined by its name, and many frameworks name it by a string
// (bats' @test "…", Jest's and Mocha's it("…") and test("…"), ExUnit's
// test "…" do): a test file's line says which tests it holds. Prose that
// merely says "it" or "test" defines nothing.
func TestATestIsDefinedByItsName(t *testing.T) {
	bats := "@test \"keepass provider resolves relative database from declaring config\" {\n  run fnox get X\n}\n"
	jest := "describe('login', () => {\n  it(\"redirects after sign-in\", async () => {\n    expect(1).toBe(1)\n  })\n})\n"
	prose := "Then test it with the new flag: it should pass.\nIt works.\n"
	for _, tc := range []struct {
		text string
		want []string
	}{
		{bats, []string{"keepass provider resolves relative database from declaring config"}},
		{jest, []string{"login", "redirects after sign-in"}},
		{prose, nil},
	} {
		in, _ := json.Marshal(map[string]string{"file_path": "t.bats", "content": tc.text})
		if got := editSymbols("Write", in); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("editSymbols(%.30q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

// A written file is named by what the rest of the code calls: its
// unindented definitions (types, functions, tests) before the methods
// inside them, so a file of one type with many methods still names the
// function at its end that the program starts it by.
func TestAFilesTopLevelNamesComeFirst(t *testing.T) {
	// More methods than the outline names (maxSymbols, 16): the function
	// at the file's end is named before them all the same.
	methods, names := "", []string{"BingWallpaperTray", "Tray", "run_tray", "new", "refresh", "title", "menu", "icon_name", "tool_tip"}
	for k := 1; k <= 12; k++ {
		methods += fmt.Sprintf("    fn item_%02d(&self) {}\n", k)
		names = append(names, fmt.Sprintf("item_%02d", k))
	}
	rust := "pub struct BingWallpaperTray {\n    x: u8,\n}\n\nimpl BingWallpaperTray {\n    pub fn new() -> Self {}\n    fn refresh(&self) {}\n}\n\nimpl Tray for BingWallpaperTray {\n    fn title(&self) {}\n    fn menu(&self) {}\n    fn icon_name(&self) {}\n    fn tool_tip(&self) {}\n" + methods + "}\n\npub fn run_tray() {}\n"
	in, _ := json.Marshal(map[string]string{"file_path": "src/tray.rs", "content": rust})
	want := names[:maxSymbols]
	if got := editSymbols("Write", in); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("editSymbols = %q, want %q", got, want)
	}
	// A patch's added lines are read past their '+'.
	patch := "*** Begin Patch\n*** Update File: a.py\n@@\n+class Store:\n+    def get(self):\n+        pass\n+def main():\n+    pass\n*** End Patch"
	in, _ = json.Marshal(map[string]string{"input": patch})
	if got, want := editSymbols("apply_patch", in), []string{"Store", "main", "get"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("editSymbols of a patch = %q, want %q", got, want)
	}
}

// The recap a host wrote for the person who came back to the session
// (session.SourceRecap: Claude Code's away_summary, "… Next: …") is the
// work, where it stands and what comes next in a few lines: the tape
// shows the newest, with its seq and labelled model-written, in Host
// Summary; a compaction summary after it is the newer account, and the
// recap goes. A recap never becomes a constraint.
func TestTheNewestRecapIsShown(t *testing.T) {
	recap := func(text string) session.Event {
		return session.Event{Type: session.TypeSystem, Source: session.Source{Kind: session.KindSystem, Name: session.SourceRecap}, Text: text}
	}
	tp := build(t, "s", seqd(
		human("Flatten the layout."),
		recap("Refactored the layout. Next: commit and push when you're ready."),
		say("Committed."),
		recap("Layout refactor committed on alisha/refactor. You must never force push. Next: push the branch and test the per-agent installs."),
		human("Merge main."),
	), Options{}, nil)
	hs := blockText(t, tp, "Host Summary")
	want := "The host's newest recap for the person, seq=4 (" + modelWritten + "):\nLayout refactor committed on alisha/refactor. You must never force push. Next: push the branch and test the per-agent installs."
	if !strings.Contains(hs, want) || strings.Contains(tp.Text, "commit and push when you're ready") {
		t.Errorf("Host Summary does not show the newest recap alone:\n%s", hs)
	}
	if len(tp.Constraints) != 0 {
		t.Errorf("a recap became a constraint: %+v", tp.Constraints)
	}
	tp = build(t, "s", seqd(
		human("Flatten the layout."),
		recap("Layout refactor committed. Next: push the branch."),
		injected(session.KindSystem, "compact-summary", "Summary:\n1. Primary Request: flatten the layout; pushed since."),
	), Options{}, nil)
	if hs := blockText(t, tp, "Host Summary"); strings.Contains(hs, "recap") || !strings.Contains(hs, "pushed since") {
		t.Errorf("a recap older than the compaction summary is shown:\n%s", hs)
	}
}

// A patch that changes several files (Codex's apply_patch) says of each
// file what it does to that file: its line in Workspace Files gives the
// names that file's section defines and adds and its first new lines, not
// the patch's first section's for every file, whether the fold had the
// input in hand or Build read it from the log. Before the rule, a patch
// of Cross.toml and build-tarball.sh showed Cross.toml's comment for both.
func TestAPatchOfSeveralFilesSaysWhatItDoesToEach(t *testing.T) {
	patch := "*** Begin Patch\n" +
		"*** Update File: Cross.toml\n@@\n-image = \"cross:main\"\n+# Keep this pinned so the release binary keeps its glibc floor.\n+image = \"cross:0.2.5\"\n" +
		"*** Update File: scripts/build-tarball.sh\n@@\n+target_dir=\"${CARGO_TARGET_DIR:-target}\"\n+scripts/check-glibc.sh \"$binary\" 2.34\n" +
		"*** Add File: scripts/check-glibc.sh\n+#!/usr/bin/env bash\n+check_glibc_floor() {\n+  objdump -p \"$1\"\n+}\n" +
		"*** Update File: old/name.rs\n*** Move to: new/name.rs\n@@\n+pub fn moved_helper() {}\n" +
		"*** End Patch"
	in, _ := json.Marshal(map[string]string{"input": patch})
	for _, first := range []session.Event{human("Pin the image."), withMeta(human("Pin the image."), "cwd", "/r")} {
		checkPatchOfSeveralFiles(t, seqd(first, call("apply_patch", "p1", string(in)), result("apply_patch", "p1", true, "Success.")))
	}
}

// checkPatchOfSeveralFiles checks TestAPatchOfSeveralFilesSaysWhatItDoesToEach's
// tapes of evs, built with the input in hand and read at Build. With a
// session folder the fold keys each file by its whole path while the
// patch names it relative to the folder: before the rule, every file of
// the patch read at Build showed the whole patch's names (a Codex
// session's README's names on its tasks.md, quickstart.md and
// public-api.md).
func checkPatchOfSeveralFiles(t *testing.T, evs []session.Event) {
	t.Helper()
	check := func(how string, tp *Tape) {
		t.Helper()
		w := blockText(t, tp, "Workspace Files")
		line := func(path string) string {
			for l := range strings.SplitSeq(w, "\n") {
				if strings.HasPrefix(l, "- "+path+":") {
					return l
				}
			}
			t.Fatalf("%s: no line for %s:\n%s", how, path, w)
			return ""
		}
		cross, build, check, moved := line("Cross.toml"), line("scripts/build-tarball.sh"), line("scripts/check-glibc.sh"), line("new/name.rs")
		if !strings.Contains(cross, "Keep this pinned") || strings.Contains(cross, "CARGO_TARGET_DIR") {
			t.Errorf("%s: Cross.toml's line does not give its own change:\n%s", how, cross)
		}
		if !strings.Contains(build, "CARGO_TARGET_DIR") || strings.Contains(build, "Keep this pinned") {
			t.Errorf("%s: build-tarball.sh's line does not give its own change:\n%s", how, build)
		}
		if !strings.Contains(check, "check_glibc_floor") || strings.Contains(check, "moved_helper") {
			t.Errorf("%s: check-glibc.sh's line does not give its own definitions:\n%s", how, check)
		}
		if !strings.Contains(moved, "moved_helper") || strings.Contains(moved, "check_glibc_floor") {
			t.Errorf("%s: the moved file's line does not give its section's definitions:\n%s", how, moved)
		}
	}
	check("in hand", build(t, "s", evs, Options{}, nil))
	b, log := foldWithOffsets(t, evs)
	tp, err := b.BuildFrom(Options{}, nil, log)
	if err != nil {
		t.Fatal(err)
	}
	check("read at Build", tp)
}

func TestPatchParts(t *testing.T) {
	two := "*** Begin Patch\n*** Update File: a.go\n@@\n+func A() {}\n*** Add File: b.go\n+func B() {}\n*** End Patch"
	for _, c := range []struct{ patch, path, want string }{
		{two, "a.go", "*** Begin Patch\n*** Update File: a.go\n@@\n+func A() {}\n*** End Patch"},
		{two, "b.go", "*** Begin Patch\n*** Add File: b.go\n+func B() {}\n*** End Patch"},
		{two, "c.go", ""},
		{"*** Begin Patch\n*** Update File: a.go\n+x\n*** End Patch", "a.go", ""},
		{"*** Begin Patch\n*** Update File: a.go\n+one\n*** Update File: b.go\n+b\n*** Update File: a.go\n+two\n*** End Patch", "a.go", "*** Begin Patch\n*** Update File: a.go\n+one\n*** Update File: a.go\n+two\n*** End Patch"},
		{"*** Begin Patch\r\n*** Delete File: gone.go\r\n*** Update File: x.go\r\n*** Move to: y.go\r\n+z\r\n*** End Patch", "y.go", "*** Begin Patch\n*** Update File: x.go\n*** Move to: y.go\n+z\n*** End Patch"},
	} {
		if got := patchParts(c.patch)[c.path]; got != c.want {
			t.Errorf("patchParts(%q)[%q] = %q, want %q", c.patch, c.path, got, c.want)
		}
	}
}

// Claude Code's built-in commands that steer the host and carry no words
// for the model (its binary's commands of type local and local-jsx: /fast,
// /effort, /reload-plugins, …) are no goal and no entry of the user's
// words; /goal, /plan, /btw and /background carry words the model reads.
func TestTheHostsOwnCommandsAreNoGoal(t *testing.T) {
	for _, cmd := range []string{"/fast", "/effort high", "/reload-plugins", "/usage-credits", "/rename parser work", "/color blue"} {
		tp := build(t, "s", seqd(human(cmd), human("Fix the parser.")), Options{}, nil)
		goal := blockText(t, tp, "Goal")
		if strings.Contains(goal, cmd) || !strings.Contains(goal, "First instruction (seq 2):\n> Fix the parser.") {
			t.Errorf("the host command %q is the goal or the user's words:\n%s", cmd, goal)
		}
	}
	for _, cmd := range []string{"/goal all tests pass", "/plan split the parser", "/btw why is it slow"} {
		tp := build(t, "s", seqd(human(cmd), human("Fix the parser.")), Options{}, nil)
		if goal := blockText(t, tp, "Goal"); !strings.Contains(goal, "First instruction (seq 1):\n> "+cmd) {
			t.Errorf("%q carries words for the model, yet is not the first instruction:\n%s", cmd, goal)
		}
	}
}

// A failed test run's first line is kept for what a host says before the
// output ("failed in sandbox …"), but a runner's section heading there
// (pytest's "===== test session starts =====") says nothing: its place
// among the key lines goes to another failing test's name.
func TestARunnersHeadingIsNoKeyLine(t *testing.T) {
	out := "============================= test session starts ==============================\n" +
		"platform win32 -- Python 3.14.0, pytest-9.0.2\n" +
		"collected 35 items\n\n" +
		"tests/test_redaction.py::TestGitHub::test_github_token FAILED [  5%]\n" +
		"=================================== FAILURES ===================================\n" +
		"E   AssertionError: assert '[REDACTED_GITHUB_TOKEN]' in 'GITHUB_token=[REDACTED]'\n" +
		"=========================== short test summary info ============================\n" +
		"FAILED tests/test_redaction.py::TestGitHub::test_github_token - AssertionError\n" +
		"FAILED tests/test_redaction.py::TestPrivateKey::test_generic_private_key - AssertionError\n" +
		"========================= 2 failed, 33 passed in 0.39s =========================\n"
	got := strings.Join(keyLines(out, false), "\n")
	if strings.Contains(got, "test session starts") {
		t.Errorf("the runner's heading is a key line:\n%s", got)
	}
	for _, want := range []string{"E   AssertionError", "test_generic_private_key", "2 failed, 33 passed"} {
		if !strings.Contains(got, want) {
			t.Errorf("key lines lack %q:\n%s", want, got)
		}
	}
}

// A host's summary longer than the fold keeps (maxSummaryRunes) keeps its
// end: Claude Code's ends with the pending tasks, the current work and the
// next step, which a head alone cut away.
func TestALongHostSummaryKeepsItsEnd(t *testing.T) {
	var b strings.Builder
	b.WriteString("Summary:\n1. Primary Request and Intent: split the parser.\n\n")
	for k := 0; k < 160; k++ {
		fmt.Fprintf(&b, "3. Files and Code Sections: src/module%03d.ts was read and its exports noted at some length.\n\n", k)
	}
	b.WriteString("9. Optional Next Step: run the migration on the staging copy.")
	evs := seqd(human("Work on the parser."), injected(session.KindSystem, "compact-summary", b.String()), say("Going on."))
	tp := build(t, "s", evs, Options{Budget: 40000}, nil)
	if hs := blockText(t, tp, "Host Summary"); !strings.Contains(hs, "9. Optional Next Step: run the migration on the staging copy.") {
		t.Fatalf("the host summary lost its end:\n%s", hs[max(0, len(hs)-600):])
	}
}

// What did not work and what did crosses a handoff: a target hands on its
// last workarounds as Pending State listed them (inherit.workarounds), and
// the next generation lists them, cited in their session, and hands them
// on again. Before, the second generation met "gpg failed to sign the
// data" as if for the first time.
func TestAWorkaroundCrossesAHandoff(t *testing.T) {
	g1 := seqd(human("Commit it."),
		call("Bash", "c1", `{"command":"git commit -m \"Add the tests\""}`),
		result("Bash", "c1", false, "Exit code 128\nerror: gpg failed to sign the data:\nfatal: failed to write commit object"),
		call("Bash", "c2", `{"command":"git commit --no-gpg-sign -m \"Add the tests\""}`),
		result("Bash", "c2", true, "[main ffe9ab7] Add the tests\n 2 files changed, 40 insertions(+)"),
		say("Committed without signing."))
	tp := build(t, "s", g1, Options{}, nil)
	ws := tp.Inherit.Workarounds
	if len(ws) != 1 || ws[0].Origin != (session.Origin{Generation: 1, Session: "s", Seq: 3}) || !strings.Contains(ws[0].Text, "fixed by seq=5: git commit --no-gpg-sign") {
		t.Fatalf("the target hands on %+v, want the commit's workaround of seq 3", ws)
	}
	next := build(t, "s2", seqd(origin(2, "s", int64(len(g1)), &tp.Inherit), say("Pushing next.")), Options{}, nil)
	ps := blockText(t, next, "Pending State")
	for _, w := range []string{
		"- gen 1 seq=3 FAILED: $ git commit -m \"Add the tests\"\n    → error: gpg failed to sign the data:\n    fixed by gen 1 seq=5: git commit --no-gpg-sign -m \"Add the tests\"",
	} {
		if !strings.Contains(ps, w) {
			t.Errorf("the next generation's Pending State lacks %q:\n%s", w, ps)
		}
	}
	if ws := next.Inherit.Workarounds; len(ws) != 1 || ws[0].Origin != tp.Inherit.Workarounds[0].Origin {
		t.Errorf("the next target does not hand the workaround on again: %+v", ws)
	}
}
