package catalog

import (
	"fmt"

	"github.com/graft-project/graft/index"
	"github.com/graft-project/graft/session"
)

// The index values catalog.db keeps (the scan index here, a review's seal
// and sealed tape in prepared.go) are specified and framed by the index
// package (index/doc.go); the catalog stores them under their keys.

func validateScanIndex(ix index.ScanIndex) error {
	if err := session.ValidID(ix.Session); err != nil {
		return fmt.Errorf("%w: scan index: %w", ErrInvalid, err)
	}
	if ix.Offset < 0 || ix.Line < 0 || ix.NextSeq < 0 {
		return fmt.Errorf("%w: scan index of %s: offset %d, line %d, next seq %d; none may be negative", ErrInvalid, ix.Session, ix.Offset, ix.Line, ix.NextSeq)
	}
	if ix.Check == "" {
		return fmt.Errorf("%w: scan index of %s has no check: a rewritten file could not be told apart", ErrInvalid, ix.Session)
	}
	return nil
}

// PutScanIndex stores (replaces) the scan index of ix.Session, and drops
// the session's value in bucket seqindex, where builds before the index
// package kept its seq marks (now index/<id>.seq only; see doc.go).
func (db *DB) PutScanIndex(ix index.ScanIndex) error {
	if err := validateScanIndex(ix); err != nil {
		return err
	}
	value, err := ix.Encode()
	if err != nil {
		return fmt.Errorf("encoding %s/%s: %w", bucketScanIndex, ix.Session, err)
	}
	return db.update("putting scan index of "+ix.Session, func(tx Tx) error {
		if err := tx.Put(bucketScanIndex, ix.Session, value); err != nil {
			return err
		}
		return tx.Delete(bucketSeqIndex, ix.Session)
	})
}

// GetScanIndex returns the scan index of session id, and whether there is one
// (one of version 1 reads as none). The caller checks it against the file
// (index.ScanIndex.Fits).
func (db *DB) GetScanIndex(id string) (index.ScanIndex, bool, error) {
	var ix index.ScanIndex
	var ok bool
	err := db.view("reading scan index of "+id, func(tx Tx) error {
		raw, err := tx.Get(bucketScanIndex, id)
		if err != nil {
			return err
		}
		ix, ok, err = index.DecodeScanIndex(raw)
		if err != nil {
			return &CorruptValueError{Path: db.name, Bucket: bucketScanIndex, Key: id, Err: err}
		}
		return nil
	})
	if err != nil || !ok {
		return index.ScanIndex{}, false, err
	}
	return ix, true, nil
}
