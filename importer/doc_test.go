package importer

import (
	"os"
	"testing"

	"github.com/graft-project/graft/internal/formatdoc"
)

// doc.go specifies the cursor file: it must name every field SaveCursor
// writes.
func TestDocNamesEveryCursorField(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	if missing := formatdoc.Missing(string(doc), Cursor{}); len(missing) > 0 {
		t.Fatalf("doc.go does not name these cursor fields: %q", missing)
	}
}
