package logscan

import "testing"

// The helpers the importers' fast paths share: a repeated key is refused,
// a key in another case is one encoding/json folds, a whole string is read
// only when the text is exactly one string.
func TestFastPathHelpers(t *testing.T) {
	var s FieldSet
	if !s.First(3) || s.First(3) || !s.First(4) {
		t.Error("FieldSet: First must be true once per key")
	}
	if !FoldsTo([]byte("TYPE"), []string{"uuid", "type"}) || FoldsTo([]byte("types"), []string{"type"}) {
		t.Error("FoldsTo: case-folded match of a known key only")
	}
	var d Decoder
	for raw, want := range map[string]string{`"ab"`: "ab", `"a\nb"`: "a\nb"} {
		if got, ok := d.WholeString([]byte(raw)); !ok || got != want {
			t.Errorf("WholeString(%s) = %q, %v", raw, got, ok)
		}
	}
	for _, raw := range []string{`"ab" `, `"ab"x`, `1`, `"ab`} {
		if _, ok := d.WholeString([]byte(raw)); ok {
			t.Errorf("WholeString(%s) took a text that is not one whole string", raw)
		}
	}
}
