package tape

import (
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

// exploreCommand is a command's text as Claude Code writes it after the
// person types a slash command (a user line with isMeta, imported as
// kind "skill"): a marker, a line of what the command is, then its rules.
const exploreCommand = "<!-- opsx-explore-research-patch -->\n\nAutonomous research mode. Investigate deeply. Deliver findings.\n\n" +
	"**IMPORTANT: Explore mode is for research and thinking, not implementing.** You must NEVER write code.\n\n" +
	"## Steps\n\n- Read the issue.\n- Do not run the subagents in parallel.\n\nARGUMENTS: issues/532"

// The text a command the person typed expands to is what the person
// asked for by typing it: the mode the work runs in ("research, not
// implementing"). The Goal shows it under the command, marked as the
// command's words, not the user's: its first line of its own and its
// first rule. A text the agent pulled in itself (a skill it chose, after a
// tool call) is no instruction of the person's, and the Goal shows none.
func TestTheGoalShowsTheCommandsTextItsFirstRule(t *testing.T) {
	evs := seqd(
		human("/opsx:explore issues/532"),
		injected(session.KindSkill, "skill", exploreCommand),
		say("Reading the issue."),
		human("make a simple list"),
		say("Here it is."),
	)
	tp := build(t, "s", evs, Options{}, nil)
	goal := blockText(t, tp, "Goal")
	for _, want := range []string{
		"/opsx:explore issues/532",
		"the command's text, seq=2 (the host's words, not the user's)",
		"Autonomous research mode. Investigate deeply. Deliver findings.",
		"IMPORTANT: Explore mode is for research and thinking, not implementing.",
	} {
		if !strings.Contains(goal, want) {
			t.Errorf("the Goal lacks %q:\n%s", want, goal)
		}
	}
	for _, not := range []string{"opsx-explore-research-patch", "Do not run the subagents", "ARGUMENTS"} {
		if strings.Contains(goal, not) {
			t.Errorf("the Goal quotes %q of the command's text:\n%s", not, goal)
		}
	}
	if strings.Contains(blockText(t, tp, "Anchor + Hard Constraints"), "Explore mode") {
		t.Error("a command's text became a hard constraint: those are the user's own words")
	}

	// A skill the agent loaded itself, after its own tool call: no
	// instruction of the person's.
	evs = seqd(
		human("fix the login page"),
		call("Skill", "s1", `{"skill":"debugging"}`),
		result("Skill", "s1", true, "Launching skill: debugging"),
		injected(session.KindSkill, "skill", "Base directory for this skill: /skills/debugging\n\n# Debugging\n\nFind the root cause first.\n\nYou MUST reproduce the bug before fixing it."),
		say("Reproducing."),
	)
	tp = build(t, "s", evs, Options{}, nil)
	if goal := blockText(t, tp, "Goal"); strings.Contains(goal, "command's text") || strings.Contains(goal, "reproduce the bug") {
		t.Errorf("the Goal shows a skill the agent chose as the person's command:\n%s", goal)
	}
}

func TestCommandTextLines(t *testing.T) {
	for _, c := range []struct{ text, first, rule string }{
		{exploreCommand, "Autonomous research mode. Investigate deeply. Deliver findings.", "**IMPORTANT: Explore mode is for research and thinking, not implementing.** You must NEVER write code."},
		// Claude Code's skill text opens with its folder; a heading names it.
		{"Base directory for this skill: /s/review\n\n# Review\n\nYou are a code review agent.\n\nDo not force push.", "You are a code review agent.", "Do not force push."},
		// Codex's <skill> block: its tags are no line of its own.
		{"<skill>\n<name>pdf</name>\n<path>/s/pdf/SKILL.md</path>\nUse this skill to read PDFs.\n</skill>", "Use this skill to read PDFs.", ""},
		// A command's context, lines it ran a command for, is no line of its own.
		{"## Context\n\n- Current commit: ab71aaf refactor: x\n\nAnnotate the commit.", "Annotate the commit.", ""},
		// A command file as Qwen Code 0.5.0 sent it, its YAML front matter
		// first: its description says what the command is; the matter's
		// "---" is no line of its own.
		{"---\ndescription: Create or update the project constitution.\nhandoffs: []\n---\n\n## User Input\n\n```text\n$ARGUMENTS\n```\n\nYou **MUST** consider the user input before proceeding.", "Create or update the project constitution.", "You **MUST** consider the user input before proceeding."},
		{"---\nname: x\n---\nRun the checks.", "Run the checks.", ""},
		{"", "", ""},
	} {
		first, rule := commandTextLines(c.text)
		if first != c.first || rule != c.rule {
			t.Errorf("commandTextLines(%.40q) = %q, %q; want %q, %q", c.text, first, rule, c.first, c.rule)
		}
	}
}

// The command's text an instruction ran crosses a handoff with it: a
// target hands on the first line and first rule with the quote
// (inherit.firstGoal, inherit.said: command), and the next generation's
// Goal shows them under the quote, cited in their session. Before, the
// next window lost that the work runs under "Explore mode is for research
// and thinking, not implementing".
func TestTheCommandsTextCrossesAHandoff(t *testing.T) {
	g1 := seqd(
		human("/opsx:explore issues/532"),
		injected(session.KindSkill, "skill", exploreCommand),
		say("Reading the issue."),
		human("/opsx:explore issues/533"),
		injected(session.KindSkill, "skill", exploreCommand),
		say("Reading that one too."),
	)
	tp := build(t, "s", g1, Options{}, nil)
	fg := tp.Inherit.FirstGoal
	if fg == nil || fg.Command == nil || fg.Command.At != 2 || !strings.Contains(fg.Command.Rule, "Explore mode is for research and thinking") {
		t.Fatalf("the target hands on the first goal %+v, want its command's text of seq 2", fg)
	}
	if len(tp.Inherit.Said) != 1 || tp.Inherit.Said[0].Command == nil || tp.Inherit.Said[0].Command.At != 5 {
		t.Fatalf("the target hands on %+v, want the later instruction with its command's text of seq 5", tp.Inherit.Said)
	}
	next := build(t, "s2", seqd(origin(2, "s", int64(len(g1)), &tp.Inherit), say("Going on with issue 533.")), Options{}, nil)
	goal := blockText(t, next, "Goal")
	for _, w := range []string{
		"the command's text, gen 1 seq=2 (the host's words, not the user's): Autonomous research mode.",
		"the command's text, gen 1 seq=5 (the host's words, not the user's)",
		"its first rule: **IMPORTANT: Explore mode is for research and thinking, not implementing.**",
	} {
		if !strings.Contains(goal, w) {
			t.Errorf("the next generation's Goal lacks %q:\n%s", w, goal)
		}
	}
	if strings.Contains(blockText(t, next, "Anchor + Hard Constraints"), "Explore mode") {
		t.Error("a command's text handed on became a hard constraint")
	}
	if fg := next.Inherit.FirstGoal; fg == nil || fg.Command == nil || *fg.Command != *tp.Inherit.FirstGoal.Command {
		t.Errorf("the next target does not hand the command's text on again: %+v", fg)
	}
}
