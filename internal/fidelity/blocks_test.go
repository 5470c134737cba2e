package fidelity

import (
	"strings"
	"testing"
)

// blockResult is a scored case whose tape is the given blocks.
func blockResult(held bool, facts []Fact, blocks ...string) *Result {
	text := strings.Join(blocks, "\n\n")
	r := &Result{Case: &Case{Name: "c", HeldOut: held, Facts: facts}, Texts: map[string]string{Graft: text}, Carried: map[string][]bool{}}
	norm := Normalize(text)
	for _, f := range facts {
		r.Carried[Graft] = append(r.Carried[Graft], Carries(norm, f))
	}
	return r
}

// The block table says, per kind of block over the tuning cases, its
// room, the facts only it carries (the tape without it misses them) and
// the facts whose evidence it holds; a held-out case is not read.
func TestBlockTable(t *testing.T) {
	facts := []Fact{
		{ID: "a", Category: "task", Evidence: []string{"alpha"}},           // in the Goal only
		{ID: "b", Category: "state", Evidence: []string{"beta"}},           // in both blocks: neither alone
		{ID: "c", Category: "file", Evidence: []string{"gamma", "delta"}},  // needs both blocks
		{ID: "d", Category: "decision", Evidence: []string{"not carried"}}, // nowhere
	}
	goal := "[graft:tape 0123abcd] [Goal]\nalpha beta gamma"
	replay := "[graft:tape 4567abcd] [Replay: turn seq=3..9]\nbeta delta"
	tuning := blockResult(false, facts, goal, replay)
	held := blockResult(true, facts, "[graft:tape 89abcdef] [Held]\nalpha beta gamma delta "+strings.Repeat("x", 5000))
	got := BlockTable([]*Result{tuning, held})
	wantRows(t, "the tables", got,
		"| block | tapes | characters | share | carried only there | per 1,000 characters | holds evidence of |\n",
		"| Goal | 1 | 45 | 44 % | 2 | 44.44 | 3 |\n",
		"| Replay | 1 | 56 | 54 % | 1 | 17.86 | 2 |\n",
		"| all blocks | 1 | 103 | 100 % | 3 carried | 29.13 | 3 |\n",
	)
	if strings.Contains(got, "Held") {
		t.Errorf("a held-out case was read:\n%s", got)
	}
}
