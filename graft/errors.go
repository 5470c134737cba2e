package graft

import (
	"errors"

	"github.com/graft-project/graft/ancestry"
	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/etcdstore"
	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/journal"
	"github.com/graft-project/graft/lockfile"
	"github.com/graft-project/graft/recovery"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/txn"
)

// ErrHashMismatch: the tapeHash given to commit is not the review's.
var ErrHashMismatch = errors.New("graft: tape hash mismatch")

// Code is a stable name for a typed error; programs match on it (the MCP
// tools and --json output carry it), people read the message.
type Code string

// ExitCode is one typed error: its stable code, exit code and meaning.
type ExitCode struct {
	Code Code
	Exit int
	Doc  string
	err  error // what CodeOf matches (errNoSpace/errPermission: by errno; errLocked: either lock)
}

// Codes and their exit codes. Stable: never renumber, only add.
var codes = []ExitCode{
	{"unknown_prepared", 10, "no prepared review has this id", catalog.ErrUnknownPrepared},
	{"expired_prepared", 11, "the prepared review expired: prepare again", catalog.ErrExpiredPrepared},
	{"used_prepared", 12, "the prepared review was already committed", catalog.ErrUsedPrepared},
	{"hash_mismatch", 13, "--hash is not the review's tapeHash", ErrHashMismatch},
	{"boundary_drift", 14, "a new human instruction arrived or the prefix changed: prepare again", txn.ErrBoundaryDrift},
	{"already_grafted", 15, "the source is retired: use its target, or --allow-reslice", txn.ErrAlreadyGrafted},
	{"target_exists", 16, "the target id is taken: choose another --target", txn.ErrTargetExists},
	{"locked", 17, "another process holds the source or target lock, or the session's (an import, a hook): retry", errLocked},
	{"cold_verify_failed", 18, "the target read back from disk did not match: nothing was committed", txn.ErrColdVerify},
	{"no_space", 19, "the disk is full (ENOSPC): nothing was committed", errNoSpace},
	{"permission_denied", 20, "a write was denied (EACCES/EROFS): nothing was committed", errPermission},
	{"corrupt_journal_record", 21, "a journal record in .txn/ cannot be read; it was left in place", journal.ErrCorruptRecord},
	{"invalid_id", 22, "a session id does not match ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$", session.ErrInvalidID},
	{"not_found", 23, "no such session", session.ErrNotFound},
	{"retired", 24, "the session is retired: continue in its target", session.ErrRetired},
	{"abandoned", 25, "the session is an abandoned target: continue in its source", session.ErrAbandoned},
	{"uncommitted", 26, "the session is a target that never committed: continue in its source", session.ErrUncommitted},
	{"corrupt_log", 27, "a session log has a bad line (file, line and offset are named)", session.ErrCorrupt},
	{"bad_seq", 28, "a seq gap or repeat (both seqs are named)", session.ErrSeq},
	{"not_live", 29, "the target is not a live graft: nothing to revert", txn.ErrNotLive},
	{"has_new_events", 30, "the target grew beyond its tape: revert --force", txn.ErrHasNewEvents},
	{"recovery_incomplete", 31, "the recovery scan left records unresolved (listed)", recovery.ErrIncomplete},
	{"catalog_busy", 32, "catalog.db is held by another process: retry", catalog.ErrBusy},
	{"symlink_refused", 33, "a session file is a symlink or not a regular file", session.ErrSymlink},
	{"bad_event", 34, "an event is invalid", session.ErrBadEvent},
	{"audit_failed", 35, "an ancestor's origin event is missing or no longer holds a constraint", ErrAuditFailed},
	{"invalid_options", 36, "prepare options are invalid", ErrInvalidOptions},
	{"source_rewritten", 37, "import: the part of the transcript already imported changed", importer.ErrSourceRewritten},
	{"source_shortened", 38, "import: the transcript is shorter than the part already imported", importer.ErrSourceShortened},
	{"session_diverged", 39, "import: the session holds events the import did not write", importer.ErrSessionDiverged},
	{"import_busy", 40, "import: another import into this session is running", importer.ErrBusy},
	{"no_such_seq", 41, "the session has no event at that seq", ErrNoSuchSeq},
	{"no_origin", 42, "recall --origin: the event cites no origin", ErrNoOrigin},
	{"broken_lineage", 43, "an ancestor in the lineage is missing or does not match", ErrBrokenLineage},
	{"export_exists", 44, "export: another file holds the host transcript's path; graft never replaces one", hosts.ErrExportExists},
	{"bound_elsewhere", 45, "export: the session already continues in another host session", hosts.ErrBoundElsewhere},
	{"not_target", 46, "export: the session is no graft target: commit a graft first (or use handoff)", hosts.ErrNotTarget},
	{"target_not_live", 47, "export: the target is retired, abandoned or uncommitted", hosts.ErrTargetNotLive},
	{"bad_cwd", 48, "the working directory given does not exist or is not a directory", hosts.ErrBadCwd},
	{"no_transcript", 49, "the host transcript does not exist or is not a regular file", hosts.ErrNoTranscript},
	{"bad_host_session_id", 50, "a host session id is not a lower-case uuid (or a transcript's name holds none)", hosts.ErrHostSessionID},
	{"catalog_damaged", 51, "catalog.db is damaged (its file, or a value in it): graft recover --rebuild-catalog moves it aside and rebuilds it from the logs", catalog.ErrCorrupt},
	{"store_unavailable", 52, "the etcd cluster did not answer in time (unreachable, or no quorum): nothing was decided unless the message says the answer was lost", etcdstore.ErrUnavailable},
	{"fenced", 53, "this worker lost its etcd locks (its lease expired): its write was refused, and another worker's recovery finishes or undoes the transaction", etcdstore.ErrFenced},
	{"store_mismatch", 54, "the home belongs to the other store (file or etcd, or another etcd prefix): the message says what to do", etcdstore.ErrHome},
	{"bad_store_url", 55, "--store (or GRAFT_STORE, or config key store) is not file or etcd://host:port[,…]/prefix", etcdstore.ErrURL},
	{"store_format", 56, "the etcd prefix holds another format than this graft's: use another prefix", etcdstore.ErrFormat},
	{"ambiguous_host_session", 57, "more than one host session was active in the directory lately: name the one (its id or transcript)", ErrAmbiguousHostSession},
	{"bad_config", 58, "doctor: the config file does not load (an unknown key, a bad value): edit it at the line named", ErrBadConfig},
	{"home_unusable", 59, "doctor: the home is not a directory this user can write (or cannot be made)", ErrHomeUnusable},
	{"export_owed", 60, "doctor: a committed handoff still owes its host session: graft recover writes it", ErrExportOwed},
	{"hooks_wont_run", 61, "doctor: graft's hooks are installed but would not run: the graft they name is missing or another version, or Codex has not trusted them", ErrHooksWontRun},
	{"hooks_missing", 62, "doctor: autoGraft or interceptCompaction is set but no host runs graft's hooks", ErrHooksMissing},
	{"hooks_twice", 63, "doctor: two of Claude Code's settings files hold graft's hooks, so graft runs twice per event", ErrHooksTwice},
	{"not_host_transcript", 64, "import: none of the file's first lines (64, within 1 MiB) is a record of the host named; the message names the host it reads as", importer.ErrNotTranscript},
	{"store_refused", 65, "the etcd cluster refused a request (past its size limit, or a transaction it will not run): nothing of it was written, and the same request would be refused again; the message gives etcd's reason", etcdstore.ErrRefused},
	{"invalid_query", 66, "find: the query has no word, asks for more matches than the most (1 to 100), or starts below a negative seq", ErrInvalidQuery},
	{"unknown_transcript", 67, "import without a host named: the file's first lines (64, within 1 MiB) are no one host's records, or it has no complete line yet; the message says how to name the host", importer.ErrUnknownTranscript},
}

var (
	errNoSpace    = errors.New("no space")
	errPermission = errors.New("permission")
	// errLocked: a graft lock held (txn.ErrLocked, the file or etcd
	// store's) or a session's lock file held (lockfile.ErrLocked: an
	// import, a hook, an append waits for it) answer alike.
	errLocked = errors.New("locked")
	// ErrAuditFailed: graft audit found a broken origin chain.
	ErrAuditFailed = ancestry.ErrAuditFailed
	// ErrNoOrigin: recall --origin was pointed at an event that cites no
	// origin.
	ErrNoOrigin = ancestry.ErrNoOrigin
	// ErrBrokenLineage: a session's chain up to generation 1 cannot be
	// followed.
	ErrBrokenLineage = ancestry.ErrBrokenLineage
	// ErrInvalidOptions: bad prepare options.
	ErrInvalidOptions = errors.New("graft: invalid options")
	// ErrAmbiguousHostSession: a host session to find by the directory
	// alone, and the hooks followed more than one there lately.
	ErrAmbiguousHostSession = errors.New("graft: more than one host session active here")

	// What graft doctor finds (cmd/graft): each problem's code.
	ErrBadConfig    = errors.New("graft: the config file does not load")
	ErrHomeUnusable = errors.New("graft: the home is not a writable directory")
	ErrExportOwed   = errors.New("graft: a host session is owed")
	ErrHooksWontRun = errors.New("graft: graft's hooks would not run")
	ErrHooksMissing = errors.New("graft: no host runs graft's hooks")
	ErrHooksTwice   = errors.New("graft: graft's hooks run twice")
)

// CodeOf returns the stable code and exit code of err ("error", 1 when it
// is not a typed error).
func CodeOf(err error) (Code, int) {
	if err == nil {
		return "", 0
	}
	for _, c := range codes {
		switch c.err {
		case errNoSpace:
			if txn.IsNoSpace(err) {
				return c.Code, c.Exit
			}
		case errPermission:
			if txn.IsPermission(err) {
				return c.Code, c.Exit
			}
		case errLocked:
			if errors.Is(err, txn.ErrLocked) || errors.Is(err, lockfile.ErrLocked) {
				return c.Code, c.Exit
			}
		case catalog.ErrCorrupt:
			// A value that does not decode, or does not hold its checksum,
			// is damage the same rebuild mends.
			if errors.Is(err, catalog.ErrCorrupt) || errors.Is(err, catalog.ErrCorruptValue) {
				return c.Code, c.Exit
			}
		default:
			if errors.Is(err, c.err) {
				return c.Code, c.Exit
			}
		}
	}
	return "error", 1
}

// ErrOfCode is the error the code c matches (what CodeOf maps to c), nil
// for a code not in the table: a report that names its problems by code
// (graft doctor) exits with the code's exit code through it.
func ErrOfCode(c Code) error {
	for _, e := range codes {
		if e.Code == c {
			return e.err
		}
	}
	return nil
}

// ExitCodes lists every code for --help and the README.
func ExitCodes() []ExitCode { return append([]ExitCode(nil), codes...) }
