package graft

import (
	"fmt"
	"testing"

	"github.com/graft-project/graft/lockfile"
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
}
