package claudecode

import (
	"strings"
	"testing"

	"github.com/graft-project/graft/internal/testfixtures"
	"github.com/graft-project/graft/session"
)

// testdata/edited-outside-2.1.119.jsonl holds edited_text_file attachments
// as Claude Code 2.1.119 wrote them (from a transcript of
// testdata/fidelity, shortened): the host saw a file it had read change
// outside its model's tools (a merge, the person, a formatter) and told
// its model which, with the lines around the change. Each is an injected
// event naming the file (session.MetaChangedOutside) whose text holds the
// snippet without its line numbers; one with no file name is kept as an
// attachment and names none.
func TestAFileChangedOutsideTheAgentIsNamed(t *testing.T) {
	st, home := testfixtures.NewStore(t)
	sum, err := Import(Options{Store: st, Home: home, Path: "testdata/edited-outside-2.1.119.jsonl", ID: "out"})
	if err != nil {
		t.Fatal(err)
	}
	if sum.WarningCount != 0 || sum.MalformedCount != 0 {
		t.Errorf("warnings %q, malformed %d", sum.Warnings, sum.MalformedCount)
	}
	var paths []string
	var texts []string
	attachments := 0
	for _, ev := range testfixtures.ReadSession(t, st, "out") {
		if ev.Meta["attachment"] == "edited_text_file" {
			attachments++
			if ev.IsHumanInstruction() || ev.Type != session.TypeSystem {
				t.Errorf("seq %d: an attachment is the host's, never a human instruction: %+v", ev.Seq, ev)
			}
		}
		if p := ev.Meta[session.MetaChangedOutside]; p != "" {
			paths = append(paths, p)
			texts = append(texts, ev.Text)
		}
	}
	if attachments != 3 {
		t.Errorf("%d edited_text_file attachments, want 3", attachments)
	}
	want := []string{"/Users/alisha/Projects/skills/package.json", "/Users/alisha/Projects/skills/README.md"}
	if strings.Join(paths, "|") != strings.Join(want, "|") {
		t.Fatalf("files changed outside %q, want %q", paths, want)
	}
	wantText := "changed outside the agent: /Users/alisha/Projects/skills/package.json\n{\n  \"name\": \"skills\",\n<<<<<<< HEAD\n  \"version\": \"0.3.0\",\n=======\n  \"version\": \"0.2.0\",\n>>>>>>> main\n  \"type\": \"module\",\n  \"main\": \".opencode/plugins/entire.js\"\n}"
	if texts[0] != wantText {
		t.Errorf("text:\n%s\nwant:\n%s", texts[0], wantText)
	}
}

// testdata/branch-switch-2.1.229.jsonl: the agent switched branches
// mid-turn (git checkout -b); Claude Code writes the new branch on every
// line from the call's result on. The event where the branch changed
// carries it (meta gitBranch), as the human instruction does, so the
// tape names the branch the work is on now, not the one of the newest
// instruction; a line on the same branch carries none.
func TestABranchSwitchedMidTurnIsNamed(t *testing.T) {
	st, home := testfixtures.NewStore(t)
	if _, err := Import(Options{Store: st, Home: home, Path: "testdata/branch-switch-2.1.229.jsonl", ID: "br"}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ev := range testfixtures.ReadSession(t, st, "br") {
		got = append(got, ev.Type+"="+ev.Meta["gitBranch"])
	}
	want := "user/message=xcoder/nomos-audit-github-issues-9c825f tool/call= tool/result=issue-288-genesis-multisig-quorum assistant/message="
	if strings.Join(got, " ") != want {
		t.Errorf("branches by event:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
}

// testdata/plan-mode-2.1.108.jsonl: in plan mode Claude Code 2.1.108
// reminds its model, in a plan_mode attachment, which file its plan goes
// to (planFilePath, under ~/.claude/plans): the event names it in meta
// planFile (session.MetaPlanFile).
func TestThePlanFileOfPlanModeIsNamed(t *testing.T) {
	st, home := testfixtures.NewStore(t)
	if _, err := Import(Options{Store: st, Home: home, Path: "testdata/plan-mode-2.1.108.jsonl", ID: "pm"}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ev := range testfixtures.ReadSession(t, st, "pm") {
		if p := ev.Meta[session.MetaPlanFile]; p != "" {
			got = append(got, ev.Meta["attachment"]+" "+p)
		}
	}
	if want := "plan_mode /Users/alisha/.claude/plans/cheerful-meandering-badger.md"; len(got) != 1 || got[0] != want {
		t.Errorf("plan files %q, want [%q]", got, want)
	}
}

// testdata/bookkeeping-2.1.228.jsonl: line types current Claude Code
// versions write beside the conversation (from transcripts of
// testdata/fidelity, one session id): ai-title (the title the host gave
// the session), agent-name, file-history-delta (an editor undo backup) are
// bookkeeping, skipped and counted without a warning; pr-link, a pull
// request the host linked to the session, is a system event naming it
// (meta prUrl and prNumber), once per pull request.
func TestBookkeepingLinesAndLinkedPullRequests(t *testing.T) {
	st, home := testfixtures.NewStore(t)
	sum, err := Import(Options{Store: st, Home: home, Path: "testdata/bookkeeping-2.1.228.jsonl", ID: "bk"})
	if err != nil {
		t.Fatal(err)
	}
	if sum.WarningCount != 0 || sum.MalformedCount != 0 {
		t.Errorf("warnings %q, malformed %d", sum.Warnings, sum.MalformedCount)
	}
	for _, k := range []string{"ai-title", "agent-name", "file-history-delta"} {
		if sum.Skipped[k] != 1 {
			t.Errorf("skipped %v: want one %s", sum.Skipped, k)
		}
	}
	var prs []string
	for _, ev := range testfixtures.ReadSession(t, st, "bk") {
		if u := ev.Meta[session.MetaPullRequest]; u != "" {
			prs = append(prs, ev.Meta["prNumber"]+" "+u+" / "+ev.Text)
		}
	}
	want := "546 https://github.com/gmeligio/flutter-docker-image/pull/546 / pull request #546 linked to the session: https://github.com/gmeligio/flutter-docker-image/pull/546"
	if len(prs) != 2 || prs[0] != want {
		t.Errorf("pull requests %q, want it twice: %q", prs, want)
	}
}
