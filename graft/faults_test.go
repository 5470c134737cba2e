package graft_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/journal"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/txn"
	"github.com/graft-project/graft/vfs"
	"github.com/graft-project/graft/vfs/errorfs"
)

// diskFull fails every operation of the given kinds on paths containing
// path with ENOSPC, while on is set: a disk that stays full for the commit
// and its in-process cleanup.
type diskFull struct {
	mu    sync.Mutex
	on    bool
	path  string
	kinds map[errorfs.OpKind]bool
	fired []errorfs.Op
}

func (d *diskFull) MaybeError(op errorfs.Op) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.on || !d.kinds[op.Kind] || !strings.Contains(op.Path, d.path) {
		return nil
	}
	d.fired = append(d.fired, op)
	return &errorfs.InjectedError{Op: op, Err: syscall.ENOSPC}
}

func TestCommitFailsCleanlyOnAFault(t *testing.T) {
	cases := []struct {
		name      string
		fault     *errorfs.Fault
		code      graft.Code
		exit      int
		leftovers int // a created-then-removed shell is recorded
	}{
		{"ENOSPC writing the target", errorfs.OnKind(errorfs.OpWrite, "s.g2.jsonl", 1, syscall.ENOSPC), "no_space", 19, 1},
		{"EIO on the target's fsync", errorfs.OnKind(errorfs.OpSync, "s.g2.jsonl", 1, syscall.EIO), "error", 1, 1},
		{"EACCES creating the target", errorfs.OnKind(errorfs.OpCreate, "s.g2.jsonl", 1, syscall.EACCES), "permission_denied", 20, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := openFlowHome(t, graft.Options{FS: errorfs.Wrap(vfs.Default, tc.fault)})
			h.create("s", workSession()...)
			rv := h.prepare("s", graft.PrepareOptions{})
			before := h.bytesOf("s")
			_, err := h.svc.Commit(context.Background(), rv.PreparedID, rv.TapeHash, "s.g2")
			if _, fired := tc.fault.Fired(); !fired {
				t.Fatalf("the fault never fired: %s", tc.fault)
			}
			wantCode(t, err, tc.code, tc.exit)
			if strings.Contains(err.Error(), "cleanup deferred") {
				t.Errorf("the in-process cleanup failed: %v", err)
			}
			if !bytes.Equal(h.bytesOf("s"), before) || len(h.records()) != 0 {
				t.Errorf("a failed commit changed the source or left records")
			}
			if h.exists("s.g2") && h.info("s.g2").State() != session.StateAbandoned {
				t.Errorf("a failed commit left a target that is not abandoned")
			}
			if got := h.prepare("s", graft.PrepareOptions{}).Leftovers; len(got) != tc.leftovers {
				t.Errorf("next review names %d leftovers (%+v), want %d", len(got), got, tc.leftovers)
			}
		})
	}
}

// docs/DESIGN.md §6.1: marking the leftover fails for the reason the graft did.
// The record stays for a later scan, and the target is not live meanwhile.
func TestDiskFullDuringCleanupLeavesTheRecordForRecovery(t *testing.T) {
	full := &diskFull{path: "s.g2.jsonl", kinds: map[errorfs.OpKind]bool{errorfs.OpSync: true, errorfs.OpWrite: true}}
	h := openFlowHome(t, graft.Options{FS: errorfs.Wrap(vfs.Default, full)})
	h.create("s", workSession()...)
	rv := h.prepare("s", graft.PrepareOptions{})
	before := h.bytesOf("s")
	full.on = true
	// Let the tape's writes through; fail from its fsync on.
	full.kinds[errorfs.OpWrite] = false
	h.svc.SetHook(func(p txn.Point) {
		if p == txn.CommitTargetWritten {
			full.mu.Lock()
			full.kinds[errorfs.OpWrite] = true
			full.mu.Unlock()
		}
	})
	_, err := h.svc.Commit(context.Background(), rv.PreparedID, rv.TapeHash, "s.g2")
	h.svc.SetHook(nil)
	full.on = false
	if len(full.fired) < 2 {
		t.Fatalf("the full disk failed %v; want the target's fsync and the cleanup's write to fail", full.fired)
	}
	wantCode(t, err, "no_space", 19)
	if !strings.Contains(err.Error(), "cleanup deferred to recovery") {
		t.Errorf("error %q does not say the cleanup was deferred", err)
	}
	recs := h.records()
	if len(recs) != 1 || recs[0].State != journal.Preparing || recs[0].Target != "s.g2" {
		t.Fatalf("records %+v, want the PREPARING record of s.g2 kept for recovery", recs)
	}
	if !bytes.Equal(h.bytesOf("s"), before) {
		t.Errorf("the source changed")
	}
	// Not live: judged from the source, before any recovery.
	_, err = h.svc.Store().Append("s.g2", []session.Event{humanMsg("continue")})
	if !errors.Is(err, session.ErrUncommitted) {
		t.Errorf("append to the unmarked target: %v, want ErrUncommitted", err)
	}
	h.appendEvents("s", humanMsg("the source is still usable"))

	// The next command's scan finishes the cleanup.
	svc, err := graft.Open(h.home, graft.Options{})
	if err != nil {
		t.Fatalf("graft.Open: %v", err)
	}
	if rep := svc.Startup; svc.StartupErr != nil || rep.RolledBack != 1 || len(rep.Leftovers) != 1 {
		t.Fatalf("start-up recovery %+v (%v), want one rolled back", rep, svc.StartupErr)
	}
	if st := h.info("s.g2").State(); st != session.StateAbandoned {
		t.Errorf("target state after recovery: %s, want abandoned", st)
	}
	if rep, err := svc.Recover(context.Background()); err != nil || rep.Scanned != 0 {
		t.Errorf("second scan: %+v (%v), want scanned=0", rep, err)
	}
}

// anyOf fails an operation when one of its faults does.
type anyOf []*errorfs.Fault

func (a anyOf) MaybeError(op errorfs.Op) error {
	for _, f := range a {
		if err := f.MaybeError(op); err != nil {
			return err
		}
	}
	return nil
}

// Close errors are never dropped: one on the failed target write is
// reported with the write's, one after the cold read fails the cold read.
func TestCloseErrorsOfTheTargetAreReported(t *testing.T) {
	t.Run("write and close fail", func(t *testing.T) {
		write := errorfs.OnKind(errorfs.OpWrite, "s.g2.jsonl", 1, syscall.ENOSPC)
		closing := errorfs.OnKind(errorfs.OpClose, "s.g2.jsonl", 1, syscall.EIO)
		h := openFlowHome(t, graft.Options{FS: errorfs.Wrap(vfs.Default, anyOf{write, closing})})
		h.create("s", workSession()...)
		rv := h.prepare("s", graft.PrepareOptions{})
		_, err := h.svc.Commit(context.Background(), rv.PreparedID, rv.TapeHash, "s.g2")
		if _, fired := closing.Fired(); !fired {
			t.Fatalf("the close fault never fired: %s", closing)
		}
		wantCode(t, err, "no_space", 19)
		if !errors.Is(err, syscall.EIO) || !strings.Contains(err.Error(), "close") {
			t.Errorf("error %q does not report the failed close", err)
		}
	})
	t.Run("close after the cold read fails", func(t *testing.T) {
		// The first close of the target ends its write, the second the cold read.
		closing := errorfs.OnKind(errorfs.OpClose, "s.g2.jsonl", 2, syscall.EIO)
		h := openFlowHome(t, graft.Options{FS: errorfs.Wrap(vfs.Default, closing)})
		h.create("s", workSession()...)
		rv := h.prepare("s", graft.PrepareOptions{})
		before := h.bytesOf("s")
		_, err := h.svc.Commit(context.Background(), rv.PreparedID, rv.TapeHash, "s.g2")
		if op, fired := closing.Fired(); !fired || op.Kind != errorfs.OpClose {
			t.Fatalf("the close fault never fired: %s", closing)
		}
		wantCode(t, err, "cold_verify_failed", 18)
		if !errors.Is(err, syscall.EIO) {
			t.Errorf("error %q does not carry the EIO of the close", err)
		}
		if !bytes.Equal(h.bytesOf("s"), before) {
			t.Errorf("the source changed")
		}
	})
}
