package clustertest

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHookRecoversOnEtcd: the host's SessionStart hook on the etcd store is
// a worker like any other. A graft killed right after its decision (the
// source not yet retired) is finished by the hook's start-up recovery once
// the dead worker's lease has expired; the hook always exits 0, and leaves
// nothing to a later recovery.
func TestHookRecoversOnEtcd(t *testing.T) {
	c := sharedCluster(t)
	s := newStore(t, c, "hook")
	const src, tgt = "src", "tgt"
	s.gen(src)
	pr := s.prepare(src)
	const point = "commit/decided:after"
	w := s.start([]string{"GRAFT_CRASH_POINT=" + point}, pr.commitArgs(tgt)...)
	if !w.waitLine("GRAFT_CRASH_POINT_REACHED "+point, 30*time.Second) {
		w.signal(syscall.SIGKILL)
		t.Fatalf("the worker never reached %s: %v", point, w.wait())
	}
	if err := w.signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	w.wait()

	records := func() int {
		n := 0
		for k := range dumpPrefix(t, c, "/"+s.prefix()+"/txn/") {
			if strings.Contains(k, "/txn/txn-") {
				n++
			}
		}
		return n
	}
	if records() != 1 {
		t.Fatalf("a worker killed at %s should leave its COMMITTED record: %v", point, dumpPrefix(t, c, "/"+s.prefix()+"/"))
	}
	in := `{"session_id":"6f1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d","transcript_path":"` + filepath.Join(t.TempDir(), "none.jsonl") +
		`","cwd":"` + t.TempDir() + `","hook_event_name":"SessionStart","source":"startup"}`
	hook := func() (int, string) {
		ctx, cancel := context.WithTimeout(context.Background(), procTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, graftBin, "--store", s.url, "hook", "claude-code")
		cmd.Env = s.childEnv(nil)
		cmd.Stdin = strings.NewReader(in)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("running the hook: %v", err)
		}
		return cmd.ProcessState.ExitCode(), string(out)
	}
	deadline := killed.Add(4 * lease)
	runs := 0
	var firstStart time.Time
	for records() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the record was not resolved by %d hook runs within %v of the kill", runs, 4*lease)
		}
		if runs == 0 {
			firstStart = time.Now()
		}
		code, out := hook()
		runs++
		if code != 0 {
			t.Fatalf("the hook exited %d (a hook must never fail the host): %s", code, out)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("resolved by the SessionStart hook %v after the kill (%d hook runs)", time.Since(killed).Round(time.Millisecond), runs)
	switch {
	case runs >= 2:
	case firstStart.Sub(killed) < surelyAlive:
		t.Errorf("the first hook run, %v after the kill, within the dead worker's lease, resolved its record: the lease was not respected", firstStart.Sub(killed).Round(time.Millisecond))
	default:
		t.Logf("the first hook run started %v after the kill: too late to judge the lease", firstStart.Sub(killed).Round(time.Millisecond))
	}
	s.expectForward(src, tgt, "")
	s.checkSettled([]string{src})
}
