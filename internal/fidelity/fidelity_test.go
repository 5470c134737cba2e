package fidelity

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/graft-project/graft/internal/testfixtures"
	"github.com/graft-project/graft/session"
)

// floor is the overall recall of graft's tape on the truth set that this
// test holds it to: a few points under what make fidelity measured when
// the tape or the set last changed (BENCHMARKS.md: 72.6 % of 3,061 facts
// on 184 handoffs), so that a change that loses facts fails here. Issue
// 23 asks for 0.95; make fidelity prints how far the tape is from it.
const floor = 0.70

// TestTruthSet runs the whole truth set as make fidelity does and holds
// graft to its floor, ahead of the two plain baselines overall and behind
// neither in any category (issue 23 asks for a lead in every category:
// make fidelity names the categories where it is a tie).
func TestTruthSet(t *testing.T) {
	root := testfixtures.ModuleRoot(t)
	cases, err := Load(filepath.Join(root, "testdata", "fidelity"))
	if err != nil {
		t.Fatal(err)
	}
	hosts, facts := map[string]int{}, 0
	var results []*Result
	for _, c := range cases {
		r, err := Run(context.Background(), root, t.TempDir(), c)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Unreachable) > 0 {
			t.Errorf("%s: facts %v: their evidence is not in the transcript before the cut", c.Name, r.Unreachable)
		}
		if r.TapeChars > 16000 || len([]rune(r.Texts[Graft])) != r.TapeChars {
			t.Errorf("%s: tape of %d chars (text %d): want at most 16000", c.Name, r.TapeChars, len([]rune(r.Texts[Graft])))
		}
		hosts[c.Host]++
		facts += len(c.Facts)
		results = append(results, r)
	}
	t.Logf("\n%s", Tables(results))
	if len(cases) < 12 || facts < 120 {
		t.Errorf("truth set of %d handoffs and %d facts: issue 23 asks for at least 12 and 120", len(cases), facts)
	}
	if hosts[HostClaudeCode] == 0 || hosts[HostCodex] == 0 {
		t.Errorf("truth set hosts %v: want both Claude Code and Codex", hosts)
	}
	all, byCat := Totals(results, false)
	if r, _ := all.Recall(Graft); r < floor {
		t.Errorf("graft carries %.1f %% of the facts, under the floor of %.0f %%", 100*r, 100*floor)
	}
	g, _ := all.Recall(Graft)
	for _, base := range []string{Excerpt, Tail} {
		if b, _ := all.Recall(base); g <= b {
			t.Errorf("graft carries %.0f %% of all facts, the %s %.0f %%", 100*g, base, 100*b)
		}
	}
	for _, cat := range Categories {
		c := byCat[cat]
		if c.Facts == 0 {
			continue
		}
		g, _ := c.Recall(Graft)
		for _, base := range []string{Excerpt, Tail} {
			if b, _ := c.Recall(base); g < b {
				t.Errorf("%s: graft %.0f %% is behind the %s %.0f %%", cat, 100*g, base, 100*b)
			}
		}
	}
}

// The scorer itself: evidence is matched case-insensitively with white
// space folded, every string of a fact is needed, and a case that breaks
// the format is refused naming what is wrong.
func TestScorer(t *testing.T) {
	f := Fact{ID: "s1", Category: "state", Fact: "x", Evidence: []string{"410 Tests,  0 failures", "64f1b9a"}}
	if !Carries(Normalize("done: 410 tests,\n0 FAILURES; commit 64F1B9A"), f) {
		t.Error("case or white space decided a match")
	}
	if Carries(Normalize("410 tests, 0 failures"), f) {
		t.Error("a fact carried with one of its two evidence strings missing")
	}
	bad := &Case{Name: "b", Host: "cursor", Transcript: "/abs", Cut: Cut{Lines: 3, CompactBoundary: 1}, Facts: []Fact{{ID: "a", Category: "mood", Evidence: []string{"x"}}, {ID: "a", Category: "task", Fact: "t"}}}
	err := bad.Check()
	for _, want := range []string{`host "cursor"`, "transcript", "exactly one of lines and compactBoundary", "written", "category \"mood\"", "evidence \"x\"", "id empty or repeated", "0 evidence strings"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check of a broken case: %v: want it to name %q", err, want)
		}
	}
}

// The baselines are what they say: the tail is the last 16,000
// characters, the messages tail the last 16,000 of the messages alone, the
// hook excerpt at most 8,000 with the first and last user
// messages.
func TestBaselines(t *testing.T) {
	root := testfixtures.ModuleRoot(t)
	c := &Case{Name: "b", Host: HostClaudeCode, Transcript: "testdata/fixtures/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl", Cut: Cut{CompactBoundary: 1}, Written: "w", Facts: []Fact{{ID: "t", Category: "task", Fact: "f", Evidence: []string{"spotter-dov"}}}}
	r, err := Run(context.Background(), root, t.TempDir(), c)
	if err != nil {
		t.Fatal(err)
	}
	if n := len([]rune(r.Texts[Tail])); n != TailRunes {
		t.Errorf("tail of %d runes, want %d", n, TailRunes)
	}
	talk := r.Texts[Talk]
	// Before this boundary the messages hold fewer than 16,000 runes: the
	// messages tail is all of them, from the first instruction on.
	if n := len([]rune(talk)); n > TailRunes || !strings.HasPrefix(talk, "User: Work on bead spotter-dov") || strings.Contains(talk, "Tool call ") || strings.Contains(talk, "Tool result ") || !strings.Contains(talk, "Assistant: ") {
		t.Errorf("messages tail (%d runes, at most %d, messages only):\n%.400s", n, TailRunes, talk)
	}
	ex := r.Texts[Excerpt]
	if n := len([]rune(ex)); n > ExcerptRunes || !strings.HasPrefix(ex, "First user message:\nWork on bead spotter-dov") || !strings.Contains(ex, "Last tool calls:") {
		t.Errorf("excerpt (%d runes):\n%.400s", n, ex)
	}
	if s := r.Texts[Summary]; !strings.Contains(s, "This session is being continued from a previous conversation") {
		t.Errorf("host summary at the boundary:\n%.300s", s)
	}
	if !r.Carried[Graft][0] {
		t.Error("the tape does not name the bead the user asked for")
	}
}

// The held-out cases are scored apart: Lead asks 90 % of them and a lead
// in each of their categories, whatever the other cases carry, and the
// report prints their table and marks them in the per-handoff one.
func TestHeldOutScoredApart(t *testing.T) {
	result := func(name string, held bool, graft, talk []bool) *Result {
		c := &Case{Name: name, Host: HostClaudeCode, Cut: Cut{Lines: 1}, HeldOut: held}
		for k := range graft {
			c.Facts = append(c.Facts, Fact{ID: fmt.Sprint(k), Category: "state"})
		}
		return &Result{Case: c, Carried: map[string][]bool{Graft: graft, Excerpt: make([]bool, len(graft)), Tail: make([]bool, len(graft)), Talk: talk}}
	}
	all := func(n int, v bool) []bool {
		out := make([]bool, n)
		for k := range out {
			out[k] = v
		}
		return out
	}
	tuning := result("tuned", false, all(40, true), all(40, false))
	held := result("unseen", true, append(all(8, true), all(2, false)...), append(all(9, true), false))
	fails := strings.Join(Lead([]*Result{tuning, held}, 0.5, 0.9), "\n")
	for _, want := range []string{"80.0 % of the held-out facts: want at least 90 %", "held-out cases, state: graft 80 % is not ahead of talk 90 %"} {
		if !strings.Contains(fails, want) {
			t.Errorf("Lead: %q: want it to say %q", fails, want)
		}
	}
	if strings.Contains(fails, "all cuts") || strings.Contains(fails, "of all facts") {
		t.Errorf("Lead faults all cuts, which graft leads: %q", fails)
	}
	if l := Lead([]*Result{tuning}, 0.5, 0.9); len(l) != 0 {
		t.Errorf("Lead with no held-out case: %q", l)
	}
	tables := Tables([]*Result{tuning, held})
	if !strings.Contains(tables, "Held-out cases (1 handoffs") || !strings.Contains(tables, "| **all** | 10 | **80 %** |") || !strings.Contains(tables, "| unseen (held out) |") {
		t.Errorf("the report's held-out table or mark is missing:\n%s", tables)
	}
}

// A case can name any host graft imports (Gemini CLI and Qwen Code beside
// Claude Code and Codex): the transcript is imported as that host's, and a
// cut at a compaction finds that host's record and its summary (Qwen Code's
// chat_compression record, Gemini CLI's rewritten list holding the
// <state_snapshot>).
func TestCasesOfEveryHost(t *testing.T) {
	root := testfixtures.ModuleRoot(t)
	for _, tc := range []struct {
		host, transcript string
		cut              Cut
		evidence         string
		summary          string
	}{
		{"gemini", "importer/gemini/testdata/session-recorded.jsonl", Cut{Lines: 19}, "never touch go.sum", ""},
		{"gemini", "importer/gemini/testdata/shapes.jsonl", Cut{CompactBoundary: 1}, "", "<state_snapshot>the pager is fixed</state_snapshot>"},
		{"qwen", "importer/qwen/testdata/session.jsonl", Cut{CompactBoundary: 1}, "never change the public API of pager.go", "<overall_goal>Read notes.txt.</overall_goal>"},
	} {
		c := &Case{Name: tc.host + "-case", Host: tc.host, Transcript: tc.transcript, Cut: tc.cut, Written: "w",
			Facts: []Fact{{ID: "c1", Category: "constraint", Fact: "f", Evidence: []string{"x-y-z never said"}}}}
		if tc.evidence != "" {
			c.Facts[0].Evidence = []string{tc.evidence}
		}
		if err := c.Check(); err != nil {
			t.Errorf("%s %s: %v", tc.host, tc.transcript, err)
			continue
		}
		r, err := Run(context.Background(), root, t.TempDir(), c)
		if err != nil {
			t.Errorf("%s %s: %v", tc.host, tc.transcript, err)
			continue
		}
		if r.Events == 0 || r.TapeChars == 0 {
			t.Errorf("%s %s: %d events imported, tape of %d chars", tc.host, tc.transcript, r.Events, r.TapeChars)
		}
		if tc.evidence != "" && !r.Carried[Graft][0] {
			t.Errorf("%s %s: the tape does not carry %q:\n%.1500s", tc.host, tc.transcript, tc.evidence, r.Texts[Graft])
		}
		if s, ok := r.Texts[Summary]; tc.summary != "" && (!ok || !strings.Contains(s, tc.summary)) {
			t.Errorf("%s %s: host summary %q: want it to hold %q", tc.host, tc.transcript, s, tc.summary)
		}
	}
}

// The report gives each host its own line: a tape that serves one host's
// sessions worse than another's shows there.
func TestTablesPerHost(t *testing.T) {
	result := func(name, host string, graft []bool) *Result {
		c := &Case{Name: name, Host: host, Cut: Cut{Lines: 1}}
		for k := range graft {
			c.Facts = append(c.Facts, Fact{ID: fmt.Sprint(k), Category: "file"})
		}
		none := make([]bool, len(graft))
		return &Result{Case: c, Carried: map[string][]bool{Graft: graft, Excerpt: none, Tail: none, Talk: none}}
	}
	tables := Tables([]*Result{
		result("a", HostClaudeCode, []bool{true, true, true, false}),
		result("b", HostClaudeCode, []bool{true, true}),
		result("c", HostQwen, []bool{true, false}),
	})
	wantRows(t, "the per-host table", tables, "| host | handoffs | facts | graft | excerpt | tail | talk |", "| claude-code | 2 | 6 | **83 %** | 0 % | 0 % | 0 % |", "| qwen | 1 | 2 | **50 %** | 0 % | 0 % | 0 % |")
	if strings.Contains(tables, "| codex |") {
		t.Errorf("a host with no case has a line:\n%s", tables)
	}
}

// Gemini CLI writes the whole message list again on a resume: a list
// holding the snapshot of an earlier compression is no new compaction.
// Only a list whose <state_snapshot> differs from the last one counts.
func TestGeminiCompactionsAreNewSnapshots(t *testing.T) {
	root := t.TempDir()
	list := func(snap string) string {
		return `{"$set":{"messages":[{"id":"ctx","type":"user","content":[{"text":"<session_context>env</session_context>"}]},{"id":"s","type":"user","content":[{"text":"<state_snapshot>` + snap + `</state_snapshot>"}]},{"id":"a","type":"gemini","content":"Got it. Thanks for the additional context!"}]}}`
	}
	lines := []string{
		`{"sessionId":"3271f952-d17a-43d0-88d9-cc9f585bca21","projectHash":"cf00","startTime":"2026-12-02T05:12:05.179Z","lastUpdated":"2026-12-02T05:12:05.179Z","kind":"main"}`,
		`{"id":"u1","timestamp":"2026-12-02T05:12:05.285Z","type":"user","content":[{"text":"Fix the pager."}]}`,
		list("first: the pager is fixed"),
		`{"$set":{"sessionId":"3271f952-d17a-43d0-88d9-cc9f585bca21"}}`,
		list("first: the pager is fixed"), // a resume writes the list again
		`{"id":"u2","timestamp":"2026-12-02T06:12:05.285Z","type":"user","content":[{"text":"Now the scroller."}]}`,
		list("second: the scroller is fixed"),
	}
	if err := os.WriteFile(filepath.Join(root, "s.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := &Case{Name: "g", Host: HostGemini, Transcript: "s.jsonl", Cut: Cut{CompactBoundary: 2}}
	p, err := c.CutTranscript(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Lines) != 6 || !strings.Contains(p.HostSummary, "second: the scroller is fixed") {
		t.Errorf("compaction 2: cut after %d lines with summary %q; want 6 lines and the second snapshot", len(p.Lines), p.HostSummary)
	}
	c.Cut.CompactBoundary = 3
	if _, err := c.CutTranscript(root); err == nil || !strings.Contains(err.Error(), "has 2") {
		t.Errorf("compaction 3 of a transcript with two: %v", err)
	}
}

// A host that writes a project's instruction file into its log (Codex's
// AGENTS.md) reads it again when the export resumes (docs/DESIGN.md
// §8.3): the tape leaves it to the host. A fact the file holds reaches the
// next window whatever the candidate, and a table says how much of each
// candidate's recall that is; the first tables stay the candidates' own.
func TestRereadFacts(t *testing.T) {
	evs := []*session.Event{
		{Seq: 1, Type: session.TypeUserMessage, Source: session.Source{Kind: session.KindSystem, Name: session.SourceProjectInstructions}, Text: "# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>Commits use Conventional Commits.</INSTRUCTIONS>"},
		{Seq: 2, Type: session.TypeUserMessage, Source: session.Source{Kind: session.KindSystem, Name: "environment-context"}, Text: "<environment_context>sandbox workspace-write</environment_context>"},
		{Seq: 3, Type: session.TypeUserMessage, Source: session.Source{Kind: session.KindUser}, Text: "Keep the API under 10 endpoints."},
	}
	facts := []Fact{
		{ID: "c1", Category: "constraint", Evidence: []string{"conventional commits"}},
		{ID: "c2", Category: "constraint", Evidence: []string{"workspace-write"}},                      // context the host writes anew
		{ID: "c3", Category: "constraint", Evidence: []string{"under 10 endpoints"}},                   // the person's words
		{ID: "c4", Category: "constraint", Evidence: []string{"conventional commits", "10 endpoints"}}, // not all in the file
	}
	if got, want := Reread(facts, evs), []bool{true, false, false, false}; !slices.Equal(got, want) {
		t.Fatalf("Reread = %v, want %v", got, want)
	}

	c := &Case{Name: "a", Host: HostCodex, Cut: Cut{Lines: 1}, Facts: facts}
	r := &Result{Case: c, Reread: []bool{true, false, false, false}, Carried: map[string][]bool{
		Graft:   {false, true, true, false},
		Excerpt: {true, false, false, false},
		Tail:    {false, false, false, false},
		Talk:    {false, false, true, false},
	}}
	held := &Result{Case: &Case{Name: "b", Host: HostCodex, Cut: Cut{Lines: 1}, HeldOut: true, Facts: facts[:2]}, Reread: []bool{true, false},
		Carried: map[string][]bool{Graft: {false, false}, Excerpt: {false, false}, Tail: {false, false}, Talk: {false, false}}}
	tables := Tables([]*Result{r, held})
	wantRows(t, "the tables", tables,
		"| cases | facts | the host reads again | graft | excerpt | tail | talk |",
		"| all | 6 | 2 | **67 %** | 33 % | 33 % | 50 % |",
		"| tuning | 4 | 1 | **75 %** | 25 % | 25 % | 50 % |",
		"| held out | 2 | 1 | **50 %** | 50 % | 50 % | 50 % |",
		// The candidates' own tables do not count them.
		"| **all** | 6 | **33 %** | **17 %** | **0 %** | **17 %** |",
	)
	// Without a host that reads a file again, no such table.
	r.Reread, held.Reread = make([]bool, 4), make([]bool, 2)
	if tables := Tables([]*Result{r, held}); strings.Contains(tables, "the host reads again") {
		t.Errorf("a table of facts the host reads again with none:\n%s", tables)
	}
}

// The hooks the excerpt stands for read the transcript's user lines: the
// message Claude Code starts a cleared context with when the person
// approves a plan ("Implement the following plan: …") is one to them, the
// first user message, though graft imports it as the host's
// (plan-approved); the other words the host writes are not.
func TestTheExcerptTakesAnApprovedPlanForAUserMessage(t *testing.T) {
	ev := func(seq int64, typ string, src session.Source, text string) *session.Event {
		return &session.Event{Seq: seq, Type: typ, Source: src, Text: text}
	}
	evs := []*session.Event{
		ev(1, session.TypeUserMessage, session.Source{Kind: session.KindSystem, Name: "plan-approved"}, "Implement the following plan:\n\n# Plan: Docker runtime"),
		ev(2, session.TypeUserMessage, session.Source{Kind: session.KindSystem, Name: "task-notification"}, "<task-notification>done</task-notification>"),
		ev(3, session.TypeUserMessage, session.Source{Kind: session.KindUser}, "no backwards compatibility"),
	}
	ex := HookExcerpt(evs)
	if !strings.HasPrefix(ex, "First user message:\nImplement the following plan:") || strings.Contains(ex, "task-notification") || !strings.Contains(ex, "- no backwards compatibility") {
		t.Errorf("excerpt:\n%s", ex)
	}
}

// The facts a baseline carries and graft's tape misses are counted per
// baseline and for any of them, over all cuts, the tuning and the held-out
// ones: what a handoff simpler than the tape keeps at the same budget and
// the tape does not (per category the tape leads; per fact it does not
// always). The summary counts only where it was scored, at a compaction.
func TestTheFactsOnlyABaselineCarriesAreCounted(t *testing.T) {
	facts := []Fact{
		{ID: "a", Category: "state", Evidence: []string{"x"}},
		{ID: "b", Category: "state", Evidence: []string{"y"}},
		{ID: "c", Category: "decision", Evidence: []string{"z"}},
	}
	r := &Result{Case: &Case{Name: "a", Host: HostCodex, Cut: Cut{Lines: 1}, Facts: facts}, Carried: map[string][]bool{
		Graft:   {true, false, false},
		Excerpt: {true, true, false}, // a: graft has it too; b: only the baseline
		Tail:    {false, true, true},
		Talk:    {false, false, true},
	}}
	compact := &Result{Case: &Case{Name: "b", Host: HostClaudeCode, Cut: Cut{CompactBoundary: 1}, Facts: facts}, Carried: map[string][]bool{
		Graft:   {false, true, false},
		Excerpt: {false, false, false},
		Tail:    {false, false, false},
		Talk:    {false, false, false},
		Summary: {true, true, false},
	}}
	held := &Result{Case: &Case{Name: "c", Host: HostCodex, Cut: Cut{Lines: 1}, HeldOut: true, Facts: facts[:1]}, Carried: map[string][]bool{
		Graft: {false}, Excerpt: {false}, Tail: {false}, Talk: {true},
	}}
	tables := Tables([]*Result{r, compact, held})
	wantRows(t, "the tables", tables,
		"| cases | graft misses | the excerpt has | the tail has | the talk has | the summary has | one of them has |",
		"| all | 5 | 1 | 2 | 2 | 1 | 4 |",
		"| tuning | 4 | 1 | 2 | 1 | 1 | 3 |",
		"| held out | 1 | 0 | 0 | 1 | – | 1 |",
	)
}

// A fact graft's tape misses is counted by how much of its evidence the
// tape holds: part of it (the topic named, a detail missing: one string
// of two) or none; a fact it carries is no miss, and a fact of one
// evidence string is never a partial miss.
func TestTheMissesTheTapeHoldsInPartAreCounted(t *testing.T) {
	facts := []Fact{
		{ID: "a", Category: "state", Evidence: []string{"alpha", "beta"}},   // carried
		{ID: "b", Category: "state", Evidence: []string{"alpha", "gamma"}},  // part: alpha
		{ID: "c", Category: "decision", Evidence: []string{"delta", "eps"}}, // none
		{ID: "d", Category: "file", Evidence: []string{"zeta"}},             // none
	}
	tape := "We did ALPHA and then beta."
	r := &Result{Case: &Case{Name: "a", Host: HostCodex, Cut: Cut{Lines: 1}, Facts: facts}, Texts: map[string]string{Graft: tape}}
	held := &Result{Case: &Case{Name: "b", Host: HostCodex, Cut: Cut{Lines: 1}, HeldOut: true, Facts: facts}, Texts: map[string]string{Graft: "gamma only"}}
	for _, x := range []*Result{r, held} {
		x.Score()
	}
	if got, want := r.Carried[Graft], []bool{true, false, false, false}; !slices.Equal(got, want) {
		t.Fatalf("carried %v, want %v", got, want)
	}
	if got, want := r.Partial, []bool{false, true, false, false}; !slices.Equal(got, want) {
		t.Errorf("partial %v, want %v", got, want)
	}
	tables := Tables([]*Result{r, held})
	wantRows(t, "the tables", tables,
		"| cases | graft misses | the tape holds part of the evidence | the tape holds none of it |",
		"| all | 7 | 2 | 5 |",
		"| tuning | 3 | 1 | 2 |",
		"| held out | 4 | 1 | 3 |",
	)
}

// wantRows fails t for each of rows that got, what a table or tables
// print, does not hold.
func wantRows(t *testing.T, what, got string, rows ...string) {
	t.Helper()
	for _, want := range rows {
		if !strings.Contains(got, want) {
			t.Errorf("%s: no %q in:\n%s", what, want, got)
		}
	}
}
