package recovery_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/journal"
	"github.com/graft-project/graft/lockfile"
	"github.com/graft-project/graft/recovery"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/vfs"
	"github.com/graft-project/graft/vfs/errorfs"
)

// rolledBack checks the report of a scan that rolled one graft back.
func rolledBack(t *testing.T, rep *recovery.Report, leftovers ...string) {
	t.Helper()
	if rep.Scanned != 1 || rep.RolledBack != 1 || rep.RolledForward != 0 || rep.Busy != 0 || len(rep.Errors) != 0 {
		t.Errorf("report %+v, want scanned=1 rolledBack=1 and nothing else", rep)
	}
	if !slices.Equal(rep.Leftovers, leftovers) && !(len(rep.Leftovers) == 0 && len(leftovers) == 0) {
		t.Errorf("report names leftovers %q, want %q", rep.Leftovers, leftovers)
	}
}

// Shells: PREPARING with no target, an empty target, a torn target. The
// source is never touched; a shell of this txn is removed.
func TestRecoverPreparingShells(t *testing.T) {
	cases := []struct {
		name string
		// target returns the bytes to leave as the target (nil: none).
		target       func(t *testing.T, data []byte) []byte
		wantLeftover bool
	}{
		{"no target", func(*testing.T, []byte) []byte { return nil }, false},
		{"empty shell", func(*testing.T, []byte) []byte { return []byte{} }, true},
		{"half of the first line", func(t *testing.T, data []byte) []byte { return data[:firstLineLen(t, data)/2] }, true},
		{"the first 20 bytes", func(t *testing.T, data []byte) []byte { return data[:20] }, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newCrashHome(t, vfs.Default)
			c.createSource("s")
			src := c.bytesOf("s")
			rec, data := c.plannedGraft("s", "s.g2", "")
			c.writeRecord(rec)
			shell := tc.target(t, data)
			if shell != nil {
				c.writeFile("s.g2", shell)
			}

			rep := c.run()
			var want []string
			if tc.wantLeftover {
				want = []string{"s.g2"}
			}
			rolledBack(t, rep, want...)
			if got := c.bytesOf("s.g2"); got != nil {
				t.Errorf("the shell is still there (%d bytes), want it removed", len(got))
			}
			if !bytes.Equal(c.bytesOf("s"), src) {
				t.Errorf("the source changed")
			}
			if c.recordExists(rec.Txn) {
				t.Errorf("record %s is still in the journal", rec.Txn)
			}
			lo := c.leftovers("s")
			if tc.wantLeftover != (len(lo) == 1) || len(lo) > 1 {
				t.Errorf("catalog leftovers of s: %+v, want one: %v", lo, tc.wantLeftover)
			}
			if len(lo) == 1 && (lo[0].Target != "s.g2" || lo[0].Txn != rec.Txn || lo[0].State != string(journal.Preparing) || !strings.Contains(lo[0].Reason, "removed shell")) {
				t.Errorf("leftover %+v, want s.g2 of txn %s in PREPARING, shell removed", lo[0], rec.Txn)
			}
			c.secondRunIsANoOp()
		})
	}
}

// A torn target whose first line (the graft/origin) is complete is ours for
// sure: it is marked abandoned, and the torn bytes are kept in .broken.
func TestRecoverPreparingTornAfterTheOrigin(t *testing.T) {
	c := newCrashHome(t, vfs.Default)
	c.createSource("s")
	rec, data := c.plannedGraft("s", "s.g2", "")
	c.writeRecord(rec)
	first := firstLineLen(t, data)
	second := first + bytes.IndexByte(data[first:], '\n') + 1
	torn := data[:first+(second-first)/2]
	c.writeFile("s.g2", torn)

	rolledBack(t, c.run(), "s.g2")
	got := c.bytesOf("s.g2")
	if !bytes.HasPrefix(got, data[:first]) {
		t.Fatalf("the target's graft/origin line changed")
	}
	if ev := lastEvent(t, got); ev.Type != session.TypeGraftAbandoned || ev.Txn != rec.Txn || ev.Seq != 2 {
		t.Errorf("the target ends with %+v, want graft/abandoned (seq 2) of txn %s", ev, rec.Txn)
	}
	broken, err := os.ReadFile(c.path("s.g2") + ".broken")
	if err != nil || !bytes.Equal(broken, torn[first:]) {
		t.Errorf("the torn bytes were not kept in .broken (%v): got %d bytes, want %d", err, len(broken), len(torn)-first)
	}
	c.secondRunIsANoOp()
}

// TARGET_FLUSHED and COLD_VERIFIED without the commit point: the target is
// complete but was never committed. It is honest before recovery (the store
// refuses it, judging from the source) and abandoned after.
func TestRecoverCompleteTargetWithoutCommitPoint(t *testing.T) {
	for _, state := range []journal.State{journal.TargetFlushed, journal.ColdVerified} {
		t.Run(string(state), func(t *testing.T) {
			c := newCrashHome(t, vfs.Default)
			c.createSource("s")
			src := c.bytesOf("s")
			rec, data := c.plannedGraft("s", "s.g2", "")
			rec.State = state
			c.writeRecord(rec)
			c.writeFile("s.g2", data)

			// Honest before recovery ran.
			_, err := c.store().Append("s.g2", []session.Event{{Type: session.TypeUserMessage, Source: session.Source{Kind: session.KindUser}, Text: "continue"}})
			var ue *session.UncommittedError
			if !errors.As(err, &ue) || ue.Parent != "s" || ue.Txn != rec.Txn {
				t.Fatalf("append to an uncommitted target before recovery: %v, want *session.UncommittedError naming s and txn %s", err, rec.Txn)
			}
			if code, _ := graft.CodeOf(err); code != "uncommitted" {
				t.Errorf("CodeOf = %s, want uncommitted", code)
			}
			if !bytes.Equal(c.bytesOf("s.g2"), data) {
				t.Fatalf("the refused append changed the target")
			}

			rolledBack(t, c.run(), "s.g2")
			got := c.bytesOf("s.g2")
			added, ok := bytes.CutPrefix(got, data)
			if !ok {
				t.Fatalf("the target's tape bytes changed")
			}
			if ev := lastEvent(t, added); bytes.Count(added, []byte("\n")) != 1 || ev.Type != session.TypeGraftAbandoned || ev.Txn != rec.Txn || !strings.Contains(ev.Reason, string(state)) {
				t.Errorf("the target gained %q, want one graft/abandoned of txn %s naming %s", added, rec.Txn, state)
			}
			if !bytes.Equal(c.bytesOf("s"), src) {
				t.Errorf("the source changed")
			}
			if c.recordExists(rec.Txn) {
				t.Errorf("record %s is still in the journal", rec.Txn)
			}
			// After recovery: abandoned, pointing back at the source.
			_, err = c.store().Append("s.g2", []session.Event{{Type: session.TypeUserMessage, Source: session.Source{Kind: session.KindUser}, Text: "continue"}})
			var ae *session.AbandonedError
			if !errors.As(err, &ae) || ae.Use != "s" {
				t.Errorf("append to the rolled-back target: %v, want *session.AbandonedError naming s", err)
			}
			if _, err := c.store().Append("s", []session.Event{{Type: session.TypeUserMessage, Source: session.Source{Kind: session.KindUser}, Text: "continue here"}}); err != nil {
				t.Errorf("the source is not appendable after the roll back: %v", err)
			}

			// The leftover is recorded and named in the next review.
			lo := c.leftovers("s")
			if len(lo) != 1 || lo[0].Target != "s.g2" || lo[0].Txn != rec.Txn || lo[0].State != string(state) {
				t.Fatalf("catalog leftovers of s: %+v, want s.g2 of txn %s in %s", lo, rec.Txn, state)
			}
			rv, err := c.svc.Prepare(context.Background(), "s", graft.PrepareOptions{})
			if err != nil {
				t.Fatalf("Prepare(s) after the roll back: %v", err)
			}
			if len(rv.Leftovers) != 1 || rv.Leftovers[0].Target != "s.g2" || rv.Leftovers[0].Txn != rec.Txn {
				t.Errorf("review leftovers %+v, want s.g2 of txn %s", rv.Leftovers, rec.Txn)
			}
			if !strings.Contains(rv.Tape, "s.g2") {
				t.Errorf("the review's tape does not name the leftover s.g2")
			}
			c.secondRunIsANoOp()
		})
	}
}

// COLD_VERIFIED with the commit point in the source: roll forward.
func TestRecoverColdVerifiedRetiredRollsForward(t *testing.T) {
	c := newCrashHome(t, vfs.Default)
	c.createSource("s")
	rv, err := c.svc.Prepare(context.Background(), "s", graft.PrepareOptions{})
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	rec, data := c.plannedGraft("s", "s.g2", rv.PreparedID)
	if rec.TapeHash != rv.TapeHash {
		t.Fatalf("the planned tape %s is not the reviewed %s", rec.TapeHash, rv.TapeHash)
	}
	rec.State = journal.ColdVerified
	c.writeRecord(rec)
	c.writeFile("s.g2", data)
	c.mark("s", session.TypeGraftRetired, rec.Txn, "s.g2", "")
	src := c.bytesOf("s")

	rep := c.run()
	if rep.Scanned != 1 || rep.RolledForward != 1 || rep.RolledBack != 0 || len(rep.Leftovers) != 0 || len(rep.Errors) != 0 {
		t.Errorf("report %+v, want scanned=1 rolledForward=1", rep)
	}
	if !bytes.Equal(c.bytesOf("s"), src) || !bytes.Equal(c.bytesOf("s.g2"), data) {
		t.Errorf("rolling forward changed a session log")
	}
	if c.recordExists(rec.Txn) {
		t.Errorf("record %s is still in the journal", rec.Txn)
	}
	n, ok := c.node("s.g2")
	if !ok || n.Parent != "s" || n.Txn != rec.Txn || n.Generation != 2 || n.TapeHash != rec.TapeHash || n.Reverted {
		t.Errorf("lineage node of s.g2: %+v (present %v), want parent s, txn %s, generation 2", n, ok, rec.Txn)
	}
	if p, ok := c.node("s"); !ok || !slices.Contains(p.Children, "s.g2") {
		t.Errorf("lineage node of s: %+v, want s.g2 among its children", p)
	}
	// The review the crashed commit consumed is used now.
	_, err = c.svc.Commit(context.Background(), rv.PreparedID, rv.TapeHash, "s.g2-again")
	if code, _ := graft.CodeOf(err); code != "used_prepared" {
		t.Errorf("committing the consumed review again: %v (%s), want used_prepared", err, code)
	}
	if len(c.leftovers("s")) != 0 {
		t.Errorf("a rolled-forward graft left a leftover: %+v", c.leftovers("s"))
	}
	// The target is live: it accepts appends.
	if _, err := c.store().Append("s.g2", []session.Event{{Type: session.TypeUserMessage, Source: session.Source{Kind: session.KindUser}, Text: "continue"}}); err != nil {
		t.Errorf("the rolled-forward target refuses appends: %v", err)
	}
	c.secondRunIsANoOp()
}

// A record whose target id is held by another transaction's session (or a
// plain session): the target is not ours and is not touched.
func TestRecoverLeavesAnotherTxnsTargetAlone(t *testing.T) {
	for _, other := range []string{"another graft's live target", "a plain session"} {
		t.Run(other, func(t *testing.T) {
			c := newCrashHome(t, vfs.Default)
			c.createSource("s")
			if other == "a plain session" {
				c.writeFile("s.g2", []byte(`{"seq":1,"ts":"2025-01-01T00:00:00Z","type":"user/message","source":{"kind":"user"},"text":"mine"}`+"\n"))
			} else {
				committed, data := c.plannedGraft("s", "s.g2", "")
				c.writeFile("s.g2", data)
				c.mark("s", session.TypeGraftRetired, committed.Txn, "s.g2", "")
			}
			rec, _ := c.plannedGraft("s", "s.g2", "")
			for _, st := range []journal.State{journal.Preparing, journal.TargetFlushed, journal.ColdVerified} {
				rec.State = st
				c.writeRecord(rec)
				src, tgt := c.bytesOf("s"), c.bytesOf("s.g2")

				rolledBack(t, c.run())
				if !bytes.Equal(c.bytesOf("s.g2"), tgt) {
					t.Errorf("%s: the other target was changed", st)
				}
				if !bytes.Equal(c.bytesOf("s"), src) {
					t.Errorf("%s: the source was changed", st)
				}
				if c.recordExists(rec.Txn) {
					t.Errorf("%s: record %s is still in the journal", st, rec.Txn)
				}
				if lo := c.leftovers("s"); len(lo) != 0 {
					t.Errorf("%s: another txn's target was recorded as a leftover: %+v", st, lo)
				}
				c.secondRunIsANoOp()
			}
		})
	}
}

// committedGraft lays out a committed graft s → s.g2 and returns its txn.
func committedGraft(c *crashHome) string {
	c.createSource("s")
	rec, data := c.plannedGraft("s", "s.g2", "")
	c.writeFile("s.g2", data)
	c.mark("s", session.TypeGraftRetired, rec.Txn, "s.g2", "")
	if err := c.jrnl.Write(rec); err != nil { // and roll it forward
		c.t.Fatalf("writing record: %v", err)
	}
	c.run()
	return rec.Txn
}

func revertRecord(c *crashHome, graftTxn string) journal.Record {
	rec, _ := c.plannedGraft("s", "s.g2", "")
	return journal.Record{Version: journal.RecordVersion, Txn: rec.Txn, Kind: journal.KindRevert, State: journal.Preparing,
		Source: "s", Target: "s.g2", Reverts: graftTxn, Generation: 2, Created: rec.Created}
}

// A revert that crashed before its commit point (graft/unretired): the
// graft stays live, the record is forgotten.
func TestRecoverRevertBeforeUnretired(t *testing.T) {
	c := newCrashHome(t, vfs.Default)
	graftTxn := committedGraft(c)
	rec := revertRecord(c, graftTxn)
	c.writeRecord(rec)
	src, tgt := c.bytesOf("s"), c.bytesOf("s.g2")

	rolledBack(t, c.run())
	if !bytes.Equal(c.bytesOf("s"), src) || !bytes.Equal(c.bytesOf("s.g2"), tgt) {
		t.Errorf("rolling a revert back changed a session log")
	}
	if c.recordExists(rec.Txn) {
		t.Errorf("record %s is still in the journal", rec.Txn)
	}
	info, err := c.store().Info("s")
	if err != nil {
		t.Fatal(err)
	}
	if g, ok := info.Live(); !ok || g.Txn != graftTxn || g.Target != "s.g2" {
		t.Errorf("the graft is not live any more: %+v %v", g, ok)
	}
	if n, _ := c.node("s.g2"); n.Reverted {
		t.Errorf("the lineage says reverted")
	}
	c.secondRunIsANoOp()
}

// A revert that crashed after its commit point: rolled forward, whether or
// not the target was marked yet.
func TestRecoverRevertAfterUnretired(t *testing.T) {
	for _, marked := range []bool{false, true} {
		name := "target not marked"
		if marked {
			name = "target already marked"
		}
		t.Run(name, func(t *testing.T) {
			c := newCrashHome(t, vfs.Default)
			graftTxn := committedGraft(c)
			rec := revertRecord(c, graftTxn)
			c.writeRecord(rec)
			c.mark("s", session.TypeGraftUnretired, graftTxn, "s.g2", "")
			if marked {
				c.mark("s.g2", session.TypeGraftAbandoned, graftTxn, "", "reverted")
			}
			src, tgt := c.bytesOf("s"), c.bytesOf("s.g2")

			rep := c.run()
			if rep.Scanned != 1 || rep.RolledForward != 1 || rep.RolledBack != 0 || len(rep.Errors) != 0 {
				t.Errorf("report %+v, want scanned=1 rolledForward=1", rep)
			}
			if !bytes.Equal(c.bytesOf("s"), src) {
				t.Errorf("the source changed")
			}
			got := c.bytesOf("s.g2")
			if marked && !bytes.Equal(got, tgt) {
				t.Errorf("an already marked target was marked again")
			}
			if !marked {
				added, ok := bytes.CutPrefix(got, tgt)
				if ev := lastEvent(t, got); !ok || bytes.Count(added, []byte("\n")) != 1 || ev.Type != session.TypeGraftAbandoned || ev.Reason != "reverted" || ev.Txn != graftTxn {
					t.Errorf("the target gained %q, want one graft/abandoned (reverted) of txn %s", added, graftTxn)
				}
			}
			if n, ok := c.node("s.g2"); !ok || !n.Reverted {
				t.Errorf("lineage node %+v, want reverted", n)
			}
			if c.recordExists(rec.Txn) {
				t.Errorf("record %s is still in the journal", rec.Txn)
			}
			c.secondRunIsANoOp()
		})
	}
}

// A record whose lock is held belongs to a live process: left alone and
// counted busy, then resolved once the lock is free.
func TestRecoverLeavesALockedRecordAlone(t *testing.T) {
	for _, held := range []string{"s", "s.g2"} {
		t.Run("lock "+held, func(t *testing.T) {
			c := newCrashHome(t, vfs.Default)
			c.createSource("s")
			rec, data := c.plannedGraft("s", "s.g2", "")
			rec.State = journal.TargetFlushed
			c.writeRecord(rec)
			c.writeFile("s.g2", data)
			lk, err := lockfile.TryLock(c.home, held)
			if err != nil {
				t.Fatalf("taking the lock of %s: %v", held, err)
			}
			before := c.hashHome()
			rep := c.run()
			if rep.Scanned != 1 || rep.Busy != 1 || rep.RolledBack != 0 || rep.RolledForward != 0 || len(rep.Errors) != 0 {
				t.Errorf("report %+v, want scanned=1 busy=1 and nothing done", rep)
			}
			if after := c.hashHome(); len(diffKeys(before, after)) != 0 {
				t.Errorf("a busy record's files changed: %v", diffKeys(before, after))
			}
			if err := lk.Unlock(); err != nil {
				t.Fatalf("releasing the lock: %v", err)
			}
			rolledBack(t, c.run(), "s.g2")
			c.secondRunIsANoOp()
		})
	}
}

// A journal directory that cannot be read is an error, never "0 records".
func TestRecoverUnreadableJournalDirectory(t *testing.T) {
	fault := errorfs.OnKind(errorfs.OpReadDir, journal.DirName, 1, syscall.EIO)
	c := newCrashHome(t, errorfs.Wrap(vfs.Default, fault))
	c.createSource("s")
	rec, _ := c.plannedGraft("s", "s.g2", "")
	c.writeRecord(rec)

	rep, err := recovery.Run(c.env())
	if _, fired := fault.Fired(); !fired {
		t.Fatalf("the readdir fault never fired: %s", fault)
	}
	if err == nil || !errors.Is(err, journal.ErrUnreadableDir) || !errors.Is(err, syscall.EIO) {
		t.Fatalf("recovery over an unreadable journal: %v, want an error wrapping ErrUnreadableDir and EIO", err)
	}
	if rep == nil || len(rep.Errors) == 0 || !strings.Contains(rep.Errors[0], journal.DirName) {
		t.Errorf("report %+v: a failed scan must say so in its errors, naming %s", rep, journal.DirName)
	}
	if !c.recordExists(rec.Txn) {
		t.Errorf("the record is gone after a scan that could not read the journal")
	}

	// Open runs the same scan and must fail, not open on "nothing to do".
	fault2 := errorfs.OnKind(errorfs.OpReadDir, journal.DirName, 1, syscall.EIO)
	if _, err := graft.Open(c.home, graft.Options{FS: errorfs.Wrap(vfs.Default, fault2)}); err == nil || !errors.Is(err, journal.ErrUnreadableDir) {
		t.Errorf("graft.Open over an unreadable journal: %v, want ErrUnreadableDir", err)
	}
}

// A corrupt record is reported, left in place, and gets its stable code.
func TestRecoverCorruptRecord(t *testing.T) {
	c := newCrashHome(t, vfs.Default)
	c.createSource("s")
	rec, _ := c.plannedGraft("s", "s.g2", "")
	path := c.jrnl.Path(rec.Txn)
	garbage := []byte(`{"version":1,"txn":"` + rec.Txn + `","kind":"graft","sta`)
	if err := os.WriteFile(path, garbage, journal.FileMode); err != nil {
		t.Fatal(err)
	}

	for run := 1; run <= 2; run++ {
		before := c.hashHome()
		rep, err := recovery.Run(c.env())
		if err == nil {
			t.Fatalf("run %d: a corrupt record gave no error (report %+v)", run, rep)
		}
		if code, exit := graft.CodeOf(err); code != "corrupt_journal_record" || exit != 21 {
			t.Errorf("run %d: CodeOf(%v) = %s, %d; want corrupt_journal_record, 21", run, err, code, exit)
		}
		if rep.Scanned != 1 || rep.Corrupt != 1 || len(rep.Errors) != 1 || !strings.Contains(rep.Errors[0], path) {
			t.Errorf("run %d: report %+v, want scanned=1 corrupt=1 and an error naming %s", run, rep, path)
		}
		got, rerr := os.ReadFile(path)
		if rerr != nil || !bytes.Equal(got, garbage) {
			t.Errorf("run %d: the corrupt record was not left in place as it was (%v)", run, rerr)
		}
		if after := c.hashHome(); len(diffKeys(before, after)) != 0 {
			t.Errorf("run %d changed the home: %v", run, diffKeys(before, after))
		}
	}

	// Open still opens (the service works for everything else) and says why.
	svc, err := graft.Open(c.home, graft.Options{})
	if err != nil {
		t.Fatalf("graft.Open with a corrupt record: %v", err)
	}
	if code, _ := graft.CodeOf(svc.StartupErr); code != "corrupt_journal_record" {
		t.Errorf("StartupErr %v has code %s, want corrupt_journal_record", svc.StartupErr, code)
	}
}

// A target of this txn whose bytes were tampered with before the cold read
// (L3): never resumable, never deleted.
func TestRecoverTamperedTarget(t *testing.T) {
	cases := []struct {
		name   string
		tamper func(data []byte) []byte
		// marked: a graft/abandoned is appended after the tampered bytes;
		// otherwise they stay exactly as they are (unreadable evidence).
		marked bool
		reason string
	}{
		{"a tape character changed", func(d []byte) []byte {
			out := slices.Clone(d)
			if i := bytes.LastIndex(out, []byte("importer")); i > bytes.IndexByte(out, '\n') {
				out[i+7] = 'x'
			}
			return out
		}, true, "abandoned"},
		{"the origin's type changed", func(d []byte) []byte {
			return bytes.Replace(d, []byte(`"type":"graft/origin"`), []byte(`"type":"graft/origix"`), 1)
		}, true, "abandoned"},
		{"a line that no longer parses", func(d []byte) []byte {
			first := bytes.IndexByte(d, '\n') + 1
			out := slices.Clone(d)
			out[first] = '['
			return out
		}, false, "left damaged target as evidence"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newCrashHome(t, vfs.Default)
			c.createSource("s")
			src := c.bytesOf("s")
			rec, data := c.plannedGraft("s", "s.g2", "")
			rec.State = journal.TargetFlushed
			c.writeRecord(rec)
			tampered := tc.tamper(data)
			if bytes.Equal(tampered, data) {
				t.Fatalf("the tamper changed nothing")
			}
			c.writeFile("s.g2", tampered)

			rolledBack(t, c.run(), "s.g2")
			got := c.bytesOf("s.g2")
			added, ok := bytes.CutPrefix(got, tampered)
			if !ok {
				t.Fatalf("the tampered target was removed or rewritten (%d bytes left of %d)", len(got), len(tampered))
			}
			if tc.marked {
				if ev := lastEvent(t, got); bytes.Count(added, []byte("\n")) != 1 || ev.Type != session.TypeGraftAbandoned || ev.Txn != rec.Txn {
					t.Errorf("the target gained %q, want one graft/abandoned of txn %s", added, rec.Txn)
				}
			} else if len(added) != 0 {
				t.Errorf("unreadable evidence was appended to: %q", added)
			}
			// Whatever is left cannot be resumed.
			if _, err := c.store().Append("s.g2", []session.Event{{Type: session.TypeUserMessage, Source: session.Source{Kind: session.KindUser}, Text: "continue"}}); err == nil {
				t.Errorf("the tampered target accepts appends after recovery")
			}
			if !bytes.Equal(c.bytesOf("s"), src) {
				t.Errorf("the source changed")
			}
			lo := c.leftovers("s")
			if len(lo) != 1 || lo[0].Txn != rec.Txn || !strings.HasPrefix(lo[0].Reason, tc.reason+":") {
				t.Errorf("leftovers %+v, want one of txn %s with reason %q…", lo, rec.Txn, tc.reason)
			}
			c.secondRunIsANoOp()
		})
	}
}

// A committed graft's record left by a crash (the source holds its
// graft/retired) whose source id was damaged on the disk into another
// session's, one that holds no graft/retired of this txn: read as it is,
// it would roll the committed graft back, abandoning the live target of a
// retired source. Its checksum does not match: recovery reports it
// corrupt, leaves it as evidence and changes nothing.
func TestRecoverRefusesARecordWhoseChecksumDoesNotMatch(t *testing.T) {
	c := newCrashHome(t, vfs.Default)
	c.createSource("s")
	c.createSource("t")
	rv, err := c.svc.Prepare(context.Background(), "s", graft.PrepareOptions{})
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	rec, data := c.plannedGraft("s", "s.g2", rv.PreparedID)
	rec.State = journal.ColdVerified
	c.writeRecord(rec)
	c.writeFile("s.g2", data)
	c.mark("s", session.TypeGraftRetired, rec.Txn, "s.g2", "")
	path := c.jrnl.Path(rec.Txn)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	damaged := bytes.Replace(raw, []byte(`"source": "s"`), []byte(`"source": "t"`), 1)
	if bytes.Equal(damaged, raw) {
		t.Fatalf("no source in %s", raw)
	}
	if err := os.WriteFile(path, damaged, journal.FileMode); err != nil {
		t.Fatal(err)
	}
	before := c.hashHome()
	rep, err := recovery.Run(c.env())
	if code, _ := graft.CodeOf(err); code != "corrupt_journal_record" {
		t.Fatalf("recovery with a damaged record: %v (%s), report %+v; want corrupt_journal_record", err, code, rep)
	}
	if rep.Corrupt != 1 || rep.RolledBack != 0 || rep.RolledForward != 0 || len(rep.Errors) != 1 || !strings.Contains(rep.Errors[0], "checksum") {
		t.Errorf("report %+v, want one corrupt record, named by its checksum, and nothing rolled", rep)
	}
	if after := c.hashHome(); len(diffKeys(before, after)) != 0 {
		t.Errorf("recovery changed the home through a damaged record: %v", diffKeys(before, after))
	}
	if ev := lastEvent(t, c.bytesOf("s.g2")); ev.Type == session.TypeGraftAbandoned {
		t.Errorf("the live target was abandoned: %+v", ev)
	}
}
