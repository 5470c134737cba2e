package graft_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/graft"
)

// FuzzADamagedScanIndexNeverChangesTheTape changes one byte of the scan
// index prepare stored (index/doc.go: Checksums): the next prepare passes
// it over, says so, and builds the tape the log gives, never one of a
// damaged snapshot (before the checksum, one flipped byte changed a hard
// constraint's words). make fuzz runs it at length; make test its seeds.
func FuzzADamagedScanIndexNeverChangesTheTape(f *testing.F) {
	f.Add(uint32(200), byte('7'))
	f.Add(uint32(900), byte('x'))
	f.Fuzz(func(t *testing.T, pos uint32, val byte) {
		h := openFlowHome(t, graft.Options{})
		h.create("s", workSession()...)
		want := h.prepare("s", graft.PrepareOptions{})
		b, err := bolt.Open(filepath.Join(h.home, catalog.FileName), 0o600, &bolt.Options{Timeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		changed := false
		err = b.Update(func(tx *bolt.Tx) error {
			bk := tx.Bucket([]byte("scanindex"))
			v := bytes.Clone(bk.Get([]byte("s")))
			if len(v) == 0 {
				return errors.New("no scan index stored")
			}
			k := int(pos) % len(v)
			changed = v[k] != val
			v[k] = val
			return bk.Put([]byte("s"), v)
		})
		if err := errors.Join(err, b.Close()); err != nil {
			t.Fatal(err)
		}
		got := h.prepare("s", graft.PrepareOptions{})
		if got.TapeHash != want.TapeHash {
			t.Fatalf("a scan index damaged at one byte (changed %v) gave another tape:\n%s\nwant\n%s", changed, got.Tape, want.Tape)
		}
		if w := strings.Join(got.Warnings, "\n"); changed != strings.Contains(w, "scan index of s was not used") {
			t.Fatalf("a scan index with a byte changed (%v): warnings %q; want it passed over, and said, exactly when it changed", changed, got.Warnings)
		}
	})
}
