//go:build !linux

package crashtest

import (
	"fmt"
	"runtime"
	"syscall"
)

// mountTmpfs: the real-ENOSPC case mounts a Linux tmpfs; elsewhere it is
// not permitted (EPERM), which the case reports as skipped.
func mountTmpfs(mnt, data string) error {
	return fmt.Errorf("a tmpfs mount on %s: %w", runtime.GOOS, syscall.EPERM)
}

func unmountFS(mnt string, detach bool) error {
	return fmt.Errorf("unmount on %s: %w", runtime.GOOS, syscall.EPERM)
}
