package crashtest

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/txn"
	"github.com/graft-project/graft/vfs"
)

// crashBin is the crashpoints build every test here runs; TestMain builds it.
var crashBin string

// seed repeats a run of TestSuite: the log prints the seed each run used.
var seed = flag.Int64("crashtest.seed", 0, "seed of TestSuite's random kill delays (0: from the clock)")

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "graft-crashtest-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	crashBin, err = BuildCrashBinary(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	if err := os.RemoveAll(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}

func table(t *testing.T, rep *Report) string {
	t.Helper()
	var b strings.Builder
	if err := rep.WriteTable(&b); err != nil {
		t.Fatalf("writing the table: %v", err)
	}
	return b.String()
}

// TestSuite is the CI-sized suite: every group, 200 random kills, 50 race
// rounds each. It must pass whole and cover every crash point.
func TestSuite(t *testing.T) {
	start := time.Now()
	rep, err := Run(Config{Bin: crashBin, WorkDir: t.TempDir(), Seed: *seed})
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Counts
	t.Logf("%s in %s (seed %d; repeat with -crashtest.seed=%d)", rep.Summary(), time.Since(start).Round(time.Millisecond), rep.Seed, rep.Seed)
	t.Logf("cases %d: crash points %d/%d, random kills %d, power-loss states %d, recovery power-loss states %d, EIO ops %d, torn writes %d, torn offsets %d (records: one offset in %d), race rounds %d, skipped %d",
		c.Cases, c.CrashPoints, len(txn.Points)+len(txn.ExportPoints), c.RandomKills, c.PowerLossStates, c.RecoveryPowerLossStates, c.EIOOps, c.TornWrites, c.TornOffsets, rep.TornRecordStride, c.RaceRounds, c.Skipped)
	for _, row := range rep.Rows {
		if row.Result == Skip {
			t.Logf("skipped %s: %s", row.Case, row.Observed)
		}
	}
	if c.Failed > 0 {
		t.Errorf("%s\n%s", rep.Summary(), table(t, rep))
	}
	if missing := rep.Uncovered(); len(missing) > 0 {
		t.Errorf("crash points of txn.Points and txn.ExportPoints without a case: %v", missing)
	}
	if c.RandomKills != DefaultRandomKills || c.RaceRounds != 2*DefaultRaceRounds {
		t.Errorf("random kills %d (want %d), race rounds %d (want %d)", c.RandomKills, DefaultRandomKills, c.RaceRounds, 2*DefaultRaceRounds)
	}
	if c.PowerLossStates == 0 || c.RecoveryPowerLossStates == 0 || c.EIOOps == 0 || c.TornWrites == 0 || c.TornOffsets == 0 {
		t.Errorf("a bulk family ran no case: %+v", c)
	}
	if !strings.HasSuffix(table(t, rep), "\n"+rep.Summary()+"\n") {
		t.Errorf("the table does not end with the line %q", rep.Summary())
	}
}

// TestUncoveredNamesAMissingPoint: coverage is computed from the rows, so
// a point without a row is named.
func TestUncoveredNamesAMissingPoint(t *testing.T) {
	rep := &Report{}
	for _, p := range append(append([]txn.Point{}, txn.Points...), txn.ExportPoints...) {
		if p != txn.CommitColdRead {
			rep.Rows = append(rep.Rows, Row{Case: "point " + string(p), Point: p, Result: Pass})
		}
	}
	got := rep.Uncovered()
	if len(got) != 1 || got[0] != txn.CommitColdRead {
		t.Fatalf("Uncovered() = %v, want [%s]", got, txn.CommitColdRead)
	}
}

// failures returns the failing rows of group.
func failures(rep *Report, group string) (failed, total int) {
	for _, row := range rep.Rows {
		if row.Group == group {
			total++
			if row.Result == Fail {
				failed++
			}
		}
	}
	return failed, total
}

// TestSkippingTheTargetDirSyncFailsPowerLoss proves the power-loss cases
// can fail: without the directory fsync after the target is created, a
// state keeps the source's graft/retired but loses the target.
func TestSkippingTheTargetDirSyncFailsPowerLoss(t *testing.T) {
	rep, err := Run(Config{Bin: crashBin, WorkDir: t.TempDir(), Groups: []string{GroupPowerLoss}, Faults: txn.Faults{SkipTargetDirSync: true}})
	if err != nil {
		t.Fatal(err)
	}
	failed, total := failures(rep, GroupPowerLoss)
	t.Logf("with SkipTargetDirSync: %d of %d power-loss rows failed", failed, total)
	if failed == 0 {
		t.Fatalf("the power-loss cases passed without the target's directory fsync:\n%s", table(t, rep))
	}
	for _, row := range rep.Rows {
		if row.Result == Fail && !strings.Contains(row.Observed, "src is retired") {
			t.Errorf("%s failed for another reason than a retired source whose target was lost: %s", row.Case, row.Observed)
		}
	}
}

// TestSkippingTheColdReadFailsL3 proves L3 can fail: without the cold
// read a tampered target is committed.
func TestSkippingTheColdReadFailsL3(t *testing.T) {
	rep, err := Run(Config{Bin: crashBin, WorkDir: t.TempDir(), Groups: []string{GroupL3}, Faults: txn.Faults{SkipColdRead: true}})
	if err != nil {
		t.Fatal(err)
	}
	failed, total := failures(rep, GroupL3)
	if total == 0 || failed != total {
		t.Fatalf("with SkipColdRead, %d of %d L3 rows failed; want all:\n%s", failed, total, table(t, rep))
	}
}

// TestNormalBinaryCannotBeKilledThroughTheEnvironment: a build without the
// crashpoints tag ignores GRAFT_CRASH_POINT at every point; each commit
// and each revert completes.
func TestNormalBinaryCannotBeKilledThroughTheEnvironment(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	normal := filepath.Join(t.TempDir(), "graft")
	build := exec.Command("go", "build", "-o", normal, "./cmd/graft")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/graft: %v\n%s", err, out)
	}
	s := newTestSuite(t)
	s.bin = normal
	for _, p := range txn.Points {
		tmpl, args, live := s.tmpl, commitArgs(s.tmpl.reviews[s.tmpl.source()], caseTarget), true
		if strings.HasPrefix(string(p), "revert/") {
			tmpl, args, live = s.done, []string{"revert", caseTarget, "--json"}, false
		}
		_, home, err := s.caseHome(tmpl, string(p))
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.runChild(child{home: home, args: args, killAt: p})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if res.exit != 0 || res.reached || strings.Contains(res.stderr, reachedPrefix) {
			t.Errorf("GRAFT_CRASH_POINT=%s stopped or failed a normal binary: %s", p, res)
			continue
		}
		sv, err := takeSurvey(home)
		if err != nil {
			t.Fatal(err)
		}
		if got := sv.usable(caseTarget); got != live {
			t.Errorf("GRAFT_CRASH_POINT=%s: after %s, %s", p, args[0], sv.summary(tmpl))
		}
	}
}

// TestCheckerCatchesAChangedSource: an event appended to the source that
// is not a graft mark breaks "the source's bytes unchanged".
func TestCheckerCatchesAChangedSource(t *testing.T) {
	s := newTestSuite(t)
	_, home, err := s.caseHome(s.tmpl, "changed-source")
	if err != nil {
		t.Fatal(err)
	}
	st, err := session.OpenStore(vfs.Default, home)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Append(s.tmpl.source(), []session.Event{probeEvent()}); err != nil {
		t.Fatal(err)
	}
	_, problems := check(home, expect{tmpl: s.tmpl, outcome: sourceStays, recover: recoverInProcess})
	if !strings.Contains(strings.Join(problems, "\n"), "user/message was appended") {
		t.Fatalf("the checker missed a user/message appended to the source: %q", problems)
	}
}

// TestCheckerCatchesALostCommit: a home where the commit never happened
// fails the outcome "target live".
func TestCheckerCatchesALostCommit(t *testing.T) {
	s := newTestSuite(t)
	_, home, err := s.caseHome(s.tmpl, "lost-commit")
	if err != nil {
		t.Fatal(err)
	}
	_, problems := check(home, expect{tmpl: s.tmpl, outcome: targetLive, target: caseTarget, recover: recoverInProcess})
	if !strings.Contains(strings.Join(problems, "\n"), "expected tgt live") {
		t.Fatalf("the checker missed a lost commit: %q", problems)
	}
}

// newTestSuite is a suite on the crashpoints binary with its templates
// built, for tests of single cases and of the checker.
func newTestSuite(t *testing.T) *suite {
	t.Helper()
	s := &suite{cfg: Config{Turns: DefaultTurns, Events: DefaultEvents, TornRecordStride: DefaultTornRecordStride}, bin: crashBin, work: t.TempDir()}
	var err error
	if s.tmpl, err = s.prepareTemplate("template", "src"); err != nil {
		t.Fatal(err)
	}
	if s.done, err = s.committedTemplate(s.tmpl); err != nil {
		t.Fatal(err)
	}
	return s
}
