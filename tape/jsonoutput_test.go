package tape

import (
	"strings"
	"testing"
)

// An output that is one JSON document whose strings hold text (`gh pr view
// --json body`, an MCP tool's answer, a search API's results) is quoted as
// that text where the tape quotes an output at length (a look-up, the
// tail, the last call's lines): a line per line of it, each string under
// its field's name, not JSON with its lines escaped into one, where a
// quote or a "<" reads "\"" or "\u003c". Before the rule, a Codex
// session's look-up of its memory showed 2,600 characters of escaped JSON
// on one line.
func TestAJSONOutputIsQuotedAsTheTextItHolds(t *testing.T) {
	out := `{"number":42,"state":"OPEN","body":"## Summary\n\n- Add the \"OIDC\" issuer \u003cadapter\u003e.\n- Tests pass: 87 passed, 0 failed.","labels":[{"name":"auth"},{"name":"ci"}]}`
	got := outputBody(out)
	for _, want := range []string{"number: 42", "state: OPEN", "body: ## Summary", "\n- Add the \"OIDC\" issuer <adapter>.\n", "\n- Tests pass: 87 passed, 0 failed.", "name: auth", "name: ci"} {
		if !strings.Contains(got, want) {
			t.Errorf("outputBody holds no %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, `\n`) || strings.Contains(got, `\"`) || strings.Contains(got, `{`) {
		t.Errorf("outputBody still holds the JSON's escapes or braces:\n%s", got)
	}
	// A document in a string of one (a wrapper's answer around a tool's)
	// is read the same way.
	wrapped := `{"comments":"{\n  \"pull_request\": {\n    \"number\": 10973,\n    \"title\": \"Keep \\\"installed\\\" versions\"\n  }\n}","checks":"PR #10973: no failing checks detected.\n"}`
	if got := outputBody(wrapped); !strings.Contains(got, "number: 10973") || !strings.Contains(got, `title: Keep "installed" versions`) || !strings.Contains(got, "checks: PR #10973: no failing checks detected.") {
		t.Errorf("a document in a string is not read as its text:\n%s", got)
	}
	// An action's key lines read the document as it is: its fields come in
	// no order of weight, and the key lines' rule (the last line, a
	// verdict near the end) picked "isError: false" and a review's HTML
	// comments out of the text (measured: one fact fewer on the truth set).
	if kl := keyLinesSkipping(out, true, nil); len(kl) != 1 || !strings.HasPrefix(kl[0], `{"number":42`) {
		t.Errorf("key lines %q: want the document's one line", kl)
	}
	// Through a tape: the tail quotes the text.
	b := fold(t, "s", seqd(human("Read the body of pull request 42 and fix what it says."),
		call("shell_command", "c1", `{"command":"gh pr view 42 --json number,state,body,labels"}`),
		result("shell_command", "c1", true, out)))
	tp, err := b.Build(Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tail := blockText(t, tp, "Conversation Tail"); !strings.Contains(tail, `Add the "OIDC" issuer <adapter>.`) || strings.Contains(tail, `\u003c`) {
		t.Errorf("the tail does not quote the JSON's text:\n%s", tail)
	}

	// What is left as it is: JSON with no escaped text (compact and
	// readable), text that is not one JSON document, JSON past the
	// size read so.
	for _, plain := range []string{
		`{"ok":true,"count":3}`,
		`[1,2,3]`,
		"{\"a\":\"x\\ny\"}\nand a line after it",
		"not json: {\"a\":\"x\\ny\"}",
		`{"a":"x\ny"`, // cut short
		`{"a":"x\ny","pad":"` + strings.Repeat("x", maxJSONOutput) + `"}`,
	} {
		if got := outputBody(plain); got != plain {
			t.Errorf("outputBody(%.40q) = %.80q, want it unchanged", plain, got)
		}
	}
}
