package graft

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

// holdsAll is Find's own check on a decoded event, without the prefilter.
func holdsAll(ev *session.Event, words []string) bool {
	lower := strings.ToLower(ev.AllText())
	for _, w := range words {
		if !strings.Contains(lower, w) {
			return false
		}
	}
	return true
}

// checkMayHold fails when mayHold rules out a line whose event holds
// every word: the prefilter may let lines through, never drop a match.
// The line is the event as graft writes it, and as a hand-written one may
// escape each of its characters (\u0041 for A).
func checkMayHold(t *testing.T, text, input, word string) {
	t.Helper()
	words := strings.Fields(strings.ToLower(word))
	if len(words) == 0 {
		return
	}
	in, err := json.Marshal(map[string]string{"content": input})
	if err != nil {
		t.Fatal(err)
	}
	ev := session.Event{Seq: 1, Type: session.TypeToolCall, Source: session.Source{Kind: session.KindAssistant}, Text: text,
		Tool: &session.Tool{Name: "Write", CallID: "c1", Input: in}}
	written, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	escaped := []byte(fmt.Sprintf(`{"seq":1,"type":"tool/call","source":{"kind":"assistant"},"text":%s,"tool":{"name":"Write","callId":"c1","input":{"content":%s}}}`, escapeAll(text), escapeAll(input)))
	// JSON may also write a slash as \/ (encoding/json never does; a line
	// appended by hand may).
	slashed := bytes.ReplaceAll(written, []byte("/"), []byte(`\/`))
	for _, raw := range [][]byte{written, escaped, slashed} {
		var got session.Event
		if err := session.Decode(raw, &got); err != nil {
			t.Fatalf("decode %s: %v", raw, err)
		}
		if holdsAll(&got, words) && !mayHold(raw, words) {
			t.Fatalf("mayHold(%s, %q) is false, but the event holds every word", raw, words)
		}
	}
}

// escapeAll is s as a JSON string whose every character is a \u escape
// (a surrogate pair past the BMP).
func escapeAll(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		if r > 0xFFFF {
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
			continue
		}
		fmt.Fprintf(&b, `\u%04x`, r)
	}
	b.WriteByte('"')
	return b.String()
}

func TestMayHoldKeepsEveryMatch(t *testing.T) {
	for _, c := range []struct{ text, input, word string }{
		{"The Queue is shared", "", "queue"},
		{"", "We keep ONE queue", "one queue"},
		{"a <b> & c", "", "<b>"},
		{"\u212a is a Kelvin sign", "", "k"},
		{"\u0130stanbul", "", "istanbul"},
		{"İSTANBUL", "", "i̇stanbul"},
		{`say "hi" \ there`, "", `"hi"`},
		{"строка Line", "", "строка line"},
		{"tab\there", "", "tab"},
		{"see src/main.go", "", "src/main.go"},
	} {
		checkMayHold(t, c.text, c.input, c.word)
	}
	// Words cut from random texts of letters both cases, a few escapes and
	// the letters whose lower case is ASCII.
	rng := rand.New(rand.NewPCG(7, 23))
	alphabet := []rune("aAbBkKzZ09 _-./:<>&\"\\\n\t\u212a\u0130éÉжЖ行")
	randText := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteRune(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	for range 20000 {
		text, input := randText(rng.IntN(40)), randText(rng.IntN(40))
		src := []rune(strings.ToLower(text + " " + input))
		i := rng.IntN(len(src))
		j := min(len(src), i+1+rng.IntN(6))
		checkMayHold(t, text, input, string(src[i:j]))
		checkMayHold(t, text, input, randText(1+rng.IntN(4)))
	}
}

func FuzzMayHoldKeepsEveryMatch(f *testing.F) {
	f.Add("The Queue is shared", "We keep one queue", "queue")
	f.Add("\u212a", "", "k")
	f.Add("a <b> & c", "", "<b> &")
	f.Fuzz(func(t *testing.T, text, input, word string) {
		checkMayHold(t, text, input, word)
	})
}
