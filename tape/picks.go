package tape

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/graft-project/graft/session"
)

// pick is the option a short answer names, as the message it answers
// lists it: the Goal shows those lines under the answer (issue 23: "6"
// alone says nothing once the proposal it answers is cut).
type pick struct {
	Seq   int64    `json:"seq"`   // the answer's
	From  int64    `json:"from"`  // the assistant's message it answers
	Lines []string `json:"lines"` // the options' lines, as written
}

// maxPickOptions bounds the options one answer names ("1 and 3", "2, 4").
const maxPickOptions = 4

// maxAnswerBytes bounds an answer that may name options: "1, 3 and 4"
// fits, a sentence does not need reading.
const maxAnswerBytes = 40

// maxPickRunes bounds one option's line.
const maxPickRunes = 200

// answerOptions are the options a short answer names, lower case: "6",
// "B", "option 2", "1 and 3", "2, 4", "(c)"; nil when the answer says
// anything else ("yes", "6 please do it") or names more than
// maxPickOptions.
func answerOptions(text string) []string {
	t := strings.ToLower(strings.TrimSpace(text))
	var opts []string
	for _, f := range strings.FieldsFunc(t, func(r rune) bool { return r == ',' || r == ' ' || r == '+' || r == '&' || r == '/' }) {
		if f == "and" || f == "option" || f == "options" {
			continue
		}
		f = strings.Trim(f, "()#.*:!")
		if !optionToken(f) {
			return nil
		}
		opts = append(opts, f)
	}
	if len(opts) > maxPickOptions {
		return nil
	}
	return opts
}

// optionToken: one or two digits, or one ASCII letter.
func optionToken(f string) bool {
	switch len(f) {
	case 1:
		c := f[0]
		return '0' <= c && c <= '9' || 'a' <= c && c <= 'z'
	case 2:
		return '0' <= f[0] && f[0] <= '9' && '0' <= f[1] && f[1] <= '9'
	}
	return false
}

// pickedLines are the lines of the message text that open the options
// answer names, as written (trimmed, at most maxPickRunes each), in the
// answer's order: of each option the last such line (the list a message
// asks from closes it); nil unless every option is found.
func pickedLines(text, answer string) []string {
	opts := answerOptions(answer)
	if len(opts) == 0 {
		return nil
	}
	found := make([]string, len(opts))
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		o := optionOf(t)
		if o == "" {
			continue
		}
		for k, want := range opts {
			if o == want {
				found[k] = firstLine(t, maxPickRunes)
			}
		}
	}
	for _, f := range found {
		if f == "" {
			return nil
		}
	}
	return found
}

// optionOf is the option a line opens, lower case, "" for none: "6. …",
// "B) …", "**Option 2**: …", "### Option C — …", "- 3. …", and a table's
// row whose first cell is the option ("| B | … |").
func optionOf(t string) string {
	if strings.HasPrefix(t, "|") {
		cells := strings.Split(t, "|")
		if len(cells) < 3 {
			return ""
		}
		c := strings.ToLower(strings.Trim(strings.TrimSpace(cells[1]), "*`"))
		c = strings.TrimSpace(strings.TrimPrefix(c, "option "))
		if optionToken(c) {
			return c
		}
		return ""
	}
	t = strings.TrimLeft(t, "#-*> \t")
	t = strings.TrimPrefix(t, "**")
	lower := strings.ToLower(t)
	if strings.HasPrefix(lower, "option ") {
		lower = lower[len("option "):]
	}
	n := 0
	for n < len(lower) && n < 2 && ('0' <= lower[n] && lower[n] <= '9') {
		n++
	}
	if n == 0 && len(lower) > 0 && 'a' <= lower[0] && lower[0] <= 'z' {
		n = 1
	}
	if n == 0 || n >= len(lower) {
		return ""
	}
	rest := strings.TrimPrefix(lower[n:], "**")
	if rest == "" {
		return ""
	}
	switch rest[0] {
	case '.', ')', ':':
		if len(rest) == 1 || rest[1] == ' ' || rest[1] == '*' {
			return lower[:n]
		}
	case ' ':
		// "Option B — …", "Option 2 - …": a dash after the option word.
		if strings.HasPrefix(t, "Option") || strings.HasPrefix(t, "option") {
			r, _ := utf8.DecodeRuneInString(strings.TrimSpace(rest))
			if r == '-' || r == '—' || r == '–' {
				return lower[:n]
			}
		}
	}
	return ""
}

// pickedText is what the Goal shows under the answer q: "\n↳ picks, in
// the assistant's message seq=N (model-written): <the option's line>"
// (lines joined by " ⏎ "; of an answer handed on, cited in its session:
// "gen 1 seq=N"), "" when the answer named no option.
func (b *Builder) pickedText(q session.Quote) string {
	p := b.picksOf(q)
	if p == nil {
		return ""
	}
	return fmt.Sprintf("\n↳ picks, in the assistant's message %s (model-written): %s", b.seqIn(q.Origin, p.From), strings.Join(p.Lines, " ⏎ "))
}

// picksOf are the options the answer q picks: of this session's, the
// fold's (Picks); of one handed on, those it came with (inherit: picks),
// or the fold's copy of it for a quote without them (the tape's Goal
// quotes); nil for none.
func (b *Builder) picksOf(q session.Quote) *session.Picks {
	st := &b.st
	if q.Origin.Session != st.SessionID {
		if q.Picks != nil {
			return q.Picks
		}
		return b.heldQuote(q).Picks
	}
	for _, p := range st.Picks {
		if p.Seq == q.Origin.Seq {
			return &session.Picks{From: p.From, Lines: slices.Clone(p.Lines)}
		}
	}
	return nil
}
