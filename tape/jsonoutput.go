package tape

import (
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
)

// maxJSONOutput bounds the output jsonText reads: a larger one is quoted
// as it is (its head and end).
const maxJSONOutput = 256 << 10

// jsonText is an output that is one JSON object or array with escaped
// text in it (a "\n", a "\"", a "\u003c": `gh … --json`, an MCP tool's
// answer, a search API's results) as the text it holds: each string and
// number on a line of its own under its field's name ("body: ## Summary",
// then the string's next lines as they are), a nested object or array
// opened by its name alone ("labels:"), null and "" left out, in the
// document's order. ok is false for anything else: JSON with nothing
// escaped reads as well as it is (TestAJSONOutputIsQuotedAsTheTextItHolds).
func jsonText(out string) (string, bool) {
	t := strings.TrimSpace(out)
	if len(t) < 2 || len(t) > maxJSONOutput || (t[0] != '{' && t[0] != '[') || !strings.Contains(t, `\`) || !json.Valid([]byte(t)) {
		return "", false
	}
	type frame struct{ object, wantKey bool }
	var stack []frame
	var b strings.Builder
	key := ""
	line := func(v string) {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		if key != "" {
			b.WriteString(key)
			b.WriteString(":")
			if v != "" {
				b.WriteByte(' ')
			}
		}
		b.WriteString(v)
	}
	// value is called at a value of the innermost frame: in an object, the
	// next string is a key again.
	value := func() {
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].wantKey = true
		}
	}
	dec := json.NewDecoder(strings.NewReader(t))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", false
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				if key != "" {
					line("")
				}
				value()
				stack = append(stack, frame{object: d == '{', wantKey: d == '{'})
			default:
				stack = stack[:len(stack)-1]
			}
			key = ""
			continue
		}
		if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey {
			key, stack[n-1].wantKey = tok.(string), false
			continue
		}
		switch v := tok.(type) {
		case string:
			if inner, ok := jsonText(v); ok {
				v = inner // a document in a string (a tool's answer a wrapper passed on)
			}
			if v = strings.TrimRight(v, " \t\r\n"); v != "" {
				line(v)
			}
		case json.Number:
			line(v.String())
		case bool:
			line(strconv.FormatBool(v))
		}
		value() // in an object the next token is a key or its end, either of which sets key
	}
	return b.String(), true
}
