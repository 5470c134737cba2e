package graft

import (
	"errors"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/journal"
	"github.com/graft-project/graft/recovery"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/txn"
)

// ErrHashMismatch: the tapeHash given to commit is not the review's.
var ErrHashMismatch = errors.New("graft: tape hash mismatch")

// Code is a stable name for a typed error; programs match on it (the MCP
// tools and --json output carry it), people read the message.
type Code string

// Codes and their exit codes. Stable: never renumber, only add.
var codes = []struct {
	Code Code
	Exit int
	Err  error
	Doc  string
}{
	{"unknown_prepared", 10, catalog.ErrUnknownPrepared, "no prepared review has this id"},
	{"expired_prepared", 11, catalog.ErrExpiredPrepared, "the prepared review expired: prepare again"},
	{"used_prepared", 12, catalog.ErrUsedPrepared, "the prepared review was already committed"},
	{"hash_mismatch", 13, ErrHashMismatch, "--hash is not the review's tapeHash"},
	{"boundary_drift", 14, txn.ErrBoundaryDrift, "a new human instruction arrived or the prefix changed: prepare again"},
	{"already_grafted", 15, txn.ErrAlreadyGrafted, "the source is retired: use its target, or --allow-reslice"},
	{"target_exists", 16, txn.ErrTargetExists, "the target id is taken: choose another --target"},
	{"locked", 17, txn.ErrLocked, "another process holds the source or target lock: retry"},
	{"cold_verify_failed", 18, txn.ErrColdVerify, "the target read back from disk did not match: nothing was committed"},
	{"no_space", 19, errNoSpace, "the disk is full (ENOSPC): nothing was committed"},
	{"permission_denied", 20, errPermission, "a write was denied (EACCES/EROFS): nothing was committed"},
	{"corrupt_journal_record", 21, journal.ErrCorruptRecord, "a journal record in .txn/ cannot be read; it was left in place"},
	{"invalid_id", 22, session.ErrInvalidID, "a session id does not match ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"},
	{"not_found", 23, session.ErrNotFound, "no such session"},
	{"retired", 24, session.ErrRetired, "the session is retired: continue in its target"},
	{"abandoned", 25, session.ErrAbandoned, "the session is an abandoned target: continue in its source"},
	{"uncommitted", 26, session.ErrUncommitted, "the session is a target that never committed: continue in its source"},
	{"corrupt_log", 27, session.ErrCorrupt, "a session log has a bad line (file, line and offset are named)"},
	{"bad_seq", 28, session.ErrSeq, "a seq gap or repeat (both seqs are named)"},
	{"not_live", 29, txn.ErrNotLive, "the target is not a live graft: nothing to revert"},
	{"has_new_events", 30, txn.ErrHasNewEvents, "the target grew beyond its tape: revert --force"},
	{"recovery_incomplete", 31, recovery.ErrIncomplete, "the recovery scan left records unresolved (listed)"},
	{"catalog_busy", 32, catalog.ErrBusy, "catalog.db is held by another process: retry"},
	{"symlink_refused", 33, session.ErrSymlink, "a session file is a symlink or not a regular file"},
	{"bad_event", 34, session.ErrBadEvent, "an event is invalid"},
	{"audit_failed", 35, ErrAuditFailed, "an ancestor's origin event is missing or no longer holds a constraint"},
	{"invalid_options", 36, ErrInvalidOptions, "prepare options are invalid"},
	{"source_rewritten", 37, importer.ErrSourceRewritten, "import: the part of the transcript already imported changed"},
	{"source_shortened", 38, importer.ErrSourceShortened, "import: the transcript is shorter than the part already imported"},
	{"session_diverged", 39, importer.ErrSessionDiverged, "import: the session holds events the import did not write"},
	{"import_busy", 40, importer.ErrBusy, "import: another import into this session is running"},
	{"no_such_seq", 41, ErrNoSuchSeq, "the session has no event at that seq"},
	{"no_origin", 42, ErrNoOrigin, "recall --origin: the event cites no origin"},
	{"broken_lineage", 43, ErrBrokenLineage, "an ancestor in the lineage is missing or does not match"},
}

var (
	errNoSpace    = errors.New("no space")
	errPermission = errors.New("permission")
	// ErrAuditFailed: graft audit found a broken origin chain.
	ErrAuditFailed = errors.New("graft: audit failed")
	// ErrInvalidOptions: bad prepare options.
	ErrInvalidOptions = errors.New("graft: invalid options")
)

// CodeOf returns the stable code and exit code of err ("error", 1 when it
// is not a typed error).
func CodeOf(err error) (Code, int) {
	if err == nil {
		return "", 0
	}
	for _, c := range codes {
		switch c.Err {
		case errNoSpace:
			if txn.IsNoSpace(err) {
				return c.Code, c.Exit
			}
		case errPermission:
			if txn.IsPermission(err) {
				return c.Code, c.Exit
			}
		default:
			if errors.Is(err, c.Err) {
				return c.Code, c.Exit
			}
		}
	}
	return "error", 1
}

// ExitCodes lists every code for --help and the README.
func ExitCodes() []struct {
	Code Code
	Exit int
	Doc  string
} {
	out := make([]struct {
		Code Code
		Exit int
		Doc  string
	}, len(codes))
	for k, c := range codes {
		out[k].Code, out[k].Exit, out[k].Doc = c.Code, c.Exit, c.Doc
	}
	return out
}
