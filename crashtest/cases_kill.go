package crashtest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/graft-project/graft/journal"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/txn"
	"github.com/graft-project/graft/vfs"
)

// killSpec is a child killed at a crash point, then checked.
type killSpec struct {
	row   Row
	tmpl  *template
	args  []string
	point txn.Point
	exp   expect
	// before checks the crashed home before anything recovers it; after
	// checks it once the checker (and so recovery) ran.
	before, after func(home string) []string
}

func (s *suite) killCase(k killSpec) Row {
	r := k.row
	r.Injection = fmt.Sprintf("SIGKILL at %s", k.point)
	return s.inCase(r, k.tmpl, func(r Row, home string) Row { return s.killAt(k, r, home) })
}

func (s *suite) killAt(k killSpec, r Row, home string) Row {
	res, err := s.runChild(child{home: home, args: k.args, killAt: k.point})
	if err != nil {
		return failed(r, err)
	}
	if !res.reached {
		r.Result, r.Observed = Fail, fmt.Sprintf("FAILED: the child never reached %s (%s)", k.point, res)
		return r
	}
	r.Point = k.point
	var problems []string
	if k.before != nil {
		problems = append(problems, k.before(home)...)
	}
	k.exp.recover = s.recoverWithBinary
	observed, more := check(home, k.exp)
	problems = append(problems, more...)
	if k.after != nil {
		problems = append(problems, k.after(home)...)
	}
	judge(&r, observed, problems)
	return r
}

// failed is a row whose case could not be carried out.
func failed(r Row, err error) Row {
	r.Result = Fail
	r.Observed = "FAILED: " + err.Error()
	return r
}

func expectedText(o outcome, target string) string {
	switch o {
	case sourceStays:
		return "source usable, no live target; recovery twice → scanned=0"
	case targetLive:
		return fmt.Sprintf("%s live, source retired; recovery twice → scanned=0", target)
	}
	return "source or target usable; recovery twice → scanned=0"
}

// pointOutcome is where a kill at p must end: before the commit point of
// the transaction it rolls back, at or after it forward. For a revert,
// "back" leaves the graft live and "forward" makes the source usable.
func pointOutcome(p txn.Point) outcome {
	at := slices.Index(txn.Points, p)
	if strings.HasPrefix(string(p), "revert/") {
		if at < slices.Index(txn.Points, txn.RevertSourceUnretired) {
			return targetLive
		}
		return sourceStays
	}
	if at < slices.Index(txn.Points, txn.CommitSourceRetired) {
		return sourceStays
	}
	return targetLive
}

// pointText says which way a kill at p goes.
func pointText(p txn.Point, o outcome) string {
	revert := strings.HasPrefix(string(p), "revert/")
	switch {
	case revert && o == targetLive:
		return "revert rolled back, the graft stays"
	case revert:
		return "revert rolled forward"
	case o == targetLive:
		return "commit rolled forward"
	}
	return "commit rolled back"
}

// pointJobs kills a child at every point of txn.Points: commit points
// during `graft commit`, revert points during `graft revert` of a committed
// graft. A point of any other kind gets no case, and Report.Uncovered
// names it.
func (s *suite) pointJobs() []job {
	var jobs []job
	for _, p := range txn.Points {
		spec := killSpec{point: p, row: Row{Case: "point " + string(p)}}
		switch {
		case strings.HasPrefix(string(p), "commit/"):
			spec.tmpl, spec.args = s.tmpl, commitArgs(s.tmpl.reviews[s.tmpl.source()], caseTarget)
		case strings.HasPrefix(string(p), "revert/"):
			spec.tmpl, spec.args = s.done, []string{"revert", caseTarget, "--json"}
		default:
			continue
		}
		o := pointOutcome(p)
		spec.exp = expect{tmpl: spec.tmpl, outcome: o, target: caseTarget}
		spec.row.Expected = pointText(p, o) + ": " + expectedText(o, caseTarget)
		jobs = append(jobs, job{run: func() []Row { return []Row{s.killCase(spec)} }})
	}
	return jobs
}

// l1Jobs are the seed's kills: after create, after half a write, after the
// flush, each before the commit point.
func (s *suite) l1Jobs() []job {
	args := commitArgs(s.tmpl.reviews[s.tmpl.source()], caseTarget)
	exp := expect{tmpl: s.tmpl, outcome: sourceStays}
	targetPath := func(home string) string { return filepath.Join(home, "sessions", caseTarget+session.Ext) }
	specs := []killSpec{
		{
			row:   Row{Case: "L1a", Expected: "source usable, target 0 events, record collected"},
			point: txn.CommitTargetCreated,
			before: func(home string) []string {
				fi, err := os.Stat(targetPath(home))
				if err != nil {
					return []string{fmt.Sprintf("L1a: the target shell should exist before recovery: %v", err)}
				}
				if fi.Size() != 0 {
					return []string{fmt.Sprintf("L1a: the target should be empty before recovery, it has %d bytes", fi.Size())}
				}
				return nil
			},
			after: func(home string) []string {
				var p []string
				if _, err := os.Stat(targetPath(home)); !os.IsNotExist(err) {
					p = append(p, fmt.Sprintf("L1a: recovery should remove the empty shell: stat says %v", err))
				}
				return append(p, journalEmpty(home)...)
			},
		},
		{
			row:   Row{Case: "L1b", Expected: "source usable; the half-written target is never resumable"},
			point: txn.CommitTargetHalf,
			before: func(home string) []string {
				fi, err := os.Stat(targetPath(home))
				if err != nil {
					return []string{fmt.Sprintf("L1b: the half-written target should exist: %v", err)}
				}
				if fi.Size() == 0 {
					return []string{"L1b: the target should hold half the tape, it is empty"}
				}
				return nil
			},
			after: journalEmpty,
		},
		{
			row:   Row{Case: "L1c", Expected: "source usable; the flushed, unverified target is never resumable"},
			point: txn.CommitJournalFlushed,
			before: func(home string) []string {
				rec, err := onlyRecord(home)
				if err != nil {
					return []string{"L1c: " + err.Error()}
				}
				fi, err := os.Stat(targetPath(home))
				if err != nil {
					return []string{fmt.Sprintf("L1c: the flushed target should exist: %v", err)}
				}
				if rec.State != journal.TargetFlushed || fi.Size() != rec.TargetBytes {
					return []string{fmt.Sprintf("L1c: expected record TARGET_FLUSHED and a whole target of %d bytes, found %s and %d bytes", rec.TargetBytes, rec.State, fi.Size())}
				}
				return nil
			},
			after: journalEmpty,
		},
	}
	var jobs []job
	for _, spec := range specs {
		spec.tmpl, spec.args, spec.exp = s.tmpl, args, exp
		jobs = append(jobs, job{run: func() []Row { return []Row{s.killCase(spec)} }})
	}
	return jobs
}

// onlyRecord reads the one journal record of a crashed home.
func onlyRecord(home string) (journal.Record, error) {
	j, err := journal.Open(vfs.Default, home)
	if err != nil {
		return journal.Record{}, err
	}
	scan, err := j.Scan()
	if err != nil {
		return journal.Record{}, err
	}
	if len(scan.Records) != 1 || len(scan.Corrupt) != 0 {
		return journal.Record{}, fmt.Errorf("expected one readable journal record, found %d (and %d corrupt)", len(scan.Records), len(scan.Corrupt))
	}
	return scan.Records[0], nil
}

func journalEmpty(home string) []string {
	ents, err := os.ReadDir(filepath.Join(home, ".txn"))
	if err != nil {
		return []string{fmt.Sprintf("reading the journal directory: %v", err)}
	}
	if len(ents) > 0 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		return []string{fmt.Sprintf("the journal should be empty after recovery, it holds %s", strings.Join(names, ", "))}
	}
	return nil
}

// l5Jobs: a crashed commit leaves one record; the first scan resolves it,
// the second finds nothing.
func (s *suite) l5Jobs() []job {
	return []job{{run: func() []Row {
		r := Row{Case: "L5", Injection: fmt.Sprintf("SIGKILL at %s, then graft recover twice", txn.CommitJournalFlushed), Expected: "first scan resolves 1 record, second scanned=0"}
		return []Row{s.inCase(r, s.tmpl, s.recoverTwice)}
	}}}
}

// recoverTwice is L5 on a copied home.
func (s *suite) recoverTwice(r Row, home string) Row {
	res, err := s.runChild(child{home: home, args: commitArgs(s.tmpl.reviews[s.tmpl.source()], caseTarget), killAt: txn.CommitJournalFlushed})
	if err != nil {
		return failed(r, err)
	}
	if !res.reached {
		return failed(r, fmt.Errorf("the child never reached %s (%s)", txn.CommitJournalFlushed, res))
	}
	first, err := s.recoverWithBinary(home)
	if err != nil {
		return failed(r, err)
	}
	second, err := s.recoverWithBinary(home)
	if err != nil {
		return failed(r, err)
	}
	var problems []string
	if first.Scanned != 1 || first.RolledBack != 1 || first.Exit != 0 {
		problems = append(problems, fmt.Sprintf("first scan should roll back the 1 record: %s", first))
	}
	if second.Scanned != 0 || second.Exit != 0 {
		problems = append(problems, fmt.Sprintf("second scan should find scanned=0: %s", second))
	}
	observed, more := check(home, expect{tmpl: s.tmpl, outcome: sourceStays, recover: s.recoverWithBinary})
	judge(&r, fmt.Sprintf("scan 1: %s; scan 2: %s; %s", first, second, observed), append(problems, more...))
	return r
}

// randomKillJobs kill commits at a random instant of the transaction: a
// delay drawn uniformly from [start, end), start the median time a child
// takes to reach commit/locked (process start, recovery scan, locks) and
// end the median duration of an unkilled commit, both measured here. The
// delays are drawn up front from Config.Seed, so a seed names a run.
func (s *suite) randomKillJobs() []job {
	start, end, err := s.measureCommit()
	if err != nil {
		return []job{{run: func() []Row {
			return []Row{failed(Row{Family: familyRandomKill, Case: "random kill", Injection: "(not run)"}, err)}
		}}}
	}
	rng := rand.New(rand.NewPCG(uint64(s.cfg.Seed), 0x6372617368))
	var jobs []job
	for k := 1; k <= s.cfg.RandomKills; k++ {
		delay := start + time.Duration(rng.Int64N(int64(end-start)))
		jobs = append(jobs, job{run: func() []Row { return []Row{s.randomKill(k, delay, start, end)} }})
	}
	return jobs
}

// measureCommit returns the median, over five runs each, of the time a
// child takes to reach commit/locked and of an unkilled commit's whole run.
func (s *suite) measureCommit() (start, end time.Duration, err error) {
	return measureSpan("a commit", 5, func(at txn.Point) (childResult, string, error) {
		dir, home, err := s.caseHome(s.tmpl, "measure")
		if err != nil {
			return childResult{}, "", err
		}
		res, err := s.runChild(child{home: home, args: commitArgs(s.tmpl.reviews[s.tmpl.source()], caseTarget), killAt: at})
		return res, dir, err
	})
}

// measureSpan returns the medians, over n runs each, of the time a child
// takes to reach txn.CommitLocked and of a run not killed: the window the
// random kills are drawn from. run starts one child that stops at at (""
// for none) and returns its result and its case directory, removed after.
func measureSpan(what string, n int, run func(at txn.Point) (childResult, string, error)) (start, end time.Duration, err error) {
	measure := func(at txn.Point) (time.Duration, error) {
		var runs []time.Duration
		for k := 0; k < n; k++ {
			res, dir, err := run(at)
			if err != nil {
				return 0, fmt.Errorf("measuring %s: %w", what, err)
			}
			if (at == "" && res.exit != 0) || (at != "" && !res.reached) {
				return 0, fmt.Errorf("measuring %s (point %q): %s", what, at, res)
			}
			if err := os.RemoveAll(dir); err != nil {
				return 0, err
			}
			runs = append(runs, res.elapsed)
		}
		slices.Sort(runs)
		return runs[len(runs)/2], nil
	}
	// On a loaded machine a median of a few runs can put the whole run
	// before its own commit point: measure again, a few times, before
	// calling the measure broken.
	for try := 0; ; try++ {
		if start, err = measure(txn.CommitLocked); err != nil {
			return 0, 0, err
		}
		if end, err = measure(""); err != nil {
			return 0, 0, err
		}
		if end > start {
			return start, end, nil
		}
		if try == 2 {
			return 0, 0, fmt.Errorf("measuring %s: it took %s, but reaching %s alone took %s (three times over)", what, end, txn.CommitLocked, start)
		}
	}
}

func (s *suite) randomKill(n int, delay, start, end time.Duration) Row {
	r := Row{
		Family: familyRandomKill, Case: fmt.Sprintf("random kill #%d", n),
		Injection: fmt.Sprintf("SIGKILL %s after start, drawn from [%s, %s) (seed %d)", delay.Round(time.Microsecond), start.Round(100*time.Microsecond), end.Round(100*time.Microsecond), s.cfg.Seed),
		Expected:  "killed: source or target usable; finished first: target live",
	}
	return s.inCase(r, s.tmpl, func(r Row, home string) Row { return s.killAfter(r, home, delay) })
}

func (s *suite) killAfter(r Row, home string, delay time.Duration) Row {
	res, err := s.runChild(child{home: home, args: commitArgs(s.tmpl.reviews[s.tmpl.source()], caseTarget), killAfter: delay})
	if err != nil {
		return failed(r, err)
	}
	exp := expect{tmpl: s.tmpl, outcome: eitherWay, recover: s.recoverWithBinary}
	var problems []string
	switch {
	case res.killed:
	case res.exit == 0:
		// The user was told "committed": it must survive.
		exp.outcome, exp.target = targetLive, caseTarget
	default:
		problems = append(problems, fmt.Sprintf("the commit failed on its own before the kill: %s", res))
	}
	observed, more := check(home, exp)
	judge(&r, res.String()+"; "+observed, append(problems, more...))
	return r
}
