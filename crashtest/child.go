package crashtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/graft-project/graft/txn"
)

// reachedPrefix opens the line a crashpoints child prints on stderr when it
// reaches its armed point (txn/armed_crashpoints.go), then waits to be killed.
const reachedPrefix = "GRAFT_CRASH_POINT_REACHED "

// child is one run of the graft binary.
type child struct {
	home string
	args []string // after --home
	// killAt arms GRAFT_CRASH_POINT: the child is sent SIGKILL once it says
	// it reached the point.
	killAt txn.Point
	// killAfter sends SIGKILL after this delay from the start, unless the
	// child has exited by then (0: no timed kill).
	killAfter time.Duration
	// asUser runs the child with these credentials (the EACCES case).
	asUser *syscall.Credential
	bin    string // overrides the suite's binary
	// env is added to the child's environment (a handoff's
	// CLAUDE_CONFIG_DIR).
	env []string
}

// childResult is how a child ended.
type childResult struct {
	exit    int  // exit code; -1 when killed
	killed  bool // ended by our SIGKILL
	reached bool // printed that it reached killAt
	stdout  string
	stderr  string
	elapsed time.Duration
}

func (r childResult) String() string {
	switch {
	case r.killed && r.reached:
		return "killed at its crash point"
	case r.killed:
		return fmt.Sprintf("killed after %s", r.elapsed.Round(time.Microsecond))
	case r.exit == 0:
		return "exit 0"
	}
	return fmt.Sprintf("exit %d: %s", r.exit, firstLine(r.stderr))
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if k := strings.IndexByte(s, '\n'); k >= 0 {
		return s[:k]
	}
	return s
}

// pointWatcher is the child's stderr: it keeps everything and closes
// reached when the line naming the armed point arrives.
type pointWatcher struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	want    string
	scanned int
	reached chan struct{}
	fired   bool
}

func (w *pointWatcher) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if w.want == "" || w.fired {
		return len(p), nil
	}
	for {
		rest := w.buf.Bytes()[w.scanned:]
		k := bytes.IndexByte(rest, '\n')
		if k < 0 {
			return len(p), nil
		}
		line := string(rest[:k])
		w.scanned += k + 1
		if line == w.want {
			w.fired = true
			close(w.reached)
			return len(p), nil
		}
	}
}

func (w *pointWatcher) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// childEnv is the parent's environment without any GRAFT_ variable (a
// developer's GRAFT_HOME must never be touched), plus the home and the
// suite's fault knobs.
func (s *suite) childEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GRAFT_") {
			env = append(env, kv)
		}
	}
	env = append(env, "GRAFT_HOME="+home)
	// No child ever writes into a person's host folders: a case that
	// hands off names its own (child.env, which comes later and wins);
	// every other child gets these, which must stay empty.
	env = append(env, "CLAUDE_CONFIG_DIR="+filepath.Join(s.work, "no-host", "claude"), "CODEX_HOME="+filepath.Join(s.work, "no-host", "codex"))
	var faults []string
	if s.cfg.Faults.SkipColdRead {
		faults = append(faults, "skip-cold-read")
	}
	if s.cfg.Faults.SkipTargetDirSync {
		faults = append(faults, "skip-target-dirsync")
	}
	if len(faults) > 0 {
		env = append(env, "GRAFT_FAULTS="+strings.Join(faults, ","))
	}
	return env
}

// start launches c; wait must be called on the result.
type running struct {
	cmd     *exec.Cmd
	stdout  *bytes.Buffer
	stderr  *pointWatcher
	done    chan error
	started time.Time
	c       child
}

func (s *suite) start(c child) (*running, error) {
	bin := s.bin
	if c.bin != "" {
		bin = c.bin
	}
	args := append([]string{"--home", c.home}, c.args...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(s.childEnv(c.home), c.env...)
	if c.killAt != "" {
		cmd.Env = append(cmd.Env, "GRAFT_CRASH_POINT="+string(c.killAt))
	}
	if c.asUser != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.asUser}
	}
	r := &running{cmd: cmd, stdout: &bytes.Buffer{}, stderr: &pointWatcher{reached: make(chan struct{})}, done: make(chan error, 1), c: c}
	if c.killAt != "" {
		r.stderr.want = reachedPrefix + string(c.killAt)
	}
	cmd.Stdout, cmd.Stderr = r.stdout, r.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s %s: %w", bin, strings.Join(args, " "), err)
	}
	r.started = time.Now()
	go func() { r.done <- cmd.Wait() }()
	return r, nil
}

// wait lets the child run to its end, its crash point (SIGKILL), its
// timed kill, or ChildTimeout (an error: a hung child).
func (r *running) wait() (childResult, error) {
	var timed <-chan time.Time
	if r.c.killAfter > 0 {
		t := time.NewTimer(r.c.killAfter - time.Since(r.started))
		defer t.Stop()
		timed = t.C
	}
	ctx, cancel := context.WithTimeout(context.Background(), ChildTimeout)
	defer cancel()
	res := childResult{}
	var werr error
	select {
	case werr = <-r.done:
	case <-r.stderr.reached:
		res.reached = true
		werr = r.kill()
	case <-timed:
		werr = r.kill()
	case <-ctx.Done():
		kerr := r.kill()
		return res, fmt.Errorf("child %s did not finish within %s (killed: %v); stderr: %s", strings.Join(r.cmd.Args, " "), ChildTimeout, kerr, firstLine(r.stderr.String()))
	}
	res.elapsed = time.Since(r.started)
	res.stdout, res.stderr = r.stdout.String(), r.stderr.String()
	var ee *exec.ExitError
	switch {
	case werr == nil:
		res.exit = 0
	case errors.As(werr, &ee):
		res.exit = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			res.killed = true
		}
	default:
		return res, fmt.Errorf("waiting for %s: %w", strings.Join(r.cmd.Args, " "), werr)
	}
	if res.killed && !res.reached && r.c.killAfter == 0 {
		return res, fmt.Errorf("child %s was killed by someone else", strings.Join(r.cmd.Args, " "))
	}
	return res, nil
}

// kill sends SIGKILL and returns the child's wait error. A child that
// exited on its own just before is not an error.
func (r *running) kill() error {
	if err := r.cmd.Process.Signal(syscall.SIGKILL); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("SIGKILL to %d: %w", r.cmd.Process.Pid, err)
	}
	return <-r.done
}

// runChild starts c and waits for it.
func (s *suite) runChild(c child) (childResult, error) {
	r, err := s.start(c)
	if err != nil {
		return childResult{}, err
	}
	return r.wait()
}

// runGraft runs the binary to completion and fails on a non-zero exit.
func (s *suite) runGraft(home string, args ...string) (string, error) {
	res, err := s.runChild(child{home: home, args: args})
	if err != nil {
		return "", err
	}
	if res.exit != 0 {
		return "", fmt.Errorf("graft %s: exit %d: %s", strings.Join(args, " "), res.exit, strings.TrimSpace(res.stderr))
	}
	return res.stdout, nil
}
