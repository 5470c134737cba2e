package tape

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/graft-project/graft/session"
)

// A sub-agent report the assistant has spoken after, in the open turn or
// one before it, is answered: its messages since say what it took from it. Sub-agent Reports shows such a
// report by its head and its end in answeredReportRunes; the newest report
// keeps its maxReportRunes, and so does one no assistant message followed.
func TestAnAnsweredReportShowsItsHeadAndEnd(t *testing.T) {
	older := "## Findings\n\nOLDER-HEAD the router lives in lib/router.ex. " + strings.Repeat("older middle detail ", 60) + "OLDER-END: use the shared router."
	newer := "## Findings\n\nNEWER-HEAD the tests live in test/. " + strings.Repeat("newer middle detail ", 40) + "NEWER-END: add conn_case.ex."
	evs := []session.Event{
		human("Explore the app and add the tests."),
		say("Let me explore the router."),
		subagent("Explore", older),
		say("The router is shared; now the tests."),
		subagent("Explore", newer),
	}
	rep := blockText(t, build(t, "s", seqd(evs...), Options{}, nil), "Sub-agent Reports")
	oldPart, newPart, ok := strings.Cut(rep, "NEWER-HEAD")
	if !ok {
		t.Fatalf("the newest report is not shown:\n%s", rep)
	}
	if !strings.Contains(oldPart, "OLDER-HEAD") || !strings.Contains(oldPart, "OLDER-END: use the shared router.") || !strings.Contains(oldPart, "[cut: recall seq=") {
		t.Fatalf("the answered report, by its head and its end with a cut mark:\n%s", oldPart)
	}
	if n := strings.Count(oldPart, "older middle detail"); n > answeredReportRunes/len("older middle detail ") {
		t.Fatalf("the answered report keeps %d of its 60 middle phrases: want at most its %d runes\n%s", n, answeredReportRunes, oldPart)
	}
	if strings.Count(newPart, "newer middle detail") != 40 || !strings.Contains(newPart, "NEWER-END: add conn_case.ex.") {
		t.Fatalf("the newest report, whole (it is within %d runes):\n%s", maxReportRunes, newPart)
	}

	// Answered in a turn before the open one, which has no assistant
	// message yet: answered all the same.
	earlier := []session.Event{human("Explore the router."), say("Exploring."), subagent("Explore", older), say("The router is shared."), human("Now add the tests.")}
	rep = blockText(t, build(t, "s", seqd(earlier...), Options{}, nil), "Sub-agent Reports")
	if strings.Count(rep, "older middle detail") > answeredReportRunes/len("older middle detail ") || !strings.Contains(rep, "OLDER-END") {
		t.Fatalf("a report answered in the turn before, by its head and its end:\n%s", rep)
	}

	// The ranking that keeps the newest report while unanswered agrees.
	if u := fold(t, "s", seqd(earlier...)).unanswered(); u != 0 {
		t.Errorf("a report answered in the turn before is ranked as unanswered (%d)", u)
	}
	if u := fold(t, "s", seqd(human("Explore the router."), say("Exploring."), subagent("Explore", older), human("Now add the tests."))).unanswered(); u != 1 {
		t.Errorf("a report no message followed is ranked as answered (%d)", u)
	}

	// Not answered: the assistant said nothing after the older one.
	unanswered := []session.Event{human("Explore the app."), say("Two explorers."), subagent("Explore", older), subagent("Explore", newer)}
	rep = blockText(t, build(t, "s", seqd(unanswered...), Options{}, nil), "Sub-agent Reports")
	if strings.Count(rep, "older middle detail") != 60 {
		t.Fatalf("a report no assistant message followed, whole:\n%s", rep)
	}
	if answeredReportRunes >= maxReportRunes || utf8.RuneCountInString(older) <= answeredReportRunes {
		t.Fatal("the test's report must be longer than an answered report's room")
	}
}
