package tape

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/graft-project/graft/anchors"
	"github.com/graft-project/graft/session"
)

// Issue 19, finding 8: the fold keeps at most MaxConstraints constraints;
// the sayings of the others are counted per session and named in the cut
// line, in the review's list (Tape.MoreConstraints) and in what the target
// inherits.

// manyConstraints is one human message with n distinct constraints.
func manyConstraints(n, from int) string {
	var b strings.Builder
	for i := from; i < from+n; i++ {
		fmt.Fprintf(&b, "You must keep module %d stable. ", i)
	}
	return b.String()
}

// uncapped runs f with the fold keeping every constraint, as before the cap.
func uncapped(t *testing.T, f func()) {
	t.Helper()
	old := keptConstraints
	keptConstraints = 1 << 30
	defer func() { keptConstraints = old }()
	f()
}

func constraintsCutLine(t *testing.T, tp *Tape) string {
	t.Helper()
	m := regexp.MustCompile(`\[cut: \d+ constraints?; recall [^\]]+\]`).FindString(blockText(t, tp, "Anchor + Hard Constraints"))
	if m == "" {
		t.Fatalf("no cut line in the constraints block")
	}
	return m
}

// No constraint past MaxConstraints can be shown by any budget: the
// shortest constraint line is a two-rune marker said alone ("必须"),
// cited by seq in the session the anchor line names, 13 runes with its
// newline, and MaxBudget / 13 < MaxConstraints.
func TestMaxConstraintsIsBeyondAnyBudget(t *testing.T) {
	if got := anchors.Extract("必须"); len(got) != 1 || got[0] != "必须" {
		t.Fatalf("the two-rune marker alone is the constraints %q, want one, itself", got)
	}
	tp := build(t, "s", seqd(human("必须"), say("ok")), Options{}, nil)
	const line = "\n- 必须 (seq 1)"
	blk := blockText(t, tp, ConstraintsTitle)
	if !strings.HasSuffix(blk, line) {
		t.Fatalf("the constraint line is not %q:\n%s", line, blk)
	}
	minLine := utf8.RuneCountInString(line) // with its newline
	if minLine != 13 || MaxBudget/minLine >= MaxConstraints {
		t.Fatalf("a constraint line is at least %d runes: %d of them fit into %d runes, MaxConstraints is %d", minLine, MaxBudget/minLine, MaxBudget, MaxConstraints)
	}
}

// A session with more distinct constraints than the fold keeps gives the
// tape text the uncapped fold gave, at every budget, and the same in the
// next generation; the review's list stops at the cap and says how many
// more, and where.
func TestConstraintCapKeepsTheTape(t *testing.T) {
	evs := seqd(
		human("Start. "+manyConstraints(MaxConstraints-200, 0)),
		say("Working.\n\nDone with the first part."),
		human("More rules. "+manyConstraints(900, MaxConstraints-200)+" You must keep module 3 stable."),
		say("Noted."),
	)
	var capped, full []*Tape
	budgets := []int{MinBudget, DefaultBudget, MaxBudget}
	for _, budget := range budgets {
		capped = append(capped, build(t, "s", evs, Options{Budget: budget}, nil))
	}
	uncapped(t, func() {
		for _, budget := range budgets {
			full = append(full, build(t, "s", evs, Options{Budget: budget}, nil))
		}
	})
	for k, budget := range budgets {
		if capped[k].Text != full[k].Text || capped[k].TapeHash != full[k].TapeHash {
			t.Fatalf("budget %d: the capped fold changed the tape:\n capped %s\n full   %s", budget, constraintsCutLine(t, capped[k]), constraintsCutLine(t, full[k]))
		}
	}
	tp := capped[len(capped)-1]
	if len(tp.Constraints) != MaxConstraints || len(full[0].Constraints) != MaxConstraints+700 {
		t.Fatalf("kept %d constraints (uncapped %d), want %d (%d)", len(tp.Constraints), len(full[0].Constraints), MaxConstraints, MaxConstraints+700)
	}
	// Module 3, said again at seq 3, is a kept constraint: its origin list grows.
	if c := tp.Constraints[3]; c.Text != "You must keep module 3 stable." || !reflect.DeepEqual(c.Also, []session.Origin{{Generation: 1, Session: "s", Seq: 3}}) {
		t.Fatalf("constraint 3 = %+v, want module 3 said again at seq 3", c)
	}
	want := []session.More{{Session: "s", N: 700, From: 3, To: 3}}
	if !reflect.DeepEqual(tp.MoreConstraints, want) || !reflect.DeepEqual(tp.Inherit.MoreConstraints, want) {
		t.Fatalf("MoreConstraints %+v, inherit %+v; want %+v", tp.MoreConstraints, tp.Inherit.MoreConstraints, want)
	}
	if line := constraintsCutLine(t, tp); !strings.HasSuffix(line, "; recall seq=1..3]") {
		t.Fatalf("cut line %q does not name seq=1..3", line)
	}

	// The next generation: the constraints not kept are recalled in s.
	// Its new rule comes in a paste as the others did: the fold keeps
	// the first MaxConstraints, so a typed one past them is counted, not
	// ranked above the paste's (in any generation).
	more := "Go on. The log:\n" + strings.Repeat("step done. ", pastedBytes/10) + "You must keep module 99999 stable."
	next := target("s", tp, human(more), say("Going on."))
	g2 := build(t, "s.g2", next, Options{Budget: MaxBudget}, nil)
	var g2full *Tape
	uncapped(t, func() {
		ffull := full[len(full)-1]
		g2full = build(t, "s.g2", target("s", ffull, human(more), say("Going on.")), Options{Budget: MaxBudget}, nil)
	})
	if constraintsCutLine(t, g2) != constraintsCutLine(t, g2full) {
		t.Fatalf("generation 2 cut line %q, uncapped %q", constraintsCutLine(t, g2), constraintsCutLine(t, g2full))
	}
	if line := constraintsCutLine(t, g2); !strings.Contains(line, "session s seq=1..3]") {
		t.Fatalf("generation 2 cut line %q does not recall session s", line)
	}
	wantG2 := []session.More{{Session: "s", N: 700, From: 3, To: 3}, {Session: "s.g2", N: 1, From: int64(len(next) - 1), To: int64(len(next) - 1)}}
	if !reflect.DeepEqual(g2.MoreConstraints, wantG2) {
		t.Fatalf("generation 2 MoreConstraints %+v, want %+v", g2.MoreConstraints, wantG2)
	}
}

// Past the cap the fold keeps no text, so it cannot tell a repeat from a
// new constraint: each saying counts.
func TestConstraintCapCountsSayings(t *testing.T) {
	evs := seqd(
		human(manyConstraints(MaxConstraints+2, 0)),
		human("Again: you must keep module "+fmt.Sprint(MaxConstraints)+" stable."),
	)
	tp := build(t, "s", evs, Options{}, nil)
	want := []session.More{{Session: "s", N: 3, From: 1, To: 2}}
	if !reflect.DeepEqual(tp.MoreConstraints, want) {
		t.Fatalf("MoreConstraints %+v, want %+v", tp.MoreConstraints, want)
	}
}

// An inherited list longer than the cap (a target written before it) is
// cut to the cap on load; the constraints cut count with every origin.
func TestConstraintCapOnInherit(t *testing.T) {
	var cs []session.Constraint
	for i := 0; i < MaxConstraints+2; i++ {
		cs = append(cs, session.Constraint{Text: fmt.Sprintf("You must keep module %d stable.", i), Origin: session.Origin{Generation: 1, Session: "p", Seq: int64(i + 1)}})
	}
	cs[MaxConstraints].Also = []session.Origin{{Generation: 1, Session: "p", Seq: 9000}, {Generation: 1, Session: "q", Seq: 4}}
	in := &session.Inherited{Constraints: cs, MoreConstraints: []session.More{{Session: "q", N: 2, From: 7, To: 8}}}
	tp := build(t, "t", seqd(origin(2, "p", 10, in), human("Go.")), Options{}, nil)
	if len(tp.Constraints) != MaxConstraints {
		t.Fatalf("kept %d, want %d", len(tp.Constraints), MaxConstraints)
	}
	want := []session.More{{Session: "q", N: 3, From: 4, To: 8}, {Session: "p", N: 3, From: MaxConstraints + 1, To: 9000}}
	if !reflect.DeepEqual(tp.MoreConstraints, want) {
		t.Fatalf("MoreConstraints %+v, want %+v", tp.MoreConstraints, want)
	}
}

// A fold restored from a snapshot and one that never stopped agree past
// the cap.
func TestConstraintCapSurvivesSnapshot(t *testing.T) {
	evs := seqd(
		human(manyConstraints(MaxConstraints-1, 0)),
		human(manyConstraints(5, MaxConstraints-3)),
		human(manyConstraints(5, MaxConstraints+10)),
	)
	whole := build(t, "s", evs, Options{Budget: MaxBudget}, nil)
	b := fold(t, "s", evs[:2])
	snap, err := b.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	r, err := Restore(snap)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Add(&evs[2], rawLine(t, &evs[2])); err != nil {
		t.Fatal(err)
	}
	got, err := r.Build(Options{Budget: MaxBudget}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != whole.Text || !reflect.DeepEqual(got.MoreConstraints, whole.MoreConstraints) {
		t.Fatalf("restored fold differs: more %+v, whole %+v", got.MoreConstraints, whole.MoreConstraints)
	}
	if want := []session.More{{Session: "s", N: 7, From: 2, To: 3}}; !reflect.DeepEqual(got.MoreConstraints, want) {
		t.Fatalf("MoreConstraints %+v, want %+v", got.MoreConstraints, want)
	}
}
