//go:build !linux

package bench

import "os"

// fdatasync: bbolt fsyncs where there is no fdatasync.
func fdatasync(f *os.File) error { return f.Sync() }
