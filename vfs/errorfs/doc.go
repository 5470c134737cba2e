// Package errorfs wraps any vfs.FS and injects errors into its operations,
// so a test can make the N-th file operation fail with EIO, ENOSPC or EACCES,
// or tear a write in half, and check what the caller left behind.
//
// # Counting
//
// Every FS method and every File method except File.Name is one operation;
// the wrapper numbers them 1, 2, 3, … in the order they are called (Op.Index)
// and asks the Injector before running each one. A deterministic caller sees
// the same numbering on every run, so a suite can run "fail op N" for
// N = 1, 2, … until the Injector is never consulted at N (Fault.Fired is
// false): then every operation of the run has been failed once. File.Name is
// not counted because it cannot fail: an index that cannot be failed would
// end such a loop early. File.Lock is forwarded and not counted either, and
// never fails here: the plans number the operations that move data, and a
// lock (the session store's, on a log) moves none.
//
// Kinds: open, create, openappend, write, sync, truncate, close, writeatomic,
// rename, remove, mkdirall, readdir, lstat, syncdir, read (Read and ReadAt),
// stat (File.Stat). Op.Path is the name the caller passed (for a File
// operation, the name it was opened with); a rename also sets Op.NewPath.
//
// # Injected errors
//
// An injected error is an *InjectedError: errors.Is matches ErrInjected and
// the errno it carries (errors.Is(err, syscall.ENOSPC), and fs.ErrPermission
// for EACCES), and its message names the operation ("errorfs: injected EIO on
// op 7: sync sessions/x.jsonl").
//
// When an operation is failed it does not reach the wrapped FS, with two
// exceptions that mirror the kernel:
//   - close: the wrapped file is still closed (the descriptor is released
//     even when close reports an error), then the injected error is returned;
//   - a torn write (Fault.TornWrite): the first half of the bytes is written
//     through, then the error is returned with the count written;
//     Fault.TornWriteAfter(n) writes the first n bytes instead (a disk with
//     n bytes free), so a suite can fail a write at every offset.
//
// # Limits
//
// WriteFileAtomic is one operation: its inner steps (temp file, fsync,
// rename, directory fsync) run in the wrapped FS and cannot be failed one by
// one. Failing an operation never changes what the wrapped FS holds beyond
// the two exceptions above; a real disk may also lose or corrupt data around
// an EIO, which crashfs (power loss) and not this package models.
package errorfs
