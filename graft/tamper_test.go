package graft_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/session"
)

// tamperChain is p (generation 1) grafted at boundary seq 3 into p.g2,
// which adds an instruction and is grafted into p.g3. Seq 1 and seq 3 of p
// are cited origins; seq 2 is in p's prefix (before the boundary); seq 4
// is p's open turn, which no graft relies on.
func tamperChain(t *testing.T) *lineageHome {
	h := openLineageHome(t)
	h.add("p",
		said("Plan: write the recovery scan. Never delete a session log. Keep the diff small."),
		replied("Reading recovery.go."),
		said("Also: always fsync the directory."),
		replied("On it: the directory is fsynced after the rename."),
	)
	h.graftOnce("p", false)
	h.add("p.g2", said("Next: only touch recovery/."), replied("Touching only recovery/."))
	h.graftOnce("p.g2", false)
	return h
}

// TestAuditIsTamperEvident (issue 19, finding 4): the audit of generation
// 3 fails on any edit of generation 1 that a graft relied on: the origin
// message in case, in spacing, or in a sentence that is no constraint; the
// instruction at the boundary; any other event before the boundary. It
// names the session and the seq (for the prefix: the boundary it lies
// before). An edit of the open turn, after the boundary, passes: no graft
// relied on it.
func TestAuditIsTamperEvident(t *testing.T) {
	cases := []struct {
		name  string
		seq   int64
		old   string
		new   string
		names []string // what the error must name; none: the audit passes
	}{
		{"case of the origin message", 1, "Never delete", "never delete", []string{"p", "seq 1"}},
		{"spacing of the origin message", 1, "Never delete a session", "Never delete  a session", []string{"p", "seq 1"}},
		{"another sentence of the origin message", 1, "Keep the diff small.", "Keep the diff large.", []string{"p", "seq 1"}},
		{"the instruction at the boundary", 3, "Also: always", "Also: Always", []string{"p", "seq 3"}},
		{"another event before the boundary", 2, "Reading recovery.go.", "Reading recovery.go!", []string{"p", "before seq 3"}},
		{"an event after the boundary", 4, "after the rename", "before the rename", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := tamperChain(t)
			if rep := h.audit("p.g3"); !rep.OK || rep.Err() != nil {
				t.Fatalf("audit of the intact chain: ok=%v err=%v\n%s", rep.OK, rep.Err(), jsonOf(rep))
			}
			h.editLine("p", tc.seq, replaceOnce(t, tc.old, tc.new))
			rep := h.audit("p.g3")
			err := rep.Err()
			if tc.names == nil {
				if !rep.OK || err != nil {
					t.Fatalf("an edit after the boundary failed the audit: ok=%v err=%v\n%s", rep.OK, err, jsonOf(rep))
				}
				return
			}
			if rep.OK || !errors.Is(err, graft.ErrAuditFailed) {
				t.Fatalf("the edit passed the audit of p.g3: ok=%v err=%v\n%s", rep.OK, err, jsonOf(rep))
			}
			t.Logf("%s: %v", tc.name, err)
			wantCode(t, err, "audit_failed", 35)
			for _, name := range tc.names {
				if !strings.Contains(err.Error(), name) {
					t.Errorf("the failed audit does not name %q: %v", name, err)
				}
			}
		})
	}
}

// TestAuditOfAnOlderTarget: a target whose graft recorded nothing it
// relies on (written by an older graft: no relies in its graft/origin)
// still audits by its texts, and the report says the tamper check is not
// available; one whose parent's graft recorded nothing has its parent's
// prefix and its own cited words checked, and the note names the rest.
func TestAuditOfAnOlderTarget(t *testing.T) {
	t.Run("no record", func(t *testing.T) {
		h := tamperChain(t)
		h.editEvent("p.g3", 1, func(ev *session.Event) { ev.Relies = nil })
		h.editLine("p", 1, replaceOnce(t, "Never delete", "never delete"))
		rep := h.audit("p.g3")
		if !rep.OK || rep.Err() != nil || rep.TamperCheck != graft.TamperNotAvailable || len(rep.Relied) != 0 {
			t.Fatalf("audit of a target without relies: ok=%v err=%v tamper %q relied %d; want ok, not available", rep.OK, rep.Err(), rep.TamperCheck, len(rep.Relied))
		}
		if !strings.Contains(rep.TamperNote, "no relies") {
			t.Errorf("the note %q does not say why", rep.TamperNote)
		}
	})
	t.Run("generation 1", func(t *testing.T) {
		h := tamperChain(t)
		rep := h.audit("p")
		if !rep.OK || rep.TamperCheck != graft.TamperNotAvailable || !strings.Contains(rep.TamperNote, "generation 1") {
			t.Fatalf("audit of generation 1: ok=%v tamper %q note %q", rep.OK, rep.TamperCheck, rep.TamperNote)
		}
	})
	t.Run("the parent's graft recorded nothing", func(t *testing.T) {
		h := openLineageHome(t)
		h.add("p", said("Plan: write the recovery scan. Never delete a session log."), replied("Reading recovery.go."),
			said("Also: always fsync the directory."), replied("On it."))
		h.graftOnce("p", false)
		h.editEvent("p.g2", 1, func(ev *session.Event) { ev.Relies = nil })
		h.add("p.g2", said("Next: only touch recovery/."), replied("Touching only recovery/."))
		h.graftOnce("p.g2", false)
		rep := h.audit("p.g3")
		if !rep.OK || rep.TamperCheck != graft.TamperPartial {
			t.Fatalf("audit: ok=%v tamper %q, want ok, partial\n%s", rep.OK, rep.TamperCheck, jsonOf(rep))
		}
		for _, want := range []string{"the prefix of gen 1 p", "the line of gen 1 p seq 1", "the line of gen 1 p seq 3"} {
			if !strings.Contains(rep.TamperNote, want) {
				t.Errorf("the note %q does not name %q", rep.TamperNote, want)
			}
		}
		// What p.g3's graft recorded still counts: p.g2's prefix.
		h.editLine("p.g2", 2, replaceOnce(t, "graft:tape", "graft:tapf"))
		if rep := h.audit("p.g3"); rep.OK || !strings.Contains(rep.Err().Error(), "gen 2 p.g2: an event before seq") {
			t.Fatalf("an edit of p.g2's tape passed the audit of p.g3: ok=%v err=%v", rep.OK, rep.Err())
		}
	})
}
