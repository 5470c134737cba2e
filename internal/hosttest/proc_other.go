//go:build !unix

package hosttest

import "os/exec"

func inOwnProcessGroup(cmd *exec.Cmd) {}

func killProcessGroup(pid int) {}
