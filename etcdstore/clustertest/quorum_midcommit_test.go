package clustertest

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/graft-project/graft/internal/etcdtest"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/txn"
)

// TestQuorumLostMidCommit: the cluster loses its quorum while a commit is
// between its cold read and its decision (the worker paused at
// commit/journal-verified:after, its record COLD_VERIFIED on the cluster).
// The decision gets no answer: the commit fails with store_unavailable
// within a bounded time, the source is not retired. Once the members are
// back, recovery resolves the record the way the cluster holds it (rolled
// back, or forward when the leader had logged the decision before it lost
// its quorum), the checks hold, and the live session commits again.
func TestQuorumLostMidCommit(t *testing.T) {
	c := etcdtest.StartT(t, 3)
	s := newStore(t, c, "quorum-mid")
	const src, tgt = "m", "m.t"
	s.gen(src)
	p := s.prepare(src)
	var w *proc
	for try := 0; ; try++ {
		var overran bool
		w, overran = startPaused(t, s, txn.CommitJournalVerified, p.commitArgs(tgt))
		if !overran {
			break
		}
		w.signal(syscall.SIGKILL)
		w.wait()
		if try == pauseAttempts {
			t.Fatalf("the worker overran its pause point %d times", try+1)
		}
		s.checkSettled([]string{src})
		p = s.prepare(src)
	}
	for _, i := range []int{1, 2} {
		if err := c.Stop(i); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	res := w.wait()
	t.Logf("the commit whose decision met no quorum: exit %d after %v; stderr %q", res.exit, res.elapsed, lastLine(res.stderr))
	if res.exit != 52 {
		t.Errorf("a decision without quorum should fail with exit 52 (store_unavailable): %v", res)
	}
	if !strings.Contains(res.stderr, "not confirmed") {
		t.Errorf("the error should say the commit point was not confirmed and recovery resolves it: %q", res.stderr)
	}
	if evs := readLog(t, s.home, src); len(marks(evs, session.TypeGraftRetired)) != 0 {
		t.Errorf("the source was retired although the decision failed")
	}
	for _, i := range []int{1, 2} {
		if err := c.Restart(i); err != nil {
			t.Fatal(err)
		}
	}
	// The worker's lease outlives the outage (a leader change renews every
	// lease): recovery resolves the record once it is gone.
	start := time.Now()
	var final recoverReport
	for {
		final = s.recover()
		if final.exit == 0 && final.Busy == 0 && final.Scanned > 0 {
			break
		}
		if time.Since(start) > 6*lease+10*time.Second {
			t.Fatalf("the record was not resolved %v after quorum came back: %v", time.Since(start), final)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("resolved %v after quorum came back: %v", time.Since(start).Round(time.Millisecond), final)
	// An unanswered decision is undecided, not refused: a leader that took
	// the request into its log before it lost quorum commits it once the
	// members are back (raft commits an older term's entry with the new
	// term's first). Recovery must follow whichever the cluster holds.
	next := src
	switch {
	case final.RolledBack == 1 && final.RolledForward == 0:
		s.expectBack(src, tgt)
	case final.RolledForward == 1 && final.RolledBack == 0:
		t.Logf("the leader had taken the decision before quorum was lost; it committed when the members came back")
		s.expectForward(src, tgt, "")
		next = tgt
	default:
		t.Fatalf("recovery should resolve the one record one way: %v", final)
	}
	s.checkSettled([]string{src})
	again := s.run(s.prepare(next).commitArgs(tgt + "2")...)
	if again.exit != 0 {
		t.Fatalf("a commit after quorum came back: %v", again)
	}
	s.expectForward(next, tgt+"2", decode[committed](t, again).TxnID)
	s.checkSettled([]string{next}) // a retired src lives on in next's target, not its own
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
