package tape

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

// Event constructors for hand-written sessions. Seqs are assigned by seqd.

func human(text string) session.Event {
	return session.Event{Type: session.TypeUserMessage, Source: session.Source{Kind: session.KindUser}, Text: text}
}

func injected(kind, name, text string) session.Event {
	return session.Event{Type: session.TypeUserMessage, Source: session.Source{Kind: kind, Name: name}, Text: text}
}

func say(text string) session.Event {
	return session.Event{Type: session.TypeAssistantMessage, Source: session.Source{Kind: session.KindAssistant}, Text: text}
}

func call(name, id, input string) session.Event {
	var in json.RawMessage
	if input != "" {
		in = json.RawMessage(input)
	}
	return session.Event{Type: session.TypeToolCall, Source: session.Source{Kind: session.KindAssistant}, Tool: &session.Tool{Name: name, CallID: id, Input: in}}
}

func result(name, id string, ok bool, output string) session.Event {
	return session.Event{Type: session.TypeToolResult, Source: session.Source{Kind: session.KindTool}, Tool: &session.Tool{Name: name, CallID: id, OK: &ok, Output: output}}
}

func todoWrite(items ...session.Todo) session.Event {
	return session.Event{Type: session.TypeTodoWrite, Source: session.Source{Kind: session.KindAssistant}, Todos: items}
}

func todo(id, content, status string) session.Todo {
	return session.Todo{ID: id, Content: content, Status: status}
}

func subagent(agent, text string) session.Event {
	return session.Event{Type: session.TypeSubagentReport, Source: session.Source{Kind: session.KindSubagent}, Agent: agent, Text: text}
}

func origin(gen int, parent string, boundary int64, inherit *session.Inherited) session.Event {
	return session.Event{Type: session.TypeGraftOrigin, Source: session.Source{Kind: session.KindPlugin, Name: "graft"}, Txn: "txn-" + parent, Parent: parent, ParentBoundary: boundary, Generation: gen, Inherit: inherit}
}

// seqd numbers events from 1 and fills ts.
func seqd(evs ...session.Event) []session.Event {
	out := make([]session.Event, len(evs))
	for k, ev := range evs {
		ev.Seq = int64(k + 1)
		ev.TS = "2025-03-03T09:00:00.000Z"
		out[k] = ev
	}
	return out
}

// rawLine is the log line of ev without its '\n', as the store writes it.
func rawLine(t testing.TB, ev *session.Event) []byte {
	t.Helper()
	b, err := session.Encode(ev)
	if err != nil {
		t.Fatalf("encoding seq %d: %v", ev.Seq, err)
	}
	return bytes.TrimSuffix(b, []byte("\n"))
}

// fold adds evs to a new builder for id.
func fold(t testing.TB, id string, evs []session.Event) *Builder {
	t.Helper()
	b := NewBuilder(id)
	for k := range evs {
		if err := b.Add(&evs[k], rawLine(t, &evs[k])); err != nil {
			t.Fatalf("Add seq %d: %v", evs[k].Seq, err)
		}
	}
	return b
}

// build folds evs and builds the tape.
func build(t testing.TB, id string, evs []session.Event, opts Options, leftovers []Leftover) *Tape {
	t.Helper()
	tp, err := fold(t, id, evs).Build(opts, leftovers)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return tp
}

// linesUpTo is head, then format filled with 0, 1, 2 … (one line each)
// until the text is n bytes or more: a long paste, log or report.
func linesUpTo(head, format string, n int) string {
	var b strings.Builder
	b.WriteString(head)
	for k := 0; b.Len() < n; k++ {
		fmt.Fprintf(&b, format, k)
	}
	return b.String()
}

// containsAll fails t for each of wants that text, the block what, lacks.
func containsAll(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
}
