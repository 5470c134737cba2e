package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// crashPoint is where the crashed workers stop: the journal record is
// COLD_VERIFIED, the target written and verified, the commit point not
// reached; recovery rolls each back.
const crashPoint = "commit/journal-verified:after"

// pollPause is the pause between two graft recover runs while records
// are busy (their dead owners' leases not expired yet).
const pollPause = 50 * time.Millisecond

// RecoveryResult is the recovery measurement of one store and worker
// count: medians over the runs.
type RecoveryResult struct {
	// KillToResolved is from the SIGKILL of the N workers to the end of
	// the graft recover run after which all N records were resolved.
	KillToResolved time.Duration `json:"killToResolvedNs"`
	// Scan is the duration of the graft recover runs (whole processes)
	// that resolved records: usually one.
	Scan time.Duration `json:"scanNs"`
	// ResolvingRuns and Runs count the graft recover runs that resolved
	// records and all of them (the others found the records busy).
	ResolvingRuns int `json:"resolvingRuns"`
	Runs          int `json:"recoverRuns"`
	// RolledBack is the records the runs rolled back (N every run).
	RolledBack int    `json:"rolledBack"`
	Lease      string `json:"lease,omitempty"`
}

type recoverReport struct {
	Scanned       int      `json:"scanned"`
	RolledForward int      `json:"rolledForward"`
	RolledBack    int      `json:"rolledBack"`
	Busy          int      `json:"busy"`
	Errors        []string `json:"errors"`
}

// measureRecovery fills in row.Recovery.
func (e *env) measureRecovery(row *Row) error {
	var kills, scans []time.Duration
	var resolving, runs []float64
	rolled := 0
	for r := range e.c.runs {
		e.progress("recovery: %s store, %s killed at %s, run %d of %d", row.Store, plural(row.Workers, "worker"), crashPoint, r+1, e.c.runs)
		rr, err := e.recoveryRun(row.Store, row.Workers)
		if err != nil {
			return err
		}
		e.progress("  kill → resolved %v, resolving scan %v (%d of %d recover runs)", rr.KillToResolved.Round(time.Millisecond), rr.Scan.Round(time.Millisecond), rr.ResolvingRuns, rr.Runs)
		kills = append(kills, rr.KillToResolved)
		scans = append(scans, rr.Scan)
		resolving = append(resolving, float64(rr.ResolvingRuns))
		runs = append(runs, float64(rr.Runs))
		rolled = rr.RolledBack
	}
	row.Recovery = &RecoveryResult{
		KillToResolved: median(kills), Scan: median(scans),
		ResolvingRuns: int(median(resolving)), Runs: int(median(runs)), RolledBack: rolled,
	}
	if row.Store == "etcd" {
		row.Recovery.Lease = e.c.lease.String()
	}
	return nil
}

// recoveryRun is one run: a fresh home with n sources, each prepared by
// graft prepare, committed by a crashpoints graft commit that stops at
// crashPoint; all n are killed at once, then graft recover runs until the
// n records are resolved.
func (e *env) recoveryRun(st string, n int) (RecoveryResult, error) {
	var res RecoveryResult
	home, url, sources, err := e.home(st, "recovery", n, 1)
	if err != nil {
		return res, err
	}
	args := []string{"--home", home, "--store", "file"}
	if url != "" {
		args[3] = url
	}
	type review struct{ id, hash string }
	reviews := make([]review, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			cmd := exec.Command(e.graft, append(args, "prepare", sources[i][0], "--json")...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				errs[i] = fmt.Errorf("graft prepare %s: %w: %s", sources[i][0], err, stderr.String())
				return
			}
			var rv struct {
				PreparedID string `json:"preparedId"`
				TapeHash   string `json:"tapeHash"`
			}
			if err := json.Unmarshal(out, &rv); err != nil {
				errs[i] = fmt.Errorf("graft prepare %s: %w", sources[i][0], err)
				return
			}
			reviews[i] = review{rv.PreparedID, rv.TapeHash}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return res, err
	}

	// The n commits, each stopped at the crash point.
	cmds := make([]*exec.Cmd, n)
	stderrs := make([]*lockedBuffer, n)
	reached := make(chan int, n)
	exited := make(chan int, n)
	defer func() {
		for _, c := range cmds {
			if c != nil && c.Process != nil && c.ProcessState == nil {
				c.Process.Kill()
				c.Wait()
			}
		}
	}()
	for i := range n {
		cmd := exec.Command(e.crash, append(args, "commit", reviews[i].id, "--hash", reviews[i].hash, "--target", sources[i][0]+".g1")...)
		cmd.Env = append(os.Environ(), "GRAFT_CRASH_POINT="+crashPoint)
		pipe, err := cmd.StderrPipe()
		if err != nil {
			return res, err
		}
		if err := cmd.Start(); err != nil {
			return res, err
		}
		cmds[i], stderrs[i] = cmd, &lockedBuffer{}
		go func() {
			sc := bufio.NewScanner(pipe)
			said := false
			for sc.Scan() {
				line := sc.Text()
				fmt.Fprintln(stderrs[i], line)
				if !said && strings.HasPrefix(line, "GRAFT_CRASH_POINT_REACHED "+crashPoint) {
					said = true
					reached <- i
				}
			}
			if !said {
				exited <- i
			}
		}()
	}
	timeout := time.NewTimer(time.Minute)
	defer timeout.Stop()
	for range n {
		select {
		case <-reached:
		case i := <-exited:
			cmds[i].Wait()
			return res, fmt.Errorf("graft commit %s ended before %s (%v): %s", sources[i][0], crashPoint, cmds[i].ProcessState, stderrs[i].String())
		case <-timeout.C:
			return res, fmt.Errorf("the commits did not all reach %s within a minute", crashPoint)
		}
	}
	killed := time.Now()
	for _, c := range cmds {
		if err := c.Process.Signal(syscall.SIGKILL); err != nil {
			return res, err
		}
	}
	for _, c := range cmds {
		c.Wait() // "signal: killed"
	}

	// graft recover until all n are resolved.
	resolved := 0
	for {
		t0 := time.Now()
		cmd := exec.Command(e.graft, append(args, "recover", "--json")...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		d := time.Since(t0)
		res.Runs++
		var rep recoverReport
		if jerr := json.Unmarshal(out, &rep); jerr != nil || err != nil || len(rep.Errors) > 0 {
			return res, fmt.Errorf("graft recover: %v %v %v: %s%s", err, jerr, rep.Errors, out, stderr.String())
		}
		if rep.RolledForward > 0 {
			return res, fmt.Errorf("graft recover rolled %d records forward: every crashed commit stopped before its commit point", rep.RolledForward)
		}
		if k := rep.RolledBack; k > 0 {
			resolved += k
			res.RolledBack += k
			res.ResolvingRuns++
			res.Scan += d
		}
		if resolved >= n {
			res.KillToResolved = time.Since(killed)
			break
		}
		if time.Since(killed) > time.Minute {
			return res, fmt.Errorf("%d of %d records resolved a minute after the kill (last report: %s)", resolved, n, out)
		}
		time.Sleep(pollPause)
	}
	return res, e.dropHome(home)
}
