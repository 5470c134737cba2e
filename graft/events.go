package graft

import "github.com/graft-project/graft/session"

// Events calls fn with every event of session id whose seq is from or
// after from and, when to > 0, not after to, in the order of the log, with
// its raw line (graft show). It reads the whole log; a torn last line is
// skipped and reported in the result's Torn (the next append repairs it).
func (s *Service) Events(id string, from, to int64, fn func(ev *session.Event, raw []byte) error) (session.ScanResult, error) {
	return s.store.Scan(id, session.ScanFrom{}, func(ev *session.Event, raw []byte, _ int64) error {
		if ev.Seq < from || (to > 0 && ev.Seq > to) {
			return nil
		}
		return fn(ev, raw)
	})
}

// LastEvent is the newest event of session id whose log line holds one of
// needles and that keep accepts (nil for none), reading only what was
// appended since the last look of the same query (key) after the first
// (session.Store's LastMatch): a hook's look on every prompt for an event
// that rarely comes. memoErr is a failed write of the memo that bounds
// the next look's read, beside the answer.
func (s *Service) LastEvent(id, key string, needles [][]byte, keep func(ev *session.Event) bool) (ev *session.Event, memoErr, err error) {
	return s.store.LastMatch(id, key, needles, keep)
}
