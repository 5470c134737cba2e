package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"
)

// TestMain lets the test binary be a worker, as the command is: the
// benchmark re-executes its own binary.
func TestMain(m *testing.M) {
	runWorkerIfAsked()
	os.Exit(m.Run())
}

// TestTiny runs the whole benchmark with tiny settings (1 worker, 2
// commits, 1 run, both stores, the recovery measurement included) so it
// cannot rot, and checks the table.
func TestTiny(t *testing.T) {
	if testing.Short() {
		t.Skip("builds graft twice and starts an etcd cluster")
	}
	start := time.Now()
	res, err := run(config{workers: []int{1}, commits: 2, runs: 1, lease: 2 * time.Second, events: 40,
		stores: []string{"file", "etcd"}, recovery: true, quiet: !testing.Verbose()})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 2 {
		t.Fatalf("%d rows, want 2 (file, etcd)", len(res.Rows))
	}
	for _, r := range res.Rows {
		if r.CommitsPerSec <= 0 || r.Latency <= 0 || r.CommitLatency <= 0 || r.CommitLatency > r.Latency {
			t.Errorf("%s: commits/s %v, latency %v, commit %v", r.Store, r.CommitsPerSec, r.Latency, r.CommitLatency)
		}
		rec := r.Recovery
		if rec == nil || rec.RolledBack != 1 || rec.ResolvingRuns != 1 || rec.Scan <= 0 || rec.KillToResolved < rec.Scan {
			t.Errorf("%s: recovery %+v", r.Store, rec)
		}
		if r.Store == "etcd" {
			// The dead worker's lease had to expire first.
			if rec != nil && rec.KillToResolved < time.Second {
				t.Errorf("etcd: all resolved %v after the kill, before the lease (2s) could expire", rec.KillToResolved)
			}
			if r.Ops == nil || r.Ops.Writes() < 1 || r.CommitOps.Writes() < 1 {
				t.Errorf("etcd: requests per commit %+v, commit %+v", r.Ops, r.CommitOps)
			}
		}
	}
	var buf bytes.Buffer
	printTable(&buf, res)
	for _, want := range []string{"| measure | workers | file store | etcd store (3 members, lease 2s) | etcd ÷ file |", "commits/s", "recovery:", "etcd requests per commit", "Machine: "} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, buf.String())
		}
	}
	t.Logf("took %v\n%s", time.Since(start).Round(time.Millisecond), buf.String())
}

func TestOpCountsString(t *testing.T) {
	o := OpCounts{TxnWrite: 9, Delete: 3, Get: 12, Watch: 0.5}
	if got, want := o.String(), "12 writes (9 txn, 3 delete), 12 reads (12 get), 0.5 watches"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := o.Requests(); got != 24.5 {
		t.Errorf("Requests %v, want 24.5", got)
	}
	if got := o.add(o).sub(o); got != o {
		t.Errorf("add then sub: %+v", got)
	}
}

func TestMedian(t *testing.T) {
	if got := median([]float64{3, 1, 2}); got != 2 {
		t.Errorf("median 3,1,2 = %v", got)
	}
	if got := median([]time.Duration{4, 1, 2, 3}); got != 2 {
		t.Errorf("median 4,1,2,3 = %v", got)
	}
}
