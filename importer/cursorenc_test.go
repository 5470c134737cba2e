package importer

import (
	"encoding/json"
	"testing"
)

// encodeCursor writes what json.MarshalIndent and a newline write, to the
// byte, for states of every shape, with and without settings (one of
// whose keys is "updated", which must not be taken for the field), and
// for a state encoding/json would escape for HTML (its own path).
func TestEncodeCursorIsMarshalIndent(t *testing.T) {
	states := []string{
		``,
		`{}`,
		`[]`,
		`{"msgs":{"a":{"t":"0123456789abcdef","th":2}},"list":["a","b"],"calls":{}}`,
		`{"x": [1, 2, {"y": null}], "s": "tab\there \"quoted\" \u00e9"}`,
		`  {"spaced" :  [ true , false ] }  `,
		`{"html":"<b>&</b>"}`,
		`"just a string"`,
		`123`,
	}
	for _, settings := range []map[string]string{nil, {"keepThinking": "true", "updated": "x"}} {
		for _, st := range states {
			c := &Cursor{Version: CursorVersion, Format: "f", Session: "s", Source: "/x/y.jsonl", Device: 1, Inode: 2, Size: 3,
				Offset: 4, Lines: 5, PrefixSHA256: "p", HashState: []byte{1, 2}, TailSHA256: "t", LastSeq: 6,
				Settings: settings, State: json.RawMessage(st), Updated: "2026-12-02T00:00:00Z"}
			want, err := json.MarshalIndent(c, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, '\n')
			got, err := encodeCursor(c)
			if err != nil {
				t.Fatalf("state %q: %v", st, err)
			}
			if string(got) != string(want) {
				t.Errorf("state %q, settings %v:\ngot  %s\nwant %s", st, settings, got, want)
			}
		}
	}
	if _, err := encodeCursor(&Cursor{Session: "s", State: json.RawMessage(`{"a":`), Updated: "u"}); err == nil {
		t.Error("a state that is not JSON was encoded")
	}
}
