package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/graft-project/graft/etcdstore"
	"github.com/graft-project/graft/graft"
)

// envWorker, set to a workerSpec as JSON, makes this binary a worker.
const envWorker = "CLUSTERBENCH_WORKER"

// workerSpec is one worker's job.
type workerSpec struct {
	Home    string   `json:"home"`
	Store   string   `json:"store"`
	Sources []string `json:"sources"`
}

// workerResult is what a worker prints on stdout when it is done.
type workerResult struct {
	Start int64 `json:"start"` // unix ns: the start signal read
	End   int64 `json:"end"`   // unix ns: the last commit returned
	// Latency is each prepare + commit, Commit the commit alone (ns).
	Latency []int64 `json:"latency"`
	Commit  []int64 `json:"commit"`
	// Prepare and CommitOps are the etcd requests of the prepares and of
	// the commits, summed (etcd store only).
	PrepareOps OpCounts `json:"prepareOps"`
	CommitOps  OpCounts `json:"commitOps"`
	// ByKey counts the requests of the loop by key area and kind.
	ByKey map[string]int64 `json:"byKey"`
}

// runWorkerIfAsked runs a worker and exits when envWorker is set: the
// first thing main (and TestMain) does.
func runWorkerIfAsked() {
	spec := os.Getenv(envWorker)
	if spec == "" {
		return
	}
	if err := worker(spec, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "clusterbench worker: %v\n", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// worker opens the service once, says "ready", waits for the start
// signal (a line on stdin), then prepares and commits each of its sources
// into a new target, and prints its workerResult.
func worker(specJSON string, in io.Reader, out io.Writer) (err error) {
	var spec workerSpec
	if err := json.Unmarshal([]byte(specJSON), &spec); err != nil {
		return fmt.Errorf("spec: %w", err)
	}
	var coord *etcdstore.Store
	svc, err := graft.Open(spec.Home, graft.Options{Store: spec.Store, OnEtcd: func(s *etcdstore.Store) { coord = s }})
	if err != nil {
		return err
	}
	defer func() {
		if cerr := svc.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("closing the service: %w", cerr))
		}
	}()
	cnt := newCounter("")
	if coord != nil {
		cnt = newCounter(coord.Config().Prefix)
		instrument(coord.Client(), cnt)
	}
	if _, err := fmt.Fprintln(out, "ready"); err != nil {
		return err
	}
	if _, err := bufio.NewReader(in).ReadString('\n'); err != nil {
		return fmt.Errorf("waiting for the start signal: %w", err)
	}
	ctx := context.Background()
	res := workerResult{Start: time.Now().UnixNano()}
	var prepOps, commitOps OpCounts
	k0 := cnt.keys()
	for _, src := range spec.Sources {
		t0 := time.Now()
		c0 := cnt.snapshot()
		rv, err := svc.Prepare(ctx, src, graft.PrepareOptions{})
		if err != nil {
			return err
		}
		t1 := time.Now()
		c1 := cnt.snapshot()
		if _, err := svc.Commit(ctx, rv.PreparedID, rv.TapeHash, src+".g1"); err != nil {
			return err
		}
		t2 := time.Now()
		c2 := cnt.snapshot()
		res.Latency = append(res.Latency, int64(t2.Sub(t0)))
		res.Commit = append(res.Commit, int64(t2.Sub(t1)))
		prepOps = prepOps.add(c1.sub(c0))
		commitOps = commitOps.add(c2.sub(c1))
	}
	res.End = time.Now().UnixNano()
	res.PrepareOps, res.CommitOps = prepOps, commitOps
	res.ByKey = cnt.keys()
	for k, v := range k0 {
		res.ByKey[k] -= v
	}
	return json.NewEncoder(out).Encode(res)
}

// proc is a worker process as its parent sees it.
type proc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	stderr *lockedBuffer
}

// lockedBuffer is the stderr of a child, read while it may still write.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.TrimSpace(l.b.String())
}

// commitRun is one run of the commits measurement.
type commitRun struct {
	wall            time.Duration
	commits         int
	latency, commit time.Duration // medians over all workers' commits
	p90             time.Duration // the 90th percentile of latency
	prepOps, comOps OpCounts      // summed over the workers
	byKey           map[string]int64
}

// runWorkers starts one worker per source list, waits until all are
// ready, gives the start signal and collects their results.
func (e *env) runWorkers(home, url string, sources [][]string) (run commitRun, err error) {
	procs := make([]*proc, 0, len(sources))
	defer func() {
		for _, p := range procs {
			if p.cmd.ProcessState == nil {
				p.cmd.Process.Kill()
				p.cmd.Wait()
			}
		}
	}()
	// A worker that hangs would hang the benchmark: kill them all after
	// a generous bound.
	watchdog := time.AfterFunc(3*time.Minute, func() {
		for _, p := range procs {
			p.cmd.Process.Kill()
		}
	})
	defer watchdog.Stop()
	for _, srcs := range sources {
		spec, err := json.Marshal(workerSpec{Home: home, Store: url, Sources: srcs})
		if err != nil {
			return run, err
		}
		cmd := exec.Command(e.self)
		cmd.Env = append(os.Environ(), envWorker+"="+string(spec))
		p := &proc{cmd: cmd, stderr: &lockedBuffer{}}
		cmd.Stderr = p.stderr
		if p.stdin, err = cmd.StdinPipe(); err != nil {
			return run, err
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			return run, err
		}
		p.stdout = bufio.NewReader(out)
		if err := cmd.Start(); err != nil {
			return run, err
		}
		procs = append(procs, p)
	}
	failed := func(i int, what string, err error) error {
		return fmt.Errorf("worker %d: %s: %v; its stderr: %s", i, what, err, procs[i].stderr.String())
	}
	for i, p := range procs {
		line, err := p.stdout.ReadString('\n')
		if err != nil || strings.TrimSpace(line) != "ready" {
			return run, failed(i, fmt.Sprintf("no ready line (got %q)", line), err)
		}
	}
	start := time.Now()
	for i, p := range procs {
		if _, err := io.WriteString(p.stdin, "go\n"); err != nil {
			return run, failed(i, "start signal", err)
		}
		p.stdin.Close()
	}
	var lat, com []time.Duration
	var end int64
	for i, p := range procs {
		var r workerResult
		if err := json.NewDecoder(p.stdout).Decode(&r); err != nil {
			p.cmd.Wait()
			return run, failed(i, "reading its result", err)
		}
		if err := p.cmd.Wait(); err != nil {
			return run, failed(i, "exit", err)
		}
		if len(r.Latency) != len(sources[i]) {
			return run, failed(i, "result", fmt.Errorf("%d commits, want %d", len(r.Latency), len(sources[i])))
		}
		end = max(end, r.End)
		for j := range r.Latency {
			lat = append(lat, time.Duration(r.Latency[j]))
			com = append(com, time.Duration(r.Commit[j]))
		}
		run.commits += len(r.Latency)
		run.prepOps = run.prepOps.add(r.PrepareOps)
		run.comOps = run.comOps.add(r.CommitOps)
		if run.byKey == nil {
			run.byKey = map[string]int64{}
		}
		for k, v := range r.ByKey {
			run.byKey[k] += v
		}
	}
	run.wall = time.Unix(0, end).Sub(start)
	run.latency, run.commit = median(lat), median(com)
	slices.Sort(lat)
	run.p90 = lat[len(lat)*9/10]
	return run, nil
}

// measureCommits fills in row's throughput and latency: the medians of
// e.c.runs runs, each on a fresh home (and etcd prefix).
func (e *env) measureCommits(row *Row) error {
	var cps []float64
	var walls, lats, coms, p90s []time.Duration
	var prep, com OpCounts
	byKey := map[string]int64{}
	var commits int
	for r := range e.c.runs {
		home, url, sources, err := e.home(row.Store, "commits", row.Workers, e.c.commits)
		if err != nil {
			return err
		}
		e.progress("commits: %s store, %s × %d commits, run %d of %d", row.Store, plural(row.Workers, "worker"), e.c.commits, r+1, e.c.runs)
		run, err := e.runWorkers(home, url, sources)
		if err != nil {
			return err
		}
		if err := e.dropHome(home); err != nil {
			return err
		}
		cps = append(cps, float64(run.commits)/run.wall.Seconds())
		walls = append(walls, run.wall)
		lats = append(lats, run.latency)
		coms = append(coms, run.commit)
		p90s = append(p90s, run.p90)
		prep, com = prep.add(run.prepOps), com.add(run.comOps)
		for k, v := range run.byKey {
			byKey[k] += v
		}
		commits += run.commits
		e.progress("  %.1f commits/s (%d in %v), latency %v (commit %v)", cps[len(cps)-1], run.commits, run.wall.Round(time.Millisecond), run.latency.Round(10*time.Microsecond), run.commit.Round(10*time.Microsecond))
	}
	row.CommitsPerSec = median(cps)
	row.Wall = median(walls)
	row.Latency, row.CommitLatency, row.LatencyP90 = median(lats), median(coms), median(p90s)
	if row.Store == "etcd" {
		all := prep.add(com).scale(1 / float64(commits))
		c := com.scale(1 / float64(commits))
		row.Ops, row.CommitOps = &all, &c
		row.OpsByKey = map[string]float64{}
		for k, v := range byKey {
			if v != 0 {
				row.OpsByKey[k] = float64(v) / float64(commits)
			}
		}
	}
	return nil
}
