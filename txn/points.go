package txn

// Point names an instant of a transaction where the crash suite kills the
// process. This is the single list: the suite enumerates Points and fails
// when one is not covered.
type Point string

// Commit points, in protocol order (the step table of doc.go; docs/DESIGN.md §6).
const (
	CommitLocked          Point = "commit/locked"                  // locks held, nothing written
	CommitJournalPrepared Point = "commit/journal-preparing:after" // record PREPARING durable
	CommitTargetCreated   Point = "commit/target-create:after"     // empty target exists (L1a)
	CommitTargetHalf      Point = "commit/target-write:half"       // half the tape written, unsynced (L1b)
	CommitTargetWritten   Point = "commit/target-write:after"      // all bytes written, unsynced
	CommitTargetSynced    Point = "commit/target-fsync:after"      // file synced, directory not yet
	CommitTargetDirSynced Point = "commit/target-dirsync:after"    // target durable
	CommitJournalFlushed  Point = "commit/journal-flushed:after"   // record TARGET_FLUSHED durable (L1c)
	CommitColdRead        Point = "commit/cold-read:after"         // target verified, record not yet updated
	CommitJournalVerified Point = "commit/journal-verified:after"  // record COLD_VERIFIED durable
	CommitDecided         Point = "commit/decided:after"           // etcd store only: record COMMITTED (its commit point), source not yet retired
	CommitSourceRetired   Point = "commit/source-retire:after"     // commit point durable (file store); retire mark durable (etcd)
	CommitLineage         Point = "commit/lineage:after"           // catalog updated
	CommitJournalRemoved  Point = "commit/journal-remove:after"    // record gone: COMMITTED
)

// Revert points.
const (
	RevertLocked          Point = "revert/locked"
	RevertJournalPrepared Point = "revert/journal-preparing:after"
	RevertDecided         Point = "revert/decided:after"         // etcd store only: record COMMITTED, source not yet unretired
	RevertSourceUnretired Point = "revert/source-unretire:after" // commit point of the revert
	RevertTargetAbandoned Point = "revert/target-abandon:after"
	RevertLineage         Point = "revert/lineage:after"
	RevertJournalRemoved  Point = "revert/journal-remove:after"
)

// Points is every crash point, commit first, then revert.
var Points = []Point{
	CommitLocked, CommitJournalPrepared, CommitTargetCreated, CommitTargetHalf,
	CommitTargetWritten, CommitTargetSynced, CommitTargetDirSynced, CommitJournalFlushed,
	CommitColdRead, CommitJournalVerified, CommitSourceRetired, CommitLineage,
	CommitJournalRemoved,
	RevertLocked, RevertJournalPrepared, RevertSourceUnretired, RevertTargetAbandoned,
	RevertLineage, RevertJournalRemoved,
}

// Export points: the steps of the export a handoff owes its host once its
// graft is committed (graft.Service.Handoff, the recovery scan, a follow
// of the orphan file; hosts.Export does the file steps).
const (
	ExportLocked      Point = "export/locked"           // the target's import lock held, nothing written
	ExportTempSynced  Point = "export/temp-fsync:after" // the transcript under its temporary name, fsynced
	ExportLinked      Point = "export/link:after"       // linked to its name, the directory not yet fsynced
	ExportDirSynced   Point = "export/dirsync:after"    // temporary name removed, directory fsynced: the host file durable, unbound
	ExportCursor      Point = "export/cursor:after"     // the target's import cursor seeded, no binding yet
	ExportBound       Point = "export/binding:after"    // the binding written, the owed record not yet deleted
	ExportOwedCleared Point = "export/owed-clear:after" // the owed record deleted: the handoff is done
)

// ExportPoints are the instants of a handoff after its commit, in order:
// the steps of the export the commit owes its host. The crash suite kills
// a handoff at each (its handoff group) on the file store.
var ExportPoints = []Point{ExportLocked, ExportTempSynced, ExportLinked, ExportDirSynced, ExportCursor, ExportBound, ExportOwedCleared}

// EtcdPoints is every crash point of a transaction on an etcd store
// (package etcdstore): Points with the fenced commit decision of each.
var EtcdPoints = []Point{
	CommitLocked, CommitJournalPrepared, CommitTargetCreated, CommitTargetHalf,
	CommitTargetWritten, CommitTargetSynced, CommitTargetDirSynced, CommitJournalFlushed,
	CommitColdRead, CommitJournalVerified, CommitDecided, CommitSourceRetired, CommitLineage,
	CommitJournalRemoved,
	RevertLocked, RevertJournalPrepared, RevertDecided, RevertSourceUnretired, RevertTargetAbandoned,
	RevertLineage, RevertJournalRemoved,
}

// Faults are test-only knobs that break the protocol on purpose, to prove the
// crash suite can fail. The zero value is the correct protocol; a normal
// binary never sets them (only the crashpoints build tag or a Go test can).
type Faults struct {
	SkipColdRead      bool // no cold read: a tampered target goes unnoticed (L3 must fail)
	SkipTargetDirSync bool // no fsync of sessions/ after creating the target (power loss must fail)
}

// armed is set by the crashpoints build tag from the environment; nil in a
// normal build, so no environment variable can kill a normal binary.
var (
	armed       func(Point)
	armedFaults Faults
)
