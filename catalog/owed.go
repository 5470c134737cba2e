package catalog

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/graft-project/graft/session"
)

// Owed is the export a committed handoff owes its host: graft target
// Target, committed by Txn, is to be written as a host session of Host in
// working directory Cwd, under the host's folder Root (doc.go, bucket
// owed). It is recorded with the commit's lineage and deleted once the
// export is bound (DeleteOwed).
type Owed struct {
	Target      string    `json:"target"`
	Txn         string    `json:"txn"`
	Source      string    `json:"source"`
	Host        string    `json:"host"`
	Cwd         string    `json:"cwd"`
	Root        string    `json:"root"`
	HostSession string    `json:"hostSession"`
	Recorded    time.Time `json:"recorded"`
	// Sum is the checksum of the value as stored (doc.go, Checksums): set
	// when it is recorded, checked and cleared when it is read.
	Sum string `json:"sum,omitempty"`
}

func (o *Owed) sumField() *string { return &o.Sum }

func (o Owed) validate() error {
	for _, f := range []struct{ name, id string }{{"target", o.Target}, {"txn", o.Txn}, {"source", o.Source}} {
		if err := session.ValidID(f.id); err != nil {
			return fmt.Errorf("%w: owed export %s: %w", ErrInvalid, f.name, err)
		}
	}
	if o.Host == "" || o.HostSession == "" || !filepath.IsAbs(o.Cwd) || !filepath.IsAbs(o.Root) {
		return fmt.Errorf("%w: owed export of %s: host %q, host session %q, cwd %q and root %q (absolute) are required", ErrInvalid, o.Target, o.Host, o.HostSession, o.Cwd, o.Root)
	}
	return nil
}

// RecordCommitOwed is RecordCommit that also records, in the same write
// transaction, the export the commit owes its host (nil: none). Recording
// it again (recovery rolling forward after the commit did) keeps the first.
func (db *DB) RecordCommitOwed(n Node, preparedID, txn string, owed *Owed) error {
	if owed == nil {
		return db.RecordCommit(n, preparedID, txn)
	}
	if err := owed.validate(); err != nil {
		return err
	}
	if owed.Target != n.Session || owed.Txn != txn {
		return fmt.Errorf("%w: owed export of %s (txn %s) recorded with the commit of %s (txn %s)", ErrInvalid, owed.Target, owed.Txn, n.Session, txn)
	}
	if err := n.validate(); err != nil {
		return err
	}
	return db.update("recording the commit of "+n.Session, func(tx Tx) error {
		if err := db.recordCommit(tx, n, preparedID, txn); err != nil {
			return err
		}
		if v, err := tx.Get(bucketOwed, owed.Target); err != nil || v != nil {
			return err
		}
		v := *owed
		return putJSON(tx, bucketOwed, owed.Target, &v)
	})
}

// OwedExports returns every owed export, by target.
func (db *DB) OwedExports() ([]Owed, error) {
	var out []Owed
	err := db.view("listing owed exports", func(tx Tx) error {
		return db.each(tx, bucketOwed, "", func() any { return new(Owed) }, func(key string, v any) error {
			out = append(out, *v.(*Owed))
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DeleteOwed forgets the export target owes for txn: it was bound, or there
// is nothing to owe any more. Another txn's record of target is kept.
func (db *DB) DeleteOwed(target, txn string) error {
	return db.update("deleting the owed export of "+target, func(tx Tx) error {
		var o Owed
		ok, err := db.getJSON(tx, bucketOwed, target, &o)
		if err != nil || !ok || o.Txn != txn {
			return err
		}
		return tx.Delete(bucketOwed, target)
	})
}
