//go:build unix

package hosttest

import (
	"os"
	"os/exec"
	"syscall"
	"time"
)

// inOwnProcessGroup starts cmd as the leader of a new process group and
// makes its cancellation (the timeout) kill the whole group.
func inOwnProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

// reportBeforeKill makes the timeout first ask every Node.js process of
// cmd's group for a diagnostic report (reportSignal, which NODE_OPTIONS
// set up: Environ), waits until dir's reports stop coming (none more for
// reportSettle once one came) or reportWait has passed, then kills the
// group.
func reportBeforeKill(cmd *exec.Cmd, dir string) {
	cmd.Cancel = func() error {
		if err := syscall.Kill(-cmd.Process.Pid, reportSignal); err == nil {
			seen, since := 0, time.Now()
			for deadline := time.Now().Add(reportWait); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				ents, _ := os.ReadDir(dir) // only how long to wait; readNodeReports says why it could not read
				if len(ents) != seen {
					seen, since = len(ents), time.Now()
				} else if seen > 0 && time.Since(since) >= reportSettle {
					break
				}
			}
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// reportSignal is the signal Node.js writes a report on (--report-signal).
const reportSignal = syscall.SIGUSR2

// killProcessGroup kills what is left of the group led by pid; a group
// already gone is no error worth reporting.
func killProcessGroup(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}

// terminate asks process pid to stop (SIGTERM); one already gone is no
// error.
func terminate(pid int) error {
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil && err != syscall.ESRCH {
		return err
	}
	return nil
}

// running tells whether process pid still exists.
func running(pid int) bool { return syscall.Kill(pid, 0) == nil }
