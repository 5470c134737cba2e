package index

import (
	"os"
	"testing"

	"github.com/graft-project/graft/internal/formatdoc"
)

// doc.go specifies every index value: it must name every field the
// package writes (the scan index's head, the seal, the state checkpoint,
// a seq mark's record).
func TestDocNamesEveryIndexField(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	if missing := formatdoc.Missing(string(doc), ScanIndex{}, Seal{}, State{}, SeqMark{}); len(missing) > 0 {
		t.Fatalf("doc.go does not name these index fields: %q", missing)
	}
}
