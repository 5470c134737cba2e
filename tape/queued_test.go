package tape

import (
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

func queuedInput(name, text string) session.Event {
	return session.Event{Type: session.TypeSystem, Source: session.Source{Kind: session.KindSystem, Name: name}, Text: text}
}

// What the person typed while the agent worked waits in the host's queue
// until the turn ends; a handoff made before then would lose it. The Goal
// quotes a queued message no human instruction delivered since, as the
// person's newest words; one delivered (the same text as a human
// instruction) or taken back into the prompt (queue-popped) is not quoted
// as waiting.
func TestTheGoalQuotesAQueuedMessage(t *testing.T) {
	base := []session.Event{human("Spawn sub-agents to write poems about Thai curries."), say("Three agents are writing in the background.")}
	for _, tc := range []struct {
		name string
		evs  []session.Event
		want []string
		not  []string
	}{
		{"waiting", []session.Event{queuedInput("queued-input", "are they still being written?"), say("Still waiting on the green curry agent.")},
			[]string{"are they still being written?", "not delivered"}, nil},
		{"delivered", []session.Event{queuedInput("queued-input", "are they still being written?"), human("are they still being written?"), say("Yes, two of three.")},
			[]string{"are they still being written?"}, []string{"not delivered"}},
		{"delivered with another", []session.Event{queuedInput("queued-input", "and \"Linked\" should appear as \"Linked docs\""), human("fix the badge labels\n\nand \"Linked\" should appear as \"Linked docs\""), say("Both done.")},
			[]string{"fix the badge labels"}, []string{"not delivered"}},
		{"taken back", []session.Event{queuedInput("queued-input", "is the 3rd tool still running?"), queuedInput("queue-popped", "is the 3rd tool still running?"), say("The red poem is ready.")},
			nil, []string{"is the 3rd tool still running?", "not delivered"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs := append(append([]session.Event(nil), base...), tc.evs...)
			goal := blockText(t, build(t, "s", seqd(evs...), Options{}, nil), "Goal")
			for _, w := range tc.want {
				if !strings.Contains(goal, w) {
					t.Errorf("the Goal lacks %q:\n%s", w, goal)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(goal, n) {
					t.Errorf("the Goal shows %q:\n%s", n, goal)
				}
			}
		})
	}
}
