package crashtest

import "golang.org/x/sys/unix"

// mountTmpfs mounts a tmpfs with options data at mnt (L2a's real ENOSPC).
func mountTmpfs(mnt, data string) error {
	return unix.Mount("tmpfs", mnt, "tmpfs", 0, data)
}

// unmountFS unmounts mnt; detach leaves a busy mount to go when it is free.
func unmountFS(mnt string, detach bool) error {
	flags := 0
	if detach {
		flags = unix.MNT_DETACH
	}
	return unix.Unmount(mnt, flags)
}
