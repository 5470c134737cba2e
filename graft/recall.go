package graft

import (
	"context"
	"errors"

	"github.com/graft-project/graft/session"
)

// errFound stops a scan once the event is found.
var errFound = errors.New("found")

// ErrNoSuchSeq: the session has no event with that seq.
var ErrNoSuchSeq = errors.New("graft: no such seq")

// Recall returns the event at seq of any session, retired ones included.
// It seeks to the nearest seq mark (see seqindex.go) and reads forward;
// without a usable index it reads the log from its start.
// It is not cancelled (RecallWithPath takes a context).
func (s *Service) Recall(id string, seq int64) (*session.Event, error) {
	ev, _, err := s.RecallWithPath(context.Background(), id, seq)
	return ev, err
}
