package logscan_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/graft-project/graft/session/logscan"
)

type pathFields struct {
	FilePath     string `json:"file_path"`
	Path         string `json:"path"`
	NotebookPath string `json:"notebook_path"`
}

// checkStringFields: when StringFields answers, it answers as
// encoding/json does; inputs graft meets must take the fast path.
func checkStringFields(t *testing.T, input string, mustAnswer bool) {
	t.Helper()
	vals, ok := logscan.StringFields([]byte(input), "file_path", "path", "notebook_path")
	var want pathFields
	err := json.Unmarshal([]byte(input), &want)
	if !ok {
		if mustAnswer {
			t.Fatalf("StringFields declined %s", input)
		}
		return
	}
	if err != nil {
		t.Fatalf("StringFields answered %q where encoding/json fails (%v) on %s", vals, err, input)
	}
	if got := (pathFields{vals[0], vals[1], vals[2]}); !reflect.DeepEqual(got, want) {
		t.Fatalf("StringFields %+v, encoding/json %+v, on %s", got, want, input)
	}
}

func TestStringFieldsIsEncodingJSON(t *testing.T) {
	answered := []string{
		`{"file_path":"/a/b.go","content":"package b\n\nfunc x() {}\n"}`,
		` { "path" : "x" , "old_string" : "a\"b" , "new_string" : [1, {"z": null}] } `,
		`{"notebook_path":"n.ipynb","cells":[]}`,
		`{"file_path":null,"path":"p"}`,
		`{}`,
		`{"file_path":"caf\u00e9.go"}`,
		`{"other":"file_path"}`,
	}
	for _, in := range answered {
		checkStringFields(t, in, true)
	}
	declined := []string{
		`{"File_Path":"x"}`, // encoding/json matches it up to case
		`{"file_path":"a","file_path":"b"}`,
		`{"file_path":1}`,        // a type error encoding/json reports
		`{"fil\u0065_path":"x"}`, // an escaped key
		`["file_path"]`,
		`"file_path"`,
		`{"file_path":"x"`,
		`{"file_path":"x"} {}`,
		``,
		`{"path":"\ud800"}`, // a lone surrogate
	}
	for _, in := range declined {
		if _, ok := logscan.StringFields([]byte(in), "file_path", "path", "notebook_path"); ok {
			t.Errorf("StringFields answered %s; it must leave it to encoding/json", in)
		}
		checkStringFields(t, in, false)
	}
}

func FuzzStringFields(f *testing.F) {
	for _, s := range []string{`{"file_path":"a","x":[1,2,{"y":"z"}]}`, `{"PATH":"p"}`, `{"path":null}`, `{"notebook_path":"\u00e9\n"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, input string) { checkStringFields(t, input, false) })
}
