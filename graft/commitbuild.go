package graft

import (
	"fmt"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/tape"
	"github.com/graft-project/graft/txn"
)

// A commit's build. Prepare seals a review when the source bytes it read
// can be identified, keeping the tape it showed beside it (package
// foldcache, sealed.go): a commit whose source is still those bytes and
// whose leftovers are the review's writes that tape without folding the
// log again (DriftSealed); anything else folds and rebuilds the tape and
// compares it with the review (DriftRebuilt).

// commitBuild is the Build of a commit's transaction, run under the
// source's lock: the review checked again, then its seal (the stored tape,
// when the source is still the bytes it was built from), else a rebuild
// and the drift check.
type commitBuild struct {
	s *Service
	p catalog.Prepared
	// driftCheck is how the build checked the review: DriftSealed or
	// DriftRebuilt.
	driftCheck string
}

func (c *commitBuild) build() (*txn.Built, error) {
	lo, sealedTape, err := c.reviewAgain()
	if err != nil {
		return nil, err
	}
	if sealedTape != nil {
		bt, ok, err := c.s.folds().SealedBuild(c.p, sealedTape, lo)
		if err != nil {
			return nil, err
		}
		if ok {
			if err := c.s.checkSource(bt.Info, c.p.AllowReslice); err != nil {
				return nil, err
			}
			c.driftCheck = DriftSealed
			return &txn.Built{Tape: bt.Tape, SourceScan: bt.Info.ScanResult}, nil
		}
	}
	c.driftCheck = DriftRebuilt
	return c.rebuild(lo)
}

// reviewAgain checks the review again under the source lock (a commit that
// finished since the first look has marked it used) and reads the source's
// leftovers and, for a sealed review, its tape.
func (c *commitBuild) reviewAgain() (lo []tape.Leftover, sealedTape []byte, err error) {
	s, p := c.s, c.p
	err = s.cat().With(func(db *catalog.DB) error {
		if _, err := db.GetPrepared(p.ID, s.Now()); err != nil {
			return err
		}
		var err error
		if lo, err = leftoversIn(db, p.Source); err != nil {
			return err
		}
		if p.Seal != nil {
			sealedTape, _, err = db.PreparedTape(p.ID)
		}
		return err
	})
	return lo, sealedTape, err
}

// rebuild folds the source (from its scan index), builds the tape again
// and refuses drift: a moved boundary or a changed prefix. A tape that
// changed otherwise is committed with a note saying how.
func (c *commitBuild) rebuild(lo []tape.Leftover) (*txn.Built, error) {
	s, p := c.s, c.p
	opts := tape.Options{Tier: p.Tier, RecentTurns: p.RecentTurns, AutoTier: p.AutoTier, Budget: p.Budget}
	bt, err := s.build(p.Source, opts, lo)
	if err != nil {
		return nil, err
	}
	if err := s.checkSource(bt.Info, p.AllowReslice); err != nil {
		return nil, err
	}
	t := bt.Tape
	if t.BoundarySeq != p.BoundarySeq || t.PrefixHash != p.PrefixHash {
		return nil, &txn.DriftError{Source: p.Source, PreparedBoundary: p.BoundarySeq, Boundary: t.BoundarySeq, PrefixChanged: t.PrefixHash != p.PrefixHash}
	}
	var notes []string
	if bt.NotSaved != "" {
		// The commit does not need them; the next fold of the source
		// reads its whole log.
		notes = append(notes, fmt.Sprintf("the indexes of %s were not stored (%s): the next prepare reads the whole log again", p.Source, bt.NotSaved))
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
	return &txn.Built{Tape: t, SourceScan: bt.Info.ScanResult, Notes: notes}, nil
}
