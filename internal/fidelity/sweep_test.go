package fidelity

import (
	"strings"
	"testing"
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
	for _, want := range []string{
		"| budget | all | tuning | held out | task | constraint | file | state | todo | decision |",
		"| 8,000 | 25 % (2) | 25 % (1) | 25 % (1) | 100 % | – | 0 % | 0 % | – | – |",
		"| **16,000** (default) | 50 % (4) | 50 % (2) | 50 % (2) | 100 % | – | 25 % | 50 % | – | – |",
		"| 64,000 | 75 % (6) | 75 % (3) | 75 % (3) | 100 % | – | 50 % | 100 % | – | – |",
		"Not carried at 64,000 characters: 2 of 8 facts (file 2).",
		"Carried at 64,000 but not at 16,000: 2 facts (file 1, state 1).",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("sweep table lacks %q:\n%s", want, got)
		}
	}
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
