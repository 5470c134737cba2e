package session_test

import (
	"os"
	"testing"

	"github.com/graft-project/graft/internal/formatdoc"
	"github.com/graft-project/graft/session"
)

// doc.go specifies the log line: it must name every field an event can
// carry on disk, nested payloads included.
func TestDocNamesEveryEventField(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	if missing := formatdoc.Missing(string(doc), session.Event{}); len(missing) > 0 {
		t.Fatalf("doc.go does not name these event fields: %q", missing)
	}
}
