package graft_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/txn"
)

// Issue 19, finding 10: a commit into its own source waited on the
// source's lock it held as the target's and answered "locked: retry",
// forever. It is refused at once, as a taken target id, saying what to do.
func TestCommitIntoTheSourceIsRefused(t *testing.T) {
	h := openLineageHome(t)
	h.add("p", said("Build it."), replied("Building."))
	rv, err := h.svc.Prepare(context.Background(), "p", graft.PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.svc.Commit(context.Background(), rv.PreparedID, rv.TapeHash, "p")
	var self *graft.TargetIsSourceError
	if !errors.As(err, &self) || !errors.Is(err, txn.ErrTargetExists) || errors.Is(err, txn.ErrLocked) {
		t.Fatalf("Commit into the source = %v, want a TargetIsSourceError matching ErrTargetExists", err)
	}
	if code, exit := graft.CodeOf(err); code != "target_exists" || exit != 16 {
		t.Fatalf("code %s exit %d, want target_exists 16", code, exit)
	}
	if !strings.Contains(err.Error(), "leave the target out for p.g2") {
		t.Fatalf("error %q does not say what to do", err)
	}
	// The review is not used: the default target still works.
	if _, err := h.svc.Commit(context.Background(), rv.PreparedID, rv.TapeHash, ""); err != nil {
		t.Fatal(err)
	}
}

// Issue 19, finding 10: the head skips a live target whose log is gone,
// and says so.
func TestHeadSkipsAMissingTarget(t *testing.T) {
	h := openLineageHome(t)
	h.add("p", said("Build it."), replied("Building."))
	h.graftOnce("p", false)
	if err := os.Remove(h.svc.Store().Path("p.g2")); err != nil {
		t.Fatal(err)
	}
	row := h.svc.SessionState("p")
	if row.Head != "p" || !strings.HasPrefix(row.HeadProblem, "the live target p.g2 of p has no log") {
		t.Fatalf("head %q, problem %q; want p and the missing target named", row.Head, row.HeadProblem)
	}
}
