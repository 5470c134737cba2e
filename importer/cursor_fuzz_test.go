package importer

import (
	"os"
	"testing"

	"github.com/graft-project/graft/session"
)

// FuzzADamagedCursorNeverChangesTheSession changes one byte of an import
// cursor and imports what was appended since: the session ends as a
// one-shot import of the whole source: the damaged cursor is set aside
// (ErrCursorSum), never trusted (a mapper's state a digit off numbered the
// next events wrong; a digit of its prefix hash blamed the source for a
// rewrite) nor a reason to fail. make fuzz runs it at length; make test
// its seeds.
func FuzzADamagedCursorNeverChangesTheSession(f *testing.F) {
	f.Add(uint16(0), byte('x'))
	f.Add(uint16(300), byte('7'))
	f.Add(uint16(65000), byte(' '))
	f.Fuzz(func(t *testing.T, pos uint16, val byte) {
		fx := newFixture(t)
		fx.write("a\nb|c\nskip\nd\n")
		fx.mustRun("s")
		path := CursorPath(fx.home, "s")
		data := fx.fileBytes(path)
		k := int(pos) % len(data)
		if data[k] == val {
			return
		}
		data[k] = val
		if err := os.WriteFile(path, data, session.FileMode); err != nil {
			t.Fatal(err)
		}
		fx.appendSrc("e\nf|g\n")
		if _, err := fx.run("s"); err != nil {
			t.Fatalf("after byte %d of the cursor became %q: %v, want the cursor set aside and the session of a one-shot import", k, val, err)
		}
		fx.mustRun("one")
		if a, b := texts(fx.events("s")), texts(fx.events("one")); a != b {
			t.Fatalf("after byte %d of the cursor became %q the session is\n%s\nwant, as a one-shot import,\n%s", k, val, a, b)
		}
	})
}
