package qwen

import (
	"os"
	"testing"

	"github.com/graft-project/graft/internal/formatdoc"
)

// doc.go specifies the mapper state the import cursor keeps: it must name
// every field of it.
func TestDocNamesEveryStateField(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	if missing := formatdoc.Missing(string(doc), mapperState{}); len(missing) > 0 {
		t.Fatalf("doc.go does not name these fields: %q", missing)
	}
}
