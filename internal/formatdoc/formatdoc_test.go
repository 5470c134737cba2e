package formatdoc

import (
	"reflect"
	"testing"
	"time"
)

type inner struct {
	Seq int64 `json:"seq"`
}

type base struct {
	Events int `json:"events"`
}

type record struct {
	base
	ID      string            `json:"id"`
	Parent  string            `json:"parent,omitempty"`
	Skip    string            `json:"-"`
	At      time.Time         `json:"at"`
	Marks   []inner           `json:"marks"`
	ByName  map[string]*inner `json:"byName"`
	private string
}

func TestMissing(t *testing.T) {
	doc := "id, parent, at, events; marks [{seq}], byName"
	if got := Missing(doc, record{}); len(got) != 0 {
		t.Fatalf("Missing on a doc naming every field = %q", got)
	}
	// "parentId" does not name "parent", nor "seqs" "seq": whole words only.
	got := Missing("id, parentId, at, events; marks [{seqs}]", &record{})
	want := []string{"record.Parent (parent)", "inner.Seq (seq)", "record.ByName (byName)"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Missing = %q, want %q", got, want)
	}
}
