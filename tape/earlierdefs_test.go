package tape

import (
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

// A file's line names the definitions its earlier writes and edits put in
// before the other names they add: what the file now defines is what the
// rest of the code and the next window call; the names an edit calls are
// its details. Read at once or at Build, the tape is the same.
func TestEarlierEditsNameTheirDefinitionsFirst(t *testing.T) {
	edit := func(id, old, new string) []session.Event { return editOf("/r/pkg/store.go", id, old, new) }
	evs := []session.Event{withMeta(human("Batch the writes."), "cwd", "/r")}
	evs = append(evs, edit("e1", "package store", "package store\n\nfunc BatchUpdateNodes(tx *sql.Tx) error { return nil }")...)
	evs = append(evs, edit("e2", "a := 1", "repo.callAlpha()\nrepo.callBravo()\nrepo.callCharlie()\nrepo.callDelta()\nrepo.callEcho()\nrepo.callFoxtrot()")...)
	evs = append(evs, edit("e3", "b := 2", "repo.callGolf()\nrepo.callHotel()\nrepo.callIndia()\nrepo.callJuliet()\nrepo.callKilo()\nrepo.callLima()")...)
	evs = append(evs, edit("e4", "x = 1", "batch_size = 1")...)
	evs = seqd(evs...)
	want := build(t, "s", evs, Options{}, nil)
	files := blockText(t, want, "Workspace Files")
	if !strings.Contains(files, "(earlier edits add BatchUpdateNodes, repo.callGolf, ") {
		t.Fatalf("the earlier edits' definitions first, then the names they call, newest first:\n%s", files)
	}

	if got := builtAtBuild(t, evs, Options{}); got.Text != want.Text {
		t.Fatalf("read at Build:\n%s\n\nin hand:\n%s", blockText(t, got, "Workspace Files"), files)
	}
}
