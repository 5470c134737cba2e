package catalog

import (
	"os"
	"testing"

	"github.com/graft-project/graft/internal/formatdoc"
)

// doc.go specifies every bucket's values: it must name every field the
// catalog stores.
func TestDocNamesEveryValueField(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	if missing := formatdoc.Missing(string(doc), Prepared{}, Node{}, Leftover{}); len(missing) > 0 {
		t.Fatalf("doc.go does not name these stored fields: %q", missing)
	}
}
