package codex

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/internal/testfixtures"
	"github.com/graft-project/graft/session"
)

// Codex writes each assistant message twice, its UI's event_msg
// agent_message first and the response_item the model sees a few lines
// later. A turn the person interrupts in between has only the first: the
// person read the message (and often answers it), the model's history
// never got it. Seen in a real 0.36 rollout: an agent_message, then
// turn_aborted, then the person's reply to it.

func (b *rolloutBuilder) shown(text string) *rolloutBuilder {
	return b.add("event_msg", map[string]any{"type": "agent_message", "message": text})
}

func (b *rolloutBuilder) reasoningItem() *rolloutBuilder {
	return b.add("response_item", map[string]any{"type": "reasoning", "summary": []any{}, "encrypted_content": "x"})
}

// talk lists a session's messages and system events in order: "line
// kind text".
func talk(t *testing.T, st *session.Store, id string) []string {
	t.Helper()
	var out []string
	for _, ev := range testfixtures.ReadSession(t, st, id) {
		switch {
		case ev.Type == session.TypeAssistantMessage:
			out = append(out, fmt.Sprintf("%s assistant %s", ev.Meta["line"], ev.Text))
		case ev.Type == session.TypeUserMessage && ev.Source.Kind == session.KindUser:
			out = append(out, fmt.Sprintf("%s user %s", ev.Meta["line"], ev.Text))
		case ev.Type == session.TypeSystem && ev.Source.Name == "turn_aborted":
			out = append(out, fmt.Sprintf("%s turn_aborted", ev.Meta["line"]))
		}
	}
	return out
}

func shownRollout() *rolloutBuilder {
	return new(rolloutBuilder).meta().
		user("Unify the help texts.").twin("Unify the help texts.").                                  // 2, 3
		shown("I will make every help text one bilingual line.").                                     // 4
		bookkeeping().reasoningItem().                                                                // 5, 6
		assistant("I will make every help text one bilingual line.").                                 // 7: its record
		shown("Now writing the change to cli.py.").                                                   // 8: never recorded
		add("event_msg", map[string]any{"type": "turn_aborted", "reason": "interrupted"}).            // 9
		user("Put it in the docstring instead.").twin("Put it in the docstring instead.").            // 10, 11
		assistant("Moved the help into the docstrings.").shown("Moved the help into the docstrings.") // 12, 13: record first
}

func TestAMessageShownButNeverRecordedIsImported(t *testing.T) {
	p := shownRollout().write(t)
	st, home := testfixtures.NewStore(t)
	if _, err := Import(Options{Store: st, Home: home, Path: p, ID: "s"}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"2 user Unify the help texts.",
		"7 assistant I will make every help text one bilingual line.",
		"8 assistant Now writing the change to cli.py.",
		"9 turn_aborted",
		"10 user Put it in the docstring instead.",
		"12 assistant Moved the help into the docstrings.",
	}
	if got := talk(t, st, "s"); !reflect.DeepEqual(got, want) {
		t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, ev := range testfixtures.ReadSession(t, st, "s") {
		if ev.Type == session.TypeAssistantMessage && ev.Meta["line"] == "8" && ev.Meta["record"] != "event_msg agent_message" {
			t.Fatalf("the message only Codex's UI recorded does not say so: meta %v", ev.Meta)
		}
	}
}

// Cut after every line and imported again whole, the rollout gives the
// session one import gives; a run that ends with a shown message still
// waiting says so.
func TestAShownMessageAcrossResumes(t *testing.T) {
	agreeAcrossCuts(t, shownRollout(), talk, func(cut int, sum *importer.Summary) {
		if cut == 8 && !strings.Contains(strings.Join(sum.Warnings, "\n"), "line 8: an assistant message") {
			t.Fatalf("cut after line 8: the summary does not say the shown message waits:\n%s", sum.Text())
		}
	})
}
