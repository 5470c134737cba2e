// Package helperproc re-runs the test binary as a second process, for tests
// that need one (a lock or an open database held elsewhere). The child runs
// only the test function TestHelperProcess of its package, which does its
// part when its environment says so and skips otherwise.
package helperproc

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Child is a running helper: the test writes to (or closes) Stdin and reads
// what the child prints with Line.
type Child struct {
	Cmd   *exec.Cmd
	Stdin io.WriteCloser
	out   *bufio.Reader
}

// Start runs os.Args[0] -test.run=^TestHelperProcess$ with env added to this
// process's environment. A child still running when the test ends is
// killed and reaped, so a failed test leaves no process behind.
func Start(t testing.TB, env ...string) *Child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatalf("helperproc: stdin pipe: %v", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatalf("helperproc: stdout pipe: %v", err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("helperproc: starting %s: %v", os.Args[0], err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState != nil {
			return
		}
		if err := cmd.Process.Kill(); err != nil {
			t.Errorf("helperproc: killing helper %d: %v", cmd.Process.Pid, err)
		}
		var ee *exec.ExitError
		if err := cmd.Wait(); err != nil && !errors.As(err, &ee) {
			t.Errorf("helperproc: waiting for killed helper %d: %v", cmd.Process.Pid, err)
		}
	})
	return &Child{Cmd: cmd, Stdin: stdin, out: bufio.NewReader(stdout)}
}

// Line reads the next line the child printed, without surrounding space.
func (c *Child) Line(t testing.TB) string {
	t.Helper()
	s, err := c.out.ReadString('\n')
	if err != nil {
		t.Fatalf("helperproc: reading helper output: %v (got %q)", err, s)
	}
	return strings.TrimSpace(s)
}

// Wait waits for the child to exit and fails the test unless it exited 0.
func (c *Child) Wait(t testing.TB) {
	t.Helper()
	if err := c.Cmd.Wait(); err != nil {
		t.Fatalf("helperproc: helper: %v", err)
	}
}
