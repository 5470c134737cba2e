package importer

import (
	"errors"
	"os"
	"testing"

	"github.com/graft-project/graft/session"
)

// FuzzADamagedCursorNeverChangesTheSession changes one byte of an import
// cursor and imports what was appended since: the session ends as a
// one-shot import of the whole source, or the run fails with ErrCursor
// (a cursor that does not decode); never a session the damage shaped (a
// mapper's state a digit off numbers the next events wrong). make fuzz
// runs it at length; make test its seeds.
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
		_, err := fx.run("s")
		if err != nil {
			if !errors.Is(err, ErrCursor) {
				t.Fatalf("after byte %d of the cursor became %q: %v, want ErrCursor or the session of a one-shot import", k, val, err)
			}
			return
		}
		fx.mustRun("one")
		if a, b := texts(fx.events("s")), texts(fx.events("one")); a != b {
			t.Fatalf("after byte %d of the cursor became %q the session is\n%s\nwant, as a one-shot import,\n%s", k, val, a, b)
		}
	})
}
