//go:build unix

package hosttest

import (
	"os/exec"
	"syscall"
)

// inOwnProcessGroup starts cmd as the leader of a new process group and
// makes its cancellation (the timeout) kill the whole group.
func inOwnProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

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
