package tape

import (
	"fmt"
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

// target is what a commit writes: graft/origin carrying Inherit, then the
// tape events (as txn.TargetEvents does), then the work of the next
// generation.
func target(parent string, tp *Tape, work ...session.Event) []session.Event {
	inherit := tp.Inherit
	evs := []session.Event{origin(tp.Generation+1, parent, tp.BoundarySeq, &inherit)}
	evs = append(evs, tp.Events...)
	return seqd(append(evs, work...)...)
}

// Five generations: constraints said in generations 1, 3 and 5 each cite
// their own generation; the tapes are full of "must" and "never" and none of
// it becomes a constraint or the goal.
func TestFiveGenerations(t *testing.T) {
	work := map[int][]session.Event{
		1: {human("Write the WAL. Never push to main."), say("Writing.\n\nThe WAL is written.")},
		2: {human("Continue with the index."), say("Index done.")},
		3: {human("Now the compactor. You must keep reads lock-free. never push to MAIN"), say("Compactor started.")},
		4: {human("Go on."), say("Still compacting.")},
		5: {human("Finish it. 必须保留旧的文件格式。"), say("Almost there.")},
	}
	evs := seqd(work[1]...)
	id := "gen1"
	var tp *Tape
	humanSeq := map[int]int64{} // the seq of each generation's instruction
	for gen := 1; gen <= 5; gen++ {
		if gen > 1 {
			prev := id
			id = fmt.Sprintf("gen%d", gen)
			evs = target(prev, tp, work[gen]...)
		}
		for _, ev := range evs {
			if ev.IsHumanInstruction() {
				if humanSeq[gen] != 0 {
					t.Fatalf("%s: a second human instruction at seq %d: the tape read back as human", id, ev.Seq)
				}
				humanSeq[gen] = ev.Seq
			}
		}
		tp = build(t, id, evs, Options{Tier: TierB}, nil)
		if tp.Generation != gen {
			t.Fatalf("%s: generation %d", id, tp.Generation)
		}
		if gen > 1 && !strings.Contains(tp.Text, "must") && !strings.Contains(tp.Text, "Never") {
			t.Fatalf("%s: the test needs instruction-like words in the tape it reads", id)
		}
		if tp.Goal[0].Origin != (session.Origin{Generation: 1, Session: "gen1", Seq: 1}) {
			t.Fatalf("%s: first goal %+v, want generation 1's first instruction", id, tp.Goal[0])
		}
	}
	want := []struct {
		text   string
		origin session.Origin
		also   []session.Origin
	}{
		{"Never push to main.", session.Origin{Generation: 1, Session: "gen1", Seq: 1}, []session.Origin{{Generation: 3, Session: "gen3", Seq: humanSeq[3]}}},
		{"You must keep reads lock-free.", session.Origin{Generation: 3, Session: "gen3", Seq: humanSeq[3]}, nil},
		{"必须保留旧的文件格式。", session.Origin{Generation: 5, Session: "gen5", Seq: humanSeq[5]}, nil},
	}
	if len(tp.Constraints) != len(want) {
		t.Fatalf("generation 5 has %d constraints, want %d: %+v", len(tp.Constraints), len(want), tp.Constraints)
	}
	for k, w := range want {
		c := tp.Constraints[k]
		if c.Text != w.text || c.Origin != w.origin || fmt.Sprint(c.Also) != fmt.Sprint(w.also) {
			t.Errorf("constraint %d = %+v, want %q at %v also %v", k, c, w.text, w.origin, w.also)
		}
	}
	if !strings.Contains(tp.Text, "[ANCHOR] Core constraints originate from generation 1 session gen1, seq=1;") {
		t.Fatalf("anchor of generation 5 does not name generation 1:\n%s", blockText(t, tp, "Anchor + Hard Constraints"))
	}
}
