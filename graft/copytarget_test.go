package graft_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/recovery"
	"github.com/graft-project/graft/session"
)

// TestCopyOfALiveTargetIsNotLive (issue 19, finding 3): a byte-for-byte
// copy of a live target carries the target's graft/origin, txn included,
// but its parent's graft/retired names the target, not the copy. The copy
// is uncommitted: not appendable, not resumable, named so by status, and a
// revert of it is refused without touching the real target.
func TestCopyOfALiveTargetIsNotLive(t *testing.T) {
	h := openFlowHome(t, graft.Options{})
	h.create("s", workSession()...)
	res := h.commit(h.prepare("s", graft.PrepareOptions{}), "s.g2")
	if err := os.WriteFile(h.sessionPath("backup"), h.bytesOf("s.g2"), 0o600); err != nil {
		t.Fatal(err)
	}
	src, tgt, cp := h.bytesOf("s"), h.bytesOf("s.g2"), h.bytesOf("backup")

	err := h.svc.Store().Check(h.info("backup"))
	if !errors.Is(err, session.ErrUncommitted) {
		t.Fatalf("Check(backup) = %v, want ErrUncommitted (s retired %s into s.g2, not backup)", err, res.TxnID)
	}
	if !strings.Contains(err.Error(), "s.g2") {
		t.Errorf("the refusal %q does not name s.g2, the session the graft committed into", err)
	}
	row := h.svc.SessionState("backup")
	if row.State != "uncommitted" || row.Head != "s.g2" {
		t.Errorf("status of the copy: state %q head %q, want uncommitted, head s.g2", row.State, row.Head)
	}
	if row := h.svc.SessionState("s.g2"); row.State != string(session.StateActive) || row.Head != "s.g2" {
		t.Errorf("status of the real target: state %q head %q (%s), want active, head s.g2", row.State, row.Head, row.Error)
	}

	_, err = h.svc.Append("backup", []session.Event{humanMsg("go on in the copy")})
	wantCode(t, err, "uncommitted", 26)
	_, err = h.svc.Prepare(context.Background(), "backup", graft.PrepareOptions{})
	wantCode(t, err, "uncommitted", 26)

	for _, force := range []bool{false, true} {
		_, err = h.svc.Revert("backup", force)
		wantCode(t, err, "not_live", 29)
		if !strings.Contains(err.Error(), "s.g2") {
			t.Errorf("revert --force=%t of the copy: %q does not name s.g2", force, err)
		}
	}
	if !bytes.Equal(h.bytesOf("s"), src) || !bytes.Equal(h.bytesOf("s.g2"), tgt) || !bytes.Equal(h.bytesOf("backup"), cp) || len(h.records()) != 0 {
		t.Fatalf("a refused revert of the copy wrote something")
	}
	if err := h.svc.Store().Check(h.info("s.g2")); err != nil {
		t.Errorf("the real target is no longer live: %v", err)
	}
	if g, ok := h.info("s").Live(); !ok || g.Target != "s.g2" || g.Txn != res.TxnID {
		t.Errorf("s's live graft = %+v, %t; want txn %s into s.g2", g, ok, res.TxnID)
	}
	h.appendEvents("s.g2", humanMsg("the real target goes on"))

	// The catalog rebuilt from the logs: s.g2 is s's child, the copy is
	// no node of the lineage and no leftover of s.
	rb, err := recovery.Rebuild(h.svc.Env())
	if err != nil {
		t.Fatalf("Rebuild: %v", err)
	}
	if rb.Nodes != 1 || rb.Leftovers != 0 {
		t.Errorf("Rebuild: %d nodes, %d leftovers; want 1 node (s.g2), no leftover", rb.Nodes, rb.Leftovers)
	}
	if _, ok := h.node("backup"); ok {
		t.Errorf("the rebuilt catalog has a lineage node for the copy")
	}
	if n, ok := h.node("s.g2"); !ok || n.Reverted || n.Txn != res.TxnID {
		t.Errorf("the rebuilt node of s.g2 = %+v, %t; want txn %s, not reverted", n, ok, res.TxnID)
	}
}
