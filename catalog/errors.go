package catalog

import (
	"errors"
	"fmt"
	"time"
)

// Sentinels; the typed errors below match them with errors.Is.
var (
	// ErrBusy: another process kept catalog.db locked for the whole timeout.
	ErrBusy = errors.New("catalog: busy")
	// ErrUnknownPrepared, ErrExpiredPrepared, ErrUsedPrepared: a preparedId
	// that cannot be committed, each for its own reason.
	ErrUnknownPrepared = errors.New("catalog: unknown preparedId")
	ErrExpiredPrepared = errors.New("catalog: preparedId expired")
	ErrUsedPrepared    = errors.New("catalog: preparedId already used")
	// ErrInvalid: a value refused before it is stored.
	ErrInvalid = errors.New("catalog: invalid value")
	// ErrCorruptValue: a stored value that does not decode.
	ErrCorruptValue = errors.New("catalog: corrupt value")
	// ErrFormat: catalog.db was written by an incompatible format.
	ErrFormat = errors.New("catalog: unsupported format")
)

// UnknownPreparedError: no prepared review has this id (never prepared, or
// purged after it expired).
type UnknownPreparedError struct{ ID string }

func (e *UnknownPreparedError) Error() string {
	return fmt.Sprintf("catalog: unknown preparedId %q: run prepare again", e.ID)
}
func (e *UnknownPreparedError) Is(target error) bool { return target == ErrUnknownPrepared }

// ExpiredPreparedError: the review's expiry passed before the commit.
type ExpiredPreparedError struct {
	ID           string
	Expires, Now time.Time
}

func (e *ExpiredPreparedError) Error() string {
	return fmt.Sprintf("catalog: preparedId %q expired at %s (now %s): run prepare again",
		e.ID, e.Expires.UTC().Format(time.RFC3339), e.Now.UTC().Format(time.RFC3339))
}
func (e *ExpiredPreparedError) Is(target error) bool { return target == ErrExpiredPrepared }

// UsedPreparedError: a commit already consumed the review.
type UsedPreparedError struct{ ID, Txn string }

func (e *UsedPreparedError) Error() string {
	return fmt.Sprintf("catalog: preparedId %q was already used by transaction %s: run prepare again", e.ID, e.Txn)
}
func (e *UsedPreparedError) Is(target error) bool { return target == ErrUsedPrepared }

// CorruptValueError names the bucket and key of a value that does not decode.
type CorruptValueError struct {
	Path, Bucket, Key string
	Err               error
}

func (e *CorruptValueError) Error() string {
	return fmt.Sprintf("catalog: corrupt value in %s, bucket %q, key %q: %v", e.Path, e.Bucket, e.Key, e.Err)
}
func (e *CorruptValueError) Unwrap() []error { return []error{ErrCorruptValue, e.Err} }
