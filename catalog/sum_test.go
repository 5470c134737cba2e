package catalog

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/graft-project/graft/internal/testfixtures"
)

// storedValue is the raw value under bucket/key.
func storedValue(t *testing.T, db *DB, bucket, key string) []byte {
	t.Helper()
	var raw []byte
	if err := db.view("test", func(tx Tx) error {
		var err error
		raw, err = tx.Get(bucket, key)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(raw, []byte(`"sum":"sha256:`)) {
		t.Fatalf("no checksum in %s/%s: %s", bucket, key, raw)
	}
	return raw
}

// putValue stores v under bucket/key as it is.
func putValue(t *testing.T, db *DB, bucket, key string, v []byte) {
	t.Helper()
	if err := db.update("test", func(tx Tx) error { return tx.Put(bucket, key, v) }); err != nil {
		t.Fatal(err)
	}
}

// A lineage node is derived from the logs, but graft status, audit and the
// next review read it: one byte of it changed (a parent one letter off, a
// graft marked reverted) must not read as another node. It is refused as
// a corrupt value (graft recover --rebuild-catalog writes it again), and
// a node stored before the checksum reads as it did.
func TestADamagedLineageNodeIsRefused(t *testing.T) {
	db := open(t, newHome(t))
	defer closeDB(t, db)
	n := Node{Session: "s.g2", Parent: "s", Generation: 2, Boundary: 41, Txn: "txn-1", TapeHash: "sha256:ab", Committed: time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)}
	if err := db.PutNode(n); err != nil {
		t.Fatal(err)
	}
	want, ok, err := db.GetNode("s.g2")
	if err != nil || !ok || !reflect.DeepEqual(want, n) {
		t.Fatalf("GetNode = %+v, %v, %v; want %+v", want, ok, err, n)
	}
	raw := storedValue(t, db, bucketLineage, "s.g2")
	testfixtures.EveryByteChanged(t, raw, []byte{0x01, 0x20}, want, func(b []byte) (Node, error) {
		putValue(t, db, bucketLineage, "s.g2", b)
		got, _, err := db.GetNode("s.g2")
		return got, err
	}, func(err error) bool { return errors.Is(err, ErrCorruptValue) })
	testfixtures.EveryByteChanged(t, raw, []byte{0x01}, []Node{storedParent(t, db), want}, func(b []byte) ([]Node, error) {
		putValue(t, db, bucketLineage, "s.g2", b)
		return db.Nodes()
	}, func(err error) bool { return errors.Is(err, ErrCorruptValue) })
	putValue(t, db, bucketLineage, "s.g2", []byte(`{"session":"s.g2","parent":"s","generation":2,"boundary":41,"txn":"txn-1","tapeHash":"sha256:ab","committed":"2026-12-05T12:00:00Z"}`))
	if got, _, err := db.GetNode("s.g2"); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("a node without a checksum: %+v, %v", got, err)
	}
}

// storedParent is the parent node PutNode made for s.g2.
func storedParent(t *testing.T, db *DB) Node {
	t.Helper()
	p, ok, err := db.GetNode("s")
	if err != nil || !ok {
		t.Fatalf("GetNode(s) = %+v, %v, %v", p, ok, err)
	}
	return p
}

// A leftover names, in the next review of its source, a target a crashed
// graft left behind: one byte of it changed must not name another.
func TestADamagedLeftoverIsRefused(t *testing.T) {
	db := open(t, newHome(t))
	defer closeDB(t, db)
	l := Leftover{Source: "s", Target: "s.g2", Txn: "txn-1", State: "target-written", Reason: "crash before the commit point", Recorded: time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)}
	if err := db.AddLeftover(l); err != nil {
		t.Fatal(err)
	}
	want, err := db.Leftovers("s")
	if err != nil || len(want) != 1 || !reflect.DeepEqual(want[0], l) {
		t.Fatalf("Leftovers = %+v, %v; want %+v", want, err, l)
	}
	key := leftoverKey("s", "txn-1")
	raw := storedValue(t, db, bucketLeftovers, key)
	testfixtures.EveryByteChanged(t, raw, []byte{0x01, 0x20}, want, func(b []byte) ([]Leftover, error) {
		putValue(t, db, bucketLeftovers, key, b)
		return db.Leftovers("s")
	}, func(err error) bool { return errors.Is(err, ErrCorruptValue) })
	putValue(t, db, bucketLeftovers, key, []byte(`{"source":"s","target":"s.g2","txn":"txn-1","state":"target-written","reason":"crash before the commit point","recorded":"2026-12-05T12:00:00Z"}`))
	if got, err := db.Leftovers("s"); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("a leftover without a checksum: %+v, %v", got, err)
	}
}
