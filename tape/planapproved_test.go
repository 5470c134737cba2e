package tape

import (
	"fmt"
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

// approvedPlanEvent is the user line Claude Code starts a cleared context
// with when the person approves a plan (importer/claudecode, "Approved
// plans"): kind system, plan-approved, meta plan the plan's byte range.
func approvedPlanEvent(plan string) session.Event {
	text := "Implement the following plan:\n\n" + plan + "\n\nIf you need specific details from before exiting plan mode, read the full transcript at: /u/p/abc.jsonl"
	ev := injected(session.KindSystem, "plan-approved", text)
	start := strings.Index(text, plan)
	ev.Meta = map[string]string{session.MetaPlan: fmt.Sprintf("%d:%d", start, start+len(plan))}
	return ev
}

// A plan the person approved when the host cleared the context to
// implement it is the work's task, and the model's words: Task Status
// shows it as the plan approved, model-written, no constraint and no goal
// comes of it (the human-origin rule: it had made "Keep the existing
// UpdateNodeState method" a hard constraint "from the user's own words"),
// and it ranks with the first instruction, cut after the other plans'
// step: a plan proposed in the session is cut at a budget that keeps it.
func TestAnApprovedPlanIsTheTaskNotTheUsersWords(t *testing.T) {
	plan := "# Plan: Batch node state updates\n\n## Changes\n- Build a slice of updates and call `BatchUpdateNodeStates` once.\n- Keep the existing `UpdateNodeState` method for single-node use cases.\n" +
		strings.Repeat("- Another step of the plan, with its reasons spelled out at some length.\n", 20) + "\n## Verification\n- go test ./internal/repository/...\n"
	work := []session.Event{}
	for k := range 16 {
		id := fmt.Sprintf("b%d", k)
		work = append(work, call("Bash", id, fmt.Sprintf(`{"command":"go test ./internal/pkg%d/..."}`, k)),
			result("Bash", id, true, strings.Repeat(fmt.Sprintf("ok  \tgithub.com/o/r/internal/pkg%d/sub\t0.%ds\n", k, k), 6)),
			say(fmt.Sprintf("Package %d passes; %s", k, strings.Repeat("the change holds for this package too, as the plan said it would. ", 8))))
	}
	evs := append([]session.Event{approvedPlanEvent(plan), say("Implementing the plan.")}, work...)
	evs = append(evs, human("also check the REST path"), say("Checking."))
	tp := build(t, "s", seqd(evs...), Options{}, nil)
	status := blockText(t, tp, "Task Status")
	if !strings.Contains(status, "Plan approved at seq=1") || !strings.Contains(status, "Keep the existing `UpdateNodeState` method") || !strings.Contains(status, modelWritten) {
		t.Fatalf("Task Status does not show the approved plan:\n%s", status)
	}
	if c := blockText(t, tp, "Anchor + Hard Constraints"); strings.Contains(c, "UpdateNodeState") {
		t.Fatalf("a constraint came of the plan:\n%s", c)
	}
	goal := blockText(t, tp, "Goal")
	if strings.Contains(goal, "UpdateNodeState") || !strings.Contains(goal, "also check the REST path") {
		t.Fatalf("the Goal quotes the plan as the user's words, or lacks the user's:\n%s", goal)
	}

	// The same plan proposed and approved in the session (ExitPlanMode)
	// is cut at a budget at which the approved one is kept.
	proposed := append([]session.Event{human("Plan the batching."),
		call("ExitPlanMode", "x1", `{"plan":`+quoteJSON(plan)+`}`), result("ExitPlanMode", "x1", true, "User has approved your plan. You can now start coding."),
		say("Implementing the plan.")}, work...)
	proposed = append(proposed, human("also check the REST path"), say("Checking."))
	found := false
	for budget := 4000; budget <= 16000; budget += 100 {
		p, err := fold(t, "s", seqd(proposed...)).Build(Options{Budget: budget}, nil)
		if err != nil || strings.Contains(p.Text, "BatchUpdateNodeStates") {
			continue
		}
		a, err := fold(t, "s", seqd(evs...)).Build(Options{Budget: budget}, nil)
		if err != nil {
			continue
		}
		found = true
		if !strings.Contains(a.Text, "BatchUpdateNodeStates") {
			t.Fatalf("at %d characters the approved plan is cut as a proposed one is:\n%s", budget, a.Text)
		}
	}
	if !found {
		t.Fatal("no budget cut the proposed plan: the test shows nothing")
	}

	// A long plan shows its head and end, then its middle parts, as the
	// Goal shows a long instruction.
	long := "# Plan: Many steps\n" + strings.Repeat("- A step with its reasons spelled out at some length, MIDDLE-STEP.\n", 60) + "## Verification\n- make test\n"
	tp = build(t, "s", seqd(approvedPlanEvent(long), say("Implementing.")), Options{}, nil)
	status = blockText(t, tp, "Task Status")
	if !strings.Contains(status, "Middle parts of the plan above:\n(seq 1, middle part 1):") || !strings.Contains(status, "- make test") || !strings.Contains(status, "# Plan: Many steps") {
		t.Fatalf("the long plan is not shown by its head, end and middle parts:\n%s", status)
	}
	// With no words of the user yet, the Goal points at the plan.
	if g := blockText(t, tp, "Goal"); !strings.Contains(g, "the work's task is the plan they approved at seq=1") {
		t.Fatalf("the Goal of a session the plan started:\n%s", g)
	}
}

// A long approved plan keeps its end, as a long instruction does: a plan
// ends with how the work is checked ("## Verification"), and the fold had
// kept its first 6000 runes alone, cutting that end away.
func TestALongApprovedPlanKeepsItsEnd(t *testing.T) {
	plan := "# Plan: Split the parser\n\n## Steps\n" + strings.Repeat("- A step of the plan, with its reasons spelled out at some length for the reader.\n", 120) +
		"\n## Verification\n- The existing suite `npm run test:pr` must pass after the change.\n"
	tp := build(t, "s", seqd(approvedPlanEvent(plan), say("Implementing the plan.")), Options{}, nil)
	status := blockText(t, tp, "Task Status")
	if !strings.Contains(status, "Plan approved at seq=1") || !strings.Contains(status, "`npm run test:pr` must pass after the change.") {
		t.Fatalf("Task Status lost the end of the approved plan:\n%s", status)
	}
}

// A long plan proposed in the session (ExitPlanMode) is shown as the
// approved one is: its head and end, then its middle parts; it had shown
// its first 2,500 runes alone.
func TestALongProposedPlanShowsItsEndAndMiddle(t *testing.T) {
	plan := "# Plan: Split the parser\n\n## Steps\n" + strings.Repeat("- A step of the plan, with its reasons spelled out at some length for the reader.\n", 40) +
		"- Move `parseLine` into src/lib/lines.ts.\n" + strings.Repeat("- Another step of the plan, with its reasons spelled out at some length too.\n", 40) +
		"\n## Verification\n- The existing suite `npm run test:pr` must pass after the change.\n"
	evs := seqd(human("Plan the split."),
		call("ExitPlanMode", "x1", `{"plan":`+quoteJSON(plan)+`}`), result("ExitPlanMode", "x1", true, "User has approved your plan. You can now start coding."),
		say("Implementing the plan."))
	tp := build(t, "s", evs, Options{}, nil)
	status := blockText(t, tp, "Task Status")
	if !strings.Contains(status, "Plan proposed at seq=2") || !strings.Contains(status, "`npm run test:pr` must pass after the change.") {
		t.Fatalf("Task Status lost the end of the proposed plan:\n%s", status)
	}
	if !strings.Contains(status, "Middle parts of the plan above:") || !strings.Contains(status, "Move `parseLine` into src/lib/lines.ts.") {
		t.Fatalf("Task Status does not show the plan's middle:\n%s", status)
	}
}

// The fold keeps a long plan's middle too (maxKeptPlanRunes): the
// budget, not the fold, decides how many middle parts the tape shows. A
// plan of 10,000 runes had lost the 4,000 of its middle, where its code
// sketch stood.
func TestALongPlansMiddleIsTheBudgetsToCut(t *testing.T) {
	step := "- A step of the plan, with its reasons spelled out at some length for the reader.\n"
	plan := "# Plan: Split the parser\n\n## Steps\n" + strings.Repeat(step, 60) +
		"\n## JSON parsing fix\n`parseLine` returns null unless the trimmed line `startsWith('{')`.\n\n" + strings.Repeat(step, 60) +
		"\n## Verification\n- The existing suite `npm run test:pr` must pass after the change.\n"
	tp := build(t, "s", seqd(approvedPlanEvent(plan), say("Implementing the plan.")), Options{Budget: 30000}, nil)
	status := blockText(t, tp, "Task Status")
	if !strings.Contains(status, "startsWith('{')") || !strings.Contains(status, "must pass after the change.") {
		t.Fatalf("the plan's middle or end is not shown where room is left:\n%s", status)
	}
}

// The plan approved to start the work is its task: a target hands it on
// in its graft/origin (inherit.plan, model-written, with its origin), and
// the next generation's Task Status shows it as the task still, cited
// where it was approved, where before the work's task vanished at the
// handoff; the next target hands it on again. No constraint and no goal
// come of it there either.
func TestTheApprovedPlanThatIsTheTaskCrossesAHandoff(t *testing.T) {
	plan := "# Plan: Add an average consolidation to the resampler\n\n## Changes\n- Add AverageResampler next to LTTB; all-NaN buckets stay NaN.\n- Keep the existing LTTB default.\n\n## Verification\n- go test ./pkg/resampler/...\n"
	g1 := seqd(approvedPlanEvent(plan), say("Implementing the plan."), call("Bash", "b1", `{"command":"go test ./pkg/resampler/..."}`), result("Bash", "b1", true, "ok  \tgithub.com/o/r/pkg/resampler\t0.1s\n"))
	tp := build(t, "s", g1, Options{}, nil)
	if p := tp.Inherit.Plan; p == nil || !strings.Contains(p.Text, "AverageResampler") || p.Origin != (session.Origin{Generation: 1, Session: "s", Seq: 1}) {
		t.Fatalf("the target hands on %+v, want the approved plan with its origin", tp.Inherit.Plan)
	}
	next := build(t, "s2", seqd(origin(2, "s", int64(len(g1)), &tp.Inherit), say("Continuing with the tests.")), Options{}, nil)
	status := blockText(t, next, "Task Status")
	if !strings.Contains(status, "Plan approved at gen 1 seq 1, the work's task, handed on at seq=1") || !strings.Contains(status, "AverageResampler") || !strings.Contains(status, modelWritten) {
		t.Errorf("the next generation's Task Status does not show the task plan handed on:\n%s", status)
	}
	if c := blockText(t, next, "Anchor + Hard Constraints"); strings.Contains(c, "LTTB") {
		t.Errorf("a constraint came of the plan handed on:\n%s", c)
	}
	if p := next.Inherit.Plan; p == nil || p.Origin != (session.Origin{Generation: 1, Session: "s", Seq: 1}) || p.Text != tp.Inherit.Plan.Text {
		t.Errorf("the next target hands on %+v, want the same plan and origin", next.Inherit.Plan)
	}
}

// A plan the person approved in plan mode that is not the work's task
// crosses a handoff too (inherit.approvedPlan, model-written, with the
// origin of the call that proposed it): the next generation's Task
// Status shows it, cited where it was proposed, until it proposes a plan
// of its own; the next target hands it on again. Before, a second
// generation lost the plan the person had approved.
func TestAPlanTheUserApprovedCrossesAHandoff(t *testing.T) {
	plan := "# Plan: Add OpenCode and Codex CLI agent support\n\n## Steps\n- Add AgentNameOpenCode and AgentTypeCodex to registry.go.\n- Create the opencode package.\n\n## Verification\n- mise run test:integration\n"
	g1 := seqd(human("Add OpenCode and Codex support."),
		call("ExitPlanMode", "p1", fmt.Sprintf(`{"plan":%q}`, plan)),
		result("ExitPlanMode", "p1", true, "User has approved your plan. You can now start coding."),
		say("Implementing the plan."))
	tp := build(t, "s", g1, Options{}, nil)
	if tp.Inherit.Plan != nil {
		t.Fatalf("a plan approved in plan mode was handed on as the work's task: %+v", tp.Inherit.Plan)
	}
	if p := tp.Inherit.ApprovedPlan; p == nil || !strings.Contains(p.Text, "AgentNameOpenCode") || p.Origin != (session.Origin{Generation: 1, Session: "s", Seq: 2}) {
		t.Fatalf("the target hands on %+v, want the approved plan of seq 2", tp.Inherit.ApprovedPlan)
	}
	next := build(t, "s2", seqd(origin(2, "s", int64(len(g1)), &tp.Inherit), say("Continuing with registry.go.")), Options{}, nil)
	status := blockText(t, next, "Task Status")
	if !strings.Contains(status, "Plan proposed at gen 1 seq 2, handed on at seq=1 (approved by the user; "+modelWritten+")") || !strings.Contains(status, "AgentTypeCodex") {
		t.Errorf("the next generation's Task Status does not show the plan handed on:\n%s", status)
	}
	if c := blockText(t, next, "Anchor + Hard Constraints"); strings.Contains(c, "registry.go") {
		t.Errorf("a constraint came of the plan handed on:\n%s", c)
	}
	if p := next.Inherit.ApprovedPlan; p == nil || p.Origin != tp.Inherit.ApprovedPlan.Origin || p.Text != tp.Inherit.ApprovedPlan.Text {
		t.Errorf("the next target hands on %+v, want the same plan and origin", next.Inherit.ApprovedPlan)
	}
	own := build(t, "s2", seqd(origin(2, "s", int64(len(g1)), &tp.Inherit),
		call("ExitPlanMode", "p2", `{"plan":"# Plan: Release 0.3\n\nTag and push."}`)), Options{}, nil)
	if status := blockText(t, own, "Task Status"); strings.Contains(status, "AgentTypeCodex") || !strings.Contains(status, "Release 0.3") {
		t.Errorf("a plan of the session's own does not replace the one handed on:\n%s", status)
	}
}

// A plan's middle parts are the longer form of its head and end: at no
// budget does the tape show a middle part of a plan whose head and end it
// cut (the room a cut left took a middle part back, and the tape showed
// the middle of a plan it did not quote).
func TestNoPlanMiddleWithoutItsPlan(t *testing.T) {
	step := "- A step of the plan, with its reasons spelled out at some length for the reader.\n"
	plan := "# Plan: Split the parser\n\n## Steps\n" + strings.Repeat(step, 90) + "\n## Verification\n- `npm run test:pr` must pass.\n"
	evs := []session.Event{human("Plan the split."),
		call("ExitPlanMode", "x1", `{"plan":`+quoteJSON(plan)+`}`), result("ExitPlanMode", "x1", true, "User has approved your plan. You can now start coding.")}
	for k := range 40 {
		id := fmt.Sprintf("b%d", k)
		evs = append(evs, say(fmt.Sprintf("Step %d: %s", k, strings.Repeat("working through the parser's cases one by one. ", 6))),
			call("Bash", id, fmt.Sprintf(`{"command":"go test ./parser/case%d/..."}`, k)), result("Bash", id, true, fmt.Sprintf("ok  \tgithub.com/o/r/parser/case%d\t0.1s\n", k)))
	}
	evs = seqd(evs...)
	middles := 0
	for budget := 4000; budget <= 16000; budget += 100 {
		tp := build(t, "s", evs, Options{Budget: budget}, nil)
		status, _ := tp.Block("Task Status")
		if !strings.Contains(status, "Middle parts of the plan above:") {
			continue
		}
		middles++
		if !strings.Contains(status, "Plan proposed at seq=2") {
			t.Fatalf("at a budget of %d the tape shows the plan's middle without the plan:\n%s", budget, status)
		}
	}
	if middles == 0 {
		t.Fatal("no budget shows the plan's middle: the test tries nothing")
	}
}
