package tape

import (
	"strings"
	"testing"
)

// The conversation tail names, by seq, the messages the Breakpoint and
// the Goal quote already, instead of quoting them a second time: its
// room goes to the events nothing else in the tape shows.
func TestTheTailPointsAtMessagesQuotedAbove(t *testing.T) {
	long := "Use the sharded queue layout described in the runbook. " + strings.Repeat("Keep the retry budget at five attempts. ", 20)
	reply := "Summary of the change: " + strings.Repeat("the worker now drains the codex queue first. ", 20)
	tp := build(t, "s", seqd(
		human(long),
		call("Bash", "b1", `{"command":"pytest -q"}`), result("Bash", "b1", true, "12 passed in 0.4s"),
		say(reply),
	), Options{}, nil)
	tail := blockText(t, tp, "Conversation Tail")
	if strings.Contains(tail, "Keep the retry budget") || strings.Contains(tail, "drains the codex queue") {
		t.Fatalf("the tail quotes again what the Goal and the Breakpoint quote:\n%s", tail)
	}
	for _, want := range []string{"seq=1 user: (quoted in the Goal)", "seq=4 assistant: (in the Breakpoint)", "12 passed in 0.4s"} {
		if !strings.Contains(tail, want) {
			t.Fatalf("tail lacks %q:\n%s", want, tail)
		}
	}
	// Both are still in the tape, once each.
	for _, s := range []string{"Keep the retry budget at five attempts.", "drains the codex queue first."} {
		if !strings.Contains(tp.Text, s) {
			t.Fatalf("the tape lost %q", s)
		}
	}
}

// A message the tape does not quote elsewhere (a host's injected note)
// stays in the tail as it was.
func TestTheTailKeepsWhatNothingElseQuotes(t *testing.T) {
	tp := build(t, "s", seqd(human("Start."), injected("system", "interrupted", "[Request interrupted by user]")), Options{}, nil)
	if tail := blockText(t, tp, "Conversation Tail"); !strings.Contains(tail, "[Request interrupted by user]") {
		t.Fatalf("tail:\n%s", tail)
	}
}
