package fidelity

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// sweepResult is a scored case whose graft tape carried the facts named
// in got (by index).
func sweepResult(name string, held bool, cats []string, got ...int) *Result {
	c := &Case{Name: name, HeldOut: held}
	for _, cat := range cats {
		c.Facts = append(c.Facts, Fact{Category: cat})
	}
	carried := make([]bool, len(cats))
	for _, k := range got {
		carried[k] = true
	}
	return &Result{Case: c, Carried: map[string][]bool{Graft: carried}}
}

// The sweep table gives, per budget, graft's recall overall, on the
// tuning and the held-out cases and per category; then what the largest
// budget still does not carry, by category: content no budget brings in.
func TestSweepTable(t *testing.T) {
	cats := []string{"task", "file", "file", "state"}
	runs := []SweepRun{
		{Budget: 8000, Results: []*Result{sweepResult("a", false, cats, 0), sweepResult("b", true, cats, 0)}},
		{Budget: 16000, Results: []*Result{sweepResult("a", false, cats, 0, 1), sweepResult("b", true, cats, 0, 3)}},
		{Budget: 64000, Results: []*Result{sweepResult("a", false, cats, 0, 1, 3), sweepResult("b", true, cats, 0, 1, 3)}},
	}
	got := SweepTable(runs, 16000)
	wantRows(t, "sweep table", got,
		"| budget | all | tuning | held out | task | constraint | file | state | todo | decision |",
		"| 8,000 | 25 % (2) | 25 % (1) | 25 % (1) | 100 % | – | 0 % | 0 % | – | – |",
		"| **16,000** (default) | 50 % (4) | 50 % (2) | 50 % (2) | 100 % | – | 25 % | 50 % | – | – |",
		"| 64,000 | 75 % (6) | 75 % (3) | 75 % (3) | 100 % | – | 50 % | 100 % | – | – |",
		"Not carried at 64,000 characters: 2 of 8 facts (file 2).",
		"Carried at 64,000 but not at 16,000: 2 facts (file 1, state 1).",
	)
}

// Runs of different truth sets cannot be compared: the table refuses.
func TestSweepTableNeedsTheSameCases(t *testing.T) {
	cats := []string{"task"}
	runs := []SweepRun{
		{Budget: 8000, Results: []*Result{sweepResult("a", false, cats)}},
		{Budget: 16000, Results: []*Result{sweepResult("b", false, cats)}},
	}
	if got := SweepTable(runs, 16000); !strings.Contains(got, "not the same cases") {
		t.Fatalf("sweep of different cases: %s", got)
	}
}

// What the default budget cuts, per kind of block (tuning cases only):
// the characters of the entries the largest budget's tape holds and the
// default's does not, the facts the largest carries and the default does
// not whose missing evidence only those entries of that block hold, and
// those facts per 1,000 of the block's cut characters: what more room
// would buy, beside what the kept room carries.
func TestCutTable(t *testing.T) {
	mk := func(name string, held bool, text string, facts []Fact, got ...int) *Result {
		r := sweepResult(name, held, make([]string, len(facts)))
		r.Case.Facts = facts
		r.Texts = map[string]string{Graft: text}
		for _, k := range got {
			r.Carried[Graft][k] = true
		}
		return r
	}
	facts := []Fact{
		{Category: "state", Evidence: []string{"abc1234"}},                     // carried at 16k
		{Category: "state", Evidence: []string{"pushed to origin"}},            // only at 64k: Recent Actions
		{Category: "decision", Evidence: []string{"chose sqlite", "wal mode"}}, // only at 64k: two blocks
		{Category: "file", Evidence: []string{"never anywhere"}},               // at neither
		{Category: "decision", Evidence: []string{"sqlite seq=5"}},             // only at 64k: across two entries
	}
	small := "[graft:tape 00000001] [Handoff]\nhi\n\n[graft:tape 00000002] [Recent Actions]\n- seq=9 ok: $ git commit\n    → [main abc1234] x"
	large := small + "\n- seq=10 ok: $ git push\n    → pushed to origin\n\n[graft:tape 00000003] [Breakpoint]\nseq=4: we chose sqlite\nseq=5: then tests\n\n[graft:tape 00000004] [Goal]\n> keep wal mode"
	held := mk("h", true, large, facts, 0, 1, 2)
	def := SweepRun{Budget: 16000, Results: []*Result{mk("a", false, small, facts, 0), mk("h", true, small, facts, 0)}}
	big := SweepRun{Budget: 64000, Results: []*Result{mk("a", false, large, facts, 0, 1, 2, 4), held}}
	got := cutTable(big, def)
	wantRows(t, "cut table", got,
		"| block | tapes | characters cut | facts only they bring | per 1,000 characters |",
		"| Recent Actions | 1 | 47 | 1 | 21.28 |",
		"| Breakpoint | 1 | 41 | 0 | 0.00 |",
		"| Goal | 1 | 16 | 0 | 0.00 |",
		"| several blocks together | – | – | 1 | – |",
		"| no one entry (the evidence spans entries) | – | – | 1 | – |",
		"| **all** | 1 | 104 | 3 | 28.85 |",
	)
	// The kept room's density: the tuning tape carries 1 fact in its
	// characters (the held-out one is not read).
	if d, want := keptDensity(def), fmt.Sprintf("%.2f", 1000/float64(utf8.RuneCountInString(small))); d != want {
		t.Errorf("keptDensity = %s, want %s", d, want)
	}
	if strings.Contains(got, "| h ") || strings.Count(got, "| Recent Actions |") != 1 {
		t.Errorf("the held-out case was read:\n%s", got)
	}
}
