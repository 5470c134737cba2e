package graft_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/txn"
	"github.com/graft-project/graft/vfs"
	"github.com/graft-project/graft/vfs/errorfs"
)

// otherLog is what another creator writes into its session u.
func otherLog(t *testing.T) []byte {
	t.Helper()
	var b []byte
	for k, ev := range []session.Event{humanMsg("imported: the other creator's first message"), assistantMsg("and its answer")} {
		ev.Seq, ev.TS = int64(k+1), "2026-01-02T03:04:05Z"
		line, err := session.Encode(&ev)
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, line...)
	}
	return b
}

func (h *flowHome) leftovers() []catalog.Leftover {
	h.t.Helper()
	var ls []catalog.Leftover
	err := catalog.With(h.home, catalog.DefaultTimeout, func(db *catalog.DB) error {
		var err error
		ls, err = db.AllLeftovers()
		return err
	})
	if err != nil {
		h.t.Fatal(err)
	}
	return ls
}

// TestFailedCommitLeavesAnotherCreatorsLogAlone (issue 19, finding 1):
// another creator makes u.jsonl between the commit's existence check and
// its O_EXCL create (a creator that does not take graft's session lock: an
// older graft, a copy, a host writing there). The commit fails with
// target_exists and rolls back only what it created, which is nothing: the
// other creator's log survives, with the events it then writes.
func TestFailedCommitLeavesAnotherCreatorsLogAlone(t *testing.T) {
	h := openFlowHome(t, graft.Options{})
	h.create("s", workSession()...)
	rv := h.prepare("s", graft.PrepareOptions{})
	src := h.bytesOf("s")
	var other *os.File
	h.svc.SetHook(func(p txn.Point) {
		if p != txn.CommitJournalPrepared {
			return
		}
		f, err := os.OpenFile(h.sessionPath("u"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, session.FileMode)
		if err != nil {
			t.Errorf("the other creator: %v", err)
			return
		}
		other = f
	})
	_, err := h.svc.Commit(context.Background(), rv.PreparedID, rv.TapeHash, "u")
	h.svc.SetHook(nil)
	if other == nil {
		t.Fatal("the hook never ran")
	}
	wantCode(t, err, "target_exists", 16)
	// The other creator goes on writing into what it created.
	if _, err := other.Write(otherLog(t)); err != nil {
		t.Fatal(err)
	}
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
	if got := h.bytesOf("u"); !bytes.Equal(got, otherLog(t)) {
		t.Fatalf("the other creator's log after the failed commit: %q, want its own two events (the commit's roll-back removed it as its shell)", got)
	}
	if info := h.info("u"); info.Events != 2 || info.Abandoned != nil || info.Origin != nil {
		t.Errorf("u folds to %+v, want the other creator's 2 events, unmarked", info)
	}
	if !bytes.Equal(h.bytesOf("s"), src) || len(h.records()) != 0 || len(h.leftovers()) != 0 {
		t.Errorf("the failed commit changed the source, left a record or recorded a leftover: records %+v leftovers %+v", h.records(), h.leftovers())
	}
}

// TestCreatorWaitsForACommitInFlight (issue 19, finding 1): a creator that
// takes graft's session lock (an import, gen, an append that creates) and
// starts while a commit into the same id is in flight waits for it. When
// the commit succeeds the creator finds the id taken; when the commit fails
// after creating its shell, the roll-back removes the shell and the creator
// then creates its log.
func TestCreatorWaitsForACommitInFlight(t *testing.T) {
	for _, commitFails := range []bool{false, true} {
		name := "the commit succeeds"
		if commitFails {
			name = "the commit fails after its create"
		}
		t.Run(name, func(t *testing.T) {
			var fsys vfs.FS = vfs.Default
			if commitFails {
				fsys = errorfs.Wrap(vfs.Default, errorfs.OnKind(errorfs.OpWrite, "u.jsonl", 1, syscall.ENOSPC))
			}
			h := openFlowHome(t, graft.Options{FS: fsys})
			h.create("s", workSession()...)
			rv := h.prepare("s", graft.PrepareOptions{})
			created := make(chan error, 1)
			h.svc.SetHook(func(p txn.Point) {
				if p != txn.CommitJournalPrepared {
					return
				}
				go func() {
					w, err := h.svc.Store().CreateWriter("u")
					if err != nil {
						created <- err
						return
					}
					for _, ev := range []session.Event{humanMsg("the creator's first message"), assistantMsg("and its answer")} {
						if err := w.Write(&ev); err != nil {
							created <- errors.Join(err, w.Close())
							return
						}
					}
					created <- w.Close()
				}()
				// A creator that does not wait is done by now.
				select {
				case err := <-created:
					created <- err
				case <-time.After(200 * time.Millisecond):
				}
			})
			res, err := h.svc.Commit(context.Background(), rv.PreparedID, rv.TapeHash, "u")
			h.svc.SetHook(nil)
			cerr := <-created
			if !commitFails {
				if err != nil {
					t.Fatalf("Commit: %v (the creator did not wait for the commit's lock)", err)
				}
				if !errors.Is(cerr, session.ErrExists) {
					t.Fatalf("the creator after the commit: %v, want ErrExists", cerr)
				}
				if info := h.info("u"); info.Origin == nil || info.Origin.Txn != res.TxnID || h.svc.Store().Check(info) != nil {
					t.Fatalf("u is not the live target of txn %s: %+v", res.TxnID, info)
				}
				return
			}
			wantCode(t, err, "no_space", 19)
			if cerr != nil {
				t.Fatalf("the creator after the failed commit: %v", cerr)
			}
			if info := h.info("u"); info.Events != 2 || info.Origin != nil || info.Abandoned != nil {
				t.Fatalf("u folds to %+v, want the creator's 2 events", info)
			}
		})
	}
}
