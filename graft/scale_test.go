package graft_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/tape"
)

// Issue 19, finding 8: a pasted text with more constraints than the fold
// keeps. The review lists the kept ones and says how many more, and where;
// the target inherits the count; the audit checks every kept origin,
// across the graft, and names the sayings it could not check.
func TestConstraintsPastTheCap(t *testing.T) {
	h := openLineageHome(t)
	var b strings.Builder
	for i := 0; i < tape.MaxConstraints+25; i++ {
		fmt.Fprintf(&b, "Never touch file%d.go. ", i)
	}
	h.add("p", said("Rules:\n"+b.String()), replied("Noted."), said("Never touch FILE3.go!"))
	rv, _ := h.graftOnce("p", false)
	if len(rv.Constraints) != tape.MaxConstraints {
		t.Fatalf("the review lists %d constraints, want %d", len(rv.Constraints), tape.MaxConstraints)
	}
	want := []session.More{{Session: "p", N: 25, From: 1, To: 1}}
	if !reflect.DeepEqual(rv.MoreConstraints, want) {
		t.Fatalf("review moreConstraints %+v, want %+v", rv.MoreConstraints, want)
	}
	origin := h.events("p.g2")[0]
	if origin.Inherit == nil || !reflect.DeepEqual(origin.Inherit.MoreConstraints, want) {
		t.Fatalf("the target inherits %+v, want moreConstraints %+v", origin.Inherit, want)
	}
	rep := h.audit("p.g2")
	if !rep.OK || len(rep.Constraints) != tape.MaxConstraints || !reflect.DeepEqual(rep.MoreConstraints, want) {
		t.Fatalf("audit ok=%v, %d constraints, moreConstraints %+v; want ok, %d, %+v (err %v)", rep.OK, len(rep.Constraints), rep.MoreConstraints, tape.MaxConstraints, want, rep.Err())
	}
	if c := rep.Constraints[3]; len(c.Checks) != 2 || !c.Checks[1].OK || c.Checks[1].Origin.Seq != 3 {
		t.Fatalf("constraint 3 (said again at seq 3): %+v", c)
	}
	// A broken origin is still found among the many.
	h.editLine("p", 1, replaceOnce(t, "Never touch file7.go.", "Never touch file7.g0."))
	rep = h.audit("p.g2")
	if rep.OK {
		t.Fatal("the audit passed after file7 was edited out of its origin")
	}
	failed := 0
	for _, c := range rep.Constraints {
		for _, k := range c.Checks {
			if !k.OK {
				failed++
				if c.Text != "Never touch file7.go." || !strings.HasPrefix(k.Problem, "text mismatch") {
					t.Errorf("failed check of %q: %s", c.Text, k.Problem)
				}
			}
		}
	}
	if failed != 1 {
		t.Fatalf("%d failed checks, want 1", failed)
	}
}
