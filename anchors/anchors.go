package anchors

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/graft-project/graft/session"
)

// MaxRunes caps one extracted constraint (rule 5 of the package doc).
const MaxRunes = 300

var englishMarkers = map[string]bool{
	"must": true, "never": true, "always": true, "only": true,
	"required": true, "forbidden": true, "don't": true,
}

var russianMarkers = map[string]bool{
	"нельзя": true, "обязательно": true, "никогда": true, "только": true,
}

var chineseMarkers = []string{"必须", "不要", "禁止", "不得", "务必", "只能"}

// Extract returns the constraint sentences of one human instruction, in the
// order they appear (rules in the package doc).
func Extract(text string) []string {
	var out []string
	seen := map[string]bool{}
	inFence := false
	for _, line := range strings.FieldsFunc(text, func(r rune) bool { return r == '\n' || r == '\r' }) {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		for _, s := range sentences(line) {
			s = trimListMarker(strings.TrimSpace(s))
			if s == "" || !hasMarker(s) {
				continue
			}
			s = capRunes(s, MaxRunes)
			key := Normalize(s)
			if seen[key] {
				continue
			}
			seen[key] = true
			out = append(out, s)
		}
	}
	return out
}

// sentences splits one line after 。！？ and after . ! ? followed by white
// space or the end of the line.
func sentences(line string) []string {
	var out []string
	rs := []rune(line)
	start := 0
	for i, r := range rs {
		end := false
		switch r {
		case '。', '！', '？':
			end = true
		case '.', '!', '?':
			end = i+1 == len(rs) || unicode.IsSpace(rs[i+1])
		}
		if end {
			out = append(out, string(rs[start:i+1]))
			start = i + 1
		}
	}
	if start < len(rs) {
		out = append(out, string(rs[start:]))
	}
	return out
}

func trimListMarker(s string) string {
	for _, p := range []string{"- ", "* ", "• ", "+ ", "> "} {
		if strings.HasPrefix(s, p) {
			return strings.TrimSpace(s[len(p):])
		}
	}
	// "1. " and "1) "
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(s) && (s[i] == '.' || s[i] == ')') && s[i+1] == ' ' {
		return strings.TrimSpace(s[i+2:])
	}
	return s
}

func capRunes(s string, n int) string {
	if len(s) <= n { // bytes ≥ runes: short strings need no rune count
		return s
	}
	rs := []rune(s)
	if len(rs) <= n {
		return s
	}
	return string(rs[:n-1]) + "…"
}

// word is one token of a sentence; spaced says whether only white space
// separates it from the previous word.
type word struct {
	text   string
	spaced bool
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

// words splits s into lower-case words (rule 4 of the package doc).
func words(s string) []word {
	rs := []rune(strings.ToLower(s))
	var out []word
	gapSpaceOnly := true
	for i := 0; i < len(rs); {
		if !isWordRune(rs[i]) {
			if !unicode.IsSpace(rs[i]) {
				gapSpaceOnly = false
			}
			i++
			continue
		}
		j := i
		var b strings.Builder
		for j < len(rs) {
			r := rs[j]
			if isWordRune(r) {
				b.WriteRune(r)
				j++
				continue
			}
			if (r == '\'' || r == '’') && j > i && j+1 < len(rs) && unicode.IsLetter(rs[j-1]) && unicode.IsLetter(rs[j+1]) {
				b.WriteRune('\'')
				j++
				continue
			}
			break
		}
		out = append(out, word{text: b.String(), spaced: gapSpaceOnly && len(out) > 0})
		gapSpaceOnly = true
		i = j
	}
	return out
}

func hasMarker(s string) bool {
	for _, m := range chineseMarkers {
		if strings.Contains(s, m) {
			return true
		}
	}
	ws := words(s)
	for k, w := range ws {
		if englishMarkers[w.text] || russianMarkers[w.text] {
			return true
		}
		if k+1 < len(ws) && ws[k+1].spaced {
			if w.text == "do" && ws[k+1].text == "not" {
				return true
			}
			if w.text == "не" && startsWithLetter(ws[k+1].text) {
				return true
			}
		}
	}
	return false
}

func startsWithLetter(s string) bool {
	for _, r := range s {
		return unicode.IsLetter(r)
	}
	return false
}

// Normalize is the identity of a constraint: lower case, every run of
// non-letters and non-digits one space, trimmed.
func Normalize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if r < utf8.RuneSelf {
			// ASCII, as the unicode tables class and fold it.
			c := byte(r)
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if 'a' <= c && c <= 'z' || '0' <= c && c <= '9' {
				if space && b.Len() > 0 {
					b.WriteByte(' ')
				}
				space = false
				b.WriteByte(c)
				continue
			}
			space = true
			continue
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		space = true
	}
	return b.String()
}

// older reports whether a was said before b. Across generations the lower
// generation is older; seqs compare only within one session.
func older(a, b session.Origin) bool {
	if a.Generation != b.Generation {
		return a.Generation < b.Generation
	}
	return a.Session == b.Session && a.Seq < b.Seq
}

// Merge adds the constraints of one human instruction (text, said at
// origin) to inherited and returns the result; inherited is not modified.
// A constraint already present keeps its oldest origin and gets the other
// one in Also, once.
func Merge(inherited []session.Constraint, text string, origin session.Origin) []session.Constraint {
	out := make([]session.Constraint, len(inherited))
	index := make(map[string]int, len(inherited))
	for k, c := range inherited {
		c.Also = append([]session.Origin(nil), c.Also...)
		out[k] = c
		key := Normalize(c.Text)
		if _, dup := index[key]; !dup {
			index[key] = k
		}
	}
	for _, s := range Extract(text) {
		key := Normalize(s)
		k, ok := index[key]
		if !ok {
			index[key] = len(out)
			out = append(out, session.Constraint{Text: s, Origin: origin})
			continue
		}
		c := &out[k]
		if older(origin, c.Origin) {
			// Said earlier than the copy we hold: the earlier saying is the origin.
			prev := c.Origin
			c.Origin, c.Text = origin, s
			c.Also = removeOrigin(c.Also, origin)
			c.Also = addOrigin(c.Also, prev)
			continue
		}
		if origin != c.Origin {
			c.Also = addOrigin(c.Also, origin)
		}
	}
	return out
}

func addOrigin(list []session.Origin, o session.Origin) []session.Origin {
	for _, x := range list {
		if x == o {
			return list
		}
	}
	return append(list, o)
}

func removeOrigin(list []session.Origin, o session.Origin) []session.Origin {
	out := list[:0]
	for _, x := range list {
		if x != o {
			out = append(out, x)
		}
	}
	return out
}

// AnchorLine is the pinned first line of the Hard Constraints block
// (docs/DESIGN.md §4.2), naming the oldest origin.
func AnchorLine(oldest session.Origin) string {
	return fmt.Sprintf("[ANCHOR] Core constraints originate from generation %d session %s, seq=%d; re-read it first when in doubt. The HARD CONSTRAINTS below are copies extracted from the user's own words, not something this generation's user just said.",
		oldest.Generation, oldest.Session, oldest.Seq)
}

// Oldest returns the oldest origin among cs (lowest generation, then session
// id, then seq, so ties resolve the same way every time); false when cs is
// empty.
func Oldest(cs []session.Constraint) (session.Origin, bool) {
	if len(cs) == 0 {
		return session.Origin{}, false
	}
	best := cs[0].Origin
	for _, c := range cs[1:] {
		o := c.Origin
		switch {
		case o.Generation != best.Generation:
			if o.Generation < best.Generation {
				best = o
			}
		case o.Session != best.Session:
			if o.Session < best.Session {
				best = o
			}
		case o.Seq < best.Seq:
			best = o
		}
	}
	return best, true
}

// Holds reports whether the origin event's text still contains the
// constraint, both compared after Normalize. An empty constraint never holds.
func Holds(originText, constraint string) bool {
	c := Normalize(constraint)
	if c == "" {
		return false
	}
	return strings.Contains(Normalize(originText), c)
}
