package graft_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/journal"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/txn"
)

// What the disk must hold at a crash point of a commit.
type commitDisk struct {
	record  journal.State // "" = no record
	target  string        // "absent", "empty", "half" or "full"
	retired bool          // the source ends with this txn's graft/retired
	lineage bool          // the catalog has the target's lineage node
}

var commitAt = map[txn.Point]commitDisk{
	txn.CommitLocked:          {"", "absent", false, false},
	txn.CommitJournalPrepared: {journal.Preparing, "absent", false, false},
	txn.CommitTargetCreated:   {journal.Preparing, "empty", false, false},
	txn.CommitTargetHalf:      {journal.Preparing, "half", false, false},
	txn.CommitTargetWritten:   {journal.Preparing, "full", false, false},
	txn.CommitTargetSynced:    {journal.Preparing, "full", false, false},
	txn.CommitTargetDirSynced: {journal.Preparing, "full", false, false},
	txn.CommitJournalFlushed:  {journal.TargetFlushed, "full", false, false},
	txn.CommitColdRead:        {journal.TargetFlushed, "full", false, false},
	txn.CommitJournalVerified: {journal.ColdVerified, "full", false, false},
	txn.CommitSourceRetired:   {journal.ColdVerified, "full", true, false},
	txn.CommitLineage:         {journal.ColdVerified, "full", true, true},
	txn.CommitJournalRemoved:  {"", "full", true, true},
}

// What the disk must hold at a crash point of a revert.
type revertDisk struct {
	record    journal.State
	unretired bool // the source ends with graft/unretired for the graft
	abandoned bool // the target ends with graft/abandoned (reason reverted)
	reverted  bool // the lineage node says reverted
}

var revertAt = map[txn.Point]revertDisk{
	txn.RevertLocked:          {"", false, false, false},
	txn.RevertJournalPrepared: {journal.Preparing, false, false, false},
	txn.RevertSourceUnretired: {journal.Preparing, true, false, false},
	txn.RevertTargetAbandoned: {journal.Preparing, true, true, false},
	txn.RevertLineage:         {journal.Preparing, true, true, true},
	txn.RevertJournalRemoved:  {"", true, true, true},
}

// Every point of the single list has an expectation here: a point added
// to txn.Points without one fails this test.
func TestEveryPointHasAnExpectedDiskState(t *testing.T) {
	for _, p := range txn.Points {
		_, c := commitAt[p]
		_, r := revertAt[p]
		if c == r {
			t.Errorf("point %s: in the commit table %v, in the revert table %v; want exactly one", p, c, r)
		}
	}
	if n := len(commitAt) + len(revertAt); n != len(txn.Points) {
		t.Errorf("the tables hold %d points, txn.Points %d", n, len(txn.Points))
	}
}

func pointsWithPrefix(prefix string) []txn.Point {
	var out []txn.Point
	for _, p := range txn.Points {
		if strings.HasPrefix(string(p), prefix) {
			out = append(out, p)
		}
	}
	return out
}

// diskSnapshot is what a hook saw at one point.
type diskSnapshot struct {
	point   txn.Point
	records []journal.Record
	source  []byte
	target  []byte // nil: absent
	node    bool
	nodeRev bool
}

func (h *flowHome) snapshot(p txn.Point, source, target string) diskSnapshot {
	n, ok := h.node(target)
	return diskSnapshot{point: p, records: h.records(), source: h.bytesOf(source), target: h.bytesOf(target), node: ok, nodeRev: n.Reverted}
}

func TestCommitDiskStateAtEveryPoint(t *testing.T) {
	h := openFlowHome(t, graft.Options{})
	h.create("s", workSession()...)
	rv := h.prepare("s", graft.PrepareOptions{})
	before := h.bytesOf("s")
	var snaps []diskSnapshot
	h.svc.SetHook(func(p txn.Point) { snaps = append(snaps, h.snapshot(p, "s", "s.g2")) })
	res := h.commit(rv, "s.g2")
	h.svc.SetHook(nil)

	visited := make([]txn.Point, len(snaps))
	for k, s := range snaps {
		visited[k] = s.point
	}
	if want := pointsWithPrefix("commit/"); !slices.Equal(visited, want) {
		t.Fatalf("commit visited points\n%v\nwant each commit point once, in order:\n%v", visited, want)
	}

	final := h.bytesOf("s.g2")
	tevs := decodeLines(t, final)
	if len(tevs) != res.TapeEvents {
		t.Fatalf("target has %d events, the result says %d", len(tevs), res.TapeEvents)
	}
	o := tevs[0]
	if o.Type != session.TypeGraftOrigin || o.Txn != res.TxnID || o.Parent != "s" || o.ParentBoundary != workBoundary || o.Generation != 2 || o.TapeHash != rv.TapeHash || o.TapeEvents != res.TapeEvents {
		t.Fatalf("target's first event %+v is not the graft/origin of txn %s (parent s, boundary %d, generation 2, tape %s)", o, res.TxnID, workBoundary, rv.TapeHash)
	}
	if rv.TapeHash != res.TapeHash {
		t.Fatalf("committed tape %s, reviewed %s: nothing drifted, they must be equal", res.TapeHash, rv.TapeHash)
	}

	for _, s := range snaps {
		want := commitAt[s.point]
		switch {
		case want.record == "" && len(s.records) != 0:
			t.Errorf("%s: journal holds %d record(s), want none", s.point, len(s.records))
		case want.record != "" && len(s.records) != 1:
			t.Errorf("%s: journal holds %d record(s), want one in %s", s.point, len(s.records), want.record)
		case want.record != "":
			r := s.records[0]
			if r.State != want.record {
				t.Errorf("%s: record state %s, want %s", s.point, r.State, want.record)
			}
			if r.Txn != res.TxnID || r.Kind != journal.KindGraft || r.Source != "s" || r.Target != "s.g2" || r.PreparedID != rv.PreparedID ||
				r.TapeHash != res.TapeHash || r.TapeEvents != res.TapeEvents || r.TargetBytes != int64(len(final)) || r.BoundarySeq != workBoundary || r.Generation != 2 {
				t.Errorf("%s: record %+v does not describe the commit %+v (%d target bytes)", s.point, r, res, len(final))
			}
		}

		switch want.target {
		case "absent":
			if s.target != nil {
				t.Errorf("%s: target exists (%d bytes), want absent", s.point, len(s.target))
			}
		case "empty":
			if s.target == nil || len(s.target) != 0 {
				t.Errorf("%s: target is %v (%d bytes), want an empty file", s.point, s.target != nil, len(s.target))
			}
		case "half":
			if len(s.target) != len(final)/2 || !bytes.HasPrefix(final, s.target) {
				t.Errorf("%s: target holds %d bytes, want the first %d of the %d final ones", s.point, len(s.target), len(final)/2, len(final))
			}
		case "full":
			if !bytes.Equal(s.target, final) {
				t.Errorf("%s: target holds %d bytes that differ from the final %d", s.point, len(s.target), len(final))
			}
		}

		if !want.retired {
			if !bytes.Equal(s.source, before) {
				t.Errorf("%s: source changed before the commit point (%d bytes, was %d)", s.point, len(s.source), len(before))
			}
		} else {
			added, ok := bytes.CutPrefix(s.source, before)
			if !ok {
				t.Fatalf("%s: the source's first %d bytes changed", s.point, len(before))
			}
			evs := decodeLines(t, added)
			if len(evs) != 1 || evs[0].Type != session.TypeGraftRetired || evs[0].Txn != res.TxnID || evs[0].Target != "s.g2" || evs[0].Seq != 12 {
				t.Errorf("%s: the source gained %+v, want exactly one graft/retired (seq 12) naming txn %s and target s.g2", s.point, evs, res.TxnID)
			}
		}
		if s.node != want.lineage {
			t.Errorf("%s: lineage node present %v, want %v", s.point, s.node, want.lineage)
		}
	}

	n, ok := h.node("s.g2")
	if !ok || n.Parent != "s" || n.Generation != 2 || n.Txn != res.TxnID || n.TapeHash != res.TapeHash || n.Boundary != workBoundary || n.Reverted {
		t.Errorf("lineage node of s.g2 = %+v (present %v), want parent s, generation 2, txn %s", n, ok, res.TxnID)
	}
	if p := h.prepared(rv.PreparedID); p.UsedBy != res.TxnID {
		t.Errorf("prepared %s used by %q, want %s", rv.PreparedID, p.UsedBy, res.TxnID)
	}
}

func TestRevertDiskStateAtEveryPoint(t *testing.T) {
	h := openFlowHome(t, graft.Options{})
	h.create("s", workSession()...)
	res := h.commit(h.prepare("s", graft.PrepareOptions{}), "s.g2")
	srcBefore, tgtBefore := h.bytesOf("s"), h.bytesOf("s.g2")
	var snaps []diskSnapshot
	h.svc.SetHook(func(p txn.Point) { snaps = append(snaps, h.snapshot(p, "s", "s.g2")) })
	rres, err := h.svc.Revert("s.g2", false)
	h.svc.SetHook(nil)
	if err != nil {
		t.Fatalf("Revert(s.g2): %v", err)
	}
	if rres.Reverts != res.TxnID || rres.Source != "s" || rres.Target != "s.g2" || rres.Extra != 0 || len(rres.Notes) != 0 {
		t.Fatalf("revert result %+v, want it to undo txn %s of s → s.g2 with no extra events and no notes", rres, res.TxnID)
	}

	visited := make([]txn.Point, len(snaps))
	for k, s := range snaps {
		visited[k] = s.point
	}
	if want := pointsWithPrefix("revert/"); !slices.Equal(visited, want) {
		t.Fatalf("revert visited points\n%v\nwant each revert point once, in order:\n%v", visited, want)
	}

	for _, s := range snaps {
		want := revertAt[s.point]
		switch {
		case want.record == "" && len(s.records) != 0:
			t.Errorf("%s: journal holds %d record(s), want none", s.point, len(s.records))
		case want.record != "" && len(s.records) != 1:
			t.Errorf("%s: journal holds %d record(s), want one in %s", s.point, len(s.records), want.record)
		case want.record != "":
			r := s.records[0]
			if r.State != want.record || r.Kind != journal.KindRevert || r.Txn != rres.Txn || r.Reverts != res.TxnID || r.Source != "s" || r.Target != "s.g2" {
				t.Errorf("%s: record %+v, want revert %s of txn %s in %s", s.point, r, rres.Txn, res.TxnID, want.record)
			}
		}
		checkOneMark(t, s.point, "source", srcBefore, s.source, want.unretired, session.TypeGraftUnretired, res.TxnID, "")
		checkOneMark(t, s.point, "target", tgtBefore, s.target, want.abandoned, session.TypeGraftAbandoned, res.TxnID, "reverted")
		if !s.node || s.nodeRev != want.reverted {
			t.Errorf("%s: lineage node present %v reverted %v, want present, reverted %v", s.point, s.node, s.nodeRev, want.reverted)
		}
	}
	if st := h.info("s").State(); st != session.StateActive {
		t.Errorf("source state after revert: %s, want active", st)
	}
	if st := h.info("s.g2").State(); st != session.StateAbandoned {
		t.Errorf("target state after revert: %s, want abandoned", st)
	}
}

// checkOneMark checks that got is before, or (when marked) before plus
// exactly one graft mark of type typ for txn (and reason, if given).
func checkOneMark(t *testing.T, p txn.Point, what string, before, got []byte, marked bool, typ, txnID, reason string) {
	t.Helper()
	added, ok := bytes.CutPrefix(got, before)
	if !ok {
		t.Errorf("%s: the %s's first %d bytes changed", p, what, len(before))
		return
	}
	if !marked {
		if len(added) != 0 {
			t.Errorf("%s: the %s gained %q, want nothing yet", p, what, added)
		}
		return
	}
	evs := decodeLines(t, added)
	if len(evs) != 1 || evs[0].Type != typ || evs[0].Txn != txnID || (reason != "" && evs[0].Reason != reason) {
		t.Errorf("%s: the %s gained %+v, want exactly one %s for txn %s", p, what, evs, typ, txnID)
	}
}
