package txn

import (
	"errors"
	"fmt"
)

// Errors of the transaction, each with a stable code (see graft.Code).
var (
	ErrLocked         = errors.New("txn: locked by another process")
	ErrTargetExists   = errors.New("txn: target exists")
	ErrAlreadyGrafted = errors.New("txn: source already grafted")
	ErrBoundaryDrift  = errors.New("txn: boundary drifted")
	ErrColdVerify     = errors.New("txn: cold verify failed")
	ErrNotLive        = errors.New("txn: target is not a live graft")
	ErrHasNewEvents   = errors.New("txn: target has events beyond its tape")
	ErrSourceState    = errors.New("txn: source cannot be grafted")
)

// DriftError says why a prepared review no longer matches its source.
type DriftError struct {
	Source           string
	PreparedBoundary int64
	Boundary         int64
	PrefixChanged    bool
}

func (e *DriftError) Error() string {
	if e.Boundary != e.PreparedBoundary {
		return fmt.Sprintf("boundary drifted: a new user message arrived at seq %d in %s (the review was prepared at boundary seq %d); prepare again", e.Boundary, e.Source, e.PreparedBoundary)
	}
	return fmt.Sprintf("boundary drifted: events before boundary seq %d of %s changed since the review; prepare again", e.Boundary, e.Source)
}
func (e *DriftError) Is(t error) bool { return t == ErrBoundaryDrift }

// AlreadyGraftedError refuses a retired source without --allow-reslice.
type AlreadyGraftedError struct{ Source, Target string }

func (e *AlreadyGraftedError) Error() string {
	return fmt.Sprintf("%s already grafted into %s; pass --allow-reslice to cut it again", e.Source, e.Target)
}
func (e *AlreadyGraftedError) Is(t error) bool { return t == ErrAlreadyGrafted }

// ColdVerifyError says what the cold read found. Err is the I/O error
// behind it, if any (nil for a mismatch).
type ColdVerifyError struct {
	Target string
	Reason string
	Err    error
}

func (e *ColdVerifyError) Error() string {
	return fmt.Sprintf("cold verify of %s failed: %s; the source stays active and the target was marked abandoned", e.Target, e.Reason)
}
func (e *ColdVerifyError) Is(t error) bool { return t == ErrColdVerify }
func (e *ColdVerifyError) Unwrap() error   { return e.Err }
