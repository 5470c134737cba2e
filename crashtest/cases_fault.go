package crashtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/txn"
	"github.com/graft-project/graft/vfs"
	"github.com/graft-project/graft/vfs/errorfs"
)

// commitInProcess opens home with opts (the suite's fault knobs added) and
// commits the template's review into target, as `graft commit` does.
func (s *suite) commitInProcess(home string, tmpl *template, target string, opts graft.Options) (*graft.CommitResult, error) {
	opts.Faults = s.cfg.Faults
	svc, err := graft.Open(home, opts)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", home, err)
	}
	r := tmpl.reviews[tmpl.source()]
	return svc.Commit(context.Background(), r.PreparedID, r.TapeHash, target)
}

// faultedRun is a transaction run in-process through an errorfs.
type faultedRun struct {
	what string    // "commit" or "revert"
	tmpl *template // the home it starts from
	// run carries it out on svc, returning the notes of a success.
	run func(s *suite, svc *graft.Service) (notes []string, err error)
	// done is the outcome of a success: for a commit the target is live,
	// for a revert the source is usable again.
	done outcome
}

func (s *suite) faultedRuns() []faultedRun {
	return []faultedRun{
		{what: "commit", tmpl: s.tmpl, done: targetLive, run: func(s *suite, svc *graft.Service) ([]string, error) {
			r := s.tmpl.reviews[s.tmpl.source()]
			res, err := svc.Commit(context.Background(), r.PreparedID, r.TapeHash, caseTarget)
			if err != nil {
				return nil, err
			}
			return res.Notes, nil
		}},
		{what: "revert", tmpl: s.done, done: sourceStays, run: func(s *suite, svc *graft.Service) ([]string, error) {
			res, err := svc.Revert(caseTarget, false)
			if err != nil {
				return nil, err
			}
			return res.Notes, nil
		}},
	}
}

// openAndRun opens home through fsys (the suite's fault knobs added) and
// carries out fr, as the CLI command does.
func (s *suite) openAndRun(fr faultedRun, home string, fsys vfs.FS) ([]string, error) {
	svc, err := graft.Open(home, graft.Options{FS: fsys, Faults: s.cfg.Faults})
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", home, err)
	}
	return fr.run(s, svc)
}

// countOps carries out fr through a counting errorfs and returns how many
// file operations it made.
func (s *suite) countOps(fr faultedRun) (n int, err error) {
	dir, home, err := s.caseHome(fr.tmpl, "count-ops")
	if err != nil {
		return 0, err
	}
	defer func() { err = errors.Join(err, os.RemoveAll(dir)) }()
	efs := errorfs.Wrap(vfs.Default, nil)
	if _, err := s.openAndRun(fr, home, efs); err != nil {
		return 0, fmt.Errorf("counting the operations of an untouched %s: %w", fr.what, err)
	}
	return efs.Ops(), nil
}

// eioJobs fail the N-th file operation with EIO for every N of a commit
// (and of a revert), tear every write the same way, then try one more N,
// which the run must not reach: the untouched run ends the loop.
func (s *suite) eioJobs() []job {
	var jobs []job
	for _, fr := range s.faultedRuns() {
		jobs = append(jobs, job{run: func() []Row {
			total, err := s.countOps(fr)
			if err != nil {
				return []Row{failed(Row{Family: familyEIO + "/" + fr.what, Case: "EIO " + fr.what, Injection: "none (counting operations)"}, err)}
			}
			// The loop's end must be the first N the run does not reach,
			// so the Ns of one run are one job.
			var rows, torn []Row
			for n := 1; n <= total+1; n++ {
				row, wasWrite := s.eioCase(fr, n, total, false)
				rows = append(rows, row)
				if wasWrite {
					t, _ := s.eioCase(fr, n, total, true)
					torn = append(torn, t)
				}
			}
			return append(rows, torn...)
		}})
	}
	return jobs
}

// eioCase fails operation n of fr (tearing it, when torn and it is a
// write) and checks. It reports whether operation n was a write.
func (s *suite) eioCase(fr faultedRun, n, total int, torn bool) (Row, bool) {
	r := Row{Family: familyEIO + "/" + fr.what, Case: fmt.Sprintf("EIO %s op %d/%d", fr.what, n, total),
		Expected: fmt.Sprintf("the %s's error names the injected EIO, or it succeeds and a note names it; source or target usable", fr.what)}
	fault := errorfs.OnIndex(n, syscall.EIO)
	if torn {
		fault.TornWrite()
		r.Family, r.Case = familyTornWrite+"/"+fr.what, fmt.Sprintf("torn write, %s op %d/%d", fr.what, n, total)
	}
	var wasWrite bool
	r = s.inCase(r, fr.tmpl, func(r Row, home string) Row {
		var row Row
		row, wasWrite = s.eioRun(fr, fault, n, total, r, home)
		return row
	})
	return r, wasWrite
}

// eioRun carries out fr on home with fault armed and checks.
func (s *suite) eioRun(fr faultedRun, fault *errorfs.Fault, n, total int, r Row, home string) (Row, bool) {
	notes, rerr := s.openAndRun(fr, home, errorfs.Wrap(vfs.Default, fault))
	op, fired := fault.Fired()
	r.Injection = relative(fault.String(), home)
	var problems []string
	exp := expect{tmpl: fr.tmpl, outcome: eitherWay, target: caseTarget, recover: recoverInProcess}
	switch {
	case !fired && n <= total:
		problems = append(problems, fmt.Sprintf("operation %d was never reached although an untouched %s makes %d: the run is not deterministic", n, fr.what, total))
	case fired && n > total:
		problems = append(problems, fmt.Sprintf("operation %d was reached although an untouched %s makes %d", n, fr.what, total))
	case !fired:
		r.Injection = fmt.Sprintf("EIO on op %d: never reached, the %s ran untouched (the loop ends)", n, fr.what)
		if rerr != nil {
			problems = append(problems, fmt.Sprintf("the untouched %s failed: %v", fr.what, rerr))
		} else {
			exp.outcome = fr.done
		}
	case rerr != nil:
		if !errors.Is(rerr, errorfs.ErrInjected) {
			problems = append(problems, fmt.Sprintf("the %s failed without naming the injected error: %v", fr.what, rerr))
		}
	default:
		// Past the commit point a failure is a note, not an error; before
		// it, success would mean the injected error was swallowed.
		exp.outcome = fr.done
		if !strings.Contains(strings.Join(notes, " "), "injected") {
			problems = append(problems, fmt.Sprintf("the %s succeeded and no note names the injected error on %s: swallowed", fr.what, op))
		}
	}
	observed, more := check(home, exp)
	judge(&r, outcomeText(fr.what, rerr, home)+"; "+observed, append(problems, more...))
	return r, fired && op.Kind == errorfs.OpWrite
}

// shortErr is err's message with the case home's paths made relative.
func shortErr(err error, home string) string { return relative(err.Error(), home) }

// relative makes the paths under home in s relative to it, and names home
// itself $GRAFT_HOME: a case's temporary path says nothing.
func relative(s, home string) string {
	s = strings.ReplaceAll(s, home+string(filepath.Separator), "")
	return strings.ReplaceAll(s, home, "$GRAFT_HOME")
}

// injectedJobs are L2a and L2b through the seam: ENOSPC on the target's
// fsync, EACCES on the target's create.
func (s *suite) injectedJobs() []job {
	target := filepath.Join("sessions", caseTarget+session.Ext)
	cases := []struct {
		name, code string
		fault      *errorfs.Fault
		expected   string
	}{
		{"L2a injected", "no_space", errorfs.OnKind(errorfs.OpSync, target, 1, syscall.ENOSPC), "fails with no_space, failure recorded, source usable"},
		{"L2b injected", "permission_denied", errorfs.OnKind(errorfs.OpCreate, target, 1, syscall.EACCES), "fails at create with permission_denied, source usable"},
	}
	var jobs []job
	for _, c := range cases {
		jobs = append(jobs, job{run: func() []Row {
			return []Row{s.inCase(Row{Case: c.name, Expected: c.expected}, s.tmpl, func(r Row, home string) Row {
				return s.injected(r, home, c.fault, c.code)
			})}
		}})
	}
	return jobs
}

// injected commits through an errorfs armed with fault: the commit must
// fail with code and the source stay usable.
func (s *suite) injected(r Row, home string, fault *errorfs.Fault, code string) Row {
	_, cerr := s.commitInProcess(home, s.tmpl, caseTarget, graft.Options{FS: errorfs.Wrap(vfs.Default, fault)})
	r.Injection = relative(fault.String(), home)
	var problems []string
	if got, _ := graft.CodeOf(cerr); string(got) != code {
		problems = append(problems, fmt.Sprintf("expected the commit to fail with %s, got %q: %v", code, got, cerr))
	}
	observed, more := check(home, expect{tmpl: s.tmpl, outcome: sourceStays, recover: recoverInProcess})
	judge(&r, outcomeText("commit", cerr, home)+"; "+observed, append(problems, more...))
	return r
}

// l3Jobs flip one byte of the target after it is durable and before the
// cold read, at several offsets: the cold read must refuse it.
func (s *suite) l3Jobs() []job {
	offsets := []struct {
		name string
		at   func(size int64) int64
	}{
		{"first byte", func(int64) int64 { return 0 }},
		{"a quarter in", func(n int64) int64 { return n / 4 }},
		{"the middle", func(n int64) int64 { return n / 2 }},
		{"three quarters in", func(n int64) int64 { return 3 * n / 4 }},
		{"the last byte before the newline", func(n int64) int64 { return n - 2 }},
		{"the final newline", func(n int64) int64 { return n - 1 }},
	}
	var jobs []job
	for _, o := range offsets {
		jobs = append(jobs, job{run: func() []Row {
			return []Row{s.inCase(Row{Case: "L3 " + o.name, Expected: "cold read refuses (cold_verify_failed), source usable"}, s.tmpl, func(r Row, home string) Row {
				return s.tamper(r, home, o.at)
			})}
		}})
	}
	return jobs
}

// tamper flips the byte at(size) of the target once it is durable, before
// the cold read: the commit must refuse it.
func (s *suite) tamper(r Row, home string, at func(size int64) int64) Row {
	var tamper string
	var tamperErr error
	hook := func(p txn.Point) {
		if p == txn.CommitTargetDirSynced {
			tamper, tamperErr = flipByte(filepath.Join(home, "sessions", caseTarget+session.Ext), at)
		}
	}
	_, cerr := s.commitInProcess(home, s.tmpl, caseTarget, graft.Options{Hook: hook})
	r.Injection = fmt.Sprintf("at %s: %s", txn.CommitTargetDirSynced, tamper)
	var problems []string
	switch {
	case tamperErr != nil:
		problems = append(problems, fmt.Sprintf("tampering failed: %v", tamperErr))
	case tamper == "":
		problems = append(problems, fmt.Sprintf("the commit never reached %s", txn.CommitTargetDirSynced))
	case cerr == nil:
		problems = append(problems, "the commit succeeded with a tampered target: the cold read did not refuse it")
	case !errors.Is(cerr, txn.ErrColdVerify):
		problems = append(problems, fmt.Sprintf("expected cold_verify_failed, got: %v", cerr))
	}
	observed, more := check(home, expect{tmpl: s.tmpl, outcome: sourceStays, recover: recoverInProcess})
	judge(&r, outcomeText("commit", cerr, home)+"; "+observed, append(problems, more...))
	return r
}

// outcomeText says how an in-process run ended, paths relative to home.
func outcomeText(what string, err error, home string) string {
	if err != nil {
		return what + " failed: " + shortErr(err, home)
	}
	return what + " succeeded"
}

// flipByte flips the low bit of the byte at at(size) of path, in place.
func flipByte(path string, at func(size int64) int64) (string, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return "", err
	}
	fi, err := f.Stat()
	if err != nil {
		return "", errors.Join(err, f.Close())
	}
	off := at(fi.Size())
	b := make([]byte, 1)
	if _, err := f.ReadAt(b, off); err != nil {
		return "", errors.Join(err, f.Close())
	}
	was := b[0]
	b[0] ^= 0x01
	if _, err := f.WriteAt(b, off); err != nil {
		return "", errors.Join(err, f.Close())
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	return fmt.Sprintf("flipped byte %d of %d (%q → %q)", off, fi.Size(), was, b[0]), nil
}
