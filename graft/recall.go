package graft

import (
	"context"

	"github.com/graft-project/graft/foldcache"
	"github.com/graft-project/graft/session"
)

// ErrNoSuchSeq: the session has no event with that seq.
var ErrNoSuchSeq = foldcache.ErrNoSuchSeq

// RecallPath says how Recall found an event: from which mark, how far it
// read, and why it read the log from its start when it did.
type RecallPath = foldcache.RecallPath

// Recall returns the event at seq of any session, retired ones included.
// It seeks to the nearest seq mark (package foldcache) and reads forward;
// without a usable index it reads the log from its start.
// It is not cancelled (RecallWithPath takes a context).
func (s *Service) Recall(id string, seq int64) (*session.Event, error) {
	ev, _, err := s.RecallWithPath(context.Background(), id, seq)
	return ev, err
}

// RecallWithPath is Recall, also saying how the event was found. ctx is
// checked before the read and, on a read of the whole log, as it goes.
func (s *Service) RecallWithPath(ctx context.Context, id string, seq int64) (*session.Event, RecallPath, error) {
	return s.folds().Recall(ctx, id, seq)
}
