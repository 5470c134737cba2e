package graft_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/lockfile"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/txn"
)

// nothingWritten checks that a refused commit left no target, no record,
// and the source as it was.
func (h *flowHome) nothingWritten(target string, source []byte) {
	h.t.Helper()
	if h.exists(target) {
		h.t.Errorf("a refused commit created %s", target)
	}
	if recs := h.records(); len(recs) != 0 {
		h.t.Errorf("a refused commit left %d journal record(s): %+v", len(recs), recs)
	}
	if !bytes.Equal(h.bytesOf("s"), source) {
		h.t.Errorf("a refused commit changed the source")
	}
}

func encodeEvents(t *testing.T, evs []session.Event) []byte {
	t.Helper()
	var out []byte
	for k := range evs {
		b, err := session.Encode(&evs[k])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b...)
	}
	return out
}

// The self-graft: the host keeps recording the open turn while the review
// is open. Growth of the open turn alone is committed, with a note that
// names the real sizes.
func TestSelfGraftOpenTurnGrowthIsCommittedWithANote(t *testing.T) {
	h := openFlowHome(t, graft.Options{})
	h.create("s", workSession()...)
	rv := h.prepare("s", graft.PrepareOptions{})
	h.appendEvents("s",
		toolCall("Bash", "call-test-1", `{"command":"go test ./store"}`),
		toolResult("Bash", "call-test-1", "ok  store 0.2s"),
		assistantMsg("The store test passes.\n\nCommitting the graft now so the next session starts clean."),
	)
	// What a review of the grown source says: the carryover the commit
	// must write.
	grown := h.prepare("s", graft.PrepareOptions{})
	if grown.BoundarySeq != rv.BoundarySeq || grown.PrefixHash != rv.PrefixHash {
		t.Fatalf("the appended events moved the boundary or the prefix: the test would not test growth")
	}
	if grown.CarryoverChars <= rv.CarryoverChars {
		t.Fatalf("carryover %d → %d: the appended events did not grow it", rv.CarryoverChars, grown.CarryoverChars)
	}

	res := h.commit(rv, "s.g2")
	want := fmt.Sprintf("open-turn-carryover changed while the review was open (%d → %d chars); the committed tape is newer than the one you approved.", rv.CarryoverChars, grown.CarryoverChars)
	if !slices.Equal(res.Notes, []string{want}) {
		t.Errorf("notes %q\nwant [%q]", res.Notes, want)
	}
	if res.TapeHash != grown.TapeHash || res.TapeHash == rv.TapeHash {
		t.Errorf("committed tape %s; want the refreshed %s, not the reviewed %s", res.TapeHash, grown.TapeHash, rv.TapeHash)
	}
	if !bytes.Contains(h.bytesOf("s.g2"), []byte("Committing the graft now so the next session starts clean.")) {
		t.Errorf("the target's carryover does not hold the paragraph written during the review")
	}
	if res.BoundarySeq != workBoundary {
		t.Errorf("boundary %d, want %d", res.BoundarySeq, workBoundary)
	}
}

// A new human instruction during the review moves the boundary: refused,
// and nothing is written.
func TestNewHumanInstructionDuringReviewIsBoundaryDrift(t *testing.T) {
	h := openFlowHome(t, graft.Options{})
	h.create("s", workSession()...)
	rv := h.prepare("s", graft.PrepareOptions{})
	before := h.bytesOf("s")
	appended := h.appendEvents("s", humanMsg("Stop: first fix the flaky journal test."))

	_, err := h.svc.Commit(context.Background(), rv.PreparedID, rv.TapeHash, "s.g2")
	wantCode(t, err, "boundary_drift", 14)
	var de *txn.DriftError
	if !errors.As(err, &de) || de.PreparedBoundary != workBoundary || de.Boundary != appended[0].Seq || de.Source != "s" {
		t.Fatalf("error %v, want a *txn.DriftError from boundary %d to %d", err, workBoundary, appended[0].Seq)
	}
	if !strings.Contains(err.Error(), "prepare again") {
		t.Errorf("the message %q does not say to prepare again", err)
	}
	h.nothingWritten("s.g2", append(before, encodeEvents(t, appended)...))

	// The refusal did not consume the review's source: a new review commits.
	h.commit(h.prepare("s", graft.PrepareOptions{}), "s.g2")
}

// A change before the boundary (the log rewritten in place) is drift too,
// even with the boundary where it was.
func TestChangedPrefixIsBoundaryDrift(t *testing.T) {
	h := openFlowHome(t, graft.Options{})
	h.create("s", workSession()...)
	rv := h.prepare("s", graft.PrepareOptions{})
	old := h.bytesOf("s")
	rewritten := bytes.Replace(old, []byte("I'll start by reading store.go."), []byte("I'll start by reading stone.go."), 1)
	if bytes.Equal(rewritten, old) {
		t.Fatal("the rewrite changed nothing")
	}
	if err := os.WriteFile(h.sessionPath("s"), rewritten, session.FileMode); err != nil {
		t.Fatal(err)
	}
	_, err := h.svc.Commit(context.Background(), rv.PreparedID, rv.TapeHash, "s.g2")
	wantCode(t, err, "boundary_drift", 14)
	var de *txn.DriftError
	if !errors.As(err, &de) || !de.PrefixChanged || de.Boundary != workBoundary {
		t.Fatalf("error %v, want a *txn.DriftError with PrefixChanged at boundary %d", err, workBoundary)
	}
	h.nothingWritten("s.g2", rewritten)
}

// A review prepared by a graft that hashed prefixes as graft-prefix-v1 is
// refused as stale with a next step, not reported as a drift of the
// source: the source did not change, the hash definition did.
func TestReviewWithAnOlderPrefixHashIsStale(t *testing.T) {
	h := openFlowHome(t, graft.Options{})
	h.create("s", workSession()...)
	rv := h.prepare("s", graft.PrepareOptions{})
	if !strings.HasPrefix(rv.PrefixHash, "graft-prefix-v2:") {
		t.Fatalf("prefixHash %q, want graft-prefix-v2:…", rv.PrefixHash)
	}
	err := catalog.With(h.svc.Home, h.svc.CatalogTimeout, func(db *catalog.DB) error {
		p, err := db.PeekPrepared(rv.PreparedID)
		if err != nil {
			return err
		}
		p.PrefixHash = "graft-prefix-v1:" + strings.Repeat("ab", 32)
		tp, _, err := db.PreparedTape(p.ID)
		if err != nil {
			return err
		}
		return db.PutReview(p, tp)
	})
	if err != nil {
		t.Fatal(err)
	}
	before := h.bytesOf("s")
	_, err = h.svc.Commit(context.Background(), rv.PreparedID, rv.TapeHash, "s.g2")
	wantCode(t, err, "expired_prepared", 11)
	if msg := err.Error(); !strings.Contains(msg, "graft-prefix-v1") || !strings.Contains(msg, "prepare again") {
		t.Errorf("error %q does not name the old hash version and the next step", msg)
	}
	h.nothingWritten("s.g2", before)
}

// Each refusal of a commit has its stable code and exit code, and writes
// nothing.
func TestCommitRefusals(t *testing.T) {
	t.Run("hash mismatch", func(t *testing.T) {
		h := openFlowHome(t, graft.Options{})
		h.create("s", workSession()...)
		rv := h.prepare("s", graft.PrepareOptions{})
		before := h.bytesOf("s")
		wrong := rv.TapeHash[:len(rv.TapeHash)-1] + "0"
		if wrong == rv.TapeHash {
			wrong = rv.TapeHash[:len(rv.TapeHash)-1] + "1"
		}
		_, err := h.svc.Commit(context.Background(), rv.PreparedID, wrong, "s.g2")
		wantCode(t, err, "hash_mismatch", 13)
		h.nothingWritten("s.g2", before)
	})

	t.Run("unknown preparedId", func(t *testing.T) {
		h := openFlowHome(t, graft.Options{})
		h.create("s", workSession()...)
		rv := h.prepare("s", graft.PrepareOptions{})
		_, err := h.svc.Commit(context.Background(), "prep-20250101T000000.000Z-NOSUCHPREP", rv.TapeHash, "s.g2")
		wantCode(t, err, "unknown_prepared", 10)
		h.nothingWritten("s.g2", h.bytesOf("s"))
	})

	t.Run("expired preparedId", func(t *testing.T) {
		clock := &fixedClock{now: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)}
		h := openFlowHome(t, graft.Options{Now: clock.Now})
		h.create("s", workSession()...)
		rv := h.prepare("s", graft.PrepareOptions{TTL: time.Hour})
		clock.now = clock.now.Add(time.Hour)
		before := h.bytesOf("s")
		_, err := h.svc.Commit(context.Background(), rv.PreparedID, rv.TapeHash, "s.g2")
		wantCode(t, err, "expired_prepared", 11)
		h.nothingWritten("s.g2", before)
		// The same TTL, committed in time, goes through.
		fresh := h.prepare("s", graft.PrepareOptions{TTL: time.Hour})
		clock.now = clock.now.Add(time.Hour - time.Second)
		h.commit(fresh, "s.g2")
	})

	t.Run("used preparedId", func(t *testing.T) {
		h := openFlowHome(t, graft.Options{})
		h.create("s", workSession()...)
		rv := h.prepare("s", graft.PrepareOptions{})
		h.commit(rv, "s.g2")
		before := h.bytesOf("s")
		_, err := h.svc.Commit(context.Background(), rv.PreparedID, rv.TapeHash, "s.g3")
		wantCode(t, err, "used_prepared", 12)
		h.nothingWritten("s.g3", before)
	})

	t.Run("target exists", func(t *testing.T) {
		h := openFlowHome(t, graft.Options{})
		h.create("s", workSession()...)
		h.create("taken", humanMsg("this session is someone else's"))
		taken := h.bytesOf("taken")
		rv := h.prepare("s", graft.PrepareOptions{})
		before := h.bytesOf("s")
		_, err := h.svc.Commit(context.Background(), rv.PreparedID, rv.TapeHash, "taken")
		wantCode(t, err, "target_exists", 16)
		if !bytes.Equal(h.bytesOf("taken"), taken) {
			t.Errorf("the existing target was changed")
		}
		if recs := h.records(); len(recs) != 0 || !bytes.Equal(h.bytesOf("s"), before) {
			t.Errorf("a refused commit left records %+v or changed the source", recs)
		}
	})

	for _, held := range []string{"s", "s.g2"} {
		t.Run("locked "+held, func(t *testing.T) {
			h := openFlowHome(t, graft.Options{})
			h.create("s", workSession()...)
			rv := h.prepare("s", graft.PrepareOptions{})
			before := h.bytesOf("s")
			lk, err := lockfile.TryLock(h.home, held)
			if err != nil {
				t.Fatal(err)
			}
			_, err = h.svc.Commit(context.Background(), rv.PreparedID, rv.TapeHash, "s.g2")
			wantCode(t, err, "locked", 17)
			h.nothingWritten("s.g2", before)
			if err := lk.Unlock(); err != nil {
				t.Fatal(err)
			}
			// The review was not consumed: it commits once the lock is free.
			h.commit(rv, "s.g2")
		})
	}

	t.Run("already grafted", func(t *testing.T) {
		h := openFlowHome(t, graft.Options{})
		h.create("s", workSession()...)
		first := h.prepare("s", graft.PrepareOptions{})
		second := h.prepare("s", graft.PrepareOptions{})
		h.commit(first, "s.g2")
		before := h.bytesOf("s")

		_, err := h.svc.Prepare(context.Background(), "s", graft.PrepareOptions{})
		wantCode(t, err, "already_grafted", 15)
		var ag *txn.AlreadyGraftedError
		if !errors.As(err, &ag) || ag.Target != "s.g2" {
			t.Errorf("prepare of a retired source: %v, want *txn.AlreadyGraftedError naming s.g2", err)
		}
		// A review taken before the first commit is refused at commit.
		_, err = h.svc.Commit(context.Background(), second.PreparedID, second.TapeHash, "")
		wantCode(t, err, "already_grafted", 15)
		h.nothingWritten("s.g2-2", before)

		// --allow-reslice: a sibling of the first target.
		rv := h.prepare("s", graft.PrepareOptions{AllowReslice: true})
		if !slices.ContainsFunc(rv.Warnings, func(w string) bool { return strings.Contains(w, "re-slice") }) {
			t.Errorf("a re-slice review has no warning: %q", rv.Warnings)
		}
		res := h.commit(rv, "")
		if res.TargetID != "s.g2-2" || res.Generation != 2 {
			t.Errorf("re-slice committed %s (generation %d), want the sibling s.g2-2 of generation 2", res.TargetID, res.Generation)
		}
		info := h.info("s")
		if len(info.Grafts) != 2 || info.Grafts[0].Target != "s.g2" || info.Grafts[1].Target != "s.g2-2" {
			t.Errorf("source grafts %+v, want s.g2 then s.g2-2", info.Grafts)
		}
		if n, ok := h.node("s"); !ok || !slices.Equal(n.Children, []string{"s.g2", "s.g2-2"}) {
			t.Errorf("lineage of s: %+v, want children s.g2 and s.g2-2", n)
		}
	})
}

// The L3 case in-process: bytes changed on disk between the flush and the
// cold read are caught; nothing is committed and the target is not live.
func TestColdReadCatchesATamperedTarget(t *testing.T) {
	h := openFlowHome(t, graft.Options{})
	h.create("s", workSession()...)
	rv := h.prepare("s", graft.PrepareOptions{})
	before := h.bytesOf("s")
	h.svc.SetHook(func(p txn.Point) {
		if p != txn.CommitJournalFlushed {
			return
		}
		b := h.bytesOf("s.g2")
		i := bytes.LastIndex(b, []byte("store"))
		if i < bytes.IndexByte(b, '\n') {
			t.Fatalf("no tape text to tamper with after the first line")
		}
		b[i] = 'S'
		if err := os.WriteFile(h.sessionPath("s.g2"), b, session.FileMode); err != nil {
			t.Fatal(err)
		}
	})
	_, err := h.svc.Commit(context.Background(), rv.PreparedID, rv.TapeHash, "s.g2")
	h.svc.SetHook(nil)
	wantCode(t, err, "cold_verify_failed", 18)
	var cv *txn.ColdVerifyError
	if !errors.As(err, &cv) || cv.Target != "s.g2" || !strings.Contains(cv.Reason, "digest") {
		t.Fatalf("error %v, want a *txn.ColdVerifyError on s.g2 about the digest", err)
	}
	if !bytes.Equal(h.bytesOf("s"), before) {
		t.Errorf("the source changed")
	}
	if recs := h.records(); len(recs) != 0 {
		t.Errorf("the rolled-back commit left records: %+v", recs)
	}
	if st := h.info("s.g2").State(); st != session.StateAbandoned {
		t.Errorf("the tampered target is %s, want abandoned", st)
	}
	// Named in the next review; the source is still graftable.
	next := h.prepare("s", graft.PrepareOptions{})
	if len(next.Leftovers) != 1 || next.Leftovers[0].Target != "s.g2" {
		t.Errorf("next review leftovers %+v, want s.g2", next.Leftovers)
	}
	if res := h.commit(next, ""); res.TargetID != "s.g2-2" {
		t.Errorf("the next commit went to %s, want s.g2-2", res.TargetID)
	}
}

// The self-graft epilogue: after the commit, the source takes the result of
// the graft_commit call that was open at the commit point, exactly once,
// and nothing else.
func TestSelfGraftEpilogue(t *testing.T) {
	h := openFlowHome(t, graft.Options{})
	h.create("s", workSession()...)
	h.appendEvents("s", toolCall("graft_prepare", "call-prep", `{"source":"s"}`), toolResult("graft_prepare", "call-prep", `{"preparedId":"…"}`))
	rv := h.prepare("s", graft.PrepareOptions{})
	h.appendEvents("s", toolCall("graft_commit", "call-commit", `{"preparedId":"`+rv.PreparedID+`"}`))
	res := h.commit(rv, "s.g2")

	refused := func(what string, ev session.Event) {
		t.Helper()
		before := h.bytesOf("s")
		_, err := h.svc.Append("s", []session.Event{ev})
		var re *session.RetiredError
		if !errors.As(err, &re) || re.Target != res.TargetID || !strings.Contains(err.Error(), res.TargetID) {
			t.Errorf("%s: %v, want a *session.RetiredError naming %s", what, err, res.TargetID)
		}
		wantCode(t, err, "retired", 24)
		if !bytes.Equal(h.bytesOf("s"), before) {
			t.Errorf("%s: the refused append changed the source", what)
		}
	}
	refused("an assistant message", assistantMsg("continuing in the old session"))
	refused("the result of a call closed before the commit", toolResult("graft_prepare", "call-prep", "again"))
	refused("the result of an unknown call", toolResult("Bash", "call-unknown", "ok"))
	refused("a new call", toolCall("Bash", "call-new", `{"command":"ls"}`))

	out := h.appendEvents("s", toolResult("graft_commit", "call-commit", `{"targetId":"s.g2"}`))
	if len(out) != 1 || out[0].Seq != h.info("s").LastSeq {
		t.Fatalf("the epilogue result was appended as %+v", out)
	}
	refused("the same result twice", toolResult("graft_commit", "call-commit", "again"))
	if st := h.info("s").State(); st != session.StateRetired {
		t.Errorf("source state after the epilogue: %s, want retired", st)
	}
}

func TestRevert(t *testing.T) {
	t.Run("refused with new events unless forced", func(t *testing.T) {
		h := openFlowHome(t, graft.Options{})
		h.create("s", workSession()...)
		res := h.commit(h.prepare("s", graft.PrepareOptions{}), "s.g2")
		h.appendEvents("s.g2", humanMsg("carry on in the new session"))
		src, tgt := h.bytesOf("s"), h.bytesOf("s.g2")

		_, err := h.svc.Revert("s.g2", false)
		wantCode(t, err, "has_new_events", 30)
		if !strings.Contains(err.Error(), "--force") {
			t.Errorf("the refusal %q does not mention --force", err)
		}
		if !bytes.Equal(h.bytesOf("s"), src) || !bytes.Equal(h.bytesOf("s.g2"), tgt) || len(h.records()) != 0 {
			t.Errorf("a refused revert wrote something")
		}

		rres, err := h.svc.Revert("s.g2", true)
		if err != nil {
			t.Fatalf("Revert --force: %v", err)
		}
		if rres.Extra != 1 || rres.Reverts != res.TxnID {
			t.Errorf("revert result %+v, want 1 extra event, reverting txn %s", rres, res.TxnID)
		}
		// The source is active and appendable again; the target abandoned.
		h.appendEvents("s", humanMsg("back in the first session"))
		_, err = h.svc.Append("s.g2", []session.Event{humanMsg("still here?")})
		var ae *session.AbandonedError
		if !errors.As(err, &ae) || ae.Use != "s" || ae.Reason != "reverted" {
			t.Errorf("append to a reverted target: %v, want *session.AbandonedError (reverted) naming s", err)
		}
		wantCode(t, err, "abandoned", 25)
		if n, ok := h.node("s.g2"); !ok || !n.Reverted {
			t.Errorf("lineage of s.g2: %+v, want reverted", n)
		}
	})

	t.Run("not live", func(t *testing.T) {
		h := openFlowHome(t, graft.Options{})
		h.create("s", workSession()...)
		h.commit(h.prepare("s", graft.PrepareOptions{}), "s.g2")
		h.commit(h.prepare("s.g2", graft.PrepareOptions{}), "s.g3")

		_, err := h.svc.Revert("s", false)
		wantCode(t, err, "not_live", 29)
		_, err = h.svc.Revert("s.g2", false)
		wantCode(t, err, "not_live", 29) // grafted on into s.g3: revert that first
		if !strings.Contains(err.Error(), "s.g3") {
			t.Errorf("the refusal %q does not name s.g3", err)
		}
		if _, err := h.svc.Revert("s.g3", false); err != nil {
			t.Fatalf("Revert(s.g3): %v", err)
		}
		_, err = h.svc.Revert("s.g3", false)
		wantCode(t, err, "not_live", 29) // already reverted
		if recs := h.records(); len(recs) != 0 {
			t.Errorf("refused reverts left records: %+v", recs)
		}
	})
}
