package catalog

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/graft-project/graft/internal/testfixtures"
)

// An owed export decides where graft writes outside its home: the host's
// folder and the working directory of a new host session. The logs do not
// hold it, so nothing rebuilds it, and a byte of it changed that still
// reads (a folder one letter off) would write the host's file where the
// person never asked. Every byte of a stored value changed: it reads as
// written, or OwedExports refuses it (ErrCorruptValue); never as another.
func TestADamagedOwedExportIsRefused(t *testing.T) {
	db := open(t, newHome(t))
	defer closeDB(t, db)
	o := &Owed{Target: "s.g2", Txn: "txn-1", Source: "s", Host: "claude-code", Cwd: "/work/app", Root: "/home/p/.claude",
		HostSession: "0b1c2d3e-4f50-4a61-8b72-93a4b5c6d7e8", Recorded: time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)}
	if err := db.RecordCommitOwed(Node{Session: "s.g2", Parent: "s", Generation: 2, Txn: "txn-1"}, "", "txn-1", o); err != nil {
		t.Fatal(err)
	}
	want, err := db.OwedExports()
	if err != nil || len(want) != 1 || want[0].Root != o.Root || want[0].Sum != "" {
		t.Fatalf("OwedExports = %+v, %v", want, err)
	}
	raw := storedValue(t, db, bucketOwed, o.Target)
	put := func(v []byte) { putValue(t, db, bucketOwed, o.Target, v) }
	testfixtures.EveryByteChanged(t, raw, []byte{0x01}, want, func(b []byte) ([]Owed, error) {
		put(b)
		return db.OwedExports()
	}, func(err error) bool { return errors.Is(err, ErrCorruptValue) })
	// A value written before the checksum reads as it did.
	put([]byte(`{"target":"s.g2","txn":"txn-1","source":"s","host":"claude-code","cwd":"/work/app","root":"/home/p/.claude","hostSession":"0b1c2d3e-4f50-4a61-8b72-93a4b5c6d7e8","recorded":"2026-12-05T12:00:00Z"}`))
	if got, err := db.OwedExports(); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("a value without a checksum: %+v, %v", got, err)
	}
}
