package tape

import (
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

func codexAborted(reason string) session.Event {
	return session.Event{Type: session.TypeSystem, Source: session.Source{Kind: session.KindSystem, Name: "turn_aborted"}, Text: "turn_aborted: " + reason}
}

// A person who stops the agent stops it on purpose: what ran then is not
// to be resumed as if nothing happened, and the instruction that follows
// usually turns the work. The hosts write it into the log (Claude Code's
// "[Request interrupted by user]", Codex's turn_aborted and, since 0.13x,
// its <turn_aborted> words to the model); the Breakpoint says it, in the
// host's words, for the open turn and for the turn just before it, and
// not for older turns.
func TestTheBreakpointSaysTheUserInterrupted(t *testing.T) {
	work := []session.Event{human("Refactor the lexer into its own package."), say("Moving the lexer."),
		call("Bash", "c1", `{"command":"go test ./..."}`)}
	codexWords := "<turn_aborted>\nThe user interrupted the previous turn on purpose. Any running unified exec processes may still be running in the background.\n</turn_aborted>"
	for _, tc := range []struct {
		name string
		evs  []session.Event
		want []string
		not  []string
	}{
		{"claude code, at the end", []session.Event{injected(session.KindSystem, "interrupted", "[Request interrupted by user for tool use]")},
			[]string{"The user stopped this turn at seq=4", "“[Request interrupted by user for tool use]”"}, nil},
		{"claude code, then an instruction", []session.Event{injected(session.KindSystem, "interrupted", "[Request interrupted by user]"), human("No, keep it in parser/.")},
			[]string{"The user stopped the turn before at seq=4", "“[Request interrupted by user]”"}, []string{"stopped this turn"}},
		{"codex 0.13x words and event", []session.Event{injected(session.KindSystem, "turn-aborted", codexWords), codexAborted("interrupted"), human("is it possible to bump deps?")},
			[]string{"at seq=4", "“The user interrupted the previous turn on purpose.”"}, []string{"running unified exec", "<turn_aborted>"}},
		{"older codex, the event alone", []session.Event{codexAborted("interrupted")},
			[]string{"The user stopped this turn at seq=4", "“turn_aborted: interrupted”"}, nil},
		{"two turns back", []session.Event{injected(session.KindSystem, "interrupted", "[Request interrupted by user]"), human("No, keep it in parser/."), say("Kept."), human("Now run the tests.")},
			nil, []string{"stopped"}},
		{"a turn Codex ended for another reason", []session.Event{codexAborted("replaced")},
			nil, []string{"stopped"}},
		{"none", nil, nil, []string{"stopped"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs := append(append([]session.Event(nil), work...), tc.evs...)
			bp := blockText(t, build(t, "s", seqd(evs...), Options{}, nil), "Breakpoint")
			for _, w := range tc.want {
				if !strings.Contains(bp, w) {
					t.Errorf("the Breakpoint lacks %q:\n%s", w, bp)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(bp, n) {
					t.Errorf("the Breakpoint shows %q:\n%s", n, bp)
				}
			}
		})
	}
}
