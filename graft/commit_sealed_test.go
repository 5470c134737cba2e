package graft_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/tape"
)

// tapeOf is the target's events with what differs between two commits of
// the same review cleared (timestamps, the txn id): what the tape wrote.
func tapeOf(h *flowHome, target string) string {
	h.t.Helper()
	evs, _, err := h.svc.Store().ReadAll(target)
	if err != nil {
		h.t.Fatalf("reading %s: %v", target, err)
	}
	var out bytes.Buffer
	for _, ev := range evs {
		ev.TS, ev.Txn = "", ""
		b, err := session.Encode(&ev)
		if err != nil {
			h.t.Fatal(err)
		}
		out.Write(b)
	}
	return out.String()
}

// unseal stores a review again without its seal (and so without its tape):
// its commit must rebuild.
func (h *flowHome) unseal(id string) {
	h.t.Helper()
	p := h.prepared(id)
	p.Seal = nil
	err := catalog.With(h.home, catalog.DefaultTimeout, func(db *catalog.DB) error { return db.PutReview(p, nil) })
	if err != nil {
		h.t.Fatal(err)
	}
}

// A commit of an unchanged source writes the review's stored tape
// (sealed), and that tape is byte for byte the one a rebuild writes.
func TestSealedCommitWritesWhatARebuildWrites(t *testing.T) {
	for _, o := range []graft.PrepareOptions{{}, {Tape: tape.Options{RecentTurns: 1}}} {
		sealed, rebuilt := openFlowHome(t, graft.Options{}), openFlowHome(t, graft.Options{})
		sealed.create("s", workSession()...)
		// The same bytes in both homes (a create stamps the time).
		if err := os.MkdirAll(filepath.Dir(rebuilt.sessionPath("s")), session.DirMode); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(rebuilt.sessionPath("s"), sealed.bytesOf("s"), session.FileMode); err != nil {
			t.Fatal(err)
		}
		rv1 := sealed.prepare("s", o)
		if p := sealed.prepared(rv1.PreparedID); p.Seal == nil || p.Seal.End != int64(len(sealed.bytesOf("s"))) {
			t.Fatalf("review %s has seal %+v; want one ending at the log's %d bytes", rv1.PreparedID, p.Seal, len(sealed.bytesOf("s")))
		}
		res1 := sealed.commit(rv1, "s.g2")
		rv2 := rebuilt.prepare("s", o)
		rebuilt.unseal(rv2.PreparedID)
		res2 := rebuilt.commit(rv2, "s.g2")
		if res1.DriftCheck != graft.DriftSealed || res2.DriftCheck != graft.DriftRebuilt {
			t.Fatalf("drift checks %q and %q, want %q and %q", res1.DriftCheck, res2.DriftCheck, graft.DriftSealed, graft.DriftRebuilt)
		}
		if rv1.TapeHash != rv2.TapeHash || res1.TapeHash != res2.TapeHash {
			t.Fatalf("tape hashes differ: %s %s %s %s", rv1.TapeHash, rv2.TapeHash, res1.TapeHash, res2.TapeHash)
		}
		if a, b := tapeOf(sealed, "s.g2"), tapeOf(rebuilt, "s.g2"); a != b {
			t.Fatalf("the sealed commit wrote\n%s\nthe rebuilt one\n%s", a, b)
		}
		if !sealed.info("s").HasRetired(res1.TxnID, res1.TargetID) || !rebuilt.info("s").HasRetired(res2.TxnID, res2.TargetID) {
			t.Fatal("a source was not retired by its commit")
		}
	}
}

// Anything the seal does not vouch for sends the commit to the rebuild,
// which then decides as before: growth of the open turn is committed with
// a note, a changed prefix is drift, a new leftover changes the tape.
func TestSealedCommitRebuildsWhenTheSealDoesNotHold(t *testing.T) {
	cases := []struct {
		name   string
		change func(h *flowHome, rv *graft.Review)
		check  func(t *testing.T, res *graft.CommitResult, err error)
	}{
		{"the open turn grew", func(h *flowHome, rv *graft.Review) {
			h.appendEvents("s", assistantMsg("One more step."))
		}, func(t *testing.T, res *graft.CommitResult, err error) {
			if err != nil || res.DriftCheck != graft.DriftRebuilt || len(res.Notes) == 0 || !strings.Contains(res.Notes[0], "changed while the review was open") {
				t.Fatalf("commit %+v, %v; want rebuilt with a note that the open turn changed", res, err)
			}
		}},
		{"a byte of the last 4 KiB rewritten in place", func(h *flowHome, rv *graft.Review) {
			b := h.bytesOf("s")
			i := bytes.Index(b, []byte("I'll start by reading store.go."))
			b[i+len("I'll start by reading ")] = 'S'
			if err := os.WriteFile(h.sessionPath("s"), b, session.FileMode); err != nil {
				t.Fatal(err)
			}
		}, func(t *testing.T, res *graft.CommitResult, err error) {
			wantCode(t, err, "boundary_drift", 14)
		}},
		{"the seal's check does not match", func(h *flowHome, rv *graft.Review) {
			p := h.prepared(rv.PreparedID)
			p.Seal.Check = "tail-v1:" + strings.Repeat("0", 64)
			if err := p.Seal.SetSum(); err != nil { // its checksum holds: the check decides
				t.Fatal(err)
			}
			h.putReview(p)
		}, rebuiltNoNotes},
		{"a byte of the seal's info damaged (its checksum does not match)", func(h *flowHome, rv *graft.Review) {
			p := h.prepared(rv.PreparedID)
			damaged := strings.Replace(string(p.Seal.Info), `"lastHuman":`, `"lastHuman":9`, 1)
			if damaged == string(p.Seal.Info) {
				t.Fatalf("no lastHuman in the seal's info %s", p.Seal.Info)
			}
			p.Seal.Info = json.RawMessage(damaged)
			h.putReview(p)
		}, rebuiltNoNotes},
		{"the stored tape is corrupt", func(h *flowHome, rv *graft.Review) {
			p := h.prepared(rv.PreparedID)
			err := catalog.With(h.home, catalog.DefaultTimeout, func(db *catalog.DB) error { return db.PutReview(p, []byte("{not json")) })
			if err != nil {
				t.Fatal(err)
			}
		}, func(t *testing.T, res *graft.CommitResult, err error) {
			if err != nil || res.DriftCheck != graft.DriftRebuilt {
				t.Fatalf("commit %+v, %v; want rebuilt", res, err)
			}
		}},
		{"a leftover appeared", func(h *flowHome, rv *graft.Review) {
			err := catalog.With(h.home, catalog.DefaultTimeout, func(db *catalog.DB) error {
				return db.AddLeftover(catalog.Leftover{Source: "s", Target: "s.gx", Txn: "txn-crashed", State: "TARGET_FLUSHED", Reason: "rolled back"})
			})
			if err != nil {
				t.Fatal(err)
			}
		}, func(t *testing.T, res *graft.CommitResult, err error) {
			if err != nil || res.DriftCheck != graft.DriftRebuilt || len(res.Notes) == 0 || !strings.Contains(res.Notes[0], "leftovers") {
				t.Fatalf("commit %+v, %v; want rebuilt with a note about leftovers", res, err)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := openFlowHome(t, graft.Options{})
			h.create("s", workSession()...)
			rv := h.prepare("s", graft.PrepareOptions{})
			tc.change(h, rv)
			res, err := h.svc.Commit(context.Background(), rv.PreparedID, rv.TapeHash, "s.g2")
			tc.check(t, res, err)
		})
	}
}

// rebuiltNoNotes wants a commit that rebuilt its tape and has nothing to
// say of it.
func rebuiltNoNotes(t *testing.T, res *graft.CommitResult, err error) {
	t.Helper()
	if err != nil || res.DriftCheck != graft.DriftRebuilt || len(res.Notes) != 0 {
		t.Fatalf("commit %+v, %v; want rebuilt, no notes", res, err)
	}
}

// putReview stores p again with its sealed tape as it is.
func (h *flowHome) putReview(p catalog.Prepared) {
	h.t.Helper()
	err := catalog.With(h.home, catalog.DefaultTimeout, func(db *catalog.DB) error {
		tp, _, err := db.PreparedTape(p.ID)
		if err != nil {
			return err
		}
		return db.PutReview(p, tp)
	})
	if err != nil {
		h.t.Fatal(err)
	}
}
