package tape

import (
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
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

// The tail shows a write or an edit as a host's screen does, by the lines
// it adds, not by its file alone: what the agent changed last is the work
// in hand. The same whether the fold held the call's input or Build reads
// it from the log.
func TestTheTailShowsTheLinesAnEditAdds(t *testing.T) {
	evs := seqd(
		withMeta(human("Use one durable queue."), "cwd", "/r"),
		call("Edit", "e1", `{"file_path":"/r/q.py","old_string":"QUEUE = 'codex-0'","new_string":"QUEUE = 'codex'  # one durable queue, prefetch=1"}`),
		result("Edit", "e1", true, "The file /r/q.py has been updated."),
		call("Bash", "b1", `{"command":"pytest -q"}`), result("Bash", "b1", true, "3 passed"),
	)
	for name, tp := range bothWays(t, evs) {
		tail := blockText(t, tp, "Conversation Tail")
		if !strings.Contains(tail, "seq=2 Edit call: q.py\n+ QUEUE = 'codex'  # one durable queue, prefetch=1") {
			t.Errorf("%s: the tail does not show what the edit adds:\n%s", name, tail)
		}
	}
}

// A write or an edit in flight at the cut says what it writes, as the
// files it changed say their last change: the next window checks whether
// it landed, and by the path alone cannot tell three edits of one file
// apart. A real Qwen Code session was cut with three edits of a rules
// file in flight, each setting one rule to block; its tape named the
// file three times. The same whether the fold held the call's input or
// Build reads it from the log.
func TestAWriteInFlightSaysWhatItWrites(t *testing.T) {
	evs := seqd(
		withMeta(human("Make the money rules blocking."), "cwd", "/r"),
		call("Edit", "e1", `{"file_path":"/r/rules.yaml","old_string":"  severity: warn # no_float","new_string":"  severity: block # no_float"}`),
		call("Write", "w1", `{"file_path":"/r/notes.md","content":"# Rules moved to block\n- no_float"}`),
	)
	for name, tp := range bothWays(t, evs) {
		p := blockText(t, tp, "Pending State")
		containsAll(t, name+": Pending State", p,
			"- seq=2 Edit: rules.yaml (it writes: severity: block # no_float)",
			"- seq=3 Write: notes.md (it writes: # Rules moved to block ⏎ - no_float)")
	}
}

// bothWays builds evs' tape with the calls' inputs held by the fold and
// with them read from the log at Build, by name.
func bothWays(t *testing.T, evs []session.Event) map[string]*Tape {
	t.Helper()
	held := build(t, "s", evs, Options{}, nil)
	withOff, src := foldWithOffsets(t, evs)
	read, err := withOff.BuildFrom(Options{}, nil, src)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]*Tape{"input held": held, "input read at Build": read}
}
