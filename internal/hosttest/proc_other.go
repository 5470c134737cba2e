//go:build !unix

package hosttest

import (
	"os"
	"os/exec"
)

func inOwnProcessGroup(cmd *exec.Cmd) {}

func killProcessGroup(pid int) {}

func reportBeforeKill(cmd *exec.Cmd, dir string) {}

func terminate(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return nil
	}
	return p.Kill()
}

func running(pid int) bool { return false }
