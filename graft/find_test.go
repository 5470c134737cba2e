package graft_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/session"
)

func findSeqs(r *graft.FindResult) []int64 {
	var out []int64
	for _, m := range r.Matches {
		out = append(out, m.Seq)
	}
	return out
}

// Find lists the events that hold every word, case folded, newest first:
// the person's words, the assistant's, a call's input (its decoded
// strings: a file written is searched as its text, not its JSON), a
// result's output and the todos.
func TestFindMatchesEveryWordNewestFirst(t *testing.T) {
	h := openFlowHome(t, graft.Options{})
	h.create("s", workSession()...)
	for _, c := range []struct {
		words []string
		want  []int64
	}{
		{[]string{"store_test.go"}, []int64{9, 8, 7}},
		{[]string{"STORE_TEST.GO", "run"}, []int64{7}},      // both words, either case
		{[]string{"package", "store"}, []int64{9, 4}},       // a write's content, a read's output
		{[]string{"recovery", "test"}, []int64{5, 1}},       // the todo list, the person's words
		{[]string{"next.\n\nRunning"}, []int64{11}},         // white space splits words: both, anywhere
		{[]string{"retire", "never", "delete"}, []int64{1}}, // order does not matter
		{[]string{"nothing-like-this"}, nil},                // no match: none, no error
	} {
		r, err := h.svc.Find(context.Background(), "s", graft.FindQuery{Words: c.words})
		if err != nil {
			t.Fatalf("Find(%q): %v", c.words, err)
		}
		if got := findSeqs(r); !slices.Equal(got, c.want) {
			t.Errorf("Find(%q) = %v, want %v", c.words, got, c.want)
		}
		if r.Total != len(c.want) {
			t.Errorf("Find(%q).Total = %d, want %d", c.words, r.Total, len(c.want))
		}
	}
}

// Each match says what the event is and shows the words in their place:
// a snippet around the first word's first occurrence, on one line.
func TestFindSnippet(t *testing.T) {
	h := openFlowHome(t, graft.Options{})
	long := strings.Repeat("padding words before ", 20) + "the DECISION: keep one queue\nfor all workers " + strings.Repeat("and more after ", 20)
	h.create("s", humanMsg("start"), assistantMsg(long), toolCall("Bash", "c1", `{"command":"make queue-test"}`))
	r, err := h.svc.Find(context.Background(), "s", graft.FindQuery{Words: []string{"decision", "queue"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Matches) != 1 {
		t.Fatalf("matches %+v", r.Matches)
	}
	m := r.Matches[0]
	if m.Seq != 2 || m.Type != session.TypeAssistantMessage || m.Source != session.KindAssistant {
		t.Fatalf("match %+v", m)
	}
	if !strings.Contains(m.Snippet, "the DECISION: keep one queue⏎for all workers") || !strings.HasPrefix(m.Snippet, "…") || !strings.HasSuffix(m.Snippet, "…") {
		t.Fatalf("snippet %q", m.Snippet)
	}
	if n := len([]rune(m.Snippet)); n != 2*graft.FindSnippetRunes+len("decision")+2 {
		t.Fatalf("snippet of %d runes: %q", n, m.Snippet)
	}
	r, err = h.svc.Find(context.Background(), "s", graft.FindQuery{Words: []string{"queue-test"}})
	if err != nil || len(r.Matches) != 1 || r.Matches[0].Tool != "Bash" || r.Matches[0].Snippet != `make queue-test` {
		t.Fatalf("a call's match: %+v, %v", r, err)
	}
}

// Limit keeps the newest matches and Older names the seq to go on from;
// Before starts below a seq; Total counts every match below Before.
func TestFindPages(t *testing.T) {
	h := openFlowHome(t, graft.Options{})
	var evs []session.Event
	for range 7 {
		evs = append(evs, humanMsg("again the flaky test"), assistantMsg("ok"))
	}
	h.create("s", evs...)
	r, err := h.svc.Find(context.Background(), "s", graft.FindQuery{Words: []string{"flaky"}, Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := findSeqs(r); !slices.Equal(got, []int64{13, 11, 9}) || r.Total != 7 || r.Older != 9 {
		t.Fatalf("first page: %v, total %d, older %d", got, r.Total, r.Older)
	}
	r, err = h.svc.Find(context.Background(), "s", graft.FindQuery{Words: []string{"flaky"}, Limit: 3, Before: r.Older})
	if err != nil {
		t.Fatal(err)
	}
	if got := findSeqs(r); !slices.Equal(got, []int64{7, 5, 3}) || r.Total != 4 || r.Older != 3 {
		t.Fatalf("second page: %v, total %d, older %d", got, r.Total, r.Older)
	}
	r, err = h.svc.Find(context.Background(), "s", graft.FindQuery{Words: []string{"flaky"}, Limit: 3, Before: r.Older})
	if err != nil {
		t.Fatal(err)
	}
	if got := findSeqs(r); !slices.Equal(got, []int64{1}) || r.Total != 1 || r.Older != 0 {
		t.Fatalf("last page: %v, total %d, older %d", got, r.Total, r.Older)
	}
}

// A query without a word, a limit out of range and a session that does
// not exist are errors the caller can tell apart; a cancelled context
// stops the read.
func TestFindRefusals(t *testing.T) {
	h := openFlowHome(t, graft.Options{})
	h.create("s", workSession()...)
	if _, err := h.svc.Find(context.Background(), "s", graft.FindQuery{Words: []string{" ", ""}}); !errors.Is(err, graft.ErrInvalidQuery) {
		t.Fatalf("no word: %v", err)
	}
	if _, err := h.svc.Find(context.Background(), "s", graft.FindQuery{Words: []string{"x"}, Limit: graft.MaxFindLimit + 1}); !errors.Is(err, graft.ErrInvalidQuery) {
		t.Fatalf("limit past the most: %v", err)
	}
	if _, err := h.svc.Find(context.Background(), "s", graft.FindQuery{Words: []string{"x"}, Before: -1}); !errors.Is(err, graft.ErrInvalidQuery) {
		t.Fatalf("a negative before: %v", err)
	}
	if _, err := h.svc.Find(context.Background(), "nope", graft.FindQuery{Words: []string{"x"}}); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("missing session: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := h.svc.Find(ctx, "s", graft.FindQuery{Words: []string{"store"}}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}

// A graft target's result names the session it continues: what its tape
// did not carry is in that log, which Find searches when asked; a session
// nobody grafted into names none.
func TestFindNamesTheSessionATargetContinues(t *testing.T) {
	h := openFlowHome(t, graft.Options{})
	h.create("s", workSession()...)
	res := h.commit(h.prepare("s", graft.PrepareOptions{}), "")
	r, err := h.svc.Find(context.Background(), res.TargetID, graft.FindQuery{Words: []string{"store"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Continues != "s" || r.Total == 0 {
		t.Fatalf("Find in the target %s: continues %q, %d matches", res.TargetID, r.Continues, r.Total)
	}
	r, err = h.svc.Find(context.Background(), "s", graft.FindQuery{Words: []string{"store"}})
	if err != nil || r.Continues != "" {
		t.Fatalf("Find in the source: continues %q, %v", r.Continues, err)
	}
}
