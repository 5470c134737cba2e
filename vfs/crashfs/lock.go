package crashfs

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// openLockStandIn opens a new open file description of n's lock memfd,
// making the memfd on first use. Re-opening through /proc gives a
// description of its own, which flock needs to tell two handles apart.
func openLockStandIn(n *inode) (*os.File, error) {
	if n.lockStandIn == nil {
		fd, err := unix.MemfdCreate("crashfs-lock", unix.MFD_CLOEXEC)
		if err != nil {
			return nil, fmt.Errorf("memfd_create for the lock stand-in: %w", err)
		}
		n.lockStandIn = os.NewFile(uintptr(fd), "crashfs-lock")
	}
	name := fmt.Sprintf("/proc/self/fd/%d", n.lockStandIn.Fd())
	f, err := os.OpenFile(name, os.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("opening the lock stand-in %s: %w", name, err)
	}
	return f, nil
}
