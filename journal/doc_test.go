package journal

import (
	"os"
	"testing"

	"github.com/graft-project/graft/internal/formatdoc"
)

// doc.go specifies the record file: it must name every field Write puts in it.
func TestDocNamesEveryRecordField(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	if missing := formatdoc.Missing(string(doc), Record{}); len(missing) > 0 {
		t.Fatalf("doc.go does not name these record fields: %q", missing)
	}
}
