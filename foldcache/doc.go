// Package foldcache is the incremental fold of graft's session logs: what
// makes a prepare, a commit's drift check, an audit and a recall cost the
// tail a log grew by, or a few lines, instead of the whole log. Package
// graft calls it through a Cache, which it fills with what the fold needs
// of the service (the home, the session store, the catalog opener, the
// service's notes): the package does not import graft.
//
// What it does, by file:
//
//   - fold.go: Fold and Build fold a source log from its scan index when
//     the index checks out against the open log (index.ScanIndex.Fits),
//     else from the start, and store a new scan index (in catalog.db) and
//     the seq marks (index/<id>.seq) when they read enough; Build builds
//     the tape of the fold, quoting outputs from the log it folded;
//   - seq.go: the seq marks extended by each fold, and Recall, which seeks
//     to the nearest mark at or before a seq and checks it against the log
//     (else reads the log from its start: RecallPath says which and why);
//   - sealed.go: Built.Seal, the seal and the sealed tape prepare keeps with
//     a review, and SealedBuild, the review's own tape when its source is
//     still the bytes it was built from (else graft's commit rebuilds).
//
// Everything it keeps is a cache derived from the logs, checked against
// them before use: losing or damaging any of it costs one whole read of a
// log, nothing else (docs/DESIGN.md §3). A read that cannot use it falls
// back to the log and says so through Cache.Degrade.
//
// # What it owns on disk
//
// Nothing of its own: the formats of the scan index, the seq marks, the
// seal and the sealed tape, and their checks, are package index's
// (index/doc.go), which also writes index/; catalog.db's buckets are
// package catalog's. This package decides when they are read, trusted and
// written.
package foldcache
