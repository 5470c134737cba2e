package tape

import (
	"fmt"
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

// A look-up can be run again (its command is on its line), and the older
// ones are the least likely to be what the work refers to now: all but
// the newest are cut before the assistant's messages, even those that
// only announced a call (the steps). The newest stays as long as it did.
func TestOnlyTheNewestLookUpOutranksTheMessages(t *testing.T) {
	spec := func(id string) string {
		return id + " · Implement the debug sidecar\n" + strings.Repeat("- Keep highlight.js as the only syntax highlighter.\n", 30)
	}
	evs := []session.Event{human("Work on beads spotter-dov.3 and spotter-dov.4."),
		call("Bash", "b1", `{"command":"bd show spotter-dov.3"}`), result("Bash", "b1", true, spec("spotter-dov.3"))}
	for k := 1; k <= 8; k++ {
		id := fmt.Sprintf("t%d", k)
		evs = append(evs, say(fmt.Sprintf("Step %d: now I run the focused tests of the sidecar renderer.", k)),
			call("Bash", id, fmt.Sprintf(`{"command":"go test ./sidecar -run TestStep%d"}`, k)), result("Bash", id, true, "ok  \tsidecar\t0.01s\n"))
	}
	evs = append(evs, say("spotter-dov.3 is done: the sidecar renders."), human("Now spotter-dov.4."),
		call("Bash", "b2", `{"command":"bd show spotter-dov.4"}`), result("Bash", "b2", true, spec("spotter-dov.4")))
	sawOlderCut := false
	for budget := 12000; budget >= MinBudget; budget -= 100 {
		tp, err := fold(t, "s", seqd(evs...)).Build(Options{Budget: budget}, nil)
		if err != nil {
			t.Fatalf("budget %d: %v", budget, err)
		}
		bp := blockText(t, tp, "Breakpoint")
		lookUps, _ := tp.Block("Looked Up")
		older := strings.Contains(lookUps, "bd show spotter-dov.3")
		if older && strings.Contains(bp, "[cut: ") {
			t.Fatalf("budget %d: the carryover lost messages while the older look-up stayed:\n%s\n\n%s", budget, bp, lookUps)
		}
		if !older && strings.Contains(lookUps, "bd show spotter-dov.4") && !strings.Contains(bp, "[cut: ") {
			sawOlderCut = true
		}
	}
	if !sawOlderCut {
		t.Fatal("no budget cut the older look-up while the newest and the carryover stayed: the test shows nothing")
	}
}
