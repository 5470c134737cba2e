package graft

import (
	"errors"
	"fmt"

	"github.com/graft-project/graft/session"
)

// errFound stops a scan once the event is found.
var errFound = errors.New("found")

// ErrNoSuchSeq: the session has no event with that seq.
var ErrNoSuchSeq = errors.New("graft: no such seq")

// Recall returns the event at seq of any session, retired ones included.
func (s *Service) Recall(id string, seq int64) (*session.Event, error) {
	if err := session.ValidID(id); err != nil {
		return nil, err
	}
	if seq < 1 {
		return nil, fmt.Errorf("%w: seq %d (seqs start at 1)", ErrNoSuchSeq, seq)
	}
	var found *session.Event
	res, err := s.store.Scan(id, session.ScanFrom{}, func(ev *session.Event, _ []byte, _ int64) error {
		if ev.Seq == seq {
			e := *ev
			found = &e
			return errFound
		}
		return nil
	})
	if found != nil {
		return found, nil
	}
	if err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("%w: %s has seqs 1..%d, not %d", ErrNoSuchSeq, id, res.LastSeq, seq)
}
