package graft

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/graft-project/graft/catalog"
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
func (s *Service) Commit(preparedID, tapeHash, target string) (*CommitResult, error) {
	var p catalog.Prepared
	err := catalog.With(s.Home, s.CatalogTimeout, func(db *catalog.DB) error {
		var err error
		p, err = db.GetPrepared(preparedID, s.Now())
		return err
	})
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(p.PrefixHash, tape.PrefixHashPrefix) {
		// The source may be unchanged: the prefix hash's definition is.
		return nil, fmt.Errorf("%w: review %s was prepared by an older graft (its prefix hash is %s, this build computes %s); prepare again",
			catalog.ErrExpiredPrepared, preparedID, hashVersion(p.PrefixHash), strings.TrimSuffix(tape.PrefixHashPrefix, ":"))
	}
	if tapeHash != p.TapeHash {
		return nil, fmt.Errorf("%w: --hash %q is not the tapeHash %q of review %s; commit with the hash the review showed", ErrHashMismatch, tapeHash, p.TapeHash, preparedID)
	}
	if target == "" {
		if target, err = s.DefaultTarget(p.Source, p.Generation+1); err != nil {
			return nil, err
		}
	}
	if err := session.ValidID(target); err != nil {
		return nil, err
	}
	if target == p.Source {
		// The source cannot be its own target: the transaction would wait
		// on the source's lock it already holds as the target's.
		e := &TargetIsSourceError{Target: target, PreparedID: preparedID}
		e.Default, _ = s.DefaultTarget(p.Source, p.Generation+1)
		return nil, e
	}
	opts := tape.Options{Tier: p.Tier, RecentTurns: p.RecentTurns, AutoTier: p.AutoTier, Budget: p.Budget}
	var driftCheck string
	res, err := txn.Commit(s.Env(), txn.Request{
		PreparedID: preparedID, Source: p.Source, Target: target,
		Build: func() (*txn.Built, error) {
			// Check the review again under the source lock: a commit that
			// finished since our first look has marked it used.
			var lo []tape.Leftover
			var sealedTape []byte
			err := catalog.With(s.Home, s.CatalogTimeout, func(db *catalog.DB) error {
				if _, err := db.GetPrepared(preparedID, s.Now()); err != nil {
					return err
				}
				var err error
				if lo, err = leftoversIn(db, p.Source); err != nil {
					return err
				}
				if p.Seal != nil {
					sealedTape, _, err = db.PreparedTape(preparedID)
				}
				return err
			})
			if err != nil {
				return nil, err
			}
			if sealedTape != nil {
				bt, ok, err := s.sealedBuild(p, sealedTape, lo)
				if err != nil {
					return nil, err
				}
				if ok {
					if err := s.checkSource(bt.info, p.AllowReslice); err != nil {
						return nil, err
					}
					driftCheck = DriftSealed
					return &txn.Built{Tape: bt.tape, SourceScan: bt.info.ScanResult}, nil
				}
			}
			driftCheck = DriftRebuilt
			bt, err := s.build(p.Source, opts, lo)
			if err != nil {
				return nil, err
			}
			if err := s.checkSource(bt.info, p.AllowReslice); err != nil {
				return nil, err
			}
			t := bt.tape
			if t.BoundarySeq != p.BoundarySeq || t.PrefixHash != p.PrefixHash {
				return nil, &txn.DriftError{Source: p.Source, PreparedBoundary: p.BoundarySeq, Boundary: t.BoundarySeq, PrefixChanged: t.PrefixHash != p.PrefixHash}
			}
			var notes []string
			if bt.notSaved != "" {
				// The commit does not need them; the next fold of the
				// source reads its whole log.
				notes = append(notes, fmt.Sprintf("the indexes of %s were not stored (%s): the next prepare reads the whole log again", p.Source, bt.notSaved))
			}
			if t.TapeHash != p.TapeHash {
				switch {
				case t.CarryoverChars != p.CarryoverChars:
					notes = append(notes, fmt.Sprintf("open-turn-carryover changed while the review was open (%d → %d chars); the committed tape is newer than the one you approved.", p.CarryoverChars, t.CarryoverChars))
				case t.LastSeq != p.LastSeq:
					notes = append(notes, fmt.Sprintf("the open turn grew while the review was open (last seq %d → %d; the carryover is unchanged at %d chars); the committed tape is newer than the one you approved.", p.LastSeq, t.LastSeq, t.CarryoverChars))
				default:
					notes = append(notes, fmt.Sprintf("the tape changed while the review was open (leftovers of crashed grafts, %d → %d chars); the committed tape is newer than the one you approved.", p.TapeChars, t.TapeChars))
				}
			}
			return &txn.Built{Tape: t, SourceScan: bt.info.ScanResult, Notes: notes}, nil
		},
	})
	if err != nil {
		return nil, err
	}
	return &CommitResult{
		TargetID: res.Target, TxnID: res.Txn, Source: res.Source, TapeHash: res.TapeHash,
		TapeChars: res.TapeChars, TapeEvents: res.TapeEvents, Generation: res.Generation,
		BoundarySeq: res.BoundarySeq, Notes: nonNil(res.Notes), DriftCheck: driftCheck,
	}, nil
}

// How a commit checked that nothing the review depended on drifted
// (CommitResult.DriftCheck).
const (
	// DriftSealed: the source was the file, size and last 4 KiB the review
	// read (its Seal), and the leftovers were the review's: the review's
	// tape was written as it was built. This trusts what a scan index
	// trusts (catalog.TailCheck).
	DriftSealed = "sealed"
	// DriftRebuilt: the source was folded again (from its scan index) and
	// the tape rebuilt and compared with the review.
	DriftRebuilt = "rebuilt"
)

// sealedBuild returns the review's own tape when the source is still the
// bytes the review was built from and the leftovers are the review's; ok
// is false when anything differs, and the caller rebuilds.
func (s *Service) sealedBuild(p catalog.Prepared, raw []byte, lo []tape.Leftover) (bt *built, ok bool, err error) {
	seal := p.Seal
	f, fi, err := s.openLog(p.Source)
	if err != nil {
		return nil, false, err
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			bt, ok, err = nil, false, fmt.Errorf("graft: closing %s: %w", f.Name(), cerr)
		}
	}()
	dev, ino, haveIdentity := catalog.FileIdentity(fi)
	if !haveIdentity || dev != seal.Dev || ino != seal.Ino || fi.Size() != seal.End {
		return nil, false, nil
	}
	check, err := catalog.TailCheck(f, seal.End)
	if err != nil {
		return nil, false, fmt.Errorf("graft: checking %s against review %s: %w", p.Source, p.ID, err)
	}
	if check != seal.Check {
		return nil, false, nil
	}
	info, err := session.RestoreInfo(seal.Info)
	if err != nil || info.ID != p.Source || info.End != seal.End || info.LastSeq != seal.LastSeq {
		return nil, false, nil // a seal that does not hold together: rebuild
	}
	t, ok := decodeSealedTape(raw)
	if !ok {
		return nil, false, nil
	}
	if t.SourceID != p.Source || t.TapeHash != p.TapeHash || t.PrefixHash != p.PrefixHash || t.BoundarySeq != p.BoundarySeq || !sameLeftovers(t.Leftovers, lo) {
		return nil, false, nil
	}
	return &built{tape: t, info: info}, true, nil
}

// sameLeftovers compares the leftovers a tape was built with (sorted by
// target, then txn) with lo.
func sameLeftovers(built, lo []tape.Leftover) bool {
	if len(built) != len(lo) {
		return false
	}
	sorted := slices.Clone(lo)
	slices.SortFunc(sorted, func(a, b tape.Leftover) int {
		return cmp.Or(cmp.Compare(a.Target, b.Target), cmp.Compare(a.Txn, b.Txn))
	})
	return slices.Equal(built, sorted)
}

// Revert undoes a live graft (see txn.Revert).
func (s *Service) Revert(target string, force bool) (*txn.RevertResult, error) {
	if err := session.ValidID(target); err != nil {
		return nil, err
	}
	return txn.Revert(s.Env(), target, force)
}

// hashVersion is the version part of a versioned hash ("graft-prefix-v1"
// of "graft-prefix-v1:ab…").
func hashVersion(h string) string {
	v, _, _ := strings.Cut(h, ":")
	return v
}
