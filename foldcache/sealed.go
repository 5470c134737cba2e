package foldcache

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
)

// Sealed reviews. Prepare seals a review when the source bytes it read can
// be identified (a file identity, no torn last line): beside the review it
// keeps the seal (index.Seal: the log's dev and ino, its size, the tail
// check there, the state fold) and the tape it showed (the sealed tape,
// index.EncodeSealedTape). A commit whose source is still those bytes and
// whose leftovers are the review's writes that tape without folding the
// log again (DriftSealed); anything else folds and rebuilds the tape and
// compares it with the review (DriftRebuilt: package graft's commit
// decides). The formats and the checks are the index package's
// (index/doc.go); this file decides whether a seal holds.

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

// Seal returns the seal and the sealed tape prepare stores with the
// review of bt; both nil when the source bytes could not be identified.
func (bt *Built) Seal() (*index.Seal, []byte, error) {
	if bt.seal == nil {
		return nil, nil, nil
	}
	infoState, err := bt.Info.Snapshot()
	if err != nil {
		return nil, nil, err
	}
	seal := *bt.seal
	seal.Info = infoState
	if err := seal.SetSum(); err != nil {
		return nil, nil, err
	}
	sealed, err := encodeSealedTape(bt.Tape)
	if err != nil {
		return nil, nil, err
	}
	return &seal, sealed, nil
}

// SealedBuild returns the review p's own tape, raw being its sealed tape,
// when the source is still the bytes the review was built from
// (index.Seal.Holds) and the leftovers are the review's; ok is false when
// anything differs, and the caller rebuilds.
func (c *Cache) SealedBuild(p catalog.Prepared, raw []byte, lo []tape.Leftover) (bt *Built, ok bool, err error) {
	seal := p.Seal
	if !seal.Intact() {
		return nil, false, nil // damaged, or sealed before seals had a checksum: rebuild
	}
	f, fi, err := c.Store.OpenLog(p.Source)
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
	return &Built{Tape: t, Info: info}, true, nil
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
