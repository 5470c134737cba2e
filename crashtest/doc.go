// Package crashtest is the crash-injection suite of docs/DESIGN.md §7: the proof
// that a graft never leaves the user without a usable session. It drives
// the real binary from outside (a child process per case, built with
// -tags crashpoints so GRAFT_CRASH_POINT can stop it), and the graft
// package in-process where a fault must reach one file operation through
// the vfs seam (errorfs) or a power loss must be simulated (crashfs).
//
// Run is the suite; `graft crashtest` prints its table and ends with the
// line "crash suite: N passed, M failed"; the package's Go test runs the
// CI-sized suite inside `go test ./...`.
//
// # Homes
//
// Nothing runs in a user's home. Run builds a template home once with the
// binary (`graft gen src --turns 4 --events 40`, `graft prepare src`), a
// second one in which that review was committed into "tgt" (the start of
// every revert case), and copies a template into a fresh directory for
// every case. Children get GRAFT_HOME and --home of their case and no other
// GRAFT_ variable of the parent's environment.
//
// # The checker
//
// After every case, on its home:
//
//  1. Before recovery, read-only: for every source of the template,
//     sourceUsable ∨ targetUsable, where usable means the log reads and
//     session.Store.Check allows resuming it (active; for a target,
//     committed in its parent's log). A target whose parent holds no
//     commit point for its txn must not be usable, and every session the
//     store judges unusable must refuse an append (Service.Append with a
//     human message: refused for its state or damage, never accepted).
//  2. Recovery twice (`graft recover --json` for child cases, the same scan
//     in-process for in-process cases): the first resolves everything, the
//     second finds scanned=0 — except the corrupt-record cases below.
//  3. Again the invariant and honesty; then the case's outcome: rolled back
//     (source usable, no live target), rolled forward (the target live), or
//     either (a random instant, a power-loss state). A live target holds
//     its whole tape (events ≥ tapeEvents, no torn tail).
//  4. Every log of the template still begins with the template's bytes,
//     followed only by complete graft marks (graft/retired or
//     graft/unretired on a source, graft/abandoned on a target) and at
//     most a torn last line, which the store reports and ignores.
//  5. Once no record is left, every session the template does not hold
//     carries a graft/origin or a graft/abandoned: one with neither is the
//     shell of a rolled-back graft that recovery did not remove.
//  6. Nothing the user committed is lost: when the command returned
//     success before the kill or fault, the outcome required is "rolled
//     forward" (for a revert: the source usable again).
//
// # Cases
//
// Each row is one case: its injection, what is expected, what was
// observed, and pass, fail or skip (the machine does not allow the
// injection; the row says why).
//
//	L1a   SIGKILL at commit/target-create:after. The empty target exists
//	      before recovery; recovery removes the shell and collects the
//	      record; the source is usable. (DESIGN: target 0 events.)
//	L1b   SIGKILL at commit/target-write:half. Half a tape, a torn last
//	      line: never resumable; the source is usable.
//	L1c   SIGKILL at commit/journal-flushed:after. Record TARGET_FLUSHED,
//	      whole target, not cold-read: never resumable; rolled back.
//	L2a   ENOSPC. Real: GRAFT_HOME on a 4 MiB tmpfs (mount(2), root only; a
//	      machine that refuses the mount gets a skip row saying so) filled
//	      by a filler file but k pages, for k = 0, 1, … until the commit
//	      fits, so the failure moves through the journal, the target's
//	      write, the next record; at least one k must fail on the target.
//	      Each must exit no_space with the source usable; the filler is
//	      then removed (the user frees the disk) and recovery runs.
//	      Injected: ENOSPC on the target's fsync through errorfs.
//	L2b   EACCES. Real: the child runs as nobody against a home it owns
//	      except sessions/ (root's, 0755): it fails at the target's create
//	      with permission_denied (root ignores permissions, hence nobody).
//	      Injected: EACCES on the target's create through errorfs.
//	L3    In-process, the hook at commit/target-dirsync:after flips one bit
//	      of the durable target (first byte, a quarter, the middle, three
//	      quarters, the last byte, the newline): the cold read must refuse
//	      (cold_verify_failed) and the source stay usable.
//	L4    8 processes graft 8 sources into one target id, and 8 processes
//	      graft one source into 8 targets, 50 rounds each: exactly one wins
//	      each round; the others are refused with a race's codes (locked,
//	      target_exists / already_grafted, used_prepared); the losers'
//	      sources are usable and no loser's target exists.
//	L5    SIGKILL at commit/journal-flushed:after, then `graft recover`
//	      twice: the first rolls back 1 record, the second scans 0.
//	points
//	      SIGKILL at every point of txn.Points: commit points during
//	      `graft commit`, revert points during `graft revert` of a committed
//	      graft. Before the commit point of its transaction a kill rolls
//	      back, at or after it forward. Report.Uncovered names any point of
//	      the list that no row killed at, and the test fails on it.
//	random kills
//	      SIGKILL after a delay drawn uniformly from [start, end): start is
//	      the median time a child takes to reach commit/locked (process
//	      start and the start-up scan), end the median duration of an
//	      unkilled commit, both measured first (five runs each), so the
//	      kills land in the transaction. The delays come from the seed,
//	      which the report prints (200 in CI, --soak N for more). A commit
//	      that exited 0 before its kill must be live.
//	eio   In-process: the N-th file operation fails with EIO, for N = 1, 2,
//	      … through one more than an untouched commit makes (which must run
//	      untouched: the loop's end); the same for a revert. Each write is
//	      also torn (half its bytes written, then EIO). A failed run's error
//	      must wrap the injected error; a run that succeeds anyway must say
//	      so in a note (past the commit point), or the error was swallowed.
//	torn tails
//	      The committed target cut at every byte offset of its last line:
//	      the source was retired and stays so; the store reports the torn
//	      tail and ignores it, the target still reads and stays live, and
//	      the next append to it is accepted, keeping the cut bytes in
//	      tgt.jsonl.broken. The journal record of a crashed commit cut at
//	      every offset: TARGET_FLUSHED (killed at journal-flushed:after),
//	      PREPARING (journal-preparing:after, no target yet), COLD_VERIFIED
//	      before the retire (journal-verified:after) and after it
//	      (source-retire:after). `graft recover` reports the corrupt
//	      record, leaves it byte for byte as evidence and exits non-zero on
//	      both runs; the graft stays where its source says, since liveness
//	      is judged from the source alone: before the retire the source is
//	      usable and the uncommitted target unresumable; after it the
//	      target is live and the source retired, though the record (and so
//	      the lineage it would write) stays until someone removes it. A cut
//	      that only drops the final newline leaves a readable record,
//	      resolved as usual. TARGET_FLUSHED is cut at every offset; the
//	      other three at one offset in Config.TornRecordStride (3 in CI)
//	      plus every offset from two bytes before the closing brace, and at
//	      every offset in a soak run (--soak); the table's counts line says
//	      which.
//	power loss
//	      In-process on crashfs: a commit and a revert are recorded, and
//	      every crash state (only fsynced file data and directory entries,
//	      plus torn unsynced appends) is written to a fresh home and
//	      recovered twice on disk; so is the state right after the call
//	      returned, which must hold what the user was told. catalog.db and
//	      locks/ stay real files (bbolt and flock need them): each state
//	      takes the template's catalog, which is derived data.
//	recovery power loss
//	      Power loss during recovery itself. For every point of txn.Points
//	      that leaves a journal record (all but the two locks and the two
//	      record removals), a child is killed there; the crashed home is
//	      loaded into crashfs and its recovery recorded in-process (catalog
//	      and locks on disk, as above); every crash state of that recording
//	      is written to a fresh home, recovered twice and checked, and so is
//	      the state right after recovery returned. The outcome is the
//	      point's own: rolled back before the commit point, forward at or
//	      after it. Counted as recovery power-loss states.
//
//	handoff
//	      SIGKILL of `graft handoff claude-code --transcript … --yes` at
//	      every commit point of txn.Points and every step of its export
//	      (txn.ExportPoints). Each case writes a Claude Code transcript
//	      into its own config dir (CLAUDE_CONFIG_DIR of the child) and
//	      follows it in-process first, as the hooks would have. Besides
//	      the checker: before the commit point the source is usable and
//	      following the old transcript goes on in it; at or after it, once
//	      recovered, the target is live and an exported host session is
//	      bound to it, its file whole under the case's config dir; no
//	      .graft-export temporary file is left, and every other transcript
//	      in the config dir is bound to a live target (an unbound one would
//	      be imported as a new lineage when resumed). Then random kills of
//	      the same handoff (DefaultHandoffKills, a tenth of --soak's random
//	      kills when that is more), after a delay drawn as for commits but
//	      from a handoff's own start and end, seeded the same way: either
//	      outcome, with the same checks; one that exited 0 first must have
//	      left its target live and exported. Every other child gets
//	      CLAUDE_CONFIG_DIR and CODEX_HOME under the work directory, which
//	      must stay empty.
//
// # Proof that it can fail
//
// Config.Faults breaks the protocol on purpose (GRAFT_FAULTS for the
// children): without the directory fsync after creating the target some
// power-loss states lose the target after the source was retired, and
// without the cold read L3 commits a tampered target. Tests assert that the
// suite reports failures with each knob. The two families above have their
// own: a recorded recovery that skips its directory fsyncs leaves a state
// in which the shell of a rolled-back commit is back with no record to
// remove it (the check of step 5), and a recovery that discards a corrupt
// COLD_VERIFIED record instead of leaving it fails every cut record. (The
// protocol knobs cannot fail recovery's power loss: recovery creates no
// target and skips no cold read.)
package crashtest
