package catalog

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/graft-project/graft/session"
)

// Leftover is a target a crashed or rolled-back graft of Source left
// behind; the next review of Source names it.
type Leftover struct {
	Source   string    `json:"source"`
	Target   string    `json:"target"`
	Txn      string    `json:"txn"`
	State    string    `json:"state"`  // the journal state the transaction reached
	Reason   string    `json:"reason"` // why it was rolled back
	Recorded time.Time `json:"recorded"`
	// Sum is the value's checksum as stored (doc.go, Checksums).
	Sum string `json:"sum,omitempty"`
}

func (l *Leftover) sumField() *string { return &l.Sum }

// leftoverKey is "<source>/<txn>": session ids cannot hold '/', so the
// prefix "<source>/" selects exactly one source's leftovers.
func leftoverKey(source, txn string) string { return source + "/" + txn }

func (l Leftover) validate() error {
	for _, f := range []struct{ name, id string }{{"source", l.Source}, {"target", l.Target}, {"txn", l.Txn}} {
		if err := session.ValidID(f.id); err != nil {
			return fmt.Errorf("%w: leftover %s: %w", ErrInvalid, f.name, err)
		}
	}
	return nil
}

// AddLeftover records l once per (source, txn): a second call for the same
// pair keeps the first record, so recovery can run it again safely.
func (db *DB) AddLeftover(l Leftover) error {
	if err := l.validate(); err != nil {
		return err
	}
	key := leftoverKey(l.Source, l.Txn)
	return db.update("adding leftover "+key, func(tx Tx) error {
		if v, err := tx.Get(bucketLeftovers, key); err != nil || v != nil {
			return err
		}
		return putJSON(tx, bucketLeftovers, key, &l)
	})
}

// Leftovers returns the leftovers of source, sorted by txn id.
func (db *DB) Leftovers(source string) ([]Leftover, error) {
	if err := session.ValidID(source); err != nil {
		return nil, fmt.Errorf("%w: leftovers of: %w", ErrInvalid, err)
	}
	return db.leftovers(source + "/")
}

// AllLeftovers returns every leftover, sorted by source then txn id.
func (db *DB) AllLeftovers() ([]Leftover, error) {
	out, err := db.leftovers("")
	// Key order is not source order: '.' and '-' sort before '/'.
	slices.SortFunc(out, func(a, b Leftover) int {
		return cmp.Or(cmp.Compare(a.Source, b.Source), cmp.Compare(a.Txn, b.Txn))
	})
	return out, err
}

func (db *DB) leftovers(prefix string) ([]Leftover, error) {
	var out []Leftover
	err := db.view("listing leftovers", func(tx Tx) error {
		return db.each(tx, bucketLeftovers, prefix, func() any { return new(Leftover) }, func(_ string, v any) error {
			out = append(out, *v.(*Leftover))
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
