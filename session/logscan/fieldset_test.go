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

// The field readers the importers' fast paths share read as encoding/json
// would: a raw value as its bytes, null as nil or as no change, and a whole
// object with nothing after it.
func TestFieldReaders(t *testing.T) {
	var d Decoder
	var raw []byte
	d.Reset([]byte(`{"a": 1}`))
	if !d.RawField(&raw) || string(raw) != `{"a": 1}` {
		t.Errorf("RawField = %q", raw)
	}
	s := new(string)
	d.Reset([]byte(`null`))
	if !d.StringPtrField(&s) || s != nil {
		t.Errorf("StringPtrField(null) = %v, want nil", s)
	}
	d.Reset([]byte(`"x"`))
	if !d.StringPtrField(&s) || s == nil || *s != "x" {
		t.Errorf("StringPtrField(\"x\") = %v", s)
	}
	b := true
	d.Reset([]byte(`null`))
	if !d.BoolField(&b) || !b {
		t.Error("BoolField(null) changed the value")
	}
	d.Reset([]byte(`false`))
	if !d.BoolField(&b) || b {
		t.Error("BoolField(false) did not set false")
	}
	keys := 0
	if !d.WholeObject([]byte(` {"k": 1} `), func([]byte) bool { keys++; return d.SkipValue() }) || keys != 1 {
		t.Errorf("WholeObject read %d keys", keys)
	}
	if d.WholeObject([]byte(`{"k": 1} x`), func([]byte) bool { return d.SkipValue() }) {
		t.Error("WholeObject took text after the object")
	}
}
