// Package index owns $GRAFT_HOME/index/ and the formats of every index
// graft keeps: the files under index/, and the index values kept in
// catalog.db (the scan index, a review's seal and sealed tape). An index
// is a hint derived from a session log: it is used only while it checks
// out against the very file being read (its device and inode, its size,
// the tail check of the bytes before its offset), and anything that does
// not check out is passed over and the log read instead. The logs are the
// truth (docs/DESIGN.md §3); deleting index/ or the catalog's index values
// costs one whole read of each log, nothing else.
//
// The package imports nothing of graft's but vfs, so that session (the
// state checkpoint), catalog (which stores the values) and graft (the
// scan index, the seq marks, the seal) all use its one tail check, its one
// writer and its formats.
//
// # Files
//
//	index/                       directory, mode 0700, created by the first write
//	index/<id>.seq               the seq marks of session <id>: a cache, never fsynced
//	index/<id>.state             the state checkpoint of session <id>: fsynced
//	index/<id>.last              the last-match memo of session <id> (Last): fsynced;
//	                             {v (2), dev, ino, offset, tail, key, event, sum}: the newest event
//	                             before offset that query key accepted (none when event is
//	                             absent), checked like the state checkpoint (its checksum
//	                             too), tail check label "last-tail-v1"; session.Store.LastMatch's
//	index/<name>.tmp-<8 chars>   a temp file of a write (Writer), mode 0600
//	index/.<id>.state<digits>    a temp file of a checkpoint write by builds before
//	                             this package (renameio), swept like the others
//
// Ids match the session id rule ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$; callers
// validate them before a path is made. Files are mode 0600. A file is
// opened only when lstat says it is a regular file (a planted FIFO cannot
// block a reader, a symlink is never followed), and checked again after
// the open.
//
// In catalog.db (bbolt; catalog/doc.go lists the buckets):
//
//	scanindex     key <id>            the scan index of session <id> (ScanIndex)
//	prepared      value field "seal"  the seal of a review (Seal)
//	preparedtape  key <preparedId>    the sealed tape of a sealed review
//	seqindex      key <id>            seq marks of builds before this package: read by
//	                                  nothing; dropped when the session's scan index is
//	                                  stored, emptied by graft recover --rebuild-catalog
//
// # Tail check
//
// Every index records the offset it covers and a check of the bytes just
// before it, and is used only when the open log hashes the same:
//
//	sha256( label, NUL, offset in decimal, NUL, the up to 4096 bytes before offset )
//
// The scan index and the seal keep "tail-v1:<hex>" with label "tail-v1"
// (TailCheck); the state checkpoint keeps the bare "<hex>" with label
// "state-tail-v1". One function computes both; the labels keep a check of
// one format from passing for another's. With the device and inode (a
// rename or a rewrite by copy gives another) and the size, the check
// catches a log that was replaced, truncated, or rewritten in its last
// 4 KiB before the offset. It cannot see an in-place edit of older bytes
// that keeps the inode: logs are append-only, and the store only ever cuts
// a torn tail, which lies after any offset an index records (a line
// boundary).
//
// # index/<id>.seq: seq marks
//
// Mark k is where the event with seq k·64+1 starts (MarkEvery, K = 64), so
// recall seeks to the nearest mark at or before a seq and reads at most
// K-1 lines forward. Little-endian binary:
//
//	header, 56 bytes:
//	  magic   "graft-seqidx-v1\n" (16 bytes)
//	  dev     u64   the device of the log the marks were read from
//	  ino     u64   its inode
//	  every   u64   K, events from one mark to the next (64)
//	  first   u64   k of the first record
//	  count   u64   records that follow
//	records, 24 bytes each; record j is mark first+j (SeqMark):
//	  seq     i64   (first+j)·K+1
//	  offset  i64   the byte the event's line starts at
//	  line    i64   the line number there (1-based)
//
// This file is the marks' one home: the catalog keeps none (bucket seqindex
// above). The fold that stores a scan index (graft) writes it: the marks
// already in the file before the fold's start, then the marks of the
// events it read; marks that are not consecutive, or that do not continue
// into the new ones, are dropped, and the file then starts at the fold's
// own marks. The file is not used when it is missing, not a regular file,
// shorter than its header, of another magic or K, of another dev/ino than
// the log, or of another size than its count says, or when the record
// wanted is not its mark: recall then reads the log from its start, and
// RecallPath.FullScan says why. Whatever the file says, recall checks the
// mark against the log (the byte before it is a newline, each line it
// skips starts with {"seq":<the next seq>, the line it decodes has the seq
// asked for) and reads from the start on any mismatch. An I/O error
// reading the file is the same, plus a degraded-read note (graft's
// TakeDegraded).
//
// # index/<id>.state: the state checkpoint
//
// The state fold of a log (session.Info) at a line boundary, so that
// session.Store.Info folds only what was appended since. One JSON object
// (State):
//
//	v       2; a file that does not decode as version 2 is not used (version 1 had
//	        no checksum: the log is folded whole once, and a new one written)
//	dev     device of the log the fold read
//	ino     inode of that log
//	offset  a line boundary of the log: the fold covers [0, offset)
//	line    the number of the line that starts at offset
//	tail    the tail check at offset, label "state-tail-v1" (bare hex)
//	info    the fold at offset: session.Info.Snapshot (JSON, "v" 1: v, id, scan,
//	        origin, grafts, abandoned, lastHuman, openCalls, epilogue;
//	        session/snapshot.go)
//	sum     the checksum of the rest (Checksums, below)
//
// ReadState uses it only when its checksum matches, the open log has the same dev and ino, is at
// least offset bytes long (offset > 0, line ≥ 1) and has the same tail
// check; the session then uses it only when info restores to this session
// at offset with no torn tail. Otherwise the whole log is folded and
// session.Info.CheckpointErr says why. An I/O error reading it (or the log
// for its check) fails the fold: the disk is failing, and nothing graft
// reads hides that. The session writes a new one after a fold that read
// at least 1 MiB past the last (session.CheckpointEvery). At most 16 MiB
// of it are read.
//
// # catalog.db scanindex: the scan index
//
// A fold of a source (graft: prepare, audit, commit's drift rebuild)
// ends by storing the fold at a line boundary, so that the next fold of a
// grown log reads only the new tail. The value:
//
//	"graft-scanindex-v3\n"
//	the checksum of the rest, "sha256:<hex>" (Checksums, below), and "\n"
//	ScanIndex without its state as one line of JSON:
//	  session  the session id (the key)
//	  dev      device of the log
//	  ino      inode of the log
//	  offset   a line boundary: the fold covers [0, offset)
//	  line     the number of the line that starts at offset
//	  nextSeq  the seq of the line there
//	  check    TailCheck(offset): "tail-v1:<hex>"
//	"\n"
//	the state, raw bytes to the end of the value:
//	  "graft-scanstate-v2\n"
//	  the state fold's snapshot (session.Info.Snapshot, one line of JSON) and "\n"
//	  the tape builder's snapshot to the end (tape.Builder.Snapshot, JSON, "v" 3;
//	  tape/doc.go)
//
// A value of version 1 (one JSON object starting "{", its state in
// base64) or 2 (no checksum) reads as none. A value with another magic, no
// checksum or header line, a checksum that does not match, or a header
// that does not decode (an unknown field, data after it) is a corrupt
// value (catalog.ErrCorruptValue). The catalog refuses to store
// one whose session is not a valid id, whose offset, line or nextSeq is
// negative, or which has no check. A fold uses a stored index only when it
// fits the open log (ScanIndex.Fits: a file identity at all, the same dev
// and ino, at least offset bytes, the same session, the same tail check)
// and its state decodes (scanstate v2) and restores to its position (both
// snapshots of this session, last seq nextSeq-1, the fold's end at
// offset). Otherwise, or when it is corrupt or the catalog cannot be read,
// the fold reads the whole log and the review's warnings say why ("the
// scan index of <id> was not used (...)"). The fold stores a new one
// after reading the whole log, or at least 4 MiB past the old one.
//
// # catalog.db prepared.seal and preparedtape: a sealed review
//
// Prepare seals a review when the bytes it folded can be identified (a
// file identity, no torn last line): the seal is a field of the review
// (Seal, JSON):
//
//	dev, ino  the log's device and inode
//	end       the log's size when folded: a line boundary
//	lastSeq   the seq of the last line folded
//	check     TailCheck(end): "tail-v1:<hex>"
//	info      the state fold at end (session.Info.Snapshot)
//	sum       the checksum of the rest (Checksums): a seal without one (sealed
//	          before seals had it) or whose one does not match is not used
//
// and the tape the review showed is kept beside it, in bucket preparedtape
// under the preparedId: "graft-sealedtape-v1\n" and then a gob stream of
// one {Tape, Digest}, the tape (tape.Tape) and the sha256 of what a commit
// writes of it (graft: the JSON of its events, NUL, the JSON of its
// inherit, NUL, the JSON of its relies; a tape sealed before relies was
// hashed without it, so its digest no longer matches and the commit
// rebuilds). A commit uses the sealed tape only when the seal holds its
// checksum, and, under the source's lock, the log is still the sealed bytes (Seal.Holds: the same dev and
// ino, exactly end bytes, the same tail check), info restores to this
// source at end and lastSeq, the stream decodes with the magic, the tape
// hashes to its digest again (gob does not tell nil from empty) and
// matches the review (source, tapeHash, prefixHash, boundarySeq), and the
// source's leftovers are the review's. Otherwise the commit folds the log
// again and rebuilds the tape (graft.DriftRebuilt).
//
// # Checksums
//
// The tail check says whether an index still fits its log; it says
// nothing of the index's own bytes. A byte of a state checkpoint, a
// last-match memo or a scan index damaged on the disk (or in catalog.db,
// whose pages bbolt does not checksum) can still decode, and a fold that
// restored it would build another tape: one flipped byte of a scan
// index's state changed a hard constraint's words
// (FuzzADamagedScanIndexNeverChangesTheTape). So each keeps a checksum of
// its content, "sha256:" and the hex SHA-256: of a JSON file (State,
// Last), of its JSON with "sum" empty (the field is last; encoding/json
// writes the same bytes for the same values, so a reader re-encodes what
// it decoded to check it); of a scan index, of everything after its
// checksum line. One that does not match is not used: the log is read
// instead, and the reason says "its checksum does not match". A review's
// seal keeps one too (of its JSON with "sum" empty: Seal.SetSum, Intact),
// and its sealed tape has its digest (below). The seq marks need none:
// recall checks every mark against the log.
//
// # Writer
//
// Every file under index/ is written by a Writer, atomically: a temp file
// <name>.tmp-<8 base32 chars> is created exclusively (O_EXCL, O_NOFOLLOW),
// written, and renamed over the name, so a reader sees the old file or
// the new one, never a mix. The state checkpoint's write is durable: the
// temp file is fsynced before the rename and the directory after it (and
// index/ itself, when created, in the home). The seq file's is not: a
// cache that a power loss tears fails its checks and is rewritten. A
// failed write removes its temp file.
//
// A write interrupted before its rename (a crash, a kill) leaves its temp
// file. The writer sweeps them when it opens the directory (before its
// first write): every temp file of the Files above that is older than
// TempGrace (one minute) is removed; younger ones may be another process's
// write in flight and are left to a later sweep. Swept lists what was
// removed. The removals are not fsynced (a temp file that comes back
// after a power loss is swept again). A directory that cannot be listed,
// or a temp file that cannot be removed, fails that write: the caller
// reports its index as not stored.
package index
