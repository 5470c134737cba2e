// Package lockfile owns $GRAFT_HOME/locks/: advisory flock(2) locks that
// keep two processes from grafting the same source or into the same target
// at once, and that tell the recovery scan whether a journal record belongs
// to a live process.
//
// # Files
//
//	locks/              directory, mode 0700
//	locks/<name>.lock   an empty file, mode 0600; <name> is a session id
//
// Who takes them: a graft or revert transaction takes its target's and
// its source's (txn.LockPair), and so does the recovery scan for each
// record; every other writer of a session takes that session's: appends
// (graft.Service.Append, the importer) and every creator of a log
// (session.Store.Create and CreateWriter: import, gen). Names are session
// ids (ValidName repeats session.ValidID's rule: session imports this
// package).
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
