package catalog

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/graft-project/graft/session"
)

// Node is one session in the lineage: gen 1 → gen 2 → ….
type Node struct {
	Session string `json:"session"`
	Parent  string `json:"parent,omitempty"`
	// Children are sorted, without duplicates; reverted grafts stay listed.
	Children   []string  `json:"children,omitempty"`
	Generation int       `json:"generation"`
	Boundary   int64     `json:"boundary,omitempty"` // the parent's boundary seq
	Txn        string    `json:"txn,omitempty"`      // the graft that created this session
	TapeHash   string    `json:"tapeHash,omitempty"`
	Committed  time.Time `json:"committed"`
	Reverted   bool      `json:"reverted,omitempty"`
	// Sum is the value's checksum as stored (doc.go, Checksums): set by
	// putJSON, checked and cleared when read.
	Sum string `json:"sum,omitempty"`
}

func (n *Node) sumField() *string { return &n.Sum }

func (n Node) validate() error {
	if err := session.ValidID(n.Session); err != nil {
		return fmt.Errorf("%w: lineage node: %w", ErrInvalid, err)
	}
	if n.Generation < 1 {
		return fmt.Errorf("%w: lineage node %s: generation %d, want >= 1", ErrInvalid, n.Session, n.Generation)
	}
	if n.Parent != "" {
		if err := session.ValidID(n.Parent); err != nil {
			return fmt.Errorf("%w: lineage node %s: parent: %w", ErrInvalid, n.Session, err)
		}
		if n.Parent == n.Session {
			return fmt.Errorf("%w: lineage node %s is its own parent", ErrInvalid, n.Session)
		}
		if n.Generation < 2 {
			return fmt.Errorf("%w: lineage node %s has parent %s but generation %d, want >= 2", ErrInvalid, n.Session, n.Parent, n.Generation)
		}
	}
	for _, c := range n.Children {
		if err := session.ValidID(c); err != nil {
			return fmt.Errorf("%w: lineage node %s: child: %w", ErrInvalid, n.Session, err)
		}
	}
	if n.Txn != "" {
		if err := session.ValidID(n.Txn); err != nil {
			return fmt.Errorf("%w: lineage node %s: txn: %w", ErrInvalid, n.Session, err)
		}
	}
	return nil
}

// mergeChildren is the sorted union without duplicates.
func mergeChildren(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

// PutNode upserts n. Children already stored are kept (merged with
// n.Children): they are added by the children's own PutNode. n.Session is
// added to its parent's Children, and a missing parent gets a node of
// generation n.Generation-1.
func (db *DB) PutNode(n Node) error {
	if err := n.validate(); err != nil {
		return err
	}
	return db.update("putting lineage node "+n.Session, func(tx Tx) error { return db.putNode(tx, n) })
}

// RecordCommit is what a committed graft writes, in one write transaction
// (one pair of fdatasyncs, not two): n's lineage as PutNode does, and, when
// preparedID is set, the review marked used by txn (markUsed).
// A review that is gone (purged) is not an error: the lineage is the point.
func (db *DB) RecordCommit(n Node, preparedID, txn string) error {
	if err := n.validate(); err != nil {
		return err
	}
	if err := session.ValidID(txn); err != nil {
		return fmt.Errorf("%w: recording commit of %s: txn: %w", ErrInvalid, n.Session, err)
	}
	return db.update("recording the commit of "+n.Session, func(tx Tx) error { return db.recordCommit(tx, n, preparedID, txn) })
}

func (db *DB) recordCommit(tx Tx, n Node, preparedID, txn string) error {
	if err := db.putNode(tx, n); err != nil {
		return err
	}
	if preparedID == "" {
		return nil
	}
	err := db.markUsed(tx, preparedID, txn)
	if errors.Is(err, ErrUnknownPrepared) {
		return nil
	}
	return err
}

func (db *DB) putNode(tx Tx, n Node) error {
	var old Node
	if _, err := db.getJSON(tx, bucketLineage, n.Session, &old); err != nil {
		return err
	}
	n.Children = mergeChildren(old.Children, n.Children)
	if err := putJSON(tx, bucketLineage, n.Session, &n); err != nil {
		return err
	}
	if n.Parent == "" {
		return nil
	}
	var parent Node
	ok, err := db.getJSON(tx, bucketLineage, n.Parent, &parent)
	if err != nil {
		return err
	}
	if !ok {
		parent = Node{Session: n.Parent, Generation: n.Generation - 1}
	}
	parent.Children = mergeChildren(parent.Children, []string{n.Session})
	return putJSON(tx, bucketLineage, n.Parent, &parent)
}

// GetNode returns the node of session id, and whether there is one.
func (db *DB) GetNode(id string) (Node, bool, error) {
	var n Node
	var ok bool
	err := db.view("reading lineage node "+id, func(tx Tx) error {
		var err error
		ok, err = db.getJSON(tx, bucketLineage, id, &n)
		return err
	})
	if err != nil || !ok {
		return Node{}, false, err
	}
	return n, true, nil
}

// Nodes returns every lineage node, sorted by session id.
func (db *DB) Nodes() ([]Node, error) {
	var out []Node
	err := db.view("listing lineage", func(tx Tx) error {
		return db.each(tx, bucketLineage, "", func() any { return new(Node) }, func(_ string, v any) error {
			out = append(out, *v.(*Node))
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
