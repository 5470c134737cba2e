package claudecode

import (
	"encoding/json"

	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/session"
)

// attachmentGoalStatus is the attachment Claude Code 2.1.332 writes of the
// goal the person set with /goal <condition> (a Stop hook whose condition
// a model call checks at each stop): when it is set ({met: false,
// sentinel: true}), after each check that found it not met ({met: false,
// reason}), when it is met ({met: true}), when the check judged it
// impossible ({met: false, failed: true, reason}) and when the person
// cleared it with /goal clear ({met: true, sentinel: true}). The binary and
// the real program (hosts' TestClaudeGoalIsInTaskStatus,
// TestClaudeClearedGoalIsNone) hold the shape.
const attachmentGoalStatus = "goal_status"

// goalStatus puts the goal's status, objective (its condition) and the
// check's reason on ev (session.MetaGoalStatus); a line whose attachment
// does not decode is warned of and says nothing of the goal.
func goalStatus(raw []byte, ev *session.Event, out *importer.Output) {
	var ln struct {
		Attachment struct {
			Met       *bool  `json:"met"`
			Failed    *bool  `json:"failed"`
			Sentinel  *bool  `json:"sentinel"`
			Condition string `json:"condition"`
			Reason    string `json:"reason"`
		} `json:"attachment"`
	}
	if err := json.Unmarshal(raw, &ln); err != nil || ln.Attachment.Condition == "" {
		out.Warn("goal_status attachment without a condition (%v); no goal status", err)
		return
	}
	a := ln.Attachment
	importer.SetGoal(ev, goalStatusOf(a.Met, a.Failed, a.Sentinel), a.Condition, a.Reason)
	ev.Text = "goal " + ev.Meta[session.MetaGoalStatus] + ": " + importer.Clip(a.Condition, 200)
}

// goalStatusOf is the status of a goal_status attachment: cleared
// (session.GoalCleared) for the sentinel of a /goal clear, complete when
// met, failed when the check judged the condition impossible, else active.
func goalStatusOf(met, failed, sentinel *bool) string {
	switch {
	case met != nil && *met && sentinel != nil && *sentinel:
		return session.GoalCleared
	case met != nil && *met:
		return session.GoalComplete
	case failed != nil && *failed:
		return session.GoalFailed
	}
	return session.GoalActive
}
