// Package journal owns $GRAFT_HOME/.txn/: one record per graft or revert
// transaction in flight. A transaction writes its record before it touches
// any session and deletes it as its last step, so a record that survives a
// crash is exactly the work the recovery scan must finish or undo.
//
// # Files
//
//	.txn/                        directory, mode 0700
//	.txn/<txn-id>.json           one record, mode 0600
//	.txn/.<txn-id>.json<digits>  a temp file of an atomic write (renameio)
//
// Txn ids match the session id rule ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$ and
// NewTxnID makes them "txn-<yyyymmddThhmmss.mmmZ>-<10 base32 chars>", so
// they sort by creation time and are safe file names.
//
// # Record
//
// One indented JSON object followed by '\n' (Record):
//
//	version       1; any other version is refused
//	txn           the txn id; must match the file name
//	kind          "graft" or "revert"
//	state         PREPARING | TARGET_FLUSHED | COLD_VERIFIED
//	source        session id of the source (the log that holds the commit point)
//	target        session id of the target
//	preparedId    the prepared review the commit consumed (graft)
//	tapeHash      hash of the approved tape
//	tapeEvents    events the target holds when complete
//	tapeDigest    sha256 of the target's bytes as written
//	targetBytes   size of the target as written
//	boundarySeq   the source's boundary seq
//	sourceSeq     the source's last seq when the tape was built (the retire mark follows it)
//	generation    generation of the target
//	reverts       in a revert record, the txn of the graft it undoes
//	              (recovery rolls forward when the source holds its graft/unretired)
//	owe           in the record of a handoff's graft (optional): the export the
//	              handoff owes its host once committed, {"host", "cwd", "root",
//	              "hostSession"}: the host (its name in the registry), the new host
//	              session's working directory, the host's folder the transcript
//	              goes under ($CLAUDE_CONFIG_DIR or $CODEX_HOME as the handoff
//	              resolved it) and the host session handed off. Recording the
//	              lineage (the commit's step 7, or recovery rolling forward)
//	              records it in the catalog (catalog/doc.go, bucket owed) in the
//	              same catalog write
//	created       RFC 3339, when the record was first written
//	updated       RFC 3339, when it was last written
//	sum           "sha256:" and the hex SHA-256 of the record's JSON as
//	              encoded without it (two-space indent, in the order above),
//	              its last member (index.ContentSum)
//
// Unknown fields, trailing data, an invalid id, kind or state, a txn that
// differs from the file name, or a sum that the record's fields, encoded
// again without it, do not hash to make the record corrupt. The sum is
// what keeps recovery from acting on a byte changed in a value that still
// reads: a source id one digit off names a session without this graft's
// graft/retired, and would roll a committed graft back. A record without a
// sum (written before it) reads as before.
//
// # States
//
//	PREPARING       the target id may be taken; the target may be an empty or torn shell
//	TARGET_FLUSHED  the target is complete and fsynced, not yet cold-read; source not retired
//	COLD_VERIFIED   the target was re-read from disk and matched; source not yet retired
//	COMMITTED       only on an etcd store (package etcdstore), never in .txn/:
//	                the fenced write of this state is the commit point there
//
// The commit point is not a journal state: it is the graft/retired (or, for
// a revert, graft/unretired) appended to the source's log. Recovery rolls a
// record forward when the source holds it and back otherwise, whatever the
// state says.
//
// # Durability
//
// Write replaces the record atomically (temp file, fsync, rename, fsync of
// the directory: vfs.FS.WriteFileAtomic), so a reader sees the old or the
// new record, never a mix. Remove deletes it and fsyncs the directory. All
// file operations go through the vfs.FS given to Open.
//
// # Scan
//
// Scan lists the directory. If the directory cannot be listed the scan
// fails (ErrUnreadableDir): "no records" is only ever said of a directory
// that was read. A record that does not parse or validate, and any other
// unexpected entry, is reported in Corrupt and left in place as evidence.
// Temp files older than TempGrace (default one minute) are leftovers of a
// crashed write: removed, listed in Swept, and the directory fsynced.
// Younger ones may belong to a write in flight in another process (a
// concurrent recovery scan must not break a live commit) and are listed in
// FreshTemps until a later scan.
package journal
