package graft

import (
	"context"
	"fmt"
	"strings"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/internal/nonnil"
	"github.com/graft-project/graft/journal"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/tape"
	"github.com/graft-project/graft/txn"
)

// CommitResult is a committed graft.
type CommitResult struct {
	TargetID    string   `json:"targetId"`
	TxnID       string   `json:"txnId"`
	Source      string   `json:"source"`
	TapeHash    string   `json:"tapeHash"`
	TapeChars   int      `json:"tapeChars"`
	TapeEvents  int      `json:"tapeEvents"`
	Generation  int      `json:"generation"`
	BoundarySeq int64    `json:"boundarySeq"`
	Notes       []string `json:"notes"`
	// DriftCheck says how the commit checked the review against the source:
	// DriftSealed or DriftRebuilt.
	DriftCheck string `json:"driftCheck"`
}

// TargetIsSourceError: commit was asked to write a review's tape into its
// own source. It matches txn.ErrTargetExists (the id is taken); the CLI
// reports it as a usage error.
type TargetIsSourceError struct {
	Target     string
	PreparedID string
	// Default is the target commit picks without one ("" if none is free).
	Default string
}

func (e *TargetIsSourceError) Error() string {
	return fmt.Sprintf("graft: target %s is the source of review %s: a graft writes a new session; %s", e.Target, e.PreparedID, e.next("the target"))
}

// next says what to do instead, naming the flag or parameter as what.
func (e *TargetIsSourceError) next(what string) string {
	if e.Default == "" {
		return "name a new id as " + what
	}
	return fmt.Sprintf("leave %s out for %s, or name a new id", what, e.Default)
}

// Usage is the error as a command line says it, what being the flag
// (--target).
func (e *TargetIsSourceError) Usage(what string) string {
	return fmt.Sprintf("%s %s is the source of review %s: a graft writes a new session; %s", what, e.Target, e.PreparedID, e.next(what))
}

func (e *TargetIsSourceError) Unwrap() error { return txn.ErrTargetExists }

// Commit writes the reviewed tape into a new target session as a journaled
// transaction and retires the source. tapeHash must be the review's. target
// "" picks <source>.g<N>. Drift: a moved boundary or a changed prefix is
// refused; growth of the open turn alone is committed with a note.
//
// It loads the review, then runs txn.Commit, whose build (under the
// source's lock) checks the review's seal and writes the sealed tape when
// the source is still the bytes it was built from, else rebuilds the tape
// and checks it for drift (sealed.go).
//
// ctx is checked before the review is loaded and before the transaction
// starts, never after: a commit whose journal record is written runs to its
// end or its own failure (recovery resolves what a crash leaves).
func (s *Service) Commit(ctx context.Context, preparedID, tapeHash, target string) (*CommitResult, error) {
	return s.commit(ctx, preparedID, tapeHash, target, nil)
}

// commit is Commit; owe, for a handoff, is the host session the target is
// owed to (txn.Request.Owe).
func (s *Service) commit(ctx context.Context, preparedID, tapeHash, target string, owe *journal.Owe) (*CommitResult, error) {
	if err := cancelled(ctx, "commit of "+preparedID); err != nil {
		return nil, err
	}
	p, target, err := s.loadReview(preparedID, tapeHash, target)
	if err != nil {
		return nil, err
	}
	if err := cancelled(ctx, "commit of "+preparedID); err != nil {
		return nil, err
	}
	b := &commitBuild{s: s, p: p}
	res, err := txn.Commit(s.env(), txn.Request{PreparedID: preparedID, Source: p.Source, Target: target, Build: b.build, Owe: owe})
	if err != nil {
		return nil, err
	}
	return &CommitResult{
		TargetID: res.Target, TxnID: res.Txn, Source: res.Source, TapeHash: res.TapeHash,
		TapeChars: res.TapeChars, TapeEvents: res.TapeEvents, Generation: res.Generation,
		BoundarySeq: res.BoundarySeq, Notes: nonnil.Slice(res.Notes), DriftCheck: b.driftCheck,
	}, nil
}

// loadReview reads review preparedID for a commit with tapeHash into
// target, and names the target when target is "": a review that is
// unknown, expired, used, prepared by an older graft or approved with
// another hash, or a target that is invalid or the source, is refused.
func (s *Service) loadReview(preparedID, tapeHash, target string) (catalog.Prepared, string, error) {
	var p catalog.Prepared
	err := s.cat().With(func(db *catalog.DB) error {
		var err error
		p, err = db.GetPrepared(preparedID, s.Now())
		return err
	})
	if err != nil {
		return p, "", err
	}
	if !strings.HasPrefix(p.PrefixHash, tape.PrefixHashPrefix) {
		// The source may be unchanged: the prefix hash's definition is.
		return p, "", fmt.Errorf("%w: review %s was prepared by an older graft (its prefix hash is %s, this build computes %s); prepare again",
			catalog.ErrExpiredPrepared, preparedID, hashVersion(p.PrefixHash), strings.TrimSuffix(tape.PrefixHashPrefix, ":"))
	}
	if tapeHash != p.TapeHash {
		return p, "", fmt.Errorf("%w: --hash %q is not the tapeHash %q of review %s; commit with the hash the review showed", ErrHashMismatch, tapeHash, p.TapeHash, preparedID)
	}
	if target == "" {
		if target, err = s.DefaultTarget(p.Source, p.Generation+1); err != nil {
			return p, "", err
		}
	}
	if err := session.ValidID(target); err != nil {
		return p, "", err
	}
	if target == p.Source {
		// The source cannot be its own target: the transaction would wait
		// on the source's lock it already holds as the target's.
		e := &TargetIsSourceError{Target: target, PreparedID: preparedID}
		e.Default, _ = s.DefaultTarget(p.Source, p.Generation+1)
		return p, "", e
	}
	return p, target, nil
}

// How a commit checked that nothing the review depended on drifted
// (CommitResult.DriftCheck).
const (
	// DriftSealed: the source was the file, size and last 4 KiB the review
	// read (its Seal), and the leftovers were the review's: the review's
	// tape was written as it was built. This trusts what a scan index
	// trusts (index.TailCheck).
	DriftSealed = "sealed"
	// DriftRebuilt: the source was folded again (from its scan index) and
	// the tape rebuilt and compared with the review.
	DriftRebuilt = "rebuilt"
)

// Revert undoes a live graft (see txn.Revert).
func (s *Service) Revert(target string, force bool) (*txn.RevertResult, error) {
	if err := session.ValidID(target); err != nil {
		return nil, err
	}
	return txn.Revert(s.env(), target, force)
}

// hashVersion is the version part of a versioned hash ("graft-prefix-v1"
// of "graft-prefix-v1:ab…").
func hashVersion(h string) string {
	v, _, _ := strings.Cut(h, ":")
	return v
}
