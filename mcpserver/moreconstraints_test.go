package mcpserver

import (
	"fmt"
	"strings"
	"testing"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/tape"
)

// A pasted text with more constraints than the tape keeps: graft_prepare
// lists the kept ones and counts the rest, with where they are, as the CLI
// review does.
func TestPrepareCountsTheConstraintsPastTheCap(t *testing.T) {
	f := newFixture(t, Options{}, graft.Options{})
	var b strings.Builder
	for i := 0; i < tape.MaxConstraints+25; i++ {
		fmt.Fprintf(&b, "Never touch file%d.go. ", i)
	}
	f.appendEvents("p", human("Rules:\n"+b.String()), assistant("Noted."), human("Now start."))
	rv := f.prepare(map[string]any{"source": "p"})
	if len(rv.Constraints) != tape.MaxConstraints {
		t.Fatalf("graft_prepare lists %d constraints, want %d", len(rv.Constraints), tape.MaxConstraints)
	}
	want := []MoreConstraints{{Session: "p", N: 25, From: 1, To: 1}}
	if fmt.Sprint(rv.MoreConstraints) != fmt.Sprint(want) {
		t.Fatalf("graft_prepare moreConstraints = %+v, want %+v", rv.MoreConstraints, want)
	}
	small := f.prepare(nil)
	if small.MoreConstraints != nil {
		t.Fatalf("a session under the cap has moreConstraints %+v", small.MoreConstraints)
	}
}
