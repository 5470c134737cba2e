package graft_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/session"
)

// editEvent rewrites the event of seq in id's log through edit.
func (h *lineageHome) editEvent(id string, seq int64, edit func(ev *session.Event)) {
	h.t.Helper()
	h.editLine(id, seq, func(line []byte) []byte {
		var ev session.Event
		for _, ev0 := range h.events(id) {
			if ev0.Seq == seq {
				ev = ev0
			}
		}
		edit(&ev)
		b, err := session.Encode(&ev)
		if err != nil {
			h.t.Fatal(err)
		}
		return bytes.TrimSuffix(b, []byte("\n"))
	})
}

// auditChain is p (generation 1: constraints at seq 1 and seq 3) grafted
// into p.g2, which adds one of its own.
func auditChain(t *testing.T) *lineageHome {
	h := openLineageHome(t)
	h.add("p",
		said("Plan: write the recovery scan. Never delete a session log."),
		replied("Reading recovery.go."),
		said("Also: always fsync the directory."),
		replied("Done."),
	)
	h.graftOnce("p", false)
	h.add("p.g2", said("Next: only touch recovery/."))
	return h
}

// TestAuditFindsEveryKindOfBrokenOrigin breaks the chain one way at a
// time; the audit names exactly the origins that broke, and how.
func TestAuditFindsEveryKindOfBrokenOrigin(t *testing.T) {
	const (
		neverDelete = "Never delete a session log. @ gen 1 p seq=1"
		fsyncDir    = "Also: always fsync the directory. @ gen 1 p seq=3"
	)
	cases := []struct {
		name    string
		breakIt func(t *testing.T, h *lineageHome)
		failed  []string
		problem string // prefix of the first failed check's problem
	}{
		{"intact", func(*testing.T, *lineageHome) {}, nil, ""},
		{"one byte of the text", func(t *testing.T, h *lineageHome) {
			h.editLine("p", 1, replaceOnce(t, "session", "sessiun"))
		}, []string{neverDelete}, "text mismatch: seq 1 of p no longer contains the constraint; it reads \"Plan: write the recovery scan. Never delete a sessiun log.\""},
		{"source is no longer the user", func(t *testing.T, h *lineageHome) {
			h.editLine("p", 3, replaceOnce(t, `"kind":"user"`, `"kind":"tool"`))
		}, []string{fsyncDir}, `not a human instruction: seq 3 of p is an event of type user/message from source.kind "tool"`},
		{"text carries the graft marker", func(t *testing.T, h *lineageHome) {
			h.editEvent("p", 3, func(ev *session.Event) { ev.Text = session.GraftMarker + " 00000000] " + ev.Text })
		}, []string{fsyncDir}, `not a human instruction: seq 3 of p is an event of type user/message from source.kind "user" carrying the graft marker`},
		{"ancestor log removed", func(t *testing.T, h *lineageHome) {
			if err := os.Remove(h.svc.Store().Path("p")); err != nil {
				t.Fatal(err)
			}
		}, []string{neverDelete, fsyncDir}, "missing ancestor: session p has no log"},
		{"origin event cut off", func(t *testing.T, h *lineageHome) {
			path := h.svc.Store().Path("p")
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			lines := bytes.SplitAfter(data, []byte("\n"))
			if err := os.WriteFile(path, bytes.Join(lines[:2], nil), session.FileMode); err != nil {
				t.Fatal(err)
			}
		}, []string{fsyncDir}, "missing event: p has seqs 1..2, no seq 3"},
		{"corrupt line before the origin", func(t *testing.T, h *lineageHome) {
			path := h.svc.Store().Path("p")
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			lines := bytes.SplitAfter(data, []byte("\n"))
			lines[1] = []byte("{\"seq\":2,\n")
			if err := os.WriteFile(path, bytes.Join(lines, nil), session.FileMode); err != nil {
				t.Fatal(err)
			}
		}, []string{fsyncDir}, "unreadable: seq 3 of p: session: corrupt log "},
		{"origin moved to a session outside the lineage", func(t *testing.T, h *lineageHome) {
			h.add("stranger", said("Plan: write the recovery scan. Never delete a session log."))
			h.editEvent("p.g2", 1, func(ev *session.Event) { ev.Inherit.Constraints[0].Origin.Session = "stranger" })
		}, []string{"Never delete a session log. @ gen 1 stranger seq=1"}, "not an ancestor: stranger is not p.g2 or one of its ancestors (p.g2 ← p)"},
		{"origin names the wrong generation", func(t *testing.T, h *lineageHome) {
			h.editEvent("p.g2", 1, func(ev *session.Event) { ev.Inherit.Constraints[1].Origin.Generation = 3 })
		}, []string{"Also: always fsync the directory. @ gen 3 p seq=3"}, "generation mismatch: p is generation 1 in the lineage of p.g2, the origin says 3"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := auditChain(t)
			tc.breakIt(t, h)
			rep := h.audit("p.g2")
			if len(rep.Constraints) != 3 {
				t.Fatalf("audit of p.g2 has %d constraints, want 3:\n%s", len(rep.Constraints), jsonOf(rep))
			}
			failed := failedChecks(rep)
			if !reflect.DeepEqual(failed, tc.failed) {
				t.Fatalf("failed checks %q, want %q\n%s", failed, tc.failed, jsonOf(rep))
			}
			err := rep.Err()
			if len(tc.failed) == 0 {
				if !rep.OK || err != nil {
					t.Fatalf("intact chain: ok=%v err=%v", rep.OK, err)
				}
				return
			}
			if rep.OK || !errors.Is(err, graft.ErrAuditFailed) {
				t.Fatalf("ok=%v err=%v; want a failed audit", rep.OK, err)
			}
			var problem string
			for _, c := range rep.Constraints {
				for _, k := range c.Checks {
					if !k.OK && problem == "" {
						problem = k.Problem
					}
				}
			}
			if !strings.HasPrefix(problem, tc.problem) {
				t.Errorf("problem %q, want it to start with %q", problem, tc.problem)
			}
			if !strings.Contains(err.Error(), problem) {
				t.Errorf("error %q does not carry the problem %q", err, problem)
			}
		})
	}
}

func TestAuditWithoutConstraintsPasses(t *testing.T) {
	h := openLineageHome(t)
	h.add("plain", said("Refactor the scanner."))
	rep := h.audit("plain")
	if !rep.OK || rep.Err() != nil || len(rep.Constraints) != 0 || rep.Generation != 1 {
		t.Fatalf("audit: %s", jsonOf(rep))
	}
}

func TestAuditOfAMissingSessionIsAnError(t *testing.T) {
	h := openLineageHome(t)
	if _, err := h.svc.Audit("nobody"); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("Audit(nobody): %v, want session.ErrNotFound", err)
	}
	if _, err := h.svc.Audit("../etc"); !errors.Is(err, session.ErrInvalidID) {
		t.Fatalf("Audit(../etc): %v, want session.ErrInvalidID", err)
	}
}

// TestRecallOriginReportsABrokenCitation: following a tape's citations
// re-reads them, so a tampered ancestor shows there too.
func TestRecallOriginReportsABrokenCitation(t *testing.T) {
	h := auditChain(t)
	h.editLine("p", 1, replaceOnce(t, "session", "sessiun"))
	r, err := h.svc.RecallOrigin("p.g2", 1)
	if err != nil {
		t.Fatal(err)
	}
	if r.Cites != "tape" || len(r.Origins) != 2 || r.Failed() != 1 {
		t.Fatalf("RecallOrigin(p.g2, 1): %s", jsonOf(r))
	}
	o := r.Origins[0]
	if o.Origin != (session.Origin{Generation: 1, Session: "p", Seq: 1}) || o.OK || !strings.HasPrefix(o.Problem, "text mismatch: seq 1 of p") {
		t.Fatalf("first origin: %s", jsonOf(o))
	}
	if !reflect.DeepEqual(o.CitedBy, []string{"first goal", "constraint: Never delete a session log."}) {
		t.Errorf("cited by %q", o.CitedBy)
	}
	// An event after the tape is not part of it.
	last := h.events("p.g2")
	if _, err := h.svc.RecallOrigin("p.g2", int64(len(last)+1)); !errors.Is(err, graft.ErrNoSuchSeq) {
		t.Errorf("RecallOrigin past the end: %v, want ErrNoSuchSeq", err)
	}
}

// The person's instructions after the first that a target hands on
// (inherit.said) are origins its tape cites, as the first goal is:
// following the tape's citations re-reads them, and graft audit tells a
// changed line of one (relies records its line digest).
func TestRecallOriginFollowsTheInstructionsHandedOn(t *testing.T) {
	h := openLineageHome(t)
	h.add("q",
		said("Write the exporter for the sessions table."),
		replied("Written."),
		said("Add a --json flag to it."),
		replied("Done."),
	)
	h.graftOnce("q", false)
	if r, got := citedOrigin(t, h, "q.g2", session.Origin{Generation: 1, Session: "q", Seq: 3}); got == nil || !got.OK || !reflect.DeepEqual(got.CitedBy, []string{"instruction"}) {
		t.Fatalf("RecallOrigin(q.g2, 1) does not follow seq 3 as an instruction: %s", jsonOf(r))
	}
	if rep := h.audit("q.g2"); !rep.OK {
		t.Fatalf("audit of the intact chain failed: %s", jsonOf(rep))
	}
	h.editLine("q", 3, replaceOnce(t, "json", "jsom"))
	rep := h.audit("q.g2")
	err := rep.Err()
	if rep.OK || !errors.Is(err, graft.ErrAuditFailed) || !strings.Contains(err.Error(), "changed: gen 1 q seq 3: the line is not the one a graft relied on as a cited origin") {
		t.Fatalf("a changed line of a handed-on instruction: ok=%v err=%v\n%s", rep.OK, err, jsonOf(rep))
	}
}

// The person's answer to the assistant's question, handed on among the
// instructions (inherit.said, answer), is followed to the tool result
// that carries it and checked as such: the answer tool's successful
// result. Before, the audit reported it "not a human instruction".
func TestRecallOriginFollowsAnAnswerHandedOn(t *testing.T) {
	h := openLineageHome(t)
	h.add("q",
		said("Install the integration."),
		session.Event{Type: session.TypeToolCall, Source: session.Source{Kind: session.KindAssistant}, Tool: &session.Tool{Name: "AskUserQuestion", CallID: "a1", Input: json.RawMessage(`{"questions":[]}`)}},
		session.Event{Type: session.TypeToolResult, Source: session.Source{Kind: session.KindTool}, Tool: &session.Tool{Name: "AskUserQuestion", CallID: "a1", OK: boolPtr(true), Output: `User has answered your questions: "Hooks?"="Leave them alone".`}},
		replied("Leaving them alone."),
		session.Event{Type: session.TypeToolCall, Source: session.Source{Kind: session.KindAssistant}, Tool: &session.Tool{Name: "Bash", CallID: "b1", Input: json.RawMessage(`{"command":"ls"}`)}},
		session.Event{Type: session.TypeToolResult, Source: session.Source{Kind: session.KindTool}, Tool: &session.Tool{Name: "Bash", CallID: "b1", OK: boolPtr(true), Output: "a.go"}},
	)
	h.graftOnce("q", false)
	at3 := session.Origin{Generation: 1, Session: "q", Seq: 3}
	if r, got := citedOrigin(t, h, "q.g2", at3); got == nil || !got.OK || !reflect.DeepEqual(got.CitedBy, []string{"answer"}) {
		t.Fatalf("RecallOrigin(q.g2, 1) does not follow seq 3 as an answer: %s", jsonOf(r))
	}
	if rep := h.audit("q.g2"); !rep.OK {
		t.Fatalf("audit of the intact chain failed: %s", jsonOf(rep))
	}
	// The event at that seq no longer an answer: the origin fails.
	h.editLine("q", 3, replaceOnce(t, "AskUserQuestion", "Bash"))
	if r, got := citedOrigin(t, h, "q.g2", at3); got == nil || got.OK || !strings.Contains(got.Problem, "not an answer of the person's: seq 3 of q") {
		t.Fatalf("an origin that is no answer any more: %s", jsonOf(r))
	}
}

// citedOrigin is RecallOrigin(id, 1) and the origin o among those it
// cites (nil when it cites no o).
func citedOrigin(t *testing.T, h *lineageHome, id string, o session.Origin) (*graft.OriginRecall, *graft.CitedOrigin) {
	t.Helper()
	r, err := h.svc.RecallOrigin(id, 1)
	if err != nil {
		t.Fatal(err)
	}
	for k := range r.Origins {
		if r.Origins[k].Origin == o {
			return r, &r.Origins[k]
		}
	}
	return r, nil
}

func boolPtr(b bool) *bool { return &b }
