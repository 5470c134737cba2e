// Package importer turns transcripts that agent hosts write (Claude Code,
// Codex: see the claudecode and codex packages) into native sessions, and
// keeps following them as the host appends: each run appends only the
// lines the previous runs did not consume. It owns $GRAFT_HOME/imports/.
//
// # Files
//
//	imports/<id>.json        the cursor of session <id>: how far its import got; mode 0600, directory 0700
//	locks/import/<id>.lock   held while an import into <id> runs (package lockfile owns it)
//
// The cursor is replaced atomically (vfs WriteFileAtomic: temp file, fsync,
// rename, fsync of the directory). It is one JSON object:
//
//	version       1, or 2 with a state file
//	format        a host's name in the registry: the importer that wrote it
//	session       <id>
//	source        absolute path of the transcript
//	device, inode identity of the transcript file when the cursor was written
//	size          its size then (informative)
//	offset        byte offset just past the last complete line consumed
//	lines         number of lines consumed (line numbers are 1-based)
//	lastUuid      the source's own id of the last consumed line that has one
//	              (Claude Code "uuid"; Codex: the session_meta id)
//	prefixSha256  hex SHA-256 of the source bytes [0, offset)
//	hashState     base64 of that SHA-256's state at offset (MarshalBinary); optional
//	tailSha256    hex SHA-256 of the last 4096 bytes before offset (fewer when
//	              offset is smaller); optional, with hashState
//	verifiedOffset  how far one run last read the transcript from byte 0 (a
//	              whole prefix check or the first import); optional
//	lastSeq       the session's last seq once those lines were appended
//	settings      options that shape the mapping (keepThinking, parentSession)
//	stateFile     version 2 only: {"name": "<id>.state", "size", "sha256"
//	              (hex)}, the state file that holds the importer's state
//	state         version 1 only: the importer's memory across lines: tool
//	              calls still waiting for their result (their tool name, the
//	              sub-agent); Codex: whether the rollout has shown a user
//	              message's twin, and a user message held until the next
//	              line (codex/doc.go)
//	updated       RFC 3339 time of the write
//	sum           "sha256:" and the hex SHA-256 of the file's bytes without this
//	              member (the last: what json.MarshalIndent gives without it);
//	              a cursor whose bytes do not hash to it (damaged on the disk,
//	              still JSON) is ErrCursorSum, which Run sets aside as it does a
//	              state file that does not match (below); a cursor without one,
//	              written before it existed, is read as before
//
// Version 1 is a cursor with its importer's state in it (JSON), version 2
// one whose importer keeps its state in a file of its own (BinaryState:
// Gemini CLI's, whose state holds every message and call id, gemini/doc.go),
// which it names:
//
//	imports/<id>.state       binary, the importer's; mode 0600
//
// A run reads both versions and writes the one its importer keeps. The
// state file is replaced atomically as the cursor is, before it, and only
// when its bytes changed; a run that finds it missing or not the size and
// sha256 its cursor names (a crash between the two writes, a file changed
// by hand: ErrStateFile) warns, sets the cursor aside and reads the source
// again from its first line, checking the session's events against it as
// with no cursor (step 4); a state file that matches but does not decode is
// ErrCursor, as a cursor that does not decode is. A cursor that is not
// JSON at all (cut short, overwritten) is damaged, as one whose checksum
// does not match: ErrCursorSum, set aside the same way, and so is one that
// does not decode for a value no field holds (a digit damaged into
// "101E9828") when its checksum, read from its last line, does not match.
// One that does not decode and holds its checksum or has none (another
// format's fields), of another version (a newer graft's, never
// overwritten) or that names another file is ErrCursor.
//
// # A run
//
//  0. A first import (no cursor for <id>) of a file whose first lines are
//     not the host's is refused before anything is written, not even the
//     lock file (Check; ErrNotTranscript, exit code not_host_transcript).
//     The mapper is a Recognizer: it tells its host's records by their
//     shape, whatever their type, so a record type newer than the mapper
//     still counts (and is imported as before, a system event with a
//     warning). When none of the first SniffLines (64) complete, non-blank
//     lines that end within the first SniffBytes (1 MiB) is one, the run
//     is refused with a NotTranscriptError naming the file, the host asked
//     for, how many lines were looked at and, when another host's mapper
//     (Options.Others) recognises them, that host and the command to
//     import it with. A whole JSON document at the end with no newline
//     after it counts as a line (a file written at once, as Gemini CLI's
//     checkpoint: no line a host has begun). A file with no complete line
//     yet (empty, or a host mid-write) is not refused, nor is a run that
//     resumes from a cursor,
//     nor a mapper that is no Recognizer. A first run that consumed no
//     line with more than white space and appended nothing writes no
//     cursor: it accepted nothing, so the next run is a first import and
//     is checked. An import that names no host (graft import <file>) asks
//     Detect first: the host is the one of the Others whose Recognizer
//     takes the most of the same first lines. None, two taking as many,
//     or no complete line yet is an UnknownTranscriptError
//     (ErrUnknownTranscript, exit code unknown_transcript) saying how to
//     name the host, or a Hinter's word on the file when it has one.
//  1. Take locks/import/<id>.lock (lockfile.TryLockImport) without
//     waiting; held: ErrBusy. It is not the session's lock (step 6).
//  2. Read the cursor. A cursor of another format or with other settings is
//     refused (ErrFormat, ErrSettings): the mapping would change half-way.
//  3. Open the source: anything but a regular file (a FIFO, a device, a
//     directory; a symlink is followed to its file) is refused with
//     ErrNotRegular before it is opened for a read that could block. If it
//     is shorter than offset: ErrSourceShortened. Read [0, offset) and hash
//     it; a different hash: ErrSourceRewritten. Either way nothing is
//     appended. A different path or inode with the same prefix bytes (a host
//     that replaces the file by rename) is a warning. The whole prefix is
//     not read again when it is over 8 MiB, at most twice verifiedOffset, the
//     cursor has hashState and tailSha256, the file is the same (path,
//     device, inode) and its tail [offset-4096, offset) hashes to tailSha256:
//     the hash resumes from hashState, so a run of a growing transcript reads
//     the new bytes and 4 KiB, and the whole prefix again only each time it
//     doubled (amortised, a constant cost per byte). Between two such reads
//     an in-place edit that keeps the inode and the last 4 KiB before the
//     offset is not seen; the next whole read refuses it (hosts only append).
//  4. Compare the session with lastSeq. Missing while lastSeq > 0:
//     ErrSessionGone; ending before lastSeq: ErrSessionShort. Events past
//     lastSeq were appended by a run that stopped before saving its cursor
//     (or, with no cursor, by a first run that stopped): they are compared
//     one by one, seq and ts aside, with the events the following lines
//     produce again, and kept; the first difference is ErrSessionDiverged
//     and nothing is appended. graft/* marks past lastSeq (the session was
//     grafted or reverted) are graft's own and are stepped over; appending
//     to a retired session is then refused by the store, naming the session
//     to continue in.
//  5. Read complete lines from offset, hashing them. A malformed line is
//     reported with its line number and byte offset, counted, and consumed;
//     it never stops the import. A last line without '\n' is the host
//     mid-write: it is reported (Summary.PendingTail) and not consumed.
//  6. Append the events in batches (Options.BatchBytes of source lines,
//     8 MiB by default) with explicit seqs, so an append by anyone else in
//     between is refused by the store instead of interleaved. A new session
//     is streamed through a session.Writer (its batches 256 KiB of source
//     lines: nothing of it exists before it is closed, so a bigger batch
//     would only hold more events in memory), which holds the session's lock
//     (lockfile, locks/<id>.lock) until it is closed, and the cursor is
//     written after it is closed; a run that fails before (a full disk, a
//     bad line) removes the new session, keeping none of it. An existing
//     session gets store.Append per batch, under the session's lock (never
//     inside a commit or revert; waited for up to 10 s), and a cursor after
//     each batch; a batch is all or nothing, so a failed one leaves no
//     event of itself and the cursor where it was. The cursor never claims
//     what is not durable. A run that consumed no line past the cursor it
//     resumed from (of the same file, no graft mark stepped over, nothing
//     more verified) writes no cursor: the one on disk says the same
//     (a hook on every turn of a session that did not grow).
//
// Every event carries meta "line" (its source line); importers add the
// source's ids (meta "uuid") and their own provenance. A source time an
// importer cannot read is kept in meta "timestamp" and the event is stamped
// when it is written; the summary warns once for each such line.
//
// # Summary
//
// A run returns a Summary: lines consumed, events appended and verified,
// counts by kind (human instructions, injected messages, assistant
// messages, thinking, tool calls, tool results, todo lists, sub-agent
// reports, system events), what was skipped by name, malformed lines with
// their numbers (the first 100 listed, all counted), warnings, the pending
// tail and the summaries of sub-sessions.
//
// # Fast paths
//
// The importers read their hosts' lines with session/logscan's Decoder
// where they can, and with encoding/json where it would answer otherwise
// (issue 25). List and Nullable are the shapes they share: a JSON array
// into a slice, null or an object into a pointer, as json.Unmarshal
// fills them. The Google GenAI parts of Gemini CLI and Qwen Code are
// package importer/genai's.
package importer
