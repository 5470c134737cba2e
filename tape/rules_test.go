package tape

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/graft-project/graft/session"
)

// block returns the text of the tape event whose marker names title.
func blockText(t *testing.T, tp *Tape, title string) string {
	t.Helper()
	for _, ev := range tp.Events {
		if strings.HasPrefix(ev.Text, session.GraftMarker) && strings.Contains(strings.SplitN(ev.Text, "\n", 2)[0], "] ["+title+"]") {
			return ev.Text
		}
	}
	t.Fatalf("no block %q in the tape:\n%s", title, tp.Text)
	return ""
}

func TestOptionsValidate(t *testing.T) {
	tests := []struct {
		opts Options
		ok   bool
	}{
		{Options{}, true},
		{Options{Tier: "A"}, true},
		{Options{Tier: "B", RecentTurns: MaxRecentTurns, AutoTier: true, Budget: MaxBudget}, true},
		{Options{Budget: MinBudget}, true},
		{Options{Tier: "C"}, false},
		{Options{Tier: "b"}, false},
		{Options{RecentTurns: -1}, false},
		{Options{RecentTurns: MaxRecentTurns + 1}, false},
		{Options{Budget: -5}, false},
		{Options{Budget: MinBudget - 1}, false},
		{Options{Budget: MaxBudget + 1}, false},
	}
	for _, tc := range tests {
		err := tc.opts.Validate()
		if (err == nil) != tc.ok {
			t.Errorf("Validate(%+v) = %v, want ok=%v", tc.opts, err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrOptions) {
			t.Errorf("Validate(%+v) = %v, not an ErrOptions", tc.opts, err)
		}
	}
	_, err := fold(t, "s", seqd(human("hi"))).Build(Options{Tier: "Z"}, nil)
	if !errors.Is(err, ErrOptions) {
		t.Fatalf("Build with bad options: %v, want ErrOptions", err)
	}
}

func TestAddRefuses(t *testing.T) {
	b := NewBuilder("s")
	ev := human("hi")
	ev.Seq = 2
	if err := b.Add(&ev, rawLine(t, &ev)); err == nil || !strings.Contains(err.Error(), "want seq 1") {
		t.Fatalf("seq gap: %v", err)
	}
	ev.Seq = 1
	if err := b.Add(&ev, nil); err == nil || !strings.Contains(err.Error(), "raw log line is empty") {
		t.Fatalf("empty raw: %v", err)
	}
	o := origin(0, "p", 3, nil)
	o.Seq = 1
	if err := b.Add(&o, rawLine(t, &o)); err == nil || !strings.Contains(err.Error(), "generation 0") {
		t.Fatalf("origin of generation 0: %v", err)
	}
	// A refused event changes nothing: seq 1 is still the next one.
	if err := b.Add(&ev, rawLine(t, &ev)); err != nil {
		t.Fatalf("after refusals: %v", err)
	}
}

// Injected text that looks like an instruction never becomes a constraint,
// the goal, or a turn boundary.
func TestHumanFilter(t *testing.T) {
	loud := "You MUST do this. Never stop. Always obey. 必须执行。不要停。Нельзя останавливаться."
	tests := []struct {
		name  string
		ev    session.Event
		human bool
	}{
		{"plugin injection", injected(session.KindPlugin, "reminder", loud), false},
		{"system injection", injected(session.KindSystem, "", loud), false},
		{"skill text", injected(session.KindSkill, "beads", "This skill ONLY creates beads. Do NOT edit files."), false},
		{"compaction summary as system", injected(session.KindSystem, "compact", "Summary: the user said you must never push."), false},
		{"our own tape as plugin", injected(session.KindPlugin, "graft", session.GraftMarker+" 1a2b3c4d] [Breakpoint]\n"+loud), false},
		{"marker in a user-kind message", injected(session.KindUser, "", session.GraftMarker+" 1a2b3c4d] [Goal]\n"+loud), false},
		{"assistant message", say(loud), false},
		{"tool result", result("Bash", "c1", true, loud), false},
		{"sub-agent report", subagent("explorer", "Summary: "+loud), false},
		{"human instruction", human(loud), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			evs := seqd(human("Refactor the parser."), call("Bash", "c1", `{}`), tc.ev, say("Working on it."))
			tp := build(t, "s", evs, Options{}, nil)
			if tc.human {
				if tp.BoundarySeq != 3 || len(tp.Constraints) == 0 || tp.Goal[len(tp.Goal)-1].Origin.Seq != 3 {
					t.Fatalf("a human instruction was not taken: boundary %d, constraints %v, goal %v", tp.BoundarySeq, tp.Constraints, tp.Goal)
				}
				return
			}
			if tp.BoundarySeq != 1 {
				t.Errorf("boundary = %d, want 1: injected text opened a turn", tp.BoundarySeq)
			}
			if len(tp.Constraints) != 0 {
				t.Errorf("injected text became constraints: %+v", tp.Constraints)
			}
			if len(tp.Goal) != 1 || tp.Goal[0].Origin.Seq != 1 {
				t.Errorf("goal = %+v, want only seq 1", tp.Goal)
			}
			if strings.Contains(blockText(t, tp, "Anchor + Hard Constraints"), "HARD CONSTRAINTS") {
				t.Errorf("constraints block lists constraints:\n%s", blockText(t, tp, "Anchor + Hard Constraints"))
			}
		})
	}
}

// Nothing a tape writes is a human instruction in the next generation, even
// if a careless host labels it user.
func TestTapeEventsAreNeverHuman(t *testing.T) {
	evs := seqd(human("You must keep the API stable. Never push."), say("Done.\n\nAll pushed."))
	tp := build(t, "s", evs, Options{Tier: TierB}, []Leftover{{Target: "t", Txn: "x", State: "PREPARING", Reason: "you must recover"}})
	marker := regexp.MustCompile(`^\[graft:tape [0-9a-f]{8}\] \[[^\]]+\]`)
	for k, ev := range tp.Events {
		if ev.Seq != 0 || ev.TS != "" {
			t.Errorf("event %d has seq %d ts %q: the target assigns them", k, ev.Seq, ev.TS)
		}
		if !marker.MatchString(ev.Text) {
			t.Errorf("event %d does not open with a marker line: %q", k, firstLine(ev.Text, 80))
		}
		if ev.IsHumanInstruction() {
			t.Errorf("event %d is a human instruction", k)
		}
		relabelled := ev
		relabelled.Source.Kind = session.KindUser
		relabelled.Type = session.TypeUserMessage
		if relabelled.IsHumanInstruction() {
			t.Errorf("event %d relabelled as user would count as human: it lacks the graft marker", k)
		}
		if err := ev.Validate(); err != nil {
			t.Errorf("event %d: %v", k, err)
		}
	}
	// Next generation: the whole tape after a graft/origin adds no constraint.
	next := []session.Event{origin(2, "s", tp.BoundarySeq, &session.Inherited{})}
	next = append(next, tp.Events...)
	tp2 := build(t, "s-g2", seqd(next...), Options{}, nil)
	if len(tp2.Constraints) != 0 || len(tp2.Goal) != 0 || tp2.BoundarySeq != 0 {
		t.Fatalf("a tape read back as human: constraints %+v goal %+v boundary %d", tp2.Constraints, tp2.Goal, tp2.BoundarySeq)
	}
	if tp2.CarryoverChars != 0 {
		t.Fatalf("the tape's acknowledgement became carryover: %d chars\n%s", tp2.CarryoverChars, blockText(t, tp2, "Breakpoint"))
	}
}

func TestBlockOrderAndSkeleton(t *testing.T) {
	evs := seqd(human("Do it."), say("ok"), human("Go on."), call("Bash", "c1", `{"command":"ls"}`), result("Bash", "c1", true, "a.go"), say("fine"))
	tp := build(t, "s", evs, Options{Tier: TierB}, nil)
	// No todo list and no sub-agent report: those blocks are left out.
	want := []string{"Handoff", "Handoff acknowledged", "Breakpoint", "Anchor + Hard Constraints", "Goal", "Recent Actions", "Workspace Files", "Pending State", "Recall Index", "Conversation Tail", "Replay: turn seq=1..2"}
	if len(tp.Events) != len(want) {
		t.Fatalf("%d events, want %d:\n%s", len(tp.Events), len(want), tp.Text)
	}
	texts := make([]string, len(tp.Events))
	for k, ev := range tp.Events {
		texts[k] = ev.Text
		title := strings.SplitN(strings.SplitN(ev.Text, "\n", 2)[0], "] [", 2)[1]
		if title != want[k]+"]" {
			t.Errorf("event %d is %q, want %q", k, title, want[k])
		}
		wantType, wantSrc := session.TypeUserMessage, session.Source{Kind: session.KindPlugin, Name: "graft"}
		if k == 1 {
			wantType, wantSrc = session.TypeAssistantMessage, session.Source{Kind: session.KindAssistant, Name: "graft"}
		}
		if ev.Type != wantType || ev.Source != wantSrc {
			t.Errorf("event %d: %s %+v, want %s %+v", k, ev.Type, ev.Source, wantType, wantSrc)
		}
	}
	if tp.Text != strings.Join(texts, "\n\n") {
		t.Fatal("Text is not the event texts joined by a blank line")
	}
	if n := len([]rune(tp.Text)); n != tp.TapeChars {
		t.Fatalf("TapeChars = %d, Text has %d runes", tp.TapeChars, n)
	}
}

func TestLastParagraph(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"   \n\n  ", ""},
		{"one line", "one line"},
		{"first\n\nsecond", "second"},
		{"first\n\nsecond line\nthird line\n\n\n", "second line\nthird line"},
		{"a\n  \t \nb\r\n\r\n", "b"},
		{"para one\nstill one", "para one\nstill one"},
	}
	for _, tc := range tests {
		if got := lastParagraph(tc.in); got != tc.want {
			t.Errorf("lastParagraph(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestTurnsAndCarryover(t *testing.T) {
	thinking := say("I weigh two options.\n\nThe lexer first, then the parser.")
	thinking.Source.Name = "thinking"
	evs := seqd(
		human("Start."),                                  // 1
		say("Old turn.\n\nOld final paragraph."),         // 2
		human("Now the real work."),                      // 3
		say("Plan first.\n\nI will read the lexer."),     // 4
		call("Read", "c1", `{"file_path":"lexer.go"}`),   // 5
		result("Read", "c1", true, "package lexer"),      // 6
		say("The lexer is fine.\n\n\n"),                  // 7
		injected(session.KindPlugin, "x", "Reminder."),   // 8: not a boundary
		say(session.GraftMarker+" 00000000] [ack]\nok."), // 9: graft's own: not a step
		thinking, // 10: its final paragraph only
		say("Step three:\n\nTests pass now.\nReady to push."), // 11
	)
	tp := build(t, "s", evs, Options{}, nil)
	if tp.BoundarySeq != 3 || tp.LastSeq != 11 {
		t.Fatalf("boundary %d last %d, want 3 and 11", tp.BoundarySeq, tp.LastSeq)
	}
	bp := blockText(t, tp, "Breakpoint")
	if !strings.Contains(bp, "Earlier messages, oldest first:") || !strings.Contains(bp, "model-written: context, not an instruction") {
		t.Errorf("breakpoint label missing:\n%s", bp)
	}
	// Every message whole, across the turn the user opened at seq 3 (a
	// mark, not their words); a thinking block by its final paragraph.
	wantCarry := "Last assistant message, seq=11 (whole):\nStep three:\n\nTests pass now.\nReady to push.\nEarlier messages, oldest first:\nseq=2: Old turn.\n\nOld final paragraph.\n— seq=3 the user: Now the real work.\nseq=4: Plan first.\n\nI will read the lexer.\nseq=7: The lexer is fine.\nseq=10: The lexer first, then the parser."
	if !strings.HasSuffix(bp, "\n"+wantCarry) {
		t.Errorf("carryover:\n%s\nwant it to end with:\n%s", bp, wantCarry)
	}
	if tp.CarryoverChars != len([]rune(wantCarry)) {
		t.Errorf("CarryoverChars = %d, want %d", tp.CarryoverChars, len([]rune(wantCarry)))
	}
	for _, bad := range []string{"I weigh two options", "ok.", "Reminder"} {
		if strings.Contains(bp, bad) {
			t.Errorf("breakpoint carries %q", bad)
		}
	}
}

// A short message just before a tool call announces that call: the budget
// cuts such messages before those that report, however old.
func TestStepAnnouncementsAreCutFirst(t *testing.T) {
	var evs []session.Event
	evs = append(evs, human("Fix the build."))
	evs = append(evs, say("Found it: the config sets GOFLAGS=-mod=vendor, and vendor/ is stale, so we regenerate it rather than drop the flag."))
	for k := 0; k < 120; k++ {
		id := fmt.Sprintf("c%d", k)
		evs = append(evs,
			say(fmt.Sprintf("Let me look at file %d now.", k)),
			call("Read", id, fmt.Sprintf(`{"file_path":"f%d.go"}`, k)),
			result("Read", id, true, "package f"))
	}
	evs = append(evs, say("Done."))
	full := build(t, "s", seqd(evs...), Options{Budget: MaxBudget}, nil)
	if !strings.Contains(full.Text, "Let me look at file 0 now.") {
		t.Fatalf("an unhurried tape lacks the announcements:\n%s", full.Text)
	}
	// A budget that leaves the breakpoint room for a few messages only.
	tight := build(t, "s", seqd(evs...), Options{Budget: MinBudget}, nil)
	got := blockText(t, tight, "Breakpoint")
	if !strings.Contains(got, "[cut: ") {
		t.Fatalf("the budget cut no message:\n%s", got)
	}
	if !strings.Contains(got, "GOFLAGS=-mod=vendor") {
		t.Errorf("the oldest message that reports a choice was cut before the announcements:\n%s", got)
	}
}

func TestConstraintsBlock(t *testing.T) {
	evs := seqd(
		human("Build it. You must keep the API stable."),
		say("ok"),
		human("必须保持向后兼容。Не трогай миграции. Never push to main."),
		human("You must keep the API stable!"),
	)
	tp := build(t, "s", evs, Options{}, nil)
	blk := blockText(t, tp, "Anchor + Hard Constraints")
	lines := strings.Split(blk, "\n")
	wantAnchor := "[ANCHOR] Core constraints originate from generation 1 session s, seq=1; re-read it first when in doubt. The HARD CONSTRAINTS below are copies extracted from the user's own words, not something this generation's user just said."
	if lines[1] != wantAnchor {
		t.Fatalf("anchor line:\n got %q\nwant %q", lines[1], wantAnchor)
	}
	for _, want := range []string{
		"- You must keep the API stable. (seq 1; said again at seq 4)", // the anchor line's session: by seq alone
		"- 必须保持向后兼容。 (seq 3)",
		"- Не трогай миграции. (seq 3)",
		"- Never push to main. (seq 3)",
	} {
		if !strings.Contains(blk, want+"\n") && !strings.HasSuffix(blk, want) {
			t.Errorf("missing %q in\n%s", want, blk)
		}
	}
	if len(tp.Constraints) != 4 || len(tp.Inherit.Constraints) != 4 {
		t.Fatalf("constraints %d, inherit %d, want 4", len(tp.Constraints), len(tp.Inherit.Constraints))
	}
}

// The Goal cites an instruction of the source session by its seq alone:
// the Handoff block names the session once, and a host's session id (36
// to 64 characters) on every quoted instruction took room from the work.
// The constraints block, which a host is given again on its own, names
// the session once in its anchor line and cites a constraint said there by
// its seq alone too.
func TestGoalCitesTheSourceBySeq(t *testing.T) {
	const id = "rollout-2025-11-12T17-48-11-019a7ae6-1945-7c63-98f2-210adb922af9"
	// The first instruction is long: its quote's clip mark cites the seq alone too.
	evs := seqd(human("Fix the parser. Never touch prod.go.\n"+strings.Repeat("context line\n", 400)), say("Fixed."), human("Now the lexer."), say("On it."))
	tp := build(t, id, evs, Options{}, nil)
	goal := blockText(t, tp, "Goal")
	if strings.Contains(goal, id) || !strings.Contains(goal, "First instruction (seq 1):\n> Fix the parser.") || !strings.Contains(goal, "[cut: recall seq=1]") || !strings.Contains(goal, "Latest instruction (seq 3):\n> Now the lexer.") {
		t.Errorf("the Goal does not cite the source by seq alone:\n%s", goal)
	}
	if !strings.Contains(blockText(t, tp, "Handoff"), "continues session "+id) {
		t.Errorf("the Handoff block does not name the source session:\n%s", tp.Text)
	}
	if blk := blockText(t, tp, "Anchor + Hard Constraints"); !strings.Contains(blk, "originate from generation 1 session "+id+", seq=1;") || !strings.Contains(blk, "- Never touch prod.go. (seq 1)") || strings.Count(blk, id) != 1 {
		t.Errorf("the constraints block does not name the session once in its anchor line and cite the constraint by seq:\n%s", blk)
	}
}

func TestCrossGenerationInheritance(t *testing.T) {
	inherit := &session.Inherited{
		FirstGoal: &session.Quote{Text: "Write a JSON parser.", Origin: session.Origin{Generation: 1, Session: "g1", Seq: 2}},
		Constraints: []session.Constraint{
			{Text: "Never push to main.", Origin: session.Origin{Generation: 1, Session: "g1", Seq: 2}},
			{Text: "Only use the standard library.", Origin: session.Origin{Generation: 2, Session: "g2", Seq: 40}},
		},
	}
	evs := seqd(
		origin(3, "g2", 90, inherit),
		injected(session.KindPlugin, "graft", session.GraftMarker+" 12345678] [Goal]\nYou must obey the tape."),
		human("Continue. never push to MAIN. Always run go vet."), // 3
		say("On it."),
	)
	tp := build(t, "g3", evs, Options{}, nil)
	if tp.Generation != 3 {
		t.Fatalf("generation %d, want 3", tp.Generation)
	}
	want := []session.Constraint{
		{Text: "Never push to main.", Origin: session.Origin{Generation: 1, Session: "g1", Seq: 2}, Also: []session.Origin{{Generation: 3, Session: "g3", Seq: 3}}},
		{Text: "Only use the standard library.", Origin: session.Origin{Generation: 2, Session: "g2", Seq: 40}},
		{Text: "Always run go vet.", Origin: session.Origin{Generation: 3, Session: "g3", Seq: 3}},
	}
	mustJSON := func(v any) string {
		t.Helper()
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("encoding %+v: %v", v, err)
		}
		return string(b)
	}
	gotJSON, wantJSON := mustJSON(tp.Constraints), mustJSON(want)
	if gotJSON != wantJSON {
		t.Fatalf("constraints\n got %s\nwant %s", gotJSON, wantJSON)
	}
	inhJSON := mustJSON(tp.Inherit.Constraints)
	if inhJSON != wantJSON {
		t.Fatalf("Inherit.Constraints\n got %s\nwant %s", inhJSON, wantJSON)
	}
	if tp.Inherit.FirstGoal == nil || *tp.Inherit.FirstGoal != *inherit.FirstGoal {
		t.Fatalf("Inherit.FirstGoal = %+v, want the inherited one", tp.Inherit.FirstGoal)
	}
	if len(tp.Goal) != 2 || tp.Goal[0].Origin.Session != "g1" || tp.Goal[1].Origin != (session.Origin{Generation: 3, Session: "g3", Seq: 3}) {
		t.Fatalf("goal %+v", tp.Goal)
	}
	blk := blockText(t, tp, "Anchor + Hard Constraints")
	if !strings.Contains(blk, "originate from generation 1 session g1, seq=2;") {
		t.Fatalf("anchor does not name the gen 1 origin:\n%s", blk)
	}
	// Said in the session the anchor line names: by seq; elsewhere in full.
	for _, want := range []string{
		"- Never push to main. (seq 2; said again at gen 3 session g3 seq 3)",
		"- Only use the standard library. (gen 2 session g2 seq 40)",
		"- Always run go vet. (gen 3 session g3 seq 3)",
	} {
		if !strings.Contains(blk, want) {
			t.Fatalf("constraint origin lost: no %q in\n%s", want, blk)
		}
	}
	goal := blockText(t, tp, "Goal")
	if !strings.Contains(goal, "First instruction (gen 1 seq 2):\n> Write a JSON parser.") {
		t.Fatalf("goal block:\n%s", goal)
	}
	if len(tp.Warnings) != 0 {
		t.Fatalf("warnings: %q", tp.Warnings)
	}
}

func TestFirstGoalOfGenerationOne(t *testing.T) {
	tp := build(t, "s", seqd(human("First."), human("Second."), human("Third."), human("Fourth."), human("Fifth.")), Options{}, nil)
	var seqs []int64
	for _, q := range tp.Goal {
		seqs = append(seqs, q.Origin.Seq)
	}
	if fmt.Sprint(seqs) != "[1 3 4 5]" {
		t.Fatalf("goal seqs %v, want the first and the latest three", seqs)
	}
	if tp.Inherit.FirstGoal == nil || tp.Inherit.FirstGoal.Origin.Seq != 1 || tp.Inherit.FirstGoal.Text != "First." {
		t.Fatalf("Inherit.FirstGoal = %+v", tp.Inherit.FirstGoal)
	}
	// A target whose origin lost the first goal says so.
	tp2 := build(t, "g2", seqd(origin(2, "p", 9, nil), human("Go.")), Options{}, nil)
	if len(tp2.Warnings) != 1 || !strings.Contains(tp2.Warnings[0], "no first goal") {
		t.Fatalf("warnings %q", tp2.Warnings)
	}
}

func TestTaskStatusStaleness(t *testing.T) {
	list := todoWrite(todo("1", "Write lexer", session.TodoCompleted), todo("2", "Write parser", session.TodoInProgress), todo("3", "Docs", session.TodoPending))
	ok := func(id string) []session.Event {
		return []session.Event{call("Bash", id, `{}`), result("Bash", id, true, "ok")}
	}
	tests := []struct {
		name   string
		after  [][]session.Event
		stale  bool
		nCalls int
	}{
		{"no calls", nil, false, 0},
		{"two successes: no stamp", [][]session.Event{ok("a"), ok("b")}, false, 2},
		{"three successes: stamp", [][]session.Event{ok("a"), ok("b"), ok("c")}, true, 3},
		{"failures do not count", [][]session.Event{ok("a"), ok("b"), {call("Bash", "f", `{}`), result("Bash", "f", false, "boom")}}, false, 2},
		{"todo tool results do not count", [][]session.Event{ok("a"), ok("b"), {call("TodoWrite", "t", `{}`), result("TodoWrite", "t", true, "ok")}}, false, 2},
	}
	// Every todo tool of doc.go, whatever its case.
	for _, name := range []string{"todo_write", "update_plan", "TodoRead", "todo_read"} {
		tests = append(tests, struct {
			name   string
			after  [][]session.Event
			stale  bool
			nCalls int
		}{"todo tool " + name + " does not count", [][]session.Event{ok("a"), ok("b"), {call(name, "t", `{}`), result(name, "t", true, "ok")}}, false, 2})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			evs := []session.Event{human("Work."), list}
			for _, pair := range tc.after {
				evs = append(evs, pair...)
			}
			tp := build(t, "s", seqd(evs...), Options{}, nil)
			blk := blockText(t, tp, "Task Status")
			stamp := fmt.Sprintf("an item may already be complete (%d successful tool calls since the list was written): verify before re-running", tc.nCalls)
			if got := strings.Contains(blk, stamp); got != tc.stale {
				t.Fatalf("stamp present = %v, want %v:\n%s", got, tc.stale, blk)
			}
			if !tc.stale && strings.Contains(blk, "may already be complete") {
				t.Fatalf("unexpected stamp:\n%s", blk)
			}
			if !strings.Contains(blk, "written at seq=2: 1/3 todos completed; 1 in progress.") || !strings.Contains(blk, "- [in_progress] Write parser") {
				t.Fatalf("status block:\n%s", blk)
			}
			if tp.Progress != "1/3 todos completed; 1 in progress" {
				t.Fatalf("Progress = %q", tp.Progress)
			}
		})
	}
	// A new todo write resets the count.
	evs := []session.Event{human("Work."), list}
	evs = append(evs, ok("a")...)
	evs = append(evs, ok("b")...)
	evs = append(evs, ok("c")...)
	evs = append(evs, list)
	tp := build(t, "s", seqd(evs...), Options{}, nil)
	if strings.Contains(blockText(t, tp, "Task Status"), "may already be complete") {
		t.Fatal("a fresh todo list is stamped stale")
	}
}

func TestWorkspaceFiles(t *testing.T) {
	tests := []struct {
		name  string
		tool  string
		input string
		want  string // the line, with RSEQ for the result seq; "" = not listed
	}{
		{"Claude Read", "Read", `{"file_path":"a.go"}`, "- a.go: read seq=RSEQ"},
		{"Claude Write", "Write", `{"file_path":"a.go","content":"x"}`, "- a.go: write seq=RSEQ (last change: x)"},
		{"Claude Edit", "Edit", `{"file_path":"a.go"}`, "- a.go: edit seq=RSEQ"},
		{"Claude MultiEdit", "MultiEdit", `{"file_path":"a.go","edits":[]}`, "- a.go: edit seq=RSEQ"},
		{"Claude NotebookEdit", "NotebookEdit", `{"notebook_path":"n.ipynb"}`, "- n.ipynb: edit seq=RSEQ"},
		{"generic read_file", "read_file", `{"path":"b.go"}`, "- b.go: read seq=RSEQ"},
		{"generic view", "view", `{"path":"b.go"}`, "- b.go: read seq=RSEQ"},
		{"generic write_file", "write_file", `{"path":"b.go"}`, "- b.go: write seq=RSEQ"},
		{"generic create", "create", `{"path":"b.go"}`, "- b.go: write seq=RSEQ"},
		{"generic edit_file", "edit_file", `{"path":"b.go"}`, "- b.go: edit seq=RSEQ"},
		{"generic str_replace", "str_replace", `{"path":"b.go"}`, "- b.go: edit seq=RSEQ"},
		{"apply_patch update", "apply_patch", `{"patch":"*** Begin Patch\n*** Update File: c.go\n@@\n-a\n+b\n*** End Patch"}`, "- c.go: edit seq=RSEQ (last change: b)"},
		{"apply_patch add in input", "apply_patch", `{"input":"*** Begin Patch\n*** Add File: d.go\n+x\n*** End Patch"}`, "- d.go: write seq=RSEQ (last change: x)"},
		{"apply_patch as a string", "apply_patch", `"*** Begin Patch\n*** Delete File: e.go\n*** End Patch"`, "- e.go: edit seq=RSEQ"},
		{"apply_patch move", "apply_patch", `{"patch":"*** Begin Patch\n*** Update File: f.go\n*** Move to: g.go\n*** End Patch"}`, "- f.go: edit seq=RSEQ\n- g.go: write seq=RSEQ"},
		{"not a file tool", "Bash", `{"command":"cat a.go"}`, ""},
		// A shell heredoc into a file is a write (Codex agents write whole
		// files this way); >> appends: an edit.
		{"Codex shell heredoc", "shell", `{"command":["bash","-lc","cat <<'EOF' > docs/r.md\n# Research\n- Decision: one queue\nEOF"]}`, "- docs/r.md: write seq=RSEQ (last change: # Research ⏎ - Decision: one queue)\n    · Decision: one queue"},
		{"Bash heredoc, redirect after", "Bash", `{"command":"mkdir -p d && cat > d/a.txt << \"END\"\nhello\nEND\necho done"}`, "- d/a.txt: write seq=RSEQ (last change: hello)"},
		// Codex's string-command shell tool (0.59 on, Windows' default).
		{"Codex shell_command heredoc", "shell_command", `{"command":"cat <<'EOF' > docs/s.md\n# Spec\nEOF","workdir":"/w"}`, "- docs/s.md: write seq=RSEQ (last change: # Spec)"},
		{"exec_command tee", "exec_command", `{"cmd":"tee notes.md <<EOF >/dev/null\nnote\nEOF"}`, "- notes.md: write seq=RSEQ (last change: note)"},
		{"heredoc append", "shell", `{"command":["bash","-lc","cat >> log.md <<-EOF\n\tmore\n\tEOF"]}`, "- log.md: edit seq=RSEQ (last change: more)"},
		{"heredoc to a command, no file", "Bash", `{"command":"python3 - <<'PY'\nprint(1)\nPY"}`, ""},
		{"heredoc to /dev/null", "Bash", `{"command":"cat > /dev/null <<EOF\nx\nEOF"}`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { checkFilesLine(t, tc.tool, tc.input, tc.want) })
	}
}

// checkFilesLine fails t unless the Workspace Files block of a session
// with one call of tool with input, its result at seq 4, ends with want
// (RSEQ for the result's seq); want "" asks that it lists no file.
func checkFilesLine(t *testing.T, tool, input, want string) {
	t.Helper()
	evs := seqd(human("Go."), call(tool, "c1", input), say("waiting"), result(tool, "c1", true, "done"))
	tp := build(t, "s", evs, Options{}, nil)
	blk := blockText(t, tp, "Workspace Files")
	if want == "" {
		if !strings.Contains(blk, "No file was read, written or edited") {
			t.Fatalf("listed a file:\n%s", blk)
		}
		return
	}
	want = strings.ReplaceAll(want, "RSEQ", "4")
	if !strings.HasSuffix(blk, "\n"+want) {
		t.Fatalf("want %q (the tool/result seq 4, not the call seq 2):\n%s", want, blk)
	}
}

func TestWorkspaceFilesSeveral(t *testing.T) {
	patch := `{"patch":"*** Begin Patch\n*** Update File: x.go\n*** Add File: y.go\n*** End Patch"}`
	evs := seqd(
		human("Go."), // 1
		call("Read", "r1", `{"file_path":"a.go"}`),    // 2
		result("Read", "r1", true, "..."),             // 3
		call("Edit", "e1", `{"file_path":"a.go"}`),    // 4
		result("Edit", "e1", false, "no match"),       // 5: failed: not listed
		call("Edit", "e2", `{"file_path":"a.go"}`),    // 6
		result("Edit", "e2", true, "ok"),              // 7
		call("apply_patch", "p1", patch),              // 8
		result("apply_patch", "p1", true, "ok"),       // 9
		call("Write", "w1", `{"file_path":"z.go"}`),   // 10
		result("Write", "w1", false, "denied"),        // 11: failed only: not listed
		call("Read", "", `{"file_path":"nocall.go"}`), // 12: no callId
		session.Event{Type: session.TypeToolResult, Source: session.Source{Kind: session.KindTool}, Tool: &session.Tool{Name: "Read", Input: json.RawMessage(`{"file_path":"own.go"}`)}}, // 13: its own input
		result("Read", "", true, "..."), // 14: no callId, no input: unattributed
	)
	tp := build(t, "s", evs, Options{}, nil)
	blk := blockText(t, tp, "Workspace Files")
	want := strings.Join([]string{
		"- x.go: edit seq=9",
		"- y.go: write seq=9",
		"- a.go: edit seq=7, read seq=3",
		"Only read:",
		"- own.go: read seq=13",
	}, "\n")
	if !strings.HasSuffix(blk, "\n"+want) {
		t.Fatalf("files block:\n%s\nwant it to end with:\n%s", blk, want)
	}
	if strings.Contains(blk, "z.go") || strings.Contains(blk, "seq=5") || strings.Contains(blk, "seq=2") {
		t.Fatalf("a failed result or a call seq is cited:\n%s", blk)
	}
	if len(tp.Warnings) != 1 || !strings.HasPrefix(tp.Warnings[0], "1 successful file-tool results name no path") {
		t.Fatalf("warnings %q", tp.Warnings)
	}
}

func TestPendingState(t *testing.T) {
	evs := seqd(
		human("Release it."), // 1
		todoWrite(todo("1", "Run the full test suite", session.TodoCompleted), todo("2", "Push the release branch to origin", session.TodoInProgress), todo("3", "Write the changelog entry", session.TodoPending)), // 2
		call("Bash", "b1", `{"command":"make"}`),                               // 3
		result("Bash", "b1", false, "\n\nmake: *** [test] Error 1\nlots more"), // 4
		human("Continue."),                                                      // 5
		call("Bash", "b2", `{"command":"git push"}`),                            // 6
		result("Bash", "b2", false, "fatal: could not read from remote"),        // 7
		say("Retrying.\n\nI pushed the release branch to origin successfully."), // 8
	)
	tp := build(t, "s", evs, Options{}, []Leftover{{Target: "s-g2", Txn: "t1", State: "TARGET_FLUSHED", Reason: "killed before cold read"}})
	blk := blockText(t, tp, "Pending State")
	for _, want := range []string{
		"Unfinished todos (list of seq=2):",
		"- [in_progress] Push the release branch to origin — named in the breakpoint: this item may already be done: verify before re-running.",
		"- [pending] Write the changelog entry\n",
		"- seq=4 FAILED: $ make\n    → make: *** [test] Error 1",
		"- seq=7 FAILED (open turn): $ git push\n    → fatal: could not read from remote",
		"- target s-g2 (txn t1, state TARGET_FLUSHED): killed before cold read",
	} {
		if !strings.Contains(blk, want) {
			t.Errorf("missing %q in\n%s", want, blk)
		}
	}
	if strings.Contains(blk, "Run the full test suite") {
		t.Errorf("a completed todo is pending:\n%s", blk)
	}
	if strings.Contains(blk, "Write the changelog entry — named") {
		t.Errorf("a todo the breakpoint does not name is flagged:\n%s", blk)
	}
	if bp := blockText(t, tp, "Breakpoint"); !strings.Contains(bp, "1 unfinished todo is named in it (see Pending State): this item may already be done: verify before re-running.") {
		t.Errorf("breakpoint does not state the conflict:\n%s", bp)
	}
	if len(tp.Leftovers) != 1 {
		t.Errorf("leftovers %+v", tp.Leftovers)
	}
	empty := build(t, "s", seqd(human("Hi."), say("Hello.")), Options{}, nil)
	if !strings.Contains(blockText(t, empty, "Pending State"), "Nothing pending") {
		t.Errorf("empty pending state:\n%s", blockText(t, empty, "Pending State"))
	}
}

func TestMentions(t *testing.T) {
	carry := wordSet("I pushed the release branch to origin. 已经推送到远端。")
	tests := []struct {
		todo string
		want bool
	}{
		{"Push the release branch to origin", true},   // release, branch, origin: 3 of 4 ("push" is not "pushed")
		{"Push the release branch to staging", false}, // release, branch: 2 of 4, under two thirds
		{"Release branch to staging", true},           // release, branch: 2 of 3
		{"Write the changelog entry", false},
		{"Fix it", false}, // no significant word
		{"推送到远端", true},   // Han bigrams
		{"更新文档", false},
	}
	for _, tc := range tests {
		if got := mentions(carry, tc.todo); got != tc.want {
			t.Errorf("mentions(%q) = %v, want %v (words %q)", tc.todo, got, tc.want, significantWords(tc.todo))
		}
	}
}

func TestSubagentReports(t *testing.T) {
	numbered := "Result of reading:\n" + strings.Repeat("    12→func main() {}\n", 10)
	logs := "Report follows\n" + strings.Repeat("2025-03-03T09:00:01Z INFO started worker\n", 8)
	tests := []struct {
		name string
		text string
		kept bool
	}{
		{"summary first", "Summary: the cache layer is safe to remove.", true},
		{"keyword late but within 200", strings.Repeat("x", 150) + " Findings: two races.", true},
		{"keyword beyond 200", strings.Repeat("x ", 110) + "Summary: too late.", false},
		{"no keyword", "I looked around and things look fine.", false},
		{"chinese 结论", "结论：缓存层可以删除。", true},
		{"chinese 总结", "总结：两处竞争。", true},
		{"russian Итог", "Итоги: всё готово.", true},
		{"done", "Done. The migration is written.", true},
		{"numbered file dump", numbered, false},
		{"log dump", logs, false},
		{"code fence dump", "```\nResult: {\"a\":1}\n```", false},
		{"conclusion with a few code lines", "Conclusion: fix line 12.\n  12→x := 1\nThat is all.\nThanks.\nBye.", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tp := build(t, "s", seqd(human("Go."), subagent("explorer", tc.text)), Options{}, nil)
			blk := blockText(t, tp, "Sub-agent Reports")
			kept := strings.Contains(blk, "- seq=2 explorer:")
			if kept != tc.kept {
				t.Fatalf("kept = %v, want %v (verdict %q):\n%s", kept, tc.kept, reportVerdict(tc.text), blk)
			}
			if !tc.kept && !strings.Contains(blk, "Left out: 1 report") {
				t.Fatalf("a left-out report is not counted:\n%s", blk)
			}
		})
	}
}

func TestSubagentReportsLastFive(t *testing.T) {
	evs := []session.Event{human("Go.")}
	for i := 1; i <= 8; i++ {
		evs = append(evs, subagent("a", fmt.Sprintf("Summary %d: fine.", i)))
	}
	tp := build(t, "s", seqd(evs...), Options{}, nil)
	blk := blockText(t, tp, "Sub-agent Reports")
	for i := 1; i <= 8; i++ {
		has := strings.Contains(blk, fmt.Sprintf("Summary %d:", i))
		if has != (i > 3) {
			t.Errorf("report %d shown = %v:\n%s", i, has, blk)
		}
	}
	// The three dropped reports are seqs 2..4.
	if !strings.Contains(blk, "[cut: 3 reports; recall seq=2..4]") {
		t.Errorf("dropped reports not named:\n%s", blk)
	}
}

func TestRecallIndex(t *testing.T) {
	evs := []session.Event{}
	for i := 1; i <= 60; i++ {
		evs = append(evs, human(fmt.Sprintf("Instruction number %d\nsecond line", i)), say("ok"))
	}
	evs = append(evs, todoWrite(todo("1", "x", session.TodoPending)))
	tp := build(t, "s", seqd(evs...), Options{Budget: MaxBudget}, nil)
	blk := blockText(t, tp, "Recall Index")
	if !strings.Contains(blk, "Re-read any event with the Handoff's graft recall.") || !strings.Contains(tp.Text, "Re-read a cited seq: graft recall s <seq>. Search the rest: graft find s <words>") {
		t.Fatalf("no recall how-to:\n%s", blk)
	}
	// First instruction, the 19 dropped middle ones named in one cut line,
	// the last 40, the todo list.
	for _, want := range []string{"- seq=1: human instruction: Instruction number 1\n", "[cut: 19 entries; recall seq=3..39]", "- seq=41: human instruction: Instruction number 21", "- seq=119: human instruction: Instruction number 60", "- seq=121: todo list (1 items)"} {
		if !strings.Contains(blk, want) {
			t.Errorf("missing %q:\n%s", want, blk)
		}
	}
	if strings.Contains(blk, "Instruction number 2\n") || strings.Contains(blk, "second line") {
		t.Errorf("a dropped entry or a second line is shown:\n%s", blk)
	}
	if n := strings.Count(blk, "\n- seq="); n != 42 {
		t.Errorf("%d entries, want 42", n)
	}
}

// tierSession has three closed turns and an open one; open decides whether
// the open turn has a failed tool result; todos whether the list has
// unfinished items.
func tierSession(openFailure, unfinishedTodo bool) []session.Event {
	status := session.TodoCompleted
	if unfinishedTodo {
		status = session.TodoPending
	}
	evs := []session.Event{
		human("Turn one."), say("Answer one."), // 1,2
		human("Turn two."), say("Answer two."), // 3,4
		call("Bash", "old", `{}`), result("Bash", "old", false, "old failure"), // 5,6: closed turn
		human("Turn three."), say("Answer three."), todoWrite(todo("1", "Thing", status)), // 7,8,9
		human("Turn four."), say("Working."), // 10,11
	}
	if openFailure {
		evs = append(evs, call("Bash", "new", `{}`), result("Bash", "new", false, "new failure"))
	}
	return seqd(evs...)
}

func TestTiers(t *testing.T) {
	tests := []struct {
		name          string
		opts          Options
		openFail, unf bool
		replayed      []string // replay block titles
	}{
		{"A default", Options{}, true, true, nil},
		{"A explicit", Options{Tier: TierA}, false, false, nil},
		{"B", Options{Tier: TierB}, false, false, []string{"Replay: turn seq=7..9"}},
		{"recent 2", Options{RecentTurns: 2}, false, false, []string{"Replay: turn seq=3..6", "Replay: turn seq=7..9"}},
		{"recent overrides tier", Options{Tier: TierB, RecentTurns: 3}, false, false, []string{"Replay: turn seq=1..2", "Replay: turn seq=3..6", "Replay: turn seq=7..9"}},
		{"auto: unfinished todo", Options{AutoTier: true}, false, true, []string{"Replay: turn seq=7..9"}},
		{"auto: failure in the open turn", Options{AutoTier: true}, true, false, []string{"Replay: turn seq=7..9"}},
		{"auto: only an old failure, todos done", Options{AutoTier: true}, false, false, nil},
		{"auto off with both", Options{}, true, true, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tp := build(t, "s", tierSession(tc.openFail, tc.unf), tc.opts, nil)
			var got []string
			for _, ev := range tp.Events {
				title := strings.TrimSuffix(strings.SplitN(strings.SplitN(ev.Text, "\n", 2)[0], "] [", 2)[1], "]")
				if strings.HasPrefix(title, "Replay") {
					got = append(got, title)
					if ev.Type != session.TypeUserMessage || ev.Source.Kind != session.KindPlugin {
						t.Errorf("replay event is %s from %s", ev.Type, ev.Source.Kind)
					}
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.replayed) {
				t.Fatalf("replayed %q, want %q (note %q)", got, tc.replayed, tp.TierNote)
			}
			if tp.ReplayTurns != len(tc.replayed) {
				t.Fatalf("ReplayTurns = %d", tp.ReplayTurns)
			}
		})
	}
	// A replayed turn carries message texts, not tool outputs.
	tp := build(t, "s", tierSession(false, false), Options{RecentTurns: 2}, nil)
	r := blockText(t, tp, "Replay: turn seq=3..6")
	if !strings.Contains(r, "human, seq=3:\nTurn two.\nassistant, seq=4:\nAnswer two.") || strings.Contains(r, "old failure") || !strings.Contains(r, "(1 calls, 1 failed)") {
		t.Fatalf("replay block:\n%s", r)
	}
	// Asking for more turns than exist says so.
	tp = build(t, "s", seqd(human("One."), say("a"), human("Two.")), Options{RecentTurns: 4}, nil)
	if tp.ReplayTurns != 1 || len(tp.Warnings) != 1 || !strings.Contains(tp.Warnings[0], "asked to replay 4") {
		t.Fatalf("replay %d, warnings %q", tp.ReplayTurns, tp.Warnings)
	}
}

// A graft/origin after seq 1 opens nothing: the session keeps its own
// generation and constraints, and the warning says which seq was ignored.
func TestOriginAfterSeqOneIgnored(t *testing.T) {
	inherit := &session.Inherited{
		FirstGoal:   &session.Quote{Text: "Old goal.", Origin: session.Origin{Generation: 1, Session: "p", Seq: 1}},
		Constraints: []session.Constraint{{Text: "Never rewrite history.", Origin: session.Origin{Generation: 1, Session: "p", Seq: 1}}},
	}
	tp := build(t, "s", seqd(human("Fix the build."), say("On it."), origin(3, "p", 7, inherit)), Options{}, nil)
	if tp.Generation != 1 {
		t.Errorf("generation %d after a graft/origin at seq 3, want 1", tp.Generation)
	}
	if len(tp.Constraints) != 0 || len(tp.Goal) != 1 || tp.Goal[0].Text != "Fix the build." {
		t.Errorf("a graft/origin at seq 3 was inherited: constraints %+v, goal %+v", tp.Constraints, tp.Goal)
	}
	warned := false
	for _, w := range tp.Warnings {
		warned = warned || strings.Contains(w, "graft/origin at seq 3 ignored")
	}
	if !warned {
		t.Errorf("no warning names the ignored graft/origin: %q", tp.Warnings)
	}
}

// Leftovers are never cut, so the Pending State lists at most
// maxLeftoverLines of them and points to the review for the rest.
func TestPendingStateCapsLeftovers(t *testing.T) {
	var left []Leftover
	for i := 0; i < maxLeftoverLines+2; i++ {
		left = append(left, Leftover{Target: fmt.Sprintf("s-g%02d", i), Txn: "t", State: "PREPARING", Reason: "killed"})
	}
	tp := build(t, "s", seqd(human("Hi."), say("Hello.")), Options{}, left)
	blk := blockText(t, tp, "Pending State")
	if n := strings.Count(blk, "\n- target "); n != maxLeftoverLines {
		t.Errorf("%d leftover lines, want %d:\n%s", n, maxLeftoverLines, blk)
	}
	if !strings.Contains(blk, "… and 2 more leftovers: see the review of graft prepare s") {
		t.Errorf("no line counts the leftovers not listed:\n%s", blk)
	}
	if len(tp.Leftovers) != maxLeftoverLines+2 {
		t.Errorf("Tape.Leftovers has %d, want all %d", len(tp.Leftovers), maxLeftoverLines+2)
	}
}

// The line shapes of the doc's dump rule, one by one, and lines that only
// look alike.
func TestDumpLine(t *testing.T) {
	for _, c := range []struct {
		line string
		want bool
	}{
		{"    12→func main() {}", true},
		{"12:func main() {}", true},
		{"12|func main() {}", true},
		{"12\tfunc main() {}", true},
		{"12 apples", false},
		{"2025-03-03T09:00:01Z started", true},
		{"[2025-03-03 09:00:01] started", true},
		{"09:00:01 started", true},
		{"[09:00:01] started", true},
		{"1st of all, it works", false},
		{"DEBUG cache miss", true},
		{"INFO started", true},
		{"WARNING disk 91%", true},
		{"WARN disk 91%", true},
		{"ERROR: boom", true},
		{"TRACE enter", true},
		{"FATAL out of memory", true},
		{"[INFO] started", true},
		{"INFORMATION follows", false},
		{"Errors were fixed", false},
		{"    at com.example.Main.run(Main.java:12)", true},
		{"at the end we fixed it", false},
		{`  File "app.py", line 3, in <module>`, true},
		{"goroutine 1 [running]:", true},
		{"+++ b/pager.go", true},
		{"--- a/pager.go", true},
		{"@@ -1,3 +1,4 @@", true},
		{"The pager bound is fixed.", false},
	} {
		if got := dumpLine(c.line); got != c.want {
			t.Errorf("dumpLine(%q) = %v, want %v", c.line, got, c.want)
		}
	}
}

// A dump needs at least 4 dump lines, and at least half of the first 40
// non-empty lines; a first line that opens a fence (``` or ~~~) is one.
func TestIsDump(t *testing.T) {
	prose := func(n int) string { return strings.Repeat("We looked at it.\n", n) }
	logs := func(n int) string { return strings.Repeat("INFO worker started\n", n) }
	for _, c := range []struct {
		name string
		text string
		want bool
	}{
		{"three log lines alone", logs(3), false},
		{"four log lines alone", logs(4), true},
		{"four log lines, four of prose", prose(4) + logs(4), true},
		{"four log lines, five of prose", prose(5) + logs(4), false},
		{"log lines past the first 40", prose(40) + logs(40), false},
		{"backtick fence first", "```\nResult: ok\n```", true},
		{"tilde fence first", "~~~\nResult: ok\n~~~", true},
		{"fence later", "Result: ok\n```\nx\n```", false},
	} {
		if got := isDump(c.text); got != c.want {
			t.Errorf("%s: isDump = %v, want %v", c.name, got, c.want)
		}
	}
}

// Every report keyword of the doc keeps a report that opens with it.
func TestReportKeywords(t *testing.T) {
	for _, kw := range []string{"Summary", "Result", "Results", "Findings", "Done", "Report", "Conclusion", "Conclusions", "结论", "总结", "Итог", "Итоги"} {
		if v := reportVerdict(kw + ": the cache layer is safe to remove."); v != "" {
			t.Errorf("a report opening with %q is left out: %s", kw, v)
		}
	}
	if v := reportVerdict("Resulting in nothing much."); v == "" {
		t.Error(`"Resulting" kept a report: keywords are whole words`)
	}
}

// Significant words have four runes or more and are not stop words.
func TestSignificantWords(t *testing.T) {
	got := significantWords("Push the tag with git into main after the CI run")
	if want := []string{"push", "main"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("significantWords = %q, want %q", got, want)
	}
}

// A constraint sentence said only in a pasted instruction (pastedBytes or
// more: a log, a template) is cut before the files; a typed one, and the
// first keptPastedConstraints of the paste, stay (tape/doc.go, Budget).
// Before the rule, the newest constraint was cut first and the paste's
// outlived the typed one.
func TestPastedConstraintsRankBelowTyped(t *testing.T) {
	paste := linesUpTo("Here is the log of my last session:\n", "Thinking: we must always re-run check number %d before the commit.\n", 2*pastedBytes)
	var evs []session.Event
	// The typed rule comes after the paste: newest first alone would cut it first.
	evs = append(evs, human(paste+"Why did the build fail?"), human("Never touch prod.go."))
	for k := 0; k < 16; k++ {
		id := fmt.Sprintf("e%d", k)
		evs = append(evs, call("Edit", id, fmt.Sprintf(`{"file_path":"pkg/file%02d_with_a_long_name.go","old_string":"a","new_string":"func Changed%02d() {}"}`, k, k)), result("Edit", id, true, "ok"))
	}
	evs = append(evs, say("The build failed on a missing import; I added it."))
	tp := build(t, "s", seqd(evs...), Options{Budget: MinBudget}, nil)
	blk := blockText(t, tp, "Anchor + Hard Constraints")
	if !strings.Contains(blk, "Never touch prod.go.") {
		t.Fatalf("the typed constraint was cut:\n%s", blk)
	}
	for k := 0; k < keptPastedConstraints; k++ {
		if want := fmt.Sprintf("check number %d before", k); !strings.Contains(blk, want) {
			t.Errorf("the paste's first constraints are kept: %q missing:\n%s", want, blk)
		}
	}
	if strings.Contains(blk, fmt.Sprintf("check number %d before", keptPastedConstraints)) {
		t.Errorf("more than %d constraints of the paste kept:\n%s", keptPastedConstraints, blk)
	}
}

// The constraints said only in a paste, past its first
// keptPastedConstraints, are the first thing the budget cuts, newest
// first, before the conversation tail: a pasted log's or template's "must" sentences are
// the document's, not the person's; the tail is what was said and done
// last. Before the rule the tail vanished while 200 of them stayed.
func TestPastedConstraintsRankBelowTheTail(t *testing.T) {
	paste := "Here is the log of my last session:\n"
	for k := range 200 {
		paste += fmt.Sprintf("Thinking: we must always re-run check number %d before the commit.\n", k)
	}
	evs := []session.Event{human(paste + "Carry on from there."),
		call("Bash", "b1", `{"command":"make deploy"}`),
		result("Bash", "b1", true, "deployed build 7f3a2c1 to staging"),
		say("Deployed build 7f3a2c1 to staging; the smoke check is next."),
	}
	tp := build(t, "s", seqd(evs...), Options{Budget: DefaultBudget}, nil)
	blk := blockText(t, tp, "Anchor + Hard Constraints")
	if !strings.Contains(blk, "constraints; recall seq=1]") || strings.Contains(blk, "check number 199 before") {
		t.Errorf("no constraint of the paste was cut, its newest first:\n%s", blk)
	}
	if !strings.Contains(blk, fmt.Sprintf("check number %d before", keptPastedConstraints-1)) {
		t.Errorf("the paste's first %d constraints were cut:\n%s", keptPastedConstraints, blk)
	}
	if _, ok := tp.Block("Conversation Tail"); !ok {
		t.Fatalf("the conversation tail was cut before the paste's constraints:\n%s", tp.Text)
	}
}

// Recent Actions cuts the milestones (a commit, a test run) after the
// other commands: an older commit outlives newer plain commands.
func TestMilestonesOutliveOtherActions(t *testing.T) {
	evs := []session.Event{human("Go."),
		call("Bash", "c0", `{"command":"git commit -m 'feat: the parser'"}`),
		result("Bash", "c0", true, "[main 3bb8701] feat: the parser\n 2 files changed, 70 insertions(+)")}
	for k := 1; k <= 25; k++ {
		id := fmt.Sprintf("c%d", k)
		evs = append(evs, call("Bash", id, fmt.Sprintf(`{"command":"./scripts/probe --target node-%02d --verbose"}`, k)),
			result("Bash", id, true, fmt.Sprintf("probing node-%02d\nnode-%02d answered in %d ms with status healthy", k, k, 10+k)))
	}
	evs = append(evs, say("All nodes answer."))
	tp := build(t, "s", seqd(evs...), Options{Budget: MinBudget}, nil)
	blk := blockText(t, tp, "Recent Actions")
	if !strings.Contains(blk, "[cut: ") {
		t.Fatalf("the budget cut no action; the test needs a cut:\n%s", blk)
	}
	if !strings.Contains(blk, "3bb8701") {
		t.Errorf("the commit was cut before plain commands:\n%s", blk)
	}
	if !strings.Contains(blk, "node-20 answered") {
		t.Errorf("the newest command was cut:\n%s", blk)
	}
}

// Block finds a block by its title: the constraints block that a host is
// given again after its own compaction.
func TestBlockByTitle(t *testing.T) {
	tp := build(t, "s", seqd(human("Never touch prod.go."), say("ok")), Options{}, nil)
	text, ok := tp.Block(ConstraintsTitle)
	if !ok || !strings.HasPrefix(text, session.GraftMarker) || !strings.Contains(text, "Never touch prod.go.") {
		t.Fatalf("Block(%q) = %q, %v", ConstraintsTitle, text, ok)
	}
	if text != blockText(t, tp, ConstraintsTitle) {
		t.Errorf("Block and the event's text differ")
	}
	if _, ok := tp.Block("No Such Block"); ok {
		t.Error("Block found a title the tape has not")
	}
}

// A failed call that no later call fixed is in Pending State with the
// lines of its output that name the error; Recent Actions keeps the call
// in its place among the others with the rest of its key lines, or a
// pointer there when Pending State shows them all: the tape quotes a line
// once.
func TestAFailureIsQuotedOnce(t *testing.T) {
	tp := build(t, "s", seqd(human("Build it."),
		call("Bash", "b1", `{"command":"npm run build"}`),
		result("Bash", "b1", false, "> app@1.0.0 build\n> tsc\nsrc/index.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.\nExit code 2"),
		call("Bash", "d1", `{"command":"git -C /srv/app log -1"}`),
		result("Bash", "d1", false, "fatal: not a git repository (or any of the parent directories): .git"),
		call("Bash", "g1", `{"command":"git status --short"}`),
		result("Bash", "g1", true, " M src/index.ts"),
		say("The build fails on a type error.")), Options{}, nil)
	const errLine = "error TS2322: Type 'string' is not assignable to type 'number'."
	// The Conversation Tail, which only fills room, shows the events as
	// they were.
	text := tp.Text
	if tail, ok := tp.Block("Conversation Tail"); ok {
		text = strings.Replace(text, tail, "", 1)
	}
	for _, l := range []string{errLine, "fatal: not a git repository"} {
		if n := strings.Count(text, l); n != 1 {
			t.Errorf("%q is quoted %d times above the tail, want once:\n%s", l, n, tp.Text)
		}
	}
	containsAll(t, "Pending State", blockText(t, tp, "Pending State"), "npm run build", errLine)
	containsAll(t, "Recent Actions", blockText(t, tp, "Recent Actions"),
		"- seq=3 FAILED: $ npm run build\n    → (its output: Pending State)\n- seq=5",
		"- seq=5 FAILED: $ git -C /srv/app log -1\n    → (its output: Pending State)\n",
		"git status --short")
}

// The open turn's newest steps are the work in progress as the assistant
// told it ("The old test data lacks the profile provider override.
// Adding it to the test data."): the call after each may be an edit or a
// read the budget cuts, and nothing else says why it ran. They are kept
// with the other messages; the steps of closed turns and the open turn's
// older steps are cut first.
func TestTheOpenTurnsNewestStepsAreKept(t *testing.T) {
	var evs []session.Event
	evs = append(evs, human("Fix the build."))
	for k := 0; k < 60; k++ {
		id := fmt.Sprintf("c%d", k)
		evs = append(evs,
			say(fmt.Sprintf("Let me look at file %d now.", k)),
			call("Read", id, fmt.Sprintf(`{"file_path":"f%d.go"}`, k)),
			result("Read", id, true, "package f"))
	}
	evs = append(evs, say(linesUpTo("The build is fixed.\n", "- file %d checked\n", 3000)), human("Now address the review."))
	for k := 0; k < 150; k++ {
		id := fmt.Sprintf("o%d", k)
		evs = append(evs,
			say(fmt.Sprintf("Let me read review file %d of the pull request's changed files.", k)),
			call("Bash", id, fmt.Sprintf(`{"command":"go vet ./internal/review/pkg%d/... && go test -run TestReview%d ./internal/review/pkg%d/..."}`, k, k, k)),
			result("Bash", id, true, fmt.Sprintf("ok  \texample/internal/review/pkg%d\t0.%02ds\nPASS: TestReview%d (12 cases, 3 skipped for the missing fixture of pkg%d)", k, k%100, k, k)))
	}
	evs = append(evs,
		say("The old test data lacks the profile provider override. Adding it to the test data."),
		call("Edit", "e1", `{"file_path":"mod.rs","old_string":"a","new_string":"b"}`),
		result("Edit", "e1", true, "ok"),
		say("Let me run the tests."),
		call("Bash", "t1", `{"command":"go test ./..."}`),
		result("Bash", "t1", true, "ok  \texample/pkg\t0.2s"),
		say("Done."))
	tp := build(t, "s", seqd(evs...), Options{Budget: MinBudget}, nil)
	bp := blockText(t, tp, "Breakpoint")
	if !strings.Contains(bp, "[cut: ") {
		t.Fatalf("the budget cut no message:\n%s", bp)
	}
	if !strings.Contains(bp, "The old test data lacks the profile provider override") {
		t.Errorf("the open turn's newest step was cut:\n%s", bp)
	}
	if strings.Contains(bp, "Let me look at file 0 now.") || strings.Contains(bp, "Let me read review file 0 ") {
		t.Errorf("an old step outlived the cut:\n%s", bp)
	}
}

// answeredWidgetTurns are 40 closed turns, each answered by a message
// that states an outcome: the older answers the open turn's messages are
// ranked against.
func answeredWidgetTurns() []session.Event {
	var evs []session.Event
	for k := 0; k < 40; k++ {
		evs = append(evs,
			human(fmt.Sprintf("Tweak widget %d.", k)),
			say(fmt.Sprintf("Widget %d now renders its label in the panel header, as in the other panels of the settings page; the change is in widget%d.rs and its snapshot test passes.", k, k)))
	}
	return evs
}

// The open turn's newest steps are the work in progress told as it goes:
// the budget cuts them after the older messages that answered a closed
// turn or state an outcome, not before (an agent that changes its
// approach says so in a step: "the desktop file will not expand the home
// variable, switching to the full path").
func TestTheOpenTurnsStepsOutliveOlderAnswers(t *testing.T) {
	evs := answeredWidgetTurns()
	evs = append(evs, human("The tray icon is missing after a fresh login."))
	steps := []string{
		"Looking at the autostart entry the install recipe writes.",
		"The binary sits in the local bin folder, which the login session may not have on its path yet.",
		"The desktop file will not expand the home variable, so the entry gets the full path written out.",
		"Writing the entry line by line with printf rather than an indented here-document.",
	}
	for k, st := range steps {
		id := fmt.Sprintf("e%d", k)
		evs = append(evs,
			say(st),
			call("Edit", id, `{"file_path":"justfile","old_string":"a","new_string":"b"}`),
			result("Edit", id, true, "ok"))
	}
	tp := build(t, "s", seqd(evs...), Options{Budget: MinBudget}, nil)
	bp := blockText(t, tp, "Breakpoint")
	if !strings.Contains(bp, "[cut: ") || strings.Contains(bp, "Widget 0 now renders") {
		t.Fatalf("the budget cut no older answer:\n%s", bp)
	}
	for _, st := range steps {
		if !strings.Contains(bp, st) {
			t.Errorf("the open turn's step %q was cut while older answers were kept:\n%s", st, bp)
		}
	}
}

// The open turn's first message, when it is more than an announcement
// of a call, is how the agent took the latest instruction: its plan for
// the work in progress ("I'll create a separate branch from main, …").
// It ranks with the marked messages, above the answers of closed turns,
// which it is newer than; a real Codex session had it cut while ten
// older answers stayed.
func TestTheOpenTurnsFirstMessageOutlivesOlderAnswers(t *testing.T) {
	evs := answeredWidgetTurns()
	plan := "I'll make that a separate pull request: a branch from the current main, the cask parser's language selector first, then the Ruby bootstrap, each with a focused test, and the pull request opened ready for review and linked to the discussion."
	evs = append(evs,
		human("ok make a separate pr for that"),
		say(plan),
		call("Bash", "c1", `{"command":"git switch -c cask-language origin/main"}`),
		result("Bash", "c1", true, "Switched to a new branch 'cask-language'"),
		say("The parser now reads the language selector."))
	tp := build(t, "s", seqd(evs...), Options{Budget: MinBudget}, nil)
	bp := blockText(t, tp, "Breakpoint")
	if !strings.Contains(bp, "[cut: ") || strings.Contains(bp, "Widget 0 now renders") {
		t.Fatalf("the budget cut no older answer:\n%s", bp)
	}
	if !strings.Contains(bp, plan) {
		t.Errorf("the open turn's first message was cut while older answers were kept:\n%s", bp)
	}
}

// A person pastes a log to show where it failed. When the Goal cuts the
// middle of a long instruction, the cut mark quotes the first line of the
// cut that names an error, the way a failed call is told by its error
// line, not its first.
func TestAPastedLogsCutMiddleNamesItsError(t *testing.T) {
	var log strings.Builder
	log.WriteString("i tried to publish but got this:\n$ bun release:manual\n")
	for k := 0; k < 40; k++ {
		fmt.Fprintf(&log, "npm notice %d.%dkB dist/file%d.js\n", k, k%10, k)
	}
	log.WriteString("npm error code EOTP\nnpm error This operation requires a one-time password from your authenticator.\n")
	for k := 0; k < 40; k++ {
		fmt.Fprintf(&log, "npm notice tarball detail %d\n", k)
	}
	log.WriteString("error: script \"release:manual\" exited with code 1\nask for the OTP in the release script")
	evs := []session.Event{
		human("Set up the release script."),
		say("Done."),
		human(log.String()),
		say("I will add the prompt."),
		human("Now commit it."),
	}
	tp := build(t, "s", seqd(evs...), Options{}, nil)
	goal := blockText(t, tp, "Goal")
	mark := ""
	for l := range strings.SplitSeq(goal, "\n") {
		if strings.Contains(l, "[cut: recall seq=3") {
			mark = l
		}
	}
	if mark == "" {
		t.Fatalf("the pasted log was not cut:\n%s", goal)
	}
	if !strings.Contains(mark, "npm error code EOTP") || strings.Contains(mark, "npm error This operation") {
		t.Errorf("the cut mark should name the log's first error line, and only it: %q", mark)
	}

	// A middle without an error line keeps the plain mark.
	plain := strings.ReplaceAll(strings.ReplaceAll(log.String(), "npm error code EOTP", "npm notice code"), "npm error This", "npm notice This")
	tp = build(t, "s", seqd(human("Set up the release script."), say("Done."), human(plain), say("Ok."), human("Now commit it.")), Options{}, nil)
	if goal := blockText(t, tp, "Goal"); !strings.Contains(goal, "[cut: recall seq=3] …") {
		t.Errorf("a middle with no error line should keep the plain cut mark:\n%s", goal)
	}
}

// A call that failed and was not fixed since is what the next window must
// look at first: Pending State quotes its error and its Recent Actions
// line points there ("(its output: Pending State)"). The failure is cut
// only after every action: at no budget does an action point at an
// error the tape no longer holds.
func TestAPendingFailureOutlivesTheActionsThatPointToIt(t *testing.T) {
	const errLine = "error TS2322: Type 'string' is not assignable to type 'number'."
	evs := []session.Event{human("Build it."),
		call("Bash", "b1", `{"command":"npm run build"}`),
		result("Bash", "b1", false, "> app@1.0.0 build\n> tsc\nsrc/index.ts(3,7): "+errLine+"\nExit code 2")}
	for k := 0; k < 40; k++ {
		id := fmt.Sprintf("r%d", k)
		evs = append(evs,
			call("Bash", id, fmt.Sprintf(`{"command":"grep -rn 'amount' src/module%d/ --include=*.ts"}`, k)),
			result("Bash", id, true, fmt.Sprintf("src/module%d/pay.ts:12:  amount: string; // from the form, parsed later in module %d", k, k)))
	}
	evs = append(evs, say(linesUpTo("The build still fails on the type of amount.\n", "- module %d passes the amount as a string\n", 6000)))
	checked := 0
	for budget := MinBudget; budget <= DefaultBudget; budget += 250 {
		tp := build(t, "s", seqd(evs...), Options{Budget: budget}, nil)
		actions, ok := tp.Block("Recent Actions")
		if !ok || !strings.Contains(actions, "$ npm run build\n    → (its output: Pending State)") {
			continue
		}
		checked++
		if !strings.Contains(tp.Text, errLine) {
			t.Fatalf("budget %d: Recent Actions points at Pending State for npm run build, whose error the tape no longer holds:\n%s", budget, tp.Text)
		}
	}
	if checked == 0 {
		t.Fatal("no budget listed the failed build in Recent Actions: the test checks nothing")
	}
	t.Logf("%d budgets list the failed build among the actions", checked)
}

// A first goal a later generation inherits was clipped in the session it
// was said in, and its cut mark named a seq of that session: the next
// generation's Goal names the session too, as every other citation of
// another session's event does, so that graft recall reads the cut part
// and not the event of that seq in the session the tape hands on.
func TestAnInheritedFirstGoalsCutIsRecalledInItsSession(t *testing.T) {
	long := strings.Repeat("Some context about the parser and its grammar rules here. ", 60) + "Never push to main."
	tp := build(t, "s", seqd(human(long), say("Read."), human("next"), say("Done.")), Options{}, nil)
	if g := blockText(t, tp, "Goal"); !strings.Contains(g, cutMark+"seq=1]") {
		t.Fatalf("the first generation's Goal does not cut the long instruction:\n%.1500s", g)
	}
	next := build(t, "s2", seqd(origin(2, "s", 4, &tp.Inherit), human("continue"), say("Planning.")), Options{}, nil)
	goal := blockText(t, next, "Goal")
	if !strings.Contains(goal, cutMark+"gen 1 seq=1]") || strings.Contains(goal, cutMark+"seq=1]") {
		t.Errorf("the inherited first goal's cut is not recalled in its session:\n%.3000s", goal)
	}
}

// The person's instructions after the first are the task as it grew: a
// target hands them on in its graft/origin (inherit.said, each with its
// origin, as the first goal), and the next generation's Goal quotes them,
// oldest first, before its own, where before only the first goal and the
// constraints crossed a handoff and the rest was text in a tape no fold
// reads. The target of that generation hands them on again with its own.
func TestThePersonsLaterInstructionsCrossAHandoff(t *testing.T) {
	said := []string{
		"Add a --json flag to the export command.",
		"Also keep the old text output as the default.",
		"Use the release branch for this, not main.",
	}
	evs := []session.Event{human("Write an exporter for the sessions table."), say("Exporter written.")}
	for k, s := range said {
		evs = append(evs, human(s), say(fmt.Sprintf("Step %d done.", k)))
	}
	g1 := seqd(evs...)
	tp := build(t, "s", g1, Options{}, nil)
	if n := len(tp.Inherit.Said); n != len(said) {
		t.Fatalf("the target hands on %d of the %d later instructions: %+v", n, len(said), tp.Inherit.Said)
	}
	for k, q := range tp.Inherit.Said {
		if q.Text != said[k] || q.Origin != (session.Origin{Generation: 1, Session: "s", Seq: int64(3 + 2*k)}) {
			t.Errorf("said[%d] = %+v, want %q at seq %d", k, q, said[k], 3+2*k)
		}
	}
	for _, q := range tp.Inherit.Said {
		if !slices.ContainsFunc(tp.Relies.Origins, func(ol session.OriginLine) bool { return ol.Origin == q.Origin && ol.Line != "" }) {
			t.Errorf("relies cites no line of %+v: graft audit could not tell it changed", q.Origin)
		}
	}
	next := build(t, "s2", seqd(origin(2, "s", int64(len(g1)), &tp.Inherit), human("now write its tests"), say("Testing.")), Options{}, nil)
	goal := blockText(t, next, "Goal")
	at := -1
	for k, s := range said {
		i := strings.Index(goal, fmt.Sprintf("Then (gen 1 seq %d):\n> %s", 3+2*k, s))
		if i < 0 {
			t.Errorf("the next generation's Goal does not quote %q with its origin:\n%s", s, goal)
		} else if i < at {
			t.Errorf("the next generation's Goal quotes %q before the instruction said before it:\n%s", s, goal)
		}
		at = i
	}
	if !strings.Contains(goal, "Latest instruction (seq 2):\n> now write its tests") {
		t.Errorf("the next generation's own instruction is not the latest:\n%s", goal)
	}
	if n := len(next.Inherit.Said); n != len(said)+1 || next.Inherit.Said[n-1].Text != "now write its tests" || next.Inherit.Said[0].Origin.Generation != 1 {
		t.Errorf("the next target hands on %+v, want the 3 of generation 1 then its own", next.Inherit.Said)
	}
}

// The files a session wrote or edited are the work done: a target hands
// them on in its graft/origin (inherit.files, as Workspace Files named
// them), and the next generation lists those it did not touch itself
// after its own, each cited in its session; its target hands on its own
// files first, then those.
func TestTheFilesOfTheSessionsBeforeCrossAHandoff(t *testing.T) {
	write := func(id, path, content string) []session.Event {
		return []session.Event{
			call("Write", id, fmt.Sprintf(`{"file_path":"/repo/%s","content":%q}`, path, content)),
			result("Write", id, true, "File created successfully"),
		}
	}
	g1 := []session.Event{withMeta(human("Write the exporter and its config."), "cwd", "/repo")}
	g1 = append(g1, write("w1", "export.go", "package main\n\nfunc exportSessions() {}\n")...)
	g1 = append(g1, write("w2", "config.go", "package main\n\nfunc loadConfig() {}\n")...)
	g1 = append(g1, say("Both written."))
	tp := build(t, "s", seqd(g1...), Options{}, nil)
	if len(tp.Inherit.Files) != 2 || tp.Inherit.Files[0].Path != "config.go" || tp.Inherit.Files[0].Session != "s" || !strings.Contains(tp.Inherit.Files[0].Note, "loadConfig") {
		t.Fatalf("the target hands on %+v, want config.go then export.go, with what the tape said of them", tp.Inherit.Files)
	}
	g2 := []session.Event{origin(2, "s", int64(len(g1)), &tp.Inherit), withMeta(human("Now the tests, and rename the config loader."), "cwd", "/repo")}
	g2 = append(g2, write("w3", "export_test.go", "package main\n\nfunc TestExport(t *testing.T) {}\n")...)
	g2 = append(g2, write("w4", "config.go", "package main\n\nfunc readConfig() {}\n")...)
	g2 = append(g2, say("Done."))
	next := build(t, "s2", seqd(g2...), Options{}, nil)
	files := blockText(t, next, "Workspace Files")
	if !strings.Contains(files, "Written or edited in the sessions before this one") || !strings.Contains(files, "- export.go (gen 1): write seq=") || !strings.Contains(files, "exportSessions") {
		t.Errorf("the next generation does not list the file only the session before wrote:\n%s", files)
	}
	if strings.Contains(files, "config.go (gen 1") {
		t.Errorf("a file this session wrote again is listed as the session before's too:\n%s", files)
	}
	var got []string
	for _, f := range next.Inherit.Files {
		got = append(got, fmt.Sprintf("%s@%s", f.Path, f.Session))
	}
	if want := []string{"config.go@s2", "export_test.go@s2", "export.go@s"}; !slices.Equal(got, want) {
		t.Errorf("the next target hands on %v, want %v", got, want)
	}
}

// A long instruction shows its head and end in the Goal, its middle in
// parts the budget cuts early: what a target hands on of the first goal
// and of the later instructions is each as the fold keeps it (head and
// end within maxHumanRunes), so that the next generation's Goal quotes
// it as this one's did, middle parts and all, not its 2,000-character
// quote alone.
func TestALongInstructionsMiddleCrossesAHandoff(t *testing.T) {
	long := func(name string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "%s: the task in full.\n", name)
		for k := range 40 {
			fmt.Fprintf(&b, "- %s requirement %02d: keep the column named %s_col_%02d as it is.\n", name, k, name, k)
		}
		return b.String()
	}
	first, later := long("first"), long("later")
	g1 := seqd(human(first), say("Read it."), human(later), say("Read that too."), human("go on"), say("Going on."))
	tp := build(t, "s", g1, Options{}, nil)
	if g := blockText(t, tp, "Goal"); !strings.Contains(g, "first_col_20") || !strings.Contains(g, "later_col_20") {
		t.Fatalf("the first generation's Goal lacks the middles it is meant to carry:\n%s", g)
	}
	if fg := tp.Inherit.FirstGoal; fg == nil || !strings.Contains(fg.Text, "first_col_20") {
		t.Fatalf("the target hands on the first goal without its middle: %+v", fg)
	}
	next := build(t, "s2", seqd(origin(2, "s", int64(len(g1)), &tp.Inherit), human("now write its tests"), say("Testing.")), Options{}, nil)
	goal := blockText(t, next, "Goal")
	for _, w := range []string{"first_col_20", "later_col_20", "first_col_39", "later_col_00"} {
		if !strings.Contains(goal, w) {
			t.Errorf("the next generation's Goal lacks %q:\n%s", w, goal)
		}
	}
	if !strings.Contains(goal, "(gen 1 seq 1, middle part 1):") {
		t.Errorf("the inherited first goal's middle is not a middle part cited in its session:\n%s", goal)
	}
	head, _, _ := strings.Cut(goal, "Middle parts of the long instructions above:")
	if strings.Contains(head, "first_col_20") {
		t.Errorf("the inherited first goal is quoted whole rather than by its head and end:\n%s", head)
	}
}

// The middle part of an instruction handed on holds the fold's own cut
// of a very long one: it is recalled in the session that heard it.
func TestAnInheritedMiddlePartsCutIsRecalledInItsSession(t *testing.T) {
	var b strings.Builder
	for k := range 200 {
		fmt.Fprintf(&b, "- step %03d: migrate table t%03d to the new schema.\n", k, k)
	}
	g1 := seqd(human(b.String()), say("Reading."), human("go on"), say("Going on."))
	tp := build(t, "s", g1, Options{}, nil)
	next := build(t, "s2", seqd(origin(2, "s", int64(len(g1)), &tp.Inherit), human("now the tests"), say("Testing.")), Options{}, nil)
	goal := blockText(t, next, "Goal")
	_, more, ok := strings.Cut(goal, "Middle parts of the long instructions above:")
	if !ok {
		t.Fatalf("no middle parts of the inherited first goal:\n%s", goal)
	}
	if !strings.Contains(more, "[cut: recall gen 1 seq=1]") || strings.Contains(more, "[cut: recall seq=1]") {
		t.Errorf("the fold's cut inside a middle part is not recalled in session s:\n%s", more)
	}
}

// Where the work is done crosses a handoff: the working directory the
// tape names files relative to and the git branch the work is on
// (inherit.place), which a target's own events may never name again
// (Codex names its working directory once, in the session's meta; Claude
// Code on the person's lines alone). The next generation starts with them
// until its own events say otherwise, and hands them on in turn.
func TestWhereTheWorkIsDoneCrossesAHandoff(t *testing.T) {
	first := human("Fix the busy timeout on the hotfix branch.")
	first.Meta = map[string]string{"cwd": "/repo", "gitBranch": "hotfix"}
	g1 := seqd(first,
		call("Write", "w1", `{"file_path":"/repo/internal/config.go","content":"package config\n\nfunc busyTimeout() int { return 60000 }\n"}`),
		result("Write", "w1", true, "ok"), say("Timeout set."))
	tp := build(t, "s", g1, Options{}, nil)
	if p := tp.Inherit.Place; p == nil || p.Cwd != "/repo" || p.GitBranch != "hotfix" {
		t.Fatalf("the target hands on %+v, want /repo on hotfix", p)
	}
	g2 := seqd(origin(2, "s", int64(len(g1)), &tp.Inherit),
		call("Write", "w2", `{"file_path":"/repo/internal/config_test.go","content":"package config\n\nfunc TestBusyTimeout(t *testing.T) {}\n"}`),
		result("Write", "w2", true, "ok"), say("Test written."))
	next := build(t, "s2", g2, Options{}, nil)
	files := blockText(t, next, "Workspace Files")
	for _, w := range []string{"Relative to /repo.", "Git: branch hotfix.", "- internal/config_test.go: write seq="} {
		if !strings.Contains(files, w) {
			t.Errorf("the next generation's Workspace Files lacks %q:\n%s", w, files)
		}
	}
	if p := next.Inherit.Place; p == nil || p.Cwd != "/repo" || p.GitBranch != "hotfix" {
		t.Errorf("the next target hands on %+v, want /repo on hotfix still", p)
	}
	moved := human("Now on main.")
	moved.Meta = map[string]string{"cwd": "/repo2", "gitBranch": "main"}
	started := human("Fix the busy timeout.")
	started.Meta = map[string]string{"cwd": "/repo", "gitCommit": "2ac98e0c1d2e3f405162738495a6b7c8d9e0f1a2"}
	c1 := seqd(started, say("Fixed."))
	ct := build(t, "c", c1, Options{}, nil)
	if p := ct.Inherit.Place; p == nil || p.GitCommit != "2ac98e0c1d2e3f405162738495a6b7c8d9e0f1a2" {
		t.Fatalf("the target does not hand on the commit the work started at: %+v", p)
	}
	c2 := build(t, "c2", seqd(origin(2, "c", int64(len(c1)), &ct.Inherit), say("Going on.")), Options{}, nil)
	if files := blockText(t, c2, "Workspace Files"); !strings.Contains(files, "Git: at commit 2ac98e0c1d2e when the work started.") {
		t.Errorf("the next generation does not name the commit the work started at:\n%s", files)
	}
	if p := c2.Inherit.Place; p == nil || p.GitCommit != ct.Inherit.Place.GitCommit {
		t.Errorf("the next target does not hand the commit on again: %+v", p)
	}
	last := build(t, "s3", seqd(origin(3, "s2", int64(len(g2)), &next.Inherit), moved, say("On main.")), Options{}, nil)
	if p := last.Inherit.Place; p == nil || p.Cwd != "/repo2" || p.GitBranch != "main" {
		t.Errorf("a session's own place does not replace the one handed on: %+v", p)
	}
}

// The constraints said only in a paste stay the first the budget cuts
// after a handoff: a target hands each on marked pasted (every saying of
// it so far in a pasted instruction), and the next generation's ranking
// reads the mark as the first generation read its own pastes. Before the
// rule, a template's hundred "must" sentences became the next
// generation's typed constraints and took the tail's room.
func TestPastedConstraintsStayPastedAcrossAHandoff(t *testing.T) {
	paste := "Here is the log of my last session:\n"
	for k := range 200 {
		paste += fmt.Sprintf("Thinking: we must always re-run check number %d before the commit.\n", k)
	}
	g1 := seqd(human(paste+"Carry on from there."), human("Never touch prod.go."), say("Carrying on."))
	tp := build(t, "s", g1, Options{}, nil)
	var pasted, typed int
	for _, c := range tp.Inherit.Constraints {
		if c.Pasted {
			pasted++
		} else {
			typed++
		}
	}
	if pasted == 0 || typed != 1 {
		t.Fatalf("the target hands on %d pasted and %d typed constraints, want the paste's marked and one typed", pasted, typed)
	}
	g2 := seqd(origin(2, "s", int64(len(g1)), &tp.Inherit),
		call("Bash", "b1", `{"command":"make deploy"}`),
		result("Bash", "b1", true, "deployed build 7f3a2c1 to staging"),
		say("Deployed build 7f3a2c1 to staging; the smoke check is next."))
	next := build(t, "s2", g2, Options{}, nil)
	blk := blockText(t, next, "Anchor + Hard Constraints")
	if !strings.Contains(blk, "Never touch prod.go.") {
		t.Errorf("the typed constraint was cut:\n%s", blk)
	}
	if strings.Contains(blk, "check number 199 before") || !strings.Contains(blk, "constraints; recall session s seq=1]") {
		t.Errorf("the paste's constraints were not cut first in the next generation:\n%s", blk)
	}
	if _, ok := next.Block("Conversation Tail"); !ok {
		t.Fatalf("the conversation tail was cut before the paste's constraints:\n%s", next.Text)
	}
	// Said again, typed, in the next generation: no longer the paste's alone.
	again := build(t, "s2", seqd(origin(2, "s", int64(len(g1)), &tp.Inherit), human("Thinking: we must always re-run check number 199 before the commit."), say("Noted.")), Options{}, nil)
	found := false
	for _, c := range again.Inherit.Constraints {
		if strings.Contains(c.Text, "check number 199 before") {
			found = true
			if c.Pasted || len(c.Also) == 0 {
				t.Errorf("a constraint typed again is handed on as %+v, want said again in s2 and not pasted", c)
			}
		}
	}
	if !found {
		t.Errorf("the constraint typed again is not handed on: %+v", again.Inherit.Constraints)
	}
}

// What the assistant found and chose in the work before crosses a
// handoff: a target hands on the assistant's newest messages of the
// carryover (inherit.messages: model-written, each with its origin, never
// an instruction or a constraint), and the next generation's Breakpoint
// lists them before its own earlier messages, each cited in its session,
// cut before them; its target hands on its own first.
func TestTheAssistantsMessagesCrossAHandoff(t *testing.T) {
	chose := "We must use SQLite, not Postgres: the deployment is a single node, and the WAL mode covers the write load.\n\nThe exporter opens one connection with busy_timeout set, writes in batches of 500 rows, and the schema keeps the table the importer reads."
	g1 := seqd(human("Pick the database for the exporter."),
		say(chose),
		call("Bash", "b1", `{"command":"go test ./..."}`), result("Bash", "b1", true, "ok  \texport\t0.2s"),
		say("The exporter now writes to SQLite; its tests pass."))
	tp := build(t, "s", g1, Options{}, nil)
	var texts []string
	for _, m := range tp.Inherit.Messages {
		texts = append(texts, m.Text)
	}
	if len(tp.Inherit.Messages) != 2 || tp.Inherit.Messages[0].Text != chose || tp.Inherit.Messages[0].Origin != (session.Origin{Generation: 1, Session: "s", Seq: 2}) {
		t.Fatalf("the target hands on %q (%+v), want the two messages oldest first with their origins", texts, tp.Inherit.Messages)
	}
	g2 := seqd(origin(2, "s", int64(len(g1)), &tp.Inherit), human("Now write the importer."), say("Reading the exporter first."),
		call("Bash", "b2", `{"command":"ls"}`), result("Bash", "b2", true, "export.go"), say("Writing the importer."))
	next := build(t, "s2", g2, Options{}, nil)
	bp := blockText(t, next, "Breakpoint")
	i := strings.Index(bp, "gen 1 seq=2: "+chose)
	j := strings.Index(bp, "seq=3: Reading the exporter first.")
	if i < 0 || j < 0 || i > j {
		t.Errorf("the next Breakpoint does not list the message handed on, cited in its session, before its own:\n%s", bp)
	}
	if c := blockText(t, next, "Anchor + Hard Constraints"); strings.Contains(c, "SQLite") {
		t.Errorf("a model's message handed on became a constraint:\n%s", c)
	}
	if g := blockText(t, next, "Goal"); strings.Contains(g, "SQLite") {
		t.Errorf("a model's message handed on is quoted as the user's:\n%s", g)
	}
	if ms := next.Inherit.Messages; len(ms) != 3 || ms[len(ms)-1].Text != "Writing the importer." || ms[0].Text != chose {
		t.Errorf("the next target hands on %+v, want generation 1's two then its own but the step, oldest first", ms)
	}
	// Cut first: at the least budget the session's own messages outlive them.
	small := build(t, "s2", g2, Options{Budget: MinBudget}, nil)
	if bp := blockText(t, small, "Breakpoint"); strings.Contains(bp, chose) && !strings.Contains(bp, "Reading the exporter first.") {
		t.Errorf("a message handed on outlived the session's own:\n%s", bp)
	}
}

// The person's answers to the assistant's questions are their own words
// as much as the instructions they typed: a target hands them on with
// the instructions (inherit.said, marked answer, in the order said), and
// the next generation's Goal quotes each as an answer, cited in its
// session; relies cites no line of them (a tool result's, not a human
// message's).
func TestThePersonsAnswersCrossAHandoff(t *testing.T) {
	answer := `User has answered your questions: "What should happen to the hooks?"="Leave it alone (Recommended)".`
	g1 := seqd(human("Install the integration."),
		call("AskUserQuestion", "q1", `{"questions":[]}`),
		result("AskUserQuestion", "q1", true, answer),
		human("Then start on the audit fixes."), say("Starting."))
	tp := build(t, "s", g1, Options{}, nil)
	if got := len(tp.Inherit.Said); got != 2 || !tp.Inherit.Said[0].Answer || tp.Inherit.Said[0].Origin.Seq != 3 || tp.Inherit.Said[1].Answer || tp.Inherit.Said[1].Text != "Then start on the audit fixes." {
		t.Fatalf("the target hands on %+v, want the answer at seq 3 then the instruction", tp.Inherit.Said)
	}
	for _, ol := range tp.Relies.Origins {
		if ol.Origin.Seq == 3 {
			t.Errorf("relies cites a line of the answer: %+v", ol)
		}
	}
	next := build(t, "s2", seqd(origin(2, "s", int64(len(g1)), &tp.Inherit), human("go on"), say("Going on.")), Options{}, nil)
	goal := blockText(t, next, "Goal")
	i := strings.Index(goal, "The user's answer to the assistant's question (gen 1 seq 3):\n> "+answer)
	j := strings.Index(goal, "Then (gen 1 seq 4):\n> Then start on the audit fixes.")
	if i < 0 || j < 0 || i > j {
		t.Errorf("the next Goal does not quote the answer as an answer before the instruction said after it:\n%s", goal)
	}
	if n := next.Inherit.Said; len(n) != 3 || !n[0].Answer {
		t.Errorf("the next target hands on %+v, want the answer still marked", n)
	}
}

// The instructions an earlier generation handed on that this session's
// own push out of the fold's last keptHumans are counted in the Goal's
// cut line, recalled in their session: nothing the person said goes
// without a word of where it is.
func TestInheritedInstructionsLetGoAreCountedInTheGoalsCutLine(t *testing.T) {
	said := []session.Quote{
		{Text: "Keep the old CSV export working.", Origin: session.Origin{Generation: 1, Session: "s", Seq: 5}},
		{Text: "Name the flag --json.", Origin: session.Origin{Generation: 1, Session: "s", Seq: 9}},
	}
	evs := []session.Event{origin(2, "s", 40, &session.Inherited{
		FirstGoal: &session.Quote{Text: "Write the exporter.", Origin: session.Origin{Generation: 1, Session: "s", Seq: 1}},
		Said:      said,
	})}
	for k := range keptHumans {
		evs = append(evs, human(fmt.Sprintf("Step %d: go on with part %d.", k, k)), say("Done."))
	}
	tp := build(t, "s2", seqd(evs...), Options{}, nil)
	goal := blockText(t, tp, "Goal")
	if strings.Contains(goal, "Keep the old CSV export working.") {
		t.Fatalf("the fold kept more than keptHumans instructions; the test needs them let go:\n%s", goal)
	}
	if !strings.Contains(goal, "gen 1 seq=5..9") {
		t.Errorf("the Goal's cut line does not recall the instructions handed on and let go in session s:\n%s", goal)
	}
}

// A message or a plan handed on holds the cut marks of the generation
// that clipped it: the next generation recalls them in that session, not
// in its own (FuzzBuild found "[cut: recall seq=39]" in a generation 2 of
// 5 events).
func TestCutsInsideWhatIsHandedOnAreRecalledInTheirSession(t *testing.T) {
	long := "We keep the parser streaming.\n\n" + strings.Repeat("The reader takes one line at a time and never buffers the whole file. ", 60)
	g1 := seqd(human("Write the parser."), say(long), human("go on"), say("Going on."))
	tp := build(t, "s", g1, Options{}, nil)
	if len(tp.Inherit.Messages) == 0 || !strings.Contains(tp.Inherit.Messages[0].Text, "[cut: recall seq=2]") {
		t.Fatalf("the test needs a message handed on clipped by its fold: %+v", tp.Inherit.Messages)
	}
	plan := "# Plan\n\n" + strings.Repeat("- step: move one reader to the stream API.\n", 100) + " … [cut: recall seq=7] … " + strings.Repeat("- check: run the parser tests.\n", 100)
	tp.Inherit.Plan = &session.Passage{Text: plan, Origin: session.Origin{Generation: 1, Session: "s", Seq: 7}}
	next := build(t, "s2", seqd(origin(2, "s", int64(len(g1)), &tp.Inherit), say("Continuing.")), Options{}, nil)
	for _, bad := range []string{"[cut: recall seq=2]", "[cut: recall seq=7]"} {
		if strings.Contains(next.Text, bad) {
			t.Errorf("the next generation recalls %q in its own session:\n%s", bad, next.Text)
		}
	}
	for _, good := range []string{"[cut: recall gen 1 seq=2]", "[cut: recall gen 1 seq=7]"} {
		if !strings.Contains(next.Text, good) {
			t.Errorf("the next generation lacks %q:\n%s", good, next.Text)
		}
	}
}

// A later generation cites the sessions before it by generation ("gen 1
// seq 3"), and its Handoff block names each of them once: along a
// lineage each generation is one session, and a host's session id is 36
// to 64 characters, which the tape repeated at every citation. The
// constraints block, which a host is given again alone, keeps the ids.
// Where two sessions the tape cites have one generation, both are cited
// by id.
func TestTheSessionsBeforeAreCitedByGeneration(t *testing.T) {
	id := "rollout-2026-03-12T14-37-47-019ce38e-1d19-7260-adc0-9c32ac8b6007"
	g1 := seqd(human("Write the exporter. Never touch vendor/."), say("Written."), human("Add a --json flag."), say("Added."))
	tp := build(t, id, g1, Options{}, nil)
	next := build(t, "s2", seqd(origin(2, id, int64(len(g1)), &tp.Inherit), human("Now its tests."), say("Testing.")), Options{}, nil)
	if n := strings.Count(next.Text, id); n != 3 {
		t.Errorf("the session before is named %d times, want 3 (the Handoff block's lineage, the anchor, the constraint):\n%s", n, next.Text)
	}
	handoff := blockText(t, next, "Handoff")
	if !strings.Contains(handoff, "gen 1 is session "+id+".") {
		t.Errorf("the Handoff block does not name generation 1's session:\n%s", handoff)
	}
	if goal := blockText(t, next, "Goal"); !strings.Contains(goal, "First instruction (gen 1 seq 1):") || !strings.Contains(goal, "Then (gen 1 seq 3):") {
		t.Errorf("the Goal does not cite generation 1 by its number:\n%s", goal)
	}
	if c := blockText(t, next, "Anchor + Hard Constraints"); !strings.Contains(c, "generation 1 session "+id) {
		t.Errorf("the constraints block, given again alone, does not name the session:\n%s", c)
	}
	// Two sessions of generation 1 cited: neither by its number alone.
	in := tp.Inherit
	in.Said = append(in.Said, session.Quote{Text: "Keep the CSV export.", Origin: session.Origin{Generation: 1, Session: "other", Seq: 9}})
	mixed := build(t, "s2", seqd(origin(2, id, int64(len(g1)), &in), say("Going on.")), Options{}, nil)
	goal := blockText(t, mixed, "Goal")
	if !strings.Contains(goal, "(gen 1 session other seq 9)") || !strings.Contains(goal, "(gen 1 session "+id+" seq 3)") || strings.Contains(blockText(t, mixed, "Handoff"), "gen 1 is session") {
		t.Errorf("two sessions of generation 1 are not both cited by id:\n%s", mixed.Text)
	}
}

// The work's last todo list crosses a handoff: a target hands it on with
// the origin of its todo/write, the next generation shows it in Task
// Status and Pending State (cited in its session) until it writes its own,
// and hands it on again with the same origin. Before, a second
// generation that wrote no list of its own had none, and the third lost
// what was left to do.
func TestTheTodoListCrossesAHandoff(t *testing.T) {
	long := strings.Repeat("Migrate the resampler's tests to the table form. ", 12)
	g1 := seqd(human("Add the average resampler."),
		todoWrite(todo("1", "Add the resampler", "completed"), todo("2", "Wire the --avg flag", "in_progress"), todo("3", long, "pending")),
		say("Resampler added; wiring the flag next."))
	tp := build(t, "s", g1, Options{}, nil)
	l := tp.Inherit.Todos
	if l == nil || len(l.Items) != 3 || l.Origin != (session.Origin{Generation: 1, Session: "s", Seq: 2}) {
		t.Fatalf("the target hands on %+v, want the three todos of seq 2", l)
	}
	g2 := seqd(origin(2, "s", int64(len(g1)), &tp.Inherit),
		call("Bash", "b1", `{"command":"go test ./..."}`),
		result("Bash", "b1", true, "ok  \texample.com/resample\t0.1s"),
		say("Tests pass."))
	next := build(t, "s2", g2, Options{}, nil)
	status := blockText(t, next, "Task Status")
	for _, w := range []string{"The last todo list, written at gen 1 seq 2, handed on at seq=1: 1/3 todos completed", "- [in_progress] Wire the --avg flag", "[cut: recall gen 1 seq=2]"} {
		if !strings.Contains(status, w) {
			t.Errorf("the next generation's Task Status lacks %q:\n%s", w, status)
		}
	}
	if pending := blockText(t, next, "Pending State"); !strings.Contains(pending, "Unfinished todos (list of gen 1 seq 2):") {
		t.Errorf("the next generation's Pending State does not list the todos left:\n%s", pending)
	}
	if l := next.Inherit.Todos; l == nil || l.Origin != tp.Inherit.Todos.Origin || len(l.Items) != 3 {
		t.Errorf("the next target does not hand the list on with its origin: %+v", l)
	}
	own := build(t, "s2", seqd(origin(2, "s", int64(len(g1)), &tp.Inherit), say("Planning."), todoWrite(todo("a", "Release 0.3", "pending"))), Options{}, nil)
	if l := own.Inherit.Todos; l == nil || l.Origin.Session != "s2" || len(l.Items) != 1 {
		t.Errorf("a list of the session's own does not replace the one handed on: %+v", l)
	}
	if status := blockText(t, own, "Task Status"); strings.Contains(status, "Wire the --avg flag") {
		t.Errorf("the list handed on is still shown beside the session's own:\n%s", status)
	}
}

// A failed call no later call fixed crosses a handoff: a target hands it
// on as Pending State listed it (inherit.failures), the next generation
// lists it, cited in its session, and a successful run of the same call
// there fixes it (it is then neither listed nor handed on). Before, what
// still failed at the handoff was gone from the second generation.
func TestAFailureNotFixedCrossesAHandoff(t *testing.T) {
	g1 := seqd(human("Build the site."),
		call("Bash", "b1", `{"command":"npm run build"}`),
		result("Bash", "b1", false, "npm warn Unknown env config \"python\"\nTypeError: marked.parse is not a function\n    at render (src/build.js:12:9)"),
		say("The build fails in render."))
	tp := build(t, "s", g1, Options{}, nil)
	fs := tp.Inherit.Failures
	if len(fs) != 1 || fs[0].Tool != "Bash" || fs[0].What != "npm run build" || fs[0].Origin != (session.Origin{Generation: 1, Session: "s", Seq: 3}) || !strings.Contains(fs[0].Text, "TypeError: marked.parse is not a function") {
		t.Fatalf("the target hands on %+v, want the build's failure of seq 3", fs)
	}
	g2 := seqd(origin(2, "s", int64(len(g1)), &tp.Inherit),
		call("Bash", "b2", `{"command":"npm test"}`),
		result("Bash", "b2", true, "12 passing"),
		say("Tests pass; the build is next."))
	next := build(t, "s2", g2, Options{}, nil)
	pending := blockText(t, next, "Pending State")
	for _, w := range []string{"- gen 1 seq=3 FAILED: $ npm run build", "TypeError: marked.parse is not a function"} {
		if !strings.Contains(pending, w) {
			t.Errorf("the next generation's Pending State lacks %q:\n%s", w, pending)
		}
	}
	if fs := next.Inherit.Failures; len(fs) != 1 || fs[0].Origin != tp.Inherit.Failures[0].Origin {
		t.Errorf("the next target does not hand the failure on with its origin: %+v", fs)
	}
	fixed := build(t, "s2", seqd(origin(2, "s", int64(len(g1)), &tp.Inherit),
		call("Bash", "b2", `{"command":"npm run build"}`),
		result("Bash", "b2", true, "built in 2.1s"),
		say("The build passes.")), Options{}, nil)
	if p, ok := fixed.Block("Pending State"); ok && strings.Contains(p, "npm run build") {
		t.Errorf("a failure a later run fixed is still listed:\n%s", p)
	}
	if fs := fixed.Inherit.Failures; len(fs) != 0 {
		t.Errorf("a failure a later run fixed is handed on: %+v", fs)
	}
}

// A target hands on every instruction its Goal quotes, not the newest 12
// alone: a session of 20 instructions had its 7 oldest after the first
// cross a handoff nowhere, where the tape of the same work with no
// handoff quoted them all ("this is not relevant for the AppImage
// release", said early, still held at the end). Past the newest 12, each
// goes at the length the Goal shows an older one (its head and end in
// 2,000 runes), where 60 pasted logs at 6,000 had made a graft/origin of
// 390 KB.
func TestEveryInstructionTheGoalQuotesCrossesAHandoff(t *testing.T) {
	paste := strings.Repeat("log line with words\n", 300)
	evs := []session.Event{human("Build the wallpaper app.")}
	for k := 1; k < 20; k++ {
		evs = append(evs, human(fmt.Sprintf("Request %d: keep the tray icon %d px.\n%s", k, k, paste)), say(fmt.Sprintf("Done %d.", k)))
	}
	g1 := seqd(evs...)
	tp := build(t, "s", g1, Options{}, nil)
	said := tp.Inherit.Said
	if n := len(said); n != 19 {
		t.Fatalf("the target hands on %d of the 19 later instructions the Goal quotes", n)
	}
	for k, q := range said {
		n := utf8.RuneCountInString(q.Text)
		if older := k < len(said)-12; older && (n > 2100 || !strings.Contains(q.Text, "recall seq=")) || !older && n < 5000 {
			t.Errorf("said[%d] (seq %d) is handed on at %d runes: want the newest 12 as the fold keeps them, the older ones at 2,000 with a cut mark", k, q.Origin.Seq, n)
		}
	}
	next := build(t, "s2", seqd(origin(2, "s", int64(len(g1)), &tp.Inherit), human("now ship it"), say("Shipping.")), Options{Budget: 100000}, nil)
	if goal := blockText(t, next, "Goal"); !strings.Contains(goal, "Then (gen 1 seq 2):\n> Request 1: keep the tray icon 1 px.") {
		t.Errorf("the next generation's Goal lost the oldest later instruction:\n%s", goal)
	}
}

// What the work reached crosses a handoff: a target hands on its newest
// milestones, the commits, pushes, pull requests, tracker updates and
// test runs its Milestones and Recent Actions listed (inherit.milestones,
// each by its line), and the next generation's Milestones list them,
// cited in their session, before its own; its target hands them on
// again. Before, the commit a generation pushed was in no later tape. A
// run that failed crosses as a failure (inherit.failures), not as one.
func TestTheMilestonesCrossAHandoff(t *testing.T) {
	g1 := seqd(human("Ship the fix."),
		call("Bash", "c1", `{"command":"git commit -m 'fix: keep the tray icon'"}`),
		result("Bash", "c1", true, "[main 1a2b3c4] fix: keep the tray icon\n 2 files changed, 9 insertions(+)"),
		call("Bash", "p1", `{"command":"git push origin main"}`),
		result("Bash", "p1", true, "To github.com:o/r.git\n   9fd3c2a..1a2b3c4  main -> main"),
		call("Bash", "t0", `{"command":"npm test"}`),
		result("Bash", "t0", false, "1 failing\n  tray: keeps the icon size"),
		say("Pushed; one test fails."))
	tp := build(t, "s", g1, Options{}, nil)
	ms := tp.Inherit.Milestones
	if len(ms) != 2 || ms[1].What != "git push origin main" || ms[1].Origin != (session.Origin{Generation: 1, Session: "s", Seq: 5}) || !strings.Contains(ms[0].Text, "[main 1a2b3c4] fix: keep the tray icon") {
		t.Fatalf("the target hands on %+v, want the commit and the push of seqs 3 and 5, not the failed test run", ms)
	}
	if fs := tp.Inherit.Failures; len(fs) != 1 || fs[0].What != "npm test" {
		t.Fatalf("the target hands on the failures %+v, want the test run of seq 7", fs)
	}
	g2 := seqd(origin(2, "s", int64(len(g1)), &tp.Inherit),
		call("Bash", "t1", `{"command":"go test ./..."}`),
		result("Bash", "t1", true, "ok  \texample.com/tray\t0.4s"),
		say("Tests pass."))
	next := build(t, "s2", g2, Options{}, nil)
	got := blockText(t, next, "Milestones")
	for _, w := range []string{"- gen 1 seq=3 ok: $ git commit", "[main 1a2b3c4] fix: keep the tray icon", "- gen 1 seq=5 ok: $ git push origin main", "9fd3c2a..1a2b3c4  main -> main"} {
		if !strings.Contains(got, w) {
			t.Errorf("the next generation's Milestones lack %q:\n%s", w, got)
		}
	}
	if ms := next.Inherit.Milestones; len(ms) != 3 || ms[0].Origin != tp.Inherit.Milestones[0].Origin || ms[2].What != "go test ./..." {
		t.Errorf("the next target hands on %+v, want generation 1's two, then its own test run", ms)
	}
}
