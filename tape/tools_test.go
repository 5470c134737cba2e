package tape

import (
	"encoding/json"
	"strings"
	"testing"
)

// toolOp is the map lookup of the lowered name, for every name: ASCII in
// any case, longer than its buffer, and non-ASCII runes that lower to
// ASCII (the Kelvin sign is a K).
func TestToolOpIsTheLoweredLookup(t *testing.T) {
	names := []string{"", "Bash", "READ", "read", "Write", "apply_patch", "Apply_Patch", "NotebookEdit",
		"NOTEBOO\u212AEDIT", "Écrire", "todo_write", strings.Repeat("Edit", 10), "edit\x00", "Grep"}
	for name := range toolOps {
		names = append(names, name, strings.ToUpper(name))
	}
	for _, name := range names {
		want, wantOK := toolOps[strings.ToLower(name)]
		if got, ok := toolOp(name); got != want || ok != wantOK {
			t.Errorf("toolOp(%q) = %q %v, want %q %v", name, got, ok, want, wantOK)
		}
	}
}

// patchText reads a patch given as a JSON string or in an object's
// "patch" or "input" field, with or without space before it.
func TestPatchText(t *testing.T) {
	for in, want := range map[string]string{
		`"*** Add File: a"`:               "*** Add File: a",
		" \n\t\"p\"":                      "p",
		`{"patch":"p1","input":"i"}`:      "p1",
		` {"input":"i1"}`:                 "i1",
		`null`:                            "",
		`[1]`:                             "",
		`"bad`:                            "",
		`{"patch":"\u002a** Move to: b"}`: "*** Move to: b",
	} {
		if got := patchText(json.RawMessage(in)); got != want {
			t.Errorf("patchText(%s) = %q, want %q", in, got, want)
		}
	}
}
