package crashtest

import (
	"strings"
	"testing"

	"github.com/graft-project/graft/txn"
)

// TestRecoveryPowerLossCoversEveryRecordPoint: every crash point that
// leaves a record gets a recorded recovery, and every one passes.
func TestRecoveryPowerLossCoversEveryRecordPoint(t *testing.T) {
	rep, err := Run(Config{Bin: crashBin, WorkDir: t.TempDir(), Groups: []string{GroupRecoveryPowerLoss}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Counts.Failed > 0 {
		t.Fatalf("%s\n%s", rep.Summary(), table(t, rep))
	}
	states := map[txn.Point]int{}
	for _, row := range rep.Rows {
		if p, ok := strings.CutPrefix(row.Family, familyRecoveryPower+"/"); ok {
			states[txn.Point(p)]++
		}
	}
	for _, p := range recoveryPowerPoints() {
		if states[p] < 2 {
			t.Errorf("%s: %d crash states of its recovery were checked; want at least the start and one after a recorded operation", p, states[p])
		}
	}
	if n := len(recoveryPowerPoints()); n != len(txn.Points)-4 {
		t.Errorf("%d points leave a record, want every point but the two locks and the two record removals (%d)", n, len(txn.Points)-4)
	}
	t.Logf("recovery power-loss states: %d over %d crash points", rep.Counts.RecoveryPowerLossStates, len(states))
}

// TestDroppedDirSyncInRecoveryFailsRecoveryPowerLoss proves the family can
// fail: a recovery that removes the shell of a crashed commit without the
// directory fsync, then removes the record durably, leaves a state with the
// shell back and no record to remove it.
func TestDroppedDirSyncInRecoveryFailsRecoveryPowerLoss(t *testing.T) {
	s := newTestSuite(t)
	s.dropRecoveryDirSyncs = true
	rows := s.recoveryPower(txn.CommitTargetCreated)
	var failed []Row
	for _, r := range rows {
		if r.Result == Fail {
			failed = append(failed, r)
		}
	}
	t.Logf("without the directory fsyncs of recovery: %d of %d rows failed", len(failed), len(rows))
	if len(failed) == 0 {
		t.Fatalf("every recovery power-loss state passed although recovery skipped its directory fsyncs: %+v", rows)
	}
	for _, r := range failed {
		if !strings.Contains(r.Observed, "shell without graft/origin") {
			t.Errorf("%s failed for another reason than a shell left behind: %s", r.Case, r.Observed)
		}
	}
	s.dropRecoveryDirSyncs = false
	for _, r := range s.recoveryPower(txn.CommitTargetCreated) {
		if r.Result != Pass {
			t.Errorf("with the directory fsyncs, %s: %s", r.Case, r.Observed)
		}
	}
}
