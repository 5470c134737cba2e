package graft

import (
	"strings"
	"testing"

	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/tape"
)

// A goal the person paused, or one whose objective the fold cut, is not
// carried into the export: the note still asks to set it again, even for
// a host that restores a goal from its session file.
func TestGoalNoteOfAGoalNotCarried(t *testing.T) {
	for _, g := range []*tape.HostGoal{
		{Status: "paused", Objective: "Port the pager", Seq: 7},
		{Status: "active", Objective: "Port the pager … [cut: recall seq=7]", Seq: 7},
	} {
		for _, to := range []hosts.Host{hosts.ClaudeCode, hosts.Host("qwen")} {
			n, err := goalNote(g, to)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(n, "set it again in the new one with /goal "+g.Objective) || strings.Contains(n, "goes on in the new session") {
				t.Errorf("goal %+v to %s: note %q", g, to, n)
			}
		}
	}
}
