package tape

import (
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

// A short answer that names an option ("6", "B", "option 2", "1 and 3")
// means nothing without the option it picks: the Goal shows, under the
// answer, the line of the message it answers that opens that option,
// labelled model-written, even once that message is cut from the
// Breakpoint. An answer that names no option, or an option the message
// does not list, adds nothing.
func TestTheGoalShowsTheOptionAShortAnswerPicks(t *testing.T) {
	proposal := linesUpTo("Here is what I found.\n", "- finding %d about the sync scripts and their tests\n", 3000) +
		"\n## Which would you like me to implement?\n\n1. **Fix the redaction bug** (P0)\n2. **Add a pytest suite**\n3. Set up CI\n4. Everything in P1\n5. Search and statistics\n6. **All of the above** in priority order?"
	table := "Question 1: acceptance scope.\n\n| Option | Description |\n|--------|-------------|\n| A | P1 only (core journeys now) |\n| B | P1 + P2 together (broader, longer) |\n| C | Staged: P1, then P2 |\n\nReply with the option letter."
	for _, tc := range []struct {
		name, asked, answer string
		want                []string
		not                 []string
	}{
		{"numbered", proposal, "6", []string{"6. **All of the above** in priority order?"}, []string{"1. **Fix the redaction bug**"}},
		{"two numbers", proposal, "1 and 3", []string{"1. **Fix the redaction bug** (P0)", "3. Set up CI"}, []string{"6. **All of the above**"}},
		{"table letter", table, "B", []string{"| B | P1 + P2 together (broader, longer) |"}, []string{"P1 only"}},
		{"option word", table, "option c", []string{"| C | Staged: P1, then P2 |"}, nil},
		{"no option", proposal, "yes", nil, []string{"All of the above"}},
		{"not listed", proposal, "9", nil, []string{"All of the above", "picks"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs := seqd(human("review, propose improvements"), say(tc.asked), human(tc.answer), say("On it."),
				human("push to github"), say(strings.Repeat("Pushed the branch and opened the pull request. ", 40)))
			tp := build(t, "s", evs, Options{}, nil)
			goal := blockText(t, tp, "Goal")
			for _, w := range tc.want {
				if !strings.Contains(goal, w) {
					t.Errorf("answer %q: the Goal lacks the option %q:\n%s", tc.answer, w, goal)
				}
			}
			if len(tc.want) > 0 && !strings.Contains(goal, "model-written") {
				t.Errorf("answer %q: the option is not labelled model-written:\n%s", tc.answer, goal)
			}
			for _, n := range tc.not {
				if strings.Contains(goal, n) {
					t.Errorf("answer %q: the Goal shows %q:\n%s", tc.answer, n, goal)
				}
			}
		})
	}
	// At a budget that cuts the answered message from the Breakpoint, the
	// option is still in the Goal.
	evs := seqd(human("review, propose improvements"), say(proposal), human("6"), say("On it."),
		human("push to github"), say(strings.Repeat("Pushed the branch and opened the pull request. ", 40)))
	tp := build(t, "s", evs, Options{Budget: 4000}, nil)
	if bp := blockText(t, tp, "Breakpoint"); strings.Contains(bp, "Here is what I found.") {
		t.Fatalf("budget 4000 kept the answered message; the test needs it cut:\n%s", bp)
	}
	if goal := blockText(t, tp, "Goal"); !strings.Contains(goal, "All of the above") {
		t.Errorf("budget 4000: the Goal lost the option the answer picks:\n%s", goal)
	}
}

func TestAnswerOptions(t *testing.T) {
	for in, want := range map[string]string{
		"6": "6", "B": "b", "b.": "b", "option 2": "2", "Option B": "b", "1 and 3": "1 3", "2, 4": "2 4", "(c)": "c", "#3": "3",
		"yes": "", "ok": "", "6 please do it": "", "all of them": "", "1 2 3 4 5": "", "": "", "100": "",
	} {
		if got := strings.Join(answerOptions(in), " "); got != want {
			t.Errorf("answerOptions(%q) = %q, want %q", in, got, want)
		}
	}
}

// The option a short answer picks crosses a handoff with the answer: a
// target hands on the option's lines with the quote (inherit.said: picks,
// with the seq of the message that listed them), and the next
// generation's Goal shows them under the answer, cited in their session.
// Before, the next window read "> 6" alone: the answer crossed, the
// proposal it accepts did not.
func TestTheOptionAnAnswerPicksCrossesAHandoff(t *testing.T) {
	proposal := "Here is what I found.\n\n## Which would you like me to implement?\n\n1. **Fix the redaction bug** (P0)\n2. **Add a pytest suite**\n6. **All of the above** in priority order?"
	g1 := seqd(human("review, propose improvements"), say(proposal), human("6"), say("On it."))
	tp := build(t, "s", g1, Options{}, nil)
	var six *session.Quote
	for k, q := range tp.Inherit.Said {
		if q.Text == "6" {
			six = &tp.Inherit.Said[k]
		}
	}
	if six == nil || six.Picks == nil || six.Picks.From != 2 || len(six.Picks.Lines) != 1 || six.Picks.Lines[0] != "6. **All of the above** in priority order?" {
		t.Fatalf("the target hands on the answer %+v, want it with the option it picks in the message of seq 2", six)
	}
	next := build(t, "s2", seqd(origin(2, "s", int64(len(g1)), &tp.Inherit), say("Going on with all of them.")), Options{}, nil)
	goal := blockText(t, next, "Goal")
	if w := "↳ picks, in the assistant's message gen 1 seq=2 (model-written): 6. **All of the above** in priority order?"; !strings.Contains(goal, w) {
		t.Errorf("the next generation's Goal lacks %q:\n%s", w, goal)
	}
	if strings.Contains(blockText(t, next, "Anchor + Hard Constraints"), "All of the above") {
		t.Error("an option handed on became a hard constraint: it is the assistant's words")
	}
	for _, q := range next.Goal {
		if q.Picks != nil {
			t.Errorf("the review's Goal quote %+v carries the option: its quotes are the person's words", q)
		}
	}
	var again *session.Quote
	for k, q := range next.Inherit.Said {
		if q.Text == "6" {
			again = &next.Inherit.Said[k]
		}
	}
	if again == nil || again.Picks == nil || again.Picks.From != 2 || again.Origin.Session != "s" {
		t.Errorf("the next target does not hand the option on again with its origin: %+v", again)
	}
}
