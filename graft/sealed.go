package graft

import (
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/index"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/tape"
	"github.com/graft-project/graft/txn"
)

// Sealed reviews. Prepare seals a review when the source bytes it read can
// be identified (a file identity, no torn last line): beside the review it
// keeps the seal (index.Seal: the log's dev and ino, its size, the tail
// check there, the state fold) and the tape it showed (the sealed tape,
// index.EncodeSealedTape). A commit whose source is still those bytes and
// whose leftovers are the review's writes that tape without folding the
// log again (DriftSealed); anything else folds and rebuilds the tape and
// compares it with the review (DriftRebuilt). The formats and the checks
// are the index package's (index/doc.go); this file decides.

// writtenDigest is what a commit writes of t, hashed: sha256 of the JSON
// of the tape's Events, NUL, the JSON of its Inherit, NUL, the JSON of its
// Relies (the graft/origin records both). It guards the sealed tape's
// round trip: a codec difference (gob does not tell nil from empty) sends
// the commit to the rebuild instead of into the target.
func writtenDigest(t *tape.Tape) ([32]byte, error) {
	evs, err := json.Marshal(t.Events)
	if err != nil {
		return [32]byte{}, err
	}
	inh, err := json.Marshal(t.Inherit)
	if err != nil {
		return [32]byte{}, err
	}
	rel, err := json.Marshal(t.Relies)
	if err != nil {
		return [32]byte{}, err
	}
	h := sha256.New()
	h.Write(evs)
	h.Write([]byte{0})
	h.Write(inh)
	h.Write([]byte{0})
	h.Write(rel)
	var d [32]byte
	h.Sum(d[:0])
	return d, nil
}

// encodeSealedTape is the sealed tape of t.
func encodeSealedTape(t *tape.Tape) ([]byte, error) {
	d, err := writtenDigest(t)
	if err != nil {
		return nil, fmt.Errorf("graft: hashing the tape: %w", err)
	}
	return index.EncodeSealedTape(t, d)
}

// decodeSealedTape returns the stored tape; ok is false when it does not
// decode or does not write what was built.
func decodeSealedTape(raw []byte) (*tape.Tape, bool) {
	t, digest, ok := index.DecodeSealedTape[tape.Tape](raw)
	if !ok {
		return nil, false
	}
	d, err := writtenDigest(t)
	if err != nil || d != digest {
		return nil, false
	}
	return t, true
}

// sealReview returns the seal and the sealed tape prepare stores with the
// review of bt; both nil when the source bytes could not be identified.
func sealReview(bt *built) (*index.Seal, []byte, error) {
	if bt.seal == nil {
		return nil, nil, nil
	}
	infoState, err := bt.info.Snapshot()
	if err != nil {
		return nil, nil, err
	}
	seal := *bt.seal
	seal.Info = infoState
	sealed, err := encodeSealedTape(bt.tape)
	if err != nil {
		return nil, nil, err
	}
	return &seal, sealed, nil
}

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
		bt, ok, err := c.s.sealedBuild(c.p, sealedTape, lo)
		if err != nil {
			return nil, err
		}
		if ok {
			if err := c.s.checkSource(bt.info, c.p.AllowReslice); err != nil {
				return nil, err
			}
			c.driftCheck = DriftSealed
			return &txn.Built{Tape: bt.tape, SourceScan: bt.info.ScanResult}, nil
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
	if err := s.checkSource(bt.info, p.AllowReslice); err != nil {
		return nil, err
	}
	t := bt.tape
	if t.BoundarySeq != p.BoundarySeq || t.PrefixHash != p.PrefixHash {
		return nil, &txn.DriftError{Source: p.Source, PreparedBoundary: p.BoundarySeq, Boundary: t.BoundarySeq, PrefixChanged: t.PrefixHash != p.PrefixHash}
	}
	var notes []string
	if bt.notSaved != "" {
		// The commit does not need them; the next fold of the source
		// reads its whole log.
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
}

// sealedBuild returns the review's own tape when the source is still the
// bytes the review was built from (index.Seal.Holds) and the leftovers
// are the review's; ok is false when anything differs, and the caller
// rebuilds.
func (s *Service) sealedBuild(p catalog.Prepared, raw []byte, lo []tape.Leftover) (bt *built, ok bool, err error) {
	seal := p.Seal
	f, fi, err := s.store.OpenLog(p.Source)
	if err != nil {
		return nil, false, err
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			bt, ok, err = nil, false, fmt.Errorf("graft: closing %s: %w", f.Name(), cerr)
		}
	}()
	holds, err := seal.Holds(f, fi)
	if err != nil {
		return nil, false, fmt.Errorf("graft: checking %s against review %s: %w", p.Source, p.ID, err)
	}
	if !holds {
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
