// Package catalog owns $GRAFT_HOME/catalog.db, a bbolt database of what
// graft knows besides the logs: prepared reviews (the one thing here that
// is not derived), and lineage, leftovers and read indexes, which are
// derived from the session logs and can be rebuilt from them
// (ClearDerived, then a recovery scan: graft recover --rebuild-catalog).
// When the catalog and a log disagree, the log is right.
//
// # Backends
//
// The catalog's logic (prepared reviews, lineage, leftovers, the scan
// index, meta, PurgeExpired, ClearDerived, the format mark) runs over a
// Backend: catalog.db through bbolt (Open, With, View, Files), or another
// store through OpenBackend (etcd, in its own package). The buckets, keys
// and values below are the same on every backend; only where they are kept
// differs. A Backend must give:
//
//   - Update: all of fn's writes land, or none (fn's error, or a failed
//     commit, leaves the store as it was); writes of one Update are seen
//     by its own later reads.
//   - View: every read of fn sees one consistent state (no half of an
//     Update); writes in a View fail.
//   - Tx.Get: nil, nil for an absent key; an empty value is present
//     (non-nil, empty).
//   - Tx.Each: every key of the bucket starting with the prefix, in
//     bytewise key order; fn does not write.
//   - Tx.Clear: empties one bucket; the others are untouched.
//   - Copies: values returned belong to the caller, and changing them
//     changes nothing stored; a value passed to Put is not changed by
//     the caller before the transaction ends.
//   - Name: names the store in every error (the file path, or
//     etcd://…/prefix); CorruptValueError.Path and DamagedError.Path are
//     it.
//
// OpenBackend writes the format mark on first use and refuses another
// format (ErrFormat), as Open does; DB.Close closes the backend. An Opener
// (Files for catalog.db) opens one home's catalog for one operation.
// bbolt's buckets exist before use (created by the first open's write),
// ClearDerived deletes and recreates them, and damage detection, ErrBusy,
// the read-only open and WriteStats' page writes are catalog.db's alone.
//
// # File and locking
//
//	catalog.db   bbolt file, mode 0600
//
// bbolt holds an exclusive flock on the file while it is open, so one
// process at a time can use it. Open it for one operation (With) and close
// it; Open waits up to its timeout (DefaultTimeout, 5 s) and then fails with
// ErrBusy naming the file. Never keep it open for a server's life: every
// CLI call would block behind the server.
//
// View is With for readers: when the file cannot be opened for writing
// (EACCES, EPERM, EROFS: its mode, its owner, a read-only mount) it opens
// it read-only (bbolt's shared lock), and writes through it fail.
//
// # Damage
//
// Open checks the file before bbolt maps it, under a shared flock (so a
// catalog another process is still creating is busy, not damaged): it
// must be a regular file holding a valid meta page (magic, version,
// checksum; the newer of the two) and at least the pages that meta says
// are in use (pgid × pageSize).
// bbolt itself trusts the meta, and a file truncated below it kills the
// process with SIGBUS when a page past its end is read. A file that fails
// the check, that bbolt refuses (invalid, version, checksum), or on which
// bbolt panics inside Open or a transaction (an assertion on a page, or a
// memory fault reading its map, recovered) is an error matching ErrCorrupt
// (DamagedError: the file, the problem, and "graft recover
// --rebuild-catalog"). A damaged file is never written. An empty file is
// a catalog bbolt has not initialised yet.
//
// Check has bbolt walk every page (tx.Check). MoveAside renames a damaged
// catalog (one Check finds damaged; never a healthy, busy or missing one)
// to catalog.db.corrupt-<UTC time to the nanosecond> (-2, -3 … if taken),
// without replacing any file, under the file's lock, and syncs the home:
// the evidence is kept, and the next Open creates a new catalog, which
// graft recover --rebuild-catalog fills from the logs. The prepared reviews
// of the damaged file stay in it.
//
// # Buckets
//
// Keys are UTF-8 strings; values are JSON objects with the field names
// below, except preparedtape's (opaque bytes) and scanindex's (framed).
// The index values (scanindex, prepared's seal, preparedtape) are
// specified, framed and checked by the index package (index/doc.go). Unknown fields make a value corrupt (ErrCorruptValue, naming the
// bucket and key). Times are RFC 3339 with nanoseconds.
//
//	prepared    key <preparedId>         Prepared: id, source, tier, recentTurns, autoTier,
//	                                     budget, allowReslice, boundarySeq, lastSeq, generation,
//	                                     prefixHash, tapeHash, tapeChars, carryoverChars,
//	                                     review (the review JSON as shown), created, expires,
//	                                     usedBy (txn id, once a commit consumed it), seal
//	                                     (optional: index.Seal {dev, ino, end, lastSeq, check,
//	                                     info, sum}, the source bytes the review was built
//	                                     from; sum its checksum, index/doc.go)
//	preparedtape key <preparedId>        the tape a sealed review was built from, opaque here
//	                                     ("graft-sealedtape-v1": index/doc.go); deleted with
//	                                     its review or its seal
//	lineage     key <session id>         Node: session, parent, children (sorted, unique),
//	                                     generation, boundary, txn, tapeHash, committed, reverted,
//	                                     sum (Checksums, below)
//	leftovers   key <source>/<txn id>    Leftover: source, target, txn, state, reason, recorded,
//	                                     sum (Checksums, below)
//	scanindex   key <session id>         "graft-scanindex-v3\n", its checksum line, then index.ScanIndex without its
//	                                     state as one line of JSON (session, dev, ino, offset,
//	                                     line, nextSeq, check) and "\n", then the state's raw
//	                                     bytes (index/doc.go); a version-1 value (one JSON
//	                                     object, base64 state) or a version-2 one (no
//	                                     checksum) reads as no index
//	seqindex    key <session id>         seq marks of builds before the index package: read by
//	                                     nothing (they live in index/<id>.seq alone); PutScanIndex
//	                                     deletes the session's value
//	owed        key <target session id>  Owed: target, txn, source, host, cwd, root,
//	                                     hostSession, recorded — the export a committed
//	                                     handoff owes its host (journal/doc.go, owe): written
//	                                     with the commit's lineage, deleted once the export's
//	                                     binding is written. Not derived: the logs do not
//	                                     hold it. Its last member is sum (Checksums, below):
//	                                     a damaged value is never exported by (a folder one
//	                                     letter off would write a host's file where the
//	                                     person never asked)
//	preparedexpiry key <expires>/<preparedId>  the expiry index of prepared: expires in UTC as
//	                                     20060102T150405.000000000Z (fixed width: keys sort
//	                                     by expiry); the value is the preparedId (raw bytes).
//	                                     Written with the review (PutReview), deleted with it
//	                                     by the purges; a read-only open does not need the
//	                                     bucket (catalogs before it have none)
//	meta        key <name>               raw bytes, e.g. the last recovery result;
//	                                     "catalog.format" = "graft-catalog-v1" (written by Open);
//	                                     "catalog.preparedexpiry" = "1": every review stored
//	                                     since has its preparedexpiry key (written by a new
//	                                     catalog's Open and by every full purge)
//
// # Checksums
//
// A lineage node, a leftover and an owed export end with a member sum:
// index.ContentSum of the value's JSON without it (index.JSONWithSum). A
// value whose fields, encoded again without it, do not hash to it is
// corrupt (ErrCorruptValue, naming the bucket and key; graft's code
// catalog_damaged, fixed by graft recover --rebuild-catalog, which writes
// lineage and leftovers again from the logs): one byte changed on the
// disk does not read as another parent, another target or another folder.
// A value without a sum (stored before it) reads as it is. A graft older
// than the sum refuses a value that has one (an unknown field); the values
// it writes, without a sum, this one reads.
//
// Session ids, txn ids and preparedIds cannot contain '/', so the prefix
// "<source>/" selects exactly one source's leftovers.
//
// # Rules
//
//   - A prepared review expires when now >= expires; one with usedBy set is
//     used. GetPrepared refuses both (ErrExpiredPrepared, ErrUsedPrepared),
//     and an id not in the bucket is ErrUnknownPrepared. The lineage record
//     of a commit marks its review used in the same write transaction, so
//     two commits cannot both take one review. PurgeExpired deletes expired
//     reviews, used or not, with their tapes: every prepare runs it,
//     walking preparedexpiry up to now and reading no live review (so its
//     cost does not grow with the reviews of the last day), 16 reviews a
//     transaction (an etcd transaction holds 120 operations). A catalog
//     without the "catalog.preparedexpiry" mark, and graft recover
//     (PurgeExpiredFull), read every review instead: they purge the
//     expired, the ones an older graft stored without a key too, and index
//     the rest anew.
//   - A leftover is recorded once per (source, txn); recording it again
//     keeps the first record.
//   - PutNode merges children and adds the node to its parent's children,
//     creating a parent of generation-1 if missing.
//   - An index is only a hint: dev and ino identify the file it was built
//     from, and scanindex.check (index.TailCheck: sha256 of the offset and
//     the 4 KiB before it) must match the file, or the index is not used
//     (index/doc.go).
//   - Values are copied out of bbolt transactions before they are returned
//     (Tx.Get, Tx.Each): bbolt's slices are only valid inside the
//     transaction.
//
// ClearDerived empties lineage, leftovers, scanindex and seqindex, and
// keeps prepared, preparedexpiry, owed and meta. A damaged catalog moved aside keeps its
// owed exports as it keeps its reviews: a new catalog starts without them,
// and graft export finishes such a handoff by hand (graft status shows its
// target live with no host session).
package catalog
