// Package graft is the service on one graft home: what the CLI (cmd/graft)
// and the MCP server (mcpserver), the hooks (hookrun), the crash suite and
// the benchmarks call. Open creates the home (0700), refuses one in which a
// directory of graft's or catalog.db is a symlink, and runs the recovery
// scan that every command runs first;
// the Service it returns holds the session store and the journal, and no
// open database: catalog.db is opened for one operation and closed, so a
// long-lived server never blocks a CLI call on the same home.
//
// The CLI is a thin layer over it: a command parses its flags, calls one
// Service method and prints the result. Its methods, by what they do:
//
//   - sessions: Append (under the session's lock), Generate (a synthetic
//     session, graft gen), Events (a session's events in a seq range, graft
//     show), Recall and RecallWithPath (one event of any session, retired
//     ones included);
//   - host transcripts: Import (a transcript into a native session, or the
//     graft session it continues), Follow, FindHostSession, Export;
//   - the graft: Prepare, PreparedReview, DefaultTarget, Commit,
//     CommitToHost (a commit that owes the source's host its export and
//     writes it: MCP's graft_commit), Revert, Handoff (follow, prepare,
//     confirm, commit and export in one step; it and CommitToHost share
//     one commit-then-export, commitOwing),
//     ConstraintsBlock (what the hooks re-inject after a host compacted,
//     within what the host keeps of it);
//   - reading the lineage: Status, SessionState, and Lineage, Ancestors,
//     Parent, Audit, RecallOrigin (package ancestry answers them);
//   - recovery and the catalog: Recover (the scan, its report remembered in
//     the catalog), RebuildCatalog (graft recover --rebuild-catalog),
//     MoveAsideDamagedCatalog, TakeDegraded (the reads that fell back to the
//     logs, degraded.go);
//   - for the layers below: Store, Journal, Env (the transaction
//     environment, for tests, the crash suite and the benchmarks).
//
// Prepare, Commit, Recover, Import, Handoff and RecallWithPath take a
// context, checked before each phase and in the long scans (a fold every
// 4096 events or 4 MiB, an import about every MiB); a cancelled call returns
// an error matching the context's (errors.Is context.Canceled): a prepare
// stores no review, an import keeps the batches it appended. A commit checks it only before its journal record is written:
// past PREPARING it runs to its end or its own failure. The CLI cancels it
// on the first SIGINT (prepare, commit, import, handoff); the MCP server
// passes each request's. A Service may be used by several goroutines on
// different sessions at once (the MCP server does).
//
// Every typed error has a stable code and an exit code (CodeOf, ExitCodes;
// errors.go): the CLI exits with it, --json and the MCP tools carry the
// code.
//
// # What it owns on disk
//
// In catalog.db, the prepared reviews commit reads, and the report of the
// last recovery scan that found something ("last-recovery", shown by
// Status). The read indexes of the session logs (the scan index of each
// source and the sealed tape of a review in catalog.db, the seq marks in
// index/<id>.seq) are the fold cache's to read and write (package
// foldcache) in the formats of package index (index/doc.go): all are
// derived from the logs and checked against them before use, and losing
// or damaging one costs a read of the whole log.
//
// # What it leaves to other packages
//
// The home's other files belong to the packages that write them (see
// docs/DESIGN.md §3 and §9): sessions/ and the checkpoint of the state
// fold (index/<id>.state) to session, .txn/ to journal, locks/ to
// lockfile, catalog.db's file, locking, buckets and damage checks to
// catalog, imports/ to importer, hosts/ and the host transcripts graft
// writes to hosts. The transactions and their crash points are txn's, the
// recovery scan and the rebuild recovery's, the tape tape's, constraint
// extraction anchors', the synthetic sessions gen's, the incremental fold
// and recall foldcache's, the lineage, audit and origin queries
// ancestry's: the service decides the order in which they run and what is
// reported.
package graft
