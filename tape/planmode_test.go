package tape

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

// codexMode is Codex's turn settings naming its collaboration mode, as
// the importer writes them.
func codexMode(mode string) session.Event {
	return session.Event{Type: session.TypeSystem, Source: session.Source{Kind: session.KindSystem, Name: "turn_context"},
		Text: "Codex turn settings: collaboration mode " + mode, Meta: map[string]string{"collaborationMode": mode}}
}

// proposed is an assistant message holding plan in a <proposed_plan>
// block between before and after, marked as the Codex importer marks it.
func proposed(before, plan, after string) session.Event {
	ev := say(before + "<proposed_plan>\n" + plan + "\n</proposed_plan>" + after)
	start := len(before) + len("<proposed_plan>\n")
	ev.Meta = map[string]string{session.MetaProposedPlan: fmt.Sprintf("%d:%d", start, start+len(plan))}
	return ev
}

// quoteJSON is s as a JSON string.
func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Each host's plan mode ends with the agent asking the person to approve
// its plan: Claude Code's ExitPlanMode and Qwen Code's exit_plan_mode with
// the plan as their input ("plan"), Gemini CLI's exit_plan_mode with the
// plan file it wrote in plan mode ("plan_filename", under its plans
// folder). Task Status carries the last plan, whole, with the person's
// verdict: approved, or not approved when they turned it down (the
// importers mark that result declined). A plan turned down is no call to
// ask about again in Pending State: Task Status says it, and a later plan
// replaces it. Entering plan mode (EnterPlanMode, enter_plan_mode) is the
// host setting "plan" until a plan is approved. Codex's Plan mode (its
// collaboration mode "plan") ends a turn with the plan in a
// <proposed_plan> block of the assistant's message (the importer marks its
// range, session.MetaProposedPlan), and Codex asks "Implement this plan?":
// yes leaves Plan mode, so a plan the session left Plan mode after is the
// plan the person approved; another message in Plan mode revises it. The
// plan is quoted once: in Task Status, not again in the message.
func TestEachHostsPlanIsTheTapesPlan(t *testing.T) {
	const v1 = "# Parser plan\n\n1. Tokenise with a hand-written lexer.\n2. Recursive descent, no generator."
	const v2 = "# Parser plan\n\n1. Write the grammar tests first.\n2. Generate the parser with goyacc."
	for _, c := range []struct {
		name    string
		evs     []session.Event
		want    []string
		notWant []string
	}{
		{"Gemini CLI approved", seqd(human("Plan the parser."),
			call("enter_plan_mode", "e1", `{}`), result("enter_plan_mode", "e1", true, "Switching to Plan mode."),
			call("write_file", "w1", `{"file_path":"/home/u/.gemini/tmp/work/s1/plans/parser.md","content":`+quoteJSON(v2)+`}`),
			result("write_file", "w1", true, "Successfully created and wrote to new file"),
			call("exit_plan_mode", "x1", `{"plan_filename":"parser.md"}`),
			result("exit_plan_mode", "x1", true, "Plan approved. Switching to Auto-Edit mode (edits will be applied automatically).\n\nThe approved implementation plan is stored at: /home/u/.gemini/tmp/work/s1/plans/parser.md"),
			say("Noted.")),
			[]string{"Plan proposed at seq=6", "plans/parser.md", "approved by the user", "goyacc", "Write the grammar tests first."}, []string{"not approved"}},
		{"Gemini CLI turned down, then approved", seqd(human("Plan the parser."),
			call("write_file", "w1", `{"file_path":"/home/u/.gemini/tmp/work/s1/plans/parser.md","content":`+quoteJSON(v1)+`}`),
			result("write_file", "w1", true, "Successfully created and wrote to new file"),
			call("exit_plan_mode", "x1", `{"plan_filename":"parser.md"}`),
			declinedResult("exit_plan_mode", "x1", "Plan rejected. User feedback: Use goyacc.\n\nThe plan is stored at: /home/u/.gemini/tmp/work/s1/plans/parser.md\nRevise the plan based on the feedback."),
			injected(session.KindUser, "rejection-feedback", "Use goyacc."),
			call("write_file", "w2", `{"file_path":"/home/u/.gemini/tmp/work/s1/plans/parser.md","content":`+quoteJSON(v2)+`}`),
			result("write_file", "w2", true, "Successfully overwrote file"),
			call("exit_plan_mode", "x2", `{"plan_filename":"parser.md"}`),
			result("exit_plan_mode", "x2", true, "Plan approved. Switching to Auto-Edit mode."),
			say("Noted.")),
			[]string{"Plan proposed at seq=9", "approved by the user", "goyacc"}, []string{"hand-written lexer", "not approved"}},
		{"Qwen Code approved", seqd(human("Plan the parser."),
			call("exit_plan_mode", "x1", `{"plan":`+quoteJSON(v1)+`}`),
			result("exit_plan_mode", "x1", true, "User approved. You can now start coding. Start with updating your todo list if applicable."),
			say("Noted.")),
			[]string{"Plan proposed at seq=2", "approved by the user", "hand-written lexer"}, []string{"not approved"}},
		{"Qwen Code turned down", seqd(human("Plan the parser."),
			call("exit_plan_mode", "x1", `{"plan":`+quoteJSON(v1)+`}`),
			declinedResult("exit_plan_mode", "x1", "[Operation Cancelled] Reason: User did not allow tool call"),
			say("Noted.")),
			[]string{"Plan proposed at seq=2", "not approved by the user", "hand-written lexer"}, nil},
		{"Codex approved: the person left Plan mode", seqd(codexMode("plan"), human("Plan the parser."),
			proposed("Here is the plan.\n\n", v1, "\n\nSay if it suits."), codexMode("default"), human("Implement the plan."), say("Implementing.")),
			[]string{"Plan proposed at seq=3", "approved by the user", "hand-written lexer"}, []string{"no answer yet"}},
		{"Codex revised in Plan mode", seqd(codexMode("plan"), human("Plan the parser."),
			proposed("", v1, ""), human("Use goyacc."), proposed("", v2, "")),
			[]string{"Plan proposed at seq=5", "no answer yet", "goyacc"}, []string{"hand-written lexer", "approved"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tp := build(t, "s", c.evs, Options{}, nil)
			for _, line := range []string{"Tokenise with a hand-written lexer.", "Write the grammar tests first."} {
				if n := strings.Count(tp.Text, line); n > 1 && strings.HasPrefix(c.name, "Codex") {
					t.Errorf("the tape quotes %q %d times:\n%s", line, n, tp.Text)
				}
			}
			checkTaskStatus(t, tp, c.want, c.notWant)
			if pending, ok := tp.Block("Pending State"); ok && strings.Contains(pending, "exit_plan_mode") {
				t.Errorf("Pending State lists the plan exit:\n%s", pending)
			}
		})
	}
	tp := build(t, "s", seqd(human("Plan the parser."), call("enter_plan_mode", "e1", `{}`), result("enter_plan_mode", "e1", true, "Switching to Plan mode."), say("Planning.")), Options{}, nil)
	if files := blockText(t, tp, "Workspace Files"); !strings.Contains(files, "permission mode plan") {
		t.Errorf("enter_plan_mode is not the host setting plan:\n%s", files)
	}
}

// A plan the person approved with no instruction of theirs since the one
// that answered ("Implement the plan." after Codex left Plan mode) is what
// the work goes by: the budget keeps it as long as the latest instruction,
// past the assistant's older messages, where a plan the person has given
// two instructions since goes with the sub-agents' reports.
func TestTheCurrentPlanRanksWithTheLatestInstruction(t *testing.T) {
	plan := "# Parser plan\n\n" + strings.Repeat("- Tokenise with a hand-written lexer, then parse by recursive descent.\n", 12) + "## Verification\n- go test ./parser/..."
	// The same events but for where the person's two other instructions
	// stand: before the plan, or after its approval.
	buildSession := func(after bool) []session.Event {
		var evs []session.Event
		said := []session.Event{human("Keep the lexer small."), say("Noted."), human("Name the files lexer.go and parser.go."), say("Noted.")}
		if !after {
			evs = append(evs, said...)
		}
		evs = append(evs, codexMode("plan"), human("Plan the parser."), proposed("", plan, ""), codexMode("default"), human("Implement the plan."))
		if after {
			evs = append(evs, said...)
		}
		for k := range 30 {
			id := fmt.Sprintf("b%d", k)
			evs = append(evs, say(fmt.Sprintf("Step %d: %s", k, strings.Repeat("working through the parser's cases one by one. ", 5))),
				call("Bash", id, fmt.Sprintf(`{"command":"go test ./parser/case%d/..."}`, k)), result("Bash", id, true, fmt.Sprintf("ok  \tgithub.com/o/r/parser/case%d\t0.1s\n", k)))
		}
		return seqd(evs...)
	}
	current, older := buildSession(false), buildSession(true)
	differs := false
	for budget := 4000; budget <= 16000; budget += 250 {
		has := func(evs []session.Event) bool {
			status, _ := build(t, "s", evs, Options{Budget: budget}, nil).Block("Task Status")
			return strings.Contains(status, "Plan proposed at seq=")
		}
		c, o := has(current), has(older)
		if o && !c {
			t.Fatalf("at a budget of %d the plan given two instructions since is kept and the current one is cut", budget)
		}
		differs = differs || (c && !o)
	}
	if !differs {
		t.Fatal("at no budget does the current plan outlast the one given instructions since")
	}
}
