package graft

import (
	"errors"
	"fmt"
	"testing"

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
