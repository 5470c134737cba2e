package tape

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// The text a tape spends on itself (markers, headings, the handoff) is
// room its budget does not give the work: a tape of a session with
// nothing to report but one request and one answer is that text alone:
// at most a tenth of the default budget, with no block that has nothing
// to say but the constraints' (what a host is given again alone) and
// Pending State's (nothing to verify before going on) and Workspace
// Files' (no file to look for).
func TestTheSkeletonIsShort(t *testing.T) {
	tp := build(t, "s", seqd(human("Hi."), say("Hello.")), Options{}, nil)
	if n := utf8.RuneCountInString(tp.Text); n > DefaultBudget/10 {
		t.Errorf("the skeleton takes %d runes, more than a tenth of the default budget (%d):\n%s", n, DefaultBudget/10, tp.Text)
	}
	for _, title := range []string{"Task Status", "Sub-agent Reports"} {
		if _, ok := tp.Block(title); ok {
			t.Errorf("the tape has a %s block with nothing to say:\n%s", title, tp.Text)
		}
	}
}

// The Recall Index is seq → label for graft recall; every line above cites
// its seqs already. Once the budget cut all its entries it is left out
// whole, as the Conversation Tail is, not kept as a heading and a cut
// line (65 of the truth set's 91 tapes had spent about 110 characters on
// that).
func TestARecallIndexWithNoEntryLeftIsLeftOut(t *testing.T) {
	b := fold(t, "big", bigSession())
	tp, err := b.Build(Options{Budget: MinBudget}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if blk, ok := tp.Block("Recall Index"); ok {
		t.Fatalf("the recall index at the minimum budget:\n%s", blk)
	}
	full, err := b.Build(Options{Budget: MaxBudget}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if blk, ok := full.Block("Recall Index"); !ok || !strings.Contains(blk, "\n- seq=") {
		t.Fatalf("the recall index at the largest budget:\n%s", blk)
	}
}
