package catalog

import (
	"fmt"

	"github.com/graft-project/graft/session"
)

// PutPrepared stores (or replaces) a prepared review's record. A stored
// tape stays while the review keeps its Seal and goes when it has none.
func (db *DB) PutPrepared(p Prepared) error {
	if err := p.validate(); err != nil {
		return err
	}
	return db.update("putting prepared "+p.ID, func(tx Tx) error {
		if err := db.putExpiry(tx, p); err != nil {
			return err
		}
		if err := putJSON(tx, bucketPrepared, p.ID, p); err != nil {
			return err
		}
		if p.Seal == nil {
			return tx.Delete(bucketPreparedTape, p.ID)
		}
		return nil
	})
}

// MarkPreparedUsed is markUsed in a transaction of its own: what the
// lineage record does with its node (lineage.go), for the tests of the
// rule alone.
func (db *DB) MarkPreparedUsed(id, txn string) error {
	if err := session.ValidID(txn); err != nil {
		return fmt.Errorf("%w: marking prepared %s used: txn: %w", ErrInvalid, id, err)
	}
	return db.update("marking prepared "+id+" used", func(tx Tx) error { return db.markUsed(tx, id, txn) })
}
