package tape

import (
	"strings"
	"testing"
)

// A command that prints one JSON object on one line (gh pr view --json,
// a script's result) gets its key line cut at keyLineRunes, and a long
// field (a pull request's body) took the room of every field after it:
// the state, the URL. Such a line is quoted with each long value clipped
// in place, so that every field is shown; a short line, or one that is no
// JSON object, is as it was.
func TestAJSONLineShowsEveryField(t *testing.T) {
	line := `{"baseRefName":"main","body":"## Summary\n- ` + strings.Repeat("Add shared config path helpers. ", 20) + `","headRefName":"codex/fix-pass","isDraft":false,"number":582,"state":"OPEN","url":"https://github.com/jdx/fnox/pull/582"}`
	got := strings.Join(keyLines(line+"\n", true), "\n")
	for _, want := range []string{`"state":"OPEN"`, `"url":"https://github.com/`, `"number":582`, `"baseRefName":"main"`, `"body":"## Summary`} {
		if !strings.Contains(got, want) {
			t.Errorf("key line lacks %s:\n%s", want, got)
		}
	}
	if n := len([]rune(got)); n > keyLineRunes {
		t.Errorf("key line of %d runes, past %d:\n%s", n, keyLineRunes, got)
	}
	short := `{"conclusion":"success","jobs":[],"status":"completed"}`
	if got := keyLines(short+"\n", true); len(got) != 1 || got[0] != short {
		t.Errorf("a short JSON line changed: %q", got)
	}
	notJSON := `{"a": 1, broken ` + strings.Repeat("x", 300)
	if got := keyLines(notJSON+"\n", true); len(got) != 1 || got[0] != firstLine(notJSON, keyLineRunes) {
		t.Errorf("a line that is no JSON changed: %q", got)
	}
}

// jsonLine never panics and never quotes more than its room, whatever the
// line: a JSON object of any shape, or a line that only looks like one.
func FuzzJSONLine(f *testing.F) {
	for _, s := range []string{`{"a":"` + strings.Repeat("é", 300) + `","b":1}`, `{"a":[1,2,3],"b":{"c":"d"}}`, `{"a":"\u00e9\\n` + strings.Repeat("x", 200) + `"}`, `{`, `{"a":1}{"b":2}`} {
		f.Add(s, 180)
	}
	f.Fuzz(func(t *testing.T, l string, n int) {
		if n < 1 || n > 2000 {
			return
		}
		got := jsonLine(l, n)
		if r := []rune(got); len(r) > n+2 {
			t.Fatalf("jsonLine(%q, %d) = %q: %d runes", l, n, got, len(r))
		}
	})
}
