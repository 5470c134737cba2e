// Package txn is the graft transaction and its revert: the protocol that
// writes a tape into a new target session and retires the source so that,
// at every instant, the source or the target is usable, and no target
// passes for committed before it is.
//
// This comment is the normative text of the protocol: its steps, the
// journal state after each, the commit point, the crash points and what a
// failure at each step does. docs/DESIGN.md §6 explains it and links here.
// The record's format is package journal's (journal/doc.go); the scan that
// finishes or undoes a transaction a crash interrupted is package
// recovery's (recovery/doc.go).
//
// # Rules
//
//   - Journal first: the record is durable before any session is touched,
//     and deleting it is the last step.
//   - Durable means fsynced: the file, and the directory too when a name
//     was created, renamed or removed. A record write is an atomic replace
//     (vfs.FS.WriteFileAtomic: temp file, fsync, rename, fsync of .txn/).
//   - The commit point is one fsynced append to the source's log:
//     graft/retired for a graft, graft/unretired for a revert. It is not a
//     journal state. A graft is committed exactly when its source's log
//     holds graft/retired for its txn, naming its target, with no later
//     graft/unretired (session.Info.Committed); the journal state only says
//     how far the work got and never decides. A copy of a target's log
//     carries the target's graft/origin but is not the target the
//     graft/retired names: it is never live.
//   - Both locks are taken without blocking, the target's first, then the
//     source's (LockPair; a held lock is ErrLocked). Recovery takes the
//     same pair, so it never touches the record of a live transaction.
//     Every creator of a session (session.Store.Create and CreateWriter:
//     import, gen, the append that creates a log) holds that session's lock
//     while it creates and writes the log, so none creates the target under
//     a commit, and recovery never takes a log being created for a shell.
//
// # Commit
//
// Commit runs these steps. The crash points (Point) are where the process
// can be killed, in order; the record column is the journal state once the
// step is done.
//
//	step                                               record           crash points
//	0  lock target, then source; refuse a target       none             commit/locked
//	   that exists (ErrTargetExists); Build: fold
//	   the source again and check drift (the caller's,
//	   docs/DESIGN.md §5.2)
//	1  write the record                                PREPARING        commit/journal-preparing:after
//	2  create sessions/<target>.jsonl with O_EXCL;     PREPARING        commit/target-create:after
//	   write graft/origin and the tape events (in                       commit/target-write:half
//	   two halves); fsync the file; fsync sessions/                     commit/target-write:after
//	                                                                    commit/target-fsync:after
//	                                                                    commit/target-dirsync:after
//	3  rewrite the record                              TARGET_FLUSHED   commit/journal-flushed:after
//	4  cold read (ColdVerify)                          TARGET_FLUSHED   commit/cold-read:after
//	5  rewrite the record                              COLD_VERIFIED    commit/journal-verified:after
//	6  append graft/retired {txn, target} to the       COLD_VERIFIED    commit/source-retire:after
//	   source right after the events Build read;
//	   fsync. THE COMMIT POINT
//	7  record the lineage and mark the review used     COLD_VERIFIED    commit/lineage:after
//	   (one catalog.db transaction)
//	8  delete the record; fsync .txn/                  none: COMMITTED  commit/journal-remove:after
//
// The record is written before the target so that it holds what the
// target must be: its byte count, sha256 digest, event count and tape
// hash. The target's events are the graft/origin (seq 1: txn, parent,
// parentBoundary, generation = the source's + 1, tapeHash, tapeEvents,
// inherit, relies), then the tape's events, all stamped with the record's
// created time. relies (session/doc.go) is what the target relies on, as
// the tape's fold read it: the source's prefix hash at the boundary, the
// prefixes the source's own graft/origin relied on, and the line digest of
// every origin inherit cites; graft audit recomputes them.
//
// The cold read (step 4) opens the target with a fresh handle, reads it
// whole and compares it with the record, independent of anything in
// memory: byte count, digest, a re-parse with no torn line, the event
// count, and a graft/origin at seq 1 naming this txn, the source and the
// tape hash. A mismatch is a *ColdVerifyError (ErrColdVerify).
//
// # Failures
//
//   - Step 0: nothing was written; the error is returned.
//   - Step 1: nothing else was touched; the error is returned.
//   - Steps 2 to 5: rolled back in-process (RollBack), the cause returned.
//     Only what this transaction created is touched: when its O_EXCL create
//     failed (ErrTargetExists), nothing is, since the file at the path is
//     another creator's; when it succeeded, the file at the path must still
//     be the one it made (the device and inode taken at the create).
//     A target of this txn with complete lines gets graft/abandoned; an
//     empty or torn shell of this txn (empty, or a prefix of this txn's
//     graft/origin) is removed and sessions/ fsynced; damaged bytes of this
//     txn are kept as evidence; a target of another txn is not touched. A
//     target of this txn is recorded as a leftover of the source in
//     catalog.db, then the record is deleted. If the cleanup fails too
//     (ENOSPC again), the record stays for the recovery scan and the error
//     says so; the target is not live meanwhile, since its source holds no
//     commit point for it.
//   - Step 6: the record stays. An fsync error leaves it unknown whether the
//     mark is durable; recovery decides from the source's log.
//   - Steps 7 and 8: the graft is committed. The failure is a note on the
//     Result, and the next recovery scan finishes the work.
//
// # Revert
//
// Revert undoes a live graft as a transaction of its own, with a record of
// kind revert whose reverts field names the graft's txn. Its record stays
// PREPARING throughout: only the commit point matters.
//
//	step                                               crash points
//	0  lock target, then source (the parent its        revert/locked
//	   graft/origin names); re-read both. Refused
//	   (ErrNotLive) when the source does not hold the
//	   target's commit point, when its graft/retired
//	   names another session (this one is a copy of
//	   that target's log; forced or not), or the target
//	   was itself grafted; refused (ErrHasNewEvents)
//	   when the target has events beyond its tape,
//	   unless force
//	1  write the record                                revert/journal-preparing:after
//	2  append graft/unretired {txn of the graft,       revert/source-unretire:after
//	   target} to the source; fsync. THE COMMIT POINT
//	3  append graft/abandoned {reason "reverted"} to   revert/target-abandon:after
//	   the target, unless it has one
//	4  mark the lineage node reverted                  revert/lineage:after
//	5  delete the record; fsync .txn/                  revert/journal-remove:after
//
// A failure at step 2 deletes the record (or leaves it, if that fails too):
// without graft/unretired in the source the graft stays live. Steps 3 to 5
// are FinishRevert, which recovery also calls to roll a revert forward; a
// failure there is a note on the RevertResult.
//
// # On an etcd store
//
// Env.Backend holds the locks and says where the commit point is. The
// file store (FileBackend, and a nil Backend) takes flocks and decides
// nothing: its commit point is the graft/retired append. On the etcd store
// (package etcdstore; docs/DESIGN.md §10) the locks of LockPair are the
// store's lease-bound locks, every record write is fenced on them, and the
// commit point moves: step 6 is first Backend.Decide, the one fenced write that turns the record into
// COMMITTED (crash point commit/decided:after), then the graft/retired
// append, which follows it under the same locks. A failure of Decide is a
// failed commit (the record stays for recovery, which decides from its
// state); a failure of the append after it is a committed graft with a
// note, and recovery appends the mark. A revert is decided the same way
// before its graft/unretired (revert/decided:after). EtcdPoints lists the
// points of this store.
//
// # A handoff's export
//
// A handoff (graft.Service.Handoff) commits with Request.Owe: the record
// carries owe (journal/doc.go), and step 7 records it in the catalog with
// the lineage (bucket owed, catalog/doc.go), in the same catalog write, so
// from the commit point on the target is owed to a host session whether
// the process lives or not (recovery rolling forward records it too).
// After the commit the handoff exports the target (package hosts) and
// forgets the owed record. A kill anywhere in between leaves the record in
// the catalog, and whoever comes next finishes the export: the recovery
// scan of every command, a re-run of the same handoff, a follow of the
// export's file when it was written but not bound. Finishing is idempotent
// (the host session id and bytes are derived from the target and its txn)
// and holds the target's import lock. Its crash points (ExportPoints),
// each after the step:
//
//	step                                                 crash points
//	1  take the target's import lock                     export/locked
//	2  write the transcript to .graft-export-<id>.tmp    export/temp-fsync:after
//	   in the host's folder; fsync
//	3  link it to its name (never replacing a file)      export/link:after
//	4  remove the temporary name; fsync the directory    export/dirsync:after
//	5  seed the target's import cursor                   export/cursor:after
//	6  write the binding                                 export/binding:after
//	7  delete the owed record                            export/owed-clear:after
//
// Before step 6 the host file, if any, is bound to nothing: a follow of it
// (the person resumed it) finishes the export first, so it goes on in the
// target instead of starting a new lineage. A kill at any point of a
// handoff ends, once recovered, in the source usable with its host session
// following into it (before the commit point) or the target live with a
// host session bound to it (at or after it).
//
// # Recovery
//
// A record that a crash leaves is resolved by package recovery (see its
// doc.go for what each case does) by the rule above: the source's log holds
// the transaction's commit point, or it does not. It runs RollBack,
// RecordLineage and FinishRevert, the functions of this package.
//
// # Crash points
//
// Points lists every Point of the transactions, commit first, then
// revert, and ExportPoints those of a handoff's export; the crash suite
// (package crashtest, docs/DESIGN.md §7) kills a child at each one and fails
// when one is not covered. Env.Hook is called at each point (tests). Only a
// binary built with -tags crashpoints arms a point from GRAFT_CRASH_POINT:
// on reaching it, the process writes "GRAFT_CRASH_POINT_REACHED <point>" to
// stderr and waits for its parent's SIGKILL. GRAFT_FAULTS (same tag) and
// Env.Faults set the Faults knobs, which break the protocol on purpose so
// that tests can show the suite fails. A normal build reads neither
// variable.
package txn
