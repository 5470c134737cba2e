package graft_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graft-project/graft/hosts"
)

// withGoal appends to the Claude Code transcript at path the goal_status
// attachment Claude Code 2.1.332 writes after a check of the person's
// /goal (importer/claudecode/testdata/goal-2.1.332.jsonl): met or not.
func withGoal(t *testing.T, path, condition string, met bool) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	line := fmt.Sprintf(`{"parentUuid":"29e6224a-ea4f-445c-964f-d2bb7a2c31aa","isSidechain":false,"attachment":{"type":"goal_status","met":%v,"condition":%q,"reason":"the tests do not pass yet"},"type":"attachment","uuid":"fef533eb-f8d5-4463-8e19-872774b2f762","timestamp":"2026-02-12T20:31:00.000Z","sessionId":"d6e0bada-1959-4eec-a9d2-0bfade768d8f","userType":"external","cwd":"/home/marco/projects/spotter","version":"2.1.332"}`+"\n", met, condition)
	if _, err := f.WriteString(line); err != nil {
		t.Fatal(err)
	}
}

// The goal the person set with /goal is kept by the host per session. A
// host that restores it from its session file (Claude Code, Qwen Code)
// gets it in the export: a handoff tells the person it goes on in the new
// session, and when. Another host's new session has none, and the tape's
// Task Status alone cannot set it: a handoff tells the person so, with the
// command that sets it again there (Gemini CLI 0.61 has no /goal: the
// tape is all that carries it); the review names the goal for programs. A
// goal already met is no note.
func TestHandoffTellsThePersonWhereTheGoalGoesOn(t *testing.T) {
	const condition = "All tests in ./parser pass"
	for _, c := range []struct {
		to   hosts.Host
		met  bool
		want string
	}{
		{hosts.ClaudeCode, false, "it goes on in the new session: Claude Code restores it on resume and checks it when your first turn there ends (" + condition + ")"},
		{hosts.Host("qwen"), false, "it goes on in the new session: Qwen Code restores it on resume and goes on working at it at once, before you type (" + condition + ")"},
		{hosts.Codex, false, "Codex keeps the goal of a session with the session: set it again in the new one with /goal " + condition},
		{hosts.Host("gemini"), false, "Gemini CLI has no /goal: the goal goes on only as the tape's Task Status (" + condition + ")"},
		{hosts.ClaudeCode, true, ""},
	} {
		t.Run(fmt.Sprintf("%s-met=%v", c.to, c.met), func(t *testing.T) {
			work, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			path, cfg := transcriptIn(t, work)
			withGoal(t, path, condition, c.met)
			res := claudeHandoffTo(t, c.to, path, cfg, work)
			goal := notesOn(res.Notes, "goal")
			switch {
			case c.want == "" && len(goal) != 0:
				t.Errorf("a goal already met is noted: %q", goal)
			case c.want != "" && (len(goal) != 1 || !strings.Contains(goal[0], c.want)):
				t.Errorf("notes %q: want one saying %q", res.Notes, c.want)
			}
			hg := res.Review.HostGoal
			wantStatus := "active"
			if c.met {
				wantStatus = "complete"
			}
			if hg == nil || hg.Status != wantStatus || hg.Objective != condition {
				t.Errorf("the review's host goal is %+v, want %s %q", hg, wantStatus, condition)
			}
		})
	}
}
