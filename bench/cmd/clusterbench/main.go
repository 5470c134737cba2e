// Command clusterbench measures graft with many workers, on the file store
// and on the etcd store side by side, in one run on one machine (issue 17):
//
//   - commits per second: 1, 2, 4, 8 workers, each a process of its own
//     (this binary again, in worker mode) with its own etcd lease, on one
//     shared home; each prepares and commits its own sources (distinct
//     session ids, no contention) after a start barrier, so process
//     start-up is not timed. The table gives the aggregate commits/s
//     (total commits ÷ the wall time from the start signal to the last
//     worker's end) and the median latency of one prepare + commit.
//   - recovery time: N workers (graft commit, built with -tags
//     crashpoints) stop at commit/journal-verified:after and are all
//     SIGKILLed; then graft recover runs, each run its own process, until
//     all N records are resolved. On etcd that includes waiting for the
//     dead workers' leases to expire (-lease).
//
// The etcd store is an embedded 3-member cluster (internal/etcdtest) in
// this process, on loopback, on the same machine as the workers. make
// bench-cluster runs it; BENCHMARKS.md has the table of a real run.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/graft-project/graft/bench"
	"github.com/graft-project/graft/etcdstore"
	"github.com/graft-project/graft/gen"
	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/internal/etcdtest"
	"github.com/graft-project/graft/session"
	"golang.org/x/sys/unix"
)

// config is the command line.
type config struct {
	workers  []int
	commits  int
	runs     int
	lease    time.Duration
	events   int
	stores   []string
	recovery bool
	asJSON   bool
	keep     bool
	// quiet drops the progress lines (tests).
	quiet bool
}

func main() {
	runWorkerIfAsked() // a worker process: runs and exits here
	var c config
	workers := flag.String("workers", "1,2,4,8", "worker counts to measure, comma-separated")
	flag.IntVar(&c.commits, "commits", 20, "commits per worker in the commits/s measurement (each on a source of its own)")
	flag.IntVar(&c.runs, "runs", 3, "runs of every measurement (the table shows medians)")
	flag.DurationVar(&c.lease, "lease", 2*time.Second, "the etcd workers' lease TTL (whole seconds, at least 2s): how long a dead worker's locks outlive it")
	flag.IntVar(&c.events, "events", 200, "events per generated source session")
	stores := flag.String("stores", "file,etcd", "stores to measure, comma-separated (file, etcd)")
	flag.BoolVar(&c.recovery, "recovery", true, "measure the recovery time too (builds graft with -tags crashpoints)")
	flag.BoolVar(&c.asJSON, "json", false, "print the results as JSON instead of the table")
	flag.BoolVar(&c.keep, "keep", false, "keep the temporary homes and the cluster's data")
	flag.Parse()
	var err error
	if c.workers, err = parseWorkers(*workers); err != nil {
		fatalf("-workers %q: %v", *workers, err)
	}
	for _, s := range strings.Split(*stores, ",") {
		if s != "file" && s != "etcd" {
			fatalf("-stores %q: want file and/or etcd", *stores)
		}
		c.stores = append(c.stores, s)
	}
	if c.commits < 1 || c.runs < 1 || c.events < 2 {
		fatalf("-commits, -runs must be at least 1, -events at least 2")
	}
	if c.lease < etcdstore.MinLease || c.lease%time.Second != 0 {
		fatalf("-lease %v: whole seconds, at least %v", c.lease, etcdstore.MinLease)
	}
	res, err := run(c)
	if err != nil {
		fatalf("%v", err)
	}
	if c.asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			fatalf("%v", err)
		}
		return
	}
	printTable(os.Stdout, res)
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "clusterbench: "+format+"\n", args...)
	os.Exit(1)
}

func parseWorkers(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 64 {
			return nil, fmt.Errorf("want counts from 1 to 64, comma-separated")
		}
		out = append(out, n)
	}
	return out, nil
}

// Results is one run of the command: the medians of every measurement
// per store and worker count, and the machine.
type Results struct {
	Workers []int   `json:"workers"`
	Commits int     `json:"commitsPerWorker"`
	Runs    int     `json:"runs"`
	Lease   string  `json:"lease"`
	Events  int     `json:"eventsPerSource"`
	Bytes   int64   `json:"bytesPerSource"` // the median source's size
	Members int     `json:"etcdMembers"`
	Rows    []Row   `json:"rows"`
	Machine Machine `json:"machine"`
}

// Row is one store at one worker count.
type Row struct {
	Store   string `json:"store"`
	Workers int    `json:"workers"`
	// Throughput: medians over the runs.
	CommitsPerSec float64       `json:"commitsPerSec"`
	Wall          time.Duration `json:"wallNs"`
	// Latency is one prepare + commit, CommitLatency the commit alone:
	// the median over all workers' commits of a run, then over the runs.
	Latency       time.Duration `json:"latencyNs"`
	CommitLatency time.Duration `json:"commitLatencyNs"`
	LatencyP90    time.Duration `json:"latencyP90Ns"`
	// Ops are the etcd requests per commit (prepare + commit) the
	// workers' clients made, and the commit's share (etcd only).
	Ops       *OpCounts `json:"opsPerCommit,omitempty"`
	CommitOps *OpCounts `json:"commitOpsPerCommit,omitempty"`
	// OpsByKey is Ops by key area (after the prefix: locks, catalog-lock,
	// catalog, txn) and kind (write, read, watch).
	OpsByKey map[string]float64 `json:"opsByKeyPerCommit,omitempty"`
	// Recovery (when measured): kill → all N records resolved, and the
	// graft recover runs that resolved them.
	Recovery *RecoveryResult `json:"recovery,omitempty"`
}

// Machine is where it ran.
type Machine struct {
	CPU        string `json:"cpu"`
	Cores      int    `json:"cores"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	Go         string `json:"go"`
	Kernel     string `json:"kernel"`
	Started    string `json:"started"`
	LoadBefore string `json:"loadBefore"`
	LoadAfter  string `json:"loadAfter"`
	Took       string `json:"took"`
}

// env is what the measurements share.
type env struct {
	c       config
	tmp     string
	cluster *etcdtest.Cluster
	graft   string // bin: graft
	crash   string // bin: graft with -tags crashpoints
	self    string // this binary, re-executed as a worker
	sources []source
	seq     int // homes and prefixes made so far
}

// source is a generated session log every home copies its sources from.
type source struct {
	path  string
	bytes int64
}

func run(c config) (res *Results, err error) {
	started := time.Now()
	res = &Results{Workers: c.workers, Commits: c.commits, Runs: c.runs, Lease: c.lease.String(), Events: c.events, Members: 3}
	res.Machine = Machine{CPU: bench.CPUModel(), Cores: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0), Go: runtime.Version(),
		Kernel: runtime.GOOS + " " + bench.Kernel(), Started: started.UTC().Format("2006-01-02 15:04 UTC"), LoadBefore: bench.LoadAvg()}
	e := &env{c: c}
	if e.self, err = os.Executable(); err != nil {
		return nil, err
	}
	if e.tmp, err = os.MkdirTemp("", "clusterbench-"); err != nil {
		return nil, err
	}
	if c.keep {
		e.progress("keeping the homes and the cluster's data in %s", e.tmp)
	} else {
		defer func() {
			if rerr := os.RemoveAll(e.tmp); rerr != nil {
				err = errors.Join(err, rerr)
			}
		}()
	}
	if err := e.buildBinaries(); err != nil {
		return nil, err
	}
	if err := e.generate(); err != nil {
		return nil, err
	}
	sizes := make([]int64, len(e.sources))
	for i, s := range e.sources {
		sizes[i] = s.bytes
	}
	slices.Sort(sizes)
	res.Bytes = sizes[len(sizes)/2]
	if slices.Contains(c.stores, "etcd") {
		e.progress("starting an embedded 3-member etcd cluster")
		if e.cluster, err = etcdtest.Start(filepath.Join(e.tmp, "etcd"), 3); err != nil {
			return nil, err
		}
		defer func() {
			if cerr := e.cluster.Close(); cerr != nil {
				err = errors.Join(err, cerr)
			}
		}()
	}
	for _, n := range c.workers {
		for _, st := range c.stores {
			row := Row{Store: st, Workers: n}
			if err := e.measureCommits(&row); err != nil {
				return nil, fmt.Errorf("%s store, %d workers, commits: %w", st, n, err)
			}
			if c.recovery {
				if err := e.measureRecovery(&row); err != nil {
					return nil, fmt.Errorf("%s store, %d workers, recovery: %w", st, n, err)
				}
			}
			res.Rows = append(res.Rows, row)
		}
	}
	res.Machine.LoadAfter = bench.LoadAvg()
	res.Machine.Took = time.Since(started).Round(time.Second).String()
	return res, nil
}

func (e *env) progress(format string, args ...any) {
	if !e.c.quiet {
		fmt.Fprintf(os.Stderr, "clusterbench: "+format+"\n", args...)
	}
}

// buildBinaries builds graft, and with -recovery the crashpoints build,
// into the temporary directory.
func (e *env) buildBinaries() error {
	root, err := bench.ModuleRoot()
	if err != nil {
		return err
	}
	e.graft = filepath.Join(e.tmp, "bin", "graft")
	e.progress("building %s", e.graft)
	if err := goBuild(root, e.graft); err != nil {
		return err
	}
	if e.c.recovery {
		e.crash = filepath.Join(e.tmp, "bin", "graft-crash")
		e.progress("building %s (-tags crashpoints)", e.crash)
		if err := goBuild(root, e.crash, "-tags", "crashpoints"); err != nil {
			return err
		}
	}
	return nil
}

func goBuild(root, out string, args ...string) error {
	cmd := exec.Command("go", append(append([]string{"build"}, args...), "-o", out, "./cmd/graft")...)
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s ./cmd/graft: %w: %s", strings.Join(args, " "), err, b)
	}
	return nil
}

// generate writes the source logs with package gen: one per commit of a
// worker (seed i+1), which every worker's home copies under ids of its own.
func (e *env) generate() error {
	dir := filepath.Join(e.tmp, "gen")
	e.progress("generating %d source sessions of %d events", e.c.commits, e.c.events)
	for i := range e.c.commits {
		opts := gen.Options{Turns: max(1, min(6, e.c.events/2)), Events: e.c.events, Seed: int64(i + 1)}
		ds, err := bench.Generated(dir, fmt.Sprintf("src%03d", i), opts, nil)
		if err != nil {
			return err
		}
		e.sources = append(e.sources, source{path: ds.Path, bytes: ds.Bytes})
	}
	return nil
}

// home is a fresh home for one measurement on store st ("file" or
// "etcd"), its store URL ("" for the file store), and sources: for each
// worker, count session ids copied from the generated logs. The home is
// opened once (claiming it for its store, writing the etcd format) and
// the copies are flushed, so no timed fsync writes them back.
func (e *env) home(st, what string, workers, count int) (home, url string, sources [][]string, err error) {
	e.seq++
	name := fmt.Sprintf("%s-%s-%dw-%d", what, st, workers, e.seq)
	home = filepath.Join(e.tmp, "homes", name)
	if st == "etcd" {
		url = e.cluster.URL("clusterbench/"+name) + "?lease=" + e.c.lease.String()
	}
	svc, err := graft.Open(home, graft.Options{Store: url})
	if err != nil {
		return "", "", nil, err
	}
	if err := svc.Close(); err != nil {
		return "", "", nil, err
	}
	for w := range workers {
		var ids []string
		for i := range count {
			id := fmt.Sprintf("w%02d-s%03d", w, i)
			if err := copyFile(e.sources[i%len(e.sources)].path, filepath.Join(home, "sessions", id+session.Ext)); err != nil {
				return "", "", nil, err
			}
			ids = append(ids, id)
		}
		sources = append(sources, ids)
	}
	if err := syncfs(home); err != nil {
		return "", "", nil, err
	}
	return home, url, sources, nil
}

func (e *env) dropHome(home string) error {
	if e.c.keep {
		return nil
	}
	return os.RemoveAll(home)
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, session.FileMode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		return errors.Join(err, out.Close())
	}
	return out.Close()
}

// syncfs flushes the file system holding dir (the copied sources).
func syncfs(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := unix.Syncfs(int(f.Fd())); err != nil {
		return fmt.Errorf("syncfs %s: %w", dir, err)
	}
	return nil
}

func median[T int64 | float64 | time.Duration](xs []T) T {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
