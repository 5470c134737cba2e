package mcpserver

import (
	"errors"
	"fmt"

	"github.com/graft-project/graft/graft"
)

// Codes this package adds to graft's table (graft.CodeOf). They are as
// stable as graft's: agents match on them.
const (
	// CodeInvalidInput: the arguments are well-formed JSON but make no sense
	// together (e.g. offset without preparedId).
	CodeInvalidInput graft.Code = "invalid_input"
	// CodeNoSuchSeq: graft_recall asked for a seq the session does not have
	// (graft.CodeOf's code for graft.ErrNoSuchSeq, named here for nextStep).
	CodeNoSuchSeq graft.Code = "no_such_seq"
	// CodeInternal: a handler panicked; the server recovered and keeps serving.
	CodeInternal graft.Code = "internal_error"
)

// errInvalidInput is wrapped by every refusal of a tool's arguments.
var errInvalidInput = errors.New("mcpserver: invalid input")

func inputErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errInvalidInput, fmt.Sprintf(format, args...))
}

// toolError is what a tool returns for a typed error: the SDK turns it into
// a result with isError set, whose text starts with the stable code.
type toolError struct {
	Code graft.Code
	Next string // what the agent should do now
	Err  error
}

func (e *toolError) Error() string {
	return fmt.Sprintf("%s: %v; next: %s", e.Code, e.Err, e.Next)
}

func (e *toolError) Unwrap() error { return e.Err }

// codeOf is graft.CodeOf plus the codes of this package.
func codeOf(err error) graft.Code {
	if errors.Is(err, errInvalidInput) {
		return CodeInvalidInput
	}
	code, _ := graft.CodeOf(err)
	return code
}

// asToolError names err's code and what an agent calling tool should do
// next. The advice uses tool and argument names, never CLI flags.
func asToolError(tool string, err error) *toolError {
	code := codeOf(err)
	return &toolError{Code: code, Next: nextStep(tool, code), Err: err}
}

func nextStep(tool string, code graft.Code) string {
	switch code {
	case "unknown_prepared":
		return "call graft_prepare for a new review (a preparedId comes only from graft_prepare)"
	case "expired_prepared":
		return "call graft_prepare again, show the new review to the user, then graft_commit with its preparedId and tapeHash"
	case "used_prepared":
		return "this review was already committed; call graft_status to find the session to continue in (head)"
	case "hash_mismatch":
		return "pass the tapeHash exactly as graft_prepare returned it with this preparedId"
	case "boundary_drift":
		return "call graft_prepare again and show the new review to the user before committing"
	case "already_grafted":
		return "continue in the target graft_status shows as head, or call graft_prepare with allowReslice=true if the user wants a second cut"
	case "target_exists":
		return "pass another target, or omit target for a free default name"
	case "locked", "catalog_busy":
		return "another graft process is working on these sessions; retry in a few seconds"
	case "cold_verify_failed", "no_space", "permission_denied":
		return "nothing was committed and the source is still usable; fix the cause, then call graft_prepare again"
	case "corrupt_journal_record", "recovery_incomplete":
		return "run graft recover from a shell and read its report; graft_status lists the records"
	case "invalid_id":
		return "use a session id from graft_status (letters, digits, '.', '_', '-'; at most 128)"
	case "not_found":
		return "call graft_status for the sessions that exist"
	case "retired":
		return "continue in the session graft_status shows as head"
	case "abandoned", "uncommitted":
		return "continue in its parent session (graft_status shows it)"
	case "corrupt_log", "bad_seq", "bad_event", "symlink_refused":
		return "the session's file is damaged; tell the user the file, line and offset named above"
	case "broken_lineage":
		return "an ancestor session named above is missing or does not match its graft; tell the user, and read what is left of it with graft_recall"
	case "not_live":
		return "nothing to revert; graft_status shows which grafts are live (a session with a target)"
	case "has_new_events":
		return "the target holds work the revert would abandon; ask the user, then call graft_revert with force=true"
	case "export_exists", "bound_elsewhere", "not_target", "target_not_live":
		return "the graft session cannot become this host session as asked; tell the user the message above (graft_status lists the host sessions)"
	case "bad_cwd":
		return "pass a transcript or hostSessionId, or run the server in an existing directory"
	case "ambiguous_host_session":
		return "more than one host session was active in this directory lately: ask the user which one this is, or read your own session id, then call graft_prepare again with host and hostSessionId"
	case "not_host_transcript":
		return "the transcript is not the named host's (the message names the host it reads as): call graft_prepare again with that host, or with the transcript of this host's session"
	case "unknown_transcript":
		return "the transcript's host cannot be told from its first lines: call graft_prepare again with host naming it"
	case "no_transcript", "bad_host_session_id":
		return "pass host with transcript (the path of the host's transcript) or hostSessionId (its uuid); with the hooks installed, host alone finds the session that ran last here"
	case "catalog_damaged":
		return "catalog.db is damaged: graft_status and graft_recall still work from the logs; ask the user to run graft recover with its rebuild-catalog option from a shell (the damaged file is kept as evidence), then call graft_prepare again"
	case "store_unavailable":
		return "the etcd cluster graft runs on did not answer (unreachable, or no quorum); nothing was decided unless the message says the answer was lost: wait, then call the same tool again (graft_status first, to see what landed)"
	case "store_refused":
		return "the etcd cluster graft runs on refused the request (the message gives etcd's reason): nothing of it was written, and calling the same tool again would be refused again; tell the user the message above"
	case "fenced":
		return "this graft server lost its etcd locks (its lease expired while it was paused or cut off): its write was refused; call graft_status, then graft_prepare again (another worker's recovery finished or undid the transaction)"
	case "store_mismatch", "bad_store_url", "store_format":
		return "the graft server's store setting does not fit its home (file or etcd, which prefix): tell the user the message above; the server must be restarted with the right store setting"
	case "bad_config":
		return "graft's config file does not load (the message names the file, line and key): tell the user; the server must be restarted once it is fixed"
	case "home_unusable":
		return "the graft home is not a directory this user can write: tell the user the path named above; the server must be restarted with a home it can write"
	case "export_owed":
		return "a committed handoff still owes its host session: call graft_status to see it, and ask the user to run graft recover from a shell, which writes it"
	case "hooks_wont_run", "hooks_missing", "hooks_twice":
		return "graft's hooks in the host are not as they should be: tell the user to run graft doctor from a shell, which names the fix"
	case "invalid_options":
		return "fix the option named above and call graft_prepare again"
	case "invalid_query":
		return "call graft_find again with at least one word, a limit from 1 to 100 and before a seq (or none)"
	case CodeNoSuchSeq:
		return "use a seq the tape cites (Recall Index), within the range named above"
	case CodeInvalidInput:
		return "fix the arguments of " + tool + " as the message says"
	}
	return "call graft_status to see the state, and tell the user the message above"
}
