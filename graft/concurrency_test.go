package graft_test

import (
	"context"
	"sync"
	"testing"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/recovery"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/txn"
)

// docs/DESIGN.md §6.1: every command runs a recovery scan, so one may run while
// another process is mid-commit. At every crash point of a commit and of
// a revert, a scan finds the record busy, changes nothing, and the
// transaction then finishes.
func TestRecoveryLeavesALiveTransactionAlone(t *testing.T) {
	h := openFlowHome(t, graft.Options{})
	h.create("s", workSession()...)
	rv := h.prepare("s", graft.PrepareOptions{})
	scanned := map[txn.Point]bool{}
	h.svc.SetHook(func(p txn.Point) {
		recs := len(h.records())
		before := [][]byte{h.bytesOf("s"), h.bytesOf("s.g2")}
		env := h.svc.Env()
		env.Hook = nil
		rep, err := recovery.Run(env)
		if err != nil {
			t.Errorf("%s: recovery during the transaction: %v", p, err)
			return
		}
		if rep.Scanned != recs || rep.Busy != recs || rep.RolledBack != 0 || rep.RolledForward != 0 {
			t.Errorf("%s: recovery during the transaction reported %+v, want %d busy and nothing done", p, rep, recs)
		}
		if len(h.records()) != recs || string(h.bytesOf("s")) != string(before[0]) || string(h.bytesOf("s.g2")) != string(before[1]) {
			t.Errorf("%s: recovery during the transaction changed the journal or a log", p)
		}
		scanned[p] = true
	})
	res := h.commit(rv, "s.g2")
	if _, err := h.svc.Revert(res.TargetID, false); err != nil {
		t.Fatalf("Revert: %v", err)
	}
	h.svc.SetHook(nil)
	for _, p := range txn.Points {
		if !scanned[p] {
			t.Errorf("no scan ran at %s", p)
		}
	}
	if st := h.info("s").State(); st != session.StateActive {
		t.Errorf("source after commit and revert: %s, want active", st)
	}
}

// L4 in-process: two commits race for one target id; exactly one wins, the
// other is refused with a stable code, and the source is retired once.
func TestTwoCommitsForOneTarget(t *testing.T) {
	for round := 0; round < 5; round++ {
		h := openFlowHome(t, graft.Options{})
		h.create("s", workSession()...)
		reviews := []*graft.Review{h.prepare("s", graft.PrepareOptions{}), h.prepare("s", graft.PrepareOptions{})}
		errs := make([]error, len(reviews))
		var wg sync.WaitGroup
		for k, rv := range reviews {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[k] = h.svc.Commit(context.Background(), rv.PreparedID, rv.TapeHash, "s.g2")
			}()
		}
		wg.Wait()
		won := 0
		for _, err := range errs {
			if err == nil {
				won++
				continue
			}
			switch code, _ := graft.CodeOf(err); code {
			case "locked", "target_exists", "already_grafted":
			default:
				t.Errorf("round %d: the losing commit failed with %s: %v", round, code, err)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d commits succeeded (%v), want exactly one", round, won, errs)
		}
		if info := h.info("s"); len(info.Grafts) != 1 || info.Grafts[0].Target != "s.g2" {
			t.Errorf("round %d: source grafts %+v, want one into s.g2", round, info.Grafts)
		}
		if recs := h.records(); len(recs) != 0 {
			t.Errorf("round %d: records left: %+v", round, recs)
		}
	}
}
