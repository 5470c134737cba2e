package graft

import (
	"errors"
	"fmt"
	"testing"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/lockfile"
	"github.com/graft-project/graft/txn"
)

// Issue 24, item 12: an import that finds the session's lock held (a
// commit, a hook, another writer) fails with lockfile.ErrLocked (importer's
// TestLockWait…); it answers locked, 17, as every command blocked by a lock
// does, not a bare error 1.
func TestALockHeldIsLocked(t *testing.T) {
	err := fmt.Errorf("importer: appending to s: %w", fmt.Errorf("session: s: %w", lockfile.ErrLocked))
	if code, exit := CodeOf(err); code != "locked" || exit != 17 {
		t.Fatalf("CodeOf(%v) = %q %d, want locked 17", err, code, exit)
	}
	for _, err := range []error{
		fmt.Errorf("graft: %w: s", txn.ErrLocked),
		fmt.Errorf("%w: s (lock held)", importer.ErrBusy), // the import lock is its own answer
	} {
		want, wantExit := Code("locked"), 17
		if errors.Is(err, importer.ErrBusy) {
			want, wantExit = "import_busy", 40
		}
		if code, exit := CodeOf(err); code != want || exit != wantExit {
			t.Fatalf("CodeOf(%v) = %q %d, want %s %d", err, code, exit, want, wantExit)
		}
	}
}

// A catalog value that does not decode or does not hold its checksum (an
// owed export one letter off) is damage the same rebuild mends: it
// answers catalog_damaged, 51, with the file's own damage, not a bare
// error 1.
func TestACorruptCatalogValueIsCatalogDamaged(t *testing.T) {
	for _, err := range []error{
		fmt.Errorf("graft: listing owed exports: %w", &catalog.CorruptValueError{Path: "catalog.db", Bucket: "owed", Key: "s.g2", Err: errors.New("its checksum does not match")}),
		fmt.Errorf("graft: opening: %w", catalog.ErrCorrupt),
	} {
		if code, exit := CodeOf(err); code != "catalog_damaged" || exit != 51 {
			t.Errorf("CodeOf(%v) = %q %d, want catalog_damaged 51", err, code, exit)
		}
	}
}
