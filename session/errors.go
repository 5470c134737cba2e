package session

import (
	"errors"
	"fmt"
)

// Sentinels; the typed errors below match them with errors.Is.
var (
	ErrInvalidID   = errors.New("session: invalid session id")
	ErrNotFound    = errors.New("session: not found")
	ErrExists      = errors.New("session: already exists")
	ErrSymlink     = errors.New("session: file is a symlink or not a regular file; refused")
	ErrCorrupt     = errors.New("session: corrupt log")
	ErrSeq         = errors.New("session: seq out of order")
	ErrRetired     = errors.New("session: retired")
	ErrAbandoned   = errors.New("session: abandoned")
	ErrUncommitted = errors.New("session: uncommitted graft target")
	ErrBadEvent    = errors.New("session: invalid event")
	// ErrChanged: a conditional append found the log grown or cut since the
	// scan it was based on.
	ErrChanged = errors.New("session: log changed since it was read")
)

// CorruptError names the file, line and byte offset of a bad line.
type CorruptError struct {
	Path   string
	Line   int
	Offset int64
	Err    error
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("session: corrupt log %s: line %d (byte offset %d): %v", e.Path, e.Line, e.Offset, e.Err)
}
func (e *CorruptError) Unwrap() []error { return []error{ErrCorrupt, e.Err} }

// SeqError names both seqs of a gap or repeat.
type SeqError struct {
	Path      string
	Line      int
	Offset    int64
	Want, Got int64
}

func (e *SeqError) Error() string {
	return fmt.Sprintf("session: %s: line %d (byte offset %d): seq %d follows seq %d (want %d)", e.Path, e.Line, e.Offset, e.Got, e.Want-1, e.Want)
}
func (e *SeqError) Is(target error) bool { return target == ErrSeq }

// RetiredError refuses an append to a retired session and names the live
// target to use instead.
type RetiredError struct{ ID, Target string }

func (e *RetiredError) Error() string {
	return fmt.Sprintf("session: %s is retired (grafted into %s); continue in %s", e.ID, e.Target, e.Target)
}
func (e *RetiredError) Is(target error) bool { return target == ErrRetired }

// AbandonedError refuses an append to an abandoned target.
type AbandonedError struct{ ID, Reason, Use string }

func (e *AbandonedError) Error() string {
	if e.Use == "" {
		return fmt.Sprintf("session: %s is abandoned (%s); its log names no session to continue in", e.ID, e.Reason)
	}
	return fmt.Sprintf("session: %s is abandoned (%s); continue in %s", e.ID, e.Reason, e.Use)
}
func (e *AbandonedError) Is(target error) bool { return target == ErrAbandoned }

// UncommittedError refuses to resume a graft target whose commit point is
// not in its source's log. Into is set when the parent's log retired that
// transaction into another session: this one is a copy of that target's
// log, not the target. Use is the session to continue in.
type UncommittedError struct{ ID, Txn, Parent, Into, Use string }

func (e *UncommittedError) Error() string {
	use := e.Use
	if use == "" {
		use = e.Parent
	}
	if e.Into != "" {
		return fmt.Sprintf("session: %s holds the graft/origin of transaction %s, but %s retired into %s in that transaction, not into %s (a copy of %s's log?); continue in %s", e.ID, e.Txn, e.Parent, e.Into, e.ID, e.Into, use)
	}
	return fmt.Sprintf("session: %s is a graft target whose transaction %s never committed in %s; continue in %s", e.ID, e.Txn, e.Parent, use)
}
func (e *UncommittedError) Is(target error) bool { return target == ErrUncommitted }
