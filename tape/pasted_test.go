package tape

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/graft-project/graft/anchors"
	"github.com/graft-project/graft/session"
)

// openCodeScreen is a copied OpenCode session: a footer line ends each of
// the agent's turns, and the user's next prompt follows it.
func openCodeScreen(prompts []string, filler int) string {
	var sb strings.Builder
	sb.WriteString("Thinking: The user wants the release.\n")
	for k, p := range prompts {
		for j := 0; j < filler; j++ {
			fmt.Fprintf(&sb, "← Edit src/file%d_%d.rs\n- old line %d\n+ new line %d\n", k, j, j, j)
		}
		fmt.Fprintf(&sb, "Done with step %d.\n", k)
		fmt.Fprintf(&sb, "▣  Build · Big Pickle · %ds\n", 10+k)
		sb.WriteString(p + "\n")
		fmt.Fprintf(&sb, "Thinking: The user is asking about step %d.\n", k)
	}
	return sb.String()
}

func TestPastedPrompts(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"opencode", openCodeScreen([]string{"Why does it still say V2 in the readme?", "Also publish it, please"}, 1),
			[]string{"Why does it still say V2 in the readme?", "Also publish it, please"}},
		{"opencode thought line and an interrupted turn",
			"x\n   ▣  Build · Claude Sonnet 4.6 · interrupted\nwhich doc\n+ Thought: 1.9s\nMDN\n▣  Plan · GPT-5 · 2m 3s\nsave the plan\nto plan.md\n→ Read plan.md\n",
			[]string{"which doc", "save the plan to plan.md"}},
		{"crlf lines", "work\r\n▣  Build · M · 3s\r\nkeep it short\r\nThinking: x\r\n", []string{"keep it short"}},
		{"opencode footer at the end", "work\n▣  Build · Big Pickle · 1m 14s\n", nil},
		{"claude code", "⏺ I'll look.\n  ⎿  Read 10 lines\n\n> keep the old API,\n  do not rename it\n\n⏺ Bash(go test ./...)\n  ⎿  ok\n\n❯ now commit\n\n⏺ Committed.\n",
			[]string{"keep the old API, do not rename it", "now commit"}},
		{"markdown quotes are not prompts", "> quoted advice\n> more of it\n\nplain text\n", nil},
		{"a footer-like line without a screen", "▣ a bullet, no separators\nnext line\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, got := pastedPrompts(tc.text); !slices.Equal(got, tc.want) {
				t.Fatalf("pastedPrompts = %q, want %q", got, tc.want)
			}
		})
	}
	// Bounds: the newest keptPrompts, each clipped.
	var many []string
	for k := 0; k < keptPrompts+5; k++ {
		many = append(many, fmt.Sprintf("prompt number %d %s", k, strings.Repeat("w", 2*promptRunes)))
	}
	_, got := pastedPrompts(openCodeScreen(many, 0))
	if len(got) != keptPrompts || !strings.HasPrefix(got[0], fmt.Sprintf("prompt number %d ", 5)) {
		t.Fatalf("kept %d prompts starting %.30q, want the newest %d", len(got), got[0], keptPrompts)
	}
	for _, p := range got {
		if n := len([]rune(p)); n > promptRunes+1 {
			t.Fatalf("a prompt of %d runes, want at most %d and a mark", n, promptRunes)
		}
	}
}

// A session pasted into one instruction keeps the user's own prompts in it
// in the Goal, however long the paste: the fold keeps only its head and
// end, and the prompts in its middle were lost.
func TestGoalKeepsThePromptsOfAPastedSession(t *testing.T) {
	prompts := []string{"Why does it still say Bastion V2 in the readme.md?", "Should I publish it to skill.sh?", "Yes, a how-to skill for agent developers."}
	paste := openCodeScreen(prompts, 150) + "Continue please"
	if len(paste) < 4*maxHumanRunes {
		t.Fatalf("the paste is %d bytes, want it long enough that its middle is cut", len(paste))
	}
	evs := seqd(human(paste), say("Continuing."), human("Then tag the release."), say("Tagged."))
	for _, budget := range []int{16000, 8000} {
		tp := build(t, "s", evs, Options{Budget: budget}, nil)
		goal := blockText(t, tp, "Goal")
		for _, p := range prompts {
			if !strings.Contains(goal, p) {
				t.Fatalf("budget %d: the Goal lost the pasted prompt %q:\n%s", budget, p, goal)
			}
		}
		if !strings.Contains(goal, "typed in the session pasted at seq 1") {
			t.Fatalf("budget %d: the prompts do not say where they come from:\n%s", budget, goal)
		}
	}
	// A prompt the Goal already shows (the paste's end) is not repeated.
	evs = seqd(human(openCodeScreen([]string{"only prompt, at the end"}, 0)), say("ok"))
	goal := blockText(t, build(t, "s", evs, Options{}, nil), "Goal")
	if n := strings.Count(goal, "only prompt, at the end"); n != 1 {
		t.Fatalf("the prompt shows %d times, want once:\n%s", n, goal)
	}
}

// A pasted screen of an earlier session is the agent's words and its
// tools' output around the person's prompts: only the prompts are the
// person's, so only they give constraints (docs/DESIGN.md §2: model-written
// text is never a constraint). Before, the agent's "we should NOT commit
// the keypair" and "Thinking: I must not bump the version" of the screen
// stood as hard constraints.
func TestAPastedScreenGivesConstraintsOfThePromptsOnly(t *testing.T) {
	screen := "Thinking: I must not bump the version without asking.\nThat's wrong - we should NOT commit the keypair.\n" +
		openCodeScreen([]string{"Keep the tests green and never push to main.", "Continue please"}, 80)
	claude := "⏺ We should not touch the lockfile.\n  ⎿  Read 10 lines\n\n> use pnpm, not npm,\n  and never edit the lockfile\n\n⏺ Bash(pnpm test)\n  ⎿  ok\n" +
		strings.Repeat("⏺ Bash(ls)\n  ⎿  a.go\n", pastedBytes/20)
	for _, tc := range []struct {
		name, text string
		want, not  []string
	}{
		{"opencode", screen, []string{"Keep the tests green and never push to main."}, []string{"keypair", "bump the version"}},
		{"claude code", claude, []string{"use pnpm, not npm, and never edit the lockfile"}, []string{"touch the lockfile"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.text) < pastedBytes {
				t.Fatalf("the screen is %d bytes, under pastedBytes", len(tc.text))
			}
			tp := build(t, "s", seqd(human(tc.text), say("ok")), Options{}, nil)
			var got []string
			for _, c := range tp.Constraints {
				got = append(got, c.Text)
			}
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Errorf("the prompt's constraint %q is missing: %q", w, got)
				}
			}
			for _, c := range got {
				if !anchors.Holds(tc.text, c) {
					t.Errorf("the audit would not find %q in its origin event", c)
				}
			}
			for _, n := range tc.not {
				for _, c := range got {
					if strings.Contains(c, n) {
						t.Errorf("the screen's own words are a constraint: %q", c)
					}
				}
			}
		})
	}
	// Typed text that is no screen gives its constraints as before.
	typed := strings.Repeat("Some context line.\n", pastedBytes/19+1) + "Never push to main.\n"
	tp := build(t, "s", seqd(human(typed), say("ok")), Options{}, nil)
	if len(tp.Constraints) != 1 || tp.Constraints[0].Text != "Never push to main." {
		t.Errorf("a long typed instruction's constraints: %+v", tp.Constraints)
	}
}

// A pasted screen whose prompts say no rule gives no constraint, so no
// saying of it cites the instruction: the fold keeps no line digest for
// it (Lines: the origins a constraint, a first goal or an older origin
// cites). Before, the sayings were counted over the whole screen, the
// agent's "we should NOT commit the keypair" included, and the digest was
// kept for an instruction nothing cited.
func TestAPastedScreenWithoutRulesIsNotCited(t *testing.T) {
	screen := "Thinking: I must not bump the version without asking.\nThat's wrong - we should NOT commit the keypair.\n" +
		openCodeScreen([]string{"Continue please", "And the readme too"}, 80)
	if len(screen) < pastedBytes {
		t.Fatalf("the screen is %d bytes, under pastedBytes", len(screen))
	}
	b := fold(t, "s", seqd(human("Ship the release."), say("ok"), human(screen), say("ok")))
	if len(b.st.Constraints) != 0 {
		t.Fatalf("the screen's own words gave constraints: %+v", b.st.Constraints)
	}
	key := originKey(session.Origin{Generation: 1, Session: "s", Seq: 3})
	if _, ok := b.st.Lines[key]; ok {
		t.Errorf("the pasted screen (seq 3) has a line digest: nothing cites it; lines %v", b.st.Lines)
	}
	if _, ok := b.st.Lines[originKey(session.Origin{Generation: 1, Session: "s", Seq: 1})]; !ok {
		t.Errorf("the first goal (seq 1) has no line digest; lines %v", b.st.Lines)
	}
}

// The prompts of a session the person pasted into an instruction are
// their own words in an earlier window: a target hands them on with the
// instruction (inherit.prompts, one entry per paste, with its origin),
// and the next generation's Goal lists those its quote of the
// instruction does not show, cited in their session.
func TestThePromptsOfAPastedSessionCrossAHandoff(t *testing.T) {
	prompts := []string{"Why does it still say Bastion V2 in the readme.md?", "Should I publish it to skill.sh?", "Yes, a how-to skill for agent developers."}
	paste := openCodeScreen(prompts, 150) + "Continue please"
	g1 := seqd(human(paste), say("Continuing."), human("Then tag the release."), say("Tagged."))
	tp := build(t, "s", g1, Options{}, nil)
	if ps := tp.Inherit.Prompts; len(ps) != 1 || ps[0].Origin != (session.Origin{Generation: 1, Session: "s", Seq: 1}) || ps[0].Text != strings.Join(prompts, "\n") {
		t.Fatalf("the target hands on the prompts %+v, want the paste's three at seq 1", ps)
	}
	g2 := seqd(origin(2, "s", int64(len(g1)), &tp.Inherit), human("Now the changelog."), say("Writing it."))
	next := build(t, "s2", g2, Options{}, nil)
	goal := blockText(t, next, "Goal")
	if !strings.Contains(goal, "Prompts the user typed in the session pasted at gen 1 seq 1") {
		t.Errorf("the next Goal does not say where the prompts come from:\n%s", goal)
	}
	for k, p := range prompts {
		// The last stands at the paste's end, which the quote shows.
		if listed := strings.Contains(goal, "\n- "+p); !strings.Contains(goal, p) || listed != (k < 2) {
			t.Errorf("the next Goal lost the pasted prompt %q, or lists one its quote shows:\n%s", p, goal)
		}
	}
	if ps := next.Inherit.Prompts; len(ps) != 1 || ps[0] != tp.Inherit.Prompts[0] {
		t.Errorf("the next target hands on %+v, want generation 1's paste still", ps)
	}
}
