package tape

import (
	"strings"
	"testing"
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
