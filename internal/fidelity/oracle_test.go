package fidelity

import (
	"slices"
	"strings"
	"testing"
)

// oracleTape is a tape text of three blocks: the fixed Handoff, and two
// whose entries hold the evidence of some facts, one of them under a
// filler line too long for the budgets below.
func oracleTape() string {
	return strings.Join([]string{
		"[graft:tape 00000001] [Handoff]\nThis session continues another.",
		"[graft:tape 00000002] [Breakpoint]\nEarlier messages, oldest first:\nseq=4: " + strings.Repeat("filler ", 300) + "\nseq=5: we chose the ALPHA route over the other\n  and kept it",
		"[graft:tape 00000003] [Recent Actions]\n- seq=6 ok: $ make test\n    → beta: 12 passed\n- seq=7 ok: $ ls",
	}, "\n\n")
}

func oracleFacts(evidence ...[]string) []Fact {
	var out []Fact
	for _, e := range evidence {
		out = append(out, Fact{Category: "state", Evidence: e})
	}
	return out
}

// An entry is a line that does not open with white space and the
// indented lines under it; the marker lines and the Handoff blocks are
// paid before any entry.
func TestTapeEntries(t *testing.T) {
	fixed, entries := tapeEntries(oracleTape())
	var texts []string
	for _, e := range entries {
		texts = append(texts, e.text)
	}
	want := []string{
		"Earlier messages, oldest first:",
		"seq=4: " + strings.Repeat("filler ", 300),
		"seq=5: we chose the ALPHA route over the other\n  and kept it",
		"- seq=6 ok: $ make test\n    → beta: 12 passed",
		"- seq=7 ok: $ ls",
	}
	if !slices.Equal(texts, want) {
		t.Fatalf("entries:\n%q\nwant\n%q", texts, want)
	}
	// Three marker lines of 31 to 36 runes, the Handoff's line and the
	// blank lines between blocks.
	if markers := len("[graft:tape 00000001] [Handoff]") + len("[graft:tape 00000002] [Breakpoint]") + len("[graft:tape 00000003] [Recent Actions]") + 3; fixed < markers+len("This session continues another.") || fixed > markers+len("This session continues another.")+8 {
		t.Fatalf("fixed cost %d", fixed)
	}
	if entries[3].block != "Recent Actions" || entries[1].block != "Breakpoint" {
		t.Fatalf("blocks: %q, %q", entries[3].block, entries[1].block)
	}
}

// The oracle carries what fits: the entries that hold evidence, not the
// filler; a fact whose evidence is in two entries when both fit; never a
// fact whose evidence the tape lacks; and with room for one entry only,
// the one that completes the most facts per character.
func TestOracleCarries(t *testing.T) {
	facts := oracleFacts([]string{"alpha route"}, []string{"12 passed"}, []string{"gamma"}, []string{"alpha", "beta:"})
	got := OracleCarries(oracleTape(), facts, 300)
	if want := []bool{true, true, false, true}; !slices.Equal(got, want) {
		t.Fatalf("budget 300: %v, want %v", got, want)
	}
	// Room past the fixed part for either the message (61 characters with
	// its line break) or the action (46), not both: each completes one
	// fact and holds one evidence string of another, and the action does
	// it in fewer characters.
	fixed, _ := tapeEntries(oracleTape())
	got = OracleCarries(oracleTape(), facts, fixed+61)
	if want := []bool{false, true, false, false}; !slices.Equal(got, want) {
		t.Fatalf("room for one entry: %v, want %v", got, want)
	}
	// No room past the fixed part: nothing.
	if got := OracleCarries(oracleTape(), facts, fixed); slices.Contains(got, true) {
		t.Fatalf("no room: %v", got)
	}
}

// The sweep prints the ceiling a ranking that knew the facts reaches with
// the largest budget's tapes within the default budget, beside what the
// tape's rules carry at the default.
func TestSweepTableNamesTheChoosersCeiling(t *testing.T) {
	facts := oracleFacts([]string{"alpha route"}, []string{"12 passed"}, []string{"gamma"})
	res := func(got ...int) *Result {
		r := sweepResult("a", false, []string{"state", "state", "state"}, got...)
		r.Case.Facts = facts
		r.Texts = map[string]string{Graft: oracleTape()}
		return r
	}
	runs := []SweepRun{{Budget: 300, Results: []*Result{res(1)}}, {Budget: 4000, Results: []*Result{res(0, 1)}}}
	got := SweepTable(runs, 300)
	wantRows(t, "sweep table", got,
		"within 300 characters carries 2 of 3 facts (tuning 2, held out 0); within 75, 0; the tape's rules carry 1 at 300.",
	)
}

// A block's first line starts an entry of its own, even indented and
// after a block of the same title.
func TestTapeEntriesStartEachBlock(t *testing.T) {
	text := "[graft:tape 00000001] [Replay]\nseq=1: a\n\n[graft:tape 00000002] [Replay]\n  seq=2: b"
	_, entries := tapeEntries(text)
	if len(entries) != 2 || entries[0].text != "seq=1: a" || entries[1].text != "  seq=2: b" {
		t.Fatalf("entries %+v", entries)
	}
}
