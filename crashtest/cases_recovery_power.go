package crashtest

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/txn"
	"github.com/graft-project/graft/vfs"
	"github.com/graft-project/graft/vfs/crashfs"
)

// recoveryPowerPoints are the crash points that leave a journal record for
// recovery to resolve: every point but the locks (nothing written yet) and
// the record's removal (nothing left). A new point lands here by default;
// if it leaves no record, its row fails saying so.
func recoveryPowerPoints() []txn.Point {
	noRecord := []txn.Point{txn.CommitLocked, txn.CommitJournalRemoved, txn.RevertLocked, txn.RevertJournalRemoved}
	var out []txn.Point
	for _, p := range txn.Points {
		if !slices.Contains(noRecord, p) {
			out = append(out, p)
		}
	}
	return out
}

// recoveryPowerJobs: power loss during recovery itself. One job per crash
// point: a child is killed there, recovery of the crashed home is recorded
// on crashfs, and every crash state of that recording is recovered twice
// and checked, plus the state right after recovery returned.
func (s *suite) recoveryPowerJobs() []job {
	var jobs []job
	for _, p := range recoveryPowerPoints() {
		jobs = append(jobs, job{run: func() []Row { return s.recoveryPower(p) }})
	}
	return jobs
}

// pointRun is the template and the command a kill at p interrupts: a
// commit of the prepared template, or a revert of the committed one.
func (s *suite) pointRun(p txn.Point) (*template, []string) {
	if strings.HasPrefix(string(p), "revert/") {
		return s.done, []string{"revert", caseTarget, "--json"}
	}
	return s.tmpl, commitArgs(s.tmpl.reviews[s.tmpl.source()], caseTarget)
}

func (s *suite) recoveryPower(p txn.Point) []Row {
	family := familyRecoveryPower + "/" + string(p)
	o := pointOutcome(p)
	head := Row{Family: family, Case: fmt.Sprintf("recovery power loss after %s", p),
		Injection: fmt.Sprintf("SIGKILL at %s, then power loss during the recovery of it", p), Expected: pointText(p, o)}
	var rows []Row
	r := s.inDir(head, func(r Row, dir string) Row {
		var err error
		rows, err = s.recordRecovery(p, o, dir)
		if err != nil {
			return failed(r, err)
		}
		r.Result = Pass
		return r
	})
	if r.Result == Fail {
		return []Row{r}
	}
	return rows
}

// recordRecovery kills a child at p in a copy of its template under dir,
// records the recovery of that home on crashfs and checks every state.
func (s *suite) recordRecovery(p txn.Point, o outcome, dir string) ([]Row, error) {
	tmpl, args := s.pointRun(p)
	home := filepath.Join(dir, "home")
	if err := copyTree(tmpl.home, home); err != nil {
		return nil, err
	}
	res, err := s.runChild(child{home: home, args: args, killAt: p})
	if err != nil {
		return nil, err
	}
	if !res.reached {
		return nil, fmt.Errorf("the child never reached %s (%s)", p, res)
	}
	mem, err := crashfs.LoadDir(home)
	if err != nil {
		return nil, err
	}
	mem.StartRecording()
	// catalog.db and locks/ stay on disk in home (bbolt and flock need real
	// files); sessions/ and .txn/ are the recorded crashfs.
	var fsys vfs.FS = &homeFS{mem: mem, home: home}
	if s.dropRecoveryDirSyncs {
		fsys = noDirSyncFS{fsys}
	}
	svc, err := graft.Open(home, graft.Options{FS: fsys, SkipRecovery: true, Faults: s.cfg.Faults})
	if err != nil {
		return nil, fmt.Errorf("opening the crashed home on crashfs: %w", err)
	}
	rep, err := svc.Recover(context.Background())
	if err != nil {
		return nil, fmt.Errorf("the recorded recovery failed: %w", err)
	}
	if rep.Scanned != 1 || rep.RolledBack+rep.RolledForward != 1 {
		return nil, fmt.Errorf("the recorded recovery should resolve the one record a kill at %s leaves: scanned %d, forward %d, back %d (a point that leaves no record belongs in the exclusions of recoveryPowerPoints)", p, rep.Scanned, rep.RolledForward, rep.RolledBack)
	}
	returned := mem.CrashClone()
	states, err := mem.CrashStates()
	if err != nil {
		return nil, err
	}
	ops := mem.RecordedOps()
	family := familyRecoveryPower + "/" + string(p)
	rows := []Row{s.powerState(Row{
		Case:      fmt.Sprintf("recovery after %s returned", p),
		Injection: fmt.Sprintf("SIGKILL at %s; power loss right after recovery returned (%d recorded operations)", p, ops),
		Expected:  pointText(p, o) + ": " + expectedText(o, caseTarget),
	}, tmpl, returned, o)}
	for k, st := range states {
		rows = append(rows, s.powerState(Row{
			Family: family, Case: fmt.Sprintf("%s state %d/%d", family, k+1, len(states)),
			Injection: fmt.Sprintf("SIGKILL at %s; power loss during recovery %s", p, st.Name),
			Expected:  pointText(p, o) + ": " + expectedText(o, caseTarget),
		}, tmpl, st.FS, o))
	}
	return rows, nil
}

// noDirSyncFS drops every directory fsync: a recovery that forgets one.
// Only the test that proves this family can fail sets it.
type noDirSyncFS struct{ vfs.FS }

func (noDirSyncFS) SyncDir(string) error { return nil }
