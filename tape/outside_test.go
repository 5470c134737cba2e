package tape

import (
	"fmt"
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

// changedOutside is the host's word that a file changed outside the
// agent's tools (Claude Code's edited_text_file attachment, as imported).
func changedOutside(path, text string) session.Event {
	return session.Event{Type: session.TypeSystem, Source: session.Source{Kind: session.KindSystem, Name: "attachment"},
		Text: "changed outside the agent: " + path + "\n" + text,
		Meta: map[string]string{"attachment": "edited_text_file", session.MetaChangedOutside: path}}
}

// A file the host saw change outside the agent's tools (a merge, the
// person, a formatter) is a changed file of the workspace, not one only
// read: Workspace Files says so with the seq of the host's word, and a
// change that left merge-conflict markers names them (the next window
// must resolve them); a later write or edit by the agent is its own.
func TestAFileChangedOutsideTheAgentIsListed(t *testing.T) {
	conflict := "{\n<<<<<<< HEAD\n  \"version\": \"0.3.0\",\n=======\n  \"version\": \"0.2.0\",\n>>>>>>> main\n}"
	evs := seqd(
		human("Merge main."), // 1
		call("Read", "r1", `{"file_path":"/w/package.json"}`),                       // 2
		result("Read", "r1", true, "{}"),                                            // 3
		call("Read", "r2", `{"file_path":"/w/README.md"}`),                          // 4
		result("Read", "r2", true, "# Skills"),                                      // 5
		call("Read", "r3", `{"file_path":"/w/a.go"}`),                               // 6
		result("Read", "r3", true, "package a"),                                     // 7
		changedOutside("/w/package.json", conflict),                                 // 8
		changedOutside("/w/README.md", "# Skills\n\nCross-agent skills."),           // 9
		changedOutside("/w/a.go", "package a\n<<<<<<< HEAD\n=======\n>>>>>>> main"), // 10
		call("Write", "w1", `{"file_path":"/w/a.go","content":"package a\n"}`),      // 11
		result("Write", "w1", true, "ok"),                                           // 12
		say("The merge stopped on conflicts."),                                      // 13
	)
	inCwd(evs, "/w")
	tp := build(t, "s", evs, Options{}, nil)
	blk := blockText(t, tp, "Workspace Files")
	changed, read, _ := strings.Cut(blk, "Only read:")
	for _, want := range []string{
		"- package.json: changed outside the agent seq=8, read seq=3 (merge conflict markers: <<<<<<< HEAD, >>>>>>> main)",
		"- README.md: changed outside the agent seq=9, read seq=5",
		"- a.go: write seq=12, changed outside the agent seq=10, read seq=7",
	} {
		if !strings.Contains(changed, want+"\n") && !strings.HasSuffix(changed, want) {
			t.Errorf("want %q among the changed files:\n%s", want, blk)
		}
	}
	// The short form of an older file, which tells no change of it,
	// keeps the markers.
	reply := 70
	more := evs[: len(evs)-1 : len(evs)-1]
	for k := range 12 {
		id := fmt.Sprintf("m%d", k)
		more = append(more, call("Write", id, fmt.Sprintf(`{"file_path":"/w/m%d.go","content":"package m\n\nfunc LongFunctionNameNumber%dThatTakesRoom() {}\n"}`, k, k)), result("Write", id, true, "ok"))
	}
	more = seqd(append(more, say("Written. "+strings.Repeat("Every file is in place. ", reply)))...)
	tp = build(t, "s", more, Options{Budget: 4000}, nil)
	if blk := blockText(t, tp, "Workspace Files"); !strings.Contains(blk, "- package.json: changed outside the agent seq=8, read seq=3 (merge conflict markers: <<<<<<< HEAD, >>>>>>> main)") || !strings.Contains(blk, "- m11.go: write seq=36 (defines") || !strings.Contains(blk, "- m0.go: write seq=14\n") {
		t.Errorf("want the short forms of the older files, the markers kept:\n%s", blk)
	}
	if strings.Contains(read, "package.json") || strings.Contains(blk, "a.go: write seq=12, changed outside the agent seq=10, read seq=7 (merge") {
		t.Errorf("a file changed outside is no file only read, and the agent's write after a conflict is its own:\n%s", blk)
	}
}

// A file named by its absolute path in one call and relative to the
// session's folder in another (Codex's apply_patch names it relative, its
// shell's here-documents and other tools absolute) is one file of the
// workspace: one line, with all its ops.
func TestAFileNamedTwoWaysIsOneFile(t *testing.T) {
	evs := seqd(
		human("Fix the parser."), // 1
		call("Write", "w1", `{"file_path":"/w/internal/parser.go","content":"package sem\n\nfunc Parse() {}\n"}`), // 2
		result("Write", "w1", true, "ok"), // 3
		call("apply_patch", "p1", `{"patch":"*** Begin Patch\n*** Update File: internal/parser.go\n@@\n-func Parse() {}\n+func ParseSQL() {}\n*** End Patch"}`), // 4
		result("apply_patch", "p1", true, "Success"),               // 5
		call("Read", "r1", `{"file_path":"./internal/parser.go"}`), // 6
		result("Read", "r1", true, "package sem"),                  // 7
		say("Renamed."), // 8
	)
	inCwd(evs, "/w")
	blk := blockText(t, build(t, "s", evs, Options{}, nil), "Workspace Files")
	if n := strings.Count(blk, "- internal/parser.go:"); n != 1 || !strings.Contains(blk, "- internal/parser.go: write seq=3, edit seq=5, read seq=7") {
		t.Errorf("want one line of internal/parser.go with its write, edit and read (%d lines):\n%s", n, blk)
	}
}

func TestFileKey(t *testing.T) {
	for _, c := range []struct{ p, cwd, want string }{
		{"a.go", "/w", "/w/a.go"},
		{"./a.go", "/w/", "/w/a.go"},
		{"/w/a.go", "/w", "/w/a.go"},
		{"/etc/hosts", "/w", "/etc/hosts"},
		{"../b/a.go", "/w", "../b/a.go"},
		{"~/.zshrc", "/w", "~/.zshrc"},
		{"a.go", "", "a.go"},
		// A Windows session's tools name one file three ways.
		{`src\a.py`, `C:\Users\x\repo`, `C:/Users/x/repo/src/a.py`},
		{`.\src\a.py`, `C:\Users\x\repo\`, `C:/Users/x/repo/src/a.py`},
		{`src/a.py`, `C:\Users\x\repo`, `C:/Users/x/repo/src/a.py`},
		{`C:\Users\x\repo\src\a.py`, `C:\Users\x\repo`, `C:/Users/x/repo/src/a.py`},
		{`c:/Users/x/repo/src/a.py`, `C:\Users\x\repo`, `C:/Users/x/repo/src/a.py`},
		{`/c/Users/x/repo/src/a.py`, `C:\Users\x\repo`, `C:/Users/x/repo/src/a.py`},
		{`D:\other\a.py`, `C:\Users\x\repo`, `D:/other/a.py`},
		{`/c/Users/x/a.py`, `/home/x`, `/c/Users/x/a.py`},
	} {
		if got := fileKey(c.p, c.cwd); got != c.want {
			t.Errorf("fileKey(%q, %q) = %q, want %q", c.p, c.cwd, got, c.want)
		}
	}
}

// On Windows, Claude Code's Write names a file C:\…\x.py while a Bash
// here-document from the session's folder names it src/x.py: one file.
func TestAWindowsFileNamedTwoWaysIsOneFile(t *testing.T) {
	evs := seqd(
		human("Add provenance."), // 1
		call("Bash", "b1", `{"command":"cd \"/c/Users/m/repo\" && cat > src/provenance.py <<'PY'\ndef digest():\n    pass\nPY"}`), // 2
		result("Bash", "b1", true, ""), // 3
		call("Write", "w1", `{"file_path":"C:\\Users\\m\\repo\\src\\provenance.py","content":"def digest():\n    pass\n\ndef resolve():\n    pass\n"}`), // 4
		result("Write", "w1", true, "ok"), // 5
		say("Rewritten."),                 // 6
	)
	inCwd(evs, `C:\Users\m\repo`)
	blk := blockText(t, build(t, "s", evs, Options{}, nil), "Workspace Files")
	if n := strings.Count(blk, "- src/provenance.py:"); n != 1 || !strings.Contains(blk, "- src/provenance.py: write seq=5") {
		t.Errorf("want one line of src/provenance.py (%d lines):\n%s", n, blk)
	}
}

// A report the host calls the sub-agent's final answer (Codex's
// FINAL_ANSWER) is kept whatever its first words; another needs a report
// keyword near its start.
func TestAFinalAnswerIsAReport(t *testing.T) {
	rep := func(text string, final bool) session.Event {
		ev := session.Event{Type: session.TypeSubagentReport, Source: session.Source{Kind: session.KindSubagent, Name: "spawn_agent"}, Agent: "/root/spec_review", Text: text, Meta: map[string]string{}}
		if final {
			ev.Meta[session.MetaFinalAnswer] = "true"
		}
		return ev
	}
	evs := seqd(human("Review it."),
		rep("1. **P2 — Compatible-token acquisition is undocumented.** README.md requires aud=cyspbot.", true),
		rep("Looking at the README next; the tests after that.", false),
		say("Two findings."))
	blk := blockText(t, build(t, "s", evs, Options{}, nil), "Sub-agent Reports")
	if !strings.Contains(blk, "Compatible-token acquisition is undocumented") || strings.Contains(blk, "Looking at the README next") {
		t.Errorf("want the final answer kept and the other left out:\n%s", blk)
	}
}

// With a recap newer than the host's compaction summary, each heading
// stands over its own text; and a paragraph of the summary that is only a
// label ("Summary:\n1. **Primary Request and Intent:**") is one entry
// with the paragraph under it, so the budget never keeps the label alone.
func TestTheHostSummarysHeadingStandsOverItsText(t *testing.T) {
	recap := session.Event{Type: session.TypeSystem, Source: session.Source{Kind: session.KindSystem, Name: session.SourceRecap}, Text: "Goal is archiving the change; holding for the merge."}
	summary := "This session is being continued from a previous conversation.\n\nSummary:\n1. **Primary Request and Intent:**\n\n   The user asked to archive pr-tag-cleanup-all-images.\n\n2. **Key Technical Concepts:**\n\n   - GHCR version IDs"
	evs := seqd(human("Archive it."), injected(session.KindSystem, "compact-summary", summary), say("Archiving."), recap, say("Holding."))
	hs := blockText(t, build(t, "s", evs, Options{}, nil), "Host Summary")
	sumHead := "The host's own compaction summary, seq=2"
	r, s := strings.Index(hs, "The host's newest recap"), strings.Index(hs, sumHead)
	if r < 0 || s < 0 || s < r || !strings.Contains(hs[s:], "Summary:\n1. **Primary Request and Intent:**\n\nThe user asked to archive") {
		t.Fatalf("want the recap, then the summary's heading over its text:\n%s", hs)
	}
	if strings.Contains(hs[r:s], "Primary Request") {
		t.Errorf("the summary's text stands under the recap's heading:\n%s", hs)
	}
	b := fold(t, "s", evs)
	for budget := DefaultBudget; budget >= MinBudget; budget -= 100 {
		tp, err := b.Build(Options{Budget: budget}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if blk := blockText(t, tp, "Host Summary"); strings.Contains(blk, "**Key Technical Concepts:**") && !strings.Contains(blk, "GHCR version IDs") {
			t.Fatalf("budget %d: a label kept without its text:\n%s", budget, blk)
		}
	}
}

// In plan mode, the file the host said the plan goes to (Claude Code's
// plan_mode attachment) is named with the mode; out of plan mode it is
// not.
func TestThePlanFileIsNamedInPlanMode(t *testing.T) {
	planMode := session.Event{Type: session.TypeSystem, Source: session.Source{Kind: session.KindSystem, Name: "attachment"}, Text: "attachment plan_mode",
		Meta: map[string]string{"attachment": "plan_mode", session.MetaPlanFile: "/Users/a/.claude/plans/cheerful-meandering-badger.md"}}
	ask := human("Does it work without the codex skill?")
	ask.Meta = map[string]string{"permissionMode": "plan"}
	first := human("Build the skill.")
	first.Meta = map[string]string{"permissionMode": "acceptEdits"}
	evs := seqd(first, say("Built."), ask, planMode, say("Yes, it does."))
	wf := blockText(t, build(t, "s", evs, Options{}, nil), "Workspace Files")
	if !strings.Contains(wf, "permission mode plan since seq=3 (was acceptEdits): the host lets the agent read and plan, not edit, until the person approves a plan; the plan goes to /Users/a/.claude/plans/cheerful-meandering-badger.md.") {
		t.Errorf("plan mode without its plan file:\n%s", wf)
	}
	back := human("Go ahead.")
	back.Meta = map[string]string{"permissionMode": "acceptEdits"}
	wf = blockText(t, build(t, "s", seqd(first, say("Built."), ask, planMode, say("Yes, it does."), back), Options{}, nil), "Workspace Files")
	if strings.Contains(wf, "cheerful-meandering-badger") {
		t.Errorf("a plan file named out of plan mode:\n%s", wf)
	}
}

// inCwd puts the session's folder on every event, as the importers put it
// on the instructions.
func inCwd(evs []session.Event, cwd string) {
	for k := range evs {
		if evs[k].Meta == nil {
			evs[k].Meta = map[string]string{}
		}
		evs[k].Meta["cwd"] = cwd
	}
}

// The pull requests the host linked to the session (Claude Code's
// pr-link) are named in Workspace Files, newest first, each once.
func TestLinkedPullRequestsAreNamed(t *testing.T) {
	link := func(n, url string) session.Event {
		return session.Event{Type: session.TypeSystem, Source: session.Source{Kind: session.KindSystem, Name: "pr-link"}, Text: "pull request linked",
			Meta: map[string]string{session.MetaPullRequest: url, "prNumber": n}}
	}
	evs := seqd(human("Open the PRs."), link("546", "https://github.com/o/r/pull/546"), say("Opened."), link("547", "https://github.com/o/r/pull/547"), link("546", "https://github.com/o/r/pull/546"))
	wf := blockText(t, build(t, "s", evs, Options{}, nil), "Workspace Files")
	if !strings.Contains(wf, "Pull requests the host linked to the session, newest first: #546 https://github.com/o/r/pull/546 (seq=5), #547 https://github.com/o/r/pull/547 (seq=4).") {
		t.Errorf("linked pull requests:\n%s", wf)
	}
}

// Claude Code's approval of a plan names the file it saved the plan to:
// Task Status says so beside the plan.
func TestAnApprovedPlanNamesWhereItWasSaved(t *testing.T) {
	evs := seqd(human("Plan the agents."),
		call("ExitPlanMode", "p1", `{"plan":"# Plan: Add OpenCode and Codex\n\nStep 1."}`),
		result("ExitPlanMode", "p1", true, "User has approved your plan. You can now start coding.\n\nYour plan has been saved to: /Users/a/.claude/plans/compressed-purring-cloud.md\nYou can refer back to it if needed during implementation."),
		say("Starting."))
	st := blockText(t, build(t, "s", evs, Options{}, nil), "Task Status")
	if !strings.Contains(st, "Plan proposed at seq=2, saved to /Users/a/.claude/plans/compressed-purring-cloud.md (approved by the user;") {
		t.Errorf("the plan's file is not named:\n%s", st)
	}
}
