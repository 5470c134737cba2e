package foldcache

import (
	"context"
	"errors"
	"fmt"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/session"
)

// Cache is the fold cache of one graft home: what it needs of the service
// that calls it, and nothing of the service itself. It holds nothing
// between calls, so a caller may make one per operation.
type Cache struct {
	// Home is the graft home, whose index/ holds the seq marks.
	Home string
	// Store is the home's session store: the logs it folds and reads.
	Store *session.Store
	// Catalog opens catalog.db (or the etcd store's catalog), where the
	// scan indexes are kept, for one operation.
	Catalog func() catalog.Opener
	// Degrade records that a read fell back to the logs, and why (the
	// service's notes); nil drops them.
	Degrade func(format string, args ...any)
	// SaveTail is how many bytes a fold that resumed from a valid index
	// reads before it stores a new one: below it, the next fold re-reads
	// the small tail (milliseconds) rather than pay a catalog write now.
	// DefaultSaveTail, or 0 to store an index at every fold (tests).
	SaveTail int64
	// FoldHook, when set, is called where a fold checks its context, with
	// the events folded so far (tests only: it may block).
	FoldHook func(source string, events int64)
}

// DefaultSaveTail is the SaveTail a service folds with.
const DefaultSaveTail int64 = 4 << 20

// How often a long scan checks its context: every CheckEvents events or
// CheckBytes bytes, whichever comes first.
const (
	CheckEvents = 4096
	CheckBytes  = 4 << 20
)

// ErrNoSuchSeq: the session has no event with that seq.
var ErrNoSuchSeq = errors.New("graft: no such seq")

// errFound stops a scan once the event is found.
var errFound = errors.New("found")

// degrade records a read that fell back to the logs.
func (c *Cache) degrade(format string, args ...any) {
	if c.Degrade != nil {
		c.Degrade(format, args...)
	}
}

// Cancelled is ctx's error, wrapped with what it stopped, or nil. It is
// checked at the boundaries of a phase and in the long scans, never once a
// transaction's journal record is written (a commit past PREPARING runs to
// its end or its own failure).
func Cancelled(ctx context.Context, what string) error {
	if err := ctx.Err(); err != nil {
		if cause := context.Cause(ctx); cause != nil && cause != err {
			return fmt.Errorf("graft: %s cancelled (%v): %w", what, cause, err)
		}
		return fmt.Errorf("graft: %s cancelled: %w", what, err)
	}
	return nil
}
