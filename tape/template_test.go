package tape

import (
	"fmt"
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

// specKitTemplate is a command template as Spec Kit expands one (its
// /speckit.* commands, for Claude Code, Codex, Gemini CLI and Qwen Code):
// the words the user typed after the command in a fenced block under
// "## User Input", then the command's own instructions.
func specKitTemplate(input, outline, step string) string {
	return "\n## User Input\n\n```text\n" + input + "\n```\n\nYou **MUST** consider the user input before proceeding (if not empty).\n\n## Outline\n\n" +
		outline + "\n\n" + strings.Repeat(step+"\n", 80)
}

// A command's template in a turn answered since is no words of the
// user's the next window needs: the command ran. The Goal quotes what the
// user typed after the command and names the template by its first line
// and its seq, instead of 800 characters of its head and end; the first
// instruction and the latest keep their templates (there it is the task).
func TestTheGoalQuotesACommandsInputNotItsTemplate(t *testing.T) {
	first := specKitTemplate("", "You are updating the project constitution.", "1. Fill the constitution's placeholders.")
	middle := specKitTemplate("我们的任务是保证项目的可用性 验收所有功能", "The text the user typed after `/speckit.specify` in the triggering message **is** the feature description.", "1. Write the spec to specs/001/spec.md step by step.")
	latest := specKitTemplate("", "Goal: Detect and reduce ambiguity or missing decision points in the active feature specification.", "1. Ask one question at a time.")
	tp := build(t, "s", seqd(human(first), say("Constitution written."), human(middle), say("Spec written."), human(latest), say("Question 1: scope?")), Options{}, nil)
	goal := blockText(t, tp, "Goal")
	for _, want := range []string{"我们的任务是保证项目的可用性 验收所有功能", "/speckit.specify", "command's template, recall seq=3: ", "First instruction (seq 1):\n> (nothing typed after the command)\n> (then a command's template, recall seq=1: You are updating the project constitution.)", "Goal: Detect and reduce ambiguity", "Ask one question at a time"} {
		if !strings.Contains(goal, want) {
			t.Errorf("the Goal lacks %q:\n%s", want, goal)
		}
	}
	// The first instruction too: its command ran, and later instructions
	// asked the work since; its template is recalled by its seq.
	for _, step := range []string{"Write the spec to specs/001/spec.md", "Fill the constitution's placeholders"} {
		if strings.Contains(goal, step) {
			t.Errorf("the Goal quotes the steps of a template whose turn was answered (%q):\n%s", step, goal)
		}
	}
	// A template that is still the only instruction is the task: quoted whole.
	tp = build(t, "s", seqd(human(first), say("Reading the constitution.")), Options{}, nil)
	if goal := blockText(t, tp, "Goal"); !strings.Contains(goal, "Fill the constitution's placeholders") || strings.Contains(goal, "command's template") {
		t.Errorf("the Goal does not quote the open turn's template whole:\n%s", goal)
	}
	// A typed message that merely opens with such a heading is quoted as it was.
	typed := "## User Input\nplease fix the login page, it breaks on Safari"
	tp = build(t, "s", seqd(human("hi"), say("Hello."), human(typed), say("On it."), human("thanks"), say("Done.")), Options{}, nil)
	if goal := blockText(t, tp, "Goal"); !strings.Contains(goal, "it breaks on Safari") || strings.Contains(goal, "template") {
		t.Errorf("a typed message is taken for a template:\n%s", goal)
	}
}

func TestCommandTemplate(t *testing.T) {
	in, first, ok := commandTemplate(specKitTemplate("add a dark mode", "Goal: plan the feature.", "1. Read the plan and write each step of it down."))
	if !ok || in != "add a dark mode" || first != "Goal: plan the feature." {
		t.Errorf("commandTemplate = %q, %q, %v", in, first, ok)
	}
	if _, _, ok := commandTemplate(specKitTemplate("", "Goal: x.", "1. Read the plan and write each step of it down.")); !ok {
		t.Error("an empty input is no template")
	}
	for _, s := range []string{"short ## User Input\n```text\nx\n```", strings.Repeat("no heading here\n", 300), "## User Input\n\nno fence\n" + strings.Repeat("x\n", 2000)} {
		if _, _, ok := commandTemplate(s); ok {
			t.Errorf("taken for a template: %.60q", s)
		}
	}
}

// The words a person typed after a command can be long: a feature's whole
// description, with its rules ("integration tests, NOT unit tests"), 2,500
// characters and more. The fold keeps a long instruction's head (two
// fifths of maxHumanRunes) and end; a template whose typed block closed
// past that head was not read as one, and the Goal quoted its head and
// end: the first part of the person's words, then the template's own
// last lines, with the person's rules in the cut middle. The block is
// kept whole instead, and the Goal quotes the typed words and names the
// template, as it does for a short one.
func TestALongTypedInputOfACommandsTemplateIsQuotedWhole(t *testing.T) {
	words := strings.Repeat("The server binds port 1906 after the migrations run. ", 50) + "Write integration tests, NOT unit tests, and make every log visible in the debug console."
	if n := len([]rune(words)); n*5 <= maxHumanRunes*2 {
		t.Fatalf("the typed words (%d runes) fit the head anyway", n)
	}
	tmpl := specKitTemplate(words, "The text the user typed after `/speckit.specify` is the feature description.", "1. Write the spec to specs/001/spec.md step by step.")
	tp := build(t, "s", seqd(human(tmpl), say("Spec written."), human("now plan it"), say("Planning.")), Options{}, nil)
	goal := blockText(t, tp, "Goal")
	for _, want := range []string{"NOT unit tests, and make every log visible in the debug console.", "(then a command's template, recall seq=1: The text the user typed after `/speckit.specify` is the feature description.)"} {
		if !strings.Contains(goal, want) {
			t.Errorf("the Goal lacks %q:\n%s", want, goal)
		}
	}
	if strings.Contains(goal, "Write the spec to specs/001/spec.md") {
		t.Errorf("the Goal quotes the steps of a template whose turn was answered:\n%s", goal)
	}
	// Spec Kit's /speckit.specify opens its own text by repeating the
	// typed words: of that first line the head keeps what the Goal
	// quotes of it (templateRunes).
	echo := specKitTemplate(words, "The text the user typed after `/speckit.specify` **is** the feature description: `"+words+"` appears literally below.", "1. Write the spec to specs/001/spec.md step by step.")
	tp = build(t, "s", seqd(human(echo), say("Spec written."), human("now plan it"), say("Planning.")), Options{}, nil)
	goal = blockText(t, tp, "Goal")
	if !strings.Contains(goal, "NOT unit tests, and make every log visible in the debug console.\n> (then a command's template, recall seq=1: The text the user typed after `/speckit.specify` **is** the feature description") || strings.Contains(goal, "Write the spec to specs/001/spec.md") {
		t.Errorf("a template whose first line repeats the typed words is not quoted by them:\n%s", goal)
	}
	// Typed words too long to leave the template's end a fifth of the
	// room are clipped as any long instruction is.
	huge := specKitTemplate(strings.Repeat("x ", maxHumanRunes), "Goal: x.", "1. Step.")
	if got := clipInstruction(huge, maxHumanRunes, 1); got != clipHeadTail(huge, maxHumanRunes, "", 1) {
		t.Errorf("a huge typed block changed the clip:\n%.200q", got)
	}
}

// The first instruction's quote the fold keeps for the whole session
// (st.FirstGoal, 2,000 runes; what a later generation inherits) is the one
// the Goal shows once more than keptHumans later instructions pushed the
// instruction itself out: a command's template there keeps the words typed
// after it whole too, so the Goal still quotes the task by them and the
// template's first line, not by the words' head and the template's end.
func TestTheFirstGoalsQuoteKeepsATemplatesTypedWordsWhole(t *testing.T) {
	words := strings.Repeat("The server binds port 1906 after the migrations run. ", 22) + "Write integration tests, NOT unit tests, and make every log visible in the debug console."
	if n := len([]rune(words)); n*5 <= maxQuoteRunes*2 || n*5 >= maxQuoteRunes*4 {
		t.Fatalf("the typed words (%d runes) do not test the first goal's clip", n)
	}
	tmpl := specKitTemplate(words, "The text the user typed after `/speckit.specify` is the feature description.", "1. Write the spec to specs/001/spec.md step by step.")
	evs := []session.Event{human(tmpl), say("Spec written.")}
	for k := 0; k <= keptHumans; k++ {
		evs = append(evs, human(fmt.Sprintf("Now tweak widget %d of the settings page.", k)), say(fmt.Sprintf("Widget %d tweaked.", k)))
	}
	tp := build(t, "s", seqd(evs...), Options{Budget: 64000}, nil)
	goal := blockText(t, tp, "Goal")
	if !strings.Contains(goal, "First instruction (seq 1)") {
		t.Fatalf("the Goal does not quote the first instruction:\n%.600s", goal)
	}
	for _, want := range []string{"NOT unit tests, and make every log visible in the debug console.", "(then a command's template, recall seq=1: The text the user typed after `/speckit.specify` is the feature description.)"} {
		if !strings.Contains(goal, want) {
			t.Errorf("the Goal lacks %q:\n%.3000s", want, goal)
		}
	}
	if strings.Contains(goal, "Write the spec to specs/001/spec.md") {
		t.Errorf("the Goal quotes the steps of a template whose turn was answered:\n%.3000s", goal)
	}
	// The next generation inherits that quote: its Goal quotes the task
	// the same way.
	next := build(t, "s2", seqd(origin(2, "s", int64(len(evs)), &tp.Inherit), human("continue with the plan"), say("Planning.")), Options{}, nil)
	goal = blockText(t, next, "Goal")
	if !strings.Contains(goal, "NOT unit tests, and make every log visible in the debug console.\n> (then a command's template, recall gen 1 seq=1") || strings.Contains(goal, "Write the spec to specs/001/spec.md") {
		t.Errorf("the next generation's Goal does not quote the inherited template by its typed words and first line:\n%.3000s", goal)
	}
}
