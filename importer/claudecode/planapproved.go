package claudecode

import (
	"fmt"
	"strings"

	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/session"
)

// Approved plans (doc.go, "Approved plans"). When the person approves a
// plan and has the host clear the context to implement it, Claude Code
// starts the conversation anew with a user line it writes itself (the
// pinned 2.1.332: origin auto-continuation; 2.1.37 to 2.1.78: no origin),
// its text
//
//	Implement the following plan:\n\n<plan>[\n\nIf you need specific details … read the full transcript at: <path>][\n\nUser feedback on this plan: <words>]
//
// and the plan again in planContent.

// planFeedback opens the words the person typed when approving the plan,
// the last part of the line.
const planFeedback = "\n\nUser feedback on this plan: "

// approvedPlan imports a user line that carries an approved plan: one
// user/message of kind system, plan-approved, with the line's text and
// meta plan the plan's byte range in it, then the person's feedback, if
// any, as their instruction (plan-feedback). false for any other line,
// which is imported as before.
func (m *Mapper) approvedPlan(ln *line, text string, out *importer.Output) bool {
	plan := ln.PlanContent
	if strings.TrimSpace(plan) == "" || m.cfg.Parent != "" {
		return false
	}
	start := strings.Index(text, plan)
	if start < 0 {
		return false // not the host's shape: the line as it stands
	}
	ev := m.event(ln, session.TypeUserMessage, system(session.SourcePlanApproved))
	ev.Text = text
	ev.Meta[session.MetaPlan] = fmt.Sprintf("%d:%d", start, start+len(plan))
	out.Emit(ev)
	rest := text[start+len(plan):]
	if i := strings.LastIndex(rest, planFeedback); i >= 0 {
		if words := strings.TrimSpace(rest[i+len(planFeedback):]); words != "" {
			h := m.event(ln, session.TypeUserMessage, session.Source{Kind: session.KindUser, Name: "plan-feedback"})
			h.Text = words
			if ln.Cwd != "" {
				h.Meta["cwd"] = ln.Cwd
			}
			out.Emit(h)
		}
	}
	return true
}
