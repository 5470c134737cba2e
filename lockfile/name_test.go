package lockfile_test

import (
	"strings"
	"testing"

	"github.com/graft-project/graft/lockfile"
	"github.com/graft-project/graft/session"
)

// TestNameRuleIsTheSessionIDRule: lockfile repeats session.ValidID's rule
// (session takes these locks, so lockfile cannot import it); the two must
// agree on every name.
func TestNameRuleIsTheSessionIDRule(t *testing.T) {
	names := []string{"", "a", "A", "0", "s.g2", "s-2_x.y", ".hidden", "-a", "_a", "..", "a/b", "a\\b", "a b", "a\x00b",
		"a\nb", "é", "s.g2.agent-x", strings.Repeat("x", 128), strings.Repeat("x", 129), "txn-20260101T000000.000Z-ABCDEFGHIJ"}
	for _, n := range names {
		if got, want := lockfile.ValidName(n) == nil, session.ValidID(n) == nil; got != want {
			t.Errorf("%q: lockfile.ValidName accepts=%t, session.ValidID accepts=%t", n, got, want)
		}
	}
}
