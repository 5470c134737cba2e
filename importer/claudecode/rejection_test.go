package claudecode

import (
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
