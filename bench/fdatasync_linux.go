package bench

import (
	"os"
	"syscall"
)

// fdatasync is what bbolt calls on Linux after its writes.
func fdatasync(f *os.File) error { return syscall.Fdatasync(int(f.Fd())) }
