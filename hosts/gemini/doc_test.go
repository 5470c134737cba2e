package gemini

import (
	"os"
	"testing"

	"github.com/graft-project/graft/internal/formatdoc"
)

// doc.go specifies the export: it must name every field Render writes.
func TestDocNamesEveryExportField(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	if missing := formatdoc.Missing(string(doc), exportHeader{}, exportMessage{}, textPart{}, HookInput{}, HookGroup{}, HookCommand{}); len(missing) > 0 {
		t.Fatalf("doc.go does not name these fields: %q", missing)
	}
}
