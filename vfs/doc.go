// Package vfs is the narrow filesystem seam every durable graft operation goes
// through: the session store, the journal and the catalog's neighbours call
// FS, never package os, for data files. Default is the operating system; the
// crash suite wraps it to inject errors (EIO, ENOSPC, EACCES, torn writes) and
// to record operations for power-loss simulation.
//
// Contract every implementation keeps:
//   - Open, Create and OpenAppend never follow a symlink in the last element
//     (O_NOFOLLOW): a planted link fails with ELOOP.
//   - Create is exclusive (O_EXCL).
//   - Nothing is durable until Sync (file data) and SyncDir (the directory
//     entry) return nil. An fsync error is final: callers do not retry it.
//   - File.Lock is an exclusive lock of the open file, waiting while
//     another open file of the same file holds it, released by Close (and
//     by the process's death): flock(2) on disk, a lock table in an
//     in-memory FS. The session store takes it to serialize the writers of
//     a log. No descriptor leaves the seam.
//   - WriteFileAtomic is temp file + fsync + rename + fsync of the directory;
//     temp files are named "." + base + digits in the same directory.
package vfs
