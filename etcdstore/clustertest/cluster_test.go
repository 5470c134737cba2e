package clustertest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/graft-project/graft/internal/etcdtest"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/txn"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// defaultRounds is TestOneWinner's rounds without GRAFT_CLUSTER_ROUNDS.
const defaultRounds = 50

// workers is how many workers race for each review.
const workers = 8

// refusals are the exit codes a losing commit may end with.
var refusals = map[int]bool{12: true, 15: true, 16: true, 17: true}

// TestOneWinner: each round, workers commit one review into one target at
// once; exactly one wins, the others are refused, and the source is
// retired into the target once.
func TestOneWinner(t *testing.T) {
	rounds := envInt("GRAFT_CLUSTER_ROUNDS", defaultRounds)
	s := newStore(t, sharedCluster(t), "one-winner")
	dist := map[int]int{}
	var sources []string
	start := time.Now()
	var commitTime time.Duration
	for r := range rounds {
		src := fmt.Sprintf("w%03d", r)
		tgt := src + ".t"
		sources = append(sources, src)
		s.gen(src)
		p := s.prepare(src)
		procs := make([]*proc, workers)
		t0 := time.Now()
		for i := range procs {
			procs[i] = s.start(nil, p.commitArgs(tgt)...)
		}
		var results []result
		for _, pr := range procs {
			results = append(results, pr.wait())
		}
		commitTime += time.Since(t0)
		var won []committed
		for _, res := range results {
			dist[res.exit]++
			switch {
			case res.exit == 0:
				won = append(won, decode[committed](t, res))
			case !refusals[res.exit]:
				t.Errorf("round %d: a losing worker did not end with a refusal (12, 15, 16, 17): %v", r, res)
			}
		}
		if len(won) != 1 {
			var all []string
			for _, res := range results {
				all = append(all, res.String())
			}
			t.Fatalf("round %d: %d winners, want exactly 1:\n%s", r, len(won), strings.Join(all, "\n"))
		}
		if won[0].TargetID != tgt || won[0].Source != src {
			t.Errorf("round %d: the winner committed %s → %s, want %s → %s", r, won[0].Source, won[0].TargetID, src, tgt)
		}
		s.expectForward(src, tgt, won[0].TxnID)
		if res := s.run("audit", tgt); res.exit != 0 || !strings.Contains(res.stdout, "audit passed") {
			t.Errorf("round %d: %v\n%s", r, res, res.stdout)
		}
		if t.Failed() {
			t.Fatalf("round %d failed; stopping", r)
		}
	}
	elapsed := time.Since(start)
	s.checkSettled(sources)
	t.Logf("%d rounds × %d workers in %v: %.2f rounds/s (the %d-worker commit race alone: %.2f rounds/s); exits: %s",
		rounds, workers, elapsed.Round(time.Millisecond), float64(rounds)/elapsed.Seconds(), workers,
		float64(rounds)/commitTime.Seconds(), distribution(dist))
}

// outcome of a killed transaction once recovered.
type outcome int

const (
	commitBack    outcome = iota // the graft rolled back: source active, target not live
	commitForward                // the graft rolled forward: source retired into the target
	revertBack                   // the revert rolled back: the graft stays live
	revertForward                // the revert rolled forward: source active, target abandoned
)

// pointOutcome is what recovery must end a transaction killed at p in:
// forward at and after the decision on the store (the commit point).
func pointOutcome(p txn.Point) outcome {
	switch p {
	case txn.CommitDecided, txn.CommitSourceRetired, txn.CommitLineage, txn.CommitJournalRemoved:
		return commitForward
	case txn.RevertLocked, txn.RevertJournalPrepared:
		return revertBack
	case txn.RevertDecided, txn.RevertSourceUnretired, txn.RevertTargetAbandoned, txn.RevertLineage, txn.RevertJournalRemoved:
		return revertForward
	}
	return commitBack
}

// hasRecord says whether a journal record exists when the worker is killed
// at p (not before the first write, nor after the removal).
func hasRecord(p txn.Point) bool {
	switch p {
	case txn.CommitLocked, txn.RevertLocked, txn.CommitJournalRemoved, txn.RevertJournalRemoved:
		return false
	}
	return true
}

// surelyAlive is how long after a SIGKILL the dead worker's lease is
// certainly still alive: etcd keeps a lease alive by renewing it every
// TTL/3, so at least 2/3 of it remains when the worker dies.
const surelyAlive = lease * 2 / 3

// resolveWait bounds the wait for recovery after a kill or a pause.
const resolveWait = 10 * time.Second

// killStats is what TestKillAtCrashPoint measured over its cases.
type killStats struct {
	mu        sync.Mutex
	busySeen  []txn.Point
	recovered []time.Duration // SIGKILL → first recover that resolved the record
}

// TestKillAtCrashPoint: a worker is SIGKILLed at each crash point of the
// etcd store; another worker's recovery leaves the record alone while the
// dead worker's lease lives, then resolves it by the commit point.
func TestKillAtCrashPoint(t *testing.T) {
	c := sharedCluster(t)
	stats := &killStats{}
	sem := make(chan struct{}, 7)
	var wg sync.WaitGroup
	start := time.Now()
	for _, p := range txn.EtcdPoints {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			t.Run(strings.NewReplacer("/", "_", ":", "_").Replace(string(p)), func(t *testing.T) { killCase(t, c, p, stats) })
		})
	}
	wg.Wait()
	if len(stats.busySeen) == 0 {
		t.Errorf("no recovery run during a dead worker's lease reported its record busy")
	}
	t.Logf("%d crash points in %v; busy during the lease at %d point(s); recovery time after SIGKILL (kill → resolving recover): %s",
		len(txn.EtcdPoints), time.Since(start).Round(time.Millisecond), len(stats.busySeen), durations(stats.recovered))
}

func killCase(t *testing.T, c *etcdtest.Cluster, p txn.Point, stats *killStats) {
	s := newStore(t, c, "kill-"+strings.NewReplacer("/", "-", ":", "-").Replace(string(p)))
	const src, tgt = "src", "tgt"
	s.gen(src)
	pr := s.prepare(src)
	want := pointOutcome(p)
	args := pr.commitArgs(tgt)
	graftTxn := ""
	if strings.HasPrefix(string(p), "revert/") {
		graftTxn = decode[committed](t, s.must(pr.commitArgs(tgt)...)).TxnID
		args = []string{"revert", tgt, "--json"}
	}
	w := s.start([]string{"GRAFT_CRASH_POINT=" + string(p)}, args...)
	if !w.waitLine("GRAFT_CRASH_POINT_REACHED "+string(p), 30*time.Second) {
		w.signal(syscall.SIGKILL)
		t.Fatalf("the worker never reached %s: %v", p, w.wait())
	}
	if err := w.signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	if r := w.wait(); r.exit != -1 {
		t.Fatalf("the worker was not killed: %v", r)
	}

	// At once: the dead worker's lease still holds its locks.
	first := s.recover()
	if first.exit != 0 || len(first.Errors) != 0 {
		t.Errorf("recovery right after the kill failed: %v", first)
	}
	var final recoverReport
	switch {
	case !hasRecord(p):
		if first.Scanned != 0 || first.Busy != 0 {
			t.Errorf("no record was written yet (or it was removed) at %s, but recovery found one: %v", p, first)
		}
	default:
		if first.Scanned != 1 {
			t.Errorf("the record of the killed transaction is not in the journal: %v", first)
		}
		alive := first.at.Sub(killed) < surelyAlive
		switch {
		case first.Busy == 1 && first.RolledBack+first.RolledForward == 0:
			stats.mu.Lock()
			stats.busySeen = append(stats.busySeen, p)
			stats.mu.Unlock()
		case alive:
			t.Errorf("recovery %v after the kill, while the dead worker's lease (%v) was alive, did not leave its record busy: %v", first.at.Sub(killed).Round(time.Millisecond), lease, first)
		default:
			t.Logf("the first recovery ended %v after the kill: too late to judge the lease", first.at.Sub(killed).Round(time.Millisecond))
		}
		final = first
		for final.Busy != 0 || final.RolledBack+final.RolledForward == 0 {
			if time.Since(killed) > resolveWait {
				t.Fatalf("the record was not resolved within %v of the kill: %v", resolveWait, final)
			}
			time.Sleep(200 * time.Millisecond)
			final = s.recover()
			if final.exit != 0 || len(final.Errors) != 0 {
				t.Errorf("recovery failed: %v", final)
			}
			if final.Scanned == 0 {
				t.Fatalf("the record vanished unresolved: %v", final)
			}
		}
		took := final.at.Sub(killed)
		stats.mu.Lock()
		stats.recovered = append(stats.recovered, took)
		stats.mu.Unlock()
		forward := want == commitForward || want == revertForward
		if forward && (final.RolledForward != 1 || final.RolledBack != 0) || !forward && (final.RolledBack != 1 || final.RolledForward != 0) {
			t.Errorf("killed at %s: recovery should roll %s; it reported %v", p, map[bool]string{true: "forward", false: "back"}[forward], final)
		}
		if len(final.Warnings) != 0 {
			t.Errorf("BUG (recovery/recovery.go one()): killed at %s with no event appended by anyone, recovery warns %q", p, final.Warnings)
		}
		t.Logf("resolved %v after the kill: %v", took.Round(time.Millisecond), final)
	}

	switch want {
	case commitForward:
		s.expectForward(src, tgt, "")
	case commitBack:
		s.expectBack(src, tgt)
	case revertBack:
		s.expectForward(src, tgt, graftTxn)
		if un := marks(readLog(t, s.home, src), session.TypeGraftUnretired); len(un) != 0 {
			t.Errorf("the revert rolled back, but %s holds %+v", src, un)
		}
	case revertForward:
		st := s.status()
		if r, _ := st.row(src); r.State != "active" {
			t.Errorf("reverted: %s should be active; status says %+v", src, r)
		}
		if r, _ := st.row(tgt); r.State != "abandoned" {
			t.Errorf("reverted: %s should be abandoned; status says %+v", tgt, r)
		}
		if un := marks(readLog(t, s.home, src), session.TypeGraftUnretired); len(un) != 1 || un[0].Txn != graftTxn || un[0].Target != tgt {
			t.Errorf("reverted: %s should hold one graft/unretired for txn %s into %s; it holds %+v", src, graftTxn, tgt, un)
		}
	}
	s.checkSettled([]string{src})
}

// lostLocks is what the stderr of a worker that came back after its lease
// must say.
var lostLocks = regexp.MustCompile(`(?i)lost (its|the|our) locks|lease expired|lease .*(expired|lost)`)

// TestPausePastLease: a worker stops itself (SIGSTOP) in a commit and
// stays stopped past its lease; another worker's recovery resolves its
// transaction by the commit point; continued, the paused worker must not
// undo or repeat it.
func TestPausePastLease(t *testing.T) {
	c := sharedCluster(t)
	var wg sync.WaitGroup
	for _, p := range []txn.Point{txn.CommitJournalVerified, txn.CommitDecided} {
		wg.Go(func() {
			t.Run(strings.NewReplacer("/", "_", ":", "_").Replace(string(p)), func(t *testing.T) { pauseCase(t, c, p) })
		})
	}
	wg.Wait()
}

// startPaused starts a worker of args armed to pause at p, waits until
// every thread of it is stopped and says whether it overran the point: it
// printed GRAFT_PAUSE_POINT_CONTINUED before anyone continued it (see
// TestPausePointStopsAtThePoint).
func startPaused(t *testing.T, s *store, p txn.Point, args []string) (w *proc, overran bool) {
	t.Helper()
	w = s.start([]string{"GRAFT_PAUSE_POINT=" + string(p)}, args...)
	if !w.waitLine("GRAFT_PAUSE_POINT_REACHED "+string(p), 30*time.Second) {
		w.signal(syscall.SIGKILL)
		t.Fatalf("the worker never reached %s: %v", p, w.wait())
	}
	if !w.waitStopped(5 * time.Second) {
		w.signal(syscall.SIGKILL)
		t.Fatalf("the worker did not stop at %s: %v", p, w.wait())
	}
	return w, strings.Contains(w.stderr.String(), "GRAFT_PAUSE_POINT_CONTINUED")
}

// pauseAttempts bounds the tries of a pause case to get a worker that
// stopped at its point (not past it).
const pauseAttempts = 8

func pauseCase(t *testing.T, c *etcdtest.Cluster, p txn.Point) {
	const src, tgt = "src", "tgt"
	forward := pointOutcome(p) == commitForward
	var (
		s      *store
		w      *proc
		overan int
	)
	overranLast := false
	for try := 0; ; try++ {
		s = newStore(t, c, "pause-"+strings.NewReplacer("/", "-", ":", "-").Replace(string(p)))
		s.gen(src)
		pr := s.prepare(src)
		var overran bool
		w, overran = startPaused(t, s, p, pr.commitArgs(tgt))
		if !overran {
			break
		}
		overan++
		if try == pauseAttempts-1 {
			if !forward {
				w.signal(syscall.SIGKILL)
				t.Fatalf("in %d tries the worker never stopped at %s without running past it first (txn/armed_crashpoints.go, see TestPausePointStopsAtThePoint)", pauseAttempts, p)
			}
			// Decided already: wherever past the decision it stopped,
			// recovery must roll forward and the worker, continued, must
			// not append a second graft/retired.
			t.Logf("in %d tries the worker never stopped at %s without running past it first; going on with one stopped somewhere after it", pauseAttempts, p)
			overranLast = true
			break
		}
		w.signal(syscall.SIGKILL)
		w.wait()
	}
	if overan > 0 {
		t.Logf("%d worker(s) ran past %s before they stopped (retried; see TestPausePointStopsAtThePoint)", overan, p)
	}
	paused := time.Now()

	first := s.recover()
	if first.at.Sub(paused) < surelyAlive && (first.Busy != 1 || first.RolledBack+first.RolledForward != 0) {
		t.Errorf("recovery while the paused worker's lease was alive did not leave its record busy: %v", first)
	}
	time.Sleep(time.Until(paused.Add(2 * lease)))
	final := s.recover()
	for final.Busy != 0 || final.RolledBack+final.RolledForward == 0 {
		if final.Scanned == 0 && overranLast {
			t.Logf("the worker ran so far past %s that it removed its record before it stopped: nothing to recover", p)
			final.RolledForward = 1 // what it did itself
			break
		}
		if time.Since(paused) > resolveWait {
			t.Fatalf("the paused worker's record was not resolved within %v: %v", resolveWait, final)
		}
		time.Sleep(200 * time.Millisecond)
		final = s.recover()
	}
	if forward && final.RolledForward != 1 || !forward && final.RolledBack != 1 || final.exit != 0 {
		t.Errorf("paused at %s past its lease: recovery should roll %s; it reported %v", p, map[bool]string{true: "forward", false: "back"}[forward], final)
	}
	t.Logf("resolved %v after the pause: %v", final.at.Sub(paused).Round(time.Millisecond), final)
	if forward {
		s.expectForward(src, tgt, "")
	} else {
		s.expectBack(src, tgt)
	}

	// What the cluster holds under the prefix before the worker goes on:
	// no record (recovery resolved it), no lock of the paused worker.
	keysBefore := dumpPrefix(t, c, "/"+s.prefix()+"/")
	for k := range keysBefore {
		if strings.Contains(k, "/txn/") || strings.Contains(k, "/locks/") {
			t.Errorf("after recovery, before SIGCONT, the cluster still holds %s", k)
		}
	}
	if err := w.signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	r := w.wait()
	if strings.Count(r.stderr, "GRAFT_PAUSE_POINT_CONTINUED") != 1 {
		t.Errorf("the paused worker did not go on after SIGCONT: %v", r)
	}
	t.Logf("the paused worker, continued: %v", r)
	if forward {
		// Decided before it stopped: whatever it says, its graft/retired
		// must not be appended a second time.
		if r.exit == 0 && !strings.Contains(r.stdout, tgt) {
			t.Errorf("the continued worker exits 0 without naming its target: %v\n%s", r, r.stdout)
		}
		s.expectForward(src, tgt, "")
	} else {
		if r.exit == 0 {
			t.Errorf("the continued worker's commit succeeded although its lease expired and its transaction was rolled back: %v\n%s", r, r.stdout)
		}
		if r.exit != 53 {
			t.Errorf("BUG (etcdstore/store.go Store.Decide): the continued worker should be refused as fenced (exit 53), got %v", r)
		}
		if !lostLocks.MatchString(r.stderr) {
			t.Errorf("BUG (etcdstore/store.go Store.Decide): the continued worker's error does not say that it lost its locks/lease: %q", r.stderr)
		}
		if strings.Contains(r.stderr, "the record stays") && final.RolledBack == 1 {
			t.Errorf("BUG (txn/txn.go Commit): the continued worker says %q, but its record was resolved and removed by another worker", "the record stays")
		}
		s.expectBack(src, tgt)
	}
	s.checkSettled([]string{src})
}

// TestMemberKilledMidCommit: member 0 stops while a run of commits goes
// on; every commit still succeeds (one retry on store_unavailable is
// allowed, and counted).
func TestMemberKilledMidCommit(t *testing.T) {
	c := etcdtest.StartT(t, 3)
	s := newStore(t, c, "member-down")
	const n, stopAfter = 10, 3
	var sources []string
	var preps []prepared
	for i := range n {
		src := fmt.Sprintf("m%02d", i)
		s.gen(src)
		preps = append(preps, s.prepare(src))
		sources = append(sources, src)
	}
	leader := leaderOf(t, c)
	stopped := make(chan error, 1)
	var stopTook time.Duration
	var retried []int
	var took []time.Duration
	for i, p := range preps {
		if i == stopAfter {
			go func() {
				t0 := time.Now()
				err := c.Stop(0)
				stopTook = time.Since(t0)
				stopped <- err
			}()
		}
		tgt := sources[i] + ".t"
		res := s.run(p.commitArgs(tgt)...)
		if res.exit == 52 {
			t.Logf("commit %d: store_unavailable, retried once: %v", i, res)
			retried = append(retried, i)
			res = s.run(p.commitArgs(tgt)...)
		}
		took = append(took, res.elapsed)
		if res.exit != 0 {
			t.Errorf("commit %d failed with member 0 stopping or stopped: %v", i, res)
			continue
		}
		s.expectForward(sources[i], tgt, decode[committed](t, res).TxnID)
	}
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	t.Logf("member 0 (leader at the start: member %d) stopped during commit %d; Stop took %v; commit times %s; retried on store_unavailable: %v",
		leader, stopAfter, stopTook.Round(time.Millisecond), durations(took), retried)
	s.checkSettled(sources)
	if err := c.Restart(0); err != nil {
		t.Fatal(err)
	}
	s.checkSettled(sources)
}

// leaderOf is the index of the cluster's leader (-1 when unknown).
func leaderOf(t *testing.T, c *etcdtest.Cluster) int {
	cli, err := c.Client()
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	for i, ep := range c.Endpoints() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		st, err := cli.Status(ctx, ep)
		cancel()
		if err == nil && st.Leader == st.Header.MemberId {
			return i
		}
	}
	return -1
}

// TestQuorumLost: with 2 of 3 members down a commit fails in bounded time
// with store_unavailable naming the endpoints, and loses nothing; once the
// members are back the same commit succeeds.
func TestQuorumLost(t *testing.T) {
	c := etcdtest.StartT(t, 3)
	s := newStore(t, c, "quorum")
	const src, tgt = "q", "q.t"
	s.gen(src)
	p := s.prepare(src)
	logPath := filepath.Join(s.home, "sessions", src+session.Ext)
	before, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{1, 2} {
		if err := c.Stop(i); err != nil {
			t.Fatal(err)
		}
	}
	res := s.run(p.commitArgs(tgt)...)
	bound := 3*reqTimeout + 5*time.Second
	t.Logf("commit without quorum: %v", res)
	if res.exit != 52 {
		t.Errorf("a commit without quorum should exit 52 (store_unavailable): %v", res)
	}
	if res.elapsed > bound {
		t.Errorf("a commit without quorum took %v to fail, more than %v", res.elapsed, bound)
	}
	for _, ep := range c.Endpoints() {
		if !strings.Contains(res.stderr, ep) {
			t.Errorf("the store_unavailable message does not name the endpoint %s: %q", ep, res.stderr)
		}
	}
	after, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Errorf("the failed commit changed the source's log (%d bytes before, %d after)", len(before), len(after))
	}
	if evs := readLog(t, s.home, src); len(evs) != sourceEvents || len(marks(evs, session.TypeGraftRetired)) != 0 {
		t.Errorf("the source should still hold its %d events and no graft/retired; it holds %d", sourceEvents, len(evs))
	}
	if exists(s.home, tgt) {
		t.Errorf("the failed commit left a target %s", tgt)
	}
	for _, i := range []int{1, 2} {
		if err := c.Restart(i); err != nil {
			t.Fatal(err)
		}
	}
	again := s.run(p.commitArgs(tgt)...)
	if again.exit != 0 {
		t.Fatalf("the same commit after the members came back: %v", again)
	}
	s.expectForward(src, tgt, decode[committed](t, again).TxnID)
	s.checkSettled([]string{src})
}

// TestHomes: a home of the file store is refused by an etcd worker, and a
// home of an etcd store by a file-store worker (and by another prefix),
// with exit 54 (store_mismatch).
func TestHomes(t *testing.T) {
	c := sharedCluster(t)
	url := c.URL("homes") + urlParams

	fileHome := newStore(t, nil, "")
	fileHome.gen("f")
	fileHome.prepare("f")
	res := fileHome.withURL(url).run("status")
	if res.exit != 54 || !strings.Contains(res.stderr, "file-store state") {
		t.Errorf("an etcd worker on a file-store home: want exit 54 naming the file-store state, got %v", res)
	}
	if _, err := os.Lstat(filepath.Join(fileHome.home, "etcd-store")); err == nil {
		t.Errorf("the refused etcd worker marked the file-store home as its own")
	}
	if res := fileHome.run("status"); res.exit != 0 {
		t.Errorf("the file-store home no longer works with the file store: %v", res)
	}

	etcdHome := newStore(t, c, "homes")
	etcdHome.gen("e")
	res = etcdHome.withURL("").run("status")
	if res.exit != 54 || !strings.Contains(res.stderr, "etcd") {
		t.Errorf("a file-store worker on an etcd home: want exit 54 naming the etcd store, got %v", res)
	}
	res = etcdHome.withURL(c.URL("homes-other") + urlParams).run("status")
	if res.exit != 54 {
		t.Errorf("a worker of another prefix on an etcd home: want exit 54, got %v", res)
	}
	if res := etcdHome.run("status"); res.exit != 0 {
		t.Errorf("the etcd home no longer works with its own store: %v", res)
	}
}

// dumpPrefix lists the keys under pfx with their create revision and lease.
func dumpPrefix(t *testing.T, c *etcdtest.Cluster, pfx string) map[string]string {
	t.Helper()
	cli, err := c.Client()
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := cli.Get(ctx, pfx, clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, kv := range resp.Kvs {
		out[string(kv.Key)] = fmt.Sprintf("create=%d mod=%d lease=%x", kv.CreateRevision, kv.ModRevision, kv.Lease)
	}
	return out
}

// TestPausePointStopsAtThePoint: a worker armed with GRAFT_PAUSE_POINT
// must not run past its point before it is continued (SIGCONT); it must
// not even print GRAFT_PAUSE_POINT_CONTINUED. A worker that goes on after
// its SIGSTOP until the stop lands (kill(2) of its own pid is asynchronous
// for a multi-threaded process) makes every pause test lie: paused at
// commit/journal-verified:after, it was seen to run Decide and commit.
func TestPausePointStopsAtThePoint(t *testing.T) {
	c := sharedCluster(t)
	s := newStore(t, c, "pause-point")
	const tries = 10
	overran := 0
	for i := range tries {
		src := fmt.Sprintf("p%02d", i)
		s.gen(src)
		pr := s.prepare(src)
		w, over := startPaused(t, s, txn.CommitJournalVerified, pr.commitArgs(src+".t"))
		if over {
			overran++
			t.Logf("try %d: stopped only after it ran past %s: %q", i, txn.CommitJournalVerified, w.stderr.String())
		}
		w.signal(syscall.SIGKILL)
		w.wait()
	}
	if overran > 0 {
		t.Errorf("BUG (txn/armed_crashpoints.go): in %d of %d runs the worker ran past its pause point %s before it stopped (it printed GRAFT_PAUSE_POINT_CONTINUED with nobody continuing it)", overran, tries, txn.CommitJournalVerified)
	}
}
