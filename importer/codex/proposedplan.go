package codex

import (
	"fmt"
	"strings"

	"github.com/graft-project/graft/session"
)

// The tags of the plan Codex's Plan mode proposes at the end of its turn.
const (
	planOpen  = "<proposed_plan>"
	planClose = "</proposed_plan>"
)

// markProposedPlan marks the plan an assistant message proposes in Plan
// mode (inPlan: the turn settings imported before the message said
// collaboration mode "plan"): meta proposedPlan is the byte range of its
// first <proposed_plan> block's inside, without the blank space around
// it. Outside Plan mode Codex reads no such block as a plan; a block with
// no end, or an empty one, is none either.
func markProposedPlan(ev *session.Event, inPlan bool) {
	if !inPlan {
		return
	}
	i := strings.Index(ev.Text, planOpen)
	if i < 0 {
		return
	}
	n := strings.Index(ev.Text[i:], planClose)
	if n < 0 {
		return
	}
	start, end := i+len(planOpen), i+n
	inside := ev.Text[start:end]
	start += len(inside) - len(strings.TrimLeft(inside, " \t\r\n"))
	end -= len(inside) - len(strings.TrimRight(inside, " \t\r\n"))
	if start >= end {
		return
	}
	ev.Meta[session.MetaProposedPlan] = fmt.Sprintf("%d:%d", start, end)
}
