// Package lockfile owns $GRAFT_HOME/locks/: advisory flock(2) locks that
// keep two processes from grafting the same source or into the same target
// at once, and that tell the recovery scan whether a journal record belongs
// to a live process.
//
// # Files
//
//	locks/                   directory, mode 0700
//	locks/<name>.lock        an empty file, mode 0600; <name> is a session id
//	locks/import/            directory, mode 0700
//	locks/import/<id>.lock   an empty file, mode 0600: an import into session <id> runs
//
// Who takes them: a graft or revert transaction takes its target's and
// its source's (txn.LockPair), and so does the recovery scan for each
// record; every other writer of a session takes that session's: appends
// (graft.Service.Append, the importer) and every creator of a log
// (session.Store.Create and CreateWriter: import, gen). Names are session
// ids (ValidName repeats session.ValidID's rule: session imports this
// package).
//
// An import (package importer) also takes locks/import/<id>.lock
// (TryLockImport) for its whole run, so that two imports into one session
// never run at once (the second fails with importer.ErrBusy). It is not the
// session's lock: the run takes that one per batch (WaitLock) or for its new
// log's Writer, while holding the import lock. A subdirectory keeps the two
// apart: no session id names a file under locks/import/. An export of a
// graft target (graft.Service: a handoff's, one it owed and another command
// finishes, graft export) holds the target's import lock too, while it
// writes the host transcript, seeds the target's import cursor and binds
// it: no import into the target runs meanwhile, and two processes never
// finish one owed export at once.
//
// # Every lock graft takes, and their order
//
//	locks/import/<id>.lock   importer.Run: a whole run; without waiting. An
//	                         export: its whole run; waiting up to 10 s (a
//	                         handoff, graft export), the hook's budget (a
//	                         follow), or not at all (the recovery scan)
//	locks/<id>.lock          txn (target, then source), recovery (per record):
//	                         without waiting; appends and creators of a log:
//	                         waiting up to 10 s, per batch or per new log
//	sessions/<id>.jsonl      session.Store, on the log itself through the vfs
//	                         seam (vfs.File.Lock): each append or create;
//	                         waiting (package session, vfs)
//
// A holder takes them only in this order (import, session, log), so no two
// processes wait for each other: the log lock, the only one waited for
// without a deadline, is always the last one taken (a session.Writer holds
// it, with the session's lock, until Close, and takes nothing else
// meanwhile); the session's lock is waited for with a deadline, so a lock
// held too long fails an append after 10 s instead of hanging it.
//
// A lock is an exclusive, non-blocking flock on an open descriptor of the
// file; the file's content is never read or written. The kernel releases it
// when the holder closes the descriptor or dies (SIGKILL included), so a
// crashed owner never leaves a lock behind and nothing needs cleaning up.
//
// Lock files are never renamed or deleted. flock locks an inode, not a
// name: if a holder's file were deleted (or replaced by a rename), the next
// process would create a new inode under the same name and lock it while
// the first still holds the old one: two owners of one name. TryLock checks
// after locking that the name still refers to the inode it locked.
//
// flock belongs to the open file description, so two TryLock calls for one
// name conflict even inside one process. The file is opened with O_NOFOLLOW:
// a symlink planted at locks/<name>.lock is refused.
package lockfile
