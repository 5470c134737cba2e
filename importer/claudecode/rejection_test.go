package claudecode

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/graft-project/graft/internal/testfixtures"
	"github.com/graft-project/graft/session"
)

// testdata/rejection-2.1.332.jsonl holds the lines the real interactive
// Claude Code 2.1.332 wrote when the person declined a Bash call and said
// what to do instead (internal/hosttest's
// TestExploreClaudeRejectionFeedback; paths shortened): the words come
// only inside the tool's result, after "To tell you how to proceed, the
// user said:", and the model goes on in the same turn. They are the
// person's instruction, imported after the result.
func TestRejectionFeedbackIsThePersonsInstruction(t *testing.T) {
	st, home := testfixtures.NewStore(t)
	sum, err := Import(Options{Store: st, Home: home, Path: "testdata/rejection-2.1.332.jsonl", ID: "rej"})
	if err != nil {
		t.Fatal(err)
	}
	if sum.WarningCount != 0 {
		t.Errorf("warnings: %q", sum.Warnings)
	}
	evs := testfixtures.ReadSession(t, st, "rej")
	var humans []session.Event
	result := -1
	for k, ev := range evs {
		if ev.IsHumanInstruction() {
			humans = append(humans, ev)
		}
		if ev.Type == session.TypeToolResult && ev.Tool.Name == "Bash" {
			result = k
		}
	}
	if len(humans) != 2 || humans[0].Text != "Add left-pad." || humans[1].Text != "Use pnpm, not npm." {
		t.Fatalf("human instructions %+v, want the prompt and the words of the rejection", humans)
	}
	if got := humans[1].Source; got != (session.Source{Kind: session.KindUser, Name: "rejection-feedback"}) {
		t.Errorf("the rejection's words have source %+v", got)
	}
	if result < 0 || evs[result].Tool.OK == nil || *evs[result].Tool.OK || humans[1].Seq != evs[result].Seq+1 {
		t.Errorf("the words do not follow the failed result: result at %d, words at seq %d", result, humans[1].Seq)
	}
	// A rejection without words is no instruction.
	if words, ok := rejectionFeedback("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed."); ok {
		t.Errorf("a bare rejection gave words %q", words)
	}
}

// A call the person declined did not run: its result carries meta declined
// (session.MetaDeclined), with the person's words or without them (2.1.38
// wrote the bare one in testdata/fixtures/claude-code/short.jsonl; the
// pinned 2.1.332's binary holds both). A failed call is not declined.
func TestADeclinedCallIsMarkedDeclined(t *testing.T) {
	st, home := testfixtures.NewStore(t)
	if _, err := Import(Options{Store: st, Home: home, Path: "testdata/rejection-2.1.332.jsonl", ID: "rej"}); err != nil {
		t.Fatal(err)
	}
	if _, err := Import(Options{Store: st, Home: home, Path: "../../testdata/fixtures/claude-code/short.jsonl", ID: "short"}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"rej", "short"} {
		declined, failed := 0, 0
		for _, ev := range testfixtures.ReadSession(t, st, id) {
			if ev.Type != session.TypeToolResult || ev.OKResult() {
				continue
			}
			bare := strings.HasPrefix(ev.Tool.Output, "The user doesn't want to proceed with this tool use.")
			if ev.Declined() != bare {
				t.Errorf("%s seq %d: declined %v, output %.80q", id, ev.Seq, ev.Declined(), ev.Tool.Output)
			}
			if ev.Declined() {
				declined++
				if ev.Meta[session.MetaDeclined] != "user" {
					t.Errorf("%s seq %d: meta declined %q", id, ev.Seq, ev.Meta[session.MetaDeclined])
				}
			} else {
				failed++
			}
		}
		if declined == 0 {
			t.Errorf("%s: no declined call (failed %d)", id, failed)
		}
	}
}

// A call the person stopped while it ran (Esc) gets "The user doesn't want
// to take this action right now. STOP …" (the pinned 2.1.332's binary
// holds it): it may have run in part, so its result carries meta declined
// "stopped", not "user". Claude Code's other words for a call that did not
// finish ("[Tool call skipped: …]", "[Tool call interrupted: the session
// ended …]") are no decline of the person's.
func TestAStoppedCallIsMarkedStopped(t *testing.T) {
	results := map[string]string{
		"The user doesn't want to take this action right now. STOP what you are doing and wait for the user to tell you how to proceed.":                                                                                                    session.DeclinedStopped,
		"The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.": session.DeclinedByUser,
		"[Tool call interrupted: the session ended before this call's result was recorded, so its outcome is unknown. Check whether it took effect before relying on it or running it again.]":                                              "",
		"Exit code 1\nnpm ERR! missing script: build": "",
	}
	lines := []string{`{"type":"user","uuid":"u1","cwd":"/r","timestamp":"2026-02-12T20:00:00.000Z","message":{"role":"user","content":"Build it."}}`}
	k := 0
	for out := range results {
		k++
		id := "toolu_" + string(rune('a'+k))
		content, _ := json.Marshal(out)
		lines = append(lines,
			fmt.Sprintf(`{"type":"assistant","uuid":"a%d","cwd":"/r","timestamp":"2026-02-12T20:00:0%d.000Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"%s","name":"Bash","input":{"command":"npm run build"}}]}}`, k, k, id),
			fmt.Sprintf(`{"type":"user","uuid":"r%d","cwd":"/r","timestamp":"2026-02-12T20:00:0%d.500Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"%s","content":%s,"is_error":true}]}}`, k, k, id, content))
	}
	seen := 0
	for _, ev := range importLines(t, "stop", lines) {
		if ev.Type != session.TypeToolResult {
			continue
		}
		seen++
		if want, got := results[ev.Tool.Output], ev.Meta[session.MetaDeclined]; got != want {
			t.Errorf("%.60q: declined %q, want %q", ev.Tool.Output, got, want)
		}
	}
	if seen != len(results) {
		t.Errorf("%d results, want %d", seen, len(results))
	}
}
