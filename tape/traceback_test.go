package tape

import (
	"slices"
	"strings"
	"testing"
)

// A Python traceback names its error on its last line, by the exception's
// type qualified by its module ("json.decoder.JSONDecodeError: Expecting
// value"). Pending State shows two of a failure's key lines, the one that
// names the error among them: it showed "Traceback (most recent call
// last):" instead, because a qualified type was read as no error type (a
// real Claude Code session: a curl piped into python3 -c).
func TestATracebacksQualifiedExceptionIsItsError(t *testing.T) {
	out := "Exit code 1\nFAILED: curl \nTraceback (most recent call last):\n  File \"<string>\", line 3, in <module>\n    d=json.load(sys.stdin)\n  File \"/usr/lib64/python3.14/json/decoder.py\", line 363, in raw_decode\n    raise JSONDecodeError(\"Expecting value\", s, err.value) from None\njson.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)"
	const exc = "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)"
	if got := pendingKey(keyLines(out, false)); !slices.Contains(got, exc) {
		t.Errorf("Pending State's lines of the failure %q lack its exception", got)
	}
	tp := build(t, "s", seqd(human("Check the schema."),
		call("Bash", "b1", `{"command":"curl -s https://example.com/schema.json | python3 -c 'import json,sys; d=json.load(sys.stdin)'"}`),
		result("Bash", "b1", false, out)), Options{}, nil)
	if ps := blockText(t, tp, "Pending State"); !strings.Contains(ps, exc) {
		t.Errorf("Pending State lacks the exception:\n%s", ps)
	}
}
