// Package recovery is the start-up scan of docs/DESIGN.md §6: for every journal
// record (in .txn/, or under the etcd store's prefix) it makes the source usable and the target honest, then
// deletes the record. It is idempotent: a second scan finds scanned=0.
//
//   - graft record in state COMMITTED (only on the etcd store, where that
//     fenced write is the commit point; docs/DESIGN.md §10) without the
//     graft/retired that follows it → append it to the source (after
//     whatever the source holds: events appended after the boundary are
//     reported as a warning), then as below.
//   - graft record, the source holds graft/retired for its txn → roll
//     forward: the target was cold-verified before the retire; finish the
//     lineage and delete the record.
//   - graft record, no graft/retired → roll back: the source stays active; a
//     target of this txn with complete lines gets graft/abandoned (even if
//     tampered so its graft/origin is gone), one that no longer parses is
//     kept untouched as evidence, an empty or torn shell of this txn is
//     removed, a target of another txn is not touched (nor a log another
//     creator is still writing: it holds the target's session lock, so the
//     record is busy until it is done, and its log is then no shell of this
//     txn); the leftover is
//     recorded for the next review of the source and listed in the report
//     (no target of this txn: no leftover).
//   - revert record in state COMMITTED (etcd) without graft/unretired → append
//     it, then as below.
//   - revert record, the source holds graft/unretired for the reverted txn →
//     roll forward (mark the target abandoned, lineage); otherwise roll back
//     (the graft stays live; just forget the record).
//
// After the scan its caller (graft.Service.Recover) finishes the exports
// committed handoffs still owe their hosts (catalog bucket owed; txn/doc.go,
// "A handoff's export"): each is listed in Report.Exports with its resume
// command, one that cannot be written in Report.Warnings (graft status names
// it), one whose lock a live process holds is left to it.
//
// A record whose locks are held belongs to a live process and is left
// alone. A journal directory that cannot be read is an error, never "0
// records", and the report's errors say so too. A corrupt record is
// reported and left in place as evidence; the error wraps it
// (journal.ErrCorruptRecord) as it wraps every other cause. A
// cleanup that fails (ENOSPC again) leaves the record for the next scan:
// the target is still not live, because liveness is judged from the source.
package recovery
